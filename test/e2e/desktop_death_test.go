//go:build linux

package e2e_test

import (
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb"

	"github.com/w365/w365/test/e2e"
)

// The X library logs every connection made without an Xauthority file, as this test's
// connections to the stranger's server are; errors reach the test as values.
func init() { xgb.Logger = log.New(io.Discard, "", 0) }

// children are the pids whose parent is pid, with their command names and states.
func children(pid int) map[int][2]string {
	out := map[int][2]string{}
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(b)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < 0 {
			continue
		}
		var p, pp int
		var state string
		fmt.Sscan(s[:open], &p)
		fmt.Sscan(s[close+1:], &state, &pp)
		if pp == pid {
			out[p] = [2]string{s[open+1 : close], state}
		}
	}
	return out
}

// When a session's Xvfb dies, the host reaps it, says once that the session's desktop is gone,
// and starts a new desktop for the next call; an X server that meanwhile took the old display
// number is never spoken to (no screenshot of it, no keys typed into it).
func TestDeadDesktopIsReplacedAndAStrangerOnItsDisplayIsNeverUsed(t *testing.T) {
	// Not parallel: it sets XAUTHORITY for the whole test process (t.Setenv).
	h := e2e.New(t)
	cs := h.MCP()
	e2e.Must(t, cs, "get_screen_size", nil)
	old := h.Sessions()[0].Display
	host := h.HostPID()
	// The X server runs in its confinement: a child of bubblewrap, a child of the nsenter
	// the host started (which entered the session's namespaces).
	xvfb := 0
	for pid, c := range children(host) {
		for pid, c2 := range children(pid) {
			for pid, c3 := range children(pid) {
				if c[0] == "nsenter" && c2[0] == "bwrap" && c3[0] == "Xvfb" {
					xvfb = pid
				}
			}
		}
	}
	if xvfb == 0 {
		t.Fatalf("no Xvfb below the host's children %v", children(host))
	}
	if err := syscall.Kill(xvfb, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// The host reaps it: the pid disappears (a zombie would stay, in state Z).
	for i := 0; ; i++ {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", xvfb)); os.IsNotExist(err) {
			break
		}
		if i > 3000 {
			t.Fatalf("the killed Xvfb was not reaped: %v", children(host))
		}
		time.Sleep(20 * time.Millisecond)
	}

	res := e2e.Call(t, cs, "get_screen_size", nil)
	b := e2e.ErrorMeta(res)
	if e2e.ErrorCode(res) != "SESSION_EXPIRED" || !strings.Contains(b, `"code":"SESSION_EXPIRED"`) || strings.Contains(b, `"retryable":true`) || !strings.Contains(e2e.Text(res), "gone") {
		t.Fatalf("first call after the desktop died: %s", b)
	}

	// A stranger takes the display number, with no access control, and a probe app on it
	// under the pointer logs any key that reaches it. The host holds the number (its lock
	// and abstract address) until it has closed the dead session: the stranger tries again.
	t.Setenv("XAUTHORITY", "/nonexistent")
	var stranger *exec.Cmd
	exited := make(chan error, 1)
	for i := 0; ; i++ {
		if stranger == nil {
			stranger = exec.Command("Xvfb", old, "-screen", "0", "800x600x24", "-nolisten", "tcp")
			if err := stranger.Start(); err != nil {
				t.Fatal(err)
			}
			go func(c *exec.Cmd) { exited <- c.Wait() }(stranger)
		}
		if c, err := xgb.NewConnDisplay(old); err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			stranger = nil
		case <-time.After(20 * time.Millisecond):
		}
		if i > 1500 {
			t.Fatalf("the stranger Xvfb on %s did not come up", old)
		}
	}
	t.Cleanup(func() { stranger.Process.Kill(); <-exited })
	p := e2e.StartProbe(t, []string{"DISPLAY=" + old, "XAUTHORITY=/nonexistent"}, "--position", "0,0", "--size", "800,600")

	// The next calls run on a new desktop.
	e2e.Must(t, cs, "type_text", map[string]any{"text": "zzz"})
	var size struct{ Width, Height int }
	e2e.Structured(t, e2e.Call(t, cs, "get_screen_size", nil), &size)
	if size.Width != 1920 || size.Height != 1080 {
		t.Fatalf("screen %+v: the session is talking to the stranger", size)
	}
	if now := h.Sessions()[0].Display; now == old {
		t.Fatalf("the session is back on %s", old)
	}
	e2e.Must(t, cs, "wait_milliseconds", map[string]any{"ms": 500})
	for _, e := range p.Events() {
		if e["event"] == "key" {
			t.Fatalf("a key reached the stranger's display: %v", e)
		}
	}
	for pid, c := range children(host) {
		if c[1] == "Z" {
			t.Errorf("zombie child %d (%s)", pid, c[0])
		}
	}
}
