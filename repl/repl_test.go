//go:build linux

package repl

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/w365/w365/test/testenv"
)

// tmuxREPL drives the built binary's REPL in a private tmux server: keys in with
// send-keys, the screen out with capture-pane.
type tmuxREPL struct {
	t    *testing.T
	sock string
	cmd  string // shell command that starts the REPL in the pane
}

func (x *tmuxREPL) tmux(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", x.sock}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// typeText types text literally (no key-name interpretation), then the given keys.
func (x *tmuxREPL) typeText(text string, keys ...string) {
	x.t.Helper()
	if text != "" {
		x.tmux("send-keys", "-t", "repl", "-l", text)
	}
	if len(keys) > 0 {
		x.tmux(append([]string{"send-keys", "-t", "repl"}, keys...)...)
	}
}

func (x *tmuxREPL) screen() string { return x.tmux("capture-pane", "-p", "-t", "repl") }

// waitFor polls the screen until ok accepts it.
func (x *tmuxREPL) waitFor(what string, d time.Duration, ok func(screen string) bool) string {
	x.t.Helper()
	deadline := time.Now().Add(d)
	for {
		s := x.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("timed out after %s waiting for %s; screen:\n%s", d, what, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (x *tmuxREPL) waitText(sub string, d time.Duration) string {
	x.t.Helper()
	return x.waitFor(fmt.Sprintf("%q", sub), d, func(s string) bool { return strings.Contains(s, sub) })
}

// waitCount waits until sub appears at least n times on the screen.
func (x *tmuxREPL) waitCount(sub string, n int, d time.Duration) string {
	x.t.Helper()
	return x.waitFor(fmt.Sprintf("%d× %q", n, sub), d, func(s string) bool { return strings.Count(s, sub) >= n })
}

// inputLine is the prompt the user is typing on: the last "w365>" line, since the
// scrollback (with its echoed prompts) sits above it.
func inputLine(screen string) string {
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], strings.TrimSpace(promptText)) {
			return strings.TrimRight(lines[i], " ")
		}
	}
	return ""
}

func (x *tmuxREPL) waitInput(want string, d time.Duration) {
	x.t.Helper()
	x.waitFor("input line "+want, d, func(s string) bool { return inputLine(s) == want })
}

func (x *tmuxREPL) paneDead() bool {
	return strings.TrimSpace(x.tmux("display-message", "-p", "-t", "repl", "#{pane_dead}")) == "1"
}

func (x *tmuxREPL) waitExit(d time.Duration) {
	x.t.Helper()
	deadline := time.Now().Add(d)
	for !x.paneDead() {
		if time.Now().After(deadline) {
			x.t.Fatalf("the REPL did not exit; screen:\n%s", x.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestREPLInTmux(t *testing.T) {
	testenv.Require(t, "tmux")
	if testing.Short() && os.Getenv("CI") != "true" {
		// It builds the binary and starts a host on a virtual desktop.
		testenv.Missing(t, "a full (not -short) test run")
	}
	dir := t.TempDir()
	bin := testBinary(t)
	runtimeDir := filepath.Join(dir, "run")
	state := filepath.Join(dir, "state")
	home := filepath.Join(dir, "home")
	for _, d := range []string{runtimeDir, state, home} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"W365_RUNTIME_DIR=" + runtimeDir, "XDG_STATE_HOME=" + state, "HOME=" + home}
	// The REPL must start its own background host; stop it at the end, whatever happens.
	t.Cleanup(func() { killHost(t, bin, env, runtimeDir) })

	x := &tmuxREPL{t: t, sock: filepath.Join(dir, "tmux.sock")}
	x.cmd = "exec env -u W365_SESSION -u DISPLAY " + strings.Join(env, " ") + " LANG=C.UTF-8 " + bin + " --virtual repl"
	x.tmux("-f", "/dev/null", "new-session", "-d", "-s", "repl", "-x", "200", "-y", "50", x.cmd)
	t.Cleanup(func() { exec.Command("tmux", "-S", x.sock, "kill-server").Run() })
	x.tmux("set-option", "-t", "repl", "remain-on-exit", "on")

	x.waitInput(strings.TrimSpace(promptText), 15*time.Second)

	t.Run("a command prints its output", func(t *testing.T) {
		x.typeText("get-screen-size", "Enter")
		x.waitText("1920x1080", 90*time.Second)
	})
	t.Run("the status line shows the session and its display", func(t *testing.T) {
		x.waitFor("status with a display", 30*time.Second, func(s string) bool {
			return strings.Contains(s, "session default · display :")
		})
	})
	t.Run("Up recalls the previous command", func(t *testing.T) {
		x.typeText("", "Up")
		x.waitInput(promptText+"get-screen-size", 5*time.Second)
		x.typeText("", "C-c") // clears the line
		x.waitInput(strings.TrimSpace(promptText), 5*time.Second)
	})
	t.Run("Tab completes a command", func(t *testing.T) {
		x.typeText("get-scr", "Tab")
		x.waitInput(promptText+"get-screen-size", 10*time.Second)
		x.typeText("", "Enter")
		x.waitCount("1920x1080", 2, 30*time.Second)
	})
	t.Run("Tab shows the choices when they are ambiguous", func(t *testing.T) {
		x.typeText("click --", "Tab")
		x.waitText("--click-count", 10*time.Second)
		x.typeText("", "C-c")
		x.waitInput(strings.TrimSpace(promptText), 5*time.Second)
	})
	t.Run("wait-milliseconds runs", func(t *testing.T) {
		x.typeText("wait-milliseconds 10", "Enter")
		x.waitText("waitedMs: 10", 30*time.Second)
	})
	t.Run("quoted words reach the tool whole", func(t *testing.T) {
		x.typeText(`type-text "Grüße, 東京"`, "Enter")
		x.waitText("characters: 9", 30*time.Second)
	})
	t.Run("an invalid command prints an error and the REPL goes on", func(t *testing.T) {
		x.typeText("frobnicate --now", "Enter")
		x.waitText(`error: INVALID_ARGUMENT: unknown command "frobnicate"`, 10*time.Second)
		x.typeText("wait-milliseconds 20", "Enter")
		x.waitText("waitedMs: 20", 30*time.Second)
		if x.paneDead() {
			t.Fatal("the REPL exited after an invalid command")
		}
	})
	t.Run("exit leaves and the history file has the lines but type-text's", func(t *testing.T) {
		x.typeText("exit", "Enter")
		x.waitExit(10 * time.Second)
		b, err := os.ReadFile(filepath.Join(state, "w365", "history"))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		want := []string{"get-screen-size", "wait-milliseconds 10", "frobnicate --now", "wait-milliseconds 20", "exit"}
		if !slices.Equal(lines, want) {
			t.Errorf("history file:\n%q\nwant\n%q", lines, want)
		}
	})
	t.Run("the host outlives the REPL", func(t *testing.T) {
		if hostPID(t, bin, env) == 0 {
			t.Error("no host running after the REPL exited")
		}
	})
	t.Run("a second run recalls the history of the first", func(t *testing.T) {
		x.tmux("respawn-pane", "-k", "-t", "repl", x.cmd)
		x.waitInput(strings.TrimSpace(promptText), 15*time.Second)
		x.typeText("", "Up")
		x.waitInput(promptText+"exit", 5*time.Second)
		x.typeText("", "Up")
		x.waitInput(promptText+"wait-milliseconds 20", 5*time.Second)
		x.typeText("", "Enter")
		x.waitText("waitedMs: 20", 30*time.Second)
		x.typeText("", "C-d") // on an empty line: leave
		x.waitExit(10 * time.Second)
	})
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// TestMain removes the binary testBinary built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// testBinary builds the w365 binary once per test process (TestMain removes it).
func testBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "w365-repl-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "w365")
		if out, err := exec.Command("go", "build", "-o", binPath, "github.com/w365/w365/cmd/w365").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// hostPID asks the host (through the CLI, with the test's runtime dir) for its pid.
func hostPID(t *testing.T, bin string, env []string) int {
	cmd := exec.Command(bin, "session", "list", "--json")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Logf("session list: %v", err)
		return 0
	}
	var list struct {
		Sessions []struct {
			HostPID int `json:"hostPid"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal(out, &list); err != nil || len(list.Sessions) == 0 {
		t.Logf("session list: %v %s", err, out)
		return 0
	}
	return list.Sessions[0].HostPID
}

// hostsOf finds host processes serving runtimeDir, for when the host has no session
// to report its pid (a run that failed early).
func hostsOf(runtimeDir string) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		environ, err := os.ReadFile(filepath.Join(p, "environ"))
		if err != nil || !slices.Contains(strings.Split(string(environ), "\x00"), "W365_RUNTIME_DIR="+runtimeDir) {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		if args := strings.Split(string(cmdline), "\x00"); len(args) > 1 && args[1] == "serve" {
			var pid int
			fmt.Sscan(filepath.Base(p), &pid)
			pids = append(pids, pid)
		}
	}
	return pids
}

func killHost(t *testing.T, bin string, env []string, runtimeDir string) {
	// Asking may start a host when none runs; the scan after it finds that one too.
	pid := hostPID(t, bin, env)
	pids := hostsOf(runtimeDir)
	if pid > 0 && !slices.Contains(pids, pid) {
		pids = append(pids, pid)
	}
	for _, pid := range pids {
		stop(pid)
	}
}

// stop ends a host gracefully (it stops its Xvfb), forcefully after 5s.
func stop(pid int) {
	syscall.Kill(pid, syscall.SIGTERM)
	for range 100 {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

// `w365 --session s repl`: cobra parses the root's flags through the subcommand's
// flag set, and the REPL must still see them as given.
func TestRootFlagsGivenBeforeReplReachIt(t *testing.T) {
	root := &cobra.Command{Use: "w365"}
	var session string
	root.PersistentFlags().StringVar(&session, "session", "default", "")
	var got []string
	root.AddCommand(&cobra.Command{Use: "repl", RunE: func(cmd *cobra.Command, _ []string) error {
		got = changedFlags(cmd.Root().PersistentFlags())
		return nil
	}})
	root.SetArgs([]string{"--session", "s-1", "repl"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "--session=s-1" {
		t.Errorf("the REPL got root flags %v", got)
	}
}
