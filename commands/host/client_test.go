package host

import (
	"context"
	"testing"
	"time"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/werr"
)

// The CLI's client over a real host socket: a cancelled call is cancelled on the host
// too (it does not hold the session's queue), and the same client then reconnects.
func TestClientCancelsACallOnTheHost(t *testing.T) {
	h := testHost(t)
	if err := h.Listen(); err != nil {
		t.Fatal(err)
	}
	go h.Serve(context.Background())

	c := &Client{Opts: ClientOptions{NoStart: true}}
	defer c.Close()
	wait := commands.WaitMilliseconds
	if _, err := c.Call(context.Background(), wait, map[string]any{"ms": 0}); err != nil {
		t.Fatal(err) // also starts the session
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := c.Call(ctx, wait, map[string]any{"ms": 5000}); werr.CodeOf(err) != werr.Cancelled {
		t.Fatalf("cancelled call: %v, want CANCELLED", err)
	}
	o, err := c.Call(context.Background(), wait, map[string]any{"ms": 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := o.Out.(*commands.WaitOut).WaitedMs; got != 1 {
		t.Errorf("second call waited %d ms", got)
	}
	// Had the host run the 5 s wait to its end, the second call would have queued behind it.
	if d := time.Since(start); d > 4*time.Second {
		t.Errorf("the cancelled wait held the session for %v", d)
	}
	// An unknown tool name is refused by the host with a JSON-RPC error, not a hang.
	if _, err := c.Call(context.Background(), &tool.Tool{Name: "no_such_tool"}, nil); err == nil {
		t.Error("a call of an unknown tool succeeded")
	}
}
