package repl

import (
	"reflect"
	"testing"
)

func TestSplitWords(t *testing.T) {
	tests := []struct {
		name string
		line string
		want []string
	}{
		{"blanks separate words", "  click  100\t200 ", []string{"click", "100", "200"}},
		{"double quotes keep spaces and non-Latin text", `type-text "Grüße, 東京"`, []string{"type-text", "Grüße, 東京"}},
		{"single quotes keep everything literally", `type-text 'a "b" \n $HOME'`, []string{"type-text", `a "b" \n $HOME`}},
		{"a backslash escapes a blank outside quotes", `type-text a\ b`, []string{"type-text", "a b"}},
		{"inside double quotes backslash escapes only special characters", `x "a\"b\\c\$d\e"`, []string{"x", `a"b\c$d\e`}},
		{"quotes join with the rest of the word", `--text="a b"c`, []string{"--text=a bc"}},
		{"an empty quoted word is a word", `type-text ""`, []string{"type-text", ""}},
		{"no expansion of variables, globs or operators", `echo $HOME * | > ;`, []string{"echo", "$HOME", "*", "|", ">", ";"}},
		{"an empty line has no words", "   ", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := splitWords(tt.line)
			if err != nil {
				t.Fatalf("splitWords(%q): %v", tt.line, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("splitWords(%q) = %q, want %q", tt.line, got, tt.want)
			}
		})
	}
}

func TestSplitWordsRejectsUnfinishedLines(t *testing.T) {
	for _, line := range []string{`type-text "abc`, `type-text 'abc`, `type-text abc\`} {
		if _, err := splitWords(line); err == nil {
			t.Errorf("splitWords(%q) succeeded, want an error", line)
		}
	}
}

func TestQuoteWordRoundTrips(t *testing.T) {
	for _, w := range []string{"plain", "--flag=v", "two words", "it's", `"q"`, "", "東京", `a\b`} {
		got, err := splitWords(quoteWord(w))
		if err != nil || len(got) != 1 || got[0] != w {
			t.Errorf("quoteWord(%q) = %s splits to %q (%v)", w, quoteWord(w), got, err)
		}
	}
}

func TestScanLineReportsThePartialWord(t *testing.T) {
	s := scanLine(`click --but`)
	if !s.open || s.words[len(s.words)-1] != "--but" || s.start != 6 {
		t.Errorf("scanLine = %+v, want open partial --but at 6", s)
	}
	s = scanLine(`click `)
	if s.open || s.start != len("click ") {
		t.Errorf("scanLine after a blank = %+v, want no partial word", s)
	}
}
