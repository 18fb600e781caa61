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
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jezek/xgb"

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
}

var (
	mu      sync.Mutex
	servers = map[string]Server{}
)

// Register records the X server of display name (":7").
func Register(name string, s Server) {
	mu.Lock()
	servers[name] = s
	mu.Unlock()
}

// Unregister forgets display name's server if it is the one with pid.
func Unregister(name string, pid int) {
	mu.Lock()
	if servers[name].PID == pid {
		delete(servers, name)
	}
	mu.Unlock()
}

// Connect opens an X connection to the display called name.
func Connect(name string) (*xgb.Conn, error) {
	mu.Lock()
	s, ok := servers[name]
	mu.Unlock()
	if !ok {
		return xgb.NewConnDisplay(name)
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	c, err := net.DialTimeout("unix", "/tmp/.X11-unix/X"+strings.TrimPrefix(name, ":"), 5*time.Second)
	if err != nil {
		return nil, err
	}
	if got, known := peerPID(c.(*net.UnixConn)); !known || got != s.PID {
		c.Close()
		return nil, werr.New(werr.SessionExpired, "display %s is served by pid %d, not by the X server w365 started there (pid %d)", name, got, s.PID)
	}
	return xgb.NewConnNetWithCookieHex(c, hex.EncodeToString(s.Cookie))
}

// ServerUID is the uid the X server of display name runs as, when this process started it
// (a virtual desktop's, confined: on a root host not root, docs/security.md#confinement).
func ServerUID(name string) (int, bool) {
	mu.Lock()
	s, ok := servers[name]
	mu.Unlock()
	if !ok {
		return 0, false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.PID) + "/status")
	if err != nil {
		return 0, false
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "Uid:" {
			uid, err := strconv.Atoi(f[1])
			return uid, err == nil
		}
	}
	return 0, false
}
