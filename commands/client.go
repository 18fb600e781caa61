package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"reflect"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	Images []Image
}

// Caller runs a tool somewhere (the host, over MCP). The CLI and REPL use it.
type Caller interface {
	Call(ctx context.Context, t *Tool, args map[string]any) (*Outcome, error)
}

// Client is an MCP client of the host over its unix socket. It connects lazily, so
// commands that fail validation never start a host.
type Client struct {
	Opts ClientOptions

	mu   sync.Mutex
	conn net.Conn
	cs   *mcp.ClientSession
}

func (c *Client) session(ctx context.Context) (*mcp.ClientSession, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cs != nil {
		return c.cs, nil
	}
	defer trace("connected")()
	conn, err := DialHost(ctx, c.Opts)
	if err != nil {
		return nil, err
	}
	trace("hello done")
	cl := mcp.NewClient(&mcp.Implementation{Name: "w365-cli", Version: Version()}, nil)
	cs, err := cl.Connect(ctx, &mcp.IOTransport{Reader: conn, Writer: conn}, nil)
	if err != nil {
		conn.Close()
		return nil, werr.Wrap(err, werr.Unavailable, "MCP handshake with the host failed").WithRetryable(true)
	}
	c.conn, c.cs = conn, cs
	return cs, nil
}

// Close ends the connection; the host keeps running.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cs != nil {
		c.cs.Close()
		c.cs = nil
	}
	return nil
}

// Call invokes t on the host. A host that died mid-call is UNAVAILABLE and the next
// call reconnects (starting a fresh host).
func (c *Client) Call(ctx context.Context, t *Tool, args map[string]any) (*Outcome, error) {
	cs, err := c.session(ctx)
	if err != nil {
		return nil, err
	}
	meta := mcp.Meta{}
	if c.Opts.Session != "" {
		meta[MetaSession] = c.Opts.Session
	}
	done := trace("call " + t.Name)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: t.Name, Arguments: args, Meta: meta})
	done()
	if err != nil {
		c.Close()
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, werr.Wrap(err, werr.Cancelled, "call cancelled")
		}
		return nil, werr.Wrap(err, werr.Unavailable, "lost the connection to the w365 host during %s; the outcome is unknown", t.Name).WithRetryable(true)
	}
	return DecodeResult(t, res)
}

// DecodeResult turns an MCP result into an Outcome, or into the *werr.Error it carries.
func DecodeResult(t *Tool, res *mcp.CallToolResult) (*Outcome, error) {
	raw, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		var p ErrorPayload
		if err := json.Unmarshal(raw, &p); err == nil && p.Error != nil {
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
	ptr := reflect.New(t.out)
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, ptr.Interface()); err != nil {
			return nil, werr.Wrap(err, werr.Internal, "cannot decode %s output", t.Name)
		}
	}
	o.Out = ptr.Interface()
	for _, c := range res.Content {
		if ic, ok := c.(*mcp.ImageContent); ok {
			o.Images = append(o.Images, Image{Data: ic.Data, MIMEType: ic.MIMEType})
		}
	}
	return o, nil
}
