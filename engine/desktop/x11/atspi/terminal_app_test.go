//go:build linux

package atspi_test

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/test/testenv"
)

// A terminal's screen is its text (VTE's terminal, in xfce4-terminal: role terminal, not
// editable): the tree showed `Document "Terminal"` with no value, so an agent that ran a
// command could not read what it printed but from the screen. The tree gives the text as
// the terminal's value (VTE's text is the rows it shows: the newest line under 3000 lines of
// scrollback), and a text search finds the terminal by it.
func TestTerminalTextIsItsValue(t *testing.T) {
	testenv.Require(t, "/usr/bin/xfce4-terminal")
	d := x11test.Start(t)
	c := startProc(t, d, "/usr/bin/xfce4-terminal", "--disable-server", "--hold", "--title", "w365 terminal",
		"-x", "sh", "-c", "seq 100000 103000; echo forty-seven 4711")
	c.Env = append(c.Env, "HOME="+t.TempDir())
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); c.Wait() })
	tr := open(t, d)
	activate(t, d, "w365 terminal")
	root, _ := treeEventually(t, tr, 10, 500, "Document", "Terminal")
	term, _ := findNode(nodesOf(root), "Document", "Terminal")
	for i := 0; !strings.Contains(term.Value, "forty-seven 4711") && i < 50; i++ {
		time.Sleep(100 * time.Millisecond)
		root, _, _ = tr.Tree(context.Background(), 10, 500)
		term, _ = findNode(nodesOf(root), "Document", "Terminal")
	}
	if !strings.Contains(term.Value, "forty-seven 4711") {
		t.Fatalf("the terminal's value is %q, want the line it printed", term.Value)
	}
	ms := findEventually(t, tr, desktop.FindQuery{Text: "forty-seven"})
	if ms[0].Role != "Document" {
		t.Errorf("a search for the printed text found %+v first, want the terminal", ms[0])
	}
}
