package host

import (
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/engine/session"
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

// A paused session is kept used, so that the idle reaper never ends it under a person acting
// on its desktop; resumed, it ages again.
func TestHeldSessionsStayUsed(t *testing.T) {
	defer func(d time.Duration) { keepAliveEvery = d }(keepAliveEvery)
	keepAliveEvery = 20 * time.Millisecond
	h := New(Options{})
	defer h.Stop()
	s := &session.Session{ID: "held"}
	h.Pause(s, byLocal, "mine")
	time.Sleep(200 * time.Millisecond)
	if idle := s.Idle(); idle > 100*time.Millisecond {
		t.Fatalf("a paused session has been idle %s", idle)
	}
	if err := h.Resume(s, byLocal); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond)
	if idle := s.Idle(); idle < 100*time.Millisecond {
		t.Fatalf("a resumed session is still kept used (idle %s)", idle)
	}
	if err := h.Resume(s, byLocal); err == nil {
		t.Fatal("resuming a session that is not paused succeeded")
	}
}
