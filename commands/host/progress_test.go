package host

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/w365/w365/commands"
)

// TestClientHearsProgressAndItsQueue: the host's socket client (the CLI's and the REPL's)
// gets progress reports of a long call, and is told when its call waits behind another
// caller's call on the same session.
func TestClientHearsProgressAndItsQueue(t *testing.T) {
	h := testHost(t)
	if err := h.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	go h.Serve(ctx)
	agent := &Client{Opts: ClientOptions{Session: "default", NoStart: true}}
	defer agent.Close()
	if _, err := agent.Call(ctx, commands.GetCursorPosition, nil); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var reports []Progress
	cli := &Client{Opts: ClientOptions{Session: "default", NoStart: true, OnProgress: func(p Progress) {
		mu.Lock()
		reports = append(reports, p)
		mu.Unlock()
	}}}
	defer cli.Close()
	done := make(chan error, 1)
	go func() {
		_, err := agent.Call(ctx, commands.WaitMilliseconds, map[string]any{"ms": 2500})
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	if _, err := cli.Call(ctx, commands.GetCursorPosition, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	first := append([]Progress(nil), reports...)
	reports = nil
	mu.Unlock()
	if len(first) == 0 || !first[0].Queued() || first[0].Elapsed < 900*time.Millisecond ||
		!strings.Contains(first[0].Message, "get_cursor_position: queued behind 1 call(s) on session default") {
		t.Fatalf("progress of a queued call: %+v", first)
	}
	// The agent's call gave no token: it heard nothing, and nothing broke.
	if _, err := cli.Call(ctx, commands.WaitMilliseconds, map[string]any{"ms": 1500}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reports) == 0 {
		t.Fatal("no progress of a 1.5 s call")
	}
	if last := reports[len(reports)-1]; last.Queued() || last.Total != 1500*time.Millisecond || !strings.Contains(last.Message, "wait_milliseconds: running") {
		t.Fatalf("progress of a running call: %+v", last)
	}
}
