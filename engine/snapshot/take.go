package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/w365/w365/engine/werr"
)

// Runner runs f on the active tab's CDP target (browser.Browser.Run).
type Runner interface {
	Run(ctx context.Context, f func(ctx context.Context, t *chromedp.Target) error) error
}

// interactive roles always get a ref.
var interactive = map[string]bool{
	"button": true, "link": true, "textbox": true, "searchbox": true, "checkbox": true, "radio": true,
	"combobox": true, "listbox": true, "option": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "tab": true, "switch": true, "slider": true, "spinbutton": true,
	"treeitem": true, "ComboBoxGrouping": true, "ComboBoxMenuButton": true, "TextField": true,
	"DisclosureTriangle": true, "PopUpButton": true, "ToggleButton": true, "scrollbar": true,
	"Iframe": true, "columnheader": true, "rowheader": true, "gridcell": true, "Video": true, "Audio": true,
}

// skipped roles are not shown; their children take their place.
var skipped = map[string]bool{
	"generic": true, "none": true, "presentation": true, "GenericContainer": true, "Ignored": true,
	"LabelText": true, "Section": true, "MenuListPopup": true, "Div": true, "Span": true, "Pre": false, "Unknown": true,
}

// dropped roles are left out with their subtree.
var dropped = map[string]bool{"InlineTextBox": true, "ListMarker": true, "LineBreak": true}

// roleName is how a Chrome role is printed.
func roleName(r string) string {
	switch r {
	case "RootWebArea", "WebArea":
		return "document"
	case "StaticText":
		return "text"
	case "Iframe", "IframePresentational":
		return "iframe"
	case "image":
		return "img"
	}
	if r != "" && r[0] >= 'A' && r[0] <= 'Z' {
		return strings.ToLower(r)
	}
	return r
}

// builder turns the per-frame AX trees into one Node tree.
type builder struct {
	c        *conn
	st       *Store
	sn       *snap
	maxDepth int
	iframes  bool
	pageURL  *url.URL
	frames   int
	cut      int
	force    map[string]bool // refs for these keys even when not worth one (find)
}

type props struct {
	checked, pressed, url string
	disabled, selected    bool
	focusable             bool
	expanded              *bool
	level                 int
}

func readProps(n *accessibility.Node) props {
	var p props
	for _, pr := range n.Properties {
		v := str(pr.Value)
		switch pr.Name {
		case accessibility.PropertyNameChecked:
			if v != "false" {
				p.checked = v
			}
		case accessibility.PropertyNamePressed:
			if v != "false" {
				p.pressed = v
			}
		case accessibility.PropertyNameDisabled:
			p.disabled = v == "true"
		case accessibility.PropertyNameSelected:
			p.selected = v == "true"
		case accessibility.PropertyNameFocusable:
			p.focusable = v == "true"
		case accessibility.PropertyNameExpanded:
			b := v == "true"
			p.expanded = &b
		case accessibility.PropertyNameLevel:
			p.level, _ = strconv.Atoi(v)
		case accessibility.PropertyNameURL:
			p.url = v
		}
	}
	return p
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

func worthRef(role, name string, p props) bool {
	if interactive[role] || p.focusable {
		return true
	}
	switch role {
	case "StaticText", "RootWebArea", "paragraph", "list", "listitem", "group", "row", "rowgroup", "table", "cell", "LayoutTable", "LayoutTableRow", "LayoutTableCell":
		return false
	}
	return name != ""
}

// nodes converts one AX node (and its subtree) at depth; hoisted nodes give
// their children to the caller.
func (b *builder) nodes(f *axFrame, n *accessibility.Node, depth int, parentName string) []*Node {
	role := str(n.Role)
	if dropped[role] {
		return nil
	}
	if n.Ignored || (skipped[role] && str(n.Name) == "" && !readProps(n).focusable) || role == "RootWebArea" && depth > 0 {
		return b.children(f, n, depth, parentName)
	}
	name := strings.TrimSpace(str(n.Name))
	if role == "StaticText" {
		if name == "" || (parentName != "" && strings.Contains(parentName, name)) {
			return nil
		}
		return []*Node{{Role: "text", Text: truncate(name, 500)}}
	}
	if depth >= b.maxDepth {
		b.cut++
		return nil
	}
	p := readProps(n)
	out := &Node{Role: roleName(role), Name: truncate(name, 500), Checked: p.checked, Pressed: p.pressed,
		Disabled: p.disabled, Selected: p.selected, Expanded: p.expanded}
	if role == "heading" || role == "treeitem" {
		out.Level = p.level
	}
	if v := str(n.Value); v != "" && role != "link" {
		out.Value = truncate(v, 500)
	}
	if role == "link" || p.url != "" && role != "img" && role != "image" {
		out.URL = b.shortURL(p.url)
	}
	if n.BackendDOMNodeID != 0 && f.loader != "" {
		t := RefTarget{Targets: f.s.path, FrameID: f.frameID, LoaderID: f.loader, BackendNodeID: int64(n.BackendDOMNodeID), Role: out.Role, Name: out.Name}
		if worthRef(role, name, p) || b.force[t.key()] {
			out.Ref = b.st.ref(b.sn, t)
		}
	}
	if role == "Iframe" || role == "IframePresentational" {
		if b.iframes {
			if cf, err := b.c.childFrame(f, n); err == nil && cf != nil {
				b.frames++
				out.kids = b.children(cf, cf.root, depth+1, "")
			}
		}
	} else {
		out.kids = b.children(f, n, depth+1, strings.TrimSpace(name+" "+out.Value))
	}
	// A node without a name whose children are all text shows them inline.
	if out.Name == "" && len(out.kids) > 0 {
		all := true
		for _, ch := range out.kids {
			if ch.Role != "text" {
				all = false
				break
			}
		}
		if all {
			parts := make([]string, len(out.kids))
			for i, ch := range out.kids {
				parts[i] = ch.Text
			}
			out.Text, out.kids = truncate(strings.Join(parts, " "), 1000), nil
		}
	}
	return []*Node{out}
}

func (b *builder) children(f *axFrame, n *accessibility.Node, depth int, parentName string) []*Node {
	var out []*Node
	for _, id := range n.ChildIDs {
		if ch := f.nodes[id]; ch != nil {
			out = append(out, b.nodes(f, ch, depth, parentName)...)
		}
	}
	// Merge adjacent text nodes.
	merged := out[:0]
	for _, x := range out {
		if k := len(merged); k > 0 && x.Role == "text" && merged[k-1].Role == "text" {
			merged[k-1].Text = truncate(merged[k-1].Text+" "+x.Text, 1000)
			continue
		}
		merged = append(merged, x)
	}
	return merged
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
		q, _ := json.Marshal(n.Name)
		sb.Write(q)
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
		sb.WriteString(" [url=" + n.URL + "]")
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
	err := r.Run(ctx, func(ctx context.Context, t *chromedp.Target) error {
		c, err := newConn(ctx, t)
		if err != nil {
			return err
		}
		defer c.close()
		sn := s.begin(c.tab.loaders[c.tab.main])
		b := &builder{c: c, st: s, sn: sn, maxDepth: o.MaxDepth, iframes: o.IncludeIframes, frames: 1}
		b.pageURL, _ = url.Parse(c.tab.url)
		var nodes []*Node
		if o.Target != "" {
			f, n, err := s.locateTarget(c, sn.doc, o.Target)
			if err != nil {
				return err
			}
			nodes = b.nodes(f, n, 0, "")
		} else {
			f, err := c.fetch(c.tab, "")
			if err != nil {
				return err
			}
			nodes = b.children(f, f.root, 0, "")
		}
		w := &writer{max: o.MaxChars}
		nodes = w.write(nodes, 0)
		expose(nodes)
		var title string
		if tr, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{Expression: "document.title", ReturnByValue: new(true)}); err == nil && tr.Result != nil {
			_ = json.Unmarshal(tr.Result.Value, &title)
		}
		s.commit(sn)
		res = &Result{SnapshotID: sn.id, URL: c.tab.url, Title: title, Text: w.sb.String(), Nodes: nodes,
			Refs: countRefs(nodes), Frames: b.frames, DepthLimited: b.cut}
		if res.Nodes == nil {
			res.Nodes = []*Node{}
		}
		var notes []string
		if w.full {
			res.Truncated = true
			notes = append(notes, fmt.Sprintf("output cut at %d of %d characters: narrow it with target (a ref or CSS selector of a subtree), a lower maxDepth, or browser_find; or raise maxChars", w.sb.Len(), w.total))
		}
		if b.cut > 0 {
			notes = append(notes, fmt.Sprintf("%d nodes below depth %d left out: raise maxDepth (up to %d) or snapshot a subtree with target", b.cut, o.MaxDepth, MaxMaxDepth))
		}
		res.Note = strings.Join(notes, "; ")
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// locateTarget finds the AX node of a subtree target: a ref or a CSS selector.
func (s *Store) locateTarget(c *conn, doc, target string) (*axFrame, *accessibility.Node, error) {
	var rt RefTarget
	ref := strings.TrimPrefix(target, "ref=")
	if regexp.MustCompile(`^e[0-9]+$`).MatchString(ref) {
		t, ok := s.findRef(doc, ref)
		if !ok {
			return nil, nil, expired("ref %s is not in a snapshot of the current page", ref)
		}
		rt = t
	} else {
		sel, _ := json.Marshal(target)
		ev, err := cdp.Call(c.ctx, c.tab.t, runtime.Evaluate, runtime.EvaluateParams{Expression: "document.querySelector(" + string(sel) + ")"})
		if err != nil {
			return nil, nil, err
		}
		if ev.ExceptionDetails != nil {
			return nil, nil, werr.Invalid("invalid CSS selector %q", target)
		}
		if ev.Result == nil || ev.Result.ObjectID == "" {
			return nil, nil, werr.New(werr.NotFound, "no element matches %q", target)
		}
		d, err := cdp.Call(c.ctx, c.tab.t, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: ev.Result.ObjectID})
		if err != nil {
			return nil, nil, err
		}
		rt = RefTarget{FrameID: c.tab.main, LoaderID: c.tab.loaders[c.tab.main], BackendNodeID: int64(d.Node.BackendNodeID)}
	}
	se, err := c.sessFor(rt.Targets)
	if err != nil {
		return nil, nil, err
	}
	if se.loaders[rt.FrameID] != rt.LoaderID {
		return nil, nil, expired("the frame of %s navigated", target)
	}
	f, err := c.fetch(se, rt.FrameID)
	if err != nil {
		return nil, nil, err
	}
	for _, n := range f.nodes {
		if int64(n.BackendDOMNodeID) == rt.BackendNodeID {
			return f, n, nil
		}
	}
	return nil, nil, werr.New(werr.NotFound, "the target %s has no accessibility node (hidden?)", target)
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

// Find searches the whole page (iframes included) for nodes by text, regular
// expression, or role and name, and gives each match a ref.
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
	var res *FindResult
	err := r.Run(ctx, func(ctx context.Context, t *chromedp.Target) error {
		c, err := newConn(ctx, t)
		if err != nil {
			return err
		}
		defer c.close()
		sn := s.begin(c.tab.loaders[c.tab.main])
		b := &builder{c: c, st: s, sn: sn, maxDepth: 1, force: map[string]bool{}}
		b.pageURL, _ = url.Parse(c.tab.url)
		res = &FindResult{SnapshotID: sn.id, Matches: []Match{}}
		var visit func(f *axFrame, n *accessibility.Node)
		visit = func(f *axFrame, n *accessibility.Node) {
			role := str(n.Role)
			if dropped[role] {
				return
			}
			if !n.Ignored && role != "StaticText" && role != "RootWebArea" && n.BackendDOMNodeID != 0 {
				nm, val := strings.TrimSpace(str(n.Name)), str(n.Value)
				ok := nm != "" || val != "" || q.Role != ""
				if q.Role != "" && !strings.EqualFold(roleName(role), q.Role) && !strings.EqualFold(role, q.Role) {
					ok = false
				}
				if name != "" && !strings.Contains(strings.ToLower(nm), name) {
					ok = false
				}
				if text != "" && !strings.Contains(strings.ToLower(nm), text) && !strings.Contains(strings.ToLower(val), text) {
					ok = false
				}
				if re != nil && !re.MatchString(nm) && !re.MatchString(val) {
					ok = false
				}
				if ok && (skipped[role] && nm == "") {
					ok = false
				}
				if ok {
					res.Total++
					if len(res.Matches) < q.MaxResults {
						k := RefTarget{Targets: f.s.path, FrameID: f.frameID, LoaderID: f.loader, BackendNodeID: int64(n.BackendDOMNodeID)}
						b.force[k.key()] = true
						if ns := b.nodes(f, n, 0, ""); len(ns) == 1 && ns[0].Ref != "" {
							m := ns[0]
							m.kids = nil
							res.Matches = append(res.Matches, Match{Ref: m.Ref, Role: m.Role, Name: m.Name, Value: m.Value, Line: "- " + m.render()})
						}
					}
				}
			}
			if role == "Iframe" {
				if cf, err := c.childFrame(f, n); err == nil && cf != nil {
					visit(cf, cf.root)
				}
				return
			}
			for _, id := range n.ChildIDs {
				if ch := f.nodes[id]; ch != nil {
					visit(f, ch)
				}
			}
		}
		f, err := c.fetch(c.tab, "")
		if err != nil {
			return err
		}
		visit(f, f.root)
		s.commit(sn)
		return nil
	})
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
