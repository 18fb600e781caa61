package host

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/proc"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// principal is who is calling: the local user on the host socket and stdio (an agent
// connection there is one of its own, agents.go), or over HTTP the owner of an API key
// ("key:NAME"), the subject of an OAuth token ("oauth:SUB"), or, on a loopback server
// without authentication, one anonymous caller.
type principal struct {
	name  string
	local bool
	// agent marks an agent connection's own principal: local, but it reaches its own
	// sessions only.
	agent bool
}

const anonymousPrincipal = "http:anonymous"

// principalOf is the caller of a request with extra. remote says the request came over
// HTTP, where only what the authentication middleware verified (the token info) names a
// caller: no header or argument a client sends can make it the local user. On the socket
// and stdio, only the host's own transport stamps an agent connection's principal.
func (h *Host) principalOf(extra *mcp.RequestExtra, remote bool) principal {
	if !remote {
		if extra != nil && extra.Header.Get(hdrAgent) != "" && h.agentsApart() {
			return principal{name: extra.Header.Get(hdrAgent), local: true, agent: true}
		}
		return principal{name: session.LocalPrincipal, local: true}
	}
	if extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
		return principal{name: extra.TokenInfo.UserID}
	}
	return principal{name: anonymousPrincipal}
}

// anyOwner says whether p may use every principal's sessions: the local user may, to
// watch and drive what an agent does, unless the policy says otherwise; an agent
// connection may not.
func (h *Host) anyOwner(p principal) bool { return p.local && !p.agent && h.policy.LocalAttachAny }

// callerHost is the tool.Host one call sees: the host's services on behalf of p.
type callerHost struct {
	h *Host
	p principal
}

var _ tool.Host = callerHost{}

func (c callerHost) Sessions() []session.Info {
	list := c.h.sessions.ListFor(c.p.name, c.h.anyOwner(c.p))
	for i := range list {
		if s, ok := c.h.sessions.Lookup(list[i].ID); ok {
			list[i].LiveViewURL = c.h.liveViewURL(s)
		}
	}
	return list
}

func (c callerHost) StartSession(ctx context.Context, name string, idle time.Duration) (*session.Session, error) {
	if name != "" && !c.p.local {
		// Names share one space: a taken name would tell one principal of another's session.
		return nil, werr.Invalid("only the local user names sessions; call without a name for a generated id")
	}
	if name == "" && !c.p.local {
		// Behind a router, the id names the host that holds the session.
		name = c.h.routedID()
	}
	return c.h.sessions.Start(ctx, session.StartOptions{Owner: c.p.name, Name: name, IdleLimit: idle})
}

func (c callerHost) Session(ctx context.Context, id string) (*session.Session, error) {
	return c.h.sessions.Resolve(ctx, c.p.name, id, c.h.anyOwner(c.p))
}

func (c callerHost) EndSession(id string) ([]string, error) {
	return c.h.sessions.EndFor(c.p.name, id, c.h.anyOwner(c.p))
}

// ProtectedPIDs are every session's desktop processes, the host and its parents.
func (c callerHost) ProtectedPIDs() []int {
	return append(c.h.sessions.PIDs(), proc.HostPIDs()...)
}

func (c callerHost) Browser() tool.BrowserConfig {
	cfg := c.h.opts.Browser
	c.h.httpOriginsMu.Lock()
	cfg.HostOrigins = slices.Sorted(maps.Keys(c.h.httpOrigins))
	c.h.httpOriginsMu.Unlock()
	return cfg
}

// PrivateDirs is the host's runtime directory (socket, log, sessions, profiles).
func (c callerHost) PrivateDirs() []string {
	if dir, err := RuntimeDir(); err == nil {
		return []string{dir}
	}
	return nil
}

func (c callerHost) LiveViewURL(s *session.Session) string { return c.h.liveViewURL(s) }

// MetaDisplay in a call's _meta is the caller's display (session.UserDisplay), sent by the
// CLI and the REPL when the user named no session: a call must not land silently on
// another display. The session decides whether it names the session's desktop.
const MetaDisplay = "w365/display"

// callSession picks, checks and resolves the session a call of t runs in.
func (h *Host) callSession(ctx context.Context, req *mcp.CallToolRequest, t *tool.Tool, args map[string]any, p principal) (*session.Session, error) {
	bs, _ := args["browserSessionId"].(string)
	sid, _ := args["sessionId"].(string)
	if bs != "" && sid != "" && bs != sid {
		return nil, werr.Invalid("sessionId %q and browserSessionId %q name different sessions; pass one", sid, bs)
	}
	if !p.local && isBrowserTool(t) && bs == "" {
		// Over HTTP every browser tool names its browser session: there is no shared default.
		return nil, werr.Invalid("%s over HTTP needs browserSessionId", t.Name).
			WithHint("call create_browser_session first and pass its browserSessionId").WithDetail("parameter", "browserSessionId")
	}
	if p.agent {
		conn, _ := strconv.ParseUint(req.Extra.Header.Get(hdrConn), 10, 64)
		if !h.agents.enter(p.name, conn) {
			return nil, werr.New(werr.Cancelled, "the connection of this call closed")
		}
		defer h.agents.leave(conn)
	}
	// An agent connection's "default" is its own confined virtual session, not the
	// person's desktop (agents.go, docs/security.md#confinement).
	s, err := h.sessions.Resolve(ctx, p.name, sessionName(req, args), h.anyOwner(p))
	if err != nil {
		return nil, err
	}
	if d, _ := req.Params.Meta[MetaDisplay].(string); d != "" && p.local && !s.OnDisplay(d) {
		return nil, werr.Invalid("session %q is on display %s, not on your DISPLAY %s", s.ID, s.Desktop.Name(), d).
			WithHint("name the session with --session to act on it anyway, or run with W365_RUNTIME_DIR set to a directory of your own for a host on your display")
	}
	return s, nil
}

// SessionHeader is the header a 2026-07-28 client sends a call's session in
// (Mcp-Param-Session: the x-mcp-header of sessionId and browserSessionId), so that a
// router can send it to the pod of that session without reading the body.
const SessionHeader = "Mcp-Param-" + sessionHeaderName

const sessionHeaderName = "Session"

// remoteSchema is the input schema HTTP clients see of t: browserSessionId required for a
// browser tool (over HTTP it must be given), so that a client following the schema sends
// it, and the session parameter marked x-mcp-header, so that a client sends it as a header
// too. A tool declares one of the two (both name the same sessions); the header goes on
// the first of browserSessionId and sessionId it has.
func remoteSchema(t *tool.Tool, mt *mcp.Tool) {
	in, ok := mt.InputSchema.(*jsonschema.Schema)
	if !ok {
		return
	}
	cp := *in
	if isBrowserTool(t) && in.Properties["browserSessionId"] != nil && !slices.Contains(in.Required, "browserSessionId") {
		cp.Required = append(slices.Clone(in.Required), "browserSessionId")
	}
	if name := headerParam(in); name != "" {
		p := in.Properties[name]
		hp := *p
		hp.Extra = maps.Clone(p.Extra)
		if hp.Extra == nil {
			hp.Extra = map[string]any{}
		}
		hp.Extra["x-mcp-header"] = sessionHeaderName
		cp.Properties = maps.Clone(in.Properties)
		cp.Properties[name] = &hp
	}
	mt.InputSchema = &cp
}

// headerParam is the session parameter of the input schema in that travels as
// SessionHeader: browserSessionId, else sessionId, "" when it has neither.
func headerParam(in *jsonschema.Schema) string {
	for _, name := range []string{"browserSessionId", "sessionId"} {
		if p := in.Properties[name]; p != nil && p.Type == "string" {
			return name
		}
	}
	return ""
}

// isBrowserTool says whether t acts on a session's browser: the tools that need
// browserSessionId over HTTP.
func isBrowserTool(t *tool.Tool) bool { return strings.HasPrefix(t.Name, "browser_") }
