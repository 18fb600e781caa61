//go:build linux

package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
)

// Typing is capped before any key is sent, and a cancelled type_text stops typing and frees the
// session for the next call.
func TestTypingIsCappedAndACancelledTypeTextFreesTheSession(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	cs := agentOnItsSession(t, h)
	p := e2e.StartProbeEnv(t, h.SessionEnvOf("default-agent"))
	// Keys go to the Pad, which takes no text: the app logs each key cheaply, so it keeps up.
	x, y := p.Widget("Pad")
	e2e.Must(t, cs, "click", map[string]any{"x": x, "y": y})
	p.Wait("release", nil, 10*time.Second)
	keys := func(k string) int {
		n := 0
		for _, e := range p.Events() {
			if e["event"] == "key" && e["key"] == k {
				n++
			}
		}
		return n
	}

	// Over the cap: refused, and nothing reaches the app.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"type_text", map[string]any{"text": strings.Repeat("z", 20001)}},
		{"type_text", map[string]any{"text": strings.Repeat("z", 262145), "usePaste": true}},
	} {
		if code := e2e.ErrorCode(e2e.Call(t, cs, c.tool, c.args)); code != "INVALID_ARGUMENT" {
			t.Errorf("%s of %d characters: code %q, want INVALID_ARGUMENT", c.tool, len(c.args["text"].(string)), code)
		}
	}
	// Browser tools are not on by default: their caps are checked on a connection that has them.
	all := h.MCP("--toolsets", "all")
	for _, tool := range []string{"browser_type", "browser_type_ref"} {
		args := map[string]any{"selector": "#q", "snapshotId": "latest", "ref": "e1", "text": strings.Repeat("z", 20001)}
		if tool == "browser_type" {
			delete(args, "snapshotId")
			delete(args, "ref")
		} else {
			delete(args, "selector")
		}
		if code := e2e.ErrorCode(e2e.Call(t, all, tool, args)); code != "INVALID_ARGUMENT" {
			t.Errorf("%s of 20001 characters: code %q, want INVALID_ARGUMENT", tool, code)
		}
	}
	if keys("z") > 0 {
		t.Fatal("a refused call typed into the app")
	}

	// The longest text allowed, cancelled through MCP once typing has begun.
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "type_text", Arguments: map[string]any{"text": strings.Repeat("k", 20000)}})
		done <- err
	}()
	for i := 0; keys("k") < 20; i++ {
		if i > 600 {
			t.Fatal("type_text typed nothing within a minute")
		}
		time.Sleep(100 * time.Millisecond)
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("the cancelled call returned a result")
	}
	// The session answers the next call (its own bound is generous: the call it follows would
	// have typed 20,000 keys) and typing has stopped well short of the text.
	var cur struct{ CursorX, CursorY int }
	e2e.Structured(t, e2e.Call(t, cs, "get_cursor_position", nil), &cur)
	if cur.CursorX != x || cur.CursorY != y {
		t.Errorf("cursor %+v, want (%d, %d)", cur, x, y)
	}
	e2e.Must(t, cs, "wait_milliseconds", map[string]any{"ms": 1000})
	typed := keys("k")
	t.Logf("%d of 20000 keys arrived before the cancel took effect", typed)
	if typed >= 20000 {
		t.Fatalf("typing went on after the cancel: %d characters arrived", typed)
	}
	// And the session still types.
	e2e.Must(t, cs, "type_text", map[string]any{"text": "q"})
	p.Wait("key", func(e e2e.Event) bool { return e["key"] == "q" }, 30*time.Second)
}
