package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/werr"
)

const objectGroup = "w365-snapshot"

// settleJS is a JavaScript async function of an element and of a function giving its box
// (null: none) that resolves to its box once it has come to rest. An element still moving (a
// carousel's card sliding in, a panel opening) is waited for until its box holds across two
// animation frames and no animation of it or an ancestor runs (a transition just begun has
// not moved it yet), for up to 1 s (an endless animation is taken where it is then): a click
// sent where it stood landed beside it, scrolling it into view mid-slide scrolled the
// carousel's track out of place, and a screenshot clipped to its box caught it half out. A
// hidden tab gets no frames: each wait is bounded.
const settleJS = `async (view, box) => {
  let r = box();
  if (!r) return r;
  const win = view.ownerDocument.defaultView, until = win.performance.now() + 1000;
  const frames = () => Promise.race([new Promise(res => win.requestAnimationFrame(() => win.requestAnimationFrame(res))), new Promise(res => win.setTimeout(res, 100))]);
  const animated = () => win.document.getAnimations().some(a => a.playState === 'running' && a.effect && a.effect.target && a.effect.target.contains(view));
  for (let was = r; win.performance.now() < until; was = r) {
    await frames();
    if (!(r = box()) || (r.left === was.left && r.top === was.top && r.width === was.width && r.height === was.height && !animated())) break;
  }
  return r;
}`

// locateJS finds where a point of the element lies in its frame's top-level
// viewport: the element's centre, or (owner) the point px, py of the document
// inside this iframe element. It scrolls the element into view and hit-tests
// the point in every same-process document on the way up; a centre covered where
// the element stands is tested again with the element scrolled to the middle.
const locateJS = `async function(px, py, owner) {
  const needsScroll = ` + browser.NeedsScrollJS + `;
  let el = this;
  if (el.nodeType !== 1) el = el.parentElement;
  if (!el || !el.isConnected) return {connected: false};
  await (` + browser.PaintedJS + `)(el.ownerDocument.defaultView);
  const vbox = ` + browser.VisibleBoxJS + `;
  // An image map's <area> has no box of its own: it is its shape's bounds over the image
  // that uses the map, where a hit test finds the area.
  let shape = null;
  const map = el.localName === 'area' && el.closest('map');
  const img = map && [...el.getRootNode().querySelectorAll('img[usemap]')].find(i => i.useMap === '#' + map.name);
  if (img) {
    const c = el.coords.split(/[\s,]+/).map(Number), kind = el.shape.toLowerCase();
    if (kind.startsWith('circ')) shape = [c[0] - c[2], c[1] - c[2], c[0] + c[2], c[1] + c[2]];
    else if (kind.startsWith('poly')) {
      const xs = c.filter((v, i) => i % 2 === 0), ys = c.filter((v, i) => i % 2 === 1);
      shape = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
    } else if (kind === 'default') shape = [0, 0, img.width, img.height];
    else shape = [Math.min(c[0], c[2]), Math.min(c[1], c[3]), Math.max(c[0], c[2]), Math.max(c[1], c[3])];
    if (shape.some(v => !isFinite(v))) shape = null;
  }
  const view = shape ? img : el;
  const box = () => {
    const r = vbox(view);
    if (!r || !shape) return r;
    const cs = getComputedStyle(img), left = r.left + img.clientLeft + parseFloat(cs.paddingLeft), top = r.top + img.clientTop + parseFloat(cs.paddingTop);
    return new DOMRect(left + shape[0], top + shape[1], shape[2] - shape[0], shape[3] - shape[1]);
  };
  let r = owner ? box() : await (` + settleJS + `)(view, box);
  if (r && !owner && needsScroll(view, r)) {
    view.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'}); r = box();
  }
  if (!r) return {connected: true, visible: false};
  const into = ` + intoJS + `;
  const desc = h => { let s = h.tagName.toLowerCase() + (h.id ? '#' + h.id : '');
    if (typeof h.className === 'string' && h.className.trim()) s += '.' + h.className.trim().split(/\s+/).join('.');
    const t = (h.getAttribute('aria-label') || h.textContent || '').trim().replace(/\s+/g, ' ').slice(0, 60);
    return t ? s + ' "' + t + '"' : s; };
  const test = (node, x, y) => {
    const doc = node.ownerDocument, win = doc.defaultView;
    if (x < 0 || y < 0 || x > win.innerWidth || y > win.innerHeight) return 'outside';
    let h = doc.elementFromPoint(x, y);
    while (h && h.shadowRoot && h.shadowRoot.elementFromPoint) { const d = h.shadowRoot.elementFromPoint(x, y); if (!d || d === h) break; h = d; }
    if (!h) return 'outside';
    if (h === node || node.contains(h)) return '';
    for (let host = h.getRootNode().host; host; host = host.getRootNode().host) if (host === node || node.contains(host)) return '';
    for (let host = node.getRootNode().host; host; host = host.getRootNode().host) if (host === h) return '';
    if (node.labels && Array.from(node.labels).some(l => l.contains(h))) return '';
    return desc(h);
  };
  // at is the point (in the top-level document of the element's process) and what covers it.
  const at = () => {
    let x, y, cover;
    if (owner) { [x, y] = into(el, r, px, py); cover = test(el, x, y); }
    else {
      // The centre, or else the first fragment of a wrapped element that takes the point.
      for (const [fx, fy] of (shape ? [[r.left + r.width / 2, r.top + r.height / 2]] : (` + browser.PointsJS + `)(el, r))) {
        const c = test(el, fx, fy);
        if (x === undefined || !c) { x = fx; y = fy; cover = c; }
        if (!c) break;
      }
    }
    let w = el.ownerDocument.defaultView;
    while (!cover) {
      let f = null;
      try { f = w.frameElement; } catch (e) { f = null; }
      if (!f) break;
      [x, y] = into(f, f.getBoundingClientRect(), x, y);
      cover = test(f, x, y);
      w = f.ownerDocument.defaultView;
    }
    return {x, y, cover};
  };
  let p = at();
  // Something fixed over the element where it stands (a sticky header or footer): with the
  // element scrolled to the middle of its scrollers it may be clear, as a person would scroll.
  if (p.cover && p.cover !== 'outside' && !owner) {
    view.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    if (!(r = box())) return {connected: true, visible: false};
    p = at();
  }
  return {connected: true, visible: true, x: p.x, y: p.y, w: r.width, h: r.height, cover: p.cover, disabled: (` + browser.DisabledJS + `)(el)};
}`

// intoJS maps a point x, y of frame f's viewport into f's document, fr being f's box there:
// past its border and padding, and scaled as f is drawn (a transform: scale, a zoom), its
// box over its layout size.
const intoJS = `(f, fr, x, y) => { const cs = getComputedStyle(f);
    const sx = f.offsetWidth ? fr.width / f.offsetWidth : 1, sy = f.offsetHeight ? fr.height / f.offsetHeight : 1;
    return [fr.left + (f.clientLeft + parseFloat(cs.paddingLeft || 0) + x) * sx, fr.top + (f.clientTop + parseFloat(cs.paddingTop || 0) + y) * sy]; }`

// boxJS is the element's box [left, top, right, bottom] in the top-level viewport of its
// process, the element scrolled into view; with owner, the element is an iframe and the box
// is x0, y0, x1, y1 of the document inside it. It is null for an element with no box. The
// element is taken once painted and at rest (settleJS), as the tab's own are for a screenshot.
const boxJS = `async function(x0, y0, x1, y1, owner) {
  const into = ` + intoJS + `;
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el || !el.isConnected) return null;
  await (` + browser.PaintedJS + `)(el.ownerDocument.defaultView);
  const box = () => { const r = el.getBoundingClientRect(); return r.width && r.height ? r : null; };
  let r = owner ? box() : await (` + settleJS + `)(el, box);
  if (!r) return null;
  if ((` + browser.NeedsScrollJS + `)(el, r)) { el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'}); r = el.getBoundingClientRect(); }
  let a = [r.left, r.top], b = [r.right, r.bottom];
  if (owner) { a = into(el, r, x0, y0); b = into(el, r, x1, y1); }
  for (let w = el.ownerDocument.defaultView; ; ) {
    let f = null;
    try { f = w.frameElement; } catch (e) { f = null; }
    if (!f) break;
    const fr = f.getBoundingClientRect();
    a = into(f, fr, a[0], a[1]); b = into(f, fr, b[0], b[1]);
    w = f.ownerDocument.defaultView;
  }
  return [a[0], a[1], b[0], b[1]];
}`

type located struct {
	Connected bool    `json:"connected"`
	Visible   bool    `json:"visible"`
	X         float64 `json:"x"`
	Y         float64 `json:"y"`
	W         float64 `json:"w"`
	H         float64 `json:"h"`
	Cover     string  `json:"cover"`
	Disabled  bool    `json:"disabled"`
}

// Point is a position in the tab's viewport, CSS pixels.
type Point struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
}

// handle is a resolved ref during one operation.
type handle struct {
	c    *conn
	s    *sess
	obj  runtime.RemoteObjectID
	rt   RefTarget
	ref  string
	mods int64         // modifier bits held during mouse events
	wait time.Duration // how long a pointer action waits for its element to be uncovered
}

func callOn(ctx context.Context, s *sess, obj runtime.RemoteObjectID, fn string, out any, args ...any) error {
	p := runtime.CallFunctionOnParams{FunctionDeclaration: fn, ObjectID: obj, ReturnByValue: new(true), AwaitPromise: new(true)}
	for _, a := range args {
		raw, err := json.Marshal(a)
		if err != nil {
			return err
		}
		p.Arguments = append(p.Arguments, &runtime.CallArgument{Value: raw})
	}
	res, err := cdp.Call(ctx, s.t, runtime.CallFunctionOn, p)
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return fmt.Errorf("script error: %s", res.ExceptionDetails.Text)
	}
	if out == nil || res.Result == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

// withRef resolves a ref on the active tab and runs f with it (a read). A ref
// whose document navigated or whose node is gone gives SNAPSHOT_EXPIRED.
func (s *Store) withRef(ctx context.Context, r Runner, snapshotID, ref string, f func(h *handle) error) error {
	body, err := s.refBody(snapshotID, ref, r.ActionWait(), f)
	if err != nil {
		return err
	}
	return r.Run(ctx, body)
}

// actRef is withRef for an action: a dialog the action opened is returned (the
// action ran), not an error.
func (s *Store) actRef(ctx context.Context, r Runner, snapshotID, ref string, f func(h *handle) error) (browser.ActionResult, error) {
	body, err := s.refBody(snapshotID, ref, r.ActionWait(), f)
	if err != nil {
		return browser.ActionResult{}, err
	}
	res, err := r.Act(ctx, body)
	if res == nil {
		return browser.ActionResult{}, err
	}
	return *res, err
}

// actDialog is actRef for the actions whose result is only the dialog they opened.
func (s *Store) actDialog(ctx context.Context, r Runner, snapshotID, ref string, f func(h *handle) error) (*browser.Dialog, error) {
	ar, err := s.actRef(ctx, r, snapshotID, ref, f)
	return ar.Dialog, err
}

func (s *Store) refBody(snapshotID, ref string, wait time.Duration, f func(h *handle) error) (func(ctx context.Context, t *chromedp.Target) error, error) {
	sn, rt, err := s.lookup(snapshotID, ref)
	if err != nil {
		return nil, err
	}
	ref = strings.TrimPrefix(strings.TrimSpace(ref), "ref=")
	return func(ctx context.Context, t *chromedp.Target) error {
		c, err := newConn(ctx, t)
		if err != nil {
			return err
		}
		defer c.close()
		if c.tab.loaders[c.tab.main] != sn.doc {
			return expired("the page navigated since snapshot %s; its refs are stale", sn.id)
		}
		se, err := c.sessFor(rt.Targets)
		if err != nil {
			return err
		}
		if se.loaders[rt.FrameID] != rt.LoaderID {
			return expired("the frame of ref %s navigated since snapshot %s", ref, sn.id)
		}
		se = c.local(se, rt.FrameID)
		defer func() {
			_, _ = cdp.Call(context.WithoutCancel(ctx), se.t, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: objectGroup})
		}()
		obj, err := c.resolve(se, rt.Node)
		if err != nil {
			return err
		}
		if obj == "" {
			return expired("the element of ref %s (%s) is no longer in the page", ref, rt.describe(ref))
		}
		return f(&handle{c: c, s: se, obj: obj, rt: rt, ref: ref, wait: wait})
	}, nil
}

// ResolveTarget splits a target into the snapshot and ref it names: "e5" or
// "ref=e5" (the newest snapshot of the caller of ctx that has that ref, which is
// its latest one for a ref of the current document), or "SNAPSHOTID:e5". ok is
// false for a target that is not a ref (a CSS selector).
func (s *Store) ResolveTarget(ctx context.Context, snapshotID, target string) (id, ref string, ok bool, err error) {
	target = strings.TrimSpace(target)
	if i := strings.LastIndexByte(target, ':'); i > 0 {
		if r := RefOf(target[i+1:]); r != "" {
			s.mu.Lock()
			_, known := s.snaps[target[:i]]
			s.mu.Unlock()
			if known {
				return target[:i], r, true, nil
			}
		}
	}
	if ref = RefOf(target); ref == "" {
		return "", "", false, nil
	}
	if snapshotID != "" && !strings.EqualFold(snapshotID, "latest") {
		return snapshotID, ref, true, nil
	}
	caller := browser.CallerOf(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	latest := s.latest[caller]
	if latest == "" {
		return "", "", true, werr.New(werr.SnapshotExpired, "no snapshot taken yet, so ref %s means nothing", ref).
			WithHint("take a snapshot with browser_snapshot or browser_find")
	}
	for i := len(s.order) - 1; i >= 0; i-- {
		if sn := s.snaps[s.order[i]]; sn != nil && sn.caller == caller && sn.doc == s.doc {
			if _, has := sn.refs[ref]; has {
				return sn.id, ref, true, nil
			}
		}
	}
	return latest, ref, true, nil
}

// Element turns the ref into an element the CSS-selector tools can act on (its
// DOM backend node), for a ref in the tab's own process; a ref inside an
// out-of-process iframe is UNSUPPORTED there (the _ref tools take it).
func (s *Store) Element(ctx context.Context, r Runner, snapshotID, ref string) (browser.Element, error) {
	var el browser.Element
	err := s.withRef(ctx, r, snapshotID, ref, func(h *handle) error {
		if len(h.rt.Targets) > 0 {
			return werr.New(werr.Unsupported, "ref %s is inside a cross-origin iframe, which this tool cannot reach", h.ref).
				WithHint("use browser_click_ref, browser_type_ref or the other _ref tools")
		}
		id, err := h.node()
		el = browser.Node(int64(id))
		return err
	})
	return el, err
}

// point returns the element's centre in the tab's viewport. With hit it waits (up to
// h.wait) for no other element to receive that point, as browser_click does (a snackbar
// over a bottom bar goes by itself), and fails with OBSCURED when one still does; with
// enabled it waits as long for the element to be enabled (a button a check enables), and
// fails with TIMEOUT when it stays disabled: a click on it would do nothing.
func (h *handle) point(hit, enabled bool) (Point, error) {
	deadline := time.Now().Add(h.wait)
	for {
		l, err := h.locate()
		if err != nil {
			return Point{}, err
		}
		p := Point{X: l.X, Y: l.Y}
		if l.Cover == "outside" {
			return p, werr.New(werr.Obscured, "the element of ref %s (%s) is outside the viewport", h.ref, h.rt.describe(h.ref)).
				WithHint("scroll it into view with browser_scroll_ref")
		}
		covered, disabled := hit && l.Cover != "", enabled && l.Disabled
		if !covered && !disabled {
			return p, nil
		}
		if time.Now().After(deadline) {
			if covered {
				return p, werr.New(werr.Obscured, "the element of ref %s (%s) is covered by %s at (%.0f, %.0f) (for %s); nothing was clicked", h.ref, h.rt.describe(h.ref), l.Cover, p.X, p.Y, h.wait).
					WithHint("close or remove the covering element first").WithDetail("coveredBy", l.Cover)
			}
			return p, werr.New(werr.Timeout, "the element of ref %s (%s) stayed disabled for %s; nothing was clicked", h.ref, h.rt.describe(h.ref), h.wait).
				WithHint("the page enables it once what it waits for is done: read the page (an error, a field left empty)")
		}
		select {
		case <-h.c.ctx.Done():
			return p, h.c.ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// locate finds the element's centre in the tab's viewport, what covers it there and
// whether it is disabled.
func (h *handle) locate() (located, error) {
	ctx := h.c.ctx
	var l located
	if err := callOn(ctx, h.s, h.obj, locateJS, &l, 0, 0, false); err != nil {
		return located{}, err
	}
	if !l.Connected {
		return located{}, expired("the element of ref %s was removed from the page", h.ref)
	}
	if !l.Visible {
		return located{}, werr.New(werr.NotFound, "the element of ref %s (%s) is not visible", h.ref, h.rt.describe(h.ref)).WithRetryable(true)
	}
	// Climb out of out-of-process iframes.
	for s := h.s; s.parent != nil && l.Cover == ""; s = s.parent {
		iframe, err := h.owner(s)
		if err != nil {
			return located{}, err
		}
		var pl located
		if err := callOn(ctx, s.parent, iframe, locateJS, &pl, l.X, l.Y, true); err != nil {
			return located{}, err
		}
		if !pl.Visible {
			return located{}, werr.New(werr.NotFound, "the iframe of ref %s is not visible", h.ref).WithRetryable(true)
		}
		l.X, l.Y, l.Cover = pl.X, pl.Y, pl.Cover
	}
	return l, nil
}

// owner is the iframe element, in its parent's session, of the out-of-process frame of s.
func (h *handle) owner(s *sess) (runtime.RemoteObjectID, error) {
	o, err := cdp.Call(h.c.ctx, s.parent.t, dom.GetFrameOwner, dom.GetFrameOwnerParams{FrameID: cdp.FrameID(s.frameID)})
	if err != nil {
		return "", expired("the iframe of ref %s is gone", h.ref)
	}
	rn, err := cdp.Call(h.c.ctx, s.parent.t, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: o.BackendNodeID, ObjectGroup: objectGroup})
	if err != nil || rn.Object == nil {
		return "", expired("the iframe of ref %s is gone", h.ref)
	}
	return rn.Object.ObjectID, nil
}

// Box is the box of the element of a ref in the tab's viewport, scrolled into view with
// the iframes that hold it: browser_take_screenshot's refs in out-of-process frames.
func (s *Store) Box(ctx context.Context, r Runner, snapshotID, ref string) (browser.Rect, error) {
	var b browser.Rect
	err := s.withRef(ctx, r, snapshotID, ref, func(h *handle) error {
		var q []float64
		if err := callOn(h.c.ctx, h.s, h.obj, boxJS, &q, 0, 0, 0, 0, false); err != nil {
			return err
		}
		for se := h.s; se.parent != nil && len(q) == 4; se = se.parent {
			iframe, err := h.owner(se)
			if err != nil {
				return err
			}
			if err := callOn(h.c.ctx, se.parent, iframe, boxJS, &q, q[0], q[1], q[2], q[3], true); err != nil {
				return err
			}
		}
		if len(q) != 4 {
			return werr.New(werr.NotFound, "the element of ref %s (%s) is not visible", h.ref, h.rt.describe(h.ref)).WithRetryable(true)
		}
		b = browser.Rect{X: q[0], Y: q[1], W: q[2] - q[0], H: q[3] - q[1]}
		return nil
	})
	return b, err
}

// node is the DOM backend node of the element of h.
func (h *handle) node() (cdp.BackendNodeID, error) {
	d, err := cdp.Call(h.c.ctx, h.s.t, dom.DescribeNode, dom.DescribeNodeParams{ObjectID: h.obj})
	if err != nil {
		return 0, err
	}
	if d.Node == nil {
		return 0, expired("the element of ref %s is no longer in the page", h.ref)
	}
	return d.Node.BackendNodeID, nil
}

// Evaluate calls function (browser.CallElement) with the element of a ref as its argument
// in its frame's page (not the snapshot's own world), for at most limit: browser_evaluate's
// refs in out-of-process frames.
func (s *Store) Evaluate(ctx context.Context, r Runner, snapshotID, ref, function string, limit time.Duration) (string, browser.ActionResult, error) {
	var v string
	ar, err := s.actRef(ctx, r, snapshotID, ref, func(h *handle) error {
		id, err := h.node()
		if err != nil {
			return err
		}
		rn, err := cdp.Call(h.c.ctx, h.s.t, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: id, ObjectGroup: objectGroup})
		if err != nil || rn.Object == nil {
			return expired("the element of ref %s is no longer in the page", h.ref)
		}
		return browser.Bounded(h.c.ctx, h.s.t, limit, func(ctx context.Context) error {
			v, err = browser.CallElement(ctx, h.s.t, rn.Object.ObjectID, function, objectGroup)
			return err
		})
	})
	return v, ar, err
}

// SetFileData puts inline files into the element of a ref by browser.FilesIn's rule, for
// browser_file_upload's refs in out-of-process frames.
func (s *Store) SetFileData(ctx context.Context, r Runner, snapshotID, ref string, files []browser.InlineFile) (browser.ActionResult, error) {
	return s.actRef(ctx, r, snapshotID, ref, func(h *handle) error {
		_, _, err := browser.FilesIn(refField{h}, files)
		return err
	})
}

func (h *handle) mouse(typ input.DispatchMouseEventType, p Point, button input.MouseButton, buttons, count int64) error {
	params := map[string]any{"type": typ, "x": p.X, "y": p.Y}
	if h.mods != 0 {
		params["modifiers"] = h.mods
	}
	if button != "" {
		params["button"] = button
		params["buttons"] = buttons
		params["clickCount"] = count
	}
	return h.c.tab.t.Call(h.c.ctx, input.DispatchMouseEvent.Method, params, nil)
}

// ClickOptions tune Click.
type ClickOptions struct {
	Button     string   // Left (default), Right, Middle
	ClickCount int      // 1 (default) or 2
	Modifiers  []string // keys held during the click (browser.Modifiers)
}

// ActResult is where an action happened and the dialog it opened, if any.
type ActResult struct {
	Point
	browser.ActionResult
}

// Click clicks the element of a ref with real mouse events at its centre,
// after a hit test; when another element covers it, nothing is clicked.
func (s *Store) Click(ctx context.Context, r Runner, snapshotID, ref string, o ClickOptions) (ActResult, error) {
	if o.ClickCount == 0 {
		o.ClickCount = 1
	}
	btn, bits, mods, err := browser.ClickOptions{Button: o.Button, Count: o.ClickCount, Modifiers: o.Modifiers}.Check()
	if err != nil {
		return ActResult{}, err
	}
	var res ActResult
	res.ActionResult, err = s.actRef(ctx, r, snapshotID, ref, func(h *handle) error {
		var err error
		if res.Point, err = h.point(true, true); err != nil {
			if werr.As(err).Code == werr.NotFound && o.ClickCount == 1 && btn == input.MouseButtonLeft && len(mods) == 0 {
				if done, ferr := h.pressFallback(); done || ferr != nil {
					return ferr
				}
			}
			return err
		}
		p := res.Point
		held, release, err := browser.HoldModifiers(h.c.ctx, h.c.tab.t, mods)
		if err != nil {
			return err
		}
		h.mods = held
		defer release()
		if err := h.mouse(input.DispatchMouseEventTypeMouseMoved, p, "", 0, 0); err != nil {
			return err
		}
		for i := int64(1); i <= int64(o.ClickCount); i++ {
			if err := h.mouse(input.DispatchMouseEventTypeMousePressed, p, btn, bits, i); err != nil {
				return err
			}
			if err := h.mouse(input.DispatchMouseEventTypeMouseReleased, p, btn, 0, i); err != nil {
				return err
			}
		}
		return nil
	})
	return res, err
}

// activateFallbackJS activates an element that has no box to click: one of a canvas's
// fallback content (the canvas draws it), as assistive technology does, the canvas's
// accessible form being for it: focus, then the element's default action; or an option of a
// drop-down <select> (the open list is the browser's own), chosen as a person picks it from
// the list: the select takes it, with input and change. Empty for any other element;
// 'disabled' for an option that cannot be chosen.
const activateFallbackJS = `function() {
  const s = this.localName === 'option' && this.closest('select');
  if (s && !s.multiple && s.size <= 1) {
    if (!(` + browser.VisibleBoxJS + `)(s)) return '';
    if (this.disabled || s.disabled) return 'disabled';
    s.focus();
    if (!this.selected) {
      this.selected = true;
      s.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
      s.dispatchEvent(new Event('change', {bubbles: true}));
    }
    return 'done';
  }
  const c = this.parentElement && this.parentElement.closest('canvas');
  if (!c || !(` + browser.VisibleBoxJS + `)(c)) return '';
  this.focus();
  this.click();
  return 'done';
}`

// pressFallback activates an element with no box (activateFallbackJS); done is false for
// an element it does not apply to.
func (h *handle) pressFallback() (done bool, err error) {
	var r string
	if err = callOn(h.c.ctx, h.s, h.obj, activateFallbackJS, &r); err != nil {
		return false, err
	}
	if r == "disabled" {
		return true, werr.Invalid("the option is disabled: it cannot be chosen")
	}
	return r == "done", nil
}

// Drag drags the element of one ref onto the element of another with real mouse events,
// HTML5 drag and drop included, at their centres in the tab's viewport: the way to a ref
// inside an out-of-process frame, which browser.Drag (one process's elements) cannot reach.
func (s *Store) Drag(ctx context.Context, r Runner, fromID, from, toID, to string) (ActResult, error) {
	var dst Point
	if err := s.withRef(ctx, r, toID, to, func(h *handle) error {
		var err error
		dst, err = h.point(false, false)
		return err
	}); err != nil {
		return ActResult{}, err
	}
	var res ActResult
	ar, err := s.actRef(ctx, r, fromID, from, func(h *handle) error {
		p, err := h.point(true, false)
		if err != nil {
			return err
		}
		res.Point = p
		_, err = chromedp.DragAndDropXY(p.X, p.Y, dst.X, dst.Y)(h.c.ctx, h.c.tab.t)
		return err
	})
	res.ActionResult = ar
	return res, err
}

// Hover moves the mouse over the element of a ref.
func (s *Store) Hover(ctx context.Context, r Runner, snapshotID, ref string) (ActResult, error) {
	var res ActResult
	var err error
	res.ActionResult, err = s.actRef(ctx, r, snapshotID, ref, func(h *handle) error {
		var err error
		if res.Point, err = h.point(true, false); err != nil {
			return err
		}
		return h.mouse(input.DispatchMouseEventTypeMouseMoved, res.Point, "", 0, 0)
	})
	return res, err
}

// focusJS focuses the element; with clear it selects its content, else it puts the caret at
// the end, unless keep and the element held the focus already: then its caret and selection
// stay where the keys before left them (a key pressed after Ctrl+A acts on what Ctrl+A
// selected: Ctrl+C copied nothing when the caret was put back at the end before it).
const focusJS = `async function(clear, keep) {
  const el = this.nodeType === 1 ? this : this.parentElement;
  await (` + browser.PaintedJS + `)(el.ownerDocument.defaultView);
  const document = el.ownerDocument, getSelection = () => document.defaultView.getSelection();
  const held = () => { const a = el.getRootNode().activeElement; return !!a && (a === el || el.contains(a)); };
  const had = keep && document.hasFocus() && held();
  el.focus();
  // The focus as the element's own tree sees it: document.activeElement is only the
  // outermost shadow host, and a closed root has no shadowRoot to go down through.
  const a = el.getRootNode().activeElement;
  const focused = !!a && (a === el || el.contains(a));
  const res = {focused, frameFocused: document.hasFocus(), editable: el.isContentEditable || el.tagName === 'TEXTAREA' || el.tagName === 'INPUT',
    valueType: el.tagName === 'INPUT' && ` + browser.ValueTypesJS + `.includes(el.type) ? el.type : ''};
  if (clear && focused) {
    if (el.tagName === 'TEXTAREA' || el.tagName === 'INPUT') { try { el.select(); } catch (e) {} res.empty = el.value === ''; }
    else if (el.isContentEditable) { const r = document.createRange(); r.selectNodeContents(el); const s = getSelection(); s.removeAllRanges(); s.addRange(r); res.empty = el.textContent === ''; }
    else res.empty = true;
  } else if (focused && !had) {
    // Append: the caret goes to the end, whatever an earlier call left.
    if (el.tagName === 'TEXTAREA' || el.tagName === 'INPUT') { try { const n = el.value.length; el.setSelectionRange(n, n); } catch (e) {} }
    else if (el.isContentEditable) { const r = document.createRange(); r.selectNodeContents(el); r.collapse(false); const s = getSelection(); s.removeAllRanges(); s.addRange(r); }
  }
  return res;
}`

type focusState struct {
	Focused      bool `json:"focused"`
	FrameFocused bool `json:"frameFocused"`
	Editable     bool `json:"editable"`
	Empty        bool `json:"empty"`
	// ValueType is the input's type when typing sets its value whole (browser.ValueTypesJS).
	ValueType string `json:"valueType"`
}

// focus gives the element the keyboard focus (clicking it when script focus
// does not reach its frame), optionally selecting its content.
func (h *handle) focus(clear bool) (focusState, error) {
	fs, err := h.tryFocus(clear, false)
	if err == nil && !fs.Focused {
		return fs, werr.Invalid("the element of ref %s (%s) cannot take the keyboard focus", h.ref, h.rt.describe(h.ref))
	}
	return fs, err
}

// tryFocus is focus without its refusal: fs.Focused says whether the element took the focus.
// With keep, an element that holds the focus already keeps its caret and selection.
func (h *handle) tryFocus(clear, keep bool) (focusState, error) {
	var fs focusState
	if err := callOn(h.c.ctx, h.s, h.obj, focusJS, &fs, clear, keep); err != nil {
		return fs, err
	}
	if !fs.Focused || !fs.FrameFocused {
		p, err := h.point(true, false)
		if err != nil {
			return fs, err
		}
		if err := h.mouse(input.DispatchMouseEventTypeMousePressed, p, input.MouseButtonLeft, 1, 1); err != nil {
			return fs, err
		}
		if err := h.mouse(input.DispatchMouseEventTypeMouseReleased, p, input.MouseButtonLeft, 0, 1); err != nil {
			return fs, err
		}
		if err := callOn(h.c.ctx, h.s, h.obj, focusJS, &fs, clear); err != nil {
			return fs, err
		}
	}
	return fs, nil
}

// sendKeys types text with real key events; characters without a key are inserted.
func (h *handle) sendKeys(text string) error {
	var pending strings.Builder
	flush := func() error {
		if pending.Len() == 0 {
			return nil
		}
		_, err := cdp.Call(h.c.ctx, h.c.tab.t, input.InsertText, input.InsertTextParams{Text: pending.String()})
		pending.Reset()
		return err
	}
	for _, r := range text {
		if r == '\n' {
			r = '\r'
		}
		if (r < 0x20 && r != '\r' && r != '\t' && r != '\b') || r > 0x7e {
			pending.WriteRune(r)
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		if err := browser.Keys(h.c.ctx, h.c.tab.t, string(r)); err != nil {
			return err
		}
	}
	return flush()
}

// TypeOptions tune Type.
type TypeOptions struct {
	Clear  bool // replace the content (else append at its end)
	Submit bool // press Enter afterwards
}

// TypeResult is what Type did.
type TypeResult struct {
	Characters int             // typed
	Dialog     *browser.Dialog // the typing opened
	// Note says what a text field holds after the keys when it is not the text typed
	// (keys lost, or the page rewrote it: a mask, a maxlength); of a password field only
	// its length. Empty when it holds the text, or for other elements.
	Note string
}

// heldJS reads what a text field holds after typing: null for other elements.
const heldJS = `function() {
  if (this.tagName !== 'INPUT' && this.tagName !== 'TEXTAREA') return null;
  return {value: this.value, secret: this.type === 'password'};
}`

// heldNote is TypeResult.Note for a field holding value after text was typed into it (clear:
// in place of its content, else at its end).
func heldNote(value, text string, clear, secret bool) string {
	if value == text || (!clear && strings.HasSuffix(value, text)) {
		return ""
	}
	if secret {
		return fmt.Sprintf("the field holds %d characters, not the %d typed", utf8.RuneCountInString(value), utf8.RuneCountInString(text))
	}
	const max = 200
	if r := []rune(value); len(r) > max {
		value = string(r[:max]) + "…"
	}
	return fmt.Sprintf("the field holds %q, not the text typed", value)
}

// Type focuses the element of a ref and types text with real key events; it returns
// what it typed, the dialog the typing opened, and what the field holds when that is not
// the text.
func (s *Store) Type(ctx context.Context, r Runner, snapshotID, ref, text string, o TypeOptions) (TypeResult, error) {
	clear := o.Clear
	var note string
	ar, err := s.actRef(ctx, r, snapshotID, ref, func(h *handle) error {
		fs, err := h.focus(clear)
		if err != nil {
			return err
		}
		if !fs.Editable {
			return werr.Invalid("the element of ref %s (%s) does not take text", h.ref, h.rt.describe(h.ref))
		}
		if fs.ValueType != "" {
			var ok bool
			if err := callOn(h.c.ctx, h.s, h.obj, browser.SetValueJS, &ok, text); err != nil {
				return err
			}
			if !ok {
				return browser.BadValue(text, fs.ValueType)
			}
		} else {
			if clear && !fs.Empty {
				if err := browser.Keys(h.c.ctx, h.c.tab.t, kb.Backspace); err != nil {
					return err
				}
			}
			if err := h.sendKeys(text); err != nil {
				return err
			}
			var held *struct {
				Value  string `json:"value"`
				Secret bool   `json:"secret"`
			}
			if err := callOn(h.c.ctx, h.s, h.obj, heldJS, &held); err == nil && held != nil {
				note = heldNote(held.Value, text, clear, held.Secret)
			}
		}
		if o.Submit {
			return browser.Keys(h.c.ctx, h.c.tab.t, kb.Enter)
		}
		return nil
	})
	return TypeResult{Characters: utf8.RuneCountInString(text), Dialog: ar.Dialog, Note: note}, err
}

// keyNames maps key names (Enter, F5, ArrowUp, ...) to chromedp kb runes.
var keyNames = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for r, k := range kb.Keys {
		if k.Key != "" && utf8.RuneCountInString(k.Key) > 1 && !k.Shift {
			if _, ok := m[strings.ToLower(k.Key)]; !ok || r < 0x100 {
				m[strings.ToLower(k.Key)] = string(r)
			}
		}
	}
	m["space"] = " "
	m["esc"] = kb.Escape
	m["return"] = kb.Enter
	m["del"] = kb.Delete
	m["up"], m["down"], m["left"], m["right"] = kb.ArrowUp, kb.ArrowDown, kb.ArrowLeft, kb.ArrowRight
	return m
})

// KeyRune resolves a key name or single character.
func KeyRune(key string) (string, error) {
	if utf8.RuneCountInString(key) == 1 {
		return key, nil
	}
	if k, ok := keyNames()[strings.ToLower(key)]; ok {
		return k, nil
	}
	return "", werr.Invalid("unknown key %q", key).WithHint("use a key name such as Enter, Escape, Tab, ArrowUp, F5, or a single character")
}

// blurJS takes the focus from whatever holds it in the element's document.
const blurJS = `function() { const a = this.ownerDocument.activeElement; if (a && a.blur) a.blur(); }`

// Keypress focuses the element of a ref and presses one key, the modifiers
// going down before it and up after it as keys of their own; of an element
// that takes no focus, its document receives the key.
func (s *Store) Keypress(ctx context.Context, r Runner, snapshotID, ref, key string, modifiers []string) (*browser.Dialog, error) {
	// A combination written as one key, "Control+a" (Playwright's way): its leading
	// parts are modifiers ("+" alone is the key).
	if parts := strings.Split(key, "+"); len(parts) > 1 && parts[len(parts)-1] != "" {
		key, modifiers = parts[len(parts)-1], append(slices.Clone(modifiers), parts[:len(parts)-1]...)
	}
	k, err := KeyRune(key)
	if err != nil {
		return nil, err
	}
	mods, err := browser.Modifiers(modifiers)
	if err != nil {
		return nil, err
	}
	return s.actDialog(ctx, r, snapshotID, ref, func(h *handle) error {
		fs, err := h.tryFocus(false, true)
		if err != nil {
			return err
		}
		if !fs.Focused {
			// An element that takes no focus (a heading, a paragraph): the key goes to its
			// document, where a page's shortcuts (Ctrl+K) listen, never to a field that had
			// the focus before.
			if err := callOn(h.c.ctx, h.s, h.obj, blurJS, nil); err != nil {
				return err
			}
		}
		return browser.PressWithModifiers(h.c.ctx, h.c.tab.t, k, mods)
	})
}

// ScrollResult reports where the element's own scroll position ended up.
type ScrollResult struct {
	Point
	Dialog     *browser.Dialog `json:"dialog,omitempty"`
	ScrollLeft float64         `json:"scrollLeft"`
	ScrollTop  float64         `json:"scrollTop"`
}

// Scroll scrolls the element of a ref into view, then scrolls inside it by
// dx, dy pixels with a real mouse wheel at its centre.
func (s *Store) Scroll(ctx context.Context, r Runner, snapshotID, ref string, dx, dy float64) (*ScrollResult, error) {
	var res ScrollResult
	var ar browser.ActionResult
	var err error
	ar, err = s.actRef(ctx, r, snapshotID, ref, func(h *handle) error {
		p, err := h.point(false, false)
		if err != nil {
			return err
		}
		res.Point = p
		if dx != 0 || dy != 0 {
			var before struct{ L, T float64 }
			_ = callOn(h.c.ctx, h.s, h.obj, `function() { return {L: this.scrollLeft, T: this.scrollTop}; }`, &before)
			if err := h.c.tab.t.Call(h.c.ctx, input.DispatchMouseEvent.Method, map[string]any{
				"type": input.DispatchMouseEventTypeMouseWheel, "x": p.X, "y": p.Y, "deltaX": dx, "deltaY": dy}, nil); err != nil {
				return err
			}
			// The wheel scrolls asynchronously: wait (bounded) for it to land.
			var after struct{ L, T float64 }
			_ = callOn(h.c.ctx, h.s, h.obj, `async function(l, t) {
  const v = this.ownerDocument.defaultView, raf = f => v.requestAnimationFrame(f);
  for (let i = 0; i < 20 && this.scrollLeft === l && this.scrollTop === t; i++) await new Promise(r => raf(r));
  return {L: this.scrollLeft, T: this.scrollTop}; }`, &after, before.L, before.T)
			res.ScrollLeft, res.ScrollTop = after.L, after.T
		}
		return nil
	})
	res.Dialog = ar.Dialog
	return &res, err
}

// SetFiles sets the files of the file input of a ref. Callers check the
// paths against policy (AllowedFile).
func (s *Store) SetFiles(ctx context.Context, r Runner, snapshotID, ref string, paths []string) (*browser.Dialog, error) {
	return s.actDialog(ctx, r, snapshotID, ref, func(h *handle) error {
		var isFile bool
		if err := callOn(h.c.ctx, h.s, h.obj, `function() { return this.tagName === 'INPUT' && this.type === 'file'; }`, &isFile); err != nil {
			return err
		}
		if !isFile {
			return werr.Invalid("the element of ref %s (%s) is not a file input", h.ref, h.rt.describe(h.ref))
		}
		_, err := cdp.Call(h.c.ctx, h.s.t, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: paths, ObjectID: h.obj})
		return err
	})
}

// Resolve returns the target of a ref (for callers that act through other APIs).
func (s *Store) Resolve(snapshotID, ref string) (RefTarget, error) {
	_, rt, err := s.lookup(snapshotID, ref)
	return rt, err
}

// Describe names what a ref of the caller of ctx is, as `button "Submit"` (the name cut
// at 40 bytes), for records of calls (watch, the trace) and the text of the ref tools'
// results: snapshotID "" or "latest" means the caller's own latest. It is "" when the
// ref means nothing to that caller.
func (s *Store) Describe(ctx context.Context, snapshotID, target string) string {
	id, ref, ok, err := s.ResolveTarget(ctx, snapshotID, target)
	if !ok || err != nil {
		return ""
	}
	rt, err := s.Resolve(id, ref)
	if err != nil {
		return ""
	}
	if rt.Name != "" {
		return fmt.Sprintf("%s %q", rt.Role, truncate(rt.Name, describeName))
	}
	return rt.Role
}

// describeName bounds the name Describe gives: one short parenthesis in a result.
const describeName = 40

// refField is the element of a ref as browser.FillField drives it (the fields of
// out-of-process frames, which the engine's own elements cannot reach).
type refField struct{ h *handle }

func (f refField) String() string {
	return fmt.Sprintf("ref %s (%s)", f.h.ref, f.h.rt.describe(f.h.ref))
}

func (f refField) Call(fn string, out any, args ...any) (*browser.Dialog, error) {
	return nil, callOn(f.h.c.ctx, f.h.s, f.h.obj, fn, out, args...)
}

func (f refField) Click() (*browser.Dialog, error) {
	p, err := f.h.point(true, true)
	if err != nil {
		return nil, err
	}
	for _, m := range []struct {
		typ     input.DispatchMouseEventType
		buttons int64
	}{{input.DispatchMouseEventTypeMousePressed, 1}, {input.DispatchMouseEventTypeMouseReleased, 0}} {
		if err := f.h.mouse(m.typ, p, input.MouseButtonLeft, m.buttons, 1); err != nil {
			return nil, err
		}
	}
	return nil, nil
}

// Type replaces the field's content with one insertText, as browser_type does.
func (f refField) Type(text string) (*browser.Dialog, error) {
	fs, err := f.h.focus(true)
	if err != nil {
		return nil, err
	}
	if !fs.Editable {
		return nil, werr.Invalid("the element of %s does not take text", f)
	}
	if text == "" {
		if !fs.Empty {
			err = browser.Keys(f.h.c.ctx, f.h.c.tab.t, kb.Backspace)
		}
		return nil, err
	}
	_, err = cdp.Call(f.h.c.ctx, f.h.c.tab.t, input.InsertText, input.InsertTextParams{Text: text})
	return nil, err
}

// Select selects the options of the <select> of a ref by browser.SelectIn's rule, once it
// is visible and enabled, for browser_select_option's refs in out-of-process frames.
func (s *Store) Select(ctx context.Context, r Runner, snapshotID, ref string, values []string) (browser.SelectResult, error) {
	n := 0
	ar, err := s.actRef(ctx, r, snapshotID, ref, func(h *handle) error {
		if _, err := h.point(false, true); err != nil {
			return err
		}
		var err error
		n, _, err = browser.SelectIn(refField{h}, values)
		return err
	})
	return browser.SelectResult{Selected: n, ActionResult: ar}, err
}

// Fill puts value into the form field of a ref by browser.FillField's rule (and
// checks it took it), for browser_fill_form's fields in out-of-process frames.
func (s *Store) Fill(ctx context.Context, r Runner, snapshotID, ref string, value any) (*browser.Dialog, error) {
	return s.actDialog(ctx, r, snapshotID, ref, func(h *handle) error {
		_, err := browser.FillField(refField{h}, value)
		return err
	})
}
