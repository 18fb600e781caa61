package snapshot_test

import (
	"testing"

	"github.com/chromedp/chromedp/kb"

	"github.com/w365/w365/engine/snapshot"
)

func TestKeyNames(t *testing.T) {
	for name, want := range map[string]string{
		"Enter": kb.Enter, "escape": kb.Escape, "Tab": kb.Tab, "ArrowUp": kb.ArrowUp, "ArrowDown": kb.ArrowDown,
		"ArrowLeft": kb.ArrowLeft, "ArrowRight": kb.ArrowRight, "F1": kb.F1, "F12": kb.F12, "PageDown": kb.PageDown,
		"Home": kb.Home, "End": kb.End, "Backspace": kb.Backspace, "Delete": kb.Delete, "Space": " ", "a": "a", "é": "é",
	} {
		got, err := snapshot.KeyRune(name)
		if err != nil || got != want {
			t.Errorf("%s: %q %v, want %q", name, got, err, want)
		}
	}
	for _, bad := range []string{"", "Nope", "F13x", "ctrl+a"} {
		if _, err := snapshot.KeyRune(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
