//go:build linux

package e2e_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
)

// The script-facing edges of the CLI against a real host: stdin, exec's status and
// streams, terminal versus pipe output, --jq.
func TestCLIEdgesForScripts(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)

	t.Run("py reads its code from a pipe and from -", func(t *testing.T) {
		r := h.RunInput("", strings.NewReader("print(6*7)\n"), "py")
		if r.Code != 0 || r.Stdout != "42\n" || r.Stderr != "" {
			t.Errorf("echo | w365 py: %+v", r)
		}
		r = h.RunInput("", strings.NewReader("import sys\nprint('to err', file=sys.stderr)\nsys.exit(5)\n"), "py", "-")
		if r.Code != 5 || r.Stdout != "" || r.Stderr != "to err\n" {
			t.Errorf("w365 py -: %+v", r)
		}
	})
	t.Run("clipboard-write - reads stdin and clipboard-read prints the text", func(t *testing.T) {
		r := h.RunInput("", strings.NewReader("from stdin ✓"), "clipboard-write", "-")
		if r.Code != 0 {
			t.Fatalf("clipboard-write -: %+v", r)
		}
		if out := h.MustRun("clipboard-read"); out != "from stdin ✓\n" {
			t.Errorf("clipboard-read printed %q", out)
		}
	})
	t.Run("exec exits with the child's status, stderr apart", func(t *testing.T) {
		r := h.Run("exec", "ls /nonexistent")
		if r.Code != 2 || r.Stdout != "" || !strings.Contains(r.Stderr, "/nonexistent") || strings.Contains(r.Stderr, "[exit") {
			t.Errorf("exec ls /nonexistent: %+v", r)
		}
		if r := h.Run("exec", "ls /"); r.Code != 0 || !strings.Contains(r.Stdout, "usr\n") || r.Stderr != "" {
			t.Errorf("exec ls /: %+v", r)
		}
	})
	t.Run("a table has a header on a terminal and bare rows in a pipe", func(t *testing.T) {
		term := h.RunTerminal("session", "list")
		if term.Code != 0 || !strings.Contains(term.Stdout, "SESSION ID") || !strings.Contains(term.Stdout, "DISPLAY") {
			t.Errorf("on a terminal: %+v", term)
		}
		pipe := h.Run("session", "list")
		if pipe.Code != 0 || strings.Contains(pipe.Stdout, "SESSION ID") || !strings.HasPrefix(pipe.Stdout, "default\t") {
			t.Errorf("in a pipe: %+v", pipe)
		}
	})
	t.Run("--jq picks values out of the result", func(t *testing.T) {
		if out := h.MustRun("--jq", ".width", "get-screen-size"); out != "1920\n" {
			t.Errorf("--jq .width: %q", out)
		}
		if out := h.MustRun("--jq", ".sessions[].sessionId", "session", "list"); out != "default\n" {
			t.Errorf("--jq sessions: %q", out)
		}
	})
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	var out []int
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			n, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
			out = append(out, n)
		}
	}
	return out
}

func TestHostStatusAndStop(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	if r := h.Run("host", "status"); r.Code != 7 || !strings.Contains(r.Stderr, "no w365 host is running") {
		t.Errorf("status without a host: %+v", r)
	}
	h.MustRun("get-screen-size")
	pid := h.HostPID()
	var st struct {
		PID           int
		Build         struct{ Version, Go string }
		UptimeSeconds int64
		Sessions      []struct{ ID, Display string }
		Policy        struct{ FailsafeEnabled bool }
		Endpoints     []string
	}
	h.JSON(&st, "host", "status")
	if st.PID != pid || st.Build.Version == "" || !strings.HasPrefix(st.Build.Go, "go1.") || len(st.Sessions) != 1 || st.Sessions[0].ID != "default" ||
		!st.Policy.FailsafeEnabled || len(st.Endpoints) == 0 || !strings.HasPrefix(st.Endpoints[0], "unix:"+h.RuntimeDir) {
		t.Errorf("host status %+v (pid %d)", st, pid)
	}
	term := h.RunTerminal("host", "status")
	for _, want := range []string{"pid:", "version:", "uptime:", "policy:", "endpoints:", "sessions:   1", "ID", "default"} {
		if !strings.Contains(term.Stdout, want) {
			t.Errorf("host status on a terminal lacks %q:\n%s", want, term.Stdout)
		}
	}
	kids := childrenOf(pid)
	if len(kids) == 0 {
		t.Fatal("the host runs no desktop processes")
	}
	out := h.MustRun("host", "stop")
	if out != "stopped the host (pid "+strconv.Itoa(pid)+")\n" {
		t.Errorf("host stop printed %q", out)
	}
	if syscall.Kill(pid, 0) == nil {
		t.Error("the host still runs after host stop")
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, k := range kids {
		for syscall.Kill(k, 0) == nil && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if syscall.Kill(k, 0) == nil {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(k) + "/cmdline")
			t.Errorf("session process %d (%s) outlived the host", k, b)
		}
	}
}
