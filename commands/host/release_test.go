package host

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestServerInfoNamesTheRelease: an MCP client is told the release and its commit, not the
// build identity client and host compare (which adds the executable's size and time, and
// with the newest protocol rides in every result's _meta).
func TestServerInfoNamesTheRelease(t *testing.T) {
	h := testHost(t)
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := h.mcpServer(ServeOptions{}, false).Connect(ctx, orderedTransport{Transport: st, session: "default"}, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "release-test"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	got := cs.InitializeResult().ServerInfo.Version
	if got != release() || !strings.HasPrefix(Version(), got) || got == Version() {
		t.Errorf("serverInfo.version is %q, want the release %q (the build identity is %q)", got, release(), Version())
	}
}
