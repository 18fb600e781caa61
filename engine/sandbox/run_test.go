//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/w365/w365/test/testenv"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

func writeFixture(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"hello.txt": "hello world\nsecond line\nthird: hello again\n",
		"script.py": "import sys\nargs = sys.argv[1:]\nprint('script ok', args)\n" +
			"if len(args) == 2 and args[0] == '--exit':\n    sys.exit(int(args[1]))\n",
		"script.js":    "console.log('node ok', process.argv.slice(2).join(','));\n",
		"package.json": `{"name": "fixture", "version": "1.0.0", "private": true, "scripts": {"greet": "node script.js greet"}}` + "\n",
		"sub/a.txt":    "alpha\n",
		"sub/b.txt":    "beta\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

type everyday struct {
	line    int
	command string
	exit    int
	stream  string
	re      *regexp.Regexp
}

func loadEveryday(t *testing.T) []everyday {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "exec", "everyday.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []everyday
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		cmd, exp, ok := strings.Cut(line, " => ")
		if !ok {
			t.Fatalf("line %d: no =>", n)
		}
		e := everyday{line: n, command: cmd}
		if strings.HasPrefix(exp, "exit=") {
			v, rest, _ := strings.Cut(strings.TrimPrefix(exp, "exit="), " ")
			e.exit, _ = strconv.Atoi(v)
			exp = rest
		}
		e.stream, exp, _ = strings.Cut(exp, " ")
		e.re = regexp.MustCompile(exp)
		out = append(out, e)
	}
	return out
}

// TestEverydayCorpus runs the everyday commands in order in one scratch directory.
func TestEverydayCorpus(t *testing.T) {
	requireSandbox(t)
	testenv.Require(t, "git", "node", "npm", "cargo", "pip")
	cases := loadEveryday(t)
	if len(cases) < 50 {
		t.Fatalf("corpus has %d commands, want at least 50", len(cases))
	}
	r := NewRunner(policy.Default(), nil)
	defer r.Close()
	dir, err := r.WorkDir()
	if err != nil {
		t.Fatal(err)
	}
	writeFixture(t, dir)
	for _, c := range cases {
		res, err := r.Shell(context.Background(), c.command, "", 60000)
		if err != nil {
			t.Errorf("line %d: %q: %v", c.line, c.command, err)
			continue
		}
		out := res.Stdout
		if c.stream == "stderr" {
			out = res.Stderr
		}
		if res.ExitCode != c.exit || !c.re.MatchString(out) || res.Success != (c.exit == 0) || !res.ResourceLimitsApplied {
			t.Errorf("line %d: %q: exit %d (want %d), %s %q does not match %s; stderr %q; limits %v",
				c.line, c.command, res.ExitCode, c.exit, c.stream, out, c.re, res.Stderr, res.ResourceLimitsApplied)
		}
	}
	t.Logf("%d everyday commands ran", len(cases))
}

func python(t *testing.T, r *Runner, code, cwd string, timeoutMs int) *Result {
	t.Helper()
	res, err := r.Python(context.Background(), code, cwd, timeoutMs)
	if err != nil {
		t.Fatalf("Python: %v", err)
	}
	return res
}

// leftovers lists host processes whose command line contains marker.
func leftovers(marker string) []string {
	var out []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil || e.Name() == strconv.Itoa(os.Getpid()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), marker) {
			out = append(out, e.Name()+": "+strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
	return out
}

func TestPythonBasics(t *testing.T) {
	requireSandbox(t)
	r := NewRunner(nil, nil)
	defer r.Close()
	res := python(t, r, "import os, sys\nprint('hi', os.getcwd() == sys.argv[0] or os.getcwd())\nprint('é€', file=sys.stderr)", "", 0)
	wd, _ := r.WorkDir()
	if !res.Success || res.Stdout != "hi "+wd+"\n" || res.Stderr != "é€\n" || !res.ResourceLimitsApplied {
		t.Errorf("basic run: %+v", res)
	}
	for code, want := range map[string]int{
		"raise SystemExit(7)": 7,
		"1/0":                 1,
		"import os, signal\nos.kill(os.getpid(), signal.SIGKILL)": 137,
		"import sys\nsys.exit(0)":                                 0,
	} {
		res := python(t, r, code, "", 0)
		if res.ExitCode != want || res.Success != (want == 0) {
			t.Errorf("%q: exit %d, want %d (%+v)", code, res.ExitCode, want, res)
		}
	}
	res = python(t, r, "1/0", "", 0)
	if !strings.Contains(res.Stderr, "ZeroDivisionError") || !strings.Contains(res.Stderr, "<code>") {
		t.Errorf("traceback: %q", res.Stderr)
	}
	// A module in the cwd is importable, like python -c.
	if err := os.WriteFile(filepath.Join(wd, "helpermod.py"), []byte("X = 41\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res = python(t, r, "import helpermod\nprint(helpermod.X + 1)", "", 0); res.Stdout != "42\n" {
		t.Errorf("cwd import: %+v", res)
	}
	// Files written by Python are there for the shell, in the same scratch directory.
	python(t, r, "open('made.txt', 'w').write('from python\\n')", "", 0)
	if res, err := r.Shell(context.Background(), "type made.txt", "", 0); err != nil || res.Stdout != "from python\n" {
		t.Errorf("type made.txt: %+v %v", res, err)
	}
}

func TestPythonMemoryLimit(t *testing.T) {
	requireSandbox(t)
	r := NewRunner(nil, nil)
	defer r.Close()
	start := time.Now()
	res := python(t, r, "b = bytearray(1024 * 1024 * 1024)\nprint('allocated', len(b))", "", 20000)
	if res.Success || strings.Contains(res.Stdout, "allocated") || !strings.Contains(res.Stderr, "MemoryError") || res.TimedOut {
		t.Errorf("1 GB allocation: %+v", res)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
	// 300 MB fits in 512 MB.
	res = python(t, r, "b = bytearray(300 * 1024 * 1024)\nprint('allocated', len(b))", "", 20000)
	if !res.Success || !strings.Contains(res.Stdout, "allocated") {
		t.Errorf("300 MB allocation: %+v", res)
	}
}

func TestPythonTimeout(t *testing.T) {
	requireSandbox(t)
	r := NewRunner(nil, nil)
	defer r.Close()
	start := time.Now()
	res := python(t, r, "while True:\n    pass", "", 1500)
	d := time.Since(start)
	if !res.TimedOut || res.Success || d < 1500*time.Millisecond || d > 6*time.Second {
		t.Errorf("endless loop: %+v after %v", res, d)
	}
}

// TestPythonBackgroundKilled: processes that called setsid die with the call, both when
// the program exits and when it times out.
func TestPythonBackgroundKilled(t *testing.T) {
	requireSandbox(t)
	testenv.Require(t, "setsid", "sleep")
	r := NewRunner(nil, nil)
	defer r.Close()
	for i, tail := range []string{"print('started')", "print('started', flush=True)\nimport time\ntime.sleep(60)"} {
		marker := fmt.Sprintf("%d.%d", 300+i, time.Now().UnixNano()%100000)
		code := fmt.Sprintf("import subprocess\nsubprocess.Popen(['setsid', 'sleep', '%s'], start_new_session=True)\n"+
			"subprocess.Popen(['sleep', '%s'])\nimport time\ntime.sleep(0.3)\n%s", marker, marker, tail)
		timeout := 30000 // the first run exits by itself
		if i == 1 {
			timeout = 6000 // the second is stopped at the timeout
		}
		res := python(t, r, code, "", timeout)
		if !strings.Contains(res.Stdout, "started") {
			t.Fatalf("run %d: %+v", i, res)
		}
		if i == 1 && !res.TimedOut {
			t.Errorf("run %d should time out: %+v", i, res)
		}
		time.Sleep(200 * time.Millisecond)
		if l := leftovers("sleep " + marker); len(l) > 0 {
			t.Errorf("run %d: background processes survived: %v", i, l)
		}
	}
}

// TestPythonForkContained: a fork loop hits the pids cgroup limit (root is exempt from
// RLIMIT_NPROC), and a fork bomb is killed at the timeout with nothing left behind.
func TestPythonForkContained(t *testing.T) {
	requireSandbox(t)
	r := NewRunner(nil, nil)
	defer r.Close()
	code := `import os, time
n = 0
try:
    while True:
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        n += 1
except OSError as e:
    print('fork failed after', n, 'errno', e.errno)
`
	res := python(t, r, code, "", 20000)
	m := regexp.MustCompile(`fork failed after (\d+) errno 11`).FindStringSubmatch(res.Stdout)
	if m == nil {
		t.Fatalf("fork loop not stopped by the limit: %+v", res)
	}
	t.Logf("fork loop: %s", strings.TrimSpace(res.Stdout))
	if n, _ := strconv.Atoi(m[1]); n >= MaxProcesses {
		t.Errorf("%d forks succeeded, limit %d", n, MaxProcesses)
	}
	start := time.Now()
	res = python(t, r, "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n", "", 3000)
	if !res.TimedOut || time.Since(start) > 20*time.Second {
		t.Errorf("fork bomb: %+v after %v", res, time.Since(start))
	}
	time.Sleep(200 * time.Millisecond)
	if l := leftovers(codeInSandbox); len(l) > 0 {
		t.Errorf("%d sandboxed processes survived, e.g. %s", len(l), l[0])
	}
}

func TestPythonNetworkBlocked(t *testing.T) {
	requireSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	r := NewRunner(nil, nil)
	defer r.Close()
	code := fmt.Sprintf(`import socket
for host, port in (('127.0.0.1', %d), ('1.1.1.1', 53), ('8.8.8.8', 443)):
    try:
        socket.create_connection((host, port), timeout=3).close()
        print('connected', host)
    except OSError as e:
        print('failed', host, type(e).__name__)
try:
    socket.getaddrinfo('example.com', 80)
    print('resolved')
except OSError as e:
    print('dns failed')
`, port)
	res := python(t, r, code, "", 20000)
	if strings.Contains(res.Stdout, "connected") || strings.Contains(res.Stdout, "resolved") || strings.Count(res.Stdout, "failed") != 4 {
		t.Errorf("network: %+v", res)
	}
	// allowNetwork shares the host network namespace.
	p := policy.Default()
	p.AllowNetwork = true
	r2 := NewRunner(p, nil)
	defer r2.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
		}
	}()
	res = python(t, r2, fmt.Sprintf("import socket\nsocket.create_connection(('127.0.0.1', %d), timeout=5).close()\nprint('connected')", port), "", 20000)
	if res.Stdout != "connected\n" || !contains(res.Limits, "net:host") {
		t.Errorf("allowNetwork: %+v", res)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestPythonWritesConfined(t *testing.T) {
	requireSandbox(t)
	r := NewRunner(nil, nil)
	defer r.Close()
	home, _ := os.UserHomeDir()
	outside := filepath.Join(home, fmt.Sprintf("w365-outside-%d", time.Now().UnixNano()))
	hostTmp := filepath.Join(os.TempDir(), fmt.Sprintf("w365-tmp-%d", time.Now().UnixNano()))
	code := fmt.Sprintf(`import os
for p in (%q, '/etc/w365-test', '/usr/w365-test', '/var/w365-test'):
    try:
        open(p, 'w').write('x')
        print('wrote', p)
    except OSError as e:
        print('refused', p, e.errno)
open('in-cwd.txt', 'w').write('ok')
open(%q, 'w').write('private tmp')
print('tmp ok', open(%q).read())
`, outside, hostTmp, hostTmp)
	res := python(t, r, code, "", 0)
	// HOME is an empty tmpfs inside: a write there succeeds and vanishes with the call.
	if strings.Count(res.Stdout, "refused") != 3 || !strings.Contains(res.Stdout, "tmp ok private tmp") {
		t.Errorf("writes: %+v", res)
	}
	for _, p := range []string{outside, hostTmp, "/etc/w365-test"} {
		if _, err := os.Stat(p); err == nil {
			os.Remove(p)
			t.Errorf("%s was created on the host", p)
		}
	}
	if _, err := os.Stat(filepath.Join(mustWorkDir(t, r), "in-cwd.txt")); err != nil {
		t.Errorf("cwd write missing: %v", err)
	}
}

func mustWorkDir(t *testing.T, r *Runner) string {
	t.Helper()
	d, err := r.WorkDir()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestOutputTruncation(t *testing.T) {
	requireSandbox(t)
	r := NewRunner(nil, nil)
	defer r.Close()
	start := time.Now()
	code := `import sys
chunk = '€' * 100000
for _ in range(70):  # about 21 MB per stream
    sys.stdout.write(chunk)
    sys.stderr.write(chunk)
sys.stdout.flush()
print('done', file=sys.stderr)
`
	res := python(t, r, code, "", 60000)
	d := time.Since(start)
	limit := policy.Default().OutputBytesPerStream
	for name, s := range map[string]string{"stdout": res.Stdout, "stderr": res.Stderr} {
		if len(s) > limit || len(s) < limit-3 || !utf8.ValidString(s) || strings.Trim(s, "€") != "" {
			t.Errorf("%s: %d bytes, valid %v", name, len(s), utf8.ValidString(s))
		}
	}
	if !res.StdoutTruncated || !res.StderrTruncated || !res.Success || res.TimedOut {
		t.Errorf("flags: %+v", res.Success)
	}
	if d > 55*time.Second {
		t.Errorf("took %v", d)
	}
	res = python(t, r, "print('x' * 100)", "", 0)
	if res.StdoutTruncated || res.Stdout != strings.Repeat("x", 100)+"\n" {
		t.Errorf("small output: %+v", res)
	}
}

func TestCapBuffer(t *testing.T) {
	c := &capBuffer{limit: 10}
	for i := 0; i < 5; i++ {
		c.Write([]byte("aé€")) // 1+2+3 bytes
	}
	s, tr := c.result()
	if s != "aé€aé" || !tr {
		t.Errorf("got %q %v", s, tr)
	}
	c = &capBuffer{limit: 10}
	c.Write([]byte("0123456789"))
	if s, tr := c.result(); s != "0123456789" || tr {
		t.Errorf("exact: %q %v", s, tr)
	}
	c = &capBuffer{limit: 10}
	c.Write([]byte{'a', 0xff, 'b'})
	if s, _ := c.result(); s != "a\uFFFDb" {
		t.Errorf("invalid bytes: %q", s)
	}
}

func TestArguments(t *testing.T) {
	r := NewRunner(nil, nil)
	defer r.Close()
	ctx := context.Background()
	if _, err := r.Shell(ctx, "git status", "", 120001); codeOf(err) != werr.InvalidArgument {
		t.Errorf("timeout above max: %v", err)
	}
	if _, err := r.Python(ctx, "pass", "", -1); codeOf(err) != werr.InvalidArgument {
		t.Errorf("negative timeout: %v", err)
	}
	if _, err := r.Python(ctx, strings.Repeat("#", 262145), "", 0); codeOf(err) != werr.InvalidArgument {
		t.Errorf("code too long: %v", err)
	}
	home, _ := os.UserHomeDir()
	for _, cwd := range []string{"/", home, "/tmp", os.TempDir(), "/etc", "/proc/self", filepath.Dir(home)} {
		if _, err := r.Shell(ctx, "ls", cwd, 0); RuleOf(err) != "cwd-forbidden" {
			t.Errorf("cwd %s: %v", cwd, err)
		}
	}
	// A missing directory is NOT_FOUND where it could be used; outside, it is refused as one
	// that exists would be (whether it exists is not told).
	if _, err := r.Shell(ctx, "ls", filepath.Join(home, "w365-missing-dir"), 0); codeOf(err) != werr.NotFound {
		t.Errorf("missing cwd: %v", err)
	}
	if _, err := r.Shell(ctx, "ls", "/nonexistent/dir", 0); RuleOf(err) != "cwd-forbidden" {
		t.Errorf("missing cwd outside the workspace roots: %v", err)
	}
	if _, err := r.Shell(ctx, "ls", "C:/Users/me", 0); codeOf(err) != werr.InvalidArgument {
		t.Errorf("windows cwd: %v", err)
	}
	r2 := NewRunner(nil, []string{"PATH=/nonexistent", "HOME=" + home})
	defer r2.Close()
	if _, err := r2.Shell(ctx, "git status", "", 0); codeOf(err) != werr.NotFound || RuleOf(err) != "program-not-installed" {
		t.Errorf("missing program: %v", err)
	}
}

func TestCwdAndSymlinks(t *testing.T) {
	requireSandbox(t)
	r := NewRunner(nil, nil)
	defer r.Close()
	wd := mustWorkDir(t, r)
	if err := os.MkdirAll(filepath.Join(wd, "real", "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(wd, "real"), filepath.Join(wd, "link")); err != nil {
		t.Fatal(err)
	}
	res, err := r.Python(context.Background(), "import os\nprint(os.getcwd())", "link", 0)
	if err != nil || res.Stdout != filepath.Join(wd, "real")+"\n" {
		t.Errorf("symlinked relative cwd: %+v %v", res, err)
	}
	res, err = r.Shell(context.Background(), "ls", filepath.Join(wd, "link"), 0)
	if err != nil || res.Stdout != "inner\n" {
		t.Errorf("ls in symlinked cwd: %+v %v", res, err)
	}
}

func TestEnvironmentScrubbedInSandbox(t *testing.T) {
	requireSandbox(t)
	env := append(os.Environ(), "NODE_OPTIONS=--require /nonexistent.js", "PYTHONINSPECT=1", "GIT_DIR=/nonexistent",
		"LD_PRELOAD=/nonexistent.so", "npm_config_script_shell=/nonexistent", "BASH_ENV=/nonexistent", "W365_SECRET=x")
	r := NewRunner(nil, env)
	defer r.Close()
	res := python(t, r, "import os\nprint(sorted(k for k in os.environ if k.startswith(('NODE_OPTIONS','PYTHONINSPECT','GIT_DIR','LD_','npm_config_script','BASH_ENV','W365'))))", "", 0)
	if res.Stdout != "[]\n" || res.Stderr != "" {
		t.Errorf("environment: %+v", res)
	}
	if res, err := r.Shell(context.Background(), "node --version", "", 0); err != nil || !res.Success {
		t.Errorf("node with hostile NODE_OPTIONS in the session env: %+v %v", res, err)
	}
}

func TestWithoutBwrap(t *testing.T) {
	testenv.Require(t, "python3")
	r := NewRunner(nil, nil)
	defer r.Close()
	r.noBwrap = true
	before := r.started.Load()
	_, err := r.Python(context.Background(), "print(1)", "", 0)
	if codeOf(err) != werr.Unavailable || RuleOf(err) != "sandbox-unavailable" || r.started.Load() != before {
		t.Fatalf("without bwrap: %v", err)
	}
	p := policy.Default()
	p.AllowUnsandboxed = true
	r2 := NewRunner(p, nil)
	defer r2.Close()
	r2.noBwrap = true
	marker := fmt.Sprintf("%d.%d", 400, time.Now().UnixNano()%100000)
	res := python(t, r2, fmt.Sprintf("import subprocess\nsubprocess.Popen(['setsid', 'sleep', '%s'], start_new_session=True)\nprint('ran')", marker), "", 0)
	if !res.Success || res.Stdout != "ran\n" || res.ResourceLimitsApplied || len(res.Limits) == 0 || res.Limits[0] != "unsandboxed" {
		t.Errorf("unsandboxed: %+v", res)
	}
	if os.Geteuid() == 0 && runCgroupAvailable() {
		time.Sleep(200 * time.Millisecond)
		if l := leftovers("sleep " + marker); len(l) > 0 {
			t.Errorf("unsandboxed background survived the cgroup cleanup: %v", l)
		}
	}
}

func TestCancel(t *testing.T) {
	requireSandbox(t)
	r := NewRunner(nil, nil)
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 700*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := r.Python(ctx, "import time\ntime.sleep(30)", "", 0)
	if codeOf(err) != werr.Cancelled || time.Since(start) > 5*time.Second {
		t.Errorf("cancel: %v after %v", err, time.Since(start))
	}
}

// TestRobocopyAlias: robocopy maps to rsync, local copies only.
func TestRobocopyAlias(t *testing.T) {
	requireSandbox(t)
	testenv.Require(t, "rsync")
	r := NewRunner(nil, nil)
	defer r.Close()
	wd := mustWorkDir(t, r)
	writeFixture(t, wd)
	ctx := context.Background()
	res, err := r.Shell(ctx, "robocopy -a sub/ sub-copy", "", 0)
	if err != nil || !res.Success {
		t.Fatalf("robocopy: %+v %v", res, err)
	}
	if b, err := os.ReadFile(filepath.Join(wd, "sub-copy", "b.txt")); err != nil || string(b) != "beta\n" {
		t.Errorf("copied file: %q %v", b, err)
	}
	if _, err := r.Shell(ctx, "robocopy -a sub/ host:/tmp/x", "", 0); RuleOf(err) != "rsync-remote" {
		t.Errorf("remote robocopy: %v", err)
	}
}

// TestSecretsHidden: HOME is shown through an allow mask (only the cwd and the granted
// toolchain paths), credentials inside the cwd and the runtime directory (host sockets)
// are empty, and a root host's 0600/0640 files stay closed.
func TestSecretsHidden(t *testing.T) {
	requireSandbox(t)
	// Outside /tmp, which is private inside the sandbox; the checkout itself may be
	// under /tmp (CI clones into a temporary directory), so use the home directory.
	userHome, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	base, err := os.MkdirTemp(userHome, "w365-secrets-test-")
	if err != nil {
		t.Fatal(err)
	}
	if base, err = filepath.Abs(base); err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	home := filepath.Join(base, "home")
	runtime := filepath.Join(base, "run")
	project := filepath.Join(home, "project")
	for _, d := range []string{filepath.Join(home, ".ssh"), runtime, project} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for p, body := range map[string]string{
		filepath.Join(home, ".ssh", "id_ed25519"): "PRIVATE KEY",
		filepath.Join(home, "notes.txt"):          "NOTES",
		filepath.Join(project, ".npmrc"):          "//registry.npmjs.org/:_authToken=SECRET",
		filepath.Join(project, "main.txt"):        "visible",
		filepath.Join(runtime, "w365.sock"):       "socket stand-in",
	} {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "HOME="+home, "XDG_RUNTIME_DIR="+runtime)
	r := NewRunner(nil, env)
	defer r.Close()
	code := fmt.Sprintf(`import os
for p in (%q, %q, '.npmrc', 'main.txt', '/etc/shadow'):
    try:
        print(p, repr(open(p).read()))
    except OSError as e:
        print(p, 'error', e.errno)
print('runtime', os.listdir(%q))
`, filepath.Join(home, ".ssh", "id_ed25519"), filepath.Join(home, "notes.txt"), runtime)
	res := python(t, r, code, project, 0)
	if strings.Contains(res.Stdout, "PRIVATE") || strings.Contains(res.Stdout, "SECRET") || strings.Contains(res.Stdout, "NOTES") ||
		strings.Contains(res.Stdout, "root:") || !strings.Contains(res.Stdout, "main.txt 'visible'") || !strings.Contains(res.Stdout, "runtime []") {
		t.Errorf("secrets: %+v", res)
	}
}

// TestNewRepositoryCleaned: a repository the sandbox creates in a workspace keeps what
// git init writes, but a hook or a program-running config it plants is renamed away.
func TestNewRepositoryCleaned(t *testing.T) {
	requireSandbox(t)
	testenv.Require(t, "git")
	userHome, _ := os.UserHomeDir()
	project, err := os.MkdirTemp(userHome, "w365-newrepo-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(project)
	r := NewRunner(nil, nil)
	defer r.Close()
	res, err := r.Shell(context.Background(), "git init -q plain", project, 0)
	if err != nil || !res.Success || len(res.Quarantined) != 0 {
		t.Fatalf("git init: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(project, "plain/.git/config")); !configSafe(b) {
		t.Errorf("git init's own config is judged unsafe:\n%s", b)
	}
	code := `import os, subprocess
subprocess.run(['git', 'init', '-q', 'evil'], check=True)
open('evil/.git/hooks/post-checkout', 'w').write('#!/bin/sh\ntouch PWNED\n')
os.chmod('evil/.git/hooks/post-checkout', 0o755)
with open('evil/.git/config', 'a') as f:
    f.write('[core]\n\tfsmonitor = touch PWNED\n')
`
	res = python(t, r, code, project, 0)
	if !res.Success || len(res.Quarantined) != 2 {
		t.Errorf("planted hook and config: %+v", res)
	}
	for _, p := range []string{"evil/.git/hooks/post-checkout", "evil/.git/config"} {
		if _, err := os.Stat(filepath.Join(project, p)); err == nil {
			t.Errorf("%s is still in place", p)
		}
	}
	// The existing repository is protected the other way: read-only as a whole, so that
	// neither its config, nor a commondir naming another config, nor a rebuilt .git can be
	// written.
	for _, code := range []string{
		"open('plain/.git/config', 'a').write('[core]\\n\\tpager = touch PWNED\\n')",
		"open('plain/.git/commondir', 'w').write('../../evil/.git\\n')",
		"import os; os.rename('plain/.git', 'plain/.git.old')",
		"import os; os.mkdir('plain/.git/hooks/x')",
	} {
		if res = python(t, r, code, project, 0); res.Success {
			t.Errorf("the existing repository was writable (%s): %+v", code, res)
		}
	}
	if _, err := os.Stat(filepath.Join(project, "plain/.git/commondir")); err == nil {
		t.Error("a commondir was written into the existing repository")
	}
}

// TestNewRepositoryCleanedWithoutFollowing: what a run leaves in a repository it creates
// is renamed away by the host without following it: a hooks symbolic link to a directory
// of the person's (whose files stay as they are), a config that is a relative link to a
// credentials file (never read), a FIFO named config (never opened: the host does not
// block), a commondir naming another config, and a .git that is a gitfile.
func TestNewRepositoryCleanedWithoutFollowing(t *testing.T) {
	requireSandbox(t)
	testenv.Require(t, "git")
	userHome, _ := os.UserHomeDir()
	project, err := os.MkdirTemp(userHome, "w365-hostile-repo-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(project)
	keys := filepath.Join(project, "keys")
	if err := os.Mkdir(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(keys, "id_ed25519"), []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(project, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	r := NewRunner(nil, nil)
	defer r.Close()
	code := fmt.Sprintf(`import os, subprocess
for n in ('a', 'b', 'c', 'd'):
    subprocess.run(['git', 'init', '-q', n], check=True)
import shutil
shutil.rmtree('a/.git/hooks')
os.symlink(%q, 'a/.git/hooks')
os.remove('b/.git/config')
os.symlink('../../../keys/id_ed25519', 'b/.git/config')
os.remove('c/.git/config')
os.mkfifo('c/.git/config')
open('d/.git/commondir', 'w').write('../../evil\n')
os.makedirs('e')
open('e/.git', 'w').write('gitdir: ../evil\n')
`, keys)
	done := make(chan *Result, 1)
	go func() { done <- python(t, r, code, work, 0) }()
	var res *Result
	select {
	case res = <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("the run never ended: the host blocked on what it left")
	}
	if !res.Success {
		t.Fatalf("run: %+v", res)
	}
	for _, p := range []string{"a/.git/hooks", "b/.git/config", "c/.git/config", "d/.git/commondir", "e/.git"} {
		if !slices.Contains(res.Quarantined, filepath.Join(work, p)) {
			t.Errorf("%s is not quarantined: %q", p, res.Quarantined)
		}
		if _, err := os.Lstat(filepath.Join(work, p)); err == nil {
			t.Errorf("%s is still in place", p)
		}
	}
	if b, err := os.ReadFile(filepath.Join(keys, "id_ed25519")); err != nil || string(b) != "PRIVATE KEY" {
		t.Errorf("the directory the hooks link named was changed: %q %v", b, err)
	}
	if ents, _ := os.ReadDir(keys); len(ents) != 1 {
		t.Errorf("the directory the hooks link named holds %v", ents)
	}
}
