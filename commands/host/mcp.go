package host

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// ServeOptions filter what one MCP connection sees.
type ServeOptions struct {
	Toolsets    []string `json:"toolsets,omitempty"`
	ReadOnly    bool     `json:"readOnly,omitempty"`
	LegacyNames bool     `json:"legacyNames,omitempty"`
}

func (o ServeOptions) key() string {
	ts := slices.Clone(o.Toolsets)
	slices.Sort(ts)
	return fmt.Sprintf("%v|%v|%v", ts, o.ReadOnly, o.LegacyNames)
}

// Validate rejects unknown toolset names.
func (o ServeOptions) Validate() error {
	for _, t := range o.Toolsets {
		if commands.FindToolset(t) == nil && t != "all" {
			return werr.Invalid("unknown toolset %q; known: %s", t, strings.Join(commands.ToolsetNames(), ", "))
		}
	}
	return nil
}

// Selected reports whether the options expose t: without toolsets named, the
// toolsets that are on by default.
func (o ServeOptions) Selected(t *tool.Tool) bool {
	if o.ReadOnly && t.Annotations.ReadOnly != tool.Yes {
		return false
	}
	if slices.Contains(o.Toolsets, "all") {
		return true
	}
	if len(o.Toolsets) == 0 {
		ts := commands.FindToolset(t.Toolset)
		return ts != nil && ts.Default
	}
	return slices.Contains(o.Toolsets, t.Toolset)
}

// mcpServer returns the (cached) MCP server exposing the tools o selects. remote marks
// the server of HTTP clients, whose calls never run as the local principal.
func (h *Host) mcpServer(o ServeOptions, remote bool) *mcp.Server {
	h.serversMu.Lock()
	defer h.serversMu.Unlock()
	key := fmt.Sprintf("%s|remote=%v", o.key(), remote)
	if s, ok := h.servers[key]; ok {
		return s
	}
	caps := &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}}
	caps.AddExtension(TasksExtension, map[string]any{})
	caps.AddExtension(AppsExtension, map[string]any{})
	s := mcp.NewServer(&mcp.Implementation{Name: "w365", Title: "w365 computer use", Version: release()},
		&mcp.ServerOptions{
			Instructions: "w365 operates a computer: desktop input, screenshots, OCR, windows, processes, clipboard, " +
				"a sandboxed shell and Python, browser automation and accessibility trees. Coordinates are screen pixels. " +
				"Mouse operations are refused (FAILSAFE) near screen corners. Every tool acts on the default session " +
				"unless given a sessionId (from mcp_W365ComputerUse_StartSession) or, for browser_ tools, a " +
				"browserSessionId (from create_browser_session).",
			Logger:       slog.New(slog.DiscardHandler),
			Capabilities: caps,
		})
	s.AddReceivingMiddleware(leanToolLists, h.taskMiddleware(remote))
	h.addTaskMethods(s)
	s.AddResourceTemplate(resultTemplate, h.readResult(remote))
	s.AddResource(liveAppResource, h.readLiveApp)
	for _, t := range commands.All() {
		// The policy's tool lists: a tool they leave out is neither listed nor callable.
		if !o.Selected(t) || !h.policy.ToolAllowed(append([]string{t.Name}, t.Legacy...)...) {
			continue
		}
		names := []string{t.Name}
		if o.LegacyNames {
			names = append(names, t.Legacy...)
		}
		for _, name := range names {
			mt := MCPTool(t, name)
			if remote {
				remoteSchema(t, mt)
			}
			s.AddTool(mt, h.observed(t, remote, h.toolHandler(t, remote)))
		}
	}
	h.servers[key] = s
	return s
}

// MCPTool is t as MCP's tools/list shows it under name. tools/list is paid for in a
// model's context once per conversation, so it says what a model needs and no more: a
// short title, the one-paragraph description, and only the hints that differ from MCP's
// defaults (destructive and open-world unless said otherwise) and that mean something
// (destructive and idempotent mean nothing for a read-only tool).
func MCPTool(t *tool.Tool, name string) *mcp.Tool {
	a := &mcp.ToolAnnotations{ReadOnlyHint: t.Annotations.ReadOnly.Bool()}
	if t.Annotations.OpenWorld != tool.Yes {
		a.OpenWorldHint = t.Annotations.OpenWorld.Ptr()
	}
	if !a.ReadOnlyHint {
		a.IdempotentHint = t.Annotations.Idempotent.Bool()
		if t.Annotations.Destructive != tool.Yes {
			a.DestructiveHint = t.Annotations.Destructive.Ptr()
		}
	}
	mt := &mcp.Tool{
		Name:        name,
		Title:       t.Title(),
		Description: t.Description(),
		InputSchema: t.InputSchema(),
		Annotations: a,
	}
	if out := t.OutputSchema(); out != nil {
		mt.OutputSchema = out
	}
	if t.UI != "" {
		mt.Meta = appMeta(t.UI)
	}
	return mt
}

// Request metadata that our transport wrapper stamps on every tools/call as it is
// read, in order, and that the handler reads back.
const (
	hdrSeq     = "W365-Seq"
	hdrConn    = "W365-Conn"
	hdrSession = "W365-Session"
	// hdrAgent is an agent connection's principal (agents.go), on each of its requests.
	hdrAgent = "W365-Agent"
	// MetaSession in a call's _meta names the session (the CLI sets it).
	MetaSession = "w365/session"
	// MetaFull in a call's _meta asks for the whole structured content, the fields the
	// text already carries included (the CLI sets it, for --json).
	MetaFull = "w365/full"
)

// connState orders the calls of one connection: call n enters its session queue only
// after call n-1 has, so pipelined calls run in the order they were sent.
type connState struct {
	mu      sync.Mutex
	entered uint64
	// moved is closed, and replaced, when entered changes (and when the connection closes).
	moved chan struct{}
}

// orderWait bounds how long a call waits for its connection's previous call to enter.
const orderWait = 250 * time.Millisecond

var (
	connSeq   atomic.Uint64
	connsMu   sync.Mutex
	connTable = map[uint64]*connState{}
)

// orderedTransport wraps a stream transport and stamps each tools/call with its
// arrival number and the connection's default session, and each request of an agent
// connection with its principal.
type orderedTransport struct {
	mcp.Transport
	session string
	// agentHost is set for an agent connection: the host it claims its principal from and
	// tells when it closes.
	agentHost *Host
}

type orderedConn struct {
	mcp.Connection
	id        uint64
	session   string
	next      uint64
	agentHost *Host
	agent     string
}

func (t orderedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	id := connSeq.Add(1)
	st := &connState{moved: make(chan struct{})}
	connsMu.Lock()
	connTable[id] = st
	connsMu.Unlock()
	oc := &orderedConn{Connection: c, id: id, session: t.session, agentHost: t.agentHost}
	if oc.agentHost != nil {
		oc.agent = oc.agentHost.agents.claim(id)
	}
	return oc, nil
}

func (c *orderedConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := c.Connection.Read(ctx)
	req, ok := m.(*jsonrpc.Request)
	if !ok || err != nil {
		return m, err
	}
	hdr := http.Header{}
	if req.Method == "tools/call" {
		c.next++
		hdr.Set(hdrSeq, strconv.FormatUint(c.next, 10))
		hdr.Set(hdrSession, c.session)
	}
	if req.Method == "tools/call" || c.agent != "" {
		hdr.Set(hdrConn, strconv.FormatUint(c.id, 10))
	}
	if c.agent != "" {
		hdr.Set(hdrAgent, c.agent)
	}
	if len(hdr) > 0 {
		req.Extra = &mcp.RequestExtra{Header: hdr}
	}
	return m, nil
}

func (c *orderedConn) Close() error {
	connsMu.Lock()
	if st, ok := connTable[c.id]; ok {
		delete(connTable, c.id)
		st.mu.Lock()
		st.entered = ^uint64(0) >> 1 // release anyone waiting
		close(st.moved)
		st.moved = make(chan struct{})
		st.mu.Unlock()
	}
	connsMu.Unlock()
	if c.agent != "" {
		c.agentHost.agentClosed(c.agent, c.id)
	}
	return c.Connection.Close()
}

// enterInOrder takes a place in q after the connection's previous call took its place.
// A call whose predecessor never reaches the handler (rejected by the SDK or by the checks
// before the session) waits at most orderWait, so one malformed request cannot stall a
// connection. It waits on a channel that the predecessor's entering closes and on a timer
// of its own, neither of which a late waiter can miss. A sync.Cond woken by a 10 ms timer's
// broadcast could be: under load a goroutine that lost its core between arming the timer
// and waiting slept until the connection's next call, which a client that waits for each
// answer never sends (TestCallsWaitForAMissingPredecessorOnlyTheirBound).
func enterInOrder(extra *mcp.RequestExtra, q *session.Queue) *session.Ticket {
	if extra == nil || extra.Header.Get(hdrSeq) == "" {
		return q.Enter()
	}
	seq, _ := strconv.ParseUint(extra.Header.Get(hdrSeq), 10, 64)
	id, _ := strconv.ParseUint(extra.Header.Get(hdrConn), 10, 64)
	connsMu.Lock()
	st := connTable[id]
	connsMu.Unlock()
	if st == nil {
		return q.Enter()
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.entered+1 < seq {
		bound := time.NewTimer(orderWait)
		defer bound.Stop()
		for waiting := true; waiting && st.entered+1 < seq; {
			moved := st.moved
			st.mu.Unlock()
			if orderWaitHook != nil {
				orderWaitHook()
			}
			select {
			case <-moved:
			case <-bound.C:
				waiting = false
			}
			st.mu.Lock()
		}
	}
	t := q.Enter()
	if seq > st.entered {
		st.entered = seq
		close(st.moved)
		st.moved = make(chan struct{})
	}
	return t
}

// orderWaitHook, when set by a test, runs where a call that waits for its predecessor may
// lose its core: after it decided to wait, before it waits (failure injection).
var orderWaitHook func()

func newCorrelationID() string { return randomHex(6) }

// toolHandler adapts t to the SDK: decode, validate, pick the session, wait for its
// turn, run, and turn the output or error into a result. It never lets a panic out.
func (h *Host) toolHandler(t *tool.Tool, remote bool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
		h.touch()
		start := time.Now()
		defer func() {
			if r := recover(); r != nil {
				cid := newCorrelationID()
				h.log.Error("tool panicked", "tool", t.Name, "correlationId", cid, "panic", r, "stack", string(debug.Stack()))
				res = errorResult(werr.New(werr.Internal, "internal error in %s", t.Name), cid)
			}
		}()
		args, aerr := decodeArguments(req.Params.Arguments)
		if aerr != nil {
			return errorResult(aerr, newCorrelationID()), nil
		}
		p := h.principalOf(req.Extra, remote)
		// Prepare drops the session parameters a tool does not declare; callSession reads them after.
		in, err := t.Prepare(maps.Clone(args))
		if err != nil {
			return h.fail(t, err), nil
		}
		env := &tool.Env{Policy: h.policy, Host: callerHost{h, p}}
		prog := startProgress(ctx, req, t, in)
		defer prog.done()
		ctx = tool.WithPhase(ctx, func(p string) { prog.setPhase("%s", p) })
		name := ""
		if !t.Sessionless {
			prog.setPhase("starting or finding its session")
			s, err := h.callSession(ctx, req, t, args, p)
			if err != nil {
				return h.fail(t, err), nil
			}
			name = s.ID
			ticket := enterInOrder(req.Extra, &s.Queue)
			if ahead := s.Queue.Len() - 1; ahead > 0 {
				prog.setPhase("queued behind %d call(s) on session %s", ahead, s.ID)
			}
			if err := ticket.Wait(ctx); err != nil {
				return h.fail(t, werr.Wrap(err, werr.Cancelled, "call cancelled while waiting for session %q", s.ID)), nil
			}
			defer ticket.Done()
			if err := h.waitWhilePaused(ctx, prog, s, t); err != nil {
				return h.fail(t, err), nil
			}
			if err := h.approval(ctx, req, prog, t, args, s, p); err != nil {
				return h.fail(t, err), nil
			}
			prog.setPhase("running")
			markRunning(ctx)
			defer s.Touch()
			env.Session = s
		}
		out, err := t.Run(ctx, env, in)
		if err != nil {
			return h.fail(t, err), nil
		}
		h.log.Debug("tool", "name", t.Name, "session", name, "ms", time.Since(start).Milliseconds())
		return h.successResult(t, out, req.Params.Meta[MetaFull] == true, env.Session), nil
	}
}

// decodeArguments is a call's arguments as the tools read them: a JSON object (or none).
func decodeArguments(raw json.RawMessage) (map[string]any, *werr.Error) {
	var args map[string]any
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	err := json.Unmarshal(raw, &args)
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te) && strings.HasPrefix(te.Value, "number "):
		// JSON has no bound on numbers; a Go float64 has.
		return nil, werr.Invalid("the arguments hold the number %s, past the largest there may be (about 1.8e308)", strings.TrimPrefix(te.Value, "number "))
	case err != nil:
		return nil, werr.Invalid("arguments must be a JSON object")
	}
	return args, nil
}

// sessionName picks the session: the call's _meta, then a sessionId/browserSessionId
// argument, then the connection's default.
func sessionName(req *mcp.CallToolRequest, args map[string]any) string {
	if m := req.Params.Meta; m != nil {
		if s, ok := m[MetaSession].(string); ok && s != "" {
			return s
		}
	}
	for _, k := range []string{"browserSessionId", "sessionId"} {
		if s, ok := args[k].(string); ok && s != "" {
			return s
		}
	}
	if req.Extra != nil {
		if s := req.Extra.Header.Get(hdrSession); s != "" {
			return s
		}
	}
	return session.DefaultName
}

func (h *Host) fail(t *tool.Tool, err error) *mcp.CallToolResult {
	e := werr.As(err)
	cid := newCorrelationID()
	if e.Code == werr.Internal {
		// The cause may hold paths or addresses: log it, never return it.
		h.log.Error("tool failed", "tool", t.Name, "correlationId", cid, "err", err)
	} else {
		h.log.Info("tool refused", "tool", t.Name, "correlationId", cid, "code", e.Code)
	}
	return errorResult(e, cid)
}

// MetaError in an error result's _meta carries the error whole (details included) for
// the w365 CLI. Clients validate structuredContent against the tool's output schema,
// error results included (the TypeScript SDK throws on a mismatch, and the model then
// never sees the error), so an error result has no structured content: the text says
// it all, and _meta, which no client validates, keeps it machine-readable.
const MetaError = "w365/error"

// ErrorPayload is what an error result's _meta carries under MetaError.
type ErrorPayload struct {
	Error *werr.Error `json:"error"`
	// CorrelationID ties the result to the host's log line.
	CorrelationID string `json:"correlationId"`
}

// ErrorText is an error as a model reads it: the first line is `CODE: message`, then
// whether retrying may help, the hint, any details and the correlation id, one a line.
func ErrorText(e *werr.Error, cid string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s\nretryable: %v", e.Code, e.Message, e.Retryable)
	if e.Hint != "" {
		b.WriteString("\nhint: " + e.Hint)
	}
	if len(e.Details) > 0 {
		d, _ := json.Marshal(e.Details)
		b.WriteString("\ndetails: " + string(d))
	}
	b.WriteString("\ncorrelationId: " + cid)
	return b.String()
}

func errorResult(e *werr.Error, cid string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: ErrorText(e, cid)}},
		Meta:    mcp.Meta{MetaError: ErrorPayload{Error: e, CorrelationID: cid}},
	}
}

// successResult is out as a result. Its images are image content (the contract's result)
// and, for a call in session s, result resources too, as are the files it wrote, each
// named by a resource_link.
func (h *Host) successResult(t *tool.Tool, out any, full bool, s *session.Session) *mcp.CallToolResult {
	sc, err := t.Structured(out, full)
	if err != nil {
		return h.fail(t, werr.Wrap(err, werr.Internal, "cannot encode the result of %s", t.Name))
	}
	res := &mcp.CallToolResult{StructuredContent: sc}
	if im, ok := out.(tool.ImageOutput); ok {
		for _, img := range im.OutputImages() {
			res.Content = append(res.Content, &mcp.ImageContent{Data: img.Data, MIMEType: img.MIMEType})
			if s != nil {
				res.Content = append(res.Content, h.results.add(s, img.Data, img.MIMEType, imageExt(img.MIMEType)))
			}
		}
	}
	if so, ok := out.(tool.SavedOutput); ok && s != nil {
		for _, p := range so.SavedPaths() {
			if l := h.addSaved(s, p); l != nil {
				res.Content = append(res.Content, l)
			}
		}
	}
	// The text is the short human form (the snapshot's outline, a window table, a
	// one-line confirmation), not the structured content again: repeating the JSON
	// doubled what every result cost on the wire and in a model's context.
	res.Content = append(res.Content, &mcp.TextContent{Text: tool.HumanText(out)})
	return res
}
