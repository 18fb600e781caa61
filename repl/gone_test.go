//go:build linux

package repl

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/w365/w365/test/testenv"
)

// childOf finds the process whose parent is ppid (the REPL under make).
func childOf(ppid int) int {
	procs, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces, so split after the last ')'.
		rest := string(b[strings.LastIndexByte(string(b), ')')+2:])
		f := strings.Fields(rest)
		if len(f) > 1 && f[1] == strconv.Itoa(ppid) {
			pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			return pid
		}
	}
	return 0
}

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return !strings.Contains(string(b), ") Z ") // a zombie has exited
}

// The `make run` case of the issue: under make, the REPL is not the session leader, so
// closing the terminal sends it no SIGHUP. It must still end (the host staying), and
// SIGTERM must end it whoever its parent is.
func TestREPLUnderMakeEndsWithItsTerminalOrSIGTERM(t *testing.T) {
	testenv.Require(t, "tmux", "make")
	bin, dir, env := terminalWorld(t)
	mk := filepath.Join(dir, "Makefile")
	os.WriteFile(mk, []byte(".PHONY: run\nrun:\n\tenv -u W365_SESSION -u DISPLAY "+strings.Join(env, " ")+" LANG=C.UTF-8 "+bin+" --virtual repl\n"), 0o600)

	start := func(t *testing.T) (*tmuxREPL, int) {
		x := &tmuxREPL{t: t, sock: filepath.Join(dir, "tmux.sock")}
		x.tmux("-f", "/dev/null", "new-session", "-d", "-s", "repl", "-x", "120", "-y", "30", "make -f "+mk+" run")
		t.Cleanup(func() { exec.Command("tmux", "-S", x.sock, "kill-server").Run() })
		x.waitInput(strings.TrimSpace(promptText), 20*time.Second)
		makePID, _ := strconv.Atoi(strings.TrimSpace(x.tmux("display-message", "-p", "-t", "repl", "#{pane_pid}")))
		repl := childOf(makePID)
		if repl == 0 {
			t.Fatalf("no REPL under make (pid %d)", makePID)
		}
		return x, repl
	}
	waitGone := func(t *testing.T, pid int, what string) {
		began := time.Now()
		for alive(pid) {
			// The issue asks for a second; the bound is generous for a loaded machine.
			if time.Since(began) > 10*time.Second {
				t.Fatalf("the REPL (pid %d) still runs %s after %s", pid, what, time.Since(began))
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Logf("the REPL ended %s after %s", time.Since(began).Round(time.Millisecond), what)
	}

	t.Run("closing the terminal ends the REPL and leaves the host", func(t *testing.T) {
		x, repl := start(t)
		x.typeText("get-screen-size", "Enter")
		x.waitText("1920x1080", 90*time.Second)
		host := hostPID(t, bin, env)
		x.tmux("kill-session", "-t", "repl")
		waitGone(t, repl, "the terminal closed")
		if host == 0 || !alive(host) {
			t.Errorf("the host (pid %d) did not outlive the REPL", host)
		}
	})
	t.Run("SIGTERM ends the REPL under make", func(t *testing.T) {
		_, repl := start(t)
		syscall.Kill(repl, syscall.SIGTERM)
		waitGone(t, repl, "SIGTERM")
	})
}

// terminalWorld is a REPL-in-a-terminal test's world: the binary, a private directory and
// the environment of a private host there (stopped when the test ends). Only full runs
// drive a terminal.
func terminalWorld(t *testing.T) (bin, dir string, env []string) {
	t.Helper()
	if testing.Short() && os.Getenv("CI") != "true" {
		testenv.Missing(t, "a full (not -short) test run")
	}
	bin = testBinary(t)
	dir = t.TempDir()
	runtimeDir := filepath.Join(dir, "run")
	os.MkdirAll(runtimeDir, 0o700)
	env = []string{"W365_RUNTIME_DIR=" + runtimeDir, "XDG_STATE_HOME=" + dir, "HOME=" + dir}
	t.Cleanup(func() { killHost(t, bin, env, runtimeDir) })
	return bin, dir, env
}
