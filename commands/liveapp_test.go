package commands

import "testing"

// The tools that give an agent a session's live view to show a person, the session start
// and the hand-over, name the live view app as their UI (docs/mcp.md#the-live-view-in-the-chat);
// a build without the hand-over tool checks the start alone.
func TestSessionAndHandOverToolsNameTheLiveViewApp(t *testing.T) {
	for _, name := range []string{StartSession.Name, "hand_over_to_person"} {
		tl := Lookup(name)
		switch {
		case tl == nil && name == StartSession.Name:
			t.Errorf("%s is not registered", name)
		case tl != nil && tl.UI != LiveViewApp:
			t.Errorf("%s: UI %q, want %q", name, tl.UI, LiveViewApp)
		}
	}
}
