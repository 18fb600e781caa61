//go:build linux

package e2e_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// A single-instance application (mousepad: a GApplication on the session bus) launched
// while it already runs hands the request to its running instance over D-Bus and exits at
// once, and the running instance shows the file. launch_application said the process
// exited before it registered, as if nothing had opened; it now names the window the
// running instance showed and that instance's process. A program that just exits is still
// reported as exited. Both in a virtual session (confined: bubblewrap gives the exit
// status) and on the person's display (the reaper gives it).
func TestLaunchNamesTheRunningInstancesWindow(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "mousepad", "bwrap", "Xvfb", "dbus-daemon", "xdotool")
	for _, virtual := range []bool{true, false} {
		t.Run("virtual="+strconv.FormatBool(virtual), func(t *testing.T) {
			h := e2e.New(t)
			home := h.FakeHome()
			launchAnyWith(t, h, "/usr/bin/python3")
			docs, in := filepath.Join(home, "Documents"), []string{}
			if virtual {
				h.MustRun("session", "start", "ho1")
				defer h.Run("session", "end", "ho1")
				docs, in = filepath.Join(sessionDir(t, home, "ho1"), "home", "Documents"), []string{"--session", "ho1"}
			}
			env := append(h.XEnv(), "PATH="+os.Getenv("PATH"))
			if virtual {
				env = sessionEnv(h, "ho1")
			}
			launchHandsOver(t, h, docs, in, env)
		})
	}
}

// launchHandsOver launches mousepad twice in the session of flags in, the second time
// with a file of docs, then python3 exiting with 0 and 3, and checks what each reports.
func launchHandsOver(t *testing.T, h *e2e.Harness, docs string, in []string, env []string) {
	if err := os.MkdirAll(docs, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(docs, "Handed Over.txt")
	if err := os.WriteFile(file, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	type launchOut struct {
		PID              int
		Registered       bool
		RegistrationNote string
	}
	var first, second launchOut
	h.JSON(&first, append(in, "launch-application", "mousepad")...)
	if !first.Registered {
		t.Fatalf("the first mousepad: %+v", first)
	}
	h.JSON(&second, append(in, "launch-application", "mousepad", "--args", file)...)
	t.Logf("first %+v, second %+v", first, second)
	var wl struct {
		Windows []struct {
			Title  string
			Handle uint32
			PID    int
		}
	}
	h.JSON(&wl, append(in, "list-windows")...)
	named, handle := false, uint32(0)
	for _, w := range wl.Windows {
		if strings.Contains(w.Title, "Handed Over") && below(w.PID, first.PID) {
			named = strings.Contains(second.RegistrationNote, fmt.Sprintf("running instance of the application, which showed the window %q (handle %d, pid %d)", w.Title, w.Handle, w.PID))
			handle = w.Handle
		}
	}
	if !named || !second.Registered {
		t.Errorf("the second launch does not name the running instance's window %+v: %+v", wl.Windows, second)
	}
	// A program that exits, with success or not, showing nothing, while the window is
	// there, is still reported as exited, even while the window of another program
	// changes its title (a browser's tab, a clock): here mousepad's, retitled from outside.
	stop := retitle(t, env, handle)
	defer stop()
	for code, note := range map[string]string{"0": "exited before it registered", "3": "exited with status 3 before it registered"} {
		var quit launchOut
		h.JSON(&quit, append(in, "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args=import sys; sys.exit("+code+")")...)
		if quit.Registered || !strings.Contains(quit.RegistrationNote, note) {
			t.Errorf("python3 exiting with %s: %+v", code, quit)
		}
	}
}

// retitle keeps giving window handle new titles, through xdotool with env, until stop,
// which fails the test if none was given.
func retitle(t *testing.T, env []string, handle uint32) (stop func()) {
	done, quit := make(chan struct{}), make(chan struct{})
	given := 0
	go func() {
		defer close(done)
		for i := 0; ; i++ {
			c := exec.Command("xdotool", "set_window", "--name", fmt.Sprintf("Retitled %d", i), strconv.FormatUint(uint64(handle), 10))
			c.Env = env
			if out, err := c.CombinedOutput(); err == nil {
				given++
			} else if i == 0 {
				t.Logf("xdotool: %v %s", err, out)
			}
			select {
			case <-quit:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		if given == 0 {
			t.Error("the window was never retitled")
		}
	}
}

// sessionEnv is the environment of a program started on session id's display from outside.
func sessionEnv(h *e2e.Harness, id string) []string {
	s := h.Session(id)
	env := []string{"PATH=" + os.Getenv("PATH"), "DISPLAY=" + s.Display}
	for k, v := range s.Env {
		env = append(env, k+"="+v)
	}
	return env
}

// below says whether process pid is ancestor or one of its descendants.
func below(pid, ancestor int) bool {
	if pid == ancestor {
		return true
	}
	for c := range children(ancestor) {
		if below(pid, c) {
			return true
		}
	}
	return false
}

// NEdit's desktop entry runs nedit-nc, which starts NEdit's server (sh -c "nedit -server &")
// and exits. Each launched application had a PID namespace of its own, which ended with
// nedit-nc and took the server with it: launch_application said the process exited and no
// window ever showed. Now a virtual session's applications run in its PID namespace: the
// server stays, the result names its window, and it still ends with the session.
func TestLaunchKeepsWhatTheLauncherStarted(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "nedit-nc", "nedit", "bwrap", "Xvfb", "dbus-daemon")
	h := e2e.New(t)
	h.FakeHome()
	h.MustRun("session", "start", "nc1")
	var out struct {
		RegistrationNote string
	}
	h.JSON(&out, "--session", "nc1", "launch-application", "nedit")
	var wl struct {
		Windows []struct {
			Title, ProcessName string
			Handle             uint32
			PID                int
		}
	}
	h.JSON(&wl, "--session", "nc1", "list-windows")
	pid := 0
	for _, w := range wl.Windows {
		if w.ProcessName == "nedit" && w.Title == "Untitled" {
			pid = w.PID
			if !strings.Contains(out.RegistrationNote, fmt.Sprintf("leaving nedit running, which showed the window %q (handle %d, pid %d)", w.Title, w.Handle, w.PID)) {
				t.Errorf("the launch does not name NEdit's window: %+v", out)
			}
		}
	}
	if pid == 0 {
		t.Fatalf("no NEdit window after launching nedit (%+v): %+v", out, wl.Windows)
	}
	h.MustRun("session", "end", "nc1")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("NEdit (pid %d) still runs 10 s after its session ended", pid)
		}
	}
}
