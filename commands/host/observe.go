package host

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands/tool"
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
	// Args are the arguments with secrets redacted; typed text shows only its length.
	Args       map[string]any `json:"args,omitempty"`
	ReadOnly   bool           `json:"readOnly"`
	DurationMs int64          `json:"durationMs,omitempty"`
	Summary    string         `json:"summary,omitempty"`
	Error      *werr.Error    `json:"error,omitempty"`
	// Dropped counts events this subscriber lost by falling behind.
	Dropped int `json:"dropped,omitempty"`

	// rawArgs are the arguments before redaction, for the trace's password check.
	rawArgs map[string]any
}

// MetaClient in a call's _meta identifies the client connection (the REPL sets it).
const MetaClient = "w365/client"

type subscriber struct {
	session string // "" for every session
	ch      chan CallEvent
	dropped int
}

type hub struct {
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	nextID atomic.Uint64
}

// subscribe returns the events of session ("" for all) until cancel is called.
func (b *hub) subscribe(session string) (<-chan CallEvent, func()) {
	s := &subscriber{session: session, ch: make(chan CallEvent, 256)}
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
	return h.calls.subscribe(session)
}

// observed wraps a tool handler so that each call is published and, when the
// session is traced, recorded.
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
		ev := CallEvent{
			Phase: "start", ID: h.calls.nextID.Add(1), Time: time.Now(),
			Session: sessionName(req, args), Tool: t.Name,
			Principal: principalOf(req, remote).name, Frontend: frontendOf(req), Client: clientOf(req),
			Args: redact(t, args), ReadOnly: t.Annotations.ReadOnly == tool.Yes, rawArgs: args,
		}
		h.calls.publish(ev)
		res, err := next(ctx, req)
		end := ev
		end.Phase = "end"
		end.DurationMs = time.Since(ev.Time).Milliseconds()
		end.Time = time.Now()
		if res != nil {
			end.Summary, end.Error = summarize(res)
		}
		if err != nil && end.Error == nil {
			end.Error = werr.As(err)
		}
		h.traces.record(ctx, h, t, end, ev.Time, res)
		h.calls.publish(end)
		return res, err
	}
}

// summarize is a result's short human form, or its error.
func summarize(res *mcp.CallToolResult) (string, *werr.Error) {
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text = tc.Text
		}
	}
	if res.IsError {
		if p, ok := res.Meta[MetaError].(ErrorPayload); ok && p.Error != nil {
			return "", p.Error
		}
		return "", werr.New(werr.Internal, "%s", text)
	}
	if len(text) > 300 {
		text = text[:300] + "…"
	}
	return text, nil
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

// Redacted stands where a secret was.
const Redacted = "[REDACTED]"

// secretKey matches argument names that hold credentials; compiled on first use, not at
// every one-shot command's start.
var secretKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(api[_-]?key|token|secret|password|passwd|authorization|cookie)`)
})

// typedText are the arguments that carry what is typed into a field: shown only as
// their length until the trace knows the field was no password field.
var typedText = map[string]bool{"text": true, "value": true, "values": true}

func typingTool(name string) bool {
	switch name {
	case "type_text", "browser_type", "browser_type_ref", "browser_fill_form":
		return true
	}
	return false
}

// redact copies args with secrets removed: credentials by name, cookie values always,
// and text typed by the typing tools reduced to its length.
func redact(t *tool.Tool, args map[string]any) map[string]any {
	if args == nil {
		return nil
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = redactValue(t, k, v)
	}
	return out
}

func redactValue(t *tool.Tool, key string, v any) any {
	switch {
	case secretKey().MatchString(key) && key != "cookies":
		return Redacted
	case typingTool(t.Name) && typedText[key]:
		if s, ok := v.(string); ok {
			return lengthOnly(s)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, vv := range x {
			if key == "cookies" && k == "value" {
				m[k] = Redacted
				continue
			}
			m[k] = redactValue(t, k, vv)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, vv := range x {
			l[i] = redactValue(t, key, vv)
		}
		return l
	}
	return v
}

func lengthOnly(s string) string { return fmt.Sprintf("‹%d characters›", len([]rune(s))) }
