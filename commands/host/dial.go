package host

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/w365/w365/engine/child"
	"github.com/w365/w365/engine/hostconn"
	"github.com/w365/w365/engine/werr"
)

// ClientOptions say which session and tools a socket client wants.
type ClientOptions struct {
	Session string
	Serve   ServeOptions
	// Policy is the digest of the policy the client was given ("" for none); a running
	// host with another policy is an error, never used silently.
	Policy string
	// NoStart fails instead of starting a background host.
	NoStart bool
	// HostArgs are extra arguments for a host this client starts (e.g. --virtual).
	HostArgs []string
	// Err, when set, is why the options are unusable (an invalid policy file): every
	// dial fails with it.
	Err error
	// ClientName is how calls name their front-end to observers (default w365-cli);
	// ClientID tells this client's calls from others' (the REPL skips its own).
	ClientName, ClientID string
	// Display is the caller's display (session.UserDisplay) when the user named no
	// session: a call that would land on a session of another display is refused instead.
	Display string
	// OnProgress, when set, asks for progress reports on long calls and receives them.
	OnProgress func(Progress)
	// HTTP asks the host to serve HTTP for as long as the connection stays open (serve --http
	// joining a running host).
	HTTP *HTTPOptions
	// Person marks w365's own CLI and REPL (Client sets it): calls naming no session act on
	// the person's default session, never an agent's (agents.go).
	Person bool
	// settings asks the host for its Settings in the hello reply (DialHostSettings).
	settings bool
}

// DialHost connects to the host, starting or replacing it when needed, and returns
// the raw stream positioned after the hello exchange.
func DialHost(ctx context.Context, o ClientOptions) (net.Conn, error) {
	c, _, err := dialHost(ctx, o, nil)
	return c, err
}

// DialHostSettings is DialHost that also returns the host's Settings, for a client that
// joins only a host whose settings agree with its own (serve --mcp).
func DialHostSettings(ctx context.Context, o ClientOptions) (net.Conn, Settings, error) {
	o.settings = true
	c, reply, err := dialHost(ctx, o, nil)
	if err != nil {
		return nil, Settings{}, err
	}
	if reply.Settings == nil {
		c.Close()
		return nil, Settings{}, werr.New(werr.Internal, "the w365 host (pid %d) did not say its settings", reply.PID)
	}
	return c, *reply.Settings, nil
}

// dialHost is DialHost sending first (MCP bytes) in the same write as the hello. A host
// that refuses the hello closes the connection without reading them, so a retry on
// another connection cannot run them twice.
func dialHost(ctx context.Context, o ClientOptions, first []byte) (net.Conn, helloReply, error) {
	if o.Err != nil {
		return nil, helloReply{}, o.Err
	}
	path, err := SocketPath()
	if err != nil {
		return nil, helloReply{}, err
	}
	started := false
	for attempt := 0; ; attempt++ {
		c, reply, err := tryDial(path, o, first)
		if err == nil && reply.OK {
			return c, reply, nil
		}
		if c != nil {
			c.Close()
		}
		if refused(err) {
			return nil, reply, err
		}
		if err == nil && reply.Error == "version mismatch" {
			if !reply.Background {
				return nil, reply, werr.New(werr.Unavailable, "a w365 host of another version (pid %d) is serving an agent on this socket", reply.PID).
					WithHint("stop it, or set W365_RUNTIME_DIR to use a separate host")
			}
			// The old host stops itself on seeing us; wait for the socket to go.
			waitGone(reply.PID, 5*time.Second)
		} else if err == nil && reply.Error == errPolicyMismatch {
			return nil, reply, werr.New(werr.BlockedByPolicy, "the running w365 host (pid %d) runs policy %s, not the policy given (%s)", reply.PID, reply.Policy, o.Policy).
				WithDetail("hostPolicy", reply.Policy).WithDetail("policy", o.Policy).
				WithHint("stop that host (it exits after its idle timeout), drop --policy to use its policy, or set W365_RUNTIME_DIR to run a separate host with yours")
		} else if err == nil {
			return nil, reply, werr.New(werr.Unavailable, "host refused the connection: %s", reply.Error)
		}
		if o.NoStart {
			return nil, reply, werr.New(werr.Unavailable, "no w365 host is running").WithHint("start one with `w365 serve`")
		}
		if attempt >= 3 {
			return nil, reply, werr.New(werr.Unavailable, "cannot reach or start the w365 host").WithHint("see %s", filepath.Join(filepath.Dir(path), "host.log"))
		}
		if !started || err == nil {
			if err := startHost(ctx, path, o.HostArgs); err != nil {
				return nil, reply, err
			}
			started = true
		}
	}
}

// refused says a dial failed with hostconn.ErrServerRefused.
func refused(err error) bool { return errors.Is(err, hostconn.ErrServerRefused) }

func tryDial(path string, o ClientOptions, first []byte) (net.Conn, helloReply, error) {
	var reply helloReply
	c, err := hostconn.Dial(context.Background(), path, time.Second)
	if err != nil {
		return nil, reply, err
	}
	h := helloLine{hello: hello{W365: 1, Version: Version(), Session: o.Session, Serve: o.Serve, Policy: o.Policy, Person: o.Person, Settings: o.settings}}
	if o.HTTP != nil {
		h.HTTP, _ = json.Marshal(o.HTTP)
	}
	b, _ := json.Marshal(h)
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

// helloLine is the hello a dialling client writes: the HTTP options encoded only when
// given, so that a tool call builds no encoder for their types (nor the control request's,
// which a dial never sends): 0.1 ms of a one-shot call (perf).
type helloLine struct {
	hello
	Control json.RawMessage `json:"control,omitempty"`
	HTTP    json.RawMessage `json:"http,omitempty"`
}

// waitGone waits for a replaced host to exit, and kills it when it takes too long.
func waitGone(pid int, d time.Duration) {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if !hostconn.Alive(pid) {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	hostconn.Kill(pid)
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
	unlock, err := hostconn.Lock(lock)
	if err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot lock host lock")
	}
	defer unlock()
	// Somebody may have started it while we waited for the lock.
	if c, err := hostconn.Dial(ctx, path, 200*time.Millisecond); err == nil {
		c.Close()
		return nil
	} else if refused(err) {
		return err
	}
	exe, err := child.Self()
	if err != nil {
		return werr.Wrap(err, werr.Internal, "cannot find own executable")
	}
	logf, err := os.OpenFile(filepath.Join(dir, "host.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot open host log")
	}
	defer logf.Close()
	cmd := exec.Command(exe, append([]string{"serve", "--background"}, extra...)...)
	if p, err := os.Executable(); err == nil {
		cmd.Args[0] = p // what ps shows, not /proc/self/exe
	}
	cmd.Stdin = nil
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = hostconn.Detached()
	if err := cmd.Start(); err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot start the w365 host")
	}
	// Waiting reaps the host when it exits, in a client that lives longer (the REPL),
	// and tells a host that dies at start from one still starting.
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := hostconn.Dial(ctx, path, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		} else if refused(err) {
			return err
		}
		select {
		case <-exited:
			return werr.New(werr.Unavailable, "the w365 host exited at start").WithHint("see %s", logf.Name())
		case <-ctx.Done():
			return werr.Wrap(ctx.Err(), werr.Timeout, "waiting for the w365 host")
		case <-time.After(10 * time.Millisecond):
		}
	}
	return werr.New(werr.Timeout, "the w365 host did not start within 15s").WithHint("see %s", logf.Name())
}
