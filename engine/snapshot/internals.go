package snapshot

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
)

// A custom element can give itself a role, a name and states through its ElementInternals
// (attachInternals(): internals.role = 'switch', internals.ariaChecked = 'true') rather than
// through attributes. No DOM API reads them back, so walkJS alone shows such an element as
// a generic container, or not at all when it has no text. The browser's own accessibility
// tree has them: for the custom elements of a document that carry no role attribute
// (internalsJS lists them, focusable ones first, internalsMax at most), the role, name and
// states Chromium computed are handed to walkJS (window[Symbol.for('w365.internals')] of its
// isolated world), which uses them where the element's attributes say nothing.

// internalsMax bounds the custom elements asked about per document and operation: each
// is a DevTools round trip, and pages built of components hold thousands.
const internalsMax = 64

// internalsJS lists at most max custom elements without a role attribute of the document of
// its world, in open and closed shadow roots too, focusable ones first; given elements and
// their data after max (element, data or null, ...) it records the data for walkJS instead.
// An element the browser gave no role of its own (null: false in the map) is not asked
// again while the document lives: on a page of thousands of plain components, a snapshot
// after the first costs one call, as does a page without custom elements (null). One with a role is asked every time, for its states.
const internalsJS = `function(max, ...set) {
  const K = Symbol.for('w365.internals');
  const m = window[K] || (window[K] = new WeakMap());
  if (set.length) { for (let i = 0; i + 1 < set.length; i += 2) m.set(set[i], set[i + 1] || false); return []; }
  const closed = window[Symbol.for('w365.closed')];
  const first = [], rest = [];
  const scan = root => {
    for (const el of root.querySelectorAll('*')) {
      if (first.length >= max) return;
      if (el.localName.includes('-') && !el.hasAttribute('role') && m.get(el) !== false && el.checkVisibility()) {
        if (el.tabIndex >= 0) first.push(el); else if (rest.length < max) rest.push(el);
      }
      const sr = el.shadowRoot || (closed && closed.get(el));
      if (sr) scan(sr);
    }
  };
  scan(document);
  return first.length + rest.length ? first.concat(rest).slice(0, max) : null;
}`

// axInternals is what walkJS takes from the browser's tree for one element: role, name and
// the states it reads from attributes otherwise (checked, pressed, expanded, selected,
// disabled, heading level).
type axInternals struct {
	R string `json:"r"`
	N string `json:"n,omitempty"`
	C string `json:"c,omitempty"`
	P string `json:"p,omitempty"`
	E string `json:"e,omitempty"`
	S bool   `json:"s,omitempty"`
	D bool   `json:"d,omitempty"`
	L int    `json:"l,omitempty"`
}

// registerInternals records, for walkJS in world, what the browser's accessibility tree
// says of the document's custom elements that have no role attribute (see above), once per
// operation. A page without such elements costs one call.
func (c *conn) registerInternals(s *sess, world runtime.ExecutionContextID) error {
	if s.internals {
		return nil
	}
	s.internals = true
	limit := &runtime.CallArgument{Value: []byte(strconv.Itoa(internalsMax))}
	els, err := c.nodesOf(s, world, internalsJS, limit)
	if err != nil {
		return err
	}
	args := []*runtime.CallArgument{limit}
	for _, el := range els {
		ax, err := cdp.Call(c.ctx, s.t, accessibility.GetPartialAXTree, accessibility.GetPartialAXTreeParams{ObjectID: el, FetchRelatives: new(false)})
		if err != nil || len(ax.Nodes) == 0 {
			continue
		}
		data := []byte("null")
		if in, ok := internalsOf(ax.Nodes[0]); ok {
			data, _ = json.Marshal(in)
		}
		args = append(args, &runtime.CallArgument{ObjectID: el}, &runtime.CallArgument{Value: data})
	}
	if len(args) == 1 {
		return nil
	}
	_, err = cdp.Call(c.ctx, s.t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{FunctionDeclaration: internalsJS, ExecutionContextID: world, Arguments: args})
	return err
}

// internalsOf reads an element's node of the browser's tree; ok only when it has an ARIA
// role other than generic (Chromium's own roles, such as GenericContainer, are capitalised).
func internalsOf(n *accessibility.Node) (in axInternals, ok bool) {
	if n.Ignored {
		return in, false
	}
	in.R = axString(n.Role)
	if in.R == "" || in.R == "generic" || in.R == "none" || strings.ToLower(in.R) != in.R {
		return in, false
	}
	in.N = axString(n.Name)
	for _, p := range n.Properties {
		switch v := axString(p.Value); p.Name {
		case accessibility.PropertyNameChecked:
			in.C = v
		case accessibility.PropertyNamePressed:
			in.P = v
		case accessibility.PropertyNameExpanded:
			in.E = v
		case accessibility.PropertyNameSelected:
			in.S = v == "true"
		case accessibility.PropertyNameDisabled:
			in.D = v == "true"
		case accessibility.PropertyNameLevel:
			var l int
			if json.Unmarshal(p.Value.Value, &l) == nil {
				in.L = l
			}
		}
	}
	return in, true
}

// axString is an accessibility value as text: a string as it is, a boolean or number as
// JSON writes it.
func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v.Value, &s) == nil {
		return s
	}
	return string(v.Value)
}
