//go:build linux

// docs/tools.md describes the Linux build: the shell allowlist and launch directories differ
// per platform.

package main

import (
	"os"
	"strings"
	"testing"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/cli"
)

// TestToolsPageIsCurrent fails when docs/tools.md is not what the definitions give: a tool,
// parameter, limit or error code changed without `make docs`.
func TestToolsPageIsCurrent(t *testing.T) {
	want, err := toolsPage()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("../tools.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(want, "\n")
		for i := 0; i < len(gl) || i < len(wl); i++ {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("docs/tools.md is stale: run `make docs` and commit it\nfirst difference, line %d:\n  committed: %s\n  generated: %s", i+1, g, w)
			}
		}
	}
}

// TestToolsPageIsDeterministic renders the page twice: map order must not leak into it.
func TestToolsPageIsDeterministic(t *testing.T) {
	a, err := toolsPage()
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if b, _ := toolsPage(); b != a {
			t.Fatal("two renderings of the tool reference differ")
		}
	}
}

// TestToolsPageCoversEverything checks the page against the definitions it is made from:
// every tool, parameter and error code appears.
func TestToolsPageCoversEverything(t *testing.T) {
	page, err := toolsPage()
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range commands.ToolsetNames() {
		for _, tl := range toolsIn(ts) {
			if !strings.Contains(page, "\n### `"+tl.Name+"`\n") {
				t.Errorf("no section for %s", tl.Name)
			}
			for name := range tl.InputSchema().Properties {
				if !strings.Contains(page, "| `"+name+"` |") {
					t.Errorf("%s: parameter %s is not listed", tl.Name, name)
				}
			}
		}
	}
	for code := range cli.ExitCodes {
		if !strings.Contains(page, "| `"+string(code)+"` |") {
			t.Errorf("error code %s is not listed", code)
		}
	}
}
