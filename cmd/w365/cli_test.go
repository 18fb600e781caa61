//go:build linux

package main

import (
	"strings"
	"testing"

	"github.com/w365/w365/commands/e2etest"
)

// The script-facing edges of the CLI against a real host: stdin, exec's status and
// streams, terminal versus pipe output, --jq.
func TestCLIEdgesForScripts(t *testing.T) {
	h := e2etest.New(t)

	t.Run("py reads its code from a pipe and from -", func(t *testing.T) {
		r := h.RunInput("", strings.NewReader("print(6*7)\n"), "py")
		if r.Code != 0 || r.Stdout != "42\n" || r.Stderr != "" {
			t.Errorf("echo | w365 py: %+v", r)
		}
		r = h.RunInput("", strings.NewReader("import sys\nprint('to err', file=sys.stderr)\nsys.exit(5)\n"), "py", "-")
		if r.Code != 5 || r.Stdout != "" || r.Stderr != "to err\n" {
			t.Errorf("w365 py -: %+v", r)
		}
	})
	t.Run("clipboard-write - reads stdin and clipboard-read prints the text", func(t *testing.T) {
		r := h.RunInput("", strings.NewReader("from stdin ✓"), "clipboard-write", "-")
		if r.Code != 0 {
			t.Fatalf("clipboard-write -: %+v", r)
		}
		if out := h.MustRun("clipboard-read"); out != "from stdin ✓\n" {
			t.Errorf("clipboard-read printed %q", out)
		}
	})
	t.Run("exec exits with the child's status, stderr apart", func(t *testing.T) {
		r := h.Run("exec", "ls /nonexistent")
		if r.Code != 2 || r.Stdout != "" || !strings.Contains(r.Stderr, "/nonexistent") || strings.Contains(r.Stderr, "[exit") {
			t.Errorf("exec ls /nonexistent: %+v", r)
		}
		if r := h.Run("exec", "ls /"); r.Code != 0 || !strings.Contains(r.Stdout, "usr\n") || r.Stderr != "" {
			t.Errorf("exec ls /: %+v", r)
		}
	})
	t.Run("a table has a header on a terminal and bare rows in a pipe", func(t *testing.T) {
		term := h.RunTerminal("session", "list")
		if term.Code != 0 || !strings.Contains(term.Stdout, "SESSION ID") || !strings.Contains(term.Stdout, "DISPLAY") {
			t.Errorf("on a terminal: %+v", term)
		}
		pipe := h.Run("session", "list")
		if pipe.Code != 0 || strings.Contains(pipe.Stdout, "SESSION ID") || !strings.HasPrefix(pipe.Stdout, "default\t") {
			t.Errorf("in a pipe: %+v", pipe)
		}
	})
	t.Run("--jq picks values out of the result", func(t *testing.T) {
		if out := h.MustRun("--jq", ".width", "get-screen-size"); out != "1920\n" {
			t.Errorf("--jq .width: %q", out)
		}
		if out := h.MustRun("--jq", ".sessions[].sessionId", "session", "list"); out != "default\n" {
			t.Errorf("--jq sessions: %q", out)
		}
	})
}
