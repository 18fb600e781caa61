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
	id, _ := jsonrpc.MakeID(float64(c.nextID))
	name := c.Opts.ClientName
	if name == "" {
		name = "w365-cli"
	}
	meta := mcp.Meta{
		mcp.MetaKeyProtocolVersion:    mcpProtocolVersion,
		mcp.MetaKeyClientInfo:         &mcp.Implementation{Name: name, Version: Version()},
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
		meta["progressToken"] = c.nextID
	}
	if args == nil {
		args = map[string]any{}
	}
	params, err := json.Marshal(&mcp.CallToolParams{Name: t.Name, Arguments: args, Meta: meta})
	if err != nil {
		return nil, werr.Wrap(err, werr.InvalidArgument, "cannot encode the arguments of %s", t.Name)
	}
	req, err := encodeLine(&jsonrpc.Request{ID: id, Method: "tools/call", Params: params})
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot encode the call of %s", t.Name)
	}
	done := trace("call " + t.Name)
	defer done()
	if c.conn == nil {
		endDial := trace("connect")
		conn, err := dialHost(ctx, c.Opts, req)
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
		p, _ := json.Marshal(&mcp.CancelledParams{RequestID: id.Raw(), Reason: context.Cause(ctx).Error()})
		if b, err := encodeLine(&jsonrpc.Request{Method: "notifications/cancelled", Params: p}); err == nil {
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
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			c.closeLocked()
			return nil, werr.Wrap(err, werr.Unavailable, "the w365 host sent a malformed message").WithRetryable(true)
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if !m.ID.IsValid() && m.Method == "notifications/progress" && c.Opts.OnProgress != nil {
				var p mcp.ProgressNotificationParams
				if json.Unmarshal(m.Params, &p) == nil {
					c.Opts.OnProgress(Progress{Elapsed: time.Duration(p.Progress * float64(time.Second)),
						Total: time.Duration(p.Total * float64(time.Second)), Message: p.Message})
				}
				continue
			}
			if m.ID.IsValid() {
				// A request from the host: this client offers no client features.
				b, _ := encodeLine(&jsonrpc.Response{ID: m.ID,
					Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "the w365 CLI does not serve " + m.Method}})
				c.conn.Write(b)
			}
		case *jsonrpc.Response:
			if m.ID != id {
				continue // the answer to a call given up on
			}
			if m.Error != nil {
				code := werr.Internal
				if we, ok := m.Error.(*jsonrpc.Error); ok && we.Code == jsonrpc.CodeInvalidParams {
					code = werr.InvalidArgument
					if strings.HasPrefix(we.Message, "unknown tool") {
						// Client and host are one build, so the host knows every tool: its
						// policy's tool lists left this one out.
						return nil, werr.New(werr.BlockedByPolicy, "the host's policy does not offer %s (toolAllowlist/toolDenylist)", t.Name).
							WithHint("`w365 session details default` shows the policy in force")
					}
				}
				return nil, werr.New(code, "%s", m.Error.Error())
			}
			var res mcp.CallToolResult
			if err := json.Unmarshal(m.Result, &res); err != nil {
				return nil, werr.Wrap(err, werr.Internal, "cannot decode the result of %s", t.Name)
			}
			return DecodeResult(t, &res)
		}
	}
}

// encodeLine is one JSON-RPC message as the socket carries it: a line.
func encodeLine(m jsonrpc.Message) ([]byte, error) {
	b, err := jsonrpc.EncodeMessage(m)
	return append(b, '\n'), err
}

// mcpProtocolVersion is the MCP revision whose calls need no session handshake.
const mcpProtocolVersion = "2026-07-28"

// DecodeResult turns an MCP result into an Outcome, or into the *werr.Error it carries.
func DecodeResult(t *tool.Tool, res *mcp.CallToolResult) (*Outcome, error) {
	raw, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		var p ErrorPayload
		b, _ := json.Marshal(res.Meta[MetaError])
		if err := json.Unmarshal(b, &p); err == nil && p.Error != nil {
			if p.CorrelationID != "" {
				p.Error.WithDetail("correlationId", p.CorrelationID)
			}
			return nil, p.Error
		}
		msg := "tool failed"
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				msg = tc.Text
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
		switch c := c.(type) {
		case *mcp.ImageContent:
			o.Images = append(o.Images, tool.Image{Data: c.Data, MIMEType: c.MIMEType})
		case *mcp.TextContent:
			o.Text = c.Text
		}
	}
	return o, nil
}
