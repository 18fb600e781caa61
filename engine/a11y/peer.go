package a11y

import (
	"bufio"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"
)

// peerConn is a buffered stream to one application's private D-Bus server. godbus
// writes every message with its own syscall and reads a message in several small reads;
// a walk sends thousands of small calls, so writes are held while a batch is queued and
// flushed once, and reads go through a buffer. Messages are unchanged.
type peerConn struct {
	c net.Conn
	r *bufio.Reader

	mu    sync.Mutex
	w     *bufio.Writer
	holds int // while > 0, writes stay in the buffer until flush
}

func (p *peerConn) Read(b []byte) (int, error) { return p.r.Read(b) }

func (p *peerConn) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	n, err := p.w.Write(b)
	if err == nil && p.holds == 0 {
		err = p.w.Flush()
	}
	return n, err
}

func (p *peerConn) Close() error { return p.c.Close() }

// hold makes writes wait in the buffer until release.
func (p *peerConn) hold() {
	p.mu.Lock()
	p.holds++
	p.mu.Unlock()
}

// flush writes what is buffered; release also ends one hold.
func (p *peerConn) flush(release bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if release && p.holds > 0 {
		p.holds--
	}
	p.w.Flush()
}

// peer is a direct connection to one application.
type peer struct {
	conn *dbus.Conn
	pc   *peerConn
}

// dialPeer connects to a "unix:path=..." or "unix:abstract=..." address and authenticates.
func dialPeer(addr string, timeout time.Duration) (*peer, error) {
	path := ""
	for _, part := range strings.Split(strings.TrimPrefix(addr, "unix:"), ",") {
		if v, ok := strings.CutPrefix(part, "path="); ok {
			path = v
		} else if v, ok := strings.CutPrefix(part, "abstract="); ok {
			path = "@" + v
		}
	}
	if !strings.HasPrefix(addr, "unix:") || path == "" {
		return nil, &net.AddrError{Err: "unsupported address", Addr: addr}
	}
	nc, err := net.DialTimeout("unix", path, timeout)
	if err != nil {
		return nil, err
	}
	nc.SetDeadline(time.Now().Add(timeout))
	pc := &peerConn{c: nc, r: bufio.NewReaderSize(nc, 64<<10), w: bufio.NewWriterSize(nc, 64<<10)}
	conn, err := dbus.NewConn(pc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	if err := conn.Auth(nil); err != nil {
		conn.Close()
		return nil, err
	}
	nc.SetDeadline(time.Time{})
	return &peer{conn: conn, pc: pc}, nil
}
