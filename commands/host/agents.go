package host

import (
	"sync"

	"github.com/w365/w365/engine/session"
)

// agentConns hands each agent connection on the host socket or stdio (an MCP client other
// than w365's CLI and REPL) a principal of its own while it is open: the lowest free of
// session.AgentN(1), (2), ... . Unless the policy's agentActsAsYou is on, that principal is
// who the connection's calls are (principalOf), so each agent gets a confined virtual session
// of its own and sees no other agent's sessions nor the person's, whether the person's default
// session is their own display or a virtual one (a host without DISPLAY, --virtual); when the
// connection closes its sessions end (docs/sessions.md).
type agentConns struct {
	mu   sync.Mutex
	cond sync.Cond
	held map[string]uint64 // principal -> the connection holding it
	// resolving counts, per connection, the calls finding or starting its session now;
	// closing marks a connection that closed: it starts no more.
	resolving map[uint64]int
	closing   map[uint64]bool
}

// claim gives connection conn the lowest free agent principal.
func (a *agentConns) claim(conn uint64) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.held == nil {
		a.held, a.resolving, a.closing = map[string]uint64{}, map[uint64]int{}, map[uint64]bool{}
		a.cond.L = &a.mu
	}
	for n := 1; ; n++ {
		if name := session.AgentN(n); a.held[name] == 0 {
			a.held[name] = conn
			return name
		}
	}
}

// enter lets a call of conn find or start the session of name, unless conn closed (then
// its principal may be another connection's by now); leave ends that.
func (a *agentConns) enter(name string, conn uint64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.held[name] != conn || a.closing[conn] {
		return false
	}
	a.resolving[conn]++
	return true
}

func (a *agentConns) leave(conn uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.resolving[conn]--; a.resolving[conn] <= 0 {
		delete(a.resolving, conn)
	}
	a.cond.Broadcast()
}

// agentsApart says whether agent connections are principals of their own: wherever virtual
// sessions can be made, unless the policy lets an agent act as the person. A virtual default
// session (no DISPLAY, --virtual) is no reason to share:
// agents on one principal would reach each other's desktops, clipboards, browsers and
// sessions, and every HTTP principal's (TestAgentsAreApartOnAHeadlessHost).
func (h *Host) agentsApart() bool {
	return !h.policy.AgentActsAsYou && session.VirtualUnsupported() == nil
}

// agentClosed ends the sessions of an agent connection that closed, once none of its calls
// is still starting one, and frees its principal for the next connection as soon as they
// are out of reach (in that order: a later connection never finds them).
func (h *Host) agentClosed(name string, conn uint64) {
	a := &h.agents
	a.mu.Lock()
	if a.held[name] != conn {
		a.mu.Unlock()
		return
	}
	a.closing[conn] = true
	for a.resolving[conn] > 0 {
		a.cond.Wait()
	}
	a.mu.Unlock()
	ids := h.sessions.EndOwnedBy(name, func() {
		a.mu.Lock()
		delete(a.held, name)
		delete(a.closing, conn)
		a.mu.Unlock()
	})
	if len(ids) > 0 {
		h.log.Info("ended the sessions of an agent that disconnected", "agent", name, "ids", ids)
	}
}
