// Package host is the long-lived w365 process: it owns the sessions, serves MCP on
// the user's socket, on stdio and over streamable HTTP, and runs every tool call in
// its session's queue. Its client half (Client, DialHost) is what the CLI and the
// REPL use to reach it.
package host

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/hostconn"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// Options configure a host.
type Options struct {
	Policy   *policy.Policy
	Sessions session.Options
	// IdleExit ends a background host after this long without calls or connections (0: never).
	IdleExit time.Duration
	// Background marks a host started by the CLI: a client of another version may replace it.
	Background bool
	Log        *slog.Logger
	Browser    tool.BrowserConfig
	// PolicyFile names the policy's file for host status ("" for the defaults).
	PolicyFile string
	// Trace, when set, traces every session from its first call (serve --trace DIR).
	Trace *TraceOptions
}

// Host is the long-lived process that owns the sessions and serves MCP.
type Host struct {
	sessions *session.Manager
	policy   *policy.Policy
	// policyDigest is policy.Digest, which every connection's hello carries: encoding the
	// whole policy for each one-shot call cost the host 0.04 ms of it (perf).
	policyDigest func() string
	opts         Options
	log          *slog.Logger

	// results are the images calls returned, as resources (results.go).
	results resultStore
	// tasks are the calls run as tasks of the MCP tasks extension (tasks.go).
	tasks taskStore

	serversMu sync.Mutex
	servers   map[string]*mcp.Server

	// httpBase is the base URL of the host's HTTP server (nil while it serves none).
	httpBase atomic.Pointer[string]
	// httpOrigins are the own origins (serverOrigins) of every HTTP listener the host has
	// had, which sessions' browsers are started refusing.
	httpOriginsMu sync.Mutex
	httpOrigins   map[string]bool
	// routeName is the name a router knows this host by (HTTPOptions.RouteName), nil
	// without one.
	routeName atomic.Pointer[string]
	// liveFrames holds, per session ID, when its live view last sent a frame (time.Time).
	liveFrames sync.Map
	// people holds, per session (*session.Session), what a person holds of it (person.go).
	people sync.Map

	lastUsed atomic.Int64
	conns    atomic.Int64
	ln       net.Listener
	pidFile  string
	done     chan struct{}
	stopOnce sync.Once
	// agentClients counts the open MCP connections on the socket of clients other than
	// w365's CLI and REPL (agents, through serve --mcp).
	agentClients atomic.Int64

	// Seen by host status, watch and trace (hostctl.go, observe.go, trace.go).
	started   time.Time
	endpoints endpoints
	calls     hub
	traces    traceSet
	// approvals are the calls waiting for a person's yes (approval.go).
	approvals approvalSet
	// agents are the principals of the agent connections open now (agents.go).
	agents agentConns
}

// New builds a host; Listen and Serve make it reachable.
func New(o Options) *Host {
	if o.Policy == nil {
		o.Policy = policy.Default()
	}
	if o.Browser.StateDir == "" {
		// Browser profiles (cookies, saved logins) live in the private runtime directory,
		// never under the temporary directory, which uploads may read from.
		if dir, err := RuntimeDir(); err == nil {
			o.Browser.StateDir = dir
		}
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	h := &Host{
		sessions:     session.NewManager(o.Policy, o.Sessions),
		policy:       o.Policy,
		policyDigest: sync.OnceValue(o.Policy.Digest),
		opts:         o,
		log:          o.Log,
		servers:      map[string]*mcp.Server{},
		done:         make(chan struct{}),
		started:      time.Now(),
	}
	h.traces.all = o.Trace
	h.touch()
	return h
}

func (h *Host) touch() { h.lastUsed.Store(time.Now().UnixNano()) }

// Done is closed when the host stops.
func (h *Host) Done() <-chan struct{} { return h.done }

// Stop ends every session and closes the socket. It is safe to call more than once.
func (h *Host) Stop() {
	h.stopOnce.Do(func() {
		if h.ln != nil {
			h.ln.Close()
			if b, err := os.ReadFile(h.pidFile); err == nil && strings.TrimSpace(string(b)) == strconv.Itoa(os.Getpid()) {
				os.Remove(h.pidFile)
			}
		}
		h.traces.stopAll()
		h.sessions.Close()
		close(h.done)
	})
}

// Listen binds the host socket. A socket file nobody answers on is stale and replaced;
// a live one means another host runs, which is UNAVAILABLE.
func (h *Host) Listen() error {
	path, err := SocketPath()
	if err != nil {
		return err
	}
	if c, err := hostconn.Dial(context.Background(), path, 200*time.Millisecond); err == nil {
		c.Close()
		return werr.New(werr.Unavailable, "another w365 host is already listening on %s", path)
	} else if refused(err) {
		return err
	}
	ln, endpoint, err := hostconn.Listen(path)
	if err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot listen on %s: %v", path, err)
	}
	h.ln = ln
	h.endpoints.add(endpoint)
	h.pidFile = filepath.Join(filepath.Dir(path), "host.pid")
	os.WriteFile(h.pidFile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600)
	return nil
}

// Serve accepts socket clients until the host stops, and evicts idle sessions and
// (for a background host) exits when idle.
func (h *Host) Serve(ctx context.Context) {
	go h.janitor(ctx)
	for {
		c, err := h.ln.Accept()
		if err != nil {
			select {
			case <-h.done:
				return
			default:
			}
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		go h.serveConn(ctx, c)
	}
}

// ServeStdio serves one MCP client on stdin/stdout until it disconnects.
func (h *Host) ServeStdio(ctx context.Context, o ServeOptions, sessionName string) error {
	t := orderedTransport{Transport: lineTransport{r: os.Stdin, w: nopCloser{os.Stdout}}, session: sessionName}
	if sessionName == "" || sessionName == session.DefaultName {
		t.agentHost = h
	}
	ss, err := h.mcpServer(o, false).Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	h.endpoints.add("stdio")
	h.conns.Add(1)
	defer h.conns.Add(-1)
	return ss.Wait()
}

func (h *Host) janitor(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var freedAt int64
	for {
		select {
		case <-h.done:
			return
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		// A second after calls stop, hand the heap the last burst grew back to the system: the
		// host collects rarely while busy (see serve), and an idle host should be small.
		if last := h.lastUsed.Load(); last != freedAt && time.Since(time.Unix(0, last)) > time.Second {
			debug.FreeOSMemory()
			freedAt = last
		}
		if ids := h.sessions.EvictIdle(h.policy.IdleTimeout()); len(ids) > 0 {
			h.log.Info("evicted idle sessions", "ids", ids)
		}
		if h.opts.IdleExit > 0 && h.conns.Load() == 0 &&
			time.Since(time.Unix(0, h.lastUsed.Load())) > h.opts.IdleExit {
			h.log.Info("idle, exiting")
			h.Stop()
			return
		}
	}
}
