// Package snapshot builds accessibility snapshots of the active browser tab,
// gives the nodes worth acting on short refs (e5) that stay stable within a
// document, and acts on those refs.
//
// The tree is computed in the page by one script per document (walkJS: ARIA
// roles, names, values and states; open and closed shadow roots; same-origin iframes in
// place) rather than with Accessibility.getFullAXTree, which measured 3-10x
// slower and 8x larger on the wire here (5,000 elements: 1-4 s, 5 MB). The
// browser's tree is asked only about what no script can read: the roles, names
// and states custom elements give themselves through ElementInternals
// (internals.go).
// Cross-origin iframes that run in their own renderer (OOPIFs) are walked
// through their own target sessions. A ref is keyed on the document (tab
// target, OOPIF target path, frame and loader id) and the element's id in
// that document's registry (a WeakMap kept in an isolated JavaScript world,
// out of reach of page scripts), so it dies with its document or node.
package snapshot

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/werr"
)

// Defaults and limits of a snapshot.
const (
	DefaultMaxDepth = 5
	MaxMaxDepth     = 10
	DefaultMaxChars = 40000
	// keepSnapshots is how many snapshots a Store remembers of each caller.
	keepSnapshots = 64
	// keepCallers is how many callers' snapshots a Store remembers; past it the
	// caller whose newest snapshot is oldest is forgotten.
	keepCallers = 16
)

// Callers: every caller of a session (an agent's MCP connection, the person's REPL,
// the person's shell commands; browser.WithCaller marks its calls) has a "latest"
// snapshot of its own, so that one caller's snapshot never changes what "latest" or a
// bare ref means to another (docs/sessions.md). Refs stay numbered per document,
// whoever took the snapshot: e4 is the same element for everyone.

// Options tune Take.
type Options struct {
	// MaxDepth limits the depth of the tree (1-10; 0 means DefaultMaxDepth).
	MaxDepth int
	// IncludeIframes descends into iframes, cross-origin ones included.
	IncludeIframes bool
	// Target limits the snapshot to a subtree: a ref of an earlier snapshot
	// of this document, or a CSS selector (main frame).
	Target string
	// MaxChars caps the text (0 means DefaultMaxChars).
	MaxChars int
}

// Node is one node of the snapshot tree.
type Node struct {
	Ref      string `json:"ref,omitempty"`
	Role     string `json:"role"`
	Name     string `json:"name,omitempty"`
	Value    string `json:"value,omitempty"`
	Text     string `json:"text,omitempty"`
	URL      string `json:"url,omitempty"`
	Checked  string `json:"checked,omitempty"`
	Pressed  string `json:"pressed,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	Invalid  bool   `json:"invalid,omitempty"`
	Expanded *bool  `json:"expanded,omitempty"`
	Selected bool   `json:"selected,omitempty"`
	Level    int    `json:"level,omitempty"`
	// Children are the child nodes (Node objects; typed any so that the
	// schema of this recursive type stays finite).
	Children []any `json:"children,omitempty" jsonschema:"child nodes, each shaped like this node"`

	kids   []*Node
	target *RefTarget
}

// Result is one snapshot.
type Result struct {
	SnapshotID string  `json:"snapshotId"`
	URL        string  `json:"url"`
	Title      string  `json:"title,omitempty"`
	Text       string  `json:"text"`
	Nodes      []*Node `json:"nodes"`
	Refs       int     `json:"refs"`
	Frames     int     `json:"frames"`
	// Truncated says the text was cut at MaxChars; Note says how to narrow it.
	Truncated bool `json:"truncated,omitempty"`
	// DepthLimited counts nodes left out by maxDepth.
	DepthLimited int    `json:"depthLimited,omitempty"`
	Note         string `json:"note,omitempty"`
}

// RefTarget is where a ref points: a DOM node of one document.
type RefTarget struct {
	// Targets are the out-of-process iframe targets from the tab down to the
	// node's frame (empty for the tab's own process).
	Targets  []string `json:"targets,omitempty"`
	FrameID  string   `json:"frameId"`
	LoaderID string   `json:"loaderId"`
	// Node is the element's id in its document's walk registry.
	Node int64  `json:"node"`
	Role string `json:"role"`
	Name string `json:"name,omitempty"`
}

func (r RefTarget) key() string {
	return fmt.Sprintf("%s/%s/%s/%d", strings.Join(r.Targets, ">"), r.FrameID, r.LoaderID, r.Node)
}

func (r RefTarget) describe(ref string) string {
	if r.Name != "" {
		return fmt.Sprintf("%s %q [ref=%s]", r.Role, r.Name, ref)
	}
	return fmt.Sprintf("%s [ref=%s]", r.Role, ref)
}

type snap struct {
	id     string
	caller string
	doc    string // main frame loader id
	refs   map[string]RefTarget
}

// Store keeps a session's snapshots and the ref numbering of the current
// document. It lives in the host, so refs outlive the CLI process that asked.
type Store struct {
	mu     sync.Mutex
	prefix string
	seq    int
	doc    string
	next   int
	keys   map[string]string
	snaps  map[string]*snap
	order  []string // oldest first, every caller's
	latest map[string]string
	// errorFrames maps out-of-process iframes that showed Chromium's error page to the
	// URL that failed; a frame that navigates elsewhere is looked at again.
	errorFrames map[string]string
}

func (s *Store) errorFrame(frameID, url string) bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	u, ok := s.errorFrames[frameID]
	return ok && u == url
}

func (s *Store) setErrorFrame(frameID, url string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.errorFrames == nil || len(s.errorFrames) >= maxErrorFrames {
		s.errorFrames = map[string]string{}
	}
	s.errorFrames[frameID] = url
}

// maxErrorFrames bounds the memo of failed iframes; when full it starts over.
const maxErrorFrames = 1000

// NewStore returns an empty store.
func NewStore() *Store {
	var b [3]byte
	_, _ = rand.Read(b[:])
	return &Store{prefix: "s" + hex.EncodeToString(b[:]), keys: map[string]string{}, snaps: map[string]*snap{}, latest: map[string]string{}}
}

// Close forgets every snapshot.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.snaps, s.keys, s.order, s.latest = map[string]*snap{}, map[string]string{}, nil, map[string]string{}
	return nil
}

// Latest is the id of the newest snapshot the caller of ctx took ("" when none).
func (s *Store) Latest(ctx context.Context) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.latest[browser.CallerOf(ctx)]
}

// begin starts a snapshot of document doc for caller; refs restart when doc changed.
func (s *Store) begin(doc, caller string) *snap {
	s.mu.Lock()
	defer s.mu.Unlock()
	if doc != s.doc {
		s.doc, s.next, s.keys = doc, 0, map[string]string{}
	}
	s.seq++
	return &snap{id: fmt.Sprintf("%s-%d", s.prefix, s.seq), caller: caller, doc: doc, refs: map[string]RefTarget{}}
}

// ref returns the ref of a node, the same one for the same node of the same document.
func (s *Store) ref(sn *snap, t RefTarget) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := t.key()
	r, ok := s.keys[k]
	if !ok || sn.doc != s.doc {
		if sn.doc != s.doc {
			// Another snapshot moved on meanwhile: keep this one self-consistent.
			r = fmt.Sprintf("e%d", len(sn.refs)+1)
		} else {
			s.next++
			r = fmt.Sprintf("e%d", s.next)
			s.keys[k] = r
		}
	}
	sn.refs[r] = t
	return r
}

func (s *Store) commit(sn *snap) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.snaps[sn.id] = sn
	s.order = append(s.order, sn.id)
	s.latest[sn.caller] = sn.id
	mine := 0
	for _, id := range s.order {
		if s.snaps[id].caller == sn.caller {
			mine++
		}
	}
	if mine > keepSnapshots {
		s.forget(func(o *snap) bool { return o.caller == sn.caller })
	}
	if len(s.latest) > keepCallers {
		// The caller whose newest snapshot is oldest: the first in order whose id is its latest.
		for _, id := range s.order {
			if o := s.snaps[id]; s.latest[o.caller] == id {
				gone := o.caller
				delete(s.latest, gone)
				for s.forget(func(o *snap) bool { return o.caller == gone }) {
				}
				break
			}
		}
	}
}

// forget drops the oldest snapshot that drop selects; false when none.
func (s *Store) forget(drop func(*snap) bool) bool {
	for i, id := range s.order {
		if drop(s.snaps[id]) {
			delete(s.snaps, id)
			s.order = append(s.order[:i], s.order[i+1:]...)
			return true
		}
	}
	return false
}

// lookup finds a ref of a snapshot.
func (s *Store) lookup(snapshotID, ref string) (*snap, RefTarget, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if snapshotID == "" {
		return nil, RefTarget{}, werr.Invalid("snapshotId is required").WithHint("take a snapshot with browser_snapshot")
	}
	ref = strings.TrimPrefix(strings.TrimSpace(ref), "ref=")
	if ref == "" {
		return nil, RefTarget{}, werr.Invalid("ref is required, for example e5")
	}
	sn, ok := s.snaps[snapshotID]
	if !ok {
		return nil, RefTarget{}, werr.New(werr.SnapshotExpired, "snapshot %q is unknown or too old", snapshotID).
			WithHint("take a new snapshot")
	}
	t, ok := sn.refs[ref]
	if !ok {
		return nil, RefTarget{}, werr.New(werr.NotFound, "snapshot %s has no ref %q", snapshotID, ref).
			WithHint("%s", sn.refsHint())
	}
	return sn, t, nil
}

// refsHint says which refs a snapshot has (the lowest and highest), for a caller that named
// one it has not: a ref of another snapshot, or one cut by maxDepth.
func (sn *snap) refsHint() string {
	lo, hi := 0, 0
	for r := range sn.refs {
		if n, err := strconv.Atoi(strings.TrimPrefix(r, "e")); err == nil {
			if lo == 0 || n < lo {
				lo = n
			}
			hi = max(hi, n)
		}
	}
	if len(sn.refs) == 0 {
		return "that snapshot has no refs: take a new one (browser_find reaches what maxDepth cut)"
	}
	return fmt.Sprintf("that snapshot's %d refs lie between e%d and e%d: use one it shows, or take a new one (browser_find reaches what maxDepth cut)", len(sn.refs), lo, hi)
}

// findRef looks a ref up in the newest snapshots of the current document.
func (s *Store) findRef(doc, ref string) (RefTarget, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := len(s.order) - 1; i >= 0; i-- {
		sn := s.snaps[s.order[i]]
		if sn.doc != doc {
			continue
		}
		if t, ok := sn.refs[ref]; ok {
			return t, true
		}
	}
	return RefTarget{}, false
}

func expired(format string, args ...any) *werr.Error {
	return werr.New(werr.SnapshotExpired, format, args...).WithHint("take a new snapshot")
}
