package browser

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/w365/w365/engine/werr"
)

// Element names one element of the active tab's main frame: a CSS selector
// (the first match), or a DOM backend node id (from an accessibility
// snapshot). Exactly one must be set.
type Element struct {
	Selector      string `json:"selector,omitempty"`
	BackendNodeID int64  `json:"backendNodeId,omitempty"`
}

// CSS names the first element matching a CSS selector.
func CSS(selector string) Element { return Element{Selector: selector} }

// Node names an element by DOM backend node id.
func Node(backendNodeID int64) Element { return Element{BackendNodeID: backendNodeID} }

func (e Element) String() string {
	if e.Selector != "" {
		return fmt.Sprintf("selector %q", e.Selector)
	}
	return fmt.Sprintf("node %d", e.BackendNodeID)
}

func (e Element) validate() error {
	if (e.Selector == "") == (e.BackendNodeID == 0) {
		return werr.Invalid("give exactly one of a CSS selector or a node id")
	}
	return nil
}

// resolve finds the element; "" with no error means no match (yet).
func (o *op) resolve(ctx context.Context, e Element) (runtime.RemoteObjectID, error) {
	if e.BackendNodeID != 0 {
		res, err := cdp.Call(ctx, o.t.t, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: cdp.BackendNodeID(e.BackendNodeID), ObjectGroup: objectGroup})
		if err != nil || res.Object == nil {
			if ctx.Err() != nil || o.inst.isDead() {
				return "", err
			}
			return "", werr.New(werr.SnapshotExpired, "the element (%s) is no longer in the page", e).
				WithHint("take a new snapshot and retry")
		}
		return res.Object.ObjectID, nil
	}
	sel, _ := json.Marshal(e.Selector)
	res, err := cdp.Call(ctx, o.t.t, runtime.Evaluate, runtime.EvaluateParams{
		Expression: "document.querySelector(" + string(sel) + ")", ObjectGroup: objectGroup,
	})
	if err != nil {
		return "", err
	}
	if res.ExceptionDetails != nil {
		return "", werr.Invalid("invalid CSS selector %q", e.Selector).WithDetail("exception", firstLine(jsError(res.ExceptionDetails).Message))
	}
	if res.Result == nil || res.Result.Subtype == runtime.RemoteObjectSubtypeNull {
		return "", nil
	}
	return res.Result.ObjectID, nil
}

// elemState is what actionJS reports about an element.
type elemState struct {
	Connected bool    `json:"connected"`
	Visible   bool    `json:"visible"`
	Stable    bool    `json:"stable"`
	Disabled  bool    `json:"disabled"`
	Editable  bool    `json:"editable"`
	X         float64 `json:"x"`
	Y         float64 `json:"y"`
	W         float64 `json:"w"`
	H         float64 `json:"h"`
	InView    bool    `json:"inView"`
	Hit       bool    `json:"hit"`
	HitDesc   string  `json:"hitDesc"`
	Framed    bool    `json:"framed"` // in a frame: X, Y are the frame's, not the tab's
	// ValueType is the input's type when typing sets its value whole (ValueTypesJS).
	ValueType string `json:"valueType"`
	// Focus is focusJS's answer when the state was asked with needFocus.
	Focus       string `json:"focus"`
	BadSelector string `json:"badSelector"`
}

// NeedsScrollJS is a JavaScript function of an element and its box that says the element
// must be scrolled into view before a pointer acts on it: its box leaves the window's
// viewport, or its centre lies outside an ancestor that clips it (a scrolling list whose
// rows beyond its visible part are in the page, a panel), where a hit test finds what is
// drawn there instead. The body and the root element clip nothing: their overflow is the
// viewport's.
const NeedsScrollJS = `(el, r) => {
  const doc = el.ownerDocument, win = doc.defaultView, x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (r.top < 0 || r.left < 0 || r.bottom > win.innerHeight || r.right > win.innerWidth) return true;
  const up = n => n.assignedSlot || n.parentElement || n.getRootNode().host;
  for (let a = up(el); a && a !== doc.body && a !== doc.documentElement; a = up(a)) {
    const cs = win.getComputedStyle(a);
    if (cs.overflowX === 'visible' && cs.overflowY === 'visible') continue;
    const b = a.getBoundingClientRect();
    if (x < b.left || x > b.right || y < b.top || y > b.bottom) return true;
  }
  return false;
}`

// DisabledJS is a JavaScript function of an element that says it takes no clicks: it is
// disabled (itself, or a form control by its fieldset) or aria-disabled.
const DisabledJS = `el => !!(el.disabled || el.closest('fieldset[disabled] :not(legend *)') && ['INPUT','SELECT','TEXTAREA','BUTTON'].includes(el.tagName) || el.getAttribute('aria-disabled') === 'true')`

// VisibleBoxJS is a JavaScript function of an element that gives its box when it is
// visible, else null. Visible is Playwright's rule: checkVisibility() holds (no display: none
// on the element or an ancestor, not skipped under an ancestor of content-visibility: hidden),
// its own computed visibility is visible (hidden and collapse are not; a child that sets
// visible again under a hidden parent is visible), and its box has a width and a height.
// Opacity does not count: an element of opacity 0 is visible and takes clicks. An element of
// display: contents has no box of its own: it is visible with the box of its first visible
// child. Every browser action, browser_wait_for's visible and the ref actions use it; the
// snapshot leaves out what is hidden by the same styles but keeps an element of an empty box
// (its children may overflow it), as the accessibility tree does.
const VisibleBoxJS = `function box(el) {
  const st = el.ownerDocument.defaultView.getComputedStyle(el);
  if (st.display === 'contents') {
    for (const c of el.children) { const r = box(c); if (r) return r; }
    return null;
  }
  if (!el.checkVisibility() || st.visibility !== 'visible') return null;
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 ? r : null;
}`

// PointsJS is a JavaScript function of an element and its box that gives the points a
// pointer may act on it at, best first: the box's centre, then, for an element laid out in
// fragments (an inline link that wraps onto a second line), the centre of each fragment in
// order. The centre of a wrapped link's box may lie on the paragraph's own words, between
// its first fragment at the end of one line and its last at the start of the next.
const PointsJS = `(el, r) => {
  const ps = [[r.left + r.width / 2, r.top + r.height / 2]], rs = el.getClientRects();
  if (rs.length > 1) for (const q of rs) if (q.width > 0 && q.height > 0) ps.push([q.left + q.width / 2, q.top + q.height / 2]);
  return ps;
}`

// PaintedJS is a JavaScript async function of a window that resolves once its document has
// painted: a paint performance entry, or else two animation frames (a page that paints
// nothing has its frames); at most 2 s (a hidden page has no frames). Chromium drops the
// clicks and keys a page gets before its first paint, and a popup clicked as soon as its tab
// appeared ignored the click (its pointermove arrived, its press and release did not),
// failing TestClickThatClosesItsTab in about one run in four; rendering blocked by a slow
// stylesheet holds the first paint as long.
const PaintedJS = `async win => {
  if (win.performance.getEntriesByType('paint').length) return;
  const frame = () => new Promise(res => win.requestAnimationFrame(res));
  await Promise.race([frame().then(frame), new Promise(res => win.setTimeout(res, 2000))]);
}`

// stateJS reports an element's state (elemState). With focus (1: focus it; 2: focus it and
// select its content, focusJS) it also takes the keyboard focus, once the element is
// connected, visible, enabled, in view and editable, the state a keyboard action waits for,
// and says how in the result's focus field: one round trip for both.
const stateJS = `async function(scroll, waitStable, focus) {
  const needsScroll = ` + NeedsScrollJS + `;
  let el = this;
  if (el.nodeType !== 1) el = el.parentElement;
  if (!el || !el.isConnected) return {connected: false};
  await (` + PaintedJS + `)(el.ownerDocument.defaultView);
  const vis = () => (` + VisibleBoxJS + `)(el);
  let r = vis();
  if (r && scroll && needsScroll(el, r)) {
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    r = vis();
  }
  if (!r) return {connected: true, visible: false};
  const disabled = (` + DisabledJS + `)(el);
  // Stable: the same box across two animation frames (bounded: hidden tabs get no frames).
  let stable = true;
  if (waitStable) {
    await Promise.race([new Promise(res => requestAnimationFrame(() => requestAnimationFrame(res))), new Promise(res => setTimeout(res, 100))]);
    const r2 = vis();
    stable = !!r2 && r2.left === r.left && r2.top === r.top && r2.width === r.width && r2.height === r.height;
    if (r2) r = r2;
  }
  let x, y, inView, hit, hitDesc;
  // hitAt says what receives the point x, y when it is not the element, '' when it is.
  const hitAt = (x, y) => {
    // Down through open shadow roots; a closed one stops the descent at its host, which
    // then counts as a hit for an element inside it.
    let h = document.elementFromPoint(x, y);
    while (h && h.shadowRoot && h.shadowRoot.elementFromPoint) { const d = h.shadowRoot.elementFromPoint(x, y); if (!d || d === h) break; h = d; }
    let hosts = false;
    for (let host = el.getRootNode().host; host && !hosts; host = host.getRootNode().host) hosts = host === h;
    if (h && (h === el || el.contains(h) || hosts || (h.getRootNode() && h.getRootNode().host && el.contains(h.getRootNode().host)) || (el.labels && Array.from(el.labels).some(l => l.contains(h))))) return '';
    return h ? h.tagName.toLowerCase() + (h.id ? '#' + h.id : '') + (h.className && typeof h.className === 'string' ? '.' + h.className.trim().split(/\s+/).join('.') : '') : 'nothing';
  };
  const test = () => {
    const ps = (` + PointsJS + `)(el, r);
    [x, y] = ps[0];
    inView = x >= 0 && y >= 0 && x <= innerWidth && y <= innerHeight;
    hit = false; hitDesc = '';
    if (!inView) return;
    for (const [px, py] of ps) {
      if (px < 0 || py < 0 || px > innerWidth || py > innerHeight) continue;
      const d = hitAt(px, py);
      if (!d) { x = px; y = py; hit = true; hitDesc = ''; return; }
      if (!hitDesc && d !== 'nothing') hitDesc = d;
    }
  };
  test();
  // Something fixed over the element where it stands (a sticky header or footer): with the
  // element scrolled to the middle of its scrollers it may be clear, as a person would scroll.
  if (inView && !hit && scroll) {
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
    if (!(r = vis())) return {connected: true, visible: false};
    test();
  }
  const editable = el.isContentEditable || (el.tagName === 'TEXTAREA' && !el.readOnly) ||
    (el.tagName === 'INPUT' && !el.readOnly && !['button','submit','reset','checkbox','radio','file','image','hidden'].includes((el.type || '').toLowerCase()));
  const valueType = el.tagName === 'INPUT' && ` + ValueTypesJS + `.includes(el.type) ? el.type : '';
  const st = {connected: true, visible: true, stable, disabled, editable, valueType, x, y, w: r.width, h: r.height, inView, hit, hitDesc, framed: window !== window.top};
  if (focus && stable && !disabled && inView && editable) st.focus = (` + focusJS + `).call(el, focus === 2);
  return st;
}`

// stateBySelectorJS is stateJS on the first element matching a selector (the %s, as a JSON
// string), in one evaluation: a keyboard action needs no handle on its element, and so no
// second round trip to find it.
const stateBySelectorJS = `(async () => {
  let el;
  try { el = document.querySelector(%s); } catch (e) { return {badSelector: String(e && e.message || e)}; }
  if (!el) return {connected: false};
  return await (` + stateJS + `).call(el, %t, %t, %d);
})()`

// need says what an action requires of its element besides existing and being visible.
type need uint8

const (
	needEnabled need = 1 << iota // not disabled
	needStable                   // the same box across two animation frames (pointer actions)
	needHit                      // receives pointer events at its centre
	needFocus                    // take the keyboard focus once actionable (elemState.Focus)
	needClear                    // with needFocus: select the content, to be replaced
)

// focusArg is stateJS's focus argument for n.
func (n need) focusArg() int {
	switch {
	case n&needFocus == 0:
		return 0
	case n&needClear != 0:
		return 2
	}
	return 1
}

// actionable waits (bounded) until the element exists, is visible and meets n. It
// returns the element's centre in viewport CSS pixels. Keyboard actions need no
// stability: waiting two frames for it would cost each of them 30 ms.
func (o *op) actionable(e Element, n need) (runtime.RemoteObjectID, elemState, error) {
	timeout := o.b.ActionWait()
	deadline := time.Now().Add(timeout)
	var last elemState
	var obj runtime.RemoteObjectID
	reason := "not found"
	// A keyboard action on a selector needs no handle on its element: one evaluation finds
	// it, reads its state and focuses it.
	bySelector := e.Selector != "" && n&needFocus != 0
	for {
		var st elemState
		err := o.do(func(ctx context.Context) error {
			if bySelector {
				sel, _ := json.Marshal(e.Selector)
				v, err := evalRaw(ctx, o.t, fmt.Sprintf(stateBySelectorJS, sel, true, n&needStable != 0, n.focusArg()), true)
				if err != nil {
					return err
				}
				if err := decodeValue(v, &st); err != nil {
					return err
				}
				if st.BadSelector != "" {
					return werr.Invalid("invalid CSS selector %q", e.Selector).WithDetail("exception", firstLine(st.BadSelector))
				}
				return nil
			}
			var err error
			obj, err = o.resolve(ctx, e)
			if err != nil || obj == "" {
				return err
			}
			return callOn(ctx, o.t, obj, stateJS, &st, true, n&needStable != 0, n.focusArg())
		})
		if err != nil {
			return "", st, err
		}
		switch {
		case (obj == "" && !bySelector) || !st.Connected:
			reason = "not found"
		case !st.Visible:
			reason = "not visible"
		case n&needEnabled != 0 && st.Disabled:
			reason = "disabled"
		case !st.InView:
			reason = "outside the viewport"
		case !st.Stable:
			reason = "moving"
		case n&needHit != 0 && !st.Hit:
			reason = "covered"
		default:
			if st.Framed && obj != "" {
				// The pointer goes to the tab's viewport: the element's box there.
				err := o.do(func(ctx context.Context) error {
					q, err := cdp.Call(ctx, o.t.t, dom.GetContentQuads, dom.GetContentQuadsParams{ObjectID: obj})
					if err != nil || len(q.Quads) == 0 || len(q.Quads[0]) != 8 {
						return werr.New(werr.NotFound, "the element (%s) has no box in the page", e)
					}
					c := q.Quads[0]
					st.X, st.Y = (c[0]+c[2]+c[4]+c[6])/4, (c[1]+c[3]+c[5]+c[7])/4
					return nil
				})
				if err != nil {
					return "", st, err
				}
			}
			return obj, st, nil
		}
		last = st
		if time.Now().After(deadline) {
			break
		}
		select {
		case <-o.ctx.Done():
			return "", st, o.err(o.ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
	switch reason {
	case "not found":
		return "", last, werr.New(werr.NotFound, "no element matches %s", e).
			WithHint("check the selector, or wait for the element with browser_wait_for")
	case "covered":
		return "", last, werr.New(werr.Obscured, "the element (%s) is covered by %s", e, last.HitDesc).
			WithHint("close the overlay first")
	}
	return "", last, werr.New(werr.Timeout, "the element (%s) stayed %s for %s", e, reason, timeout)
}

// present waits (bounded) until the element exists.
func (o *op) present(e Element) (runtime.RemoteObjectID, error) {
	deadline := time.Now().Add(o.b.ActionWait())
	for {
		var obj runtime.RemoteObjectID
		err := o.do(func(ctx context.Context) error {
			var err error
			obj, err = o.resolve(ctx, e)
			return err
		})
		if err != nil || obj != "" {
			return obj, err
		}
		if time.Now().After(deadline) {
			return "", werr.New(werr.NotFound, "no element matches %s", e)
		}
		select {
		case <-o.ctx.Done():
			return "", o.err(o.ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// ClickOptions tune a click.
type ClickOptions struct {
	Button    string   // left (default), right, middle
	Count     int      // 1 (default) or 2: a double click
	Modifiers []string // keys held during the click (see Modifiers)
}

// Check resolves the options: the button, its DevTools button bit, the modifier keys in
// the order they go down. A ref click (engine/snapshot) checks its options the same way.
func (c ClickOptions) Check() (input.MouseButton, int64, []string, error) {
	var btn input.MouseButton
	var bits int64
	switch strings.ToLower(c.Button) {
	case "", "left":
		btn, bits = input.MouseButtonLeft, 1
	case "right":
		btn, bits = input.MouseButtonRight, 2
	case "middle":
		btn, bits = input.MouseButtonMiddle, 4
	default:
		return "", 0, nil, werr.Invalid("button must be left, right or middle")
	}
	if c.Count < 0 || c.Count > 2 {
		return "", 0, nil, werr.Invalid("clickCount must be 1 or 2")
	}
	mods, err := Modifiers(c.Modifiers)
	return btn, bits, mods, err
}

// mouseClick sends a real click (move, press, release) at x, y, with the
// modifiers held as keys around it.
func mouseClick(ctx context.Context, t *tab, x, y float64, count int64, c ClickOptions) error {
	btn, bits, mods, err := c.Check()
	if err != nil {
		return err
	}
	held, release, err := HoldModifiers(ctx, t.t, mods)
	if err != nil {
		return err
	}
	defer release()
	for _, p := range []input.DispatchMouseEventParams{
		{Type: input.DispatchMouseEventTypeMouseMoved, X: x, Y: y, Modifiers: held},
		{Type: input.DispatchMouseEventTypeMousePressed, X: x, Y: y, Button: btn, Buttons: bits, ClickCount: count, Modifiers: held},
		{Type: input.DispatchMouseEventTypeMouseReleased, X: x, Y: y, Button: btn, ClickCount: count, Modifiers: held},
	} {
		if _, err := cdp.Call(ctx, t.t, input.DispatchMouseEvent, p); err != nil {
			return err
		}
	}
	return nil
}

// action runs body as one page action and settles the page afterwards.
func (b *Browser) action(ctx context.Context, body func(o *op) (*Dialog, error)) (*ActionResult, error) {
	o, err := b.begin(ctx, false)
	if err != nil {
		return nil, err
	}
	defer o.end()
	return o.act(body)
}

func (o *op) act(body func(o *op) (*Dialog, error)) (*ActionResult, error) {
	m := o.mark()
	d, err := body(o)
	if err != nil {
		return o.closedBy(m, err)
	}
	if d != nil {
		res := &ActionResult{Dialog: d}
		o.b.collect(o.ctx, o.inst, o.t, m, res)
		return res, nil
	}
	res, err := o.b.settle(o.ctx, o.inst, o.t, m)
	if err != nil {
		return o.closedBy(m, err)
	}
	return res, nil
}

// closedBy turns the error of an action whose tab closed while it ran (a popup that
// closes itself when a choice in it is clicked) into the action's result: the tab was
// there when the action began, so the action closed it; the result says so and names
// the tab now active. Any other error stays.
func (o *op) closedBy(m navMark, err error) (*ActionResult, error) {
	if werr.CodeOf(err) != werr.NotFound {
		return nil, err
	}
	o.b.mu.Lock()
	gone := o.t.gone
	o.b.mu.Unlock()
	// A call on a closing tab can fail (its target detached) before the browser's word
	// that the tab is gone has been taken in: that word is waited for, briefly.
	if !gone && errors.Is(err, chromedp.ErrTargetDetached) {
		ctx, cancel := context.WithTimeout(o.ctx, closeMax)
		gone = o.b.awaitGone(ctx, o.t)
		cancel()
	}
	if !gone {
		return nil, err
	}
	res := &ActionResult{}
	o.b.collect(context.WithoutCancel(o.ctx), o.inst, o.t, m, res)
	return res, nil
}

// Click scrolls the element into view, waits until it is visible, stable,
// enabled and not covered, and clicks its centre with real mouse events.
func (b *Browser) Click(ctx context.Context, e Element) (*ActionResult, error) {
	return b.ClickWith(ctx, e, ClickOptions{})
}

// DoubleClick is Click with a double click.
func (b *Browser) DoubleClick(ctx context.Context, e Element) (*ActionResult, error) {
	return b.ClickWith(ctx, e, ClickOptions{Count: 2})
}

// ClickWith is Click with a button, a double click, or modifiers held.
func (b *Browser) ClickWith(ctx context.Context, e Element, c ClickOptions) (*ActionResult, error) {
	if err := e.validate(); err != nil {
		return nil, err
	}
	if _, _, _, err := c.Check(); err != nil {
		return nil, err
	}
	return b.action(ctx, func(o *op) (*Dialog, error) {
		if d, err := o.click(e, 1, c); d != nil || err != nil || c.Count != 2 {
			return d, err
		}
		return o.click(e, 2, c)
	})
}

func (o *op) click(e Element, count int64, c ClickOptions) (*Dialog, error) {
	_, st, err := o.actionable(e, needEnabled|needStable|needHit)
	if err != nil {
		return nil, err
	}
	return o.await(func(ctx context.Context) error { return mouseClick(ctx, o.t, st.X, st.Y, count, c) })
}

// Hover moves the mouse to the element's centre.
func (b *Browser) Hover(ctx context.Context, e Element) (*ActionResult, error) {
	if err := e.validate(); err != nil {
		return nil, err
	}
	return b.action(ctx, func(o *op) (*Dialog, error) {
		_, st, err := o.actionable(e, needStable|needHit)
		if err != nil {
			return nil, err
		}
		return o.await(func(ctx context.Context) error {
			_, err := cdp.Call(ctx, o.t.t, input.DispatchMouseEvent, input.DispatchMouseEventParams{Type: input.DispatchMouseEventTypeMouseMoved, X: st.X, Y: st.Y})
			return err
		})
	})
}

// TypeOptions tune Type.
type TypeOptions struct {
	// Append keeps the current value and types at its end; by default the
	// current content is selected and replaced.
	Append bool
	// Submit presses Enter after the text.
	Submit bool
	// Slowly sends a key event per character (for pages that listen to keys);
	// by default the text goes in as one insertText, as Playwright's fill does.
	Slowly bool
}

const focusJS = `function(clear) {
  const el = this;
  el.focus();
  // The focus as the element's own tree sees it: document.activeElement is only the
  // outermost shadow host, and a closed root has no shadowRoot to go down through.
  const active = el.getRootNode().activeElement;
  if (!active || !(active === el || el.contains(active))) return 'unfocusable';
  const textual = el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT');
  if (clear) {
    if (textual) { el.select(); return el.value === '' ? 'empty' : 'selected'; }
    if (el.isContentEditable) { const r = document.createRange(); r.selectNodeContents(el); const s = getSelection(); s.removeAllRanges(); s.addRange(r); return el.textContent === '' ? 'empty' : 'selected'; }
    return 'empty';
  }
  if (textual) { try { const n = el.value.length; el.setSelectionRange(n, n); } catch (e) {} }
  else if (el.isContentEditable) { const r = document.createRange(); r.selectNodeContents(el); r.collapse(false); const s = getSelection(); s.removeAllRanges(); s.addRange(r); }
  return 'focused';
}`

// typeText focuses the element, selects its content (unless opts.Append) and puts the
// text in: one insertText, which replaces the selection and fires beforeinput and
// input as typing does, or with opts.Slowly a key event per character.
func (o *op) typeText(e Element, text string, opts TypeOptions) (*Dialog, error) {
	n := needEnabled | needFocus
	if !opts.Append {
		n |= needClear
	}
	obj, st, err := o.actionable(e, n)
	if err != nil {
		return nil, err
	}
	if !st.Editable {
		return nil, notEditable(e)
	}
	if st.ValueType != "" {
		var ok bool
		if d, err := o.await(func(ctx context.Context) error { return callOn(ctx, o.t, obj, SetValueJS, &ok, text) }); d != nil || err != nil {
			return d, err
		}
		if !ok {
			return nil, BadValue(text, st.ValueType)
		}
		return nil, nil
	}
	return o.insert(e, st.Focus, text, opts)
}

func notEditable(e Element) error {
	return werr.Invalid("the element (%s) does not take text input", e).WithHint("use browser_click, browser_select_option or browser_fill_form")
}

// typeInto is typeText on the element e resolved to obj, found actionable in state st.
func (o *op) typeInto(e Element, obj runtime.RemoteObjectID, st elemState, text string, opts TypeOptions) (*Dialog, error) {
	if !st.Editable {
		return nil, notEditable(e)
	}
	var state string
	d, err := o.await(func(ctx context.Context) error { return callOn(ctx, o.t, obj, focusJS, &state, !opts.Append) })
	if d != nil || err != nil {
		return d, err
	}
	return o.insert(e, state, text, opts)
}

// insert puts the text into the element e, which focusJS focused and answered state: one
// insertText, or key events (see typeText).
func (o *op) insert(e Element, state, text string, opts TypeOptions) (*Dialog, error) {
	if state == "unfocusable" {
		return nil, werr.Invalid("the element (%s) cannot take the keyboard focus", e)
	}
	return o.await(func(ctx context.Context) error {
		if !opts.Slowly && (text != "" || state != "selected") {
			if text != "" {
				if _, err := cdp.Call(ctx, o.t.t, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
					return err
				}
			}
			if opts.Submit {
				return sendKeys(ctx, o.t, "\r")
			}
			return nil
		}
		keys := text
		if state == "selected" {
			keys = "\b" + keys // delete the selection with a real Backspace
		}
		if opts.Submit {
			keys += "\r"
		}
		return sendKeys(ctx, o.t, keys)
	})
}

// sendKeys types keys with real key events (kb encodes named keys such as
// "\r" Enter, "\b" Backspace, "\t" Tab); characters without a key use insertText.
func sendKeys(ctx context.Context, t *tab, keys string) error {
	var pending strings.Builder
	flush := func() error {
		if pending.Len() == 0 {
			return nil
		}
		_, err := cdp.Call(ctx, t.t, input.InsertText, input.InsertTextParams{Text: pending.String()})
		pending.Reset()
		return err
	}
	for _, r := range keys {
		if r > 0x7e && r != '\u00a0' {
			pending.WriteRune(r)
			continue
		}
		if err := flush(); err != nil {
			return err
		}
		if err := Keys(ctx, t.t, string(r)); err != nil {
			return err
		}
	}
	return flush()
}

// Type focuses the element and types text (see typeText), replacing its
// content unless opts.Append.
func (b *Browser) Type(ctx context.Context, e Element, text string, opts TypeOptions) (*ActionResult, error) {
	if err := e.validate(); err != nil {
		return nil, err
	}
	return b.action(ctx, func(o *op) (*Dialog, error) { return o.typeText(e, text, opts) })
}

// PressKey focuses the element (when given) and presses keys: text, or one key
// name (Enter, Tab, Escape, Backspace, Delete, ArrowUp/Down/Left/Right, Home,
// End, PageUp, PageDown, Space).
func (b *Browser) PressKey(ctx context.Context, e *Element, key string) (*ActionResult, error) {
	named := map[string]string{"Enter": "\r", "Tab": "\t", "Escape": "\u001b", "Backspace": "\b", "Delete": "\u007f",
		"ArrowUp": "\u2191", "ArrowDown": "\u2193", "ArrowLeft": "\u2190", "ArrowRight": "\u2192",
		"Home": "\u2196", "End": "\u2198", "PageUp": "\u21de", "PageDown": "\u21df", "Space": " "}
	if key == "" {
		return nil, werr.Invalid("key must not be empty")
	}
	return b.action(ctx, func(o *op) (*Dialog, error) {
		if e != nil {
			obj, _, err := o.actionable(*e, 0)
			if err != nil {
				return nil, err
			}
			var state string
			d, err := o.await(func(ctx context.Context) error { return callOn(ctx, o.t, obj, focusJS, &state, false) })
			if d != nil || err != nil {
				return d, err
			}
		}
		return o.await(func(ctx context.Context) error {
			if k, ok := named[key]; ok {
				return Keys(ctx, o.t.t, k)
			}
			return sendKeys(ctx, o.t, key)
		})
	})
}

// SelectResult reports how many options ended up selected.
type SelectResult struct {
	Selected int `json:"selected"`
	ActionResult
}

const selectJS = `function(values) {
  const el = this;
  if (el.tagName !== 'SELECT') return {error: 'not a <select> element'};
  const opts = Array.from(el.options);
  const want = new Set(), missing = [];
  for (const v of values) {
    const o = opts.find(o => o.value === v) || opts.find(o => o.label === v || o.text.trim() === v);
    if (!o) missing.push(v); else want.add(o);
  }
  if (missing.length) return {missing};
  if (!el.multiple && want.size > 1) return {error: 'the <select> takes one value'};
  el.focus();
  for (const o of opts) o.selected = want.has(o);
  el.dispatchEvent(new Event('input', {bubbles: true}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: opts.filter(o => o.selected).length};
}`

func (o *op) selectOption(e Element, values []string) (int, *Dialog, error) {
	obj, _, err := o.actionable(e, needEnabled)
	if err != nil {
		return 0, nil, err
	}
	return SelectIn(opField{o: o, e: e, obj: obj}, values)
}

// SelectIn selects the options of the <select> field whose value (or label) is in values
// (selectJS) and says how many ended up selected.
func SelectIn(f FieldDriver, values []string) (int, *Dialog, error) {
	var r struct {
		Selected int      `json:"selected"`
		Missing  []string `json:"missing"`
		Error    string   `json:"error"`
	}
	d, err := f.Call(selectJS, &r, values)
	if d != nil || err != nil {
		return 0, d, err
	}
	if r.Error != "" {
		return 0, nil, werr.Invalid("%s: %s", f, r.Error)
	}
	if len(r.Missing) > 0 {
		return 0, nil, werr.New(werr.NotFound, "no option with value or label %q in %s", r.Missing[0], f).WithDetail("missing", r.Missing)
	}
	return r.Selected, nil, nil
}

// SelectOption selects the options of a <select> whose value (or label)
// is in values, firing input and change.
func (b *Browser) SelectOption(ctx context.Context, e Element, values []string) (*SelectResult, error) {
	if err := e.validate(); err != nil {
		return nil, err
	}
	if len(values) == 0 {
		return nil, werr.Invalid("values must not be empty")
	}
	n := 0
	ar, err := b.action(ctx, func(o *op) (*Dialog, error) {
		var d *Dialog
		var err error
		n, d, err = o.selectOption(e, values)
		return d, err
	})
	if err != nil {
		return nil, err
	}
	return &SelectResult{Selected: n, ActionResult: *ar}, nil
}

// FormField is one field of FillForm, in either shape: W365 {selector, value}
// or Playwright Workspaces {target, value, name, type}. Element (set by a
// caller that resolved a snapshot ref) wins over Selector, which wins over
// Target (used as a CSS selector). Value is a string, or a boolean for
// checkboxes and radios, or a list of strings for a multiple <select>.
type FormField struct {
	Selector string   `json:"selector,omitempty"`
	Target   string   `json:"target,omitempty"`
	Name     string   `json:"name,omitempty"`
	Type     string   `json:"type,omitempty"`
	Value    any      `json:"value"`
	Element  *Element `json:"-"`
}

// Limits of a form field (Playwright Workspaces' browser_fill_form), in characters.
const (
	MaxFieldValue = 100 << 10
	MaxFieldName  = 1024
	MaxFieldType  = 128
)

func (f FormField) checkLimits() *werr.Error {
	if v, ok := f.Value.(string); ok && utf8.RuneCountInString(v) > MaxFieldValue {
		return werr.Invalid("value has more than %d characters (100 KiB)", MaxFieldValue)
	}
	if utf8.RuneCountInString(f.Name) > MaxFieldName {
		return werr.Invalid("name has more than %d characters", MaxFieldName)
	}
	if utf8.RuneCountInString(f.Type) > MaxFieldType {
		return werr.Invalid("type has more than %d characters", MaxFieldType)
	}
	return nil
}

func (f FormField) element() Element {
	switch {
	case f.Element != nil:
		return *f.Element
	case f.Selector != "":
		return CSS(f.Selector)
	}
	return CSS(f.Target)
}

// FieldResult is the outcome of one field.
type FieldResult struct {
	Index    int    `json:"index"`
	Selector string `json:"selector"`
	OK       bool   `json:"ok"`
	Error    string `json:"error,omitempty"`
}

// FillFormResult reports the fields filled, in order, up to the first failure.
type FillFormResult struct {
	Filled int           `json:"filled"`
	Fields []FieldResult `json:"fields"`
	ActionResult
}

const kindJS = `function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  return {tag: el.tagName.toLowerCase(), type: (el.type || '').toLowerCase(), checked: !!el.checked, editable: !!el.isContentEditable,
    value: (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') ? el.value : null};
}`

// fieldKind is what kindJS reports; Value (nil but for inputs and textareas) never
// leaves the engine: it may be a password.
type fieldKind struct {
	Tag      string  `json:"tag"`
	Type     string  `json:"type"`
	Checked  bool    `json:"checked"`
	Editable bool    `json:"editable"`
	Value    *string `json:"value"`
}

// SetValueJS sets an input's value whole, through the native setter (frameworks that
// track it see the change), with input and change events; it answers whether the input
// kept the value (a malformed date is dropped).
const SetValueJS = `function(v) {
  const proto = Object.getPrototypeOf(this);
  const desc = Object.getOwnPropertyDescriptor(proto, 'value');
  this.focus();
  if (desc && desc.set) desc.set.call(this, v); else this.value = v;
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return this.value === v;
}`

// ValueTypesJS lists, as a JavaScript array, the input types whose value is set whole
// (SetValueJS) when text is typed into them, as Playwright's fill sets them: a date's
// widget takes keys per segment in the locale's order, so typed ISO text ("2027-03-15")
// left a date input empty; a colour input takes no keys and a range only arrows, so typed
// "#1e90ff" or "12" left them unchanged.
const ValueTypesJS = `['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range']`

// valueFormats shows the value each input type set whole takes.
var valueFormats = map[string]string{"date": "2027-03-15", "time": "14:30", "datetime-local": "2027-03-15T14:30",
	"month": "2027-03", "week": "2027-W11", "color": "#1a2b3c", "range": "a number within its min and max"}

// BadValue is the error for a value an input of type typ did not keep.
func BadValue(value, typ string) error {
	e := werr.Invalid("%q is not a valid value for an input of type %s", value, typ)
	if f := valueFormats[typ]; f != "" {
		e = e.WithHint("it takes a value like %s", f)
	}
	return e
}

func boolValue(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch strings.ToLower(strings.TrimSpace(x)) {
		case "true", "on", "yes", "checked", "1":
			return true, true
		case "false", "off", "no", "unchecked", "0", "":
			return false, true
		}
	}
	return false, false
}

func stringValue(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case bool:
		return fmt.Sprint(x), nil
	case float64:
		if x == math.Trunc(x) {
			return fmt.Sprintf("%d", int64(x)), nil
		}
		return fmt.Sprint(x), nil
	case int, int64, json.Number:
		return fmt.Sprint(x), nil
	case nil:
		return "", nil
	}
	return "", werr.Invalid("value must be a string, number or boolean")
}

func (o *op) fillField(f FormField) (*Dialog, error) {
	e := f.element()
	if err := e.validate(); err != nil {
		return nil, werr.Invalid("each field needs a selector or target")
	}
	obj, st, err := o.actionable(e, needEnabled)
	if err != nil {
		return nil, err
	}
	return FillField(opField{o: o, e: e, obj: obj, st: st}, f.Value)
}

// FieldDriver acts on one form field for FillField: the engine's own elements, and
// the snapshot's refs inside out-of-process frames, fill by one rule.
type FieldDriver interface {
	fmt.Stringer // names the field in errors
	FieldCaller
	// Click clicks the field's centre with real mouse events.
	Click() (*Dialog, error)
	// Type focuses the field and replaces its content with text (typeText's way).
	Type(text string) (*Dialog, error)
}

// FieldCaller calls a function declaration with this = a field, JSON args, the result
// decoded into out.
type FieldCaller interface {
	Call(fn string, out any, args ...any) (*Dialog, error)
}

// callFunc is a FieldCaller of a function.
type callFunc func(fn string, out any, args ...any) (*Dialog, error)

func (c callFunc) Call(fn string, out any, args ...any) (*Dialog, error) { return c(fn, out, args...) }

// opField is an element of the active tab's process, resolved by an op and found
// actionable (visible, enabled) in state st.
type opField struct {
	o   *op
	e   Element
	obj runtime.RemoteObjectID
	st  elemState
}

func (f opField) String() string { return f.e.String() }
func (f opField) Call(fn string, out any, args ...any) (*Dialog, error) {
	return f.o.await(func(ctx context.Context) error { return callOn(ctx, f.o.t, f.obj, fn, out, args...) })
}
func (f opField) Click() (*Dialog, error) { return f.o.click(f.e, 1, ClickOptions{}) }
func (f opField) Type(text string) (*Dialog, error) {
	return f.o.typeInto(f.e, f.obj, f.st, text, TypeOptions{})
}

// fieldSettle bounds how long FillField waits for a ticked or cleared box to show it.
const fieldSettle = time.Second

// FillField puts value into the field (text, a boolean for checkboxes and radios,
// option values for a select) and checks that the field then holds it: a page may
// refuse a change (a click that missed, a handler that undid it, a value the input
// sanitised away). The value never appears in an error: it may be a password.
func FillField(f FieldDriver, value any) (*Dialog, error) {
	var k fieldKind
	if d, err := f.Call(kindJS, &k); d != nil || err != nil {
		return d, err
	}
	if d, err := setField(f, k, value); d != nil || err != nil {
		return d, err
	}
	var after fieldKind
	if d, err := f.Call(kindJS, &after); d != nil || err != nil {
		return d, err
	}
	// A click reaches a frame of another process after the call that dispatched it has
	// returned (the browser routes it on): a box there is looked at again for a while
	// before it counts as unchanged.
	if want, ok := boolValue(value); ok && k.Tag == "input" && (k.Type == "checkbox" || k.Type == "radio") {
		for deadline := time.Now().Add(fieldSettle); after.Checked != want && time.Now().Before(deadline); {
			time.Sleep(20 * time.Millisecond)
			if d, err := f.Call(kindJS, &after); d != nil || err != nil {
				return d, err
			}
		}
	}
	switch {
	case k.Tag == "input" && (k.Type == "checkbox" || k.Type == "radio"):
		if want, _ := boolValue(value); after.Checked != want {
			return nil, werr.New(werr.Unavailable, "the %s (%s) is still %s after the click", k.Type, f, map[bool]string{true: "checked", false: "unchecked"}[after.Checked])
		}
	case after.Value != nil && k.Type != "file" && k.Type != "color" && k.Type != "range":
		if s, _ := stringValue(value); *after.Value != s {
			return nil, werr.New(werr.Unavailable, "the field (%s) did not take the value: it holds another one", f)
		}
	}
	return nil, nil
}

// setField puts value into a form field of kind k.
func setField(f FieldDriver, k fieldKind, value any) (*Dialog, error) {
	switch {
	case k.Tag == "input" && (k.Type == "checkbox" || k.Type == "radio"):
		want, ok := boolValue(value)
		if !ok {
			return nil, werr.Invalid("a %s takes true or false", k.Type)
		}
		if want == k.Checked {
			return nil, nil
		}
		if k.Type == "radio" && !want {
			return nil, werr.Invalid("a radio button cannot be unchecked; check another one of its group")
		}
		return f.Click()
	case k.Tag == "select":
		var vals []string
		if list, ok := value.([]any); ok {
			for _, x := range list {
				s, err := stringValue(x)
				if err != nil {
					return nil, err
				}
				vals = append(vals, s)
			}
		} else if l, ok := value.([]string); ok {
			vals = l
		} else {
			s, err := stringValue(value)
			if err != nil {
				return nil, err
			}
			vals = []string{s}
		}
		_, d, err := SelectIn(f, vals)
		return d, err
	case k.Tag == "input" && k.Type == "file":
		return nil, werr.Invalid("file inputs are set with browser_set_file_input_ref")
	case k.Tag == "input" && map[string]bool{"date": true, "time": true, "datetime-local": true, "month": true, "week": true, "color": true, "range": true}[k.Type]:
		s, err := stringValue(value)
		if err != nil {
			return nil, err
		}
		var ok bool
		if d, err := f.Call(SetValueJS, &ok, s); d != nil || err != nil {
			return d, err
		}
		if !ok {
			return nil, BadValue(s, k.Type)
		}
		return nil, nil
	case k.Tag == "input" || k.Tag == "textarea" || k.Editable:
		s, err := stringValue(value)
		if err != nil {
			return nil, err
		}
		return f.Type(s)
	}
	return nil, werr.Invalid("the element (%s, <%s>) is not a form field", f, k.Tag)
}

// FillForm fills fields in order with real input, stopping at the first
// failure. On failure it returns both the result so far (which fields
// succeeded) and the error (with details "filled" and "failedIndex").
func (b *Browser) FillForm(ctx context.Context, fields []FormField) (*FillFormResult, error) {
	if len(fields) == 0 {
		return nil, werr.Invalid("fields must not be empty")
	}
	for i, f := range fields {
		if err := f.checkLimits(); err != nil {
			return nil, werr.Invalid("field %d: %s", i, err.Message).WithDetail("failedIndex", i)
		}
	}
	o, err := b.begin(ctx, false)
	if err != nil {
		return nil, err
	}
	defer o.end()
	res := &FillFormResult{Fields: []FieldResult{}}
	var failure error
	ar, err := o.act(func(o *op) (*Dialog, error) {
		for i, f := range fields {
			e := f.element()
			fr := FieldResult{Index: i, Selector: e.Selector}
			if fr.Selector == "" && e.BackendNodeID != 0 {
				fr.Selector = cmp.Or(f.Selector, f.Target)
			}
			d, err := o.fillField(f)
			if err != nil {
				fr.Error = werr.As(err).Message
				res.Fields = append(res.Fields, fr)
				failure = werr.As(err).WithDetail("filled", res.Filled).WithDetail("failedIndex", i)
				return nil, nil
			}
			fr.OK = true
			res.Filled++
			res.Fields = append(res.Fields, fr)
			if d != nil {
				return d, nil
			}
		}
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	res.ActionResult = *ar
	if failure != nil {
		return res, failure
	}
	return res, nil
}

// Drag drags source onto target with real mouse events; HTML5 drag and drop
// works (the native drag is intercepted and replayed as drag events).
func (b *Browser) Drag(ctx context.Context, source, target Element) (*ActionResult, error) {
	if err := source.validate(); err != nil {
		return nil, err
	}
	if err := target.validate(); err != nil {
		return nil, err
	}
	return b.action(ctx, func(o *op) (*Dialog, error) {
		if _, _, err := o.actionable(target, 0); err != nil {
			return nil, err
		}
		_, from, err := o.actionable(source, needStable|needHit)
		if err != nil {
			return nil, err
		}
		tobj, to, err := o.actionable(target, needStable)
		if err != nil {
			return nil, err
		}
		if !to.InView || !from.InView {
			return nil, werr.Invalid("the source and the target do not fit in the viewport together")
		}
		_ = tobj
		return o.await(func(ctx context.Context) error {
			_, err := chromedp.DragAndDropXY(from.X, from.Y, to.X, to.Y)(ctx, o.t.t)
			return err
		})
	})
}

// QueryText returns the textContent of the first element matching e (no
// wait), capped at PageTextBytes.
func (b *Browser) QueryText(ctx context.Context, e Element) (*TextResult, error) {
	if err := e.validate(); err != nil {
		return nil, err
	}
	o, err := b.begin(ctx, false)
	if err != nil {
		return nil, err
	}
	defer o.end()
	var r struct {
		Text  string `json:"text"`
		Bytes int    `json:"bytes"`
	}
	limit := o.b.pol.PageTextBytes
	err = o.do(func(ctx context.Context) error {
		obj, err := o.resolve(ctx, e)
		if err != nil {
			return err
		}
		if obj == "" {
			return werr.New(werr.NotFound, "no element matches %s", e)
		}
		return callOn(ctx, o.t, obj, fmt.Sprintf(`function() { const s = this.textContent || ''; return {text: s.length > %d ? s.slice(0, %d) : s, bytes: new TextEncoder().encode(s).length}; }`, limit, limit), &r)
	})
	if err != nil {
		return nil, err
	}
	out := &TextResult{Text: truncUTF8(r.Text, limit), TotalBytes: r.Bytes}
	out.Truncated = r.Bytes > len(out.Text)
	return out, nil
}

// WaitOptions is what WaitFor waits for; at least one of Selector, Text,
// TextGone. With Selector and Text, the element's text must contain Text.
type WaitOptions struct {
	Selector  string
	Text      string
	TextGone  string
	Visible   bool
	TimeoutMs int // default policy BrowserWaitDefaultMs, capped at BrowserWaitMaxMs
}

// WaitResult reports a successful wait.
type WaitResult struct {
	ElapsedMs int64 `json:"elapsedMs"`
}

const waitJS = `(() => {
  const sel = %s, text = %s, gone = %s, visible = %t;
  let scope = document.body || document.documentElement;
  if (sel) {
    const el = document.querySelector(sel);
    if (!el) return false;
    if (visible && !(` + VisibleBoxJS + `)(el)) return false;
    scope = el;
  }
  const t = scope ? (scope.innerText || scope.textContent || '') : '';
  if (text && !t.includes(text)) return false;
  if (gone && (document.body ? document.body.innerText : '').includes(gone)) return false;
  return true;
})()`

// WaitFor polls the active tab until the conditions hold, or fails with TIMEOUT.
func (b *Browser) WaitFor(ctx context.Context, w WaitOptions) (*WaitResult, error) {
	if w.Selector == "" && w.Text == "" && w.TextGone == "" {
		return nil, werr.Invalid("give a selector, text or textGone to wait for")
	}
	if w.TimeoutMs < 0 {
		return nil, werr.Invalid("timeoutMs must not be negative")
	}
	if w.TimeoutMs == 0 {
		w.TimeoutMs = b.pol.BrowserWaitDefaultMs
	}
	w.TimeoutMs = min(w.TimeoutMs, b.pol.BrowserWaitMaxMs)
	js := func(s string) string { v, _ := json.Marshal(s); return string(v) }
	expr := fmt.Sprintf(waitJS, js(w.Selector), js(w.Text), js(w.TextGone), w.Visible)
	o, err := b.begin(ctx, false)
	if err != nil {
		return nil, err
	}
	defer o.end()
	start := time.Now()
	timeout := time.Duration(w.TimeoutMs) * time.Millisecond
	for {
		var ok bool
		err := o.do(func(ctx context.Context) error {
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			obj, err := evalRaw(cctx, o.t, expr, true)
			if err != nil {
				if we := werr.As(err); we.Code == werr.InvalidArgument {
					return werr.Invalid("invalid CSS selector %q", w.Selector)
				}
				if o.inst.isDead() || ctx.Err() != nil {
					return err
				}
				return nil // a navigation in progress: try again
			}
			return decodeValue(obj, &ok)
		})
		if err != nil {
			return nil, err
		}
		if ok {
			return &WaitResult{ElapsedMs: time.Since(start).Milliseconds()}, nil
		}
		if time.Since(start) >= timeout {
			what := []string{}
			if w.Selector != "" {
				what = append(what, fmt.Sprintf("selector %q", w.Selector))
			}
			if w.Text != "" {
				what = append(what, fmt.Sprintf("text %q", w.Text))
			}
			if w.TextGone != "" {
				what = append(what, fmt.Sprintf("text %q to disappear", w.TextGone))
			}
			return nil, werr.New(werr.Timeout, "waited %d ms for %s", w.TimeoutMs, strings.Join(what, " and "))
		}
		select {
		case <-o.ctx.Done():
			return nil, o.err(o.ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// EvalResult is the string result of EvalJS or Evaluate. Dialog is set when
// the script opened a dialog (Value is then empty).
type EvalResult struct {
	Value  string  `json:"value"`
	Dialog *Dialog `json:"dialog,omitempty"`
}

const stringifyJS = `function() {
  const v = this;
  if (typeof v === 'string') return v;
  if (v === undefined) return 'undefined';
  if (typeof v === 'object' && v !== null && !(v instanceof Node)) { try { const s = JSON.stringify(v); if (s !== undefined) return s; } catch (e) {} }
  if (v instanceof Element) return v.outerHTML.length > 2000 ? v.outerHTML.slice(0, 2000) + '...' : v.outerHTML;
  return String(v);
}`

// stringify turns any remote value into a string: browser_eval_js always returns one.
func stringify(ctx context.Context, t *chromedp.Target, obj *runtime.RemoteObject) (string, error) {
	if obj == nil {
		return "undefined", nil
	}
	switch {
	case obj.Type == runtime.RemoteObjectTypeUndefined:
		return "undefined", nil
	case obj.Subtype == runtime.RemoteObjectSubtypeNull:
		return "null", nil
	case obj.UnserializableValue != "":
		return string(obj.UnserializableValue), nil
	case obj.ObjectID != "":
		var s string
		err := callIn(ctx, t, obj.ObjectID, stringifyJS, &s)
		return s, err
	case len(obj.Value) > 0:
		var s string
		if obj.Type == runtime.RemoteObjectTypeString && json.Unmarshal(obj.Value, &s) == nil {
			return s, nil
		}
		return string(obj.Value), nil
	}
	return obj.Description, nil
}

// EvalJS evaluates a JavaScript expression (promises are awaited) in the
// active tab and returns its value as a string: strings as they are, objects
// as JSON, others through String(). An exception is an INVALID_ARGUMENT error
// carrying the JavaScript message.
func (b *Browser) EvalJS(ctx context.Context, expression string) (*EvalResult, error) {
	if strings.TrimSpace(expression) == "" {
		return nil, werr.Invalid("expression must not be empty")
	}
	o, err := b.begin(ctx, false)
	if err != nil {
		return nil, err
	}
	defer o.end()
	var s string
	d, err := o.scriptAwait(func(ctx context.Context) error {
		obj, err := evalRaw(ctx, o.t, expression, false)
		if err != nil {
			return err
		}
		s, err = stringify(ctx, o.t.t, obj)
		return err
	})
	return b.EvalResult(d, s, err)
}

// EvalResult is a script's outcome: the dialog it opened, or its value cut to the
// page-text cap.
func (b *Browser) EvalResult(d *Dialog, s string, err error) (*EvalResult, error) {
	if d != nil {
		return &EvalResult{Dialog: d}, nil
	}
	if err != nil {
		return nil, err
	}
	return &EvalResult{Value: truncUTF8(s, b.pol.PageTextBytes)}, nil
}

// scriptAwait runs a user script for at most BrowserWaitMaxMs; a script still
// running then (an endless loop, a promise that never settles) is terminated.
func (o *op) scriptAwait(f func(ctx context.Context) error) (*Dialog, error) {
	var d *Dialog
	err := Bounded(o.ctx, o.t.t, time.Duration(o.b.pol.BrowserWaitMaxMs)*time.Millisecond, func(ctx context.Context) error {
		var err error
		d, err = o.b.await(ctx, o.inst, o.t, f)
		return err
	})
	if werr.CodeOf(err) == werr.Timeout {
		return nil, err
	}
	return d, err
}

// Bounded runs f, a user script on target t, for at most limit; a script still running
// then (an endless loop, a promise that never settles) is terminated.
func Bounded(ctx context.Context, t *chromedp.Target, limit time.Duration, f func(ctx context.Context) error) error {
	sctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	err := f(sctx)
	if err != nil && sctx.Err() != nil && ctx.Err() == nil {
		tctx, tcancel := context.WithTimeout(ctx, 2*time.Second)
		_, _ = cdp.Call(tctx, t, runtime.TerminateExecution, cdp.Empty{})
		tcancel()
		return werr.New(werr.Timeout, "the script did not finish within %s and was stopped", limit)
	}
	return err
}

// Evaluate calls a function expression such as "() => document.title" or
// "(el) => el.value" (the element is passed when e is set) and returns its
// (awaited) result as EvalJS does.
func (b *Browser) Evaluate(ctx context.Context, function string, e *Element) (*EvalResult, error) {
	if strings.TrimSpace(function) == "" {
		return nil, werr.Invalid("function must not be empty")
	}
	if e != nil {
		if err := e.validate(); err != nil {
			return nil, err
		}
	}
	o, err := b.begin(ctx, false)
	if err != nil {
		return nil, err
	}
	defer o.end()
	var s string
	d, err := o.scriptAwait(func(ctx context.Context) error {
		if e != nil {
			el, err := o.resolve(ctx, *e)
			if err != nil {
				return err
			}
			if el == "" {
				return werr.New(werr.NotFound, "no element matches %s", *e)
			}
			s, err = CallElement(ctx, o.t.t, el, function, objectGroup)
			return err
		}
		obj, err := evalRaw(ctx, o.t, "("+function+")()", false)
		if err != nil {
			return err
		}
		s, err = stringify(ctx, o.t.t, obj)
		return err
	})
	return b.EvalResult(d, s, err)
}

// CallElement calls function (a function expression) with the element obj of target t
// (the tab's, or an out-of-process frame's) as its argument, and returns its awaited
// result as Evaluate does, the objects it makes in group.
func CallElement(ctx context.Context, t *chromedp.Target, obj runtime.RemoteObjectID, function, group string) (string, error) {
	res, err := cdp.Call(ctx, t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: "function(el) { return (" + function + ")(el); }", ObjectID: obj,
		Arguments: []*runtime.CallArgument{{ObjectID: obj}}, AwaitPromise: new(true), ObjectGroup: group, UserGesture: new(true),
	})
	if err != nil {
		return "", err
	}
	if res.ExceptionDetails != nil {
		return "", jsError(res.ExceptionDetails)
	}
	return stringify(ctx, t, res.Result)
}

// Scroll scrolls by dx, dy CSS pixels with a real mouse wheel event at the
// element's centre (the element is scrolled into view first), or at the centre
// of the viewport when e is nil.
func (b *Browser) Scroll(ctx context.Context, e *Element, dx, dy float64) (*ActionResult, error) {
	if e != nil {
		if err := e.validate(); err != nil {
			return nil, err
		}
	}
	return b.action(ctx, func(o *op) (*Dialog, error) {
		var x, y float64
		if e != nil {
			_, st, err := o.actionable(*e, needStable)
			if err != nil {
				return nil, err
			}
			x, y = st.X, st.Y
		} else {
			var vp struct{ W, H float64 }
			if err := o.evalValue(`({W: innerWidth, H: innerHeight})`, &vp); err != nil {
				return nil, err
			}
			x, y = vp.W/2, vp.H/2
		}
		if dx == 0 && dy == 0 {
			return nil, nil
		}
		return o.await(func(ctx context.Context) error {
			// The generated params drop zero deltas, which Chrome requires.
			return o.t.t.Call(ctx, input.DispatchMouseEvent.Method, map[string]any{
				"type": input.DispatchMouseEventTypeMouseWheel, "x": x, "y": y, "deltaX": dx, "deltaY": dy}, nil)
		})
	})
}

// ChooserFiles answers the file chooser the active tab's page opened, in the tab's document
// or in an out-of-process frame's, with inline files by FilesIn's rule; ok is false when
// none is pending.
func (b *Browser) ChooserFiles(ctx context.Context, files []InlineFile) (ok bool, err error) {
	o, err := b.begin(ctx, true)
	if err != nil {
		return false, err
	}
	b.mu.Lock()
	node, in := o.t.chooser, o.t.chooserIn
	b.mu.Unlock()
	o.end()
	if node == 0 {
		return false, nil
	}
	if in == nil {
		_, err = b.SetFileData(ctx, Node(int64(node)), files)
		return true, err
	}
	_, err = b.action(ctx, func(o *op) (*Dialog, error) {
		rn, err := cdp.Call(o.ctx, in, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: node})
		if err != nil || rn.Object == nil {
			return nil, werr.New(werr.NotFound, "the file input of the open file chooser is gone").
				WithHint("click the page's upload button again")
		}
		input, d, err := FilesIn(callFunc(func(fn string, out any, args ...any) (*Dialog, error) {
			return o.await(func(ctx context.Context) error { return callIn(ctx, in, rn.Object.ObjectID, fn, out, args...) })
		}), files)
		if err == nil && input {
			b.mu.Lock()
			o.t.chooser, o.t.chooserIn = 0, nil
			b.mu.Unlock()
		}
		return d, err
	})
	return true, err
}

// SetFiles sets the files of an <input type=file> (input and change fire).
// The caller checks the paths against its policy and stages them where the browser can read
// them (snapshot.StageFiles into UploadDir); they must exist.
func (b *Browser) SetFiles(ctx context.Context, e Element, paths []string) (*ActionResult, error) {
	return b.setFiles(ctx, e, func(o *op, obj runtime.RemoteObjectID) (bool, *Dialog, error) {
		var k fieldKind
		if err := callOn(o.ctx, o.t, obj, kindJS, &k); err != nil {
			return false, nil, o.err(err)
		}
		if k.Tag != "input" || k.Type != "file" {
			return false, nil, werr.Invalid("the element (%s) is not a file input", e)
		}
		d, err := o.await(func(ctx context.Context) error {
			_, err := cdp.Call(ctx, o.t.t, dom.SetFileInputFiles, dom.SetFileInputFilesParams{Files: paths, ObjectID: obj})
			return err
		})
		return true, d, err
	})
}

// InlineFile is a file sent with the call: the page gets it with this name and
// MIME type, never from a path of the host.
type InlineFile struct {
	Name     string `json:"name"`
	MIMEType string `json:"mimeType"`
	Data     string `json:"data"` // base64
}

// inlineTransferJS builds dt, a DataTransfer holding the inline files.
const inlineTransferJS = `const dt = new DataTransfer();
  for (const f of files) {
    const bin = atob(f.data), bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    dt.items.add(new File([bytes], f.name, {type: f.mimeType}));
  }`

const inlineFilesJS = `function(files) {
  if (files.length > 1 && !this.multiple) return 'the file input takes one file (it has no multiple attribute)';
  ` + inlineTransferJS + `
  this.files = dt.files;
  this.dispatchEvent(new Event('input', {bubbles: true, composed: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return '';
}`

// dropFilesJS drops the inline files onto an element that is not a file input (a drop
// zone), as files dragged from the desktop are: dragenter, dragover and drop at its centre,
// on what the point hits when that is inside it. A drop zone takes files by cancelling
// dragover; when none does, nothing is dropped and the caller is told.
const dropFilesJS = `function(files) {
  ` + inlineTransferJS + `
  this.scrollIntoView({block: 'center', inline: 'center'});
  const r = this.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
  const hit = this.getRootNode().elementFromPoint(x, y);
  const at = hit && this.contains(hit) ? hit : this;
  const init = {bubbles: true, cancelable: true, composed: true, clientX: x, clientY: y, dataTransfer: dt};
  at.dispatchEvent(new DragEvent('dragenter', init));
  const over = new DragEvent('dragover', init);
  at.dispatchEvent(over);
  if (!over.defaultPrevented) {
    at.dispatchEvent(new DragEvent('dragleave', init));
    return 'the element is neither a file input nor a drop zone that takes files (its dragover was not cancelled)';
  }
  at.dispatchEvent(new DragEvent('drop', init));
  return '';
}`

// SetFileData sets inline files on an <input type=file>, or drops them onto any other
// element, by FilesIn's rule.
func (b *Browser) SetFileData(ctx context.Context, e Element, files []InlineFile) (*ActionResult, error) {
	return b.setFiles(ctx, e, func(o *op, obj runtime.RemoteObjectID) (bool, *Dialog, error) {
		return FilesIn(opField{o: o, e: e, obj: obj}, files)
	})
}

// FilesIn sets inline files on the field when it is an <input type=file>, each with its
// own name and MIME type (input and change fire), or else drops them onto it
// (dropFilesJS); it says whether the field was a file input.
func FilesIn(f FieldCaller, files []InlineFile) (bool, *Dialog, error) {
	var k fieldKind
	if d, err := f.Call(kindJS, &k); d != nil || err != nil {
		return false, d, err
	}
	input, fn := k.Tag == "input" && k.Type == "file", dropFilesJS
	if input {
		fn = inlineFilesJS
	}
	var refusal string
	d, err := f.Call(fn, &refusal, files)
	if err == nil && refusal != "" {
		err = werr.Invalid("%s", refusal)
	}
	return input, d, err
}

// setFiles runs set on the element, which says whether it was a file input.
func (b *Browser) setFiles(ctx context.Context, e Element, set func(o *op, obj runtime.RemoteObjectID) (bool, *Dialog, error)) (*ActionResult, error) {
	if err := e.validate(); err != nil {
		return nil, err
	}
	return b.action(ctx, func(o *op) (*Dialog, error) {
		// File inputs are often hidden behind a styled label: wait only for
		// the element to exist.
		obj, err := o.present(e)
		if err != nil {
			return nil, err
		}
		input, d, err := set(o, obj)
		if err == nil && input {
			// Whatever input got the files, a pending chooser is answered.
			o.b.mu.Lock()
			o.t.chooser, o.t.chooserIn = 0, nil
			o.b.mu.Unlock()
		}
		return d, err
	})
}
