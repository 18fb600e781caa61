package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// version is set at release time with -ldflags "-X github.com/w365/w365/commands.version=v1.2.3".
var version = "dev"

var versionOnce = sync.OnceValue(func() string {
	v := version
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += "+" + s.Value[:12]
			}
		}
	}
	// A rebuilt binary must not talk to a host running the old code: add the
	// executable's size and modification time (a stat, cheap for one-shot CLI calls).
	if exe, err := os.Executable(); err == nil {
		if st, err := os.Stat(exe); err == nil {
			v += fmt.Sprintf("-%x.%x", st.Size(), st.ModTime().UnixNano())
		}
	}
	return v
})

// Version identifies this exact build; client and host must agree on it.
func Version() string { return versionOnce() }

// RuntimeDir is where the host's socket, lock and log live (mode 0700).
func RuntimeDir() (string, error) {
	dir := os.Getenv("W365_RUNTIME_DIR")
	if dir == "" {
		if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
			dir = filepath.Join(x, "w365")
		} else {
			dir = filepath.Join(os.TempDir(), "w365-"+strconv.Itoa(os.Getuid()))
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", werr.Wrap(err, werr.Unavailable, "cannot create runtime directory")
	}
	// Refuse a directory somebody else controls: the socket drives this user's desktop.
	st, err := os.Lstat(dir)
	if err != nil {
		return "", werr.Wrap(err, werr.Unavailable, "cannot stat runtime directory")
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !st.IsDir() || (ok && int(sys.Uid) != os.Getuid()) || st.Mode().Perm()&0o077 != 0 {
		return "", werr.New(werr.Unavailable, "runtime directory %s is not a private directory of this user", dir)
	}
	return dir, nil
}

// SocketPath is the host's unix socket.
func SocketPath() (string, error) {
	dir, err := RuntimeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "host.sock"), nil
}

// HostOptions configure a host.
type HostOptions struct {
	Policy   *policy.Policy
	Sessions session.Options
	// IdleExit ends a background host after this long without calls or connections (0: never).
	IdleExit time.Duration
	// Background marks a host started by the CLI: a client of another version may replace it.
	Background bool
	Log        *slog.Logger
	// BrowserHeadless launches session browsers without a window.
	BrowserHeadless bool
	// CDPEndpoint attaches the default session to a running browser instead of launching one.
	CDPEndpoint string
}

// Host is the long-lived process that owns the sessions and serves MCP.
type Host struct {
	Sessions *session.Manager
	Policy   *policy.Policy
	Started  time.Time
	opts     HostOptions
	log      *slog.Logger

	serversMu sync.Mutex
	servers   map[string]*mcp.Server

	lastUsed atomic.Int64
	conns    atomic.Int64
	ln       net.Listener
	pidFile  string
	done     chan struct{}
	stopOnce sync.Once
}

// NewHost builds a host; Listen and Serve make it reachable.
func NewHost(o HostOptions) *Host {
	if o.Policy == nil {
		o.Policy = policy.Default()
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	h := &Host{
		Sessions: session.NewManager(o.Policy, o.Sessions),
		Policy:   o.Policy,
		Started:  time.Now(),
		opts:     o,
		log:      o.Log,
		servers:  map[string]*mcp.Server{},
		done:     make(chan struct{}),
	}
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
		h.Sessions.Close()
		close(h.done)
	})
}

// hello is the first line a client sends on the socket, before MCP starts.
type hello struct {
	W365    int          `json:"w365"`
	Version string       `json:"version"`
	Session string       `json:"session"`
	Serve   ServeOptions `json:"serve"`
}

type helloReply struct {
	OK         bool   `json:"ok"`
	Version    string `json:"version"`
	PID        int    `json:"pid"`
	Background bool   `json:"background"`
	Error      string `json:"error,omitempty"`
}

// Listen binds the host socket. A socket file nobody answers on is stale and replaced;
// a live one means another host runs, which is UNAVAILABLE.
func (h *Host) Listen() error {
	path, err := SocketPath()
	if err != nil {
		return err
	}
	if c, err := net.DialTimeout("unix", path, 200*time.Millisecond); err == nil {
		c.Close()
		return werr.New(werr.Unavailable, "another w365 host is already listening on %s", path)
	}
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot listen on %s", path)
	}
	os.Chmod(path, 0o600)
	h.ln = ln
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

func (h *Host) serveConn(ctx context.Context, c net.Conn) {
	h.conns.Add(1)
	h.touch()
	defer func() { h.conns.Add(-1); h.touch() }()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, rc, err := readLine(c)
	c.SetReadDeadline(time.Time{})
	if err != nil {
		c.Close()
		return
	}
	var hi hello
	reply := helloReply{OK: true, Version: Version(), PID: os.Getpid(), Background: h.opts.Background}
	if err := json.Unmarshal(line, &hi); err != nil || hi.W365 != 1 {
		reply.OK, reply.Error = false, "not a w365 client"
	} else if hi.Version != Version() {
		reply.OK, reply.Error = false, "version mismatch"
	} else if err := hi.Serve.Validate(); err != nil {
		reply.OK, reply.Error = false, err.Error()
	}
	b, _ := json.Marshal(reply)
	c.Write(append(b, '\n'))
	if !reply.OK {
		c.Close()
		if reply.Error == "version mismatch" && h.opts.Background {
			h.log.Info("replaced by a client of another version", "theirs", hi.Version)
			h.Stop()
		}
		return
	}
	if hi.Session == "" {
		hi.Session = session.DefaultName
	}
	t := orderedTransport{Transport: &mcp.IOTransport{Reader: rc, Writer: c}, session: hi.Session}
	ss, err := h.mcpServer(hi.Serve).Connect(ctx, t, nil)
	if err != nil {
		c.Close()
		return
	}
	ss.Wait()
}

// ServeStdio serves one MCP client on stdin/stdout until it disconnects.
func (h *Host) ServeStdio(ctx context.Context, o ServeOptions, sessionName string) error {
	t := orderedTransport{Transport: &mcp.StdioTransport{}, session: sessionName}
	ss, err := h.mcpServer(o).Connect(ctx, t, nil)
	if err != nil {
		return err
	}
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
		if ids := h.Sessions.EvictIdle(h.Policy.IdleTimeout()); len(ids) > 0 {
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

// readLine reads one '\n'-terminated line from c and returns it with a conn that
// yields whatever followed the line before reading c again, so nothing MCP sends
// after the hello is lost. It reads in chunks: the hello costs one or two syscalls.
func readLine(c net.Conn) ([]byte, net.Conn, error) {
	var buf []byte
	chunk := make([]byte, 4096)
	for len(buf) < 64<<10 {
		n, err := c.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			rest := buf[i+1:]
			if len(rest) == 0 {
				return buf[:i], c, nil
			}
			return buf[:i], &prefixConn{Conn: c, prefix: append([]byte(nil), rest...)}, nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
	return nil, nil, errors.New("hello line too long")
}

// prefixConn returns prefix before reading from the connection.
type prefixConn struct {
	net.Conn
	prefix []byte
}

func (p *prefixConn) Read(b []byte) (int, error) {
	if len(p.prefix) > 0 {
		n := copy(b, p.prefix)
		p.prefix = p.prefix[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}

// CloseWrite half-closes the underlying unix connection (used by the stdio relay).
func (p *prefixConn) CloseWrite() error {
	if uc, ok := p.Conn.(*net.UnixConn); ok {
		return uc.CloseWrite()
	}
	return nil
}

// ClientOptions say which session and tools a socket client wants.
type ClientOptions struct {
	Session string
	Serve   ServeOptions
	// NoStart fails instead of starting a background host.
	NoStart bool
	// HostArgs are extra arguments for a host this client starts (e.g. --virtual).
	HostArgs []string
}

// DialHost connects to the host, starting or replacing it when needed, and returns
// the raw stream positioned after the hello exchange.
func DialHost(ctx context.Context, o ClientOptions) (net.Conn, error) {
	return dialHost(ctx, o, nil)
}

// dialHost is DialHost sending first (MCP bytes) in the same write as the hello. A host
// that refuses the hello closes the connection without reading them, so a retry on
// another connection cannot run them twice.
func dialHost(ctx context.Context, o ClientOptions, first []byte) (net.Conn, error) {
	path, err := SocketPath()
	if err != nil {
		return nil, err
	}
	started := false
	for attempt := 0; ; attempt++ {
		c, reply, err := tryDial(path, o, first)
		if err == nil && reply.OK {
			return c, nil
		}
		if c != nil {
			c.Close()
		}
		if err == nil && reply.Error == "version mismatch" {
			if !reply.Background {
				return nil, werr.New(werr.Unavailable, "a w365 host of another version (pid %d) is serving an agent on this socket", reply.PID).
					WithHint("stop it, or set W365_RUNTIME_DIR to use a separate host")
			}
			// The old host stops itself on seeing us; wait for the socket to go.
			waitGone(path, reply.PID, 5*time.Second)
		} else if err == nil {
			return nil, werr.New(werr.Unavailable, "host refused the connection: %s", reply.Error)
		}
		if o.NoStart {
			return nil, werr.New(werr.Unavailable, "no w365 host is running").WithHint("start one with `w365 serve`")
		}
		if attempt >= 3 {
			return nil, werr.New(werr.Unavailable, "cannot reach or start the w365 host").WithHint("see %s", filepath.Join(filepath.Dir(path), "host.log"))
		}
		if !started || err == nil {
			if err := startHost(ctx, path, o.HostArgs); err != nil {
				return nil, err
			}
			started = true
		}
	}
}

func tryDial(path string, o ClientOptions, first []byte) (net.Conn, helloReply, error) {
	var reply helloReply
	c, err := net.DialTimeout("unix", path, time.Second)
	if err != nil {
		return nil, reply, err
	}
	b, _ := json.Marshal(hello{W365: 1, Version: Version(), Session: o.Session, Serve: o.Serve})
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write(append(append(b, '\n'), first...)); err != nil {
		c.Close()
		return nil, reply, err
	}
	line, rc, err := readLine(c)
	if err != nil {
		c.Close()
		return nil, reply, err
	}
	c.SetDeadline(time.Time{})
	if err := json.Unmarshal(line, &reply); err != nil {
		c.Close()
		return nil, reply, err
	}
	return rc, reply, nil
}

func waitGone(path string, pid int, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	syscall.Kill(pid, syscall.SIGKILL)
}

// startHost launches a background host under a lock, so that concurrent first calls
// start one host, and waits until its socket answers.
func startHost(ctx context.Context, path string, extra []string) error {
	dir := filepath.Dir(path)
	lock, err := os.OpenFile(filepath.Join(dir, "host.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot open host lock")
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot lock host lock")
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	// Somebody may have started it while we waited for the lock.
	if c, err := net.DialTimeout("unix", path, 200*time.Millisecond); err == nil {
		c.Close()
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return werr.Wrap(err, werr.Internal, "cannot find own executable")
	}
	logf, err := os.OpenFile(filepath.Join(dir, "host.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot open host log")
	}
	defer logf.Close()
	cmd := exec.Command(exe, append([]string{"serve", "--background"}, extra...)...)
	cmd.Stdin = nil
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot start the w365 host")
	}
	pid := cmd.Process.Pid
	cmd.Process.Release()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("unix", path, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		if syscall.Kill(pid, 0) != nil {
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			return werr.New(werr.Unavailable, "the w365 host exited at start").WithHint("see %s", logf.Name())
		}
		select {
		case <-ctx.Done():
			return werr.Wrap(ctx.Err(), werr.Timeout, "waiting for the w365 host")
		case <-time.After(10 * time.Millisecond):
		}
	}
	return werr.New(werr.Timeout, "the w365 host did not start within 15s").WithHint("see %s", logf.Name())
}
