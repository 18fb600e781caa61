package repl

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/w365/w365/commands/cli"
)

// The tree is built exactly as the REPL builds it; completion never reaches a host.
func testRunner() *runner { return newRunner(Options{Globals: cli.Globals{Session: "default"}}) }

func TestComplete(t *testing.T) {
	r := testRunner()
	tests := []struct {
		name     string
		line     string
		want     string
		wantCand []string // a subset of the candidates shown, when ambiguous
	}{
		{"a unique command completes with a space", "get-scr", "get-screen-size ", nil},
		{"a unique subcommand completes", "session li", "session list ", nil},
		{"help completes command names", "help get-scr", "help get-screen-size ", nil},
		{"a leading w365 is ignored", "w365 get-scr", "w365 get-screen-size ", nil},
		{"a unique flag completes", "click --click-c", "click --click-count ", nil},
		{"enum values complete case-insensitively", "click --button mid", "click --button Middle ", nil},
		{"ambiguous commands show choices and keep the common prefix", "get-", "get-", []string{"get-screen-size", "get-cursor-position"}},
		{"flags after a command are choices", "click --", "click --", []string{"--button", "--click-count", "--session"}},
		{"an unknown command completes nothing", "frobnicate --x", "frobnicate --x", nil},
		{"nothing matches nothing", "zzz", "zzz", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := complete(r.newCompletionRoot, tt.line)
			if c.line != tt.want {
				t.Errorf("complete(%q) line = %q, want %q", tt.line, c.line, tt.want)
			}
			var got []string
			for _, cd := range c.cands {
				got = append(got, cd.Value)
			}
			for _, w := range tt.wantCand {
				if !slices.Contains(got, w) {
					t.Errorf("complete(%q) candidates %q lack %q", tt.line, got, w)
				}
			}
			if tt.wantCand == nil && len(got) > 0 {
				t.Errorf("complete(%q) shows candidates %q, want none", tt.line, got)
			}
		})
	}
}

func TestCompleteListsTheCommandsOwnFlagsBeforeGlobalOnes(t *testing.T) {
	c := complete(testRunner().newCompletionRoot, "click --")
	var got []string
	for _, cd := range c.cands {
		got = append(got, cd.Value)
	}
	if i, j := slices.Index(got, "--button"), slices.Index(got, "--session"); i < 0 || j < 0 || i > j {
		t.Errorf("candidates %q: want --button before --session", got)
	}
}

func TestCommonPrefixKeepsRunesWhole(t *testing.T) {
	if got := commonPrefix("東京", "東亰"); got != "東" {
		t.Errorf("commonPrefix = %q, want 東", got)
	}
}

func TestHistoryDedupsBoundsAndPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w365", "history")
	h := loadHistory(path)
	for _, l := range []string{"a", "a", "b", "  ", "a"} {
		if h.add(l) {
			if err := h.save(strings.TrimSpace(l), h.entries); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := loadHistory(path).entries; !slices.Equal(got, []string{"a", "b", "a"}) {
		t.Errorf("reloaded history = %q, want [a b a]", got)
	}
	for i := range historyLimit + 200 {
		l := "cmd " + strings.Repeat("x", i%7) + string(rune('a'+i%26))
		if h.add(l) {
			h.save(l, append([]string(nil), h.entries...))
		}
	}
	if n := len(h.entries); n != historyLimit {
		t.Errorf("in memory: %d entries, want %d", n, historyLimit)
	}
	if n := len(loadHistory(path).entries); n != historyLimit {
		t.Errorf("reloaded: %d entries, want %d", n, historyLimit)
	}
	if n := countLines(path); n > historyLimit+historyLimit/10 {
		t.Errorf("file has %d lines, want it compacted", n)
	}
}

// Tab while a command runs builds two trees at once.
func TestTreesBuildAndCompleteConcurrently(t *testing.T) {
	r := testRunner()
	done := make(chan struct{})
	for range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 20 {
				complete(r.newCompletionRoot, "click --b")
			}
		}()
	}
	for range 4 {
		<-done
	}
}

func TestCompleteOffersFilesWhereTheCommandHasNoOpinion(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir(filepath.Join(dir, "shots"), 0o755)
	os.WriteFile(filepath.Join(dir, "shot.png"), nil, 0o644)
	r := testRunner()
	if c := complete(r.newCompletionRoot, "take-screenshot -o shots"); c.line != "take-screenshot -o shots/" {
		t.Errorf("a directory completes to %q, want it with a slash and no space", c.line)
	}
	if c := complete(r.newCompletionRoot, "take-screenshot -o sh"); c.line != "take-screenshot -o shot" || len(c.cands) != 2 {
		t.Errorf("ambiguous files: line %q, %d choices", c.line, len(c.cands))
	}
	if c := complete(r.newCompletionRoot, "click sh"); len(c.cands) != 0 || c.line != "click sh" {
		t.Errorf("click's coordinates offered files: %+v", c)
	}
}
