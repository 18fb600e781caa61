//go:build linux

package editres

import (
	"fmt"
	"strings"
	"testing"
)

// TestLookupPrecedence: a resource is looked up as Xt looks it up (Xrm's precedence, level by
// level from the left), so that a label Editres does not reach reads as configured.
func TestLookupPrecedence(t *testing.T) {
	db := &DB{}
	db.Parse(`! a comment
XCalc*Command.label:	any
XCalc*ti.button35.label:	\270
XCalc*button35.label:	loose
*label:	everywhere
XCalc.q.?.label:	question
XCalc.other*label:	skipped
XCalc*ti.button45.label:	-
XCalc*multi.label: one\
two
XCalc*ti.button45.label:	minus
`)
	names := []string{"xcalc", "ti", "button35", "label"}
	classes := []string{"XCalc", "Form", "Command", "Label"}
	for _, c := range []struct {
		widget, class, want string
	}{
		{"button35", "Command", "\270"},  // tight ti.button35 beats loose *button35
		{"button45", "Command", "minus"}, // the later of one specification
		{"button1", "Command", "any"},    // a class beats a level skipped
		{"multi", "Label", "onetwo"},     // a line continued
	} {
		names[2], classes[2] = c.widget, c.class
		if v, ok := db.Lookup(names, classes); !ok || v != c.want {
			t.Errorf("%s: %q, %v; want %q", c.widget, v, ok, c.want)
		}
	}
	// A level named by "?" beats one skipped; a tight binding one loose (at "other").
	if v, _ := db.Lookup([]string{"xcalc", "q", "w", "label"}, []string{"XCalc", "Form", "Label", "Label"}); v != "question" {
		t.Errorf("q: %q", v)
	}
	if v, _ := db.Lookup([]string{"xcalc", "other", "w", "label"}, []string{"XCalc", "Form", "Label", "Label"}); v != "skipped" {
		t.Errorf("other: %q", v)
	}
	if v, ok := db.Lookup([]string{"xedit", "quit", "label"}, []string{"Xedit", "Command", "Label"}); !ok || v != "everywhere" {
		t.Errorf("xedit quit: %q, %v", v, ok)
	}
	if _, ok := db.Lookup([]string{"xcalc", "ti", "button1", "font"}, []string{"XCalc", "Form", "Command", "Font"}); ok {
		t.Error("a font was found where none is set")
	}
}

// TestLookupOfAHostileSpecification: a specification of many loose components against a deep
// widget (a program of the session sets RESOURCE_MANAGER, and its widget tree) is looked up
// once per component and level, not once per way it may match.
func TestLookupOfAHostileSpecification(t *testing.T) {
	db := &DB{}
	db.Parse(strings.Repeat("*a", 60) + "*label: deep\n")
	var names, classes []string
	for range maxPath {
		names, classes = append(names, "a"), append(classes, "A")
	}
	names, classes = append(names, "label"), append(classes, "Label")
	if v, ok := db.Lookup(names, classes); !ok || v != "deep" {
		t.Errorf("%q, %v", v, ok)
	}
}

func TestSymbolText(t *testing.T) {
	for in, want := range map[string]string{"\326`": "√", "\270": "÷", "p": "π", "x\262": "x²"} {
		if got := Text(in, in != "x\262"); got != want {
			t.Errorf("Text(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLookupWorkIsBounded: the lookups of one database take maxDBWork steps at most, and find
// nothing more once they have (a program of the session writes RESOURCE_MANAGER). Each of
// these specifications matches no widget, but only after every component was tried at
// every level.
func TestLookupWorkIsBounded(t *testing.T) {
	db := &DB{}
	db.Parse(hostileDB(1000) + "*deep.label: ok\n")
	names, classes := make([]string, maxPath+1), make([]string, maxPath+1)
	for i := range names {
		names[i], classes[i] = "w", "Grip"
	}
	names[0], names[maxPath], classes[maxPath] = "deep", "label", "Label"
	if _, ok := db.Lookup(names, classes); ok {
		t.Error("the first lookup found a value: it took all its steps")
	}
	if db.work < maxDBWork || db.work > maxDBWork+(maxPath+1)*(maxPath+1) {
		t.Errorf("%d steps, want %d and at most one specification's more", db.work, maxDBWork)
	}
	if _, ok := db.Lookup([]string{"deep", "label"}, []string{"Grip", "Label"}); ok {
		t.Error("a lookup found a value after the database's steps were spent")
	}
	fresh := &DB{}
	fresh.Parse("deep*label: ok\n")
	if v, ok := fresh.Lookup(names, classes); !ok || v != "ok" {
		t.Errorf("%q, %v", v, ok)
	}
}

// hostileDB is n specifications of 40 components, each taking a step at every component
// and level of a deep widget before it matches nothing: the bits of its number as tight
// (".?") or loose ("*?") components, 24 more loose ones, then one that names no widget.
func hostileDB(n int) string {
	var b strings.Builder
	for i := range n {
		bits := fmt.Sprintf("%014b", i)
		b.WriteString(strings.NewReplacer("1", ".?", "0", "*?").Replace(bits))
		b.WriteString(strings.Repeat("*?", 24) + "*nomatch*?: x\n")
	}
	return b.String()
}

// TestShapesCheckedByLength: a class names an app-defaults file only when it looks like one
// and is at most 64 characters; Xmu's answer for a resource with no string is 0x and 8 or 16
// hexadecimal digits, nothing else.
func TestShapesCheckedByLength(t *testing.T) {
	for class, want := range map[string]bool{
		"XCalc": true, "Xman": true, "X" + strings.Repeat("a", 63): true,
		"X" + strings.Repeat("a", 64): false, "": false, "1X": false, "../X": false, "X/Y": false,
	} {
		if got := validClass(class); got != want {
			t.Errorf("validClass(%q) = %v, want %v", class, got, want)
		}
	}
	for v, want := range map[string]bool{
		"0x0804abcd": true, "0x00007f12345678ab": true, "0x1234": false, "0x0804abcd1": false,
		"0x0804ABCD": false, "0x0804abcg": false, "label": false, "0x": false,
	} {
		if got := isPointer(v); got != want {
			t.Errorf("isPointer(%q) = %v, want %v", v, got, want)
		}
	}
}
