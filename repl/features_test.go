//go:build linux

package repl

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/test/testenv"
)

// The REPL at a real terminal: it remembers the last snapshot for ref commands,
// completes refs (with role and name) and session names from the host, and says when
// a line waits behind another client's call.
func TestREPLRemembersCompletesAndShowsTheQueue(t *testing.T) {
	testenv.Require(t, "tmux", "chromium")
	bin, dir, env := terminalWorld(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(testenv.Root(), "testdata", "pages"))))
	t.Cleanup(srv.Close)

	x := &tmuxREPL{t: t, sock: filepath.Join(dir, "tmux.sock")}
	x.cmd = "exec env -u W365_SESSION -u DISPLAY " + strings.Join(env, " ") + " LANG=C.UTF-8 " + bin + " --virtual repl"
	x.tmux("-f", "/dev/null", "new-session", "-d", "-s", "repl", "-x", "200", "-y", "50", x.cmd)
	t.Cleanup(func() { exec.Command("tmux", "-S", x.sock, "kill-server").Run() })
	x.waitInput(strings.TrimSpace(promptText), 20*time.Second)

	x.typeText("browser navigate "+srv.URL+"/trace_login.html", "Enter")
	x.waitText(`"Trace login"`, 90*time.Second)
	x.typeText("browser snapshot", "Enter")
	screen := x.waitText("snapshotId:", 30*time.Second)
	m := regexp.MustCompile(`button "Sign in" \[ref=(e\d+)\]`).FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no Sign in button in the snapshot:\n%s", screen)
	}
	ref := m[1]

	t.Run("Tab completes a ref of the last snapshot, showing role and name", func(t *testing.T) {
		x.typeText("", "C-l") // the snapshot's own text must not be what the test sees
		x.waitFor("a clear screen", 5*time.Second, func(s string) bool { return !strings.Contains(s, "Sign in") })
		x.typeText("browser click-ref --ref e", "Tab")
		x.waitText(`button "Sign in"`, 10*time.Second)
		x.waitText(`textbox`, 10*time.Second)
		x.typeText("", "C-c")
		x.waitInput(strings.TrimSpace(promptText), 5*time.Second)
	})
	t.Run("a ref command uses the last snapshot", func(t *testing.T) {
		x.typeText("browser click-ref --ref "+ref, "Enter")
		x.waitText("clicked "+ref, 30*time.Second)
		x.typeText("browser get-title", "Enter")
		x.waitText("Signed in", 30*time.Second)
	})
	t.Run("Tab completes a session name from the host", func(t *testing.T) {
		x.typeText("get-screen-size --session def", "Tab")
		x.waitInput(promptText+"get-screen-size --session default", 10*time.Second)
		x.typeText("", "C-c")
		x.waitInput(strings.TrimSpace(promptText), 5*time.Second)
	})
	t.Run("a line waiting behind another client's call says so", func(t *testing.T) {
		other := exec.Command(bin, "wait-milliseconds", "5000")
		other.Env = append(os.Environ(), env...)
		if err := other.Start(); err != nil {
			t.Fatal(err)
		}
		defer other.Wait()
		// Only ordering: the other call must have reached the host first.
		time.Sleep(time.Second)
		x.typeText("get-screen-size", "Enter")
		x.waitText("(waiting behind a call of another client: wait_milliseconds from w365-cli", 10*time.Second)
		x.waitCount("1920x1080", 1, 30*time.Second)
	})
	t.Run("watch prints another client's calls", func(t *testing.T) {
		x.typeText("watch", "Enter")
		x.waitText("watching the calls of other clients", 5*time.Second)
		other := exec.Command(bin, "move-mouse", "33", "44")
		other.Env = append(os.Environ(), env...)
		if out, err := other.CombinedOutput(); err != nil {
			t.Fatalf("move-mouse: %v %s", err, out)
		}
		x.waitText("start", 10*time.Second)
		x.waitFor("the start and end of move_mouse", 10*time.Second, func(s string) bool {
			return strings.Contains(s, "move_mouse x=33 y=44 (w365-cli, local)") && regexp.MustCompile(`end +#\d+ move_mouse \d+ms ok`).MatchString(s)
		})
	})
}
