package snapshot

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
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
	main    string            // the target's main frame id
	url     string
}

// conn owns the sessions of one operation; close detaches the OOPIF ones.
type conn struct {
	ctx     context.Context
	tab     *sess
	subs    map[string]*sess
	cancels []context.CancelFunc
	oopifs  map[string]bool // iframe target ids, loaded lazily
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
	s.loaders = map[string]string{}
	var walk func(ft *page.FrameTree)
	walk = func(ft *page.FrameTree) {
		if ft == nil || ft.Frame == nil {
			return
		}
		s.loaders[string(ft.Frame.ID)] = string(ft.Frame.LoaderID)
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
	if c.oopifs == nil {
		infos, err := chromedp.Targets(c.ctx)
		if err != nil {
			return false, err
		}
		c.oopifs = map[string]bool{}
		for _, ti := range infos {
			if ti.Type == "iframe" {
				c.oopifs[string(ti.TargetID)] = true
			}
		}
	}
	return c.oopifs[frameID], nil
}

// child attaches to the out-of-process iframe frameID below parent.
func (c *conn) child(parent *sess, frameID string) (*sess, error) {
	if s, ok := c.subs[frameID]; ok {
		return s, nil
	}
	cctx, cancel := chromedp.NewContext(c.ctx, chromedp.WithTargetID(target.ID(frameID)), chromedp.WithDetachOnCancel())
	c.cancels = append(c.cancels, cancel)
	if err := chromedp.Do(cctx); err != nil {
		return nil, err
	}
	path := append(append([]string(nil), parent.path...), frameID)
	s := &sess{t: chromedp.FromContext(cctx).Target, path: path, frameID: frameID, parent: parent}
	if err := s.frames(c.ctx); err != nil {
		return nil, err
	}
	c.subs[frameID] = s
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

// axFrame is the accessibility tree of one frame.
type axFrame struct {
	s       *sess
	frameID string
	loader  string
	nodes   map[accessibility.NodeID]*accessibility.Node
	root    *accessibility.Node
}

// fetch reads the accessibility tree of a local frame of s ("" = its main frame).
func (c *conn) fetch(s *sess, frameID string) (*axFrame, error) {
	p := accessibility.GetFullAXTreeParams{}
	if frameID != "" && frameID != s.main {
		p.FrameID = cdp.FrameID(frameID)
	} else {
		frameID = s.main
	}
	res, err := cdp.Call(c.ctx, s.t, accessibility.GetFullAXTree, p)
	if err != nil {
		return nil, err
	}
	f := &axFrame{s: s, frameID: frameID, loader: s.loaders[frameID], nodes: make(map[accessibility.NodeID]*accessibility.Node, len(res.Nodes))}
	for _, n := range res.Nodes {
		f.nodes[n.NodeID] = n
	}
	for _, n := range res.Nodes {
		if n.ParentID == "" || f.nodes[n.ParentID] == nil {
			f.root = n
			break
		}
	}
	if f.root == nil {
		return nil, fmt.Errorf("empty accessibility tree")
	}
	if f.loader == "" {
		// A frame created after the frame tree was read.
		if err := s.frames(c.ctx); err == nil {
			f.loader = s.loaders[frameID]
		}
	}
	return f, nil
}

// childFrame returns the tree of the document inside an iframe element.
func (c *conn) childFrame(f *axFrame, iframe *accessibility.Node) (*axFrame, error) {
	if iframe.BackendDOMNodeID == 0 {
		return nil, nil
	}
	d, err := cdp.Call(c.ctx, f.s.t, dom.DescribeNode, dom.DescribeNodeParams{BackendNodeID: iframe.BackendDOMNodeID})
	if err != nil || d.Node == nil || d.Node.FrameID == "" {
		return nil, err
	}
	id := string(d.Node.FrameID)
	if _, local := f.s.loaders[id]; local {
		if oop, _ := c.isOOPIF(id); !oop {
			return c.fetch(f.s, id)
		}
	}
	if oop, err := c.isOOPIF(id); err != nil || !oop {
		// Not loaded yet, or gone.
		if err == nil {
			if ferr := f.s.frames(c.ctx); ferr == nil {
				if _, local := f.s.loaders[id]; local {
					return c.fetch(f.s, id)
				}
			}
		}
		return nil, err
	}
	s, err := c.child(f.s, id)
	if err != nil {
		return nil, err
	}
	return c.fetch(s, "")
}

// str decodes an AX value to a string.
func str(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v.Value, &s) == nil {
		return s
	}
	var a any
	if json.Unmarshal(v.Value, &a) == nil {
		switch x := a.(type) {
		case bool:
			if x {
				return "true"
			}
			return "false"
		case float64:
			return fmt.Sprint(x)
		}
	}
	return string(v.Value)
}
