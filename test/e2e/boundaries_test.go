//go:build linux

package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// The boundary tests attack the built binary over MCP the way a prompt-injected agent
// would, and judge by effects: a canary file not written or read, a process not started,
// a value not leaked, memory not allocated. Whatever error the defence picks is fine.

type execOut struct {
	Stdout, Stderr  string
	ExitCode        int
	Success         bool
	TimedOut        bool
	MemoryLimitHit  bool
	ResourceLimits  bool `json:"resourceLimitsApplied"`
	StdoutTruncated bool
}

// pyOver runs Python over MCP; a refusal comes back as ok=false.
func pyOver(t *testing.T, cs *mcp.ClientSession, code, cwd string) (execOut, bool) {
	t.Helper()
	args := map[string]any{"code": code, "timeoutMs": 60000}
	if cwd != "" {
		args["cwd"] = cwd
	}
	res := e2e.Call(t, cs, "execute_python_code", args)
	var out execOut
	if res.IsError {
		return out, false
	}
	e2e.Structured(t, res, &out)
	return out, true
}

func unchanged(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || string(b) != e2e.Canary+"\n" {
		t.Errorf("%s was changed or removed: %q %v", path, b, err)
	}
}

// Attack class 1: launch_application as an unsandboxed exec. Only the applications of
// the system's desktop entries start, with files and URLs as arguments: nothing starts
// because it lies in /usr/bin (an editor in ex mode, sqlite3's .system, xdotool exec, cp
// of a key out of ~/.ssh, kill -9 of a process kill_process refuses), and a real GTK
// application (mousepad, from its desktop entry) opens a file of the person's.
func TestBoundaryLaunchStartsApplicationsOnly(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "mousepad", "sqlite3", "xdotool", "vim")
	h := e2e.New(t)
	home := h.FakeHome()
	h.SetEnv("W365_API_KEY", e2e.Canary)
	cs := h.MCP()
	marker := filepath.Join(home, "PWNED")
	stolen := filepath.Join(home, "stolen")
	link := filepath.Join(home, "innocent")
	if err := os.Symlink("/usr/bin/python3", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(home, "key.txt")); err != nil {
		t.Fatal(err)
	}
	victim := outsideSleep(t)
	pid := strconv.Itoa(victim.Process.Pid)
	for _, c := range []struct {
		path string
		args []string
	}{
		{"/usr/bin/sh", []string{"-c", "touch " + marker}},
		{"/bin/bash", []string{"-c", "touch " + marker}},
		{"/usr/bin/python3", []string{"-c", "open('" + marker + "','w')"}},
		{link, []string{"-c", "open('" + marker + "','w')"}},
		{"/usr/bin/env", []string{"touch", marker}},
		{"/usr/bin/xargs", []string{"-a", "/dev/null", "touch", marker}},
		{"/usr/bin/perl", []string{"-e", "open F,'>" + marker + "'"}},
		{"/usr/bin/xterm", []string{"-e", "touch " + marker}},
		{"/usr/bin/xterm", []string{}}, // a terminal emulator: a shell the agent could type into
		{"/usr/bin/timeout", []string{"5", "touch", marker}},
		{"/usr/bin/vim", []string{"-es", "-c", "!touch " + marker, "-c", "q"}},
		{"/usr/bin/ex", []string{"-c", "!touch " + marker}},
		{"vim", []string{"-c", "!touch " + marker}},
		{"/usr/bin/sqlite3", []string{":memory:", ".system touch " + marker}},
		{"/usr/bin/xdotool", []string{"exec", "touch", marker}},
		{"/usr/bin/cp", []string{filepath.Join(home, ".ssh", "id_ed25519"), stolen}},
		{"/usr/bin/kill", []string{"-9", pid}},
		{"/bin/kill", []string{"-9", pid}},
		{"/usr/bin/mousepad", []string{"--", "-c"}},
		{"/usr/bin/mousepad", []string{filepath.Join(home, ".ssh", "id_ed25519")}},
		{"/usr/bin/mousepad", []string{filepath.Join(home, "key.txt")}},
		{"/usr/bin/mousepad", []string{"/etc/shadow"}},
		{"/usr/bin/chromium", []string{"--renderer-cmd-prefix=touch " + marker}},
		{"/usr/bin/chromium", []string{"file:///etc/shadow"}},
	} {
		res := e2e.Call(t, cs, "launch_application", map[string]any{"path": c.path, "args": c.args})
		if !res.IsError {
			t.Errorf("%s %v started: %s", c.path, c.args, e2e.Text(res))
		}
		if code := e2e.ErrorCode(res); code != "BLOCKED_BY_POLICY" && code != "UNSUPPORTED" {
			t.Errorf("%s %v: %s, want BLOCKED_BY_POLICY or UNSUPPORTED", c.path, c.args, e2e.Text(res))
		}
	}
	// The refusal names the rule and what can be launched (all of it in its details).
	res := e2e.Call(t, cs, "launch_application", map[string]any{"path": "/usr/bin/sqlite3"})
	if !strings.Contains(e2e.ErrorMeta(res), "org.xfce.mousepad") || !strings.Contains(e2e.Text(res), "launch-allowlist") {
		t.Errorf("the refusal does not name the rule and the applications: %s %s", e2e.Text(res), e2e.ErrorMeta(res))
	}
	time.Sleep(time.Second)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("a launched program ran a command: the marker exists")
	}
	if _, err := os.Stat(stolen); err == nil {
		t.Fatal("cp ran: the key was copied out of ~/.ssh")
	}
	if !processAlive(victim.Process.Pid) {
		t.Fatal("kill ran: the process outside the session is gone")
	}
	// An application starts with a file of the person's, without the host's secrets in its
	// environment, and belongs to the session: it ends with it.
	s := e2e.Call(t, cs, "mcp_W365ComputerUse_StartSession", nil)
	var sess struct{ SessionID string }
	e2e.Structured(t, s, &sess)
	doc := filepath.Join(home, "Documents", "launched-by-w365.txt")
	os.MkdirAll(filepath.Dir(doc), 0o700)
	if err := os.WriteFile(doc, []byte("hello from a file\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var launched struct {
		Path string
		PID  int
	}
	e2e.Structured(t, e2e.Call(t, cs, "launch_application", map[string]any{"path": "org.xfce.mousepad",
		"args": []string{"~/Documents/launched-by-w365.txt"}, "sessionId": sess.SessionID}), &launched)
	if real, _ := filepath.EvalSymlinks("/usr/bin/mousepad"); launched.Path != real {
		t.Errorf("org.xfce.mousepad started %q, want %s", launched.Path, real)
	}
	// notepad, the reference's name, is a text editor of the desktop entries.
	var notepad struct{ Path string }
	e2e.Structured(t, e2e.Call(t, cs, "launch_application", map[string]any{"path": "notepad", "sessionId": sess.SessionID}), &notepad)
	if editors := textEditors(t); !slices.Contains(editors, notepad.Path) {
		t.Errorf("notepad started %q, not one of the text editors %q", notepad.Path, editors)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		var wl struct{ Windows []struct{ Title string } }
		e2e.Structured(t, e2e.Call(t, cs, "list_windows", map[string]any{"sessionId": sess.SessionID}), &wl)
		if slices.ContainsFunc(wl.Windows, func(w struct{ Title string }) bool { return strings.Contains(w.Title, "launched-by-w365.txt") }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("mousepad never showed the file it was given: windows %+v", wl.Windows)
		}
		time.Sleep(200 * time.Millisecond)
	}
	env, err := os.ReadFile("/proc/" + strconv.Itoa(launched.PID) + "/environ")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), e2e.Canary) || strings.Contains(string(env), "W365_") {
		t.Errorf("the launched program's environment holds a W365_ variable or the API key")
	}
	if !strings.Contains(string(env), "DISPLAY=") {
		t.Errorf("the launched program has no DISPLAY: %q", env)
	}
	e2e.Must(t, cs, "mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": sess.SessionID})
	deadline = time.Now().Add(10 * time.Second)
	for processAlive(launched.PID) {
		if time.Now().After(deadline) {
			t.Fatalf("the launched program (pid %d) outlived its session", launched.PID)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// textEditors are the programs of the system's desktop entries in the TextEditor category
// that run without a terminal, symbolic links resolved.
func textEditors(t *testing.T) []string {
	files, _ := filepath.Glob("/usr/share/applications/*.desktop")
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil || !strings.Contains(string(b), "TextEditor;") || strings.Contains(string(b), "Terminal=true") {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if exe, ok := strings.CutPrefix(line, "Exec="); ok {
				if p, err := exec.LookPath(strings.Fields(exe)[0]); err == nil {
					if r, err := filepath.EvalSymlinks(p); err == nil {
						out = append(out, r)
					}
				}
				break
			}
		}
	}
	return out
}

func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z"
}

// Attack class 2: sandboxed code reaching the host through its runtime directory.
func TestBoundarySandboxCannotReachTheHost(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.FakeHome()
	cs := h.MCP()
	for _, cwd := range []string{h.RuntimeDir, filepath.Dir(h.RuntimeDir), filepath.Join(h.RuntimeDir, "sessions")} {
		os.MkdirAll(cwd, 0o700)
		if out, ok := pyOver(t, cs, "print('ran')", cwd); ok {
			t.Errorf("cwd %s accepted: %+v", cwd, out)
		}
	}
	sock := filepath.Join(h.RuntimeDir, "host.sock")
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("the host socket is missing: %v", err)
	}
	code := fmt.Sprintf(`import os, socket
print('listing', os.listdir(%q) if os.path.isdir(%q) else 'absent')
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(%q)
    print('CONNECTED')
except OSError as e:
    print('refused', e.errno)
`, h.RuntimeDir, h.RuntimeDir, sock)
	out, ok := pyOver(t, cs, code, "")
	if !ok || strings.Contains(out.Stdout, "CONNECTED") || strings.Contains(out.Stdout, "host.sock") || !strings.Contains(out.Stdout, "refused") {
		t.Errorf("the sandbox reached the host socket: %+v", out)
	}
}

// Attack class 3: sandbox writes that persist into places that run later, outside it.
func TestBoundarySandboxWritesDoNotPersistOutside(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	home := h.FakeHome()
	cs := h.MCP()
	for _, cwd := range []string{home, "~", filepath.Join(home, ".ssh"), "~/.config/autostart", filepath.Join(home, ".local/share/flatpak/exports/bin"),
		filepath.Join(home, "project/.git"), filepath.Join(home, "project/.git/hooks"), "/usr/local/bin", "/etc", "/"} {
		if out, ok := pyOver(t, cs, "open('x', 'w').write('x')", cwd); ok {
			t.Errorf("cwd %s accepted: %+v", cwd, out)
		}
	}
	// A project directory is writable; its repository's hooks and config are not, and
	// nothing else of HOME is reachable.
	code := fmt.Sprintf(`import os
home = %q
for p in ('.git/hooks/post-checkout', '.git/config', home + '/.ssh/authorized_keys', home + '/.bashrc',
          home + '/.config/autostart/evil.desktop', home + '/.config/user-dirs.dirs'):
    try:
        with open(p, 'a') as f:
            f.write('\n[core]\n\tfsmonitor = touch PWNED\n')
        print('wrote', p)
    except OSError as e:
        print('refused', p, e.errno)
open('work.txt', 'w').write('done')
`, home)
	out, ok := pyOver(t, cs, code, filepath.Join(home, "project"))
	if !ok || !out.Success {
		t.Fatalf("python in the project: %+v", out)
	}
	unchanged(t, filepath.Join(home, "project/.git/config"))
	unchanged(t, filepath.Join(home, ".ssh/authorized_keys"))
	for _, p := range []string{"project/.git/hooks/post-checkout", ".bashrc", ".config/autostart/evil.desktop", ".config/user-dirs.dirs"} {
		if _, err := os.Stat(filepath.Join(home, p)); err == nil {
			t.Errorf("%s was created on the host", p)
		}
	}
	if b, err := os.ReadFile(filepath.Join(home, "project/work.txt")); err != nil || string(b) != "done" {
		t.Errorf("the project write is missing: %q %v", b, err)
	}
	// A repository the call makes keeps no hook or program-running config it planted.
	plant := `import os, subprocess
subprocess.run(['git', 'init', '-q', 'made'], check=True)
open('made/.git/hooks/pre-commit', 'w').write('#!/bin/sh\ntouch PWNED\n')
os.chmod('made/.git/hooks/pre-commit', 0o755)
open('made/.git/config', 'a').write('[core]\n\tfsmonitor = touch PWNED\n')
`
	if out, ok := pyOver(t, cs, plant, filepath.Join(home, "project")); !ok || !out.Success {
		t.Fatalf("planting: %+v", out)
	}
	for _, p := range []string{"made/.git/hooks/pre-commit", "made/.git/config"} {
		if b, err := os.ReadFile(filepath.Join(home, "project", p)); err == nil {
			t.Errorf("%s survived the call: %q", p, b)
		}
	}
	// The shell tool too: git config cannot be widened and a wildcard cannot turn a file
	// named -rf into an option.
	os.WriteFile(filepath.Join(home, "project", "-rf"), nil, 0o644)
	res := e2e.Call(t, cs, "execute_shell_command", map[string]any{"command": "rm *", "cwd": "~/project"})
	if res.IsError {
		t.Fatalf("rm *: %s", e2e.Text(res))
	}
	if _, err := os.Stat(filepath.Join(home, "project/.git/config")); err != nil {
		t.Errorf("rm * reached .git: %v", err)
	}
}

// The git guard follows nothing the sandbox wrote: after a call that tries every way into
// the person's next git command (a commondir naming a hostile config, .git renamed and
// rebuilt, a hook, a gitfile, a hooks link to ~/.ssh and a relative config link in a
// repository it makes, a FIFO named config), the person's git status and git commit run
// nothing of the sandbox's, ~/.ssh keeps its files, and nothing blocks.
func TestBoundaryGitRunsNothingTheSandboxWrote(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "git")
	h := e2e.New(t)
	home := h.FakeHome()
	work := filepath.Join(home, "work")
	hostGit := personsGit(t, home)
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(work, "a.txt"), []byte("one\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "a.txt"}, {"commit", "-qm", "one"}} {
		if out, err := hostGit(work, args...); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	cs := h.MCP()
	marker := filepath.Join(home, "PWNED")
	code := fmt.Sprintf(`import os, subprocess
marker = %q
ssh = %q
evil = '[core]\n\tfsmonitor = touch ' + marker + '\n\thooksPath = ' + os.getcwd() + '/evilhooks\n'
os.makedirs('evil/.git', exist_ok=True)
open('evil/.git/config', 'w').write(evil)
os.makedirs('evilhooks', exist_ok=True)
open('evilhooks/pre-commit', 'w').write('#!/bin/sh\ntouch ' + marker + '\n')
os.chmod('evilhooks/pre-commit', 0o755)
def attempt(name, f):
    try:
        f()
        print('did', name)
    except OSError as e:
        print('refused', name, e.errno)
attempt('commondir', lambda: open('.git/commondir', 'w').write('evil/.git\n'))
attempt('config', lambda: open('.git/config', 'a').write(evil))
attempt('hook', lambda: open('.git/hooks/pre-commit', 'w').write('#!/bin/sh\ntouch ' + marker + '\n'))
attempt('rename', lambda: os.rename('.git', 'old.git'))
subprocess.run(['git', 'init', '-q', 'made'], check=True)
import shutil
shutil.rmtree('made/.git/hooks')
os.symlink(ssh, 'made/.git/hooks')
os.remove('made/.git/config')
os.symlink('../../evil/.git/config', 'made/.git/config')
subprocess.run(['git', 'init', '-q', 'fifo'], check=True)
os.remove('fifo/.git/config')
os.mkfifo('fifo/.git/config')
os.makedirs('linked', exist_ok=True)
open('linked/.git', 'w').write('gitdir: ../evil/.git\n')
open('a.txt', 'a').write('two\n')
`, marker, filepath.Join(home, ".ssh"))
	out, ok := pyOver(t, cs, code, work)
	if !ok || !out.Success {
		t.Fatalf("the hostile call: %+v", out)
	}
	for _, what := range []string{"commondir", "config", "hook", "rename"} {
		if !strings.Contains(out.Stdout, "refused "+what) {
			t.Errorf("the sandbox could write the repository (%s): %s", what, out.Stdout)
		}
	}
	sshBefore := []string{"authorized_keys", "id_ed25519"}
	for _, dir := range []string{work, filepath.Join(work, "made"), filepath.Join(work, "fifo"), filepath.Join(work, "linked")} {
		hostGit(dir, "status")
	}
	if o, err := hostGit(work, "commit", "-qam", "two"); err != nil {
		t.Errorf("the person's git commit failed: %v %s", err, o)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the person's git ran the sandbox's command")
	}
	ents, _ := os.ReadDir(filepath.Join(home, ".ssh"))
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, sshBefore) {
		t.Errorf("~/.ssh now holds %q, want %q", names, sshBefore)
	}
	unchanged(t, filepath.Join(home, ".ssh", "id_ed25519"))
}

// personsGit runs git as the person with HOME home (no system configuration), in a
// directory: its output and error; a git that blocks fails the test.
func personsGit(t *testing.T, home string) func(dir string, args ...string) (string, error) {
	return func(dir string, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		defer cancel()
		c := exec.CommandContext(ctx, "git", args...)
		c.Dir = dir
		c.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1",
			"GIT_AUTHOR_NAME=p", "GIT_AUTHOR_EMAIL=p@example.com", "GIT_COMMITTER_NAME=p", "GIT_COMMITTER_EMAIL=p@example.com"}
		out, err := c.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("git %v in %s blocked", args, dir)
		}
		return string(out), err
	}
}

// Attack class 4: the sandbox reading secrets.
func TestBoundarySandboxReadsNoSecrets(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	home := h.FakeHome()
	cs := h.MCP()
	code := fmt.Sprintf(`import os
home = %q
for p in ('.ssh/id_ed25519', '.bash_history', '.claude/credentials.json', 'notes.txt', 'project/.git/config'):
    try:
        print(p, open(os.path.join(home, p)).read())
    except OSError as e:
        print(p, 'error', e.errno)
for p in ('/etc/shadow', '/etc/gshadow', '/root'):
    try:
        print(p, open(p).read() if os.path.isfile(p) else os.listdir(p))
    except OSError as e:
        print(p, 'error', e.errno)
try:
    print('home', os.listdir(home))
except OSError as e:
    print('home error', e.errno)
`, home)
	out, ok := pyOver(t, cs, code, "")
	if !ok || !out.Success {
		t.Fatalf("python: %+v", out)
	}
	if strings.Contains(out.Stdout, e2e.Canary) || strings.Contains(out.Stdout, "root:") || strings.Contains(out.Stdout, "id_ed25519',") {
		t.Errorf("the sandbox read a secret:\n%s", out.Stdout)
	}
	for _, cmd := range []string{"type ~/.ssh/id_ed25519", "cat ~/.bash_history", "cat /etc/shadow", "grep -r " + e2e.Canary + " ~/project"} {
		res := e2e.Call(t, cs, "execute_shell_command", map[string]any{"command": cmd})
		if strings.Contains(e2e.Text(res), e2e.Canary) || strings.Contains(e2e.Text(res), "root:") {
			t.Errorf("%q read a secret: %s", cmd, e2e.Text(res))
		}
	}
}

// Attack class 5: memory limited per process only.
func TestBoundaryMemoryLimitHoldsForTheWholeCall(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.FakeHome()
	cs := h.MCP()
	// Six children of 300 MB each, all holding it for 3 s: 1.8 GB together against a
	// 512 MB limit. A child that exits 0 held its 300 MB through the others' allocations.
	code := `import subprocess, sys
child = "b = bytearray(300 * 1024 * 1024)\nfor i in range(0, len(b), 4096): b[i] = 1\nimport time; time.sleep(3)"
ps = [subprocess.Popen([sys.executable, '-c', child]) for _ in range(6)]
print('survivors', sum(p.wait() == 0 for p in ps))
`
	out, _ := pyOver(t, cs, code, "")
	n := -1
	if i := strings.Index(out.Stdout, "survivors"); i >= 0 {
		fmt.Sscanf(out.Stdout[i+len("survivors"):], "%d", &n)
	}
	if n > 1 || !out.MemoryLimitHit {
		t.Errorf("%d children held 300 MB each at once under a 512 MB limit: %+v", n, out)
	}
	// A script run through execute_shell_command touching 2 GB is stopped.
	script := "b = bytearray(2 * 1024 * 1024 * 1024)\nfor i in range(0, len(b), 4096): b[i] = 1\nprint('touched 2 GB')\n"
	if out, ok := pyOver(t, cs, fmt.Sprintf("open('big.py', 'w').write(%q)", script), ""); !ok || !out.Success {
		t.Fatalf("writing the script: %+v", out)
	}
	res := e2e.Call(t, cs, "execute_shell_command", map[string]any{"command": "python3 big.py", "timeoutMs": 60000})
	var sh execOut
	e2e.Structured(t, res, &sh)
	if sh.Success || strings.Contains(sh.Stdout, "touched 2 GB") || !sh.MemoryLimitHit {
		t.Errorf("2 GB through execute_shell_command: %+v", sh)
	}
}

// Attack class 7: a policy that fails open.
func TestBoundaryPolicyFailsClosed(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.FakeHome()
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	typo := write("typo.json", `{"toolAllowList": ["take_screenshot"]}`)
	if r := h.Run("--policy", typo, "get-screen-size"); r.Code == 0 || !strings.Contains(r.Stderr, "toolAllowList") {
		t.Errorf("a misspelt key was accepted: %+v", r)
	}
	strict := write("strict.json", `{"toolAllowlist": ["get_screen_size", "execute_python_code", "get_session_details", "launch_application"], "toolDenylist": ["launch_application"]}`)
	// A host with the default policy runs; a client given another policy never gets it.
	h.MustRun("get-screen-size")
	hostPID := h.HostPID()
	if r := h.Run("--policy", strict, "get-screen-size"); r.Code != 4 || !strings.Contains(r.Stderr, "policy") {
		t.Errorf("CLI with another policy than the host's: exit %d %s", r.Code, r.Stderr)
	}
	cs := h.MCP("--policy", strict)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	if want := []string{"execute_python_code", "get_screen_size", "mcp_W365ComputerUse_GetSessionDetails"}; !slices.Equal(names, want) {
		t.Errorf("tools under the strict policy: %v, want %v", names, want)
	}
	e2e.Must(t, cs, "get_screen_size", nil)
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "launch_application", Arguments: map[string]any{"path": "/usr/bin/xmessage"}})
	if err == nil && !res.IsError {
		t.Errorf("launch_application ran under a policy that denies it")
	}
	var details struct {
		Policy struct {
			Digest, Source string
			Changed        []string
		}
	}
	e2e.Structured(t, e2e.Call(t, cs, "mcp_W365ComputerUse_GetSessionDetails", map[string]any{"sessionId": "default"}), &details)
	if details.Policy.Source != strict || len(details.Policy.Changed) != 2 {
		t.Errorf("session details policy: %+v", details.Policy)
	}
	if h.HostPID() != hostPID {
		t.Errorf("the running host was replaced")
	}
	var hostDetails struct{ Policy struct{ Source string } }
	h.JSON(&hostDetails, "session", "details", "default")
	if hostDetails.Policy.Source != "defaults" {
		t.Errorf("the host's own policy: %+v", hostDetails.Policy)
	}
	b, _ := json.Marshal(details)
	t.Logf("strict client's session details: %s", b)
}

// Attack class 12 (the policy check): a command line at the size cap built to be slow
// gets its answer, and the session answers the next call.
func TestBoundaryPolicyCheckIsBounded(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.FakeHome()
	cs := h.MCP()
	for _, unit := range []string{"{a,", "{", "{..", "* ", "'a'"} {
		cmd := "git " + strings.Repeat(unit, (32*1024-4)/len(unit))
		res := e2e.Call(t, cs, "execute_shell_command", map[string]any{"command": cmd})
		if !res.IsError && unit != "* " && unit != "'a'" {
			t.Errorf("%q x %d accepted", unit, len(cmd)/len(unit))
		}
	}
	res := e2e.Call(t, cs, "execute_shell_command", map[string]any{"command": "git " + strings.Repeat("{a,", 20000)})
	if e2e.ErrorCode(res) != "INVALID_ARGUMENT" {
		t.Errorf("a command over the cap: %s", e2e.Text(res))
	}
	var out execOut
	e2e.Structured(t, e2e.Call(t, cs, "execute_shell_command", map[string]any{"command": "git --version"}), &out)
	if !out.Success {
		t.Errorf("the next call: %+v", out)
	}
}

// Everyday commands keep working in a project under a HOME the sandbox otherwise hides.
func TestEverydayCommandsInAProjectOverMCP(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	home := h.FakeHome()
	os.MkdirAll(filepath.Join(home, "project", "src"), 0o755)
	for _, f := range []string{"src/a.py", "src/b.py", "src/c.txt"} {
		os.WriteFile(filepath.Join(home, "project", f), []byte("line one\nline two\n"), 0o644)
	}
	cs := h.MCP()
	for cmd, want := range map[string]string{
		"ls src/*.py":                   "src/a.py\nsrc/b.py\n",
		"ls src":                        "a.py\nb.py\nc.txt\n", // ~ in a command is the session's HOME now (docs/sessions.md#files)
		"wc -l src/a.py":                "2 src/a.py\n",
		"head -n 1 src/c.txt":           "line one\n",
		"tail -n 1 src/c.txt":           "line two\n",
		"find src -name *.txt":          "src/c.txt\n",
		`find src -name "*.py" -type f`: "src/a.py\nsrc/b.py\n",
	} {
		var out execOut
		res := e2e.Call(t, cs, "execute_shell_command", map[string]any{"command": cmd, "cwd": "~/project"})
		if res.IsError {
			t.Errorf("%q: %s", cmd, e2e.Text(res))
			continue
		}
		e2e.Structured(t, res, &out)
		got := out.Stdout
		if strings.HasPrefix(cmd, "find") {
			lines := strings.Split(strings.TrimSpace(got), "\n")
			slices.Sort(lines)
			got = strings.Join(lines, "\n") + "\n"
		}
		if got != want || !out.Success {
			t.Errorf("%q: %q (%+v), want %q", cmd, got, out, want)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "project", "src", "a.py")); err != nil {
		t.Errorf("the project changed: %v", err)
	}
}

// Files the host writes for the person into a place a session can write follow nothing
// the session left there: a screenshot written with -o over a symbolic link that a
// sandbox call planted in the project is refused, and the file the link names (a
// credential outside the project) keeps its content.
func TestBoundaryHostWritesFollowNoLinkInAWorkspace(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	home := h.FakeHome()
	cs := h.MCP()
	plant := fmt.Sprintf(`import os
os.symlink(%q, 'shot.png')
`, filepath.Join(home, ".bash_history"))
	if out, ok := pyOver(t, cs, plant, filepath.Join(home, "project")); !ok || !out.Success {
		t.Fatalf("planting: %+v", out)
	}
	shot := filepath.Join(home, "project", "shot.png")
	if r := h.Run("take-screenshot", "-o", shot); r.Code == 0 || !strings.Contains(r.Stderr, "symbolic link") {
		t.Errorf("a screenshot over a planted link: exit %d, %s", r.Code, r.Stderr)
	}
	unchanged(t, filepath.Join(home, ".bash_history"))
	if fi, err := os.Lstat(shot); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	// Beside it, and over a file of its own, the screenshot is written.
	own := filepath.Join(home, "project", "own.png")
	os.WriteFile(own, []byte("old"), 0o644)
	h.MustRun("take-screenshot", "-o", own)
	if b, _ := os.ReadFile(own); !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("the screenshot is not a PNG")
	}
}

// Attack class 3b: repositories the git guard did not look for. Git takes a directory
// holding HEAD as a (bare) repository, with core.worktree in its config as a work tree's
// repository, and follows a .git that is a symbolic link; a guard that looks only for
// .git entries three levels down (and at most 4000 entries) misses a repository planted
// in the working directory itself, in a subdirectory of the person's repository, deeper,
// after many files, behind a link into the session's HOME, and a hook added to a person's
// repository deeper than the read-only binds; a guard that reads HEAD whole would miss one
// whose HEAD is longer than what git reads of it. Each runs the sandbox's command when the
// person runs git there.
func TestBoundaryGitFindsNoRepositoryTheSandboxPlanted(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "git")
	h := e2e.New(t)
	home := h.FakeHome()
	work := filepath.Join(home, "work")
	deep := filepath.Join(work, "p", "q", "r", "mine")
	for _, d := range []string{filepath.Join(work, "repo", "sub"), deep} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	personGit := personsGit(t, home)
	hostGit := func(dir string, args ...string) {
		out, err := personGit(dir, args...)
		t.Logf("git %v in %s: %v %s", args, dir, err, out)
	}
	hostGit(filepath.Join(work, "repo"), "init", "-q")
	hostGit(deep, "init", "-q")
	os.WriteFile(filepath.Join(deep, "f"), []byte("x\n"), 0o644)
	cs := h.MCP()
	code := `import os, sys
home = sys.argv[1]
def plant(gitdir, worktree, marker, head='ref: refs/heads/main\n'):
    os.makedirs(os.path.join(gitdir, 'objects'), exist_ok=True)
    os.makedirs(os.path.join(gitdir, 'refs'), exist_ok=True)
    open(os.path.join(gitdir, 'HEAD'), 'w').write(head)
    open(os.path.join(gitdir, 'config'), 'w').write('[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ' + worktree + '\n\tfsmonitor = touch ' + home + '/' + marker + '\n')
cwd = os.getcwd()
plant(cwd, cwd, 'PWNED-cwd')
plant(cwd + '/repo/sub', cwd + '/repo/sub', 'PWNED-sub')
plant(cwd + '/a/b/c/d/.git', cwd + '/a/b/c/d', 'PWNED-deep')
plant(cwd + '/big', cwd + '/big', 'PWNED-big-head', 'ref: refs/heads/main\n' + 'x' * 10000)
os.makedirs('junk')
for i in range(6000):
    open('junk/%d' % i, 'w').close()
for i in range(10):
    plant(cwd + '/z%d/.git' % i, cwd + '/z%d' % i, 'PWNED-after-junk')
plant(os.environ['HOME'] + '/evil', cwd + '/lnk', 'PWNED-link')
os.makedirs('lnk')
os.symlink(os.environ['HOME'] + '/evil', 'lnk/.git')
open('p/q/r/mine/.git/hooks/pre-commit', 'w').write('#!/bin/sh\ntouch ' + home + '/PWNED-hook\n')
os.chmod('p/q/r/mine/.git/hooks/pre-commit', 0o755)
print('planted')
`
	code = "import sys; sys.argv = ['', " + strconv.Quote(home) + "]\n" + code
	out, ok := pyOver(t, cs, code, work)
	if !ok || !out.Success || !strings.Contains(out.Stdout, "planted") {
		t.Fatalf("the hostile call: %+v", out)
	}
	dirs := []string{work, filepath.Join(work, "repo", "sub"), filepath.Join(work, "a", "b", "c", "d"), filepath.Join(work, "lnk"), filepath.Join(work, "big")}
	for i := range 10 {
		dirs = append(dirs, filepath.Join(work, fmt.Sprintf("z%d", i)))
	}
	for _, dir := range dirs {
		hostGit(dir, "status")
	}
	hostGit(deep, "add", "f")
	hostGit(deep, "commit", "-qm", "one")
	for _, m := range []string{"PWNED-cwd", "PWNED-sub", "PWNED-deep", "PWNED-big-head", "PWNED-after-junk", "PWNED-link", "PWNED-hook"} {
		if _, err := os.Stat(filepath.Join(home, m)); err == nil {
			t.Errorf("the person's git ran the sandbox's command (%s)", m)
		}
	}
}

// Attack class 8: the end of a session sweeping a HOME its own code still changes. The
// session's Python call swaps directories of Documents with symbolic links to a directory
// outside every root (renameat2 RENAME_EXCHANGE, as fast as it can) while the session
// ends: the sweep must neither remove what lies there (a FIFO, a symbolic link, an empty
// directory) nor name its files among the kept ones.
func TestBoundarySessionEndFollowsNoLinkTheSessionSwaps(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	home := h.FakeHome()
	victim := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(victim, "canary.fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/nonexistent", filepath.Join(victim, "canary.link"))
	os.Mkdir(filepath.Join(victim, "emptydir"), 0o700)
	os.WriteFile(filepath.Join(victim, "canary.txt"), []byte(e2e.Canary), 0o600)
	cs := h.MCP()
	var st struct {
		SessionID string `json:"sessionId"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "mcp_W365ComputerUse_StartSession", map[string]any{}), &st)
	code := fmt.Sprintf(`import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
victim, n = %q, 300
docs = os.path.join(os.environ['HOME'], 'Documents')
for i in range(n):
    os.makedirs(os.path.join(docs, 'd%%d' %% i, 'sub'), exist_ok=True)
    os.symlink(victim, os.path.join(docs, 'l%%d' %% i))
open(os.path.join(docs, 'ready'), 'w').close()
end = time.time() + 8
while time.time() < end:
    for i in range(n):
        libc.renameat2(-100, os.path.join(docs, 'd%%d' %% i).encode(), -100, os.path.join(docs, 'l%%d' %% i).encode(), 2)
`, victim)
	done := make(chan struct{})
	go func() {
		defer close(done)
		cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "execute_python_code",
			Arguments: map[string]any{"code": code, "sessionId": st.SessionID, "timeoutMs": 60000}})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if m, _ := filepath.Glob(filepath.Join(home, ".local/state/w365/sessions/*/home/Documents/ready")); len(m) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the swapping call never started")
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second)
	res := e2e.Call(t, cs, "mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": st.SessionID})
	if strings.Contains(e2e.Text(res), "canary") {
		t.Errorf("the end names a file outside the session as kept: %s", e2e.Text(res))
	}
	for _, f := range []string{"canary.fifo", "canary.link", "emptydir", "canary.txt"} {
		if _, err := os.Lstat(filepath.Join(victim, f)); err != nil {
			t.Errorf("the end of the session removed %s outside it: %v", f, err)
		}
	}
	<-done
}

// Attack class 9: a working directory swapped for a link between its check and its
// mount. One session's Python call exchanges a directory of the workspace with a symbolic
// link to a directory outside every root (renameat2 RENAME_EXCHANGE, as fast as it can)
// while another session's calls name that directory as their cwd: the check sees the
// directory, and a mount that looked the path up again would give the call the link's
// target, read-write. No call may write there.
func TestBoundaryCwdSwappedAfterItsCheckIsNotMounted(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	home := h.FakeHome()
	work := filepath.Join(home, "work")
	victim := t.TempDir()
	for _, d := range []string{filepath.Join(work, "x")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(victim, filepath.Join(work, "xl")); err != nil {
		t.Fatal(err)
	}
	cs := h.MCP()
	id, _ := startSession(t, cs)
	stop := swapDirs(t, cs, work, id)
	ran := 0
	for i := range 20 {
		res := e2e.Call(t, cs, "execute_python_code", map[string]any{"code": fmt.Sprintf("open('PWNED-%d', 'w').write('x')", i), "cwd": filepath.Join(work, "x")})
		if !res.IsError {
			ran++
		}
	}
	stop()
	if names := entries(victim); len(names) > 0 {
		t.Errorf("calls whose cwd was checked inside the workspace wrote outside it: %v", names)
	}
	t.Logf("%d of 20 calls ran", ran)
}

// Attack class 10: a call outliving its session. A Python call keeps writing in the
// workspace while its session ends: the end stops it (everything a call started dies
// with the session), so nothing of the session writes after EndSession returned.
func TestBoundaryCallEndsWithItsSession(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	home := h.FakeHome()
	work := filepath.Join(home, "work")
	os.MkdirAll(work, 0o755)
	cs := h.MCP()
	var st struct {
		SessionID string `json:"sessionId"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "mcp_W365ComputerUse_StartSession", map[string]any{}), &st)
	code := `import os, time
end = time.time() + 20
while time.time() < end:
    with open('beat', 'a') as f:
        f.write('.')
    time.sleep(0.05)
`
	done := make(chan struct{})
	go func() {
		defer close(done)
		cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "execute_python_code",
			Arguments: map[string]any{"code": code, "cwd": work, "sessionId": st.SessionID, "timeoutMs": 60000}})
	}()
	beat := filepath.Join(work, "beat")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if fi, err := os.Stat(beat); err == nil && fi.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the call never started")
		}
		time.Sleep(50 * time.Millisecond)
	}
	e2e.Must(t, cs, "mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": st.SessionID})
	before, _ := os.Stat(beat)
	time.Sleep(time.Second) // twenty beats of a call still running
	after, _ := os.Stat(beat)
	t.Logf("beat %d -> %d bytes", before.Size(), after.Size())
	if after.Size() != before.Size() {
		t.Errorf("the call went on writing after its session ended (%d -> %d bytes)", before.Size(), after.Size())
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Error("the call did not return after its session ended")
	}
}

// A wildcard tells nothing of what lies outside the working directory: with a link the
// session made to a root-only directory, `ls */present */absent` expands neither through
// the link (the binary before expanded */present to probe/present, a probe of any host path
// by existence, and left */absent as it was).
func TestWildcardsShowNothingOutsideTheWorkingDirectory(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	home := h.FakeHome()
	outside, err := os.MkdirTemp("", "w365-outside-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	os.WriteFile(filepath.Join(outside, "present"), nil, 0o600)
	cs := h.MCP()
	if out, ok := pyOver(t, cs, "import os\nos.symlink("+strconv.Quote(outside)+", 'probe')\n", filepath.Join(home, "project")); !ok || !out.Success {
		t.Fatalf("making the link: %+v", out)
	}
	res := e2e.Call(t, cs, "execute_shell_command", map[string]any{"command": "ls */present */absent", "cwd": "~/project"})
	if text := e2e.Text(res); strings.Contains(text, "probe/") || !strings.Contains(text, "*/present") {
		t.Errorf("the wildcard went through the link: %s", text)
	}
}

// The git guard cleans the directory the call was shown, whatever its name has become: a
// working directory that another writer of the workspace (a second session, an application
// shown the workspace) renames away and replaces with a link while the call runs keeps no
// hook the call planted. The binary before walked the path after the call, the link's
// target, and left the hook in the renamed directory for the person's next git commit.
func TestBoundaryGitGuardCleansTheDirectoryTheCallWasShown(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "git")
	h := e2e.New(t)
	home := h.FakeHome()
	sub := filepath.Join(home, "project", "sub")
	elsewhere := filepath.Join(home, "project", "elsewhere")
	for _, d := range []string{sub, elsewhere} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cs := h.MCP()
	plant := `import os, subprocess, time
subprocess.run(['git', 'init', '-q', 'r'], check=True)
open('r/.git/hooks/pre-commit', 'w').write('#!/bin/sh\ntouch PWNED\n')
os.chmod('r/.git/hooks/pre-commit', 0o755)
open('started', 'w').close()
for _ in range(600):
    if os.path.exists('go'):
        break
    time.sleep(0.05)
`
	done := make(chan execOut, 1)
	go func() {
		var out execOut
		res := e2e.Call(t, cs, "execute_python_code", map[string]any{"code": plant, "cwd": "~/project/sub", "timeoutMs": 60000})
		if !res.IsError {
			e2e.Structured(t, res, &out)
		}
		done <- out
	}()
	moved := sub + ".moved"
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(filepath.Join(sub, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the call never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := os.Rename(sub, moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, sub); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(moved, "go"), nil, 0o644)
	if out := <-done; !out.Success {
		t.Fatalf("the call: %+v", out)
	}
	if b, err := os.ReadFile(filepath.Join(moved, "r/.git/hooks/pre-commit")); err == nil {
		t.Errorf("the hook the call planted survived in its renamed working directory: %q", b)
	}
}

// Credentials are hidden at any depth of the working directory, not only at its top: with
// the cwd ~/project, ~/project/app/.npmrc and ~/project/app/lib/deep/.ssh/id_ed25519 read
// as empty or not at all. The binary before printed both.
func TestBoundaryCredentialsAnyDepthBelowTheWorkingDirectoryAreHidden(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	home := h.FakeHome()
	for _, f := range []string{"project/app/.npmrc", "project/app/lib/deep/.ssh/id_ed25519"} {
		p := filepath.Join(home, f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(e2e.Canary+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := h.MCP()
	code := `for p in ('app/.npmrc', 'app/lib/deep/.ssh/id_ed25519'):
    try:
        print(p, repr(open(p).read()))
    except OSError as e:
        print(p, e)
`
	out, ok := pyOver(t, cs, code, filepath.Join(home, "project"))
	if !ok || !out.Success {
		t.Fatalf("the call: %+v", out)
	}
	if strings.Contains(out.Stdout, e2e.Canary) {
		t.Errorf("a credential below the working directory was read: %s", out.Stdout)
	}
}

// Dotenv files (.env, .env.local, at any depth) and the other credential files of common
// tools (.pgpass, git's credential store under .config, a registry login under
// .docker and .kube) read as empty or not at all in the working directory, while a
// committed template (.env.example) still reads. The binary before printed the dotenv
// files, .pgpass and .config/git/credentials.
func TestBoundaryDotenvAndToolCredentialsAreHidden(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	home := h.FakeHome()
	secrets := []string{".env", "app/.env.local", "app/lib/.env.production", ".pgpass", ".config/git/credentials",
		".docker/config.json", "app/.kube/config", ".my.cnf", ".vault-token"}
	for _, f := range append(secrets, ".env.example") {
		p := filepath.Join(home, "project", f)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(e2e.Canary+" "+f+"|\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A virtual environment named .env stays usable.
	venv := filepath.Join(home, "project", "tool", ".env", "bin")
	os.MkdirAll(venv, 0o755)
	os.WriteFile(filepath.Join(venv, "activate"), []byte(e2e.Canary+" venv|\n"), 0o644)
	cs := h.MCP()
	names, _ := json.Marshal(append(secrets, ".env.example", "tool/.env/bin/activate"))
	code := fmt.Sprintf(`for p in %s:
    try:
        print(p, repr(open(p).read()))
    except OSError as e:
        print(p, e)
`, names)
	out, ok := pyOver(t, cs, code, filepath.Join(home, "project"))
	if !ok || !out.Success {
		t.Fatalf("the call: %+v", out)
	}
	for _, f := range secrets {
		if strings.Contains(out.Stdout, e2e.Canary+" "+f+"|") {
			t.Errorf("%s was read:\n%s", f, out.Stdout)
		}
	}
	for _, f := range []string{".env.example", "venv"} {
		if !strings.Contains(out.Stdout, e2e.Canary+" "+f+"|") {
			t.Errorf("%s did not read:\n%s", f, out.Stdout)
		}
	}
	res := e2e.Call(t, cs, "execute_shell_command", map[string]any{"command": "grep -r " + e2e.Canary + " .", "cwd": filepath.Join(home, "project")})
	for _, f := range secrets {
		if strings.Contains(e2e.Text(res), e2e.Canary+" "+f+"|") {
			t.Errorf("grep -r read %s: %s", f, e2e.Text(res))
		}
	}
}

// A sandboxed program's output cannot drive the person's terminal: on a terminal, w365 exec
// and py show an escape sequence (a title, OSC 52 clipboard write, clear screen), a lone
// carriage return and a right-to-left override as escapes; into a pipe the bytes pass
// exactly, stderr's too. The binary before wrote them raw to the terminal.
func TestBoundaryExecOutputCannotDriveTheTerminal(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.FakeHome()
	code := `import sys
sys.stdout.write("A\x1b]0;pwned\x07B\x1b]52;c;ZWNobyBwd25lZA==\x07C\x1b[2JD\rE\u202eF\tG\n")
sys.stderr.write("H\x1b[1AI\n")
`
	term := h.RunTerminal("py", code)
	if term.Code != 0 {
		t.Fatalf("py on a terminal: %+v", term)
	}
	for _, s := range []string{"\x1b", "\a", "\u202e", "D\rE"} {
		if strings.Contains(term.Stdout, s) {
			t.Errorf("the terminal got %q raw: %q", s, term.Stdout)
		}
	}
	if want := `A\x1b]0;pwned\aB\x1b]52;c;ZWNobyBwd25lZA==\aC\x1b[2JD\rE\u202eF` + "\tG\n"; !strings.Contains(term.Stdout, want) {
		t.Errorf("the terminal showed %q, want %q in it", term.Stdout, want)
	}
	pipe := h.Run("py", code)
	if pipe.Code != 0 || !strings.HasPrefix(pipe.Stdout, "A\x1b]0;pwned\aB\x1b]52;c;ZWNobyBwd25lZA==\aC\x1b[2JD\rE\u202eF\tG\n") || pipe.Stderr != "H\x1b[1AI\n" {
		t.Errorf("into a pipe the bytes changed: %+v", pipe)
	}
	// --jq prints a string raw, and --json the result's JSON: on a terminal with the same
	// escapes, into a pipe byte for byte.
	for _, flags := range [][]string{{"--jq", ".stdout"}, {"--json"}} {
		term := h.RunTerminal(append(flags, "py", code)...)
		for _, s := range []string{"\x1b", "\a", "\u202e"} {
			if strings.Contains(term.Stdout, s) {
				t.Errorf("%s: the terminal got %q raw: %q", flags[0], s, term.Stdout)
			}
		}
	}
	if pipe := h.Run("--jq", ".stdout", "py", code); !strings.HasPrefix(pipe.Stdout, "A\x1b]0;pwned\aB\x1b]52;c;ZWNobyBwd25lZA==\aC\x1b[2JD\rE\u202eF\tG\n") {
		t.Errorf("--jq into a pipe: the bytes changed: %+v", pipe)
	}
}

// A session plants no program where the host or the person looks programs up. The
// person's PATH (the host's) starts with ~/bin and ~/go/bin, and ~/go/bin holds their
// gopls. The agent writes a tesseract into ~/bin and a gopls over theirs from Python
// (cwd ~/bin, and ~/go, which holds ~/go/bin), copies one over gopls with a launched cp,
// then has the host read the screen (which runs tesseract from PATH). Judged by effect:
// no planted program ran (a canary outside every root), and the person's gopls is theirs.
func TestBoundarySessionPlantsNoProgramOnPATH(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "tesseract")
	h := e2e.New(t)
	home := h.FakeHome()
	for _, d := range []string{"bin", "go/bin", "project"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	gopls := filepath.Join(home, "go", "bin", "gopls")
	const theirs = "#!/bin/sh\necho the person's gopls\n"
	os.WriteFile(gopls, []byte(theirs), 0o755)
	h.SetEnv("PATH", filepath.Join(home, "bin")+":"+filepath.Join(home, "go", "bin")+":"+os.Getenv("PATH"))
	ran := filepath.Join(t.TempDir(), "planted-program-ran")
	evil := "#!/bin/sh\ntouch " + ran + "\nexit 1\n"
	launchAnyWith(t, h, "/usr/bin/cp")
	cs := h.MCP()
	plant := "import os\nfor f in %q:\n    os.makedirs(os.path.dirname(f) or '.', exist_ok=True)\n    open(f, 'w').write(%q)\n    os.chmod(f, 0o755)\n"
	for cwd, files := range map[string]string{"~/bin": "tesseract", "~/go": "bin/gopls", "~/project": "evil"} {
		// May be refused (~/bin, ~/go): the effect judges; ~/project is checked below.
		pyOver(t, cs, fmt.Sprintf(plant, []string{files}, evil), cwd)
	}
	if _, err := os.Stat(filepath.Join(home, "project", "evil")); err != nil {
		t.Fatalf("the session could not write its own project: %v", err)
	}
	// The attack: the launch may be refused or the copy fail; only its effect is judged.
	_ = e2e.Call(t, cs, "launch_application", map[string]any{"path": "/usr/bin/cp",
		"args": []string{filepath.Join(home, "project", "evil"), gopls}})
	time.Sleep(2 * time.Second) // the copy, if cp was shown ~/go/bin
	e2e.Must(t, cs, "analyze_screen", map[string]any{})
	if _, err := os.Stat(ran); err == nil {
		t.Error("the host ran a tesseract the session planted on PATH")
	}
	if b, _ := os.ReadFile(gopls); string(b) != theirs {
		t.Errorf("the person's gopls was replaced by %q", b)
	}
}

// TestBoundaryLaunchRefusalTellsNothingOutsideTheRoots: launch_application's refusal of a
// file argument outside the roots is one whether or not the file exists, and names nothing it
// resolves to. Before, it said "no such file" for ~/.ssh/id_none and "it resolves to
// HOME/.ssh/id_ed25519, which is not under the roots" for the key that exists, and
// /proc/self/cwd "resolves to" the host's working directory (/proc/self/fd/N: the files the
// host holds open).
func TestBoundaryLaunchRefusalTellsNothingOutsideTheRoots(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "mousepad")
	h := e2e.New(t)
	home := h.FakeHome()
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	refusal := func(arg string) string {
		t.Helper()
		r := h.Run("launch-application", "mousepad", "--args="+arg)
		if r.Code == 0 || !strings.Contains(r.Stderr, "launch-arguments") {
			t.Fatalf("mousepad %s: exit %d %s", arg, r.Code, r.Stderr)
		}
		return strings.ReplaceAll(r.Stderr, arg, "ARG")
	}
	key, none := refusal("~/.ssh/id_ed25519"), refusal("~/.ssh/id_none")
	if key != none {
		t.Errorf("the refusals tell a key that exists from one that does not:\n%s\n%s", key, none)
	}
	for _, arg := range []string{"~/.ssh/id_ed25519", "/proc/self/cwd", "/proc/self/root/proc/self/cwd"} {
		if r := refusal(arg); strings.Contains(r, filepath.Join(home, ".ssh")) || strings.Contains(r, cwd) {
			t.Errorf("the refusal of %s names where it leads: %s", arg, r)
		}
	}
}

// TestBoundaryCwdRefusalTellsNothingOutside: a shell call's working directory that the rules
// refuse is refused as given, whether or not it exists, naming nothing it resolves to.
// Before, ~/.ssh (which exists) was "cannot be used: dot-directories ..." and ~/.nothere
// NOT_FOUND, and /proc/self/cwd "cwd <the host's working directory> cannot be used".
func TestBoundaryCwdRefusalTellsNothingOutside(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap")
	h := e2e.New(t)
	home := h.FakeHome()
	cwd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	refusal := func(dir string) string {
		t.Helper()
		r := h.Run("execute-shell-command", "--cwd", dir, "ls")
		if r.Code == 0 {
			t.Fatalf("ls in %s ran: %s", dir, r.Stdout)
		}
		return strings.ReplaceAll(r.Stderr, dir, "DIR")
	}
	for _, pair := range [][2]string{{"/.ssh", "/.nothere"}, {"/.ssh/id_ed25519", "/.ssh/id_none"}} {
		if a, b := refusal(home+pair[0]), refusal(home+pair[1]); a != b {
			t.Errorf("the refusals tell %s, which exists, from %s, which does not:\n%s\n%s", pair[0], pair[1], a, b)
		}
	}
	if r := refusal("/proc/self/cwd"); strings.Contains(r, cwd) {
		t.Errorf("the refusal names the host's working directory: %s", r)
	}
}
