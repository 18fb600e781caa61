package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGenWritesManPagesAndCompletions(t *testing.T) {
	out := t.TempDir()
	if err := gen(out); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"man/w365.1", "man/w365-serve.1", "man/w365-doctor.1", "man/w365-browser-navigate.1",
		"completions/w365.bash", "completions/_w365", "completions/w365.fish"} {
		st, err := os.Stat(filepath.Join(out, f))
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(out, "man", "w365-serve.1"))
	if !strings.Contains(string(b), "W365_API_KEY_FILE") || !strings.Contains(string(b), "--http") {
		t.Errorf("w365-serve.1 lacks the command's text and flags:\n%.500s", b)
	}
}
