package session

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/w365/w365/engine/werr"
)

// LocalPrincipal is the user who owns the host: every caller on the host socket and on stdio.
const LocalPrincipal = "local"

// tombstoneCap bounds how many ended ids the host remembers; the oldest go first.
const tombstoneCap = 4096

// A session's lifecycle, as the host applies it:
//   - only a principal's default session exists without being made; any other id is made
//     by Start (StartSession, create_browser_session, `w365 session start NAME`);
//   - an id nobody made is NOT_FOUND, and starts nothing;
//   - an ended, closed or expired id is SESSION_EXPIRED (not retryable) for the host's life;
//   - another principal's session is NOT_FOUND, exactly as if it did not exist, so that an
//     answer never tells a caller which ids exist, nor whose they are (docs/security.md);
//   - a principal may run at most the policy's maxSessionsPerPrincipal sessions besides
//     its default one.

// AgentPrincipal names the first agent connection of the local user (an MCP client that is
// not w365's own CLI or REPL) wherever virtual sessions can be made and the policy's
// agentActsAsYou is off, whether the person's default session is their own display or a
// virtual one (no DISPLAY, --virtual): each such connection is a principal of its own, so that its
// default session is a confined virtual session of its own ("default-agent", then
// "default-agent-2" for a second connection at the same time), and it sees no other agent's
// sessions nor the person's.
const AgentPrincipal = "agent"

// AgentN is the principal of the nth agent connection open at once (1: AgentPrincipal).
func AgentN(n int) string {
	if n <= 1 {
		return AgentPrincipal
	}
	return AgentPrincipal + "-" + strconv.Itoa(n)
}

// isAgent says whether owner is an agent connection's principal (AgentN).
func isAgent(owner string) bool {
	if owner == AgentPrincipal {
		return true
	}
	num, ok := strings.CutPrefix(owner, AgentPrincipal+"-")
	n, err := strconv.Atoi(num)
	return ok && err == nil && n > 1 && AgentN(n) == owner
}

// NewID returns a fresh session id carrying 128 random bits.
func NewID() string { return "s-" + randomHex(16) }

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// DefaultID is the id of owner's implicit default session: "default" for the local
// principal, "default-agent" (-2, ...) for an agent connection's, "default-" and a digest of
// the principal for anyone else.
func DefaultID(owner string) string {
	if owner == LocalPrincipal || owner == "" {
		return DefaultName
	}
	if isAgent(owner) {
		return DefaultName + "-" + owner
	}
	sum := sha256.Sum256([]byte(owner))
	return DefaultName + "-" + hex.EncodeToString(sum[:8])
}

// IsDefaultID says whether id is some principal's default session.
func IsDefaultID(id string) bool { return id == DefaultName || strings.HasPrefix(id, DefaultName+"-") }

// MaxNameLen caps the length of a session name a person gives.
const MaxNameLen = 64

var nameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// ValidateName checks a session name a person gave: letters, digits, '.', '_' and '-',
// starting with a letter or digit, at most MaxNameLen bytes, and not a default id.
func ValidateName(name string) error {
	switch {
	case name == "":
		return werr.Invalid("a session name must not be empty")
	case len(name) > MaxNameLen:
		return werr.Invalid("a session name has at most %d characters, got %d", MaxNameLen, len(name))
	case !nameRE().MatchString(name):
		return werr.Invalid("session name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", name)
	case IsDefaultID(name):
		return werr.Invalid("session name %q is reserved for default sessions", name)
	}
	return nil
}

// StartOptions describe a session to start.
type StartOptions struct {
	// Owner is the principal the session belongs to.
	Owner string
	// Name is the id a person chose; empty means a fresh random id.
	Name string
	// IdleLimit ends the session after this long unused (0: the policy's session timeout).
	IdleLimit time.Duration
}

// Start makes a new session for o.Owner with its own virtual desktop.
func (m *Manager) Start(ctx context.Context, o StartOptions) (*Session, error) {
	id := o.Name
	if id == "" {
		id = NewID()
	} else if err := ValidateName(id); err != nil {
		return nil, err
	}
	return m.open(ctx, id, o.Owner, o.IdleLimit, true)
}

// Resolve returns the session id names for caller, by the lifecycle rules above: "default"
// (or "") is the caller's default session, started on first use; any other id must be
// running and be the caller's, or any principal's with anyOwner (the local user attaching).
func (m *Manager) Resolve(ctx context.Context, caller, id string, anyOwner bool) (*Session, error) {
	if id == "" || id == DefaultName {
		return m.open(ctx, DefaultID(caller), caller, 0, false)
	}
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, werr.New(werr.Unavailable, "the host is shutting down")
	}
	s, live := m.sessions[id]
	visible := func(owner string) bool { return anyOwner || owner == caller }
	if live && visible(s.Owner) {
		if err := m.reapDeadLocked(s); err != nil {
			m.mu.Unlock()
			m.endDropped(s)
			return nil, err
		}
		s.Touch()
		m.mu.Unlock()
		return s, nil
	}
	if t, ok := m.tombs.get(id); ok && visible(t.owner) {
		m.mu.Unlock()
		return nil, werr.New(werr.SessionExpired, "session %q %s at %s and cannot be reopened", id, t.reason, t.at.Format(time.RFC3339)).
			WithHint("start a new session")
	}
	names := m.namesLocked(caller, anyOwner)
	m.mu.Unlock()
	return nil, notFound(id, names)
}

// EndFor ends session id for caller (anyOwner: whoever owns it) and returns the files its
// end kept (Session.Kept). A caller's default session ends like any other but comes back
// on its next use.
func (m *Manager) EndFor(caller, id string, anyOwner bool) ([]string, error) {
	if id == DefaultName {
		id = DefaultID(caller)
	}
	m.mu.Lock()
	s, live := m.sessions[id]
	if !live || !(anyOwner || s.Owner == caller) {
		var err error
		if t, ok := m.tombs.get(id); ok && (anyOwner || t.owner == caller) {
			err = werr.New(werr.SessionExpired, "session %q already %s", id, t.reason)
		} else {
			err = notFound(id, m.namesLocked(caller, anyOwner))
		}
		m.mu.Unlock()
		return nil, err
	}
	m.dropLocked(s)
	m.buryLocked(s, "ended")
	m.mu.Unlock()
	m.endDropped(s)
	return s.Kept(), nil
}

// EndOwnedBy ends every session of owner (an agent connection that closed) and returns
// their ids. gone runs once no call can reach them any more, before they are stopped.
func (m *Manager) EndOwnedBy(owner string, gone func()) []string {
	m.mu.Lock()
	var ended []*Session
	for _, s := range m.sessions {
		if s.Owner == owner {
			m.dropLocked(s)
			m.buryLocked(s, "ended with its agent's connection")
			ended = append(ended, s)
		}
	}
	m.mu.Unlock()
	gone()
	var ids []string
	for _, s := range ended {
		m.endDropped(s)
		ids = append(ids, s.ID)
	}
	sort.Strings(ids)
	return ids
}

// ListFor describes caller's sessions (every session with anyOwner), oldest first.
func (m *Manager) ListFor(caller string, anyOwner bool) []Info {
	var out []Info
	for _, i := range m.List() {
		if anyOwner || i.Owner == caller {
			out = append(out, i)
		}
	}
	return out
}

// Lookup returns a running session by its exact id, whoever owns it (the live view's check).
func (m *Manager) Lookup(id string) (*Session, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	return s, ok
}

func (m *Manager) checkCapLocked(owner string) error {
	limit := m.Policy.MaxSessionsPerPrincipal
	if limit <= 0 {
		return nil
	}
	n := m.pending[owner]
	for id, s := range m.sessions {
		if s.Owner == owner && !IsDefaultID(id) {
			n++
		}
	}
	if n >= limit {
		return werr.New(werr.ResourceExhausted, "%d sessions are running for this principal, the most the policy allows (maxSessionsPerPrincipal)", n).
			WithHint("end one with mcp_W365ComputerUse_EndSession or close_browser_session")
	}
	return nil
}

// namesLocked are the ids a caller may be told about: its own sessions, live or ended.
func (m *Manager) namesLocked(caller string, anyOwner bool) []string {
	var names []string
	for id, s := range m.sessions {
		if anyOwner || s.Owner == caller {
			names = append(names, id)
		}
	}
	for _, t := range m.tombs.order {
		if anyOwner || t.owner == caller {
			names = append(names, t.id)
		}
	}
	return names
}

// notFound is the NOT_FOUND of an unknown id, with the nearest of names as a hint.
func notFound(id string, names []string) error {
	e := werr.New(werr.NotFound, "no session %q", shortID(id))
	if near := Nearest(id, names, 3); len(near) > 0 {
		return e.WithHint("did you mean %s?", strings.Join(near, ", ")).WithDetail("nearest", near)
	}
	return e.WithHint("start one with mcp_W365ComputerUse_StartSession or `w365 session start NAME`")
}

// Nearest returns up to n of names closest to id by edit distance, within a third of
// id's length (at least 2 edits), closest first.
func Nearest(id string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	limit := max(2, len(id)/3)
	var cs []cand
	for _, name := range slices.Compact(slices.Sorted(slices.Values(names))) {
		if d := editDistance(id, name); d <= limit {
			cs = append(cs, cand{name, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for _, c := range cs[:min(n, len(cs))] {
		out = append(out, c.name)
	}
	return out
}

// editDistance is the Levenshtein distance of a and b in bytes (ids are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// tombstone remembers an ended session so that its id is refused, not reborn.
type tombstone struct {
	id, owner, reason string
	at                time.Time
}

// tombstones is a bounded FIFO set of ended ids.
type tombstones struct {
	cap   int
	byID  map[string]*tombstone
	order []*tombstone
}

func newTombstones(n int) tombstones { return tombstones{cap: n, byID: map[string]*tombstone{}} }

func (t *tombstones) get(id string) (*tombstone, bool) {
	ts, ok := t.byID[id]
	return ts, ok
}

func (t *tombstones) add(ts *tombstone) {
	t.remove(ts.id)
	if len(t.order) >= t.cap {
		delete(t.byID, t.order[0].id)
		t.order = t.order[1:]
	}
	t.byID[ts.id] = ts
	t.order = append(t.order, ts)
}

func (t *tombstones) remove(id string) {
	if _, ok := t.byID[id]; !ok {
		return
	}
	delete(t.byID, id)
	t.order = slices.DeleteFunc(t.order, func(x *tombstone) bool { return x.id == id })
}

// buryLocked records the end of s. A default session leaves no tombstone: it exists
// implicitly and comes back on its next use.
func (m *Manager) buryLocked(s *Session, reason string) {
	if IsDefaultID(s.ID) {
		return
	}
	m.tombs.add(&tombstone{id: s.ID, owner: s.Owner, reason: reason, at: time.Now()})
}

// reapDeadLocked ends s when its desktop died (its apps went with their display) and
// says so, once: the caller ends s (endDropped). A default session comes back on its next use, on a
// new desktop; any other is buried like an ended one.
func (m *Manager) reapDeadLocked(s *Session) error {
	err := s.Desktop.Err()
	if err == nil {
		return nil
	}
	m.dropLocked(s)
	m.buryLocked(s, "lost its desktop")
	e := werr.New(werr.SessionExpired, "session %q has ended: %v; its windows and applications are gone", shortID(s.ID), werr.As(err).Message)
	if IsDefaultID(s.ID) {
		return e.WithHint("the next call starts the session again on a new desktop")
	}
	return e.WithHint("start a new session")
}

// Ended says whether the session has ended.
func (s *Session) Ended() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ended
}

// shortID is id cut for a message: an id from a caller may be any length.
func shortID(id string) string {
	if len(id) > 80 {
		return id[:80] + "..."
	}
	return id
}
