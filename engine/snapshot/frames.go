package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
)

// sess is one CDP target session: the tab, or an out-of-process iframe.
type sess struct {
	t       *chromedp.Target
	path    []string // OOPIF target ids from the tab down to this one
	frameID string   // for an OOPIF: its frame (= target) id
	parent  *sess
	loaders map[string]string // frame id -> loader id, local frames
	order   []string          // the local frames' ids, the frame tree's preorder (document order)
	failed  map[string]string // frames showing an error page -> the URL that failed
	main    string            // the target's main frame id
	url     string
	world   runtime.ExecutionContextID
	closed  bool // the closed shadow roots of its document are registered in world
	// internals: what the browser's tree says of its custom elements is registered in world
	internals bool
}

// worldName names the isolated JavaScript world the snapshot scripts run in:
// the page's own scripts cannot see or change the ref registry there. Chrome
// keeps one world per name and document, also across sessions.
const worldName = "w365-snapshot"

// worldOf returns the execution context of the isolated world in the main
// frame of s.
func (c *conn) worldOf(s *sess) (runtime.ExecutionContextID, error) {
	if s.world != 0 {
		return s.world, nil
	}
	w, err := cdp.Call(c.ctx, s.t, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: cdp.FrameID(s.main), WorldName: worldName})
	if err != nil {
		return 0, err
	}
	s.world = w.ExecutionContextID
	return s.world, nil
}

// closedJS keeps the closed shadow roots it is given (DevTools sees them, page
// scripts and so the walk cannot) in the isolated world, by host: the walk, the
// text read and the hit test follow them as they follow open ones. With no roots it
// lists the elements that may host one not yet kept: custom elements, and the
// other elements that can host a shadow root when they have a box but no content
// (a host's own children do not render), in the document and every root known; null
// when there are none, which spares listing them (see nodesOf).
const closedJS = `function(...roots) {
  const K = Symbol.for('w365.closed');
  const m = window[K] || (window[K] = new WeakMap());
  for (const r of roots) if (r && r.host) m.set(r.host, r);
  if (roots.length) return [];
  const HOSTS = /^(article|aside|blockquote|body|div|footer|h[1-6]|header|main|nav|p|section|span)$/;
  const out = [];
  const scan = root => {
    for (const el of root.querySelectorAll('*')) {
      const sr = el.shadowRoot || m.get(el);
      if (sr) { scan(sr); continue; }
      if (out.length >= 64) return;
      if (el.localName.includes('-') || (HOSTS.test(el.localName) && !el.firstElementChild && !el.textContent.trim() && el.getClientRects().length && el.offsetWidth * el.offsetHeight > 0)) out.push(el);
    }
  };
  scan(document);
  return out.length ? out : null;
}`

// registerClosed hands the closed shadow roots of the document of world (in s) to
// closedJS, once per operation: the candidate hosts closedJS lists are described
// (DOM.describeNode tracks nothing), their closed roots resolved into the world.
// Roots inside closed roots come with the next round (three at most).
func (c *conn) registerClosed(s *sess, world runtime.ExecutionContextID) error {
	if s.closed {
		return nil
	}
	s.closed = true
	for range 3 {
		hosts, err := c.nodesOf(s, world, closedJS)
		if err != nil {
			return err
		}
		var args []*runtime.CallArgument
		for _, h := range hosts {
			d, err := cdp.Call(c.ctx, s.t, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: h, Depth: new(int64(0))})
			if err != nil || d.Node == nil {
				continue
			}
			for _, sr := range d.Node.ShadowRoots {
				if sr.ShadowRootType != cdp.ShadowRootTypeClosed {
					continue
				}
				o, err := cdp.Call(c.ctx, s.t, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: sr.BackendNodeID, ExecutionContextID: world, ObjectGroup: objectGroup})
				if err == nil && o.Object != nil {
					args = append(args, &runtime.CallArgument{ObjectID: o.Object.ObjectID})
				}
			}
		}
		if len(args) == 0 {
			return nil
		}
		if _, err := cdp.Call(c.ctx, s.t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{FunctionDeclaration: closedJS, ExecutionContextID: world, Arguments: args}); err != nil {
			return err
		}
	}
	return nil
}

// nodesOf calls fn in world and returns the nodes of the array it returns (a function
// that returns null when it has none costs one call). The objects belong to objectGroup.
func (c *conn) nodesOf(s *sess, world runtime.ExecutionContextID, fn string, args ...*runtime.CallArgument) ([]runtime.RemoteObjectID, error) {
	r, err := cdp.Call(c.ctx, s.t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{FunctionDeclaration: fn, ExecutionContextID: world, ObjectGroup: objectGroup, Arguments: args})
	if err != nil || r.ExceptionDetails != nil || r.Result == nil || r.Result.ObjectID == "" {
		return nil, err
	}
	props, err := cdp.Call(c.ctx, s.t, runtime.GetProperties, runtime.GetPropertiesParams{ObjectID: r.Result.ObjectID, OwnProperties: new(true)})
	if err != nil {
		return nil, err
	}
	var nodes []runtime.RemoteObjectID
	for _, p := range props.Result {
		if p.Value != nil && p.Value.ObjectID != "" && p.Value.Subtype == runtime.RemoteObjectSubtypeNode {
			nodes = append(nodes, p.Value.ObjectID)
		}
	}
	return nodes, nil
}

// conn owns the sessions of one operation; close detaches the OOPIF ones.
type conn struct {
	ctx     context.Context
	tab     *sess
	subs    map[string]*sess
	cancels []context.CancelFunc
	oopifs  map[string]string // iframe target id -> its URL, loaded lazily
	// memo, when set, remembers across operations which iframes show an error page.
	memo *Store

	// mu guards subs, cancels, oopifs and the frame maps of the sessions: the frames
	// of a snapshot are read in parallel.
	mu sync.Mutex
}

func newConn(ctx context.Context, t *chromedp.Target) (*conn, error) {
	c := &conn{ctx: ctx, tab: &sess{t: t}, subs: map[string]*sess{}}
	if err := c.tab.frames(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *conn) close() {
	for _, cancel := range c.cancels {
		cancel()
	}
}

// frames reads the frame tree of a session (frame ids and loader ids).
func (s *sess) frames(ctx context.Context) error {
	res, err := cdp.Call(ctx, s.t, page.GetFrameTree, cdp.Empty{})
	if err != nil {
		return err
	}
	s.loaders, s.failed, s.order = map[string]string{}, map[string]string{}, nil
	var walk func(ft *page.FrameTree)
	walk = func(ft *page.FrameTree) {
		if ft == nil || ft.Frame == nil {
			return
		}
		s.loaders[string(ft.Frame.ID)] = string(ft.Frame.LoaderID)
		s.order = append(s.order, string(ft.Frame.ID))
		if ft.Frame.UnreachableURL != "" {
			s.failed[string(ft.Frame.ID)] = ft.Frame.UnreachableURL
		}
		for _, ch := range ft.ChildFrames {
			walk(ch)
		}
	}
	walk(res.FrameTree)
	if res.FrameTree != nil && res.FrameTree.Frame != nil {
		s.main = string(res.FrameTree.Frame.ID)
		s.url = res.FrameTree.Frame.URL + res.FrameTree.Frame.URLFragment
	}
	return nil
}

// isOOPIF says whether a frame runs in its own target.
func (c *conn) isOOPIF(frameID string) (bool, error) {
	_, ok, err := c.oopif(frameID)
	return ok, err
}

// oopif returns the URL Chromium lists for the out-of-process iframe frameID, if it is
// one. (For a frame that failed to load it is the URL that failed, not the error page.)
func (c *conn) oopif(frameID string) (string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.oopifs == nil {
		infos, err := chromedp.Targets(c.ctx)
		if err != nil {
			return "", false, err
		}
		c.oopifs = map[string]string{}
		for _, ti := range infos {
			if ti.Type == "iframe" {
				c.oopifs[string(ti.TargetID)] = ti.URL
			}
		}
	}
	url, ok := c.oopifs[frameID]
	return url, ok, nil
}

// frameFailed is frameOf's answer for a frame that shows Chromium's error page: the
// snapshot says so in one line instead of showing the error page.
type frameFailed string

func (f frameFailed) Error() string { return "failed to load " + string(f) }

// errorPage tells Chromium's error page, shown by a frame that failed to load.
func errorPage(url string) bool { return strings.HasPrefix(url, "chrome-error://") }

// child attaches to the out-of-process iframe frameID below parent.
func (c *conn) child(parent *sess, frameID string) (*sess, error) {
	c.mu.Lock()
	s, ok := c.subs[frameID]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	cctx, cancel := chromedp.NewContext(c.ctx, chromedp.WithTargetID(target.ID(frameID)), chromedp.WithDetachOnCancel())
	c.mu.Lock()
	c.cancels = append(c.cancels, cancel)
	c.mu.Unlock()
	if err := chromedp.Do(cctx); err != nil {
		return nil, err
	}
	path := append(append([]string(nil), parent.path...), frameID)
	s = &sess{t: chromedp.FromContext(cctx).Target, path: path, frameID: frameID, parent: parent}
	if err := s.frames(c.ctx); err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.subs[frameID] = s
	c.mu.Unlock()
	return s, nil
}

// sessFor follows a ref's target path, checking each iframe still exists.
func (c *conn) sessFor(path []string) (*sess, error) {
	s := c.tab
	for _, id := range path {
		ok, err := c.isOOPIF(id)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, expired("the iframe of the element is gone")
		}
		if s, err = c.child(s, id); err != nil {
			return nil, expired("the iframe of the element is gone: %v", err)
		}
	}
	return s, nil
}

// walkOpts are walkJS's options.
type walkOpts struct {
	MaxDepth int  `json:"maxDepth"`
	Iframes  bool `json:"iframes"`
}

// walk runs walkJS over the document of s, or over the subtree of obj.
func (c *conn) walk(s *sess, obj runtime.RemoteObjectID, o walkOpts) (*jsWalk, error) {
	arg, _ := json.Marshal(o)
	var (
		res *runtime.RemoteObject
		exc *runtime.ExceptionDetails
	)
	world, err := c.worldOf(s)
	if err != nil {
		return nil, err
	}
	if err := c.registerClosed(s, world); err != nil {
		return nil, err
	}
	if err := c.registerInternals(s, world); err != nil {
		return nil, err
	}
	if obj == "" {
		r, err := cdp.Call(c.ctx, s.t, runtime.Evaluate, runtime.EvaluateParams{ContextID: world,
			Expression: "JSON.stringify((" + walkJS + ").call(document, " + string(arg) + "))", ReturnByValue: new(true)})
		if err != nil {
			return nil, err
		}
		res, exc = r.Result, r.ExceptionDetails
	} else {
		r, err := cdp.Call(c.ctx, s.t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
			FunctionDeclaration: "function(o) { return JSON.stringify((" + walkJS + ").call(this, o)); }", ObjectID: obj, ReturnByValue: new(true),
			Arguments: []*runtime.CallArgument{{Value: arg}}})
		if err != nil {
			return nil, err
		}
		res, exc = r.Result, r.ExceptionDetails
	}
	if exc != nil {
		text := exc.Text
		if exc.Exception != nil && exc.Exception.Description != "" {
			text = exc.Exception.Description
		}
		return nil, fmt.Errorf("snapshot script failed: %s", text)
	}
	// The walk comes back as one JSON string: much cheaper to carry over
	// CDP than a deep object passed by value.
	var w jsWalk
	var str string
	if res == nil || len(res.Value) == 0 || json.Unmarshal(res.Value, &str) != nil {
		return &w, nil
	}
	if err := json.Unmarshal([]byte(str), &w); err != nil {
		return nil, err
	}
	return &w, nil
}

// resolve returns the element behind a walk id in s ("" when it is gone).
func (c *conn) resolve(s *sess, id int64) (runtime.RemoteObjectID, error) {
	world, err := c.worldOf(s)
	if err != nil {
		return "", err
	}
	r, err := cdp.Call(c.ctx, s.t, runtime.Evaluate, runtime.EvaluateParams{ContextID: world,
		Expression: fmt.Sprintf("(%s)(%d)", resolveJS, id), ObjectGroup: objectGroup})
	if err != nil {
		return "", err
	}
	if r.ExceptionDetails != nil || r.Result == nil || r.Result.ObjectID == "" {
		return "", nil
	}
	return r.Result.ObjectID, nil
}

// frameOf returns the session of the document inside a cross-origin iframe
// element (nil when that document is not reachable).
func (c *conn) frameOf(s *sess, iframe runtime.RemoteObjectID) (*sess, error) {
	d, err := cdp.Call(c.ctx, s.t, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: iframe})
	if err != nil || d.Node == nil || d.Node.FrameID == "" {
		return nil, err
	}
	id := string(d.Node.FrameID)
	c.mu.Lock()
	failedURL, failed := s.failed[id]
	c.mu.Unlock()
	if failed {
		// Chromium's error page: nothing to act on, and attaching to its process
		// would cost more than the rest of the snapshot.
		return nil, frameFailed(failedURL)
	}
	url, oop, err := c.oopif(id)
	if err != nil {
		return nil, err
	}
	if oop {
		// An error page in its own process is known only after attaching to it (some
		// 15 ms); remember it, keyed by the URL that failed, for the next snapshots.
		if c.memo.errorFrame(id, url) {
			return nil, frameFailed(url)
		}
		cs, err := c.child(s, id)
		if err == nil && errorPage(cs.url) {
			c.memo.setErrorFrame(id, url)
			return nil, frameFailed(url)
		}
		return cs, err
	}
	// A cross-origin frame in the same renderer (site isolation off).
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := s.loaders[id]; !ok {
		if err := s.frames(c.ctx); err != nil {
			return nil, err
		}
	}
	return c.local(s, id), nil
}

// local is the session of a frame of s's target other than its main frame:
// the same target, its own isolated world, and s as the parent to climb to.
func (c *conn) local(s *sess, frameID string) *sess {
	if frameID == s.main {
		return s
	}
	if _, ok := s.loaders[frameID]; !ok {
		return nil
	}
	return &sess{t: s.t, path: s.path, frameID: frameID, parent: s, loaders: s.loaders, order: s.order, failed: s.failed, main: frameID}
}
