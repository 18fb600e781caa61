package desktop

import (
	"testing"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

// The control types are UIAutomationClient.h's, ids 50000-50040 without a gap.
func TestControlTypes(t *testing.T) {
	if len(controlTypes) != 41 {
		t.Fatalf("%d control types, want the 41 of UIA_ButtonControlTypeId..UIA_AppBarControlTypeId", len(controlTypes))
	}
	for id, want := range map[int32]string{50000: "Button", 50004: "Edit", 50020: "Text", 50025: "Custom", 50032: "Window", 50033: "Pane", 50040: "AppBar"} {
		if role, native := ControlTypeName(id); role != want || native != want {
			t.Errorf("controlTypeName(%d) = %q, %q, want %q", id, role, native, want)
		}
	}
	if role, native := ControlTypeName(50099); role != "Custom" || native != "ControlType 50099" {
		t.Errorf("an unknown id gives %q, %q, want Custom with the id kept", role, native)
	}
	for q, want := range map[string]string{"edit": "Edit", "TextBox": "Edit", "menu item": "MenuItem", "SPLIT_BUTTON": "SplitButton", "link": "Hyperlink"} {
		if got, ok := UIARole(q); !ok || got != want {
			t.Errorf("uiaRoleOf(%q) = %q, %v, want %q", q, got, ok, want)
		}
	}
	if _, ok := UIARole("Sprocket"); ok {
		t.Error("an unknown role resolved")
	}
}

// Matches rank by name score, then on screen, then enabled, then breadth-first order,
// and carry their centre points.
func TestRanked(t *testing.T) {
	box := Match{X: 10, Y: 20, Width: 30, Height: 40}
	named := func(n string) Match { m := box; m.Name = n; return m }
	got := Ranked([]Candidate{
		{M: named("substring"), Score: 2, Order: 0, OnScreen: true, Enabled: true},
		{M: named("exact hidden"), Score: 0, Order: 1, OnScreen: false, Enabled: true},
		{M: named("exact disabled"), Score: 0, Order: 2, OnScreen: true, Enabled: false},
		{M: named("exact late"), Score: 0, Order: 4, OnScreen: true, Enabled: true},
		{M: named("exact early"), Score: 0, Order: 3, OnScreen: true, Enabled: true},
		{M: named("value"), Score: 3, Order: 5, OnScreen: true, Enabled: true},
	})
	want := []string{"exact early", "exact late", "exact disabled", "exact hidden", "substring", "value"}
	for i, w := range want {
		if got[i].Name != w {
			t.Fatalf("rank %d is %q, want %q (all: %+v)", i, got[i].Name, w, got)
		}
	}
	if got[0].CenterX != 25 || got[0].CenterY != 40 {
		t.Errorf("centre %d,%d, want 25,40", got[0].CenterX, got[0].CenterY)
	}
	many := make([]Candidate, MaxMatches+5)
	if n := len(Ranked(many)); n != MaxMatches {
		t.Errorf("%d matches kept, want MaxMatches (%d)", n, MaxMatches)
	}
}

func TestTreeLimits(t *testing.T) {
	p := policy.Default()
	if d, e, err := TreeLimits(0, 0); err != nil || d != p.A11yDepthDefault || e != p.A11yElementsDefault {
		t.Errorf("defaults: %d, %d, %v", d, e, err)
	}
	if d, e, _ := TreeLimits(1000, 100000); d != p.A11yDepthMax || e != p.A11yElementsMax {
		t.Errorf("maxima: %d, %d", d, e)
	}
	if _, _, err := TreeLimits(-1, 0); werr.CodeOf(err) != werr.InvalidArgument {
		t.Errorf("negative depth: %v", err)
	}
	if _, _, err := NeedleOf(FindQuery{Text: "  "}); werr.CodeOf(err) != werr.InvalidArgument {
		t.Errorf("a blank query: %v", err)
	}
	if n, v, _ := NeedleOf(FindQuery{Text: "Save", Name: " OK "}); n != "ok" || v {
		t.Errorf("name wins over text: %q, %v", n, v)
	}
}

// TestUncover: a click point under a window stacked above the element's own moves to the
// nearest part of its box that no window covers; an element covered whole says so. mtPaint's
// Settings Toolbar, kept above its main window, covers all of its File menu; a menu half
// under it is clicked on its other half.
func TestUncover(t *testing.T) {
	toolbar := []Rect{{X: 0, Y: 0, Width: 278, Height: 224}}
	image := Candidate{M: Match{X: 240, Y: 22, Width: 60, Height: 23}}
	if !Uncover(&image, toolbar) || image.Point == nil {
		t.Fatalf("Uncover(a menu half under the toolbar) = %+v, want a point right of it", image)
	}
	if p := *image.Point; p.X < 278 || p.X >= 240+60 || p.Y < 22 || p.Y >= 22+23 {
		t.Errorf("the menu's click point %v lies under the toolbar or outside the menu", p)
	}
	file := Candidate{M: Match{X: 4, Y: 22, Width: 38, Height: 23}}
	if Uncover(&file, toolbar) || file.Point != nil {
		t.Errorf("Uncover(a menu under the toolbar whole) = %+v, want covered", file)
	}
	help := Candidate{M: Match{X: 582, Y: 22, Width: 46, Height: 23}}
	if !Uncover(&help, toolbar) || help.Point != nil {
		t.Errorf("Uncover(a menu nothing covers) = %+v, want its centre kept", help)
	}
	if m := Ranked([]Candidate{image})[0]; m.CenterX < 278 {
		t.Errorf("Ranked gives the click point %d,%d, under the toolbar", m.CenterX, m.CenterY)
	}
}
