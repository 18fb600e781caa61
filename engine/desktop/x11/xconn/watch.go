//go:build linux

package xconn

import (
	"encoding/hex"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/werr"
)

// An X server answers nobody else while one of its clients holds a server grab, and any
// client may hold one for as long as it likes (a program in a session, on purpose or in a
// bug). xgb waits for a reply without end and closes a connection only after one more
// round trip, so a grab would hold every call on the display. The watch of a display whose
// server this process started asks the server for a round trip every watchEvery while w365
// has connections open to it; an answer that takes longer than AnswerLimit stalls the
// display: each of those connections is closed under xgb (its waiting calls fail at once),
// and new ones are refused with Stalled's error until the server answers again
// (docs/architecture.md#x-connections).
const (
	AnswerLimit = 15 * time.Second
	watchEvery  = 2 * time.Second
)

// watch follows one display's server (see above).
type watch struct {
	name  string
	stop  chan struct{}
	mu    sync.Mutex
	conns map[*fdConn]struct{}
	// stalled is the error a call on the display gets while the server does not answer.
	stalled error
}

func newWatch(name string) *watch {
	return &watch{name: name, stop: make(chan struct{}), conns: map[*fdConn]struct{}{}}
}

func (w *watch) add(c *fdConn) {
	w.mu.Lock()
	w.conns[c] = struct{}{}
	w.mu.Unlock()
}

func (w *watch) remove(c *fdConn) {
	w.mu.Lock()
	delete(w.conns, c)
	w.mu.Unlock()
}

func (w *watch) err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.stalled
}

// run probes the server until stop closes; s is how to reach it.
func (w *watch) run(s Server) {
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	var probe *probeConn
	defer func() {
		if probe != nil {
			probe.close()
		}
	}()
	for {
		select {
		case <-w.stop:
			return
		case <-t.C:
		}
		w.mu.Lock()
		idle := len(w.conns) == 0 && w.stalled == nil
		w.mu.Unlock()
		if idle || s.Err() != nil {
			continue
		}
		answered := make(chan *probeConn, 1)
		go func(p *probeConn) {
			if p == nil {
				p = dialProbe(w.name, s)
			}
			if p != nil && p.roundTrip() {
				answered <- p
				return
			}
			answered <- nil
		}(probe)
		probe = nil
		timer := time.NewTimer(AnswerLimit)
		select {
		case <-w.stop:
			timer.Stop()
			go func() { // close it once it is known
				if p := <-answered; p != nil {
					p.close()
				}
			}()
			return
		case p := <-answered:
			timer.Stop()
			probe = p
			w.mu.Lock()
			w.stalled = nil
			w.mu.Unlock()
		case <-timer.C:
			w.stall()
			go func() {
				if p := <-answered; p != nil {
					p.close()
				}
			}()
		}
	}
}

// stall closes every connection to the display under xgb and refuses new ones.
func (w *watch) stall() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.stalled = werr.New(werr.Timeout, "the X server of display %s has not answered for %s", w.name, AnswerLimit).
		WithHint("a program on the display holds a server grab (or the server is stuck): close it, or try again later")
	for c := range w.conns {
		c.abort()
	}
}

// probeConn is the watch's own connection, kept between probes while they are answered.
type probeConn struct {
	raw *fdConn
	x   *xgb.Conn
}

// dialProbe connects to the server as ConnectPassing does, or returns nil. Its connection
// is no connection of w365's to watch: one that a stall leaves waiting is closed once the
// server answers (run).
func dialProbe(name string, s Server) *probeConn {
	c, err := net.DialTimeout("unix", "/tmp/.X11-unix/X"+strings.TrimPrefix(name, ":"), 5*time.Second)
	if err != nil {
		return nil
	}
	if got, known := peerPID(c.(*net.UnixConn)); !known || got != s.PID {
		c.Close()
		return nil
	}
	fc := &fdConn{UnixConn: c.(*net.UnixConn)}
	x, err := xgb.NewConnNetWithCookieHex(fc, hex.EncodeToString(s.Cookie))
	if err != nil {
		fc.Close()
		return nil
	}
	go Drain(x)
	return &probeConn{raw: fc, x: x}
}

func (p *probeConn) roundTrip() bool {
	_, err := xproto.GetInputFocus(p.x).Reply()
	return err == nil
}

func (p *probeConn) close() { p.raw.Close() }

// Drain discards a connection's events until it closes: xgb stops reading replies when
// its event queue is full.
func Drain(c *xgb.Conn) {
	for {
		if ev, err := c.WaitForEvent(); ev == nil && err == nil {
			return
		}
	}
}

// Stalled is the error calls on display name get while its server does not answer (see
// above), nil otherwise or for a display w365 did not start.
func Stalled(name string) error {
	if w := watchOf(name); w != nil {
		return w.err()
	}
	return nil
}

// Explain is err, or Stalled's error when the display's server has stopped answering: an
// X call that failed then failed for that reason.
func Explain(name string, err error) error {
	if s := Stalled(name); s != nil && err != nil {
		return s
	}
	return err
}

func watchOf(name string) *watch {
	mu.Lock()
	defer mu.Unlock()
	return watches[name]
}
