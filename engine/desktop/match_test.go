package desktop

import (
	"math"
	"strings"
	"testing"
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
	for _, c := range []struct {
		q, title string
		want     float64
	}{
		{"Calculator", "Calculator", 1},
		{"calculatr", "Calculator", 0.8},
		{"C", "Calculator", 0.1},
		{"unsaved notes", "Unsaved Notes - Editor", 13.0 / 22},
		{"Unsaved Notes - Editor (2)", "Unsaved Notes - Editor", 1},
		{"zzz", "Calculator", 0},
	} {
		if got := Coverage(c.q, c.title); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Coverage(%q, %q) = %v, want %v", c.q, c.title, got, c.want)
		}
	}
	ws := []Window{{Title: "Editor - long document name"}, {Title: "editor"}, {Title: "My Editor"}, {Title: "Editor - x"}}
	got := BestSubstring(ws, "EDITOR")
	var titles []string
	for _, w := range got {
		titles = append(titles, w.Title)
	}
	if strings.Join(titles, "|") != "editor|Editor - x|Editor - long document name|My Editor" {
		t.Errorf("ranking = %v", titles)
	}
}
