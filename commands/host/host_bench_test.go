package host

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/test/testenv"
)

// testHost is a host whose sessions run on virtual desktops, with its own runtime
// directory; it stops when the test ends.
func testHost(tb testing.TB) *Host {
	if err := session.VirtualUnsupported(); err != nil {
		testenv.Missing(tb, "virtual desktops ("+err.Error()+")")
	}
	testenv.Require(tb, "Xvfb", "openbox", "dbus-daemon")
	dir := filepath.Join(tb.TempDir(), "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	tb.Setenv("W365_RUNTIME_DIR", dir)
	h := New(Options{Sessions: session.Options{Virtual: true, Screen: desktop.DefaultOptions()},
		Log: slog.New(slog.DiscardHandler)})
	tb.Cleanup(h.Stop)
	return h
}

// BenchmarkWarmCallInProcess measures what the host adds to a call: an MCP client on
// an in-memory transport calling get_cursor_position on a real virtual desktop, with
// the same ordering wrapper, validation, session queue and result encoding as the
// socket and stdio front-ends (but without their process hops).
func BenchmarkWarmCallInProcess(b *testing.B) {
	h := testHost(b)
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := h.mcpServer(ServeOptions{}, false).Connect(ctx, orderedTransport{Transport: st, session: "default"}, nil); err != nil {
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

// BenchmarkOneShotSocketCall measures a one-shot CLI call's socket part, client and host in
// one process: a fresh connection per call (hello and call in one write), get_cursor_position,
// the answer decoded, the connection closed. Allocations are the host's and the client's.
func BenchmarkOneShotSocketCall(b *testing.B) {
	h := testHost(b)
	if err := h.Listen(); err != nil {
		b.Fatal(err)
	}
	go h.Serve(context.Background())
	call := func() {
		c := &Client{Opts: ClientOptions{NoStart: true}}
		if _, err := c.Call(context.Background(), commands.GetCursorPosition, nil); err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
	call() // starts the session's desktop
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		call()
	}
}
