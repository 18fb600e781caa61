package host

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/snapshot"
	"github.com/w365/w365/engine/werr"
)

// The host's call observers: every tool call, from any front-end, is published as a
// start and an end event on its session. `w365 watch` and the REPL print them live;
// the action trace records them. Observers never slow a call down: a subscriber
// that falls behind loses events (and is told so), never blocks the publisher.

// CallEvent is one call's start or end as observers see it.
type CallEvent struct {
	// Phase is "start" (the call arrived) or "end" (it answered).
	Phase string    `json:"phase"`
	ID    uint64    `json:"id"`
	Time  time.Time `json:"time"`
	// Session is the session the call runs in ("" for sessionless tools that name none).
	Session string `json:"session"`
	Tool    string `json:"tool"`
	// Principal is who called: "local" for the socket and stdio, the API key's name
	// over HTTP when known.
	Principal string `json:"principal"`
	// Frontend is the client program: w365-cli, w365-repl, or the MCP client's name.
	Frontend string `json:"frontend"`
	// Client tells one client connection from another (a REPL skips its own calls).
	Client string `json:"client,omitempty"`
	// Args are the arguments redacted by the one rule of records (redact.go): at the
	// start typed text and page code show only their length; at the end what went into
	// no password field is shown again.
	Args map[string]any `json:"args,omitempty"`
	// Shown (end events) are the arguments shown now that were hidden at the start:
	// typed text the page says went into no password field.
	Shown map[string]any `json:"shown,omitempty"`
	// Refs name the elements the call's refs stand for, as the caller's snapshot
	// knows them: {"e4": "button \"Submit\""}.
	Refs     map[string]string `json:"refs,omitempty"`
	ReadOnly bool              `json:"readOnly"`
	// QueuedMs is how long the call waited for its session (behind other calls);
	// DurationMs is how long it ran after that.
	QueuedMs   int64  `json:"queuedMs,omitempty"`
	DurationMs int64  `json:"durationMs,omitempty"`
	Summary    string `json:"summary,omitempty"`
	// ExitCode is the exit status of a shell or Python call.
	ExitCode *int        `json:"exitCode,omitempty"`
	TimedOut bool        `json:"timedOut,omitempty"`
	Error    *werr.Error `json:"error,omitempty"`
	// CorrelationID ties an error to its line in host.log.
	CorrelationID string `json:"correlationId,omitempty"`
	// Person (phase "person") names what a person did, or what became of a hand-over:
	// handover-opened, handed-back, handover-timed-out, handover-cancelled, paused, resumed;
	// By is who did it (local user, live view), Summary the reason or note.
	Person string `json:"person,omitempty"`
	By     string `json:"by,omitempty"`
	// Dropped counts events this subscriber lost by falling behind.
	Dropped int `json:"dropped,omitempty"`
	// Approval is an approval's step (phase "approval": asked, then the decision; approval.go).
	Approval *ApprovalEvent `json:"approval,omitempty"`
}

// MetaClient in a call's _meta identifies the client connection (the REPL sets it).
const MetaClient = "w365/client"

type subscriber struct {
	session string // "" for every session
	ch      chan CallEvent
	dropped int
	// approver: a person who can answer the session's approvals watches (REPL, watch on a terminal).
	approver bool
}

type hub struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	nextID atomic.Uint64
}

// subscribe returns the events of session ("" for all) until cancel is called;
// approver says a person who can answer approvals watches.
func (b *hub) subscribe(session string, approver bool) (<-chan CallEvent, func()) {
	s := &subscriber{session: session, ch: make(chan CallEvent, 256), approver: approver}
	b.mu.Lock()
	if b.subs == nil {
		b.subs = map[*subscriber]struct{}{}
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s.ch, func() {
		b.mu.Lock()
		if _, ok := b.subs[s]; ok {
			delete(b.subs, s)
			close(s.ch)
		}
		b.mu.Unlock()
	}
}

// watched says whether anyone subscribes to session's events.
func (b *hub) watched(session string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		if s.session == "" || s.session == session {
			return true
		}
	}
	return false
}

// approvers says whether a person who can answer approvals watches session.
func (b *hub) approvers(session string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		if s.approver && (s.session == "" || s.session == session) {
			return true
		}
	}
	return false
}

func (b *hub) publish(ev CallEvent) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs {
		if s.session != "" && s.session != ev.Session {
			continue
		}
		e := ev
		e.Dropped = s.dropped
		select {
		case s.ch <- e:
			s.dropped = 0
		default:
			s.dropped++
		}
	}
}

// Subscribe gives the call events of a session ("" for every session); cancel ends it.
func (h *Host) Subscribe(session string) (<-chan CallEvent, func()) {
	return h.calls.subscribe(session, false)
}

// observed wraps a tool handler so that each call is published and, when the
// session is traced, recorded. It marks the call's context with its caller, whose
// own tab the call acts on and whose own "latest" snapshot it reads and sets
// (engine/browser/callers.go, engine/snapshot), and with a clock
// that the handler stops when the call leaves its session's queue.
func (h *Host) observed(t *tool.Tool, remote bool, next mcp.ToolHandler) mcp.ToolHandler {
	if t.Sessionless {
		// Session management and host queries act in no session (and the REPL's status
		// line asks after every line): they would only be noise in a session's calls.
		return next
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args map[string]any
		if raw := req.Params.Arguments; len(raw) > 0 {
			json.Unmarshal(raw, &args)
		}
		p := h.principalOf(req.Extra, remote)
		front := frontendOf(req)
		ctx = browser.WithCaller(ctx, callerOf(req, p, front))
		ctx = withCall(ctx, req, time.Now())
		clock := &callClock{}
		ctx = context.WithValue(ctx, callClockKey{}, clock)
		ev := CallEvent{
			Phase: "start", ID: h.calls.nextID.Add(1), Time: time.Now(),
			Session: h.recordedSession(p, sessionName(req, args)), Tool: t.Name,
			Principal: p.name, Frontend: front, Client: clientOf(req),
			ReadOnly: t.Annotations.ReadOnly == tool.Yes,
		}
		hideAll := !h.policy.RecordTypedText
		ev.Args, _ = redact(t, args, nil, hideAll)
		ev.Refs = h.describeRefs(ctx, ev.Session, args)
		ctx = context.WithValue(ctx, callIDKey{}, ev.ID)
		h.calls.publish(ev)
		res, err := next(ctx, req)
		end := ev
		end.Phase = "end"
		now := time.Now()
		end.Time = now
		end.DurationMs = now.Sub(ev.Time).Milliseconds()
		if q := clock.queued(ev.Time); q > 0 {
			end.QueuedMs = q.Milliseconds()
			end.DurationMs -= end.QueuedMs
		}
		if res != nil {
			summarize(res, &end)
			end.Summary = recordedSummary(t.Name, args, end.Summary)
		}
		if err != nil && end.Error == nil {
			end.Error = werr.As(err)
		}
		tr := h.traces.get(ev.Session)
		if asksPage(t.Name) {
			var pg *pageState
			if t.Name != "type_text" && end.Error == nil && ev.Session != "" && (tr != nil || h.calls.watched(ev.Session)) {
				// What the page says went into its password fields decides what is shown.
				// Only after a call that succeeded: a failed one may never have reached the
				// browser, and asking would start it.
				pg = h.pageFields(ctx, ev.Session)
			}
			var hidden []string
			end.Args, hidden = redact(t, args, pg, hideAll)
			scrub(&end, hidden, pg)
			for k, v := range end.Args {
				a, _ := json.Marshal(v)
				b, _ := json.Marshal(ev.Args[k])
				if string(a) != string(b) {
					if end.Shown == nil {
						end.Shown = map[string]any{}
					}
					end.Shown[k] = v
				}
			}
		}
		if tr != nil {
			h.traces.record(ctx, h, tr, t, end, ev.Time, res)
		}
		h.calls.publish(end)
		return res, err
	}
}

// recordedSession is the session whose watch and trace show a call of p that names
// session name: p's own default for "default" (each principal's is a session of its own),
// the named session when p may use it, else none: a call naming another principal's
// session fails NOT_FOUND and shows in no record of that session (nor starts a trace of a
// name nobody uses, serve --trace).
func (h *Host) recordedSession(p principal, name string) string {
	if name == session.DefaultName {
		return session.DefaultID(p.name)
	}
	if s, ok := h.sessions.Lookup(name); ok && (s.Owner == p.name || h.anyOwner(p)) {
		return name
	}
	return ""
}

// callerOf names the caller whose own state (tab, snapshot, refs) a call reads and
// sets: the REPL by its client id, the person's shell commands together (each is a
// connection of its own), an MCP client by its HTTP session or its connection. The
// principal is part of it, so that no client can take another principal's place.
func callerOf(req *mcp.CallToolRequest, p principal, frontend string) string {
	who := p.name + "|"
	if m := req.Params.Meta; m != nil {
		if c, ok := m[MetaClient].(string); ok && c != "" {
			return who + "client:" + c
		}
	}
	if frontend == "w365-cli" {
		return who + "cli"
	}
	if req.Session != nil && req.Session.ID() != "" {
		return who + "mcp:" + req.Session.ID()
	}
	if req.Extra != nil && req.Extra.Header != nil && req.Extra.Header.Get(hdrConn) != "" {
		return who + "conn:" + req.Extra.Header.Get(hdrConn)
	}
	return who
}

// callClock stops when the call leaves its session's queue (markRunning).
type callClock struct {
	mu      sync.Mutex
	running time.Time
}

type callClockKey struct{}

// callIDKey holds the call's number in its context (approvals name the call by it).
type callIDKey struct{}

// markRunning says that the call of ctx has its turn on its session now.
func markRunning(ctx context.Context) {
	if c, ok := ctx.Value(callClockKey{}).(*callClock); ok {
		c.mu.Lock()
		c.running = time.Now()
		c.mu.Unlock()
	}
}

// queued is how long the call waited since it arrived at start (0 if it never ran).
func (c *callClock) queued(start time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.running.IsZero() {
		return 0
	}
	return c.running.Sub(start)
}

// describeRefs names the elements that the refs among args stand for, as the
// caller's snapshots know them; nil when there are none.
func (h *Host) describeRefs(ctx context.Context, session string, args map[string]any) map[string]string {
	refs := map[string]string{}
	var walk func(snapshotID string, v any)
	walk = func(snapshotID string, v any) {
		switch x := v.(type) {
		case map[string]any:
			id, _ := x["snapshotId"].(string)
			if id == "" {
				id = snapshotID
			}
			for k, vv := range x {
				if s, ok := vv.(string); ok && (k == "ref" || k == "target" || k == "element") {
					if r := snapshot.RefOf(strings.TrimSpace(s)); r != "" || strings.Contains(s, ":") {
						refs[s] = id
					}
					continue
				}
				walk(id, vv)
			}
		case []any:
			for _, vv := range x {
				walk(snapshotID, vv)
			}
		}
	}
	walk("", args)
	if len(refs) == 0 {
		return nil
	}
	s, ok := h.sessions.Lookup(session)
	if !ok {
		return nil
	}
	out := map[string]string{}
	for ref, id := range refs {
		if d := commands.DescribeRef(ctx, s, id, ref); d != "" {
			out[ref] = d
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// summarize fills the end event from the result: its short human form, a shell or
// Python call's exit status, or its error with the correlation id.
func summarize(res *mcp.CallToolResult, ev *CallEvent) {
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	if res.IsError {
		if p, ok := res.Meta[MetaError].(ErrorPayload); ok && p.Error != nil {
			ev.Error, ev.CorrelationID = p.Error, p.CorrelationID
			return
		}
		ev.Error = werr.New(werr.Internal, "%s", text)
		return
	}
	if res.StructuredContent != nil {
		var st struct {
			ExitCode *int `json:"exitCode"`
			TimedOut bool `json:"timedOut"`
		}
		if b, err := json.Marshal(res.StructuredContent); err == nil && json.Unmarshal(b, &st) == nil {
			ev.ExitCode, ev.TimedOut = st.ExitCode, st.TimedOut
		}
	}
	text = hideLiveTokens(text)
	if r := []rune(text); len(r) > 300 {
		text = string(r[:300]) + "…"
	}
	ev.Summary = text
}

func frontendOf(req *mcp.CallToolRequest) string {
	if m := req.Params.Meta; m != nil {
		if ci, ok := m[mcp.MetaKeyClientInfo].(map[string]any); ok {
			if n, _ := ci["name"].(string); n != "" {
				return n
			}
		}
	}
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil && p.ClientInfo.Name != "" {
			return p.ClientInfo.Name
		}
	}
	return "mcp"
}

func clientOf(req *mcp.CallToolRequest) string {
	if m := req.Params.Meta; m != nil {
		if s, ok := m[MetaClient].(string); ok {
			return s
		}
	}
	if req.Extra != nil && req.Extra.Header != nil {
		return "conn-" + req.Extra.Header.Get(hdrConn)
	}
	return ""
}
