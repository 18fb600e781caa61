package snapshot

import (
	"context"
	"encoding/json"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// maxTextFrames bounds how many frames FrameTexts reads.
const maxTextFrames = 200

// FrameTexts returns the visible text (innerText) of every frame of the active
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
		// Out-of-process iframes are not in their parent's frame tree: find them
		// by the frame they hang from.
		infos, err := chromedp.Targets(ctx)
		if err != nil {
			return err
		}
		children := map[string][]string{}
		for _, ti := range infos {
			if ti.Type == "iframe" && ti.ParentFrameID != "" {
				children[string(ti.ParentFrameID)] = append(children[string(ti.ParentFrameID)], string(ti.TargetID))
			}
		}
		var visit func(s *sess) error
		visit = func(s *sess) error {
			for id := range s.loaders {
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
				w, err := cdp.Call(ctx, s.t, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: cdp.FrameID(id), WorldName: worldName})
				if err != nil {
					continue // the frame went away
				}
				res, err := cdp.Call(ctx, s.t, runtime.Evaluate, runtime.EvaluateParams{
					Expression: `document.body ? document.body.innerText : (document.documentElement ? document.documentElement.textContent : '')`,
					ContextID:  w.ExecutionContextID, ReturnByValue: new(true)})
				if err != nil || res.ExceptionDetails != nil || res.Result == nil {
					continue
				}
				var s string
				if json.Unmarshal(res.Result.Value, &s) == nil {
					out = append(out, s)
				}
			}
			return nil
		}
		return visit(c.tab)
	})
	return out, err
}
