package host

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A hand-over's result carries its one-time link for the person; watch and the trace get
// the summary with the token hidden.
func TestSummariesHideLiveViewTokens(t *testing.T) {
	tok := strings.Repeat("ab12", 16)
	text := "Give the person this one-time link:\nhttp://127.0.0.1:8365/live/s-1/?token=" + tok + "\nCall again."
	var ev CallEvent
	summarize(&mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, &ev)
	if strings.Contains(ev.Summary, tok) || !strings.Contains(ev.Summary, "/live/s-1/?token=‹hidden›") {
		t.Fatalf("summary %q", ev.Summary)
	}
}
