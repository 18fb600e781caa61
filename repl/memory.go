package repl

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/cli"
	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/commands/tool"
)

// What the REPL remembers between lines, per session: the last snapshot (its id,
// filled in for ref commands, and its refs, offered by Tab) and whether the session's
// browser runs (only then does Tab ask it for tabs: asking would start it).
type memory struct {
	mu      sync.Mutex
	snap    map[string]snapMemory
	browser map[string]bool
	// image is the last image a call returned, for the preview.
	image []byte
}

// takeImage returns the image of the line that just ran, once.
func (m *memory) takeImage() []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	img := m.image
	m.image = nil
	return img
}

type snapMemory struct {
	id   string
	refs []cobra.Completion
}

// remembering wraps the host client of one session and notes what its results say.
type remembering struct {
	next    host.Caller
	mem     *memory
	session string
}

func (c remembering) Call(ctx context.Context, t *tool.Tool, args map[string]any) (*host.Outcome, error) {
	o, err := c.next.Call(ctx, t, args)
	if err == nil {
		c.mem.note(c.session, t, o)
	}
	return o, err
}

// snapNode is the part of a snapshot node the REPL keeps.
type snapNode struct {
	Ref      string     `json:"ref"`
	Role     string     `json:"role"`
	Name     string     `json:"name"`
	Children []snapNode `json:"children"`
}

func (m *memory) note(session string, t *tool.Tool, o *host.Outcome) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(o.Images) > 0 {
		m.image = o.Images[0].Data
	}
	if t.Toolset == "browser" || t.Toolset == "snapshot" {
		if m.browser == nil {
			m.browser = map[string]bool{}
		}
		m.browser[session] = true
	}
	var res struct {
		SnapshotID string     `json:"snapshotId"`
		Nodes      []snapNode `json:"nodes"`
		Matches    []snapNode `json:"matches"`
	}
	if json.Unmarshal(o.JSON, &res) != nil || res.SnapshotID == "" {
		return
	}
	var refs []cobra.Completion
	var walk func([]snapNode)
	walk = func(ns []snapNode) {
		for _, n := range ns {
			if n.Ref != "" {
				desc := n.Role
				if n.Name != "" {
					desc += fmt.Sprintf(" %q", n.Name)
				}
				refs = append(refs, cobra.CompletionWithDesc(n.Ref, desc))
			}
			walk(n.Children)
		}
	}
	walk(res.Nodes)
	walk(res.Matches)
	if m.snap == nil {
		m.snap = map[string]snapMemory{}
	}
	// A find answers on the snapshot it made; its refs are the matches only, so keep
	// the whole list of the last full snapshot when the id is the same.
	if old, ok := m.snap[session]; ok && old.id == res.SnapshotID && len(res.Nodes) == 0 {
		return
	}
	m.snap[session] = snapMemory{id: res.SnapshotID, refs: refs}
}

func (m *memory) lastSnapshot(session string) snapMemory {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.snap[session]
}

func (m *memory) browserUsed(session string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.browser[session]
}

// fillSnapshot adds --snapshot-id with the session's last snapshot to a ref command
// that names none, so `browser click-ref --ref e3` works right after a snapshot.
func (r *runner) fillSnapshot(root *cobra.Command, words []string) []string {
	cmd, _, err := root.Find(words)
	if err != nil || cmd.Annotations["tool"] == "" {
		return words
	}
	t := commands.Lookup(cmd.Annotations["tool"])
	if t == nil || t.InputSchema().Properties["snapshotId"] == nil {
		return words
	}
	for _, w := range words {
		if w == "--snapshot-id" || strings.HasPrefix(w, "--snapshot-id=") || w == "--" {
			return words
		}
	}
	id := r.mem.lastSnapshot(lineSession(words, r.currentSession())).id
	if id == "" {
		return words
	}
	return append(slices.Clone(words), "--snapshot-id", id)
}

// mayCarrySecrets says whether the words of a line run a tool whose records hide some of
// its arguments (host.MayCarrySecrets). A line that does not parse cannot be told apart
// from one: the caller keeps it out too.
func (r *runner) mayCarrySecrets(words []string) bool {
	if len(words) > 0 && words[0] == "w365" {
		words = words[1:]
	}
	cmd, _, err := r.newRoot(io.Discard).Find(words)
	if err != nil {
		return false
	}
	t := commands.Lookup(cmd.Annotations["tool"])
	return t != nil && host.MayCarrySecrets(t)
}

// lineSession is the session a line acts in: its own --session, else the REPL's.
func lineSession(words []string, def string) string {
	for i, w := range words {
		if w == "--session" && i+1 < len(words) {
			return words[i+1]
		}
		if v, ok := strings.CutPrefix(w, "--session="); ok {
			return v
		}
	}
	return def
}

func (r *runner) currentSession() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.session != "" {
		return r.session
	}
	return r.opts.Globals.Session
}

// complete gives Tab the live values of a kind: sessions and windows from the host,
// refs from the last snapshot, tabs from the browser when it runs.
func (r *runner) complete(kind, session string) []cobra.Completion {
	if kind == "ref" {
		return r.mem.lastSnapshot(session).refs
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	call := func(t *tool.Tool, args map[string]any) any {
		o, err := r.caller(&cli.Globals{Session: session}).Call(ctx, t, args)
		if err != nil {
			return nil
		}
		return o.Out
	}
	var out []cobra.Completion
	switch kind {
	case "session":
		if l, ok := call(commands.ListSessions, nil).(*commands.SessionListOut); ok {
			for _, s := range l.Sessions {
				out = append(out, cobra.CompletionWithDesc(s.SessionID, "display "+s.Display))
			}
		}
	case "window":
		if l, ok := call(commands.ListWindows, nil).(*commands.WindowsOut); ok {
			for _, w := range l.Windows {
				if w.Title != "" {
					out = append(out, cobra.CompletionWithDesc(w.Title, w.ProcessName))
				}
			}
		}
	case "tab":
		if !r.mem.browserUsed(session) {
			return nil
		}
		if l, ok := call(commands.BrowserListTabs, nil).(*commands.TabsOut); ok {
			for _, t := range l.Tabs {
				out = append(out, cobra.CompletionWithDesc(fmt.Sprint(t.Index), t.Title))
			}
		}
	}
	return out
}

func newClientID() string {
	b := make([]byte, 6)
	rand.Read(b)
	return "repl-" + hex.EncodeToString(b)
}
