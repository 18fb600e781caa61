//go:build linux

package e2e_test

import (
	"context"
	"errors"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
)

// A call that outlives its bound says where it waited: the host's goroutine that runs it
// stands in the tool's own code, beside the host's last log lines and the test's MCP client
// waiting for the answer; the host is stopped for it.
func TestHangReportSaysWhereTheHostWaits(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	cs, relay := h.MCPServer(nil, "")
	// The session starts first, so that the call below waits in its tool and nowhere else.
	if r := e2e.Call(t, cs, "get_screen_size", nil); r.IsError {
		t.Fatal(e2e.Text(r))
	}
	pid := h.HostPID()
	// A wait of 4 s outlives a bound of 1 s.
	_, err := h.CallWithin(cs, relay, time.Second, "wait_milliseconds", map[string]any{"ms": 4000})
	var hung *e2e.HungError
	if !errors.As(err, &hung) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a 4 s wait under a bound of 1 s: %v, want a HungError", err)
	}
	for _, want := range []string{
		"w365 host started",                     // the host's log
		"(*Host).toolHandler",                   // the host's goroutine of the call
		"commands/desktop.go:",                  // in wait_milliseconds
		"go-sdk/mcp.(*ClientSession).CallTool(", // the client waiting for its answer
	} {
		if !strings.Contains(hung.Report, want) {
			t.Errorf("the report does not show %q:\n%s", want, hung.Report)
		}
	}
	if syscall.Kill(pid, 0) == nil {
		t.Errorf("the host (pid %d) still runs after the report", pid)
	}
}
