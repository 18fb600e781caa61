package host

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// TestCallFromAnotherDisplayIsTold: a CLI call whose DISPLAY is not the display of the
// session it would land on is refused, never run there silently.
func TestCallFromAnotherDisplayIsTold(t *testing.T) {
	h := testHost(t)
	if err := h.Listen(); err != nil {
		t.Fatal(err)
	}
	go h.Serve(context.Background())
	c := &Client{Opts: ClientOptions{Session: "default", NoStart: true, Display: ":4242"}}
	defer c.Close()
	_, err := c.Call(context.Background(), commands.GetScreenSize, nil)
	if e := werr.As(err); e.Code != werr.InvalidArgument || !strings.Contains(e.Message, "not on your DISPLAY :4242") {
		t.Fatalf("a call from another display: %v", err)
	}
}

// TestLocalUserAttachesUnlessThePolicySaysNo: the local user reaches an HTTP principal's
// session by id, and with localAttachAny off gets NOT_FOUND like anyone else.
func TestLocalUserAttachesUnlessThePolicySaysNo(t *testing.T) {
	h := testHost(t)
	ctx := context.Background()
	s, err := h.sessions.Start(ctx, session.StartOptions{Owner: "key:agent"})
	if err != nil {
		t.Fatal(err)
	}
	local := callerHost{h, principal{name: session.LocalPrincipal, local: true}}
	if got, err := local.Session(ctx, s.ID); err != nil || got != s {
		t.Fatalf("the local user cannot attach: %v", err)
	}
	if !slices.ContainsFunc(local.Sessions(), func(i session.Info) bool { return i.ID == s.ID && i.Owner == "key:agent" }) {
		t.Fatal("the local user does not list the agent's session")
	}
	h.policy.LocalAttachAny = false
	if _, err := local.Session(ctx, s.ID); werr.CodeOf(err) != werr.NotFound {
		t.Fatalf("with localAttachAny off: %v", err)
	}
	if len(local.Sessions()) != 0 {
		t.Fatalf("with localAttachAny off the local user lists %+v", local.Sessions())
	}
}
