//go:build linux

package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// launchAnyWith gives h's hosts a policy that adds program to the applications and passes
// its arguments as they are (cp: a small program that writes into the directory it is
// given; python3: an application doing what a compromised one would).
func launchAnyWith(t *testing.T, h *e2e.Harness, program string) {
	pol := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(pol, []byte(`{"launchApplications": ["`+program+`"], "launchArguments": "any"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	h.SetEnv("W365_POLICY", pol)
}

// swapDirs starts a Python call of session id in work that keeps exchanging work/x with
// work/xl (renameat2 RENAME_EXCHANGE) until stop, which waits for the call to end.
func swapDirs(t *testing.T, cs *mcp.ClientSession, work, id string) (stop func()) {
	code := `import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
open('ready', 'w').close()
end = time.time() + 90
while time.time() < end and not os.path.exists('stop'):
    for _ in range(1000):
        libc.renameat2(-100, b'x', -100, b'xl', 2)
`
	done := make(chan struct{})
	go func() {
		defer close(done)
		cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "execute_python_code",
			Arguments: map[string]any{"code": code, "cwd": work, "sessionId": id, "timeoutMs": 120000}})
	}()
	stop = func() {
		os.WriteFile(filepath.Join(work, "stop"), nil, 0o644)
		<-done
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(work, "ready")); err == nil {
			return stop
		}
		if time.Now().After(deadline) {
			stop()
			t.Fatal("the swapping call never started")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// entries lists the names in dir.
func entries(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// Attack class 11: a launched application's workspace swapped for a link. A Python call
// of one session keeps exchanging a directory of the workspace with a symbolic link to a
// directory outside every root, while another session launches, again and again, an
// application given that directory (cp, copying a file into it): the application is shown
// the directory as it was checked, or not at all, never what the link names.
func TestBoundaryLaunchedWorkspaceSwappedIsNotMounted(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	work := filepath.Join(home, "work")
	victim := t.TempDir()
	if err := os.MkdirAll(filepath.Join(work, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(work, "xl")); err != nil {
		t.Fatal(err)
	}
	launchAnyWith(t, h, "/usr/bin/cp")
	cs := h.MCP()
	swapper, _ := startSession(t, cs)
	launcher, _ := startSession(t, cs)
	stop := swapDirs(t, cs, work, swapper)
	// Whichever name it has now, the workspace's directory got a copy.
	copied := func() bool {
		_, err1 := os.Stat(filepath.Join(work, "x", "hostname"))
		_, err2 := os.Stat(filepath.Join(work, "xl", "hostname"))
		return err1 == nil || err2 == nil
	}
	// At least 20 launches; then on until one was shown the directory and copied into it
	// (under load most are shown it not at all, as the swap outruns their checks).
	started, n := 0, 0
	for ; n < 20 || (n < 80 && !copied()); n++ {
		res := e2e.Call(t, cs, "launch_application", map[string]any{"path": "/usr/bin/cp",
			"args": []string{"/etc/hostname", filepath.Join(work, "x")}, "sessionId": launcher})
		if !res.IsError {
			started++
		}
	}
	time.Sleep(time.Second) // the last copy
	stop()
	if !copied() {
		t.Errorf("no launched application wrote into the directory it was shown (%d launches)", n)
	}
	if names := entries(victim); len(names) > 0 {
		t.Errorf("an application shown a directory of the workspace wrote outside every root: %v", names)
	}
	t.Logf("%d of %d launches started", started, n)
}

// Attack class 12: a launched application planting a repository. An application (cp)
// copies a repository whose config runs a command on git status (core.fsmonitor) and whose
// pre-commit hook runs one too into a project of the workspace, and exits, or goes on (cp
// then waits on a FIFO) until its session ends: the person's git status and git commit
// there afterwards run neither.
func TestBoundaryGitRunsNothingALaunchedApplicationWrote(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "git")
	for _, ends := range []string{"exit", "session"} {
		t.Run(ends, func(t *testing.T) {
			h := e2e.New(t)
			home := h.FakeHome()
			work := filepath.Join(home, "work")
			proj, evil := filepath.Join(work, "proj"), filepath.Join(work, "tmpl", ".git")
			marker := filepath.Join(home, "PWNED")
			for _, d := range []string{proj, filepath.Join(evil, "hooks"), filepath.Join(evil, "objects"), filepath.Join(evil, "refs", "heads")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for name, text := range map[string]string{
				"HEAD":             "ref: refs/heads/main\n",
				"config":           fmt.Sprintf("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = touch %s\n", marker),
				"hooks/pre-commit": "#!/bin/sh\ntouch " + marker + "\n",
			} {
				if err := os.WriteFile(filepath.Join(evil, name), []byte(text), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			os.WriteFile(filepath.Join(proj, "a.txt"), []byte("one\n"), 0o644)
			args := []string{"-r", evil, proj}
			if ends == "session" {
				fifo := filepath.Join(work, "tmpl", "fifo")
				if err := syscall.Mkfifo(fifo, 0o644); err != nil {
					t.Fatal(err)
				}
				args = []string{"-r", "--copy-contents", evil, fifo, proj}
			}
			launchAnyWith(t, h, "/usr/bin/cp")
			cs := h.MCP()
			id, _ := startSession(t, cs)
			e2e.Must(t, cs, "launch_application", map[string]any{"path": "/usr/bin/cp", "args": args, "sessionId": id})
			git := filepath.Join(proj, ".git")
			deadline := time.Now().Add(10 * time.Second)
			for {
				// The hook, or the hook set aside: the application wrote its whole repository.
				if hooks, _ := filepath.Glob(filepath.Join(git, "hooks*", "pre-commit*")); len(hooks) > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the application never wrote its repository")
				}
				time.Sleep(50 * time.Millisecond)
			}
			if ends == "session" {
				e2e.Must(t, cs, "mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": id})
			} else {
				// The application has exited; its repository is cleaned after it (give that 15 s).
				for deadline = time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
					if _, err := os.Lstat(filepath.Join(git, "config")); err != nil {
						break
					}
				}
				// No result waited for that cleanup: the session's next call names what it set aside.
				var next struct {
					Quarantined []string `json:"quarantined"`
				}
				e2e.Structured(t, e2e.Must(t, cs, "execute_python_code", map[string]any{"code": "pass", "sessionId": id}), &next)
				if !slices.Contains(next.Quarantined, filepath.Join(git, "config")) {
					t.Errorf("the next call's result names %q as set aside, want the planted config among them", next.Quarantined)
				}
			}
			hostGit := personsGit(t, home)
			hostGit(proj, "status")
			hostGit(proj, "add", "a.txt")
			hostGit(proj, "commit", "-qm", "one")
			if _, err := os.Stat(marker); err == nil {
				t.Fatal("the person's git ran what a launched application wrote")
			}
			if _, err := os.Lstat(filepath.Join(git, "config.w365-untrusted")); err != nil {
				t.Errorf("the planted config was not set aside: %v", err)
			}
		})
	}
}

// A launched application given a file of HOME is shown that file alone, writable: cp
// copies over it.
func TestConfineLaunchedApplicationWritesTheFileItIsGiven(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap")
	h := e2e.New(t)
	home := h.FakeHome()
	notes := filepath.Join(home, "notes.txt")
	if err := os.WriteFile(notes, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("/etc/hostname")
	if err != nil {
		t.Fatal(err)
	}
	launchAnyWith(t, h, "/usr/bin/cp")
	cs := h.MCP()
	id, _ := startSession(t, cs)
	if res := e2e.Call(t, cs, "launch_application", map[string]any{"path": "/usr/bin/cp",
		"args": []string{"/etc/hostname", notes}, "sessionId": id}); res.IsError {
		t.Fatalf("launch: %s", e2e.Text(res))
	}
	var got []byte
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if got, _ = os.ReadFile(notes); string(got) == string(want) {
			return
		}
	}
	t.Errorf("~/notes.txt holds %q, want the copy %q", got, want)
}
