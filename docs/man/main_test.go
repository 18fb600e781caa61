package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestManPages(t *testing.T) {
	dir := t.TempDir()
	if err := write(dir); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "w365-click.1"))
	if err != nil || !strings.Contains(string(page), "--click-count") || !strings.Contains(string(page), ".TH \"W365\" \"1\"") {
		t.Errorf("w365-click.1 (%v):\n%.400s", err, page)
	}
	for _, name := range []string{"w365-browser-click-ref.1", "w365-serve.1", "w365-repl.1", "w365.1"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("no page %s: %v", name, err)
		}
	}
	if serve, _ := os.ReadFile(filepath.Join(dir, "w365-serve.1")); !strings.Contains(string(serve), "W365_API_KEY_FILE") {
		t.Errorf("w365-serve.1 does not name W365_API_KEY_FILE")
	}
}
