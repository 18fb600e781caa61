package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/werr"
)

// Runner runs f on the active tab's CDP target (browser.Browser.Run).
type Runner interface {
	Run(ctx context.Context, f func(ctx context.Context, t *chromedp.Target) error) error
	// Act runs an action and settles the page; a dialog the action opened is in its result.
	Act(ctx context.Context, f func(ctx context.Context, t *chromedp.Target) error) (*browser.ActionResult, error)
	// ActionWait is how long an action waits for its element to become actionable.
	ActionWait() time.Duration
}

// builder turns walk results (one per document) into one Node tree.
type builder struct {
	c        *conn
	st       *Store
	sn       *snap
	maxDepth int
	iframes  bool
	pageURL  *url.URL
	frames   int
	cut      int
	find     bool // keep every node's target for Find; assign no refs

	// frames fetched ahead by prefetch, by session and walk id
	mu      sync.Mutex
	fetched map[frameKey]*fetchedFrame
}

type frameKey struct {
	s  *sess
	id int64
}

type fetchedFrame struct {
	cs     *sess
	w      *jsWalk
	failed frameFailed
}

// maxFrameFetches bounds the cross-origin iframes read at once.
const maxFrameFetches = 8

// prefetch reads, in parallel, the documents of the cross-origin iframes that convert
// will meet in nodes (and, recursively, of the iframes inside them). Each one costs a
// few round trips, an out-of-process one also an attach: one after the other, a page
// with a dozen embeds spent most of its snapshot waiting.
func (b *builder) prefetch(s *sess, nodes []*jsNode, depth int) {
	if !b.iframes {
		return
	}
	var keys []frameKey
	var depths []int
	var collect func(nodes []*jsNode, depth int)
	collect = func(nodes []*jsNode, depth int) {
		for _, x := range nodes {
			collect(x.K, depth+1)
			if x.F == 1 && depth+1 < b.maxDepth {
				keys, depths = append(keys, frameKey{s, x.I}), append(depths, depth+1)
			}
		}
	}
	collect(nodes, depth)
	if len(keys) == 0 {
		return
	}
	if _, err := b.c.worldOf(s); err != nil { // shared by the fetches below
		return
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxFrameFetches)
	for i, k := range keys {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			f := b.fetchFrame(k.s, k.id, depths[i])
			b.mu.Lock()
			if b.fetched == nil {
				b.fetched = map[frameKey]*fetchedFrame{}
			}
			b.fetched[k] = f
			b.mu.Unlock()
			if f.w != nil {
				b.prefetch(f.cs, f.w.Nodes, depths[i])
			}
		}()
	}
	wg.Wait()
}

// fetchFrame walks the document inside the iframe element id of s (no walk when it
// is not reachable).
func (b *builder) fetchFrame(s *sess, id int64, depth int) *fetchedFrame {
	f := &fetchedFrame{}
	obj, err := b.c.resolve(s, id)
	if err != nil || obj == "" {
		return f
	}
	cs, err := b.c.frameOf(s, obj)
	if failed, ok := err.(frameFailed); ok {
		f.failed = failed
		return f
	}
	if err != nil || cs == nil {
		return f
	}
	if w, err := b.c.walk(cs, "", walkOpts{MaxDepth: b.maxDepth - depth, Iframes: b.iframes}); err == nil {
		f.cs, f.w = cs, w
	}
	return f
}

func (b *builder) shortURL(u string) string {
	if b.pageURL == nil || u == "" {
		return u
	}
	x, err := url.Parse(u)
	if err != nil || x.Scheme != b.pageURL.Scheme || x.Host != b.pageURL.Host {
		return u
	}
	x.Scheme, x.Host, x.User = "", "", nil
	return x.String()
}

// convert turns the nodes of one document (session s) at depth into Nodes.
func (b *builder) convert(s *sess, js []*jsNode, depth int) []*Node {
	out := make([]*Node, 0, len(js))
	for _, x := range js {
		if x.R == "text" {
			out = append(out, &Node{Role: "text", Text: truncate(x.T, 1000)})
			continue
		}
		n := &Node{Role: x.R, Name: truncate(x.N, 500), Value: truncate(x.V, 500), Text: truncate(x.T, 1000),
			URL: b.shortURL(x.U), Checked: x.C, Pressed: x.P, Disabled: x.D == 1, Invalid: x.X == 1, Expanded: x.E, Selected: x.S == 1, Level: x.L}
		t := RefTarget{Targets: s.path, FrameID: s.main, LoaderID: s.loaders[s.main], Node: x.I, Role: n.Role, Name: n.Name}
		if b.find {
			n.target = &t
		} else if x.W == 1 && x.I != 0 {
			n.Ref = b.st.ref(b.sn, t)
		}
		n.kids = b.convert(s, x.K, depth+1)
		if x.F == 1 && b.iframes {
			n.kids = append(n.kids, b.crossFrame(s, x.I, depth+1)...)
		}
		out = append(out, n)
	}
	return out
}

// crossFrame walks the document of a cross-origin iframe through its own target.
func (b *builder) crossFrame(s *sess, id int64, depth int) []*Node {
	if depth >= b.maxDepth {
		b.cut++
		return nil
	}
	f := b.fetched[frameKey{s, id}]
	if f == nil {
		f = b.fetchFrame(s, id, depth)
	}
	if f.failed != "" {
		return []*Node{{Role: "text", Text: truncate("(this frame "+f.failed.Error()+")", 1000)}}
	}
	if f.w == nil {
		return nil
	}
	cs, w := f.cs, f.w
	b.frames += 1 + w.Frames
	b.cut += w.Cut
	return b.convert(cs, w.Nodes, depth)
}

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

// quote quotes a name as JSON does, but leaves &, < and > as they are.
func quote(s string) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// maxURL is where a link's URL is cut in the text. Longer ones are nearly always ad and
// tracking redirects (700-800 characters each on a news page), and the ref reaches the
// link whole: click it, or read its href with browser_evaluate.
const maxURL = 160

func cutURL(u string) string {
	if len(u) <= maxURL {
		return u
	}
	n := maxURL
	for n > 0 && u[n]&0xC0 == 0x80 {
		n--
	}
	return u[:n] + "…"
}

// line renders one node.
func (n *Node) render() string {
	var sb strings.Builder
	sb.WriteString(n.Role)
	if n.Role == "text" {
		sb.WriteString(": ")
		sb.WriteString(n.Text)
		return sb.String()
	}
	if n.Name != "" {
		sb.WriteByte(' ')
		sb.WriteString(quote(n.Name))
	}
	if n.Checked != "" {
		if n.Checked == "true" {
			sb.WriteString(" [checked]")
		} else {
			sb.WriteString(" [checked=" + n.Checked + "]")
		}
	}
	if n.Pressed != "" {
		if n.Pressed == "true" {
			sb.WriteString(" [pressed]")
		} else {
			sb.WriteString(" [pressed=" + n.Pressed + "]")
		}
	}
	if n.Disabled {
		sb.WriteString(" [disabled]")
	}
	if n.Invalid {
		sb.WriteString(" [invalid]")
	}
	if n.Expanded != nil {
		if *n.Expanded {
			sb.WriteString(" [expanded]")
		} else {
			sb.WriteString(" [expanded=false]")
		}
	}
	if n.Selected {
		sb.WriteString(" [selected]")
	}
	if n.Level > 0 {
		fmt.Fprintf(&sb, " [level=%d]", n.Level)
	}
	if n.URL != "" {
		sb.WriteString(" [url=" + cutURL(n.URL) + "]")
	}
	if n.Ref != "" {
		sb.WriteString(" [ref=" + n.Ref + "]")
	}
	switch {
	case n.Value != "":
		sb.WriteString(": " + n.Value)
	case n.Text != "":
		sb.WriteString(": " + n.Text)
	}
	return sb.String()
}

// writer renders nodes into text up to a cap and prunes what did not fit.
type writer struct {
	sb    strings.Builder
	max   int
	full  bool
	total int // characters the whole text would have had
	lines int
}

func (w *writer) write(nodes []*Node, indent int) []*Node {
	kept := nodes[:0:0]
	for _, n := range nodes {
		line := strings.Repeat("  ", indent) + "- " + n.render()
		if len(n.kids) > 0 {
			line += ":"
			if n.Value != "" || n.Text != "" {
				line = strings.Repeat("  ", indent) + "- " + n.render()
			}
		}
		line += "\n"
		w.total += len(line)
		if w.full || w.sb.Len()+len(line) > w.max {
			w.full = true
			w.count(n.kids, indent+1)
			continue
		}
		w.sb.WriteString(line)
		w.lines++
		n.kids = w.write(n.kids, indent+1)
		kept = append(kept, n)
	}
	return kept
}

func (w *writer) count(nodes []*Node, indent int) {
	for _, n := range nodes {
		w.total += len(strings.Repeat("  ", indent)+"- "+n.render()) + 2
		w.count(n.kids, indent+1)
	}
}

func countRefs(nodes []*Node) int {
	k := 0
	for _, n := range nodes {
		if n.Ref != "" {
			k++
		}
		k += countRefs(n.kids)
	}
	return k
}

// Take snapshots the active tab.
func (s *Store) Take(ctx context.Context, r Runner, o Options) (*Result, error) {
	if o.MaxDepth == 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxDepth < 1 || o.MaxDepth > MaxMaxDepth {
		return nil, werr.Invalid("maxDepth must be between 1 and %d", MaxMaxDepth)
	}
	if o.MaxChars == 0 {
		o.MaxChars = DefaultMaxChars
	}
	if o.MaxChars < 200 {
		return nil, werr.Invalid("maxChars must be at least 200")
	}
	var res *Result
	err := r.Run(ctx, s.building(browser.CallerOf(ctx), func(ctx context.Context, t *chromedp.Target, c *conn, b *builder) error {
		b.maxDepth, b.iframes, b.frames = o.MaxDepth, o.IncludeIframes, 1
		sn := b.sn
		se, obj, err := s.target(c, sn.doc, o.Target)
		if err != nil {
			return err
		}
		w, err := c.walk(se, obj, walkOpts{MaxDepth: o.MaxDepth, Iframes: o.IncludeIframes})
		if err != nil {
			return err
		}
		b.cut += w.Cut
		b.frames += w.Frames
		b.prefetch(se, w.Nodes, 0)
		nodes := b.convert(se, w.Nodes, 0)
		wr := &writer{max: o.MaxChars}
		nodes = wr.write(nodes, 0)
		expose(nodes)
		title := w.Title
		if o.Target != "" {
			if tr, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: "document.title", ReturnByValue: new(true)}); err == nil && tr.Result != nil {
				_ = json.Unmarshal(tr.Result.Value, &title)
			}
		}
		s.commit(sn)
		res = &Result{SnapshotID: sn.id, URL: c.tab.url, Title: title, Text: wr.sb.String(), Nodes: nodes,
			Refs: countRefs(nodes), Frames: b.frames, DepthLimited: b.cut}
		if res.Nodes == nil {
			res.Nodes = []*Node{}
		}
		var notes []string
		if wr.full {
			res.Truncated = true
			notes = append(notes, fmt.Sprintf("output cut at %d of %d characters: narrow it with target (a ref or CSS selector of a subtree), a lower maxDepth, or browser_find; or raise maxChars", wr.sb.Len(), wr.total))
		}
		if b.cut > 0 {
			notes = append(notes, fmt.Sprintf("%d nodes below depth %d left out: raise maxDepth (up to %d) or snapshot a subtree with target", b.cut, o.MaxDepth, MaxMaxDepth))
		}
		res.Note = strings.Join(notes, "; ")
		return nil
	}))
	if err != nil {
		return nil, err
	}
	return res, nil
}

// RefOf returns the ref a target names ("e5" or "ref=e5": "e" and one or more ASCII
// digits), or "" when target is not a ref (a CSS selector, say).
func RefOf(target string) string {
	ref := strings.TrimPrefix(target, "ref=")
	digits, ok := strings.CutPrefix(ref, "e")
	if !ok || digits == "" || strings.ContainsFunc(digits, func(r rune) bool { return r < '0' || r > '9' }) {
		return ""
	}
	return ref
}

// target resolves a subtree target (a ref of the current document or a CSS
// selector of the main frame); "" is the whole document of the tab.
func (s *Store) target(c *conn, doc, target string) (*sess, runtime.RemoteObjectID, error) {
	if target == "" {
		return c.tab, "", nil
	}
	if ref := RefOf(target); ref != "" {
		rt, ok := s.findRef(doc, ref)
		if !ok {
			return nil, "", expired("ref %s is not in a snapshot of the current page", ref)
		}
		se, err := c.sessFor(rt.Targets)
		if err != nil {
			return nil, "", err
		}
		if se.loaders[rt.FrameID] != rt.LoaderID {
			return nil, "", expired("the frame of %s navigated", target)
		}
		se = c.local(se, rt.FrameID)
		obj, err := c.resolve(se, rt.Node)
		if err != nil {
			return nil, "", err
		}
		if obj == "" {
			return nil, "", expired("the element of ref %s is no longer in the page", ref)
		}
		return se, obj, nil
	}
	sel, _ := json.Marshal(target)
	world, err := c.worldOf(c.tab)
	if err != nil {
		return nil, "", err
	}
	ev, err := cdp.Call(c.ctx, c.tab.t, runtime.Evaluate, runtime.EvaluateParams{ContextID: world, Expression: "document.querySelector(" + string(sel) + ")", ObjectGroup: objectGroup})
	if err != nil {
		return nil, "", err
	}
	if ev.ExceptionDetails != nil {
		return nil, "", werr.Invalid("invalid CSS selector %q", target)
	}
	if ev.Result == nil || ev.Result.ObjectID == "" {
		return nil, "", werr.New(werr.NotFound, "no element matches %q", target)
	}
	return c.tab, ev.Result.ObjectID, nil
}

// FindQuery selects nodes for Find.
type FindQuery struct {
	Text       string
	Regex      string
	Role       string
	Name       string
	MaxResults int
}

// Match is one node Find found.
type Match struct {
	Ref   string `json:"ref"`
	Role  string `json:"role"`
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
	Line  string `json:"line"`
}

// FindResult lists matches; their refs belong to SnapshotID.
type FindResult struct {
	SnapshotID string  `json:"snapshotId"`
	Matches    []Match `json:"matches"`
	Total      int     `json:"total"`
}

// Find searches the whole page (iframes included, no depth limit) for nodes
// by text, regular expression, or role and name, and gives each match a ref.
func (s *Store) Find(ctx context.Context, r Runner, q FindQuery) (*FindResult, error) {
	if q.Text == "" && q.Regex == "" && q.Role == "" && q.Name == "" {
		return nil, werr.Invalid("give text, regex, or role and/or name")
	}
	var re *regexp.Regexp
	if q.Regex != "" {
		var err error
		if re, err = regexp.Compile(q.Regex); err != nil {
			return nil, werr.Invalid("invalid regular expression: %v", err)
		}
	}
	if q.MaxResults == 0 {
		q.MaxResults = 20
	}
	text, name := strings.ToLower(q.Text), strings.ToLower(q.Name)
	match := func(n *Node) bool {
		if n.Role == "text" || n.target == nil || n.target.Node == 0 {
			return false
		}
		if q.Role != "" && !strings.EqualFold(n.Role, q.Role) {
			return false
		}
		if name != "" && !strings.Contains(strings.ToLower(n.Name), name) {
			return false
		}
		hay := n.Name + "\n" + n.Value + "\n" + n.Text
		if text != "" && !strings.Contains(strings.ToLower(hay), text) {
			return false
		}
		if re != nil && !re.MatchString(n.Name) && !re.MatchString(n.Value) && !re.MatchString(n.Text) {
			return false
		}
		return q.Role != "" || n.Name != "" || n.Value != "" || n.Text != ""
	}
	var res *FindResult
	err := r.Run(ctx, s.building(browser.CallerOf(ctx), func(ctx context.Context, t *chromedp.Target, c *conn, b *builder) error {
		b.maxDepth, b.iframes, b.find = 1<<20, true, true
		sn := b.sn
		w, err := c.walk(c.tab, "", walkOpts{MaxDepth: b.maxDepth, Iframes: true})
		if err != nil {
			return err
		}
		res = &FindResult{SnapshotID: sn.id, Matches: []Match{}}
		// A match's line is the node alone; what lies inside it is searched too: a word in a
		// strong inside an editor whose value holds the word is a match of its own.
		var visit func(ns []*Node)
		visit = func(ns []*Node) {
			for _, n := range ns {
				kids := n.kids
				if match(n) {
					res.Total++
					if len(res.Matches) < q.MaxResults {
						n.Ref = s.ref(sn, *n.target)
						n.kids = nil
						res.Matches = append(res.Matches, Match{Ref: n.Ref, Role: n.Role, Name: n.Name, Value: n.Value, Line: "- " + n.render()})
					}
				}
				visit(kids)
			}
		}
		b.prefetch(c.tab, w.Nodes, 0)
		visit(b.convert(c.tab, w.Nodes, 0))
		s.commit(sn)
		return nil
	}))
	if err != nil {
		return nil, err
	}
	return res, nil
}

// expose fills the JSON children from the tree.
func expose(nodes []*Node) {
	for _, n := range nodes {
		n.Children = nil
		for _, k := range n.kids {
			n.Children = append(n.Children, k)
		}
		expose(n.kids)
	}
}

// building is a function for Runner.Run that opens a connection to the tab, begins a snapshot
// of its main frame and hands f a builder for it (the connection closes when f returns).
func (s *Store) building(caller string, f func(ctx context.Context, t *chromedp.Target, c *conn, b *builder) error) func(context.Context, *chromedp.Target) error {
	return func(ctx context.Context, t *chromedp.Target) error {
		c, err := newConn(ctx, t)
		if err != nil {
			return err
		}
		defer c.close()
		c.memo = s
		b := &builder{c: c, st: s, sn: s.begin(c.tab.loaders[c.tab.main], caller)}
		b.pageURL, _ = url.Parse(c.tab.url)
		return f(ctx, t, c, b)
	}
}
