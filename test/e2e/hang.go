//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A call that does not end is a bug whose place a failing run must name: a hang seen once
// in a loaded CI run and never again cannot be found from "did not end within 60 s".
// CallWithin watches a call; when it outlives its bound, HangReport takes the stacks of
// every process on the call's way while they still wait (the test's MCP client, the host,
// the serve --mcp relay between them), before anything (the client's cancellation) ends the wait.

// HungError is a call that did not end within Bound; Report says where it waited.
type HungError struct {
	Bound  time.Duration
	Report string
}

func (e *HungError) Error() string { return fmt.Sprintf("did not end within %s", e.Bound) }

// Unwrap makes a hung call a deadline exceeded, as a call whose context ran out is.
func (e *HungError) Unwrap() error { return context.DeadlineExceeded }

// CallWithin calls tool name over cs, whose serve --mcp process is relay (MCPServer), as
// cs.CallTool does. A call that has not ended after bound gets a HangReport, which stops
// the host, and a *HungError.
func (h *Harness) CallWithin(cs *mcp.ClientSession, relay *exec.Cmd, bound time.Duration, name string, args any) (*mcp.CallToolResult, error) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var report string
	reported := make(chan struct{})
	watch := time.AfterFunc(bound, func() {
		report = h.HangReport(relay)
		cancel() // a client or relay that still waits with the host gone
		close(reported)
	})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if !watch.Stop() {
		<-reported
		return nil, &HungError{Bound: bound, Report: report}
	}
	return res, err
}

// maxStacks bounds each process's part of a HangReport.
const maxStacks = 256 << 10

// HangReport says where a call that does not end waits. It lists the goroutines of this
// test process that run MCP's client, then stops the host with SIGQUIT, on which Go writes
// every goroutine's stack to the host's stderr (host.log for a background host), and gives
// the host's last log lines and its goroutines that run w365, MCP or X code. A relay (the
// client's serve --mcp process, nil for none) still running once the host is gone is
// stopped the same way; its stacks go to its stderr (the test's). The harness's host is gone
// afterwards.
func (h *Harness) HangReport(relay *exec.Cmd) string {
	var b strings.Builder
	buf := make([]byte, 8<<20)
	own := string(buf[:runtime.Stack(buf, true)])
	fmt.Fprintf(&b, "--- this test process's goroutines in the MCP client:\n%s\n", goroutines(own, "modelcontextprotocol/go-sdk"))
	pid := h.HostPID()
	if pid <= 0 || syscall.Kill(pid, syscall.SIGQUIT) != nil {
		fmt.Fprintf(&b, "--- no host runs (host.pid: %d)\n", pid)
	} else {
		waitExit(pid, 10*time.Second)
		// Its pid file stays behind: StopHost must not signal whatever process gets the pid next.
		os.Remove(filepath.Join(h.RuntimeDir, "host.pid"))
		log, err := os.ReadFile(filepath.Join(h.RuntimeDir, "host.log"))
		if err != nil {
			fmt.Fprintf(&b, "--- the host's log: %v\n", err)
		}
		logged, stacks := string(log), ""
		if i := strings.LastIndex(logged, "SIGQUIT: quit"); i >= 0 {
			logged, stacks = logged[:i], logged[i:]
		}
		lines := strings.Split(strings.TrimRight(logged, "\n"), "\n")
		fmt.Fprintf(&b, "--- the host's (pid %d) last log lines:\n%s\n", pid, strings.Join(lines[max(0, len(lines)-40):], "\n"))
		fmt.Fprintf(&b, "--- the host's goroutines in w365, MCP or X code:\n%s\n", goroutines(stacks, "w365/w365/", "modelcontextprotocol/go-sdk", "jezek/xgb"))
	}
	if relay != nil && relay.Process != nil && runsAfter(relay.Process.Pid, 3*time.Second) &&
		syscall.Kill(relay.Process.Pid, syscall.SIGQUIT) == nil {
		fmt.Fprintf(&b, "--- the relay (serve --mcp, pid %d) still ran 3 s after the host had gone: its stacks are on its stderr\n", relay.Process.Pid)
	}
	return b.String()
}

// runsAfter says whether process pid still runs after d (one that exited but is not
// reaped yet does not run).
func runsAfter(pid int, d time.Duration) bool {
	for end := time.Now().Add(d); ; time.Sleep(50 * time.Millisecond) {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		i := strings.LastIndexByte(string(stat), ')')
		if err != nil || i < 0 || len(stat) < i+3 || stat[i+2] == 'Z' {
			return false
		}
		if time.Now().After(end) {
			return true
		}
	}
}

// frameAddrs and registers are what a crash dump (SIGQUIT) adds to each frame and after
// the last goroutine, of no use in a report.
var (
	frameAddrs = regexp.MustCompile(` fp=0x[0-9a-f]+ sp=0x[0-9a-f]+ pc=0x[0-9a-f]+`)
	registers  = regexp.MustCompile(`(?m)^(r[0-9a-z]+|rip|rflags|cs|fs|gs) +0x[0-9a-f]+\n?`)
)

// goroutines are the goroutines of a Go stack dump whose stacks mention one of the
// packages, at most maxStacks bytes of them.
func goroutines(dump string, packages ...string) string {
	dump = registers.ReplaceAllString(frameAddrs.ReplaceAllString(dump, ""), "")
	var kept []string
	size, left := 0, 0
	for _, g := range strings.Split(dump, "\n\ngoroutine ") {
		g = strings.TrimPrefix(strings.TrimSpace(g), "goroutine ")
		if !strings.Contains(g, "\n") || !containsAny(g, packages) {
			continue
		}
		if size += len(g); size > maxStacks {
			left++
			continue
		}
		kept = append(kept, "goroutine "+g)
	}
	if left > 0 {
		kept = append(kept, fmt.Sprintf("(%d more left out)", left))
	}
	if len(kept) == 0 {
		return "(none)"
	}
	return strings.Join(kept, "\n\n")
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
