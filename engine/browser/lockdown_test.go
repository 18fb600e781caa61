//go:build linux

package browser_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/test/testenv"
)

// The browser itself refuses file:, chrome:, devtools:, chrome-extension: and
// view-source: URLs, whoever asks: a DevTools navigation that no w365 check
// saw, page script, a link click. Judged by what the tab shows.
func TestBrowserRefusesLocalSchemes(t *testing.T) {
	b, s := launch(t)
	file, secret := canary(t)
	shown := func(t *testing.T) string {
		t.Helper()
		var out string
		err := b.Run(tctx(t), func(ctx context.Context, tg *chromedp.Target) error {
			r, err := cdp.Call(ctx, tg, runtime.Evaluate, runtime.EvaluateParams{
				Expression: `location.href + "\n" + (document.documentElement ? document.documentElement.innerText : "")`, ReturnByValue: new(true)})
			if err == nil && r.Result != nil {
				out = string(r.Result.Value)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, u := range []string{"file://" + file, "view-source:file://" + file, "chrome://version/", "chrome://settings/downloads",
		"devtools://devtools/bundled/inspector.html", "view-source:" + s.URL + "/dnd.html", "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/x.html"} {
		t.Run(u, func(t *testing.T) {
			navigate(t, b, s.URL+"/dnd.html")
			var errText string
			err := b.Run(tctx(t), func(ctx context.Context, tg *chromedp.Target) error {
				r, err := cdp.Call(ctx, tg, page.Navigate, page.NavigateParams{URL: u})
				errText = r.ErrorText
				return err
			})
			time.Sleep(300 * time.Millisecond)
			got := shown(t)
			if strings.Contains(got, secret) || strings.Contains(got, "Chromium Authors") || strings.HasPrefix(got, strings.SplitN(u, "/", 2)[0]) {
				t.Fatalf("the browser opened %s: %v %q %q", u, err, errText, got)
			}
			if !strings.Contains(errText, "BLOCKED") {
				t.Fatalf("%s: the navigation was not refused by the browser: %v %q %q", u, err, errText, got)
			}
		})
	}
	t.Run("page script and a link", func(t *testing.T) {
		for _, js := range []string{
			`location.href = "file://` + file + `"`,
			`const a = document.createElement("a"); a.id = "l"; a.href = "file://` + file + `"; a.textContent = "local"; document.body.append(a); "ok"`,
		} {
			navigate(t, b, s.URL+"/dnd.html")
			if _, err := b.EvalJS(tctx(t), js); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(js, `a.id = "l"`) {
				if _, err := b.Click(tctx(t), browser.CSS("#l")); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(500 * time.Millisecond)
			if got := shown(t); strings.Contains(got, secret) || strings.HasPrefix(got, "file:") {
				t.Fatalf("the page opened the file: %q", got)
			}
		}
	})
	// The browser's own UI (the omnibox popup) is not refused: it stays out of the tabs.
	tabs, err := b.ListTabs(tctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range tabs {
		if strings.HasPrefix(tb.URL, "chrome") {
			t.Fatalf("a browser page in the tabs: %+v", tabs)
		}
	}
}

// A profile whose Preferences were rewritten (the blocklist emptied, downloads
// pointed elsewhere) gets the session's rules back at launch; its other keys stay.
func TestBrowserBlocklistSurvivesATamperedProfile(t *testing.T) {
	testenv.Require(t, "chromium")
	prof, dl := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(prof, "Default"), 0o700); err != nil {
		t.Fatal(err)
	}
	tampered := `{"policy":{"url_blocklist":[]},"download":{"default_directory":"/tmp"},"w365_test":{"n":12345678901234567}}`
	if err := os.WriteFile(filepath.Join(prof, "Default", "Preferences"), []byte(tampered), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := browser.Launch(tctx(t), browser.Options{Headless: true, ProfileDir: prof, DownloadDir: dl})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var errText string
	if err := b.Run(tctx(t), func(ctx context.Context, tg *chromedp.Target) error {
		r, err := cdp.Call(ctx, tg, page.Navigate, page.NavigateParams{URL: "chrome://version/"})
		errText = r.ErrorText
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(errText, "BLOCKED") {
		t.Fatalf("chrome://version/ opened in a tampered profile: %q", errText)
	}
	data, err := os.ReadFile(filepath.Join(prof, "Default", "Preferences"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"n":12345678901234567`) || !strings.Contains(string(data), dl) {
		t.Fatalf("the profile's preferences: %s", data)
	}
}
