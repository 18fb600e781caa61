//go:build linux

// Package xconn opens the host's X connections. A display whose X server this process started
// (a virtual desktop, registered by the display package) is reached only at that server: Connect
// refuses once it has exited and checks who listens on the display's socket, so another X server
// that took the display number is never spoken to, and it authenticates with the server's cookie.
// Any other display (the user's own) is reached the usual way, with the user's XAUTHORITY.
package xconn

import (
	"encoding/hex"
	"io"
	"log"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jezek/xgb"
	"golang.org/x/sys/unix"

	"github.com/w365/w365/engine/werr"
)

// The X library logs every connection made without an Xauthority file (a virtual desktop
// needs none) and every closed connection; errors reach callers as values.
func init() { xgb.Logger = log.New(io.Discard, "", 0) }

// Server is an X server this process started.
type Server struct {
	PID int
	// Cookie is its MIT-MAGIC-COOKIE-1.
	Cookie []byte
	// Err is nil while the server (and the desktop it belongs to) is usable.
	Err func() error
	// HostPID maps a PID as the server records a client (in the session's PID namespace,
	// docs/security.md#one-set-per-session) to the host's; nil: they are the host's.
	HostPID func(int) int
}

var (
	mu      sync.Mutex
	servers = map[string]Server{}
	watches = map[string]*watch{}
)

// Register records the X server of display name (":7") and starts its watch.
func Register(name string, s Server) {
	w := newWatch(name)
	mu.Lock()
	if old := watches[name]; old != nil {
		close(old.stop)
	}
	servers[name], watches[name] = s, w
	mu.Unlock()
	go w.run(s)
}

// Unregister forgets display name's server if it is the one with pid, and stops its watch.
func Unregister(name string, pid int) {
	mu.Lock()
	if s, ok := servers[name]; ok && s.PID == pid {
		delete(servers, name)
		close(watches[name].stop)
		delete(watches, name)
	}
	mu.Unlock()
}

// HostPID is the host's PID of the process that display name's X server and buses call p
// (p itself for a display whose programs share the host's PID namespace).
func HostPID(name string, p int) int {
	mu.Lock()
	s := servers[name]
	mu.Unlock()
	if s.HostPID == nil {
		return p
	}
	return s.HostPID(p)
}

// Connect opens an X connection to the display called name.
func Connect(name string) (*xgb.Conn, error) {
	c, _, err := ConnectPassing(name)
	return c, err
}

// ConnectPassing opens an X connection to the display called name, and for a display
// whose server this process started a Passer that hands that server file descriptors (nil
// for any other display).
func ConnectPassing(name string) (*xgb.Conn, *Passer, error) {
	mu.Lock()
	s, ok := servers[name]
	w := watches[name]
	mu.Unlock()
	if !ok {
		c, err := xgb.NewConnDisplay(name)
		return c, nil, err
	}
	if err := s.Err(); err != nil {
		return nil, nil, err
	}
	if err := w.err(); err != nil {
		return nil, nil, err
	}
	c, err := net.DialTimeout("unix", "/tmp/.X11-unix/X"+strings.TrimPrefix(name, ":"), 5*time.Second)
	if err != nil {
		return nil, nil, err
	}
	if got, known := peerPID(c.(*net.UnixConn)); !known || got != s.PID {
		c.Close()
		return nil, nil, werr.New(werr.SessionExpired, "display %s is served by pid %d, not by the X server w365 started there (pid %d)", name, got, s.PID)
	}
	fc := &fdConn{UnixConn: c.(*net.UnixConn), w: w}
	w.add(fc) // before the setup, which a grab holds too
	x, err := xgb.NewConnNetWithCookieHex(fc, hex.EncodeToString(s.Cookie))
	if err != nil {
		fc.Close()
		return nil, nil, Explain(name, err)
	}
	return x, &Passer{fc}, nil
}

// Passer hands file descriptors to the X server at the other end of a connection.
type Passer struct{ c *fdConn }

// Pass sends a duplicate of fd along with the next request written on the connection; the
// server reads it before that request, so a request that takes a descriptor (MIT-SHM's
// AttachFd) may follow at once.
func (p *Passer) Pass(fd int) error {
	d, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return err
	}
	p.c.mu.Lock()
	p.c.fds = append(p.c.fds, d)
	p.c.mu.Unlock()
	return nil
}

// Abort closes the connection under xgb, which then fails every answer it waits for: a
// way out of a wait for a server that does not answer.
func (p *Passer) Abort() { p.c.Close() }

// Broken says whether the connection was closed under xgb (Abort, or the display's watch):
// its owner must connect again.
func (p *Passer) Broken() bool { return p.c.aborted.Load() }

// fdConn is an X connection whose writes carry the descriptors queued by Pass (SCM_RIGHTS).
type fdConn struct {
	*net.UnixConn
	mu      sync.Mutex
	fds     []int
	w       *watch // the display's, nil for none
	aborted atomic.Bool
}

func (c *fdConn) Write(b []byte) (int, error) {
	c.mu.Lock()
	fds := c.fds
	if len(b) > 0 {
		c.fds = nil
	}
	c.mu.Unlock()
	if len(fds) == 0 || len(b) == 0 {
		return c.UnixConn.Write(b)
	}
	n, _, err := c.UnixConn.WriteMsgUnix(b, unix.UnixRights(fds...), nil)
	closeFDs(fds)
	if err == nil && n < len(b) {
		m, err := c.UnixConn.Write(b[n:])
		return n + m, err
	}
	return n, err
}

// Close closes the connection; xgb calls it once it is done, Abort and the watch before.
func (c *fdConn) Close() error {
	c.aborted.Store(true)
	if c.w != nil {
		c.w.remove(c)
	}
	c.mu.Lock()
	closeFDs(c.fds)
	c.fds = nil
	c.mu.Unlock()
	return c.UnixConn.Close()
}

// abort closes the socket under xgb; the watch's lock is held (Close would take it).
func (c *fdConn) abort() {
	c.aborted.Store(true)
	c.UnixConn.Close()
}

func closeFDs(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}
