//go:build linux

package atspi_test

import (
	"os"
	"syscall"
	"testing"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/test/testenv"
)

// HexChat's Network List (GTK 2) lays four entries beside four labels without linking them:
// each entry read `Edit ""` and only their boxes told which was the nick name. The tree and a
// search name each by the label on its row.
func TestHexChatFieldsTakeTheirLabels(t *testing.T) {
	testenv.Require(t, "/usr/bin/hexchat")
	d := x11test.Start(t)
	c := startProc(t, d, "/usr/bin/hexchat")
	c.Env = append(c.Env, "HOME="+t.TempDir())
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); c.Wait() })
	tr := open(t, d)
	if os.Geteuid() == 0 {
		// As root, HexChat first says that running IRC as root is stupid, in a dialog.
		clickMatch(t, d, findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "OK"})[0])
	}
	activate(t, d, "Network List - HexChat")
	root, _ := treeEventually(t, tr, 10, 500, "Text", "Nick name:")
	nodes := nodesOf(root)
	for _, name := range []string{"Nick name:", "Second choice:", "Third choice:", "User name:"} {
		lab, _ := findNode(nodes, "Text", name)
		f, ok := findNode(nodes, "Edit", name)
		if !ok {
			t.Errorf("no Edit named %q in the tree", name)
			continue
		}
		if mid := lab.Y + lab.Height/2; mid < f.Y || mid > f.Y+f.Height || f.X < lab.X+lab.Width-2 {
			t.Errorf("Edit %q at %d,%d %dx%d is not on the row of its label at %d,%d %dx%d", name, f.X, f.Y, f.Width, f.Height, lab.X, lab.Y, lab.Width, lab.Height)
		}
	}
	ms := findEventually(t, tr, desktop.FindQuery{Role: "Edit", Name: "second choice"})
	if want, _ := findNode(nodes, "Edit", "Second choice:"); len(ms) != 1 || ms[0].Y != want.Y {
		t.Errorf("find Edit %q: %+v, want the one at y %d", "second choice", ms, want.Y)
	}
}
