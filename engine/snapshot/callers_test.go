package snapshot

import (
	"context"
	"fmt"
	"testing"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/werr"
)

// Each caller's latest is its own; a caller's snapshots are bounded, and so is the
// number of callers remembered, the longest silent one forgotten first.
func TestLatestIsPerCaller(t *testing.T) {
	s := NewStore()
	take := func(caller string) string {
		sn := s.begin("doc", caller)
		s.ref(sn, RefTarget{FrameID: "f", LoaderID: "doc", Node: 1, Role: "button", Name: "Submit"})
		s.commit(sn)
		return sn.id
	}
	agent, person := browser.WithCaller(context.Background(), "agent"), browser.WithCaller(context.Background(), "person")
	a := take("agent")
	p := take("person")
	if s.Latest(agent) != a || s.Latest(person) != p {
		t.Fatalf("latest: agent %s person %s, took %s and %s", s.Latest(agent), s.Latest(person), a, p)
	}
	if id, _, _, err := s.ResolveTarget(agent, "", "e1"); err != nil || id != a {
		t.Errorf("the agent's bare e1 resolves to %s (%v), want %s", id, err, a)
	}
	if d := s.Describe(agent, "latest", "e1"); d != `button "Submit"` {
		t.Errorf("describe: %q", d)
	}
	if _, _, _, err := s.ResolveTarget(browser.WithCaller(context.Background(), "other"), "", "e1"); werr.CodeOf(err) != werr.SnapshotExpired {
		t.Errorf("a caller with no snapshot: %v", err)
	}
	for range keepSnapshots + 5 {
		take("person")
	}
	if _, ok := s.snaps[a]; !ok {
		t.Error("the person's snapshots pushed out the agent's")
	}
	for i := range keepCallers - 1 {
		take(fmt.Sprint("c", i))
	}
	if s.Latest(agent) != "" || len(s.latest) != keepCallers {
		t.Errorf("callers remembered: %d, agent's latest %q", len(s.latest), s.Latest(agent))
	}
	n := 0
	for _, id := range s.order {
		if s.snaps[id].caller == "person" {
			n++
		}
	}
	if n != keepSnapshots {
		t.Errorf("the person has %d snapshots, want %d", n, keepSnapshots)
	}
}
