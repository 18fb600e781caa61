package commands

import (
	"context"
	"time"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/session"
)

const browserKey = "browser"

// browserOf is the session's browser, launched on first use: headful on the session's
// desktop, with a profile of its own.
func browserOf(ctx context.Context, env *Env) (*browser.Browser, error) {
	return session.Use(env.Session, browserKey, func(s *session.Session) (*browser.Browser, error) {
		o := browser.Options{
			Env:      s.Desktop.Environ(nil),
			Headless: env.Host.opts.BrowserHeadless,
			Policy:   env.Host.Policy,
		}
		if s.ID == session.DefaultName {
			// Only the default session uses an attached browser; other sessions get their own.
			o.CDPEndpoint = env.Host.opts.CDPEndpoint
		}
		return browser.Launch(ctx, o)
	})
}

// browserURLOf tells focus_browser the current URL of a window of the browser w365
// drives (never launching one to answer).
func browserURLOf(env *Env) func(handle uint32) string {
	return func(handle uint32) string {
		b, ok := session.Peek[*browser.Browser](env.Session, browserKey)
		if !ok {
			return ""
		}
		wm, err := windowsOf(env)
		if err != nil {
			return ""
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		ws, err := wm.List(ctx)
		if err != nil {
			return ""
		}
		for _, w := range ws {
			if w.Handle == handle && w.PID == b.PID() {
				u, _ := b.URL(ctx)
				return u
			}
		}
		return ""
	}
}
