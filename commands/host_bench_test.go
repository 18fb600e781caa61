package commands

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/engine/display"
	"github.com/w365/w365/engine/display/displaytest"
	"github.com/w365/w365/engine/session"
)

// BenchmarkWarmCallInProcess measures what the host adds to a call: an MCP client on
// an in-memory transport calling get_cursor_position on a real virtual desktop, with
// the same ordering wrapper, validation, session queue and result encoding as the
// socket and stdio front-ends (but without their process hops).
func BenchmarkWarmCallInProcess(b *testing.B) {
	displaytest.Require(b, "Xvfb", "openbox", "dbus-daemon")
	os.Setenv("W365_RUNTIME_DIR", b.TempDir())
	h := NewHost(HostOptions{Sessions: session.Options{Virtual: true, Screen: display.DefaultOptions()},
		Log: slog.New(slog.DiscardHandler)})
	defer h.Stop()
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := h.mcpServer(ServeOptions{}).Connect(ctx, orderedTransport{Transport: st, session: "default"}, nil); err != nil {
		b.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	call := func() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_cursor_position"})
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res)
		}
	}
	call() // starts the session's desktop
	b.ResetTimer()
	for range b.N {
		call()
	}
}
