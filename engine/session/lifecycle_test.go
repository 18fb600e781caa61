//go:build linux

package session

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

func TestSessionNamesAreValidated(t *testing.T) {
	for _, bad := range []string{"", "../../etc/passwd", "a/b", "nul\x00", "rtl\u202egnp", "-flag", ".hidden",
		"default", "default-1234", "sp ace", strings.Repeat("a", MaxNameLen+1), strings.Repeat("x", 10<<10)} {
		if err := ValidateName(bad); werr.CodeOf(err) != werr.InvalidArgument {
			t.Errorf("ValidateName(%.40q) = %v, want INVALID_ARGUMENT", bad, err)
		}
	}
	for _, good := range []string{"work", "s-1", "A.b_c-9", strings.Repeat("a", MaxNameLen)} {
		if err := ValidateName(good); err != nil {
			t.Errorf("ValidateName(%q) = %v", good, err)
		}
	}
}

func TestGeneratedIDsCarry128RandomBits(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if len(id) != len("s-")+32 || seen[id] {
			t.Fatalf("id %q (len %d) repeated or short", id, len(id))
		}
		seen[id] = true
	}
	for owner, want := range map[string]string{"agent": "default-agent", "agent-2": "default-agent-2", "agent-12": "default-agent-12"} {
		if got := DefaultID(owner); got != want || ValidateName(got) == nil {
			t.Errorf("DefaultID(%q) = %q (a name a person may give: %v), want %q, reserved", owner, got, ValidateName(got) == nil, want)
		}
	}
	for _, owner := range []string{"agent-1", "agent-02", "agentx", "agent-", "key:agent"} {
		if got := DefaultID(owner); strings.HasPrefix(got, "default-agent") {
			t.Errorf("DefaultID(%q) = %q: not an agent connection's principal, it must not take an agent's id", owner, got)
		}
	}
	if DefaultID(LocalPrincipal) != "default" || DefaultID("key:a") == DefaultID("key:b") || !IsDefaultID(DefaultID("key:a")) {
		t.Fatal("default ids do not separate principals")
	}
}

func TestNearestNamesAreCloseOnes(t *testing.T) {
	names := []string{"work", "worker", "default", "s-0123456789abcdef0123456789abcdef"}
	if got := Nearest("worke", names, 3); !slices.Equal(got, []string{"work", "worker"}) {
		t.Errorf("Nearest(worke) = %v", got)
	}
	if got := Nearest("zzzzzz", names, 3); len(got) != 0 {
		t.Errorf("Nearest(zzzzzz) = %v", got)
	}
}

// TestLifecycleRefusesWhatNobodyStarted drives a manager with real virtual desktops:
// unknown ids start nothing, ended and expired ids stay refused, principals see only
// their own sessions, the cap holds, and idle expiry waits for a running call.
func TestLifecycleRefusesWhatNobodyStarted(t *testing.T) {
	testenv.Require(t, "Xvfb", "openbox", "dbus-daemon")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pol := policy.Default()
	pol.MaxSessionsPerPrincipal = 2
	m := NewManager(pol, Options{Screen: desktop.Options{Width: 640, Height: 480, Depth: 24, WindowManager: "openbox"}})
	t.Cleanup(m.Close)
	const alice, bob = "key:alice", "key:bob"

	for _, id := range []string{"nosuch", "s-00000000000000000000000000000000", "default-0000"} {
		if _, err := m.Resolve(ctx, alice, id, false); werr.CodeOf(err) != werr.NotFound {
			t.Errorf("Resolve(%q) = %v, want NOT_FOUND", id, err)
		}
	}
	if n := len(m.List()); n != 0 {
		t.Fatalf("unknown ids started %d sessions", n)
	}

	a, err := m.Start(ctx, StartOptions{Owner: alice})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := m.Resolve(ctx, alice, a.ID, false); err != nil || s != a {
		t.Fatalf("the owner cannot resolve its session: %v", err)
	}
	_, err = m.Resolve(ctx, bob, a.ID, false)
	if werr.CodeOf(err) != werr.NotFound {
		t.Fatalf("another principal resolves alice's session: %v", err)
	}
	if e := werr.As(err); strings.Contains(e.Hint, a.ID) {
		t.Fatalf("bob's hint names alice's session: %q", e.Hint)
	}
	if _, err := m.EndFor(bob, a.ID, false); werr.CodeOf(err) != werr.NotFound {
		t.Fatalf("bob ended alice's session: %v", err)
	}
	if got := m.ListFor(bob, false); len(got) != 0 {
		t.Fatalf("bob lists %+v", got)
	}
	if s, err := m.Resolve(ctx, LocalPrincipal, a.ID, true); err != nil || s != a {
		t.Fatalf("the local user cannot attach: %v", err)
	}
	// A typo gets the owner's nearest name, never another principal's.
	if _, err := m.Resolve(ctx, alice, a.ID[:len(a.ID)-1]+"z", false); !strings.Contains(werr.As(err).Hint, a.ID) {
		t.Errorf("typo hint %q lacks %s", werr.As(err).Hint, a.ID)
	}

	// The cap: alice's default does not count, a second session does, a third is refused.
	if _, err := m.Resolve(ctx, alice, "default", false); err != nil {
		t.Fatal(err)
	}
	a2, err := m.Start(ctx, StartOptions{Owner: alice})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Start(ctx, StartOptions{Owner: alice}); werr.CodeOf(err) != werr.ResourceExhausted {
		t.Fatalf("third session: %v, want RESOURCE_EXHAUSTED", err)
	}

	if _, err := m.EndFor(alice, a2.ID, false); err != nil {
		t.Fatal(err)
	}
	for _, who := range []string{alice, LocalPrincipal} {
		_, err := m.Resolve(ctx, who, a2.ID, who == LocalPrincipal)
		if e := werr.As(err); e.Code != werr.SessionExpired || e.Retryable {
			t.Fatalf("%s resolves an ended id: %v", who, err)
		}
	}
	if _, err := m.Resolve(ctx, bob, a2.ID, false); werr.CodeOf(err) != werr.NotFound {
		t.Fatalf("bob learns of alice's ended session: %v", err)
	}

	// Idle expiry never ends a session with a call running in it.
	ticket := a.Queue.Enter()
	if err := ticket.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	time.Sleep(20 * time.Millisecond)
	if ids := m.EvictIdle(time.Millisecond); slices.Contains(ids, a.ID) {
		t.Fatal("evicted a session during a running call")
	}
	ticket.Done()
	time.Sleep(20 * time.Millisecond)
	if ids := m.EvictIdle(time.Millisecond); !slices.Contains(ids, a.ID) {
		t.Fatalf("idle session not evicted: %v", ids)
	}
	if _, err := m.Resolve(ctx, alice, a.ID, false); werr.CodeOf(err) != werr.SessionExpired {
		t.Fatalf("expired id: %v", err)
	}
	// A person's name comes back only by an explicit start.
	if _, err := m.Start(ctx, StartOptions{Owner: LocalPrincipal, Name: "work"}); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Start(ctx, StartOptions{Owner: LocalPrincipal, Name: "work"}); werr.CodeOf(err) != werr.InvalidArgument {
		t.Fatalf("second start of a running name: %v", err)
	}
	m.End("work")
	if _, err := m.Resolve(ctx, LocalPrincipal, "work", true); werr.CodeOf(err) != werr.SessionExpired {
		t.Fatalf("ended name: %v", err)
	}
	if _, err := m.Start(ctx, StartOptions{Owner: LocalPrincipal, Name: "work"}); err != nil {
		t.Fatalf("restart of an ended name: %v", err)
	}
}

func TestTombstonesAreBounded(t *testing.T) {
	ts := newTombstones(3)
	for _, id := range []string{"a", "b", "c", "d"} {
		ts.add(&tombstone{id: id})
	}
	if _, ok := ts.get("a"); ok || len(ts.order) != 3 || len(ts.byID) != 3 {
		t.Fatalf("tombstones %v", ts.order)
	}
}
