//go:build linux

package e2e_test

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/test/e2e"
)

// headerLog keeps the Mcp-Param-Session header of every request a client sends.
type headerLog struct {
	mu   sync.Mutex
	seen []string
}

func (l *headerLog) RoundTrip(r *http.Request) (*http.Response, error) {
	l.mu.Lock()
	if v := r.Header.Get(host.SessionHeader); v != "" {
		l.seen = append(l.seen, v)
	}
	l.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

func (l *headerLog) has(v string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Contains(l.seen, v)
}

// The go-sdk client of each era, over stdio and HTTP, against one host: each negotiates
// its own era, lists, calls, gets an error result, progress and a cancellation, and
// the clients of both eras (and the CLI) share the host's sessions. Over HTTP a 2026
// client sends the session as the Mcp-Param-Session header.
func TestBothMCPErasOnEveryTransport(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	url, _ := serveHTTP(t, h, nil)
	addr := strings.TrimPrefix(url, "http://")

	connect := func(t *testing.T, transport, era string, progress func(*mcp.ProgressNotificationClientRequest)) (*mcp.ClientSession, *headerLog) {
		c := mcp.NewClient(&mcp.Implementation{Name: "e2e-eras", Version: "1"}, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			if progress != nil {
				progress(r)
			}
		}})
		log := &headerLog{}
		var tr mcp.Transport
		if transport == "stdio" {
			cmd := exec.Command(h.Bin, "serve", "--mcp")
			cmd.Env, cmd.Stderr = h.Env, os.Stderr
			tr = &mcp.CommandTransport{Command: cmd}
		} else {
			tr = &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/", HTTPClient: &http.Client{Transport: log}}
		}
		cctx, ccancel := context.WithTimeout(context.Background(), time.Minute)
		defer ccancel()
		cs, err := c.Connect(cctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: era})
		if err != nil {
			t.Fatalf("%s %s: connect: %v", transport, era, err)
		}
		t.Cleanup(func() { cs.Close() })
		if got := cs.InitializeResult().ProtocolVersion; got != era {
			t.Fatalf("%s: asked for %s, negotiated %s", transport, era, got)
		}
		return cs, log
	}

	var started []string // a session each HTTP client started, by era
	for _, transport := range []string{"stdio", "http"} {
		for _, era := range []string{"2025-11-25", "2026-07-28"} {
			t.Run(transport+"/"+era, func(t *testing.T) {
				var mu sync.Mutex
				var seen []float64
				cs, log := connect(t, transport, era, func(r *mcp.ProgressNotificationClientRequest) {
					mu.Lock()
					seen = append(seen, r.Params.Progress)
					mu.Unlock()
				})
				lctx, lcancel := context.WithTimeout(context.Background(), time.Minute)
				defer lcancel()
				list, err := cs.ListTools(lctx, nil)
				if err != nil || len(list.Tools) < 40 {
					t.Fatalf("tools/list: %v (%d tools)", err, len(list.Tools))
				}
				e2e.Must(t, cs, "get_screen_size", map[string]any{})
				if res := e2e.Call(t, cs, "click", map[string]any{"x": 10, "y": 10, "button": "sideways"}); !res.IsError || e2e.ErrorCode(res) != "INVALID_ARGUMENT" {
					t.Fatalf("a bad button: %s", e2e.Text(res))
				}

				// Progress: a call with a token hears about itself while it runs.
				pctx, pcancel := context.WithTimeout(context.Background(), time.Minute)
				defer pcancel()
				res, err := cs.CallTool(pctx, &mcp.CallToolParams{Name: "wait_milliseconds", Arguments: map[string]any{"ms": 2500},
					Meta: mcp.Meta{"progressToken": "p1"}})
				if err != nil || res.IsError {
					t.Fatalf("wait with progress: %v %v", err, res)
				}
				mu.Lock()
				n := len(seen)
				mu.Unlock()
				if n == 0 {
					t.Fatalf("no progress notification for a 2.5 s call")
				}

				// Cancellation: the call ends as cancelled, and the connection serves on.
				cctx, ccancel := context.WithCancel(context.Background())
				time.AfterFunc(300*time.Millisecond, ccancel)
				_, err = cs.CallTool(cctx, &mcp.CallToolParams{Name: "wait_milliseconds", Arguments: map[string]any{"ms": 5000}})
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("a cancelled call: %v", err)
				}
				e2e.Must(t, cs, "get_cursor_position", map[string]any{})

				if transport != "http" {
					return
				}
				var st struct {
					SessionID string `json:"sessionId"`
				}
				e2e.Structured(t, e2e.Call(t, cs, "mcp_W365ComputerUse_StartSession", map[string]any{}), &st)
				e2e.Must(t, cs, "get_screen_size", map[string]any{"sessionId": st.SessionID})
				if era >= "2026-07-28" && !log.has(st.SessionID) {
					t.Fatalf("the 2026 client did not send %s as %s (saw %v)", st.SessionID, host.SessionHeader, log.seen)
				}
				started = append(started, st.SessionID)
			})
		}
	}

	// Both HTTP clients are the same (anonymous loopback) principal: each finds the
	// other's session, and the CLI (the local user) sees both.
	if len(started) != 2 {
		t.Fatalf("sessions started over HTTP: %v", started)
	}
	for i, era := range []string{"2025-11-25", "2026-07-28"} {
		// No tools/list first: a 2026 client that calls a tool it knows by name sends no
		// Mcp-Param-Session, and is served all the same.
		cs, _ := connect(t, "http", era, nil)
		other := started[1-i]
		if res := e2e.Call(t, cs, "mcp_W365ComputerUse_GetSessionDetails", map[string]any{"sessionId": other}); res.IsError {
			t.Fatalf("the %s client cannot find %s: %s", era, other, e2e.Text(res))
		}
	}
	var ids []string
	for _, s := range h.Sessions() {
		ids = append(ids, s.SessionID)
	}
	for _, id := range started {
		if !slices.Contains(ids, id) {
			t.Fatalf("the CLI does not list %s: %s", id, strings.Join(ids, ", "))
		}
	}
}

// A client may list a small entry set (tools/list with _meta w365/toolsets) and widen it
// as it goes; what it has not listed stays callable.
func TestToolsListNarrowsToTheToolsetsAsked(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		cmd := exec.Command(h.Bin, "serve", "--mcp", "--toolsets", "all")
		cmd.Env, cmd.Stderr = h.Env, os.Stderr
		c := mcp.NewClient(&mcp.Implementation{Name: "e2e-toolsets", Version: "1"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: era})
		if err != nil {
			t.Fatal(err)
		}
		count := func(sets ...string) (int, []string) {
			p := &mcp.ListToolsParams{}
			if sets != nil {
				p.Meta = mcp.Meta{host.MetaToolsets: sets}
			}
			res, err := cs.ListTools(ctx, p)
			if err != nil {
				t.Fatalf("%s tools/list %v: %v", era, sets, err)
			}
			var names []string
			for _, tl := range res.Tools {
				names = append(names, tl.Name)
			}
			return len(res.Tools), names
		}
		all, _ := count()
		entry, names := count("session")
		wider, _ := count("session", "desktop")
		if !(0 < entry && entry < wider && wider < all) || !slices.Contains(names, "mcp_W365ComputerUse_StartSession") || slices.Contains(names, "click") {
			t.Fatalf("%s: session %d %v, session+desktop %d, all %d", era, entry, names, wider, all)
		}
		if res := e2e.Call(t, cs, "get_screen_size", map[string]any{}); res.IsError {
			t.Fatalf("%s: a tool outside the listed set: %s", era, e2e.Text(res))
		}
		cs.Close()
		cancel()
	}
}
