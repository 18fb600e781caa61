//go:build linux

package e2e_test

import (
	"strings"
	"testing"

	"github.com/w365/w365/test/e2e"
)

// On a host without DISPLAY (a server, CI, a container: the person's default session is a
// virtual desktop too) every agent connection was the local user: two agents shared that
// default session and reached each other's sessions and the person's, and every HTTP
// principal's. With the binary before, the second agent read what the first had copied
// ("agent-one-secret" from clipboard_read), listed the person's session and acted on it.
// Now each agent is a principal of its own there too, as on the person's display
// (TestConfineAgentsAreApart): its default is a virtual session of its own, the other's and
// the person's are NOT_FOUND, and the person still reaches both by id.
func TestAgentsAreApartOnAHeadlessHost(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.FakeHome()
	h.MustRun("session", "start", "mine") // a background host without DISPLAY, and a session of the person's
	first, second := h.MCP(), h.MCP()
	e2e.Must(t, first, "clipboard_write", map[string]any{"text": "agent-one-secret"})
	res := e2e.Call(t, second, "clipboard_read", nil)
	if res.IsError || strings.Contains(e2e.Text(res), "agent-one-secret") {
		t.Errorf("the second agent's clipboard_read: %s, want its own (empty) clipboard", e2e.Text(res))
	}
	for _, id := range []string{"default-agent", "mine"} {
		res := e2e.Call(t, second, "get_screen_size", map[string]any{"sessionId": id})
		if !res.IsError || !strings.Contains(e2e.Text(res), "NOT_FOUND") {
			t.Errorf("the second agent naming %s: %s, want NOT_FOUND", id, e2e.Text(res))
		}
	}
	if list := e2e.Text(e2e.Call(t, second, "list_sessions", nil)); strings.Contains(list, "mine") || strings.Contains(list, "default-agent ") {
		t.Errorf("the second agent lists sessions not its own:\n%s", list)
	}
	if out := h.MustRun("--session", "default-agent", "clipboard-read"); !strings.Contains(out, "agent-one-secret") {
		t.Errorf("the person attaching to the first agent's session reads %q", out)
	}
}
