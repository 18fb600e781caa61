package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"time"

	"github.com/w365/w365/engine/hostconn"
	"github.com/w365/w365/engine/session"
)

// hello is the first line a client sends on the socket, before MCP starts.
type hello struct {
	W365    int          `json:"w365"`
	Version string       `json:"version"`
	Session string       `json:"session"`
	Serve   ServeOptions `json:"serve"`
	// Policy is the digest of the policy the client was given (--policy), "" for none:
	// a host running another policy refuses it rather than serve it under its own.
	Policy string `json:"policy,omitempty"`
	// Control asks about the host itself instead of starting MCP (hostctl.go).
	Control *controlRequest `json:"control,omitempty"`
	// HTTP makes the connection a request to serve HTTP until it closes.
	HTTP *HTTPOptions `json:"http,omitempty"`
	// Person says the client is w365's own CLI or REPL, which act where the person asks;
	// any other client (an agent's stdio relay) is an agent connection (agents.go).
	Person bool `json:"person,omitempty"`
	// Settings asks for the host's Settings in the reply.
	Settings bool `json:"settings,omitempty"`
}

type helloReply struct {
	OK         bool   `json:"ok"`
	Version    string `json:"version"`
	PID        int    `json:"pid"`
	Background bool   `json:"background"`
	Error      string `json:"error,omitempty"`
	// Policy is the digest of the host's policy.
	Policy string `json:"policy,omitempty"`
	// Settings are the host's, when the hello asked.
	Settings *Settings `json:"settings,omitempty"`
}

// errPolicyMismatch is the hello error of a client whose policy is not the host's.
const errPolicyMismatch = "policy mismatch"

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
	// The hello is read first, so that a refused client reads the reason rather than a broken pipe.
	if why := hostconn.PeerRefused(c); why != "" {
		h.log.Warn("refused a socket client", "why", why)
		b, _ := json.Marshal(helloReply{Version: Version(), Error: why})
		c.Write(append(b, '\n'))
		c.Close()
		return
	}
	var hi hello
	// A background host gives way to a client of another version only while no agent is
	// connected: replacing it would cut the agents off (and end their sessions).
	reply := helloReply{OK: true, Version: Version(), PID: os.Getpid(), Background: h.opts.Background && h.agentClients.Load() == 0, Policy: h.policyDigest()}
	if err := json.Unmarshal(line, &hi); err != nil || hi.W365 != 1 {
		reply.OK, reply.Error = false, "not a w365 client"
	} else if hi.Control != nil {
		b, _ := json.Marshal(reply)
		c.Write(append(b, '\n'))
		h.control(ctx, rc, *hi.Control)
		return
	} else if hi.Version != Version() {
		reply.OK, reply.Error = false, "version mismatch"
	} else if hi.Policy != "" && hi.Policy != reply.Policy {
		reply.OK, reply.Error = false, errPolicyMismatch
	} else if err := hi.Serve.Validate(); err != nil {
		reply.OK, reply.Error = false, err.Error()
	}
	if reply.OK && hi.Settings {
		s := h.Settings()
		reply.Settings = &s
	}
	var hs *httpServer
	if reply.OK && hi.HTTP != nil {
		var err error
		if hs, err = h.listenHTTP(*hi.HTTP); err != nil {
			reply.OK, reply.Error = false, err.Error()
		}
	}
	b, _ := json.Marshal(reply)
	c.Write(append(b, '\n'))
	if hs != nil {
		h.serveJoinedHTTP(ctx, hs, rc)
		return
	}
	if !reply.OK {
		c.Close()
		if reply.Error == "version mismatch" && reply.Background {
			h.log.Info("replaced by a client of another version", "theirs", hi.Version)
			h.Stop()
		}
		return
	}
	if !hi.Person {
		h.agentClients.Add(1)
		defer h.agentClients.Add(-1)
	}
	if hi.Session == "" {
		hi.Session = session.DefaultName
	}
	t := orderedTransport{Transport: lineTransport{r: rc, w: c}, session: hi.Session}
	if !hi.Person && hi.Session == session.DefaultName {
		// An agent the person pointed at a session of their choice (serve --session) acts
		// there as the person; one that names none is an agent connection.
		t.agentHost = h
	}
	ss, err := h.mcpServer(hi.Serve, false).Connect(ctx, t, nil)
	if err != nil {
		c.Close()
		return
	}
	ss.Wait()
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

// serveJoinedHTTP serves HTTP for a `serve --http` that joined this host, until its
// connection closes (the serve process ended) or the host stops.
func (h *Host) serveJoinedHTTP(ctx context.Context, hs *httpServer, c net.Conn) {
	defer c.Close()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		io.Copy(io.Discard, c)
		cancel()
	}()
	go func() {
		<-h.done
		cancel()
	}()
	h.log.Info("serving HTTP for a joined serve", "addr", hs.ln.Addr().String())
	if err := hs.serve(ctx); err != nil {
		h.log.Warn("joined HTTP server stopped", "err", err)
	}
}
