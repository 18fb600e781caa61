package desktop

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/w365/w365/engine/werr"
)

func TestSimilarity(t *testing.T) {
	cases := []struct {
		q, title string
		want     float64
	}{
		{"notes", "Unsaved Notes - Editor", 1},
		{"UNSAVED   notes", "Unsaved Notes - Editor", 1},
		{"Calcxxxtor", "Calculator", 0.7},
		{"Calculatr", "Calculator", 1 - 1.0/9},
		{"Calcuxator", "Calculator", 0.9},
		{"", "Calculator", 0},
		{"zzzzzz", "abc", 0},
		{"Grüße", "Grüße aus Köln", 1},
	}
	for _, c := range cases {
		if got := Similarity(c.q, c.title); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Similarity(%q, %q) = %v, want %v", c.q, c.title, got, c.want)
		}
	}
	ws := []Window{{Title: "Editor - long document name"}, {Title: "editor"}, {Title: "My Editor"}, {Title: "Editor - x"}}
	got := TitleMatches(ws, "EDITOR")
	var titles []string
	for _, w := range got {
		titles = append(titles, w.Title)
	}
	if strings.Join(titles, "|") != "editor|Editor - x|Editor - long document name|My Editor" {
		t.Errorf("ranking = %v", titles)
	}
}

// One rule for every tool that takes a window title: a part of the title is enough, and
// a near miss counts only when no title holds the query literally.
func TestTitleMatchesTakeAPartOfTheTitle(t *testing.T) {
	ws := []Window{{Title: "/home/me/notes.txt - Mousepad", Handle: 1}, {Title: "Terminal", Handle: 2},
		{Title: "Quarterly Report - Draft 1", Handle: 3}, {Title: "Quarterly Report - Draft 2", Handle: 4}}
	for _, c := range []struct {
		q    string
		want []uint32
	}{
		{"Mousepad", []uint32{1}},
		{"mousepad", []uint32{1}},
		{"Mousepda", []uint32{1}}, // 7 of 8 right: 87.5 % similar to a part
		{"Mxxsepad", []uint32{}},  // 75 %
		{"Draft 1", []uint32{3}},  // literal in one title; "Draft 2" is 86 % similar but not literal
		{"Draft", []uint32{3, 4}}, // both, the same length: as listed
		{"Drafd 1", []uint32{3}},  // no literal match: the near one (86 %; "Draft 2" 71 %)
	} {
		var got []uint32
		for _, w := range TitleMatches(ws, c.q) {
			got = append(got, w.Handle)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) && !(len(got) == 0 && len(c.want) == 0) {
			t.Errorf("TitleMatches(%q) = %v, want %v", c.q, got, c.want)
		}
	}
	if w, err := CloseTarget(ws, "Mousepad"); err != nil || w.Handle != 1 {
		t.Errorf("CloseTarget(Mousepad) = %+v, %v", w, err)
	}
	if _, err := CloseTarget(ws, "Draft"); werr.CodeOf(err) != werr.InvalidArgument {
		t.Errorf("CloseTarget(Draft), two windows: %v, want INVALID_ARGUMENT", err)
	}
	if _, err := BestTitle(ws, "Calculator"); werr.CodeOf(err) != werr.NotFound {
		t.Errorf("BestTitle(Calculator): %v, want NOT_FOUND", err)
	}
}
