//go:build linux

package atspi

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/werr"
)

// batchTimeout bounds a whole batch, desktop.CallTimeout the wait for each of its answers:
// a loaded application that keeps answering a level of a thousand calls is slow, not hung.
// At a load of about 25, l3afpad and Evince answered every call but took more than 3 s for a
// level's batch, and every walk of theirs ended in a TIMEOUT (docs/accessibility.md).
const batchTimeout = 4 * desktop.CallTimeout

// maxInFlight caps pipelined calls on the accessibility bus (its max_replies_per_connection
// is 50000; Chromium answers one call at a time on its main thread anyway).
const maxInFlight = 1024

// ref names one accessible object: the application's bus name and the object path.
type ref struct {
	bus  string
	path dbus.ObjectPath
}

// call is one pending method call of a batch.
type call struct {
	r      ref
	method string
	args   []any
	out    []any // pointers to store the reply in
	err    error
}

// batch pipelines many method calls: all are written to the socket before any reply is
// awaited, so a level of the tree costs about one round trip, not one per property.
type batch struct {
	conn *dbus.Conn
	// peers are direct (peer-to-peer) connections to applications by bus name; calls to
	// them skip the bus daemon, which halves the hops of every call.
	peers map[string]*peer
	calls []*call
}

func (b *batch) add(r ref, method string, out []any, args ...any) *call {
	c := &call{r: r, method: method, args: args, out: out}
	b.calls = append(b.calls, c)
	return c
}

// run sends the calls and stores the replies: calls to applications with a peer
// connection go over it (one goroutine per peer), the rest through the bus daemon
// with godbus, all at the same time. Per-call failures (an object that vanished, an
// interface it lacks) stay in call.err; a timeout (no answer for desktop.CallTimeout, or the
// batch past batchTimeout) or a dead connection is returned.
func (b *batch) run(ctx context.Context) error {
	calls := b.calls
	b.calls = nil
	if len(calls) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, batchTimeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	byPeer := map[*peer][]*call{}
	var viaBus []*call
	for _, c := range calls {
		if p := b.peers[c.r.bus]; p != nil {
			byPeer[p] = append(byPeer[p], c)
		} else {
			viaBus = append(viaBus, c)
		}
	}
	var wg sync.WaitGroup
	errs := make([]error, 0, len(byPeer)+1)
	var mu sync.Mutex
	for p, cs := range byPeer {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := p.run(ctx, cs, deadline); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	if err := b.runBus(ctx, viaBus); err != nil {
		errs = append(errs, err)
	}
	wg.Wait()
	if len(errs) == 0 {
		return nil
	}
	if ctx.Err() != nil && errors.Is(ctx.Err(), context.Canceled) {
		return werr.Wrap(ctx.Err(), werr.Cancelled, "accessibility query cancelled")
	}
	for _, err := range errs {
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			return werr.Wrap(err, werr.Timeout, "an application left accessibility calls unanswered for %s", desktop.CallTimeout)
		}
	}
	return werr.Wrap(errors.Join(errs...), werr.Unavailable, "the accessibility connection failed").
		WithRetryable(true)
}

// runBus pipelines calls through the bus daemon with godbus's asynchronous API; it gives up
// when no answer came for desktop.CallTimeout.
func (b *batch) runBus(ctx context.Context, calls []*call) error {
	if len(calls) == 0 {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var silent atomic.Bool
	quiet := time.AfterFunc(desktop.CallTimeout, func() { silent.Store(true); cancel() })
	defer quiet.Stop()
	ch := make(chan *dbus.Call, min(len(calls), maxInFlight))
	owner := make(map[*dbus.Call]*call, min(len(calls), maxInFlight))
	next, pending := 0, 0
	var fatal error
	for next < len(calls) || pending > 0 {
		for next < len(calls) && pending < maxInFlight {
			c := calls[next]
			next++
			dc := b.conn.Object(c.r.bus, c.r.path).GoWithContext(ctx, c.method, dbus.FlagNoAutoStart, ch, c.args...)
			owner[dc] = c
			pending++
		}
		dc := <-ch
		pending--
		quiet.Reset(desktop.CallTimeout)
		c := owner[dc]
		delete(owner, dc)
		if dc.Err != nil {
			c.err = dc.Err
			if errors.Is(dc.Err, context.DeadlineExceeded) || errors.Is(dc.Err, context.Canceled) || errors.Is(dc.Err, dbus.ErrClosed) {
				fatal = dc.Err
			}
			continue
		}
		if len(c.out) > 0 {
			c.err = dc.Store(c.out...)
			c.cutStrings()
		}
	}
	if quiet.Stop(); silent.Load() {
		return context.DeadlineExceeded
	}
	return fatal
}

// maxString is the most of a string an application answers that the host keeps, in bytes:
// 16 KiB, what a value of desktop.MaxValueChars characters takes at most. An application of
// the session answers with strings of any size (a name of 8 MiB each for 4 buttons), and
// the host kept each whole for the tree, in its own process, outside the session's limits,
// and copied it into every result: those 4 grew the host's resident peak by 575 to 780 MiB
// in one get_accessibility_tree (docs/security.md#what-the-host-reads-from-a-session).
const maxString = 4 * desktop.MaxValueChars

// maxMessage is the largest message the host reads from an application (the accessibility
// bus's max_message_size too, display.a11yBusConfig; it was 1 GB there, 64 MiB here): 16
// MiB. The largest answer a walk asks for is an application's GetItems, its whole tree.
const maxMessage = 16 << 20

// cut is s up to maxString bytes (at a character), a copy of its own when cut, so that the
// reply it came from is not kept with it.
func cut(s string) string {
	if len(s) <= maxString {
		return s
	}
	return strings.Clone(strings.ToValidUTF8(s[:maxString], ""))
}

// cutStrings cuts every string c stored through godbus (a peer's decoder cuts its own).
func (c *call) cutStrings() {
	for _, o := range c.out {
		switch p := o.(type) {
		case *string:
			*p = cut(*p)
		case *dbus.Variant:
			if v, ok := p.Value().(string); ok && len(v) > maxString {
				*p = dbus.MakeVariant(cut(v))
			}
		case *[]cacheItem:
			for i := range *p {
				it := &(*p)[i]
				it.Name, it.Description = cut(it.Name), cut(it.Description)
			}
		}
	}
}
