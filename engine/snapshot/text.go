package snapshot

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/werr"
)

// maxTextFrames bounds how many frames FrameTexts reads.
const maxTextFrames = 200

// textJS is a document's visible text: its innerText, then that of every shadow
// root, open or closed (closedJS), which innerText leaves out.
const textJS = `(() => {
  const top = document.body || document.documentElement;
  if (!top) return '';
  const closed = window[Symbol.for('w365.closed')], parts = [top.innerText ?? top.textContent];
  const walk = root => {
    for (const el of root.querySelectorAll('*')) {
      const sr = el.shadowRoot || (closed && closed.get(el));
      if (!sr) continue;
      for (const k of sr.children) if (!['STYLE', 'SCRIPT', 'TEMPLATE'].includes(k.tagName)) parts.push(k.innerText ?? k.textContent);
      walk(sr);
    }
  };
  walk(document);
  return parts.join('\n');
})()`

// FrameTexts returns the visible text (textJS) of every frame of the active
// tab that shows a document, same- and cross-origin, out-of-process ones
// included, as the snapshot sees them; frames showing an error page are skipped.
// It reads in an isolated world, so the page's scripts cannot fake it.
func FrameTexts(ctx context.Context, r Runner) ([]string, error) {
	var out []string
	err := r.Run(ctx, func(ctx context.Context, t *chromedp.Target) error {
		c, err := newConn(ctx, t)
		if err != nil {
			return err
		}
		defer c.close()
		out, err = c.frameTexts(false)
		return err
	})
	return out, err
}

// frameTexts reads the texts of FrameTexts, each frame's before those of the frames in it,
// in document order; without the tab's main frame's when sub.
func (c *conn) frameTexts(sub bool) ([]string, error) {
	var out []string
	// Out-of-process iframes are not in their parent's frame tree: find them
	// by the frame they hang from.
	infos, err := chromedp.Targets(c.ctx)
	if err != nil {
		return nil, err
	}
	children := map[string][]string{}
	for _, ti := range infos {
		if ti.Type == "iframe" && ti.ParentFrameID != "" {
			children[string(ti.ParentFrameID)] = append(children[string(ti.ParentFrameID)], string(ti.TargetID))
		}
	}
	var visit func(s *sess) error
	visit = func(s *sess) error {
		for _, id := range s.order {
			if len(out) >= maxTextFrames {
				return nil
			}
			if _, bad := s.failed[id]; bad {
				continue
			}
			if id != s.main {
				if _, oop, err := c.oopif(id); err != nil {
					return err
				} else if oop {
					cs, err := c.child(s, id)
					if err != nil || errorPage(cs.url) {
						continue // gone meanwhile, or an error page
					}
					if err := visit(cs); err != nil {
						return err
					}
					continue
				}
			}
			if !sub || s != c.tab || id != s.main {
				if t, ok := c.frameText(s, id); ok {
					out = append(out, t)
				}
			}
			for _, child := range children[id] {
				if _, known := s.loaders[child]; known {
					continue // listed in this tree already: visited as a frame of its own
				}
				cs, err := c.child(s, child)
				if err != nil || errorPage(cs.url) {
					continue
				}
				if err := visit(cs); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return out, visit(c.tab)
}

// frameText reads the text (textJS) of frame id of s, in a world of its own; ok is false
// when the frame went away.
func (c *conn) frameText(s *sess, id string) (string, bool) {
	w, err := cdp.Call(c.ctx, s.t, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: cdp.FrameID(id), WorldName: worldName})
	if err != nil {
		return "", false
	}
	if fs := c.local(s, id); fs != nil {
		if err := c.registerClosed(fs, w.ExecutionContextID); err != nil {
			return "", false
		}
	}
	res, err := cdp.Call(c.ctx, s.t, runtime.Evaluate, runtime.EvaluateParams{
		Expression: textJS, ContextID: w.ExecutionContextID, ReturnByValue: new(true)})
	if err != nil || res.ExceptionDetails != nil || res.Result == nil {
		return "", false
	}
	var t string
	return t, json.Unmarshal(res.Result.Value, &t) == nil
}

// PageText is the visible text of the active tab as textJS reads it (shadow roots, closed
// ones too, included): its main frame's, then that of each frame in it, same- and
// cross-origin, in document order (frameTexts), a blank line between two documents; cut
// at limit bytes on a UTF-8 boundary.
func PageText(ctx context.Context, r Runner, limit int) (*browser.TextResult, error) {
	var v struct {
		Text  string `json:"text"`
		Bytes int    `json:"bytes"`
	}
	var frames []string
	err := r.Run(ctx, func(ctx context.Context, t *chromedp.Target) error {
		c, err := newConn(ctx, t)
		if err != nil {
			return err
		}
		defer c.close()
		world, err := c.worldOf(c.tab)
		if err != nil {
			return err
		}
		if err := c.registerClosed(c.tab, world); err != nil {
			return err
		}
		res, err := cdp.Call(ctx, t, runtime.Evaluate, runtime.EvaluateParams{ContextID: world, ReturnByValue: new(true),
			Expression: fmt.Sprintf("(() => { const s = %s; return {text: s.slice(0, %d), bytes: new TextEncoder().encode(s).length}; })()", textJS, limit)})
		if err != nil {
			return err
		}
		if res.ExceptionDetails != nil || res.Result == nil {
			return werr.New(werr.Internal, "cannot read the page's text")
		}
		if err := json.Unmarshal(res.Result.Value, &v); err != nil {
			return err
		}
		frames, err = c.frameTexts(true)
		return err
	})
	if err != nil {
		return nil, err
	}
	for _, f := range frames {
		if f = strings.TrimSpace(f); f != "" {
			v.Text += "\n\n" + f
			v.Bytes += 2 + len(f)
		}
	}
	out := &browser.TextResult{Text: v.Text, TotalBytes: v.Bytes}
	if len(out.Text) > limit {
		n := limit
		for n > 0 && !utf8.RuneStart(out.Text[n]) {
			n--
		}
		out.Text = out.Text[:n]
	}
	out.Truncated = v.Bytes > len(out.Text)
	return out, nil
}
