package host

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/werr"
)

var (
	traceOn    = os.Getenv("W365_TRACE") != ""
	traceStart = time.Now()
)

// trace prints, with W365_TRACE set, the time since the process's Go code started
// when an event happens; the func it returns prints the event's end.
func trace(event string) func() {
	if !traceOn {
		return func() {}
	}
	fmt.Fprintf(os.Stderr, "w365 trace: %6.2f ms %s\n", float64(time.Since(traceStart).Microseconds())/1000, event)
	return func() {
		fmt.Fprintf(os.Stderr, "w365 trace: %6.2f ms %s: done\n", float64(time.Since(traceStart).Microseconds())/1000, event)
	}
}

// Outcome is a successful call's output as the CLI and REPL see it.
type Outcome struct {
	// Out is a pointer to the tool's output type, decoded from the structured content.
	Out any
	// JSON is the structured content as received.
	JSON   json.RawMessage
	Images []tool.Image
	// Text is the result's text as the host made it (tool.HumanText of the output
	// before encoding: it says what the structured content leaves out, such as the name
	// of a ref), "" when there is none.
	Text string
}

// Caller runs a tool somewhere (the host, over MCP). The CLI and REPL use it.
type Caller interface {
	Call(ctx context.Context, t *tool.Tool, args map[string]any) (*Outcome, error)
}

// Client is an MCP client of the host over its unix socket. It speaks the sessionless
// form of MCP 2026-07-28 (SEP-2575): every call carries the protocol version and the
// client's description in its _meta, so there is no initialize round trip, and the first
// call travels in the same write as the socket's hello line. A one-shot command thus
// costs one round trip. (The go-sdk client always runs a discover or initialize exchange
// first, which is most of a one-shot's time.) It connects lazily, so commands that fail
// validation never start a host.
type Client struct {
	Opts ClientOptions

	mu     sync.Mutex
	conn   net.Conn
	rd     *bufio.Reader
	nextID int64
}

// Close ends the connection; the host keeps running.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closeLocked()
	return nil
}

func (c *Client) closeLocked() {
	if c.conn != nil {
		c.conn.Close()
		c.conn, c.rd = nil, nil
	}
}

// Call invokes t on the host. A host that died mid-call is UNAVAILABLE and the next
// call reconnects (starting a fresh host).
func (c *Client) Call(ctx context.Context, t *tool.Tool, args map[string]any) (*Outcome, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	id := c.nextID
	name := c.Opts.ClientName
	if name == "" {
		name = "w365-cli"
	}
	meta := map[string]any{
		mcp.MetaKeyProtocolVersion:    mcpProtocolVersion,
		mcp.MetaKeyClientInfo:         map[string]string{"name": name, "version": Version()},
		mcp.MetaKeyClientCapabilities: map[string]any{},
		MetaFull:                      true,
	}
	if c.Opts.ClientID != "" {
		meta[MetaClient] = c.Opts.ClientID
	}
	if c.Opts.Session != "" {
		meta[MetaSession] = c.Opts.Session
	}
	if c.Opts.Display != "" {
		meta[MetaDisplay] = c.Opts.Display
	}
	if c.Opts.OnProgress != nil {
		meta["progressToken"] = id
	}
	if args == nil {
		args = map[string]any{}
	}
	req, err := encodeLine(rpcOut{ID: id, Method: "tools/call", Params: callParams{Meta: meta, Name: t.Name, Arguments: args}})
	if err != nil {
		return nil, werr.Wrap(err, werr.InvalidArgument, "cannot encode the arguments of %s", t.Name)
	}
	done := trace("call " + t.Name)
	defer done()
	if c.conn == nil {
		endDial := trace("connect")
		o := c.Opts
		o.Person = true
		conn, _, err := dialHost(ctx, o, req)
		endDial()
		if err != nil {
			return nil, err
		}
		c.conn, c.rd = conn, bufio.NewReaderSize(conn, 64<<10)
	} else if _, err := c.conn.Write(req); err != nil {
		c.closeLocked()
		return nil, werr.Wrap(err, werr.Unavailable, "lost the connection to the w365 host before %s ran", t.Name).WithRetryable(true)
	}
	// Cancellation: tell the host, then unblock the read. (conn, not c.conn: a failed
	// read may clear c.conn while this runs.) The answer may arrive while the callback
	// runs, and then the client keeps the connection: wait for the callback and lift the
	// deadline it set, or the next call on this connection would fail at once.
	conn := c.conn
	cancelled := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(cancelled)
		p := map[string]any{"requestId": id, "reason": context.Cause(ctx).Error()}
		if b, err := encodeLine(rpcOut{Method: "notifications/cancelled", Params: p}); err == nil {
			conn.Write(b)
		}
		conn.SetReadDeadline(time.Now())
	})
	defer func() {
		if !stop() {
			<-cancelled
			conn.SetReadDeadline(time.Time{})
		}
	}()
	for {
		line, err := c.rd.ReadBytes('\n')
		if err != nil {
			c.closeLocked()
			if ctx.Err() != nil {
				return nil, werr.Wrap(ctx.Err(), werr.Cancelled, "call cancelled")
			}
			return nil, werr.Wrap(err, werr.Unavailable, "lost the connection to the w365 host during %s; the outcome is unknown", t.Name).WithRetryable(true)
		}
		var m rpcIn
		if err := json.Unmarshal(line, &m); err != nil {
			c.closeLocked()
			return nil, werr.Wrap(err, werr.Unavailable, "the w365 host sent a malformed message").WithRetryable(true)
		}
		if m.Method != "" {
			if m.ID == nil && m.Method == "notifications/progress" && c.Opts.OnProgress != nil {
				var p mcp.ProgressNotificationParams
				if json.Unmarshal(m.Params, &p) == nil {
					c.Opts.OnProgress(Progress{Elapsed: time.Duration(p.Progress * float64(time.Second)),
						Total: time.Duration(p.Total * float64(time.Second)), Message: p.Message})
				}
				continue
			}
			if m.ID != nil {
				// A request from the host: this client offers no client features.
				b, _ := encodeLine(rpcOut{ID: m.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound,
					Message: "the w365 CLI does not serve " + m.Method}})
				c.conn.Write(b)
			}
			continue
		}
		if n, ok := m.ID.(float64); !ok || n != float64(id) {
			continue // the answer to a call given up on
		}
		if m.Error != nil {
			code := werr.Internal
			if m.Error.Code == jsonrpc.CodeInvalidParams {
				code = werr.InvalidArgument
				if strings.HasPrefix(m.Error.Message, "unknown tool") {
					// Client and host are one build, so the host knows every tool: its
					// policy's tool lists left this one out.
					return nil, werr.New(werr.BlockedByPolicy, "the host's policy does not offer %s (toolAllowlist/toolDenylist)", t.Name).
						WithHint("`w365 session details default` shows the policy in force")
				}
			}
			return nil, werr.New(code, "%s", m.Error.Error())
		}
		var res callResult
		if err := json.Unmarshal(m.Result, &res); err != nil {
			return nil, werr.Wrap(err, werr.Internal, "cannot decode the result of %s", t.Name)
		}
		return decodeResult(t, &res)
	}
}

// The client's JSON-RPC lines are plain structs for encoding/json: the go-sdk's message
// and result types decode through codecs built for every MCP type at first use, which was
// a third of a one-shot call's own time (docs/architecture.md, "One-shot start").

// rpcOut is a request, notification or response the client writes.
type rpcOut struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      any            `json:"id,omitempty"`
	Method  string         `json:"method,omitempty"`
	Params  any            `json:"params,omitempty"`
	Error   *jsonrpc.Error `json:"error,omitempty"`
}

// rpcIn is any message the host sends: a response (no method), a notification (no id) or
// a request.
type rpcIn struct {
	ID     any             `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

type callParams struct {
	Meta      map[string]any `json:"_meta"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// callResult is the part of an MCP CallToolResult the client reads.
type callResult struct {
	Meta              map[string]json.RawMessage `json:"_meta"`
	Content           []resultContent            `json:"content"`
	StructuredContent any                        `json:"structuredContent"`
	IsError           bool                       `json:"isError"`
}

// resultContent is a text or image content item (others are not read).
type resultContent struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Data     []byte `json:"data"`
	MIMEType string `json:"mimeType"`
}

// encodeLine is one JSON-RPC message as the socket carries it: a line.
func encodeLine(m rpcOut) ([]byte, error) {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	return append(b, '\n'), err
}

// mcpProtocolVersion is the MCP revision whose calls need no session handshake.
const mcpProtocolVersion = "2026-07-28"

// decodeResult turns an MCP result into an Outcome, or into the *werr.Error it carries.
func decodeResult(t *tool.Tool, res *callResult) (*Outcome, error) {
	// Re-encoded, as the --json output has always been: keys in order, compact.
	raw, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		var p ErrorPayload
		if err := json.Unmarshal(res.Meta[MetaError], &p); err == nil && p.Error != nil {
			if p.CorrelationID != "" {
				p.Error.WithDetail("correlationId", p.CorrelationID)
			}
			return nil, p.Error
		}
		msg := "tool failed"
		for _, c := range res.Content {
			if c.Type == "text" {
				msg = c.Text
			}
		}
		return nil, werr.New(werr.Internal, "%s", msg)
	}
	o := &Outcome{JSON: raw}
	ptr := reflect.New(t.OutputType())
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, ptr.Interface()); err != nil {
			return nil, werr.Wrap(err, werr.Internal, "cannot decode %s output", t.Name)
		}
	}
	o.Out = ptr.Interface()
	for _, c := range res.Content {
		switch c.Type {
		case "image":
			o.Images = append(o.Images, tool.Image{Data: c.Data, MIMEType: c.MIMEType})
		case "text":
			o.Text = c.Text
		}
	}
	return o, nil
}
