package host

import (
	"sync"

	"github.com/w365/w365/engine/session"
)

// agentConns hands each agent connection on the host socket or stdio (an MCP client other
// than w365's CLI and REPL) a principal of its own while it is open: the lowest free of
// session.AgentN(1), (2), ... . While the person's own display is the default session and
// the policy's agentActsAsYou is off, that principal is who the connection's calls are
// (principalOf), so each agent gets a confined virtual session of its own and sees no other
// agent's sessions nor the person's; when the connection closes its sessions end
// (docs/sessions.md).
type agentConns struct {
	mu   sync.Mutex
	held map[string]uint64 // principal -> the connection holding it
}

// claim gives connection conn the lowest free agent principal.
func (a *agentConns) claim(conn uint64) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.held == nil {
		a.held = map[string]uint64{}
	}
	for n := 1; ; n++ {
		if name := session.AgentN(n); a.held[name] == 0 {
			a.held[name] = conn
			return name
		}
	}
}

// release frees name, which conn held.
func (a *agentConns) release(name string, conn uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.held[name] == conn {
		delete(a.held, name)
	}
}

// holds says whether conn still holds name: a call that outlives its connection must not
// act in a session that a later connection given the same name now owns.
func (a *agentConns) holds(name string, conn uint64) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.held[name] == conn
}

// agentsApart says whether agent connections are principals of their own: while the
// default session is the person's own display and the policy does not let an agent act as
// the person.
func (h *Host) agentsApart() bool {
	return !h.policy.AgentActsAsYou && h.sessions.DefaultActsAsYou()
}

// agentClosed ends the sessions of an agent connection that closed, then frees its
// principal for the next one (in that order: a later connection never finds them).
func (h *Host) agentClosed(name string, conn uint64) {
	if h.agents.holds(name, conn) {
		if ids := h.sessions.EndOwnedBy(name); len(ids) > 0 {
			h.log.Info("ended the sessions of an agent that disconnected", "agent", name, "ids", ids)
		}
	}
	h.agents.release(name, conn)
}
