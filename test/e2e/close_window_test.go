//go:build linux

package e2e_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
)

func windowTitles(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out struct{ Windows []struct{ Title string } }
	e2e.Structured(t, e2e.Call(t, cs, "list_windows", nil), &out)
	var titles []string
	for _, w := range out.Windows {
		titles = append(titles, w.Title)
	}
	return titles
}

// close_window's 80 % is measured against the window's title too: a short query that appears
// in a long title closes nothing, and a query that fits two windows closes neither.
func TestCloseWindowNeedsMostOfTheTitleAndOneWindow(t *testing.T) {
	h := e2e.New(t)
	cs := h.MCP()
	env := h.SessionEnv()
	one, two := "Quarterly Report - Draft 1", "Quarterly Report - Draft 2"
	e2e.StartProbeEnv(t, env, "--title", one, "--position", "100,100", "--size", "300,200")
	e2e.StartProbeEnv(t, env, "--title", two, "--position", "500,100", "--size", "300,200")

	both := func(when string) {
		t.Helper()
		if ts := windowTitles(t, cs); !slices.Contains(ts, one) || !slices.Contains(ts, two) {
			t.Fatalf("%s: a window went away; open: %q", when, ts)
		}
	}
	for _, q := range []string{"Q", "r", "Quarterly", "Quarterly Report"} {
		if code := e2e.ErrorCode(e2e.Call(t, cs, "close_window", map[string]any{"title": q})); code != "NOT_FOUND" {
			t.Errorf("close_window %q: code %q, want NOT_FOUND", q, code)
		}
	}
	both("after short queries")

	res := e2e.Call(t, cs, "close_window", map[string]any{"title": "quarterly report - draft"})
	if code := e2e.ErrorCode(res); code != "INVALID_ARGUMENT" {
		t.Fatalf("ambiguous query: code %q (%s), want INVALID_ARGUMENT", code, e2e.Text(res))
	}
	b := e2e.ErrorMeta(res)
	if !strings.Contains(b, one) || !strings.Contains(b, two) || !strings.Contains(b, "candidates") {
		t.Errorf("ambiguous refusal does not list the candidates: %s", b)
	}
	both("after an ambiguous query")

	// The exact title picks one of two near-identical windows.
	var closed struct {
		MatchedTitle string
		Closed       bool
	}
	e2e.Structured(t, e2e.Call(t, cs, "close_window", map[string]any{"title": "quarterly report - draft 2"}), &closed)
	if closed.MatchedTitle != two || !closed.Closed {
		t.Fatalf("exact title: %+v", closed)
	}
	if ts := windowTitles(t, cs); !slices.Contains(ts, one) || slices.Contains(ts, two) {
		t.Fatalf("after closing %q, open: %q", two, ts)
	}
}
