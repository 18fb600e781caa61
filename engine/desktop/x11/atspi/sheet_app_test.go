//go:build linux

package atspi_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/w365/w365/engine/desktop/x11/atspi"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

// LibreOffice Calc's sheet manages its descendants and counts every cell of its 1,048,576
// rows and 16,384 columns: the walk asked it for its children, Calc built an object for each
// cell, answered no call for as long (every walk of its window a TIMEOUT) and its memory grew
// past a gigabyte. The walk reads no children of such an object past maxManagedChildren, read
// live or through the cache: the window's tree shows the sheet and the Name Box beside it
// (docs/accessibility.md).
func TestASheetsCellsAreNotAllRead(t *testing.T) {
	testenv.Require(t, "/usr/lib/libreoffice/program/soffice")
	d := x11test.Start(t)
	c := startProc(t, d, "/usr/lib/libreoffice/program/soffice", "--calc", "--norestore", "--nologo")
	c.Env = append(c.Env, "HOME="+t.TempDir())
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(-c.Process.Pid, syscall.SIGKILL); c.Wait() })
	// Calc starts slowly on a loaded machine (over 10 s beside other tests).
	for i := 0; i < 600; i++ {
		if out, _ := d.Command("xdotool", "search", "--name", "LibreOffice Calc").Output(); len(out) > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	activate(t, d, "Untitled 1 - LibreOffice Calc")
	// A walk that reads every object live (as it does those an application's cache does not
	// hold yet), then one that reads the cache.
	live := open(t, d)
	atspi.LiveOnly(live)
	for _, tr := range []*atspi.Tree{live, open(t, d)} {
		for try := 0; ; try++ {
			root, _, err := tr.Tree(context.Background(), 10, 500)
			if werr.CodeOf(err) == werr.Timeout {
				t.Fatalf("the walk of Calc's window (live %v): %v", tr == live, err)
			}
			if err == nil {
				nodes := nodesOf(root)
				_, sheet := findNode(nodes, "Table", "Sheet Sheet1")
				box := false
				for _, n := range nodes {
					box = box || n.Role == "Edit" && n.Value == "A1"
				}
				if sheet && box {
					break
				}
			}
			if try == 100 {
				t.Fatalf("Calc's window shows no sheet and Name Box (live %v): %v", tr == live, err)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}
