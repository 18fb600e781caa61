// Package session keeps the host's sessions: one desktop each (the user's display or
// an embedded virtual one), the resources opened on it, a FIFO queue of calls, and
// idle eviction.
package session

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/tmpdir"
	"github.com/w365/w365/engine/werr"
)

// DefaultName is the session used when none is named.
const DefaultName = "default"

// Options say how sessions get their desktop.
type Options struct {
	// Virtual forces an embedded virtual desktop even when DISPLAY is set.
	Virtual bool
	// Display is the user's display (usually $DISPLAY); empty means none.
	Display string
	Screen  desktop.Options
	// StateRoot holds the sessions' state directories (state.go); empty means
	// DefaultStateRoot().
	StateRoot string
}

// Manager owns every session of a host.
type Manager struct {
	Policy *policy.Policy
	opts   Options

	mu       sync.Mutex
	sessions map[string]*Session
	starting map[string]chan struct{}
	// pending counts, per owner, sessions whose desktop is still starting (for the cap).
	pending map[string]int
	tombs   tombstones
	closed  bool
	// ending counts the sessions taken out of sessions whose end is under way (dropLocked,
	// endDropped): Close waits for them.
	ending sync.WaitGroup
}

// NewManager makes an empty manager.
func NewManager(p *policy.Policy, o Options) *Manager {
	return &Manager{Policy: p, opts: o, sessions: map[string]*Session{}, starting: map[string]chan struct{}{},
		pending: map[string]int{}, tombs: newTombstones(tombstoneCap)}
}

// Session is one desktop with its state.
type Session struct {
	ID string
	// Owner is the principal that made the session (LocalPrincipal for the socket and stdio).
	Owner string
	// LiveToken grants the session's live view; it dies with the session.
	LiveToken string
	Created   time.Time
	Desktop   desktop.Desktop
	Queue     Queue
	// IdleLimit overrides the manager's idle eviction delay for this session (0: default).
	IdleLimit time.Duration

	mu        sync.Mutex
	lastUsed  time.Time
	resources map[string]io.Closer
	order     []string
	ended     bool
	state     string      // the state directory (state.go)
	stateHeld *tmpdir.Dir // held while the session runs (SweepStates passes it by)
	kept      []string    // what its end kept
}

// Info describes a session for listings.
type Info struct {
	ID       string    `json:"id"`
	Owner    string    `json:"owner"`
	Display  string    `json:"display"`
	Virtual  bool      `json:"virtual"`
	HostPID  int       `json:"hostPid"`
	Started  time.Time `json:"started"`
	LastUsed time.Time `json:"lastUsed"`
	Busy     int       `json:"queued"`
	// Env is what a program needs to run on the session's desktop.
	Env map[string]string `json:"env"`
	// LiveViewURL is the session's live view, set by the host when it serves HTTP.
	LiveViewURL string `json:"liveViewUrl,omitempty"`
}

// Get returns the named session, starting it (and its desktop, owned by the local
// principal) when create is set. Concurrent first calls for one name start one desktop.
// The host reaches sessions through Resolve and Start, which apply the lifecycle rules;
// Get is the plain lookup underneath.
func (m *Manager) Get(ctx context.Context, name string, create bool) (*Session, error) {
	if name == "" {
		name = DefaultName
	}
	if !create {
		return m.lookup(name)
	}
	return m.open(ctx, name, LocalPrincipal, 0, false)
}

// lookup returns a live session by id, touched, or NOT_FOUND.
func (m *Manager) lookup(id string) (*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, werr.New(werr.Unavailable, "the host is shutting down")
	}
	if s, ok := m.sessions[id]; ok {
		// Touched under the manager's lock, so the janitor cannot evict a session
		// between this lookup and the call that is about to use it.
		s.Touch()
		return s, nil
	}
	return nil, werr.New(werr.NotFound, "no session %q", id).WithHint("list sessions with `w365 session list`")
}

// open returns the session id, starting it for owner when it does not run. With
// fresh set, a running session of that id is an error (an explicit start). It
// enforces the owner's cap on started sessions (the default sessions do not count).
func (m *Manager) open(ctx context.Context, id, owner string, idle time.Duration, fresh bool) (*Session, error) {
	for {
		m.mu.Lock()
		if m.closed {
			m.mu.Unlock()
			return nil, werr.New(werr.Unavailable, "the host is shutting down")
		}
		if s, ok := m.sessions[id]; ok {
			if err := m.reapDeadLocked(s); err != nil {
				m.mu.Unlock()
				m.endDropped(s)
				return nil, err
			}
			if !fresh {
				s.Touch() // under the manager's lock: the janitor cannot evict it before the call runs
			}
			m.mu.Unlock()
			if fresh {
				return nil, werr.Invalid("a session named %q is already running", id)
			}
			return s, nil
		}
		if ch, ok := m.starting[id]; ok {
			m.mu.Unlock()
			if fresh {
				return nil, werr.Invalid("a session named %q is already starting", id)
			}
			select {
			case <-ch:
				continue
			case <-ctx.Done():
				return nil, werr.Wrap(ctx.Err(), werr.Timeout, "session %q is still starting", id)
			}
		}
		counted := !IsDefaultID(id)
		if counted {
			if err := m.checkCapLocked(owner); err != nil {
				m.mu.Unlock()
				return nil, err
			}
			m.pending[owner]++
		}
		ch := make(chan struct{})
		m.starting[id] = ch
		m.tombs.remove(id) // an explicit start of a person's name brings the name back
		m.mu.Unlock()

		s, err := m.start(ctx, id)

		m.mu.Lock()
		delete(m.starting, id)
		if counted {
			m.pending[owner]--
		}
		close(ch)
		if err == nil {
			s.Owner, s.IdleLimit = owner, idle
			m.sessions[id] = s
		}
		m.mu.Unlock()
		return s, err
	}
}
func (m *Manager) start(ctx context.Context, name string) (*Session, error) {
	var d desktop.Desktop
	var err error
	if name == DefaultName && !m.opts.Virtual && (m.opts.Display != "" || ownDesktopAlways) {
		d, err = existingDesktop(m.opts.Display)
	} else {
		d, err = virtualDesktop(ctx, m.opts.Screen)
	}
	if err != nil {
		return nil, err
	}
	state, held, err := makeState(m.opts.StateRoot, name)
	if err != nil {
		d.Stop()
		return nil, werr.Wrap(err, werr.Unavailable, "cannot create the session's state directory under %s", m.opts.StateRoot)
	}
	now := time.Now()
	return &Session{ID: name, Created: now, lastUsed: now, Desktop: d, resources: map[string]io.Closer{},
		LiveToken: randomHex(32), state: state, stateHeld: held}, nil
}

// End stops a session and everything it opened; its id is refused from then on.
func (m *Manager) End(name string) error {
	m.mu.Lock()
	s, ok := m.sessions[name]
	if ok {
		m.dropLocked(s)
		m.buryLocked(s, "ended")
	}
	m.mu.Unlock()
	if !ok {
		return werr.New(werr.NotFound, "no session %q", name)
	}
	m.endDropped(s)
	return nil
}

// List describes every session, oldest first.
func (m *Manager) List() []Info {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Info, 0, len(m.sessions))
	for _, s := range m.sessions {
		out = append(out, s.Info())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out
}

// EvictIdle ends sessions unused for longer than idle and returns their ids.
func (m *Manager) EvictIdle(idle time.Duration) []string {
	m.mu.Lock()
	var victims []*Session
	for _, s := range m.sessions {
		limit := idle
		if s.IdleLimit > 0 {
			limit = s.IdleLimit
		}
		// A session with a call running or queued is never idle, however long the call takes.
		if s.Idle() > limit && s.Queue.Len() == 0 {
			victims = append(victims, s)
			m.dropLocked(s)
			m.buryLocked(s, "expired after being idle")
		}
	}
	m.mu.Unlock()
	var ids []string
	for _, s := range victims {
		m.endDropped(s)
		ids = append(ids, s.ID)
	}
	return ids
}

// Close ends every session, and waits for the ends already under way (a session whose
// agent disconnected just before), so that a host that stops leaves no session half ended:
// its browser still writing in its state directory, which is not swept. The manager refuses
// new sessions afterwards.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	all := m.sessions
	m.sessions = map[string]*Session{}
	m.mu.Unlock()
	for _, s := range all {
		s.close()
	}
	m.ending.Wait()
}

// dropLocked takes s out of the running sessions, for the caller to end with endDropped
// once m.mu is released.
func (m *Manager) dropLocked(s *Session) {
	delete(m.sessions, s.ID)
	m.ending.Add(1)
}

// endDropped ends s, which dropLocked took out.
func (m *Manager) endDropped(s *Session) {
	defer m.ending.Done()
	s.close()
}

// PIDs returns the processes of every session's desktop (protected from kill/close).
func (m *Manager) PIDs() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	pids := []int{os.Getpid()}
	for _, s := range m.sessions {
		pids = append(pids, s.Desktop.PIDs()...)
	}
	return pids
}

// Touch marks the session used now.
func (s *Session) Touch() {
	s.mu.Lock()
	s.lastUsed = time.Now()
	s.mu.Unlock()
}

// Idle is how long the session has not been used.
func (s *Session) Idle() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Since(s.lastUsed)
}

// OnDisplay says whether the session's desktop is the display named (as UserDisplay names
// the caller's), by this platform's rules for display names.
func (s *Session) OnDisplay(display string) bool { return sameDisplay(display, s.Desktop.Name()) }

// Info describes the session.
func (s *Session) Info() Info {
	s.mu.Lock()
	defer s.mu.Unlock()
	env := map[string]string{"DISPLAY": s.Desktop.Name()}
	for _, k := range []string{"XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS"} {
		if v := s.Desktop.Getenv(k); v != "" {
			env[k] = v
		}
	}
	return Info{ID: s.ID, Owner: s.Owner, Display: s.Desktop.Name(), Virtual: s.Desktop.Virtual(), HostPID: os.Getpid(),
		Started: s.Created, LastUsed: s.lastUsed, Busy: s.Queue.Len(), Env: env}
}

func (s *Session) close() {
	s.mu.Lock()
	s.ended = true
	res, order := s.resources, s.order
	s.resources, s.order = map[string]io.Closer{}, nil
	s.mu.Unlock()
	for i := len(order) - 1; i >= 0; i-- {
		res[order[i]].Close()
	}
	s.Desktop.Stop()
	kept := sweepState(s.state)
	s.stateHeld.Release()
	s.mu.Lock()
	s.kept = kept
	s.mu.Unlock()
}

// Use returns the session's resource under key, opening it on first use. Resources
// are closed in reverse order of opening when the session ends. A resource whose
// open fails is retried on the next call.
func Use[T io.Closer](s *Session, key string, open func(*Session) (T, error)) (T, error) {
	var zero T
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return zero, werr.New(werr.SessionExpired, "session %q has ended", s.ID)
	}
	if r, ok := s.resources[key]; ok {
		s.mu.Unlock()
		t, ok := r.(T)
		if !ok {
			return zero, fmt.Errorf("session resource %q has type %T", key, r)
		}
		return t, nil
	}
	s.mu.Unlock()
	// Calls on one session are serialized by its queue, so opening outside the lock
	// cannot race with another open of the same key from that session's calls.
	r, err := open(s)
	if err != nil {
		return zero, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.resources[key]; ok {
		r.Close()
		return prev.(T), nil
	}
	s.resources[key] = r
	s.order = append(s.order, key)
	return r, nil
}

// Drop closes and forgets the resource under key (for example a crashed browser).
func (s *Session) Drop(key string) {
	s.mu.Lock()
	r, ok := s.resources[key]
	delete(s.resources, key)
	for i, k := range s.order {
		if k == key {
			s.order = append(s.order[:i], s.order[i+1:]...)
			break
		}
	}
	s.mu.Unlock()
	if ok {
		r.Close()
	}
}

// Peek returns the resource under key if it is open, without opening it.
func Peek[T io.Closer](s *Session, key string) (T, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.resources[key].(T)
	return t, ok
}
