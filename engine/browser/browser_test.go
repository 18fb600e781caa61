//go:build linux

package browser_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

// server serves testdata/pages on loopback and records what it received.
type server struct {
	*httptest.Server
	mu        sync.Mutex
	submitted url.Values
	cookies   string
}

func (s *server) lastSubmit() url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.submitted
}

func newServer(t *testing.T) *server {
	s := &server{}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("../../testdata/pages")))
	mux.HandleFunc("/submit", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		s.mu.Lock()
		s.submitted = r.PostForm
		s.mu.Unlock()
		b, _ := json.Marshal(r.PostForm)
		fmt.Fprintf(w, "<!doctype html><title>Submitted</title><pre id=echo>%s</pre>", strings.ReplaceAll(string(b), "<", "&lt;"))
	})
	mux.HandleFunc("/download/report.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="report.txt"`)
		fmt.Fprint(w, "report body 123")
	})
	mux.HandleFunc("/download/dotfile", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename=".bashrc"`)
		fmt.Fprint(w, "echo pwned")
	})
	mux.HandleFunc("/slow-image", func(w http.ResponseWriter, r *http.Request) {
		select { // holds the load event of redirect.html until the script moved on
		case <-time.After(3 * time.Second):
		case <-r.Context().Done():
		}
		http.NotFound(w, r)
	})
	mux.HandleFunc("/slow-page", func(w http.ResponseWriter, r *http.Request) {
		delay := 800 * time.Millisecond // a slow server (slow_link.html); ?ms= sets the delay
		if ms, err := strconv.Atoi(r.URL.Query().Get("ms")); err == nil {
			delay = time.Duration(ms) * time.Millisecond
		}
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "<!doctype html><title>Slow page</title><p id=arrived>arrived</p>")
	})
	mux.HandleFunc("/status/500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "oops", 500) })
	mux.HandleFunc("/hang-up", func(w http.ResponseWriter, r *http.Request) {
		if hj, ok := w.(http.Hijacker); ok {
			if c, _, err := hj.Hijack(); err == nil {
				c.Close()
			}
		}
	})
	mux.HandleFunc("/setcookie", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "secret-value-xyz", Path: "/", HttpOnly: true})
		http.SetCookie(w, &http.Cookie{Name: "theme", Value: "dark-secret", Path: "/"})
		fmt.Fprint(w, "<!doctype html><title>Cookie set</title><p>cookies set</p>")
	})
	mux.HandleFunc("/echo-cookies", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.cookies = r.Header.Get("Cookie")
		s.mu.Unlock()
		fmt.Fprint(w, "<!doctype html><title>Echo</title><p>ok</p>")
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		var buf bytes.Buffer
		buf.WriteString("<!doctype html><title>Big</title><pre>")
		for i := 0; buf.Len() < 2<<20; i++ {
			fmt.Fprintf(&buf, "line %06d lorem ipsum dolor sit amet, consectetur adipiscing elit\n", i)
		}
		buf.WriteString("</pre><p id=end>THE END</p>")
		w.Write(buf.Bytes())
	})
	s.Server = httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func codeOf(err error) werr.Code { return werr.CodeOf(err) }

func mustCode(t *testing.T, err error, want werr.Code) {
	t.Helper()
	if got := codeOf(err); got != want {
		t.Fatalf("error code = %q (%v), want %q", got, err, want)
	}
}

func launch(t *testing.T) (*browser.Browser, *server) {
	t.Helper()
	testenv.Require(t, "chromium")
	d := x11test.Start(t)
	pol := policy.Default()
	pol.BrowserWaitDefaultMs = 2000
	pol.BrowserWaitMaxMs = 8000 // bounds the endless-script test
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := browser.Launch(ctx, browser.Options{Env: d.Environ(os.Environ()), Policy: pol, DownloadDir: t.TempDir()})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b, newServer(t)
}

func tctx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func navigate(t *testing.T, b *browser.Browser, u string) *browser.NavigateResult {
	t.Helper()
	r, err := b.Navigate(tctx(t), u, browser.WaitLoad)
	if err != nil {
		t.Fatalf("navigate %s: %v", u, err)
	}
	return r
}

func queryText(t *testing.T, b *browser.Browser, sel string) string {
	t.Helper()
	r, err := b.QueryText(tctx(t), browser.CSS(sel))
	if err != nil {
		t.Fatalf("query %s: %v", sel, err)
	}
	return r.Text
}

func TestBrowser(t *testing.T) {
	b, s := launch(t)

	t.Run("NavigateAndRead", func(t *testing.T) {
		r := navigate(t, b, s.URL+"/")
		if r.Status != 200 || r.Title != "w365 test pages" || r.URL != s.URL+"/" {
			t.Fatalf("navigate result = %+v", r)
		}
		txt, err := b.Text(tctx(t))
		if err != nil || !strings.Contains(txt.Text, "Test pages") || txt.Truncated {
			t.Fatalf("text = %+v, %v", txt, err)
		}
		h, err := b.HTML(tctx(t))
		if err != nil || !strings.HasPrefix(h.Text, "<!DOCTYPE html>") || !strings.Contains(h.Text, `href="form.html"`) {
			t.Fatalf("html = %.200q, %v", h.Text, err)
		}
		if u, err := b.URL(tctx(t)); err != nil || u != s.URL+"/" {
			t.Fatalf("url = %q, %v", u, err)
		}
		if title, err := b.Title(tctx(t)); err != nil || title != "w365 test pages" {
			t.Fatalf("title = %q, %v", title, err)
		}
		if r := navigate(t, b, s.URL+"/nope.html"); r.Status != 404 {
			t.Fatalf("status of a missing page = %d", r.Status)
		}
		for _, w := range []browser.WaitUntil{browser.WaitDOMContentLoaded, browser.WaitNetworkIdle0, browser.WaitNetworkIdle2} {
			if r, err := b.Navigate(tctx(t), s.URL+"/second.html", w); err != nil || r.Title != "Second" {
				t.Fatalf("navigate waitUntil %s: %+v, %v", w, r, err)
			}
		}
		_, err = b.Navigate(tctx(t), "example.com", "")
		mustCode(t, err, werr.InvalidArgument)
		_, err = b.Navigate(tctx(t), "file:///etc/passwd", "")
		mustCode(t, err, werr.BlockedByPolicy)
		_, err = b.Navigate(tctx(t), "javascript:alert(1)", "")
		mustCode(t, err, werr.BlockedByPolicy)
		_, err = b.Navigate(tctx(t), s.URL, "sometime")
		mustCode(t, err, werr.InvalidArgument)
		if r := navigate(t, b, s.URL+"/redirect.html"); r.Title != "Second" || r.URL != s.URL+"/second.html" || r.Status != 200 {
			t.Fatalf("script redirect: %+v", r)
		}
		if r := navigate(t, b, "data:text/html,<title>D</title><p>data page</p>"); r.Title != "D" {
			t.Fatalf("data url: %+v", r)
		}
	})

	t.Run("HistoryAndReload", func(t *testing.T) {
		navigate(t, b, s.URL+"/")
		navigate(t, b, s.URL+"/second.html")
		r, err := b.Back(tctx(t))
		if err != nil || r.URL != s.URL+"/" || r.Title != "w365 test pages" {
			t.Fatalf("back: %+v, %v", r, err)
		}
		r, err = b.Forward(tctx(t))
		if err != nil || r.Title != "Second" {
			t.Fatalf("forward: %+v, %v", r, err)
		}
		_, err = b.Forward(tctx(t))
		mustCode(t, err, werr.NotFound)
		if _, err := b.EvalJS(tctx(t), "document.body.dataset.mark = 'x'"); err != nil {
			t.Fatal(err)
		}
		r, err = b.Reload(tctx(t))
		if err != nil || r.Title != "Second" || r.Status != 200 {
			t.Fatalf("reload: %+v, %v", r, err)
		}
		if v, _ := b.EvalJS(tctx(t), "String(document.body.dataset.mark)"); v.Value != "undefined" {
			t.Fatalf("reload kept the DOM: %q", v.Value)
		}
	})

	t.Run("FormEveryInputKind", func(t *testing.T) {
		navigate(t, b, s.URL+"/form.html")
		if _, err := b.Type(tctx(t), browser.CSS("#text"), "Grüße 東京", browser.TypeOptions{}); err != nil {
			t.Fatal(err)
		}
		if keys := queryText(t, b, "#keys"); keys != "" {
			t.Fatalf("a fill sent key events: %q", keys)
		}
		if v, err := b.EvalJS(tctx(t), "document.querySelector('#text').value"); err != nil || v.Value != "Grüße 東京" {
			t.Fatalf("typed value %+v, %v", v, err)
		}
		if _, err := b.Type(tctx(t), browser.CSS("#text"), "Grüße 東京", browser.TypeOptions{Slowly: true}); err != nil {
			t.Fatal(err)
		}
		if keys := queryText(t, b, "#keys"); !strings.HasPrefix(keys, "Backspace,G,r,") {
			t.Fatalf("real key events not seen by the page: %q", keys)
		}
		if _, err := b.Type(tctx(t), browser.CSS("#email"), "a@b.example", browser.TypeOptions{}); err != nil {
			t.Fatal(err)
		}
		res, err := b.FillForm(tctx(t), []browser.FormField{
			{Selector: "#password", Value: "hunter2"},
			{Target: "#number", Value: float64(42)},
			{Selector: "#search", Value: "query words"},
			{Selector: "#tel", Value: "+1 555 0100"},
			{Selector: "#url", Value: "https://example.com/x"},
			{Selector: "#date", Value: "2026-11-30"},
			{Selector: "#time", Value: "13:45"},
			{Selector: "#color", Value: "#00ff00"},
			{Selector: "#range", Value: "7"},
			{Selector: "#notes", Value: "line one\nline two"},
			{Selector: "#agree", Value: true, Type: "checkbox"},
			{Selector: "#news", Value: false, Type: "checkbox"},
			{Selector: "#size-m", Value: true, Type: "radio"},
			{Selector: "#fruit", Value: "pear", Type: "combobox"},
			{Selector: "#colors", Value: []any{"red", "Blue"}},
		})
		if err != nil || res.Filled != 15 {
			t.Fatalf("fill form: %+v, %v", res, err)
		}
		sel, err := b.SelectOption(tctx(t), browser.CSS("#colors"), []string{"red", "green", "blue"})
		if err != nil || sel.Selected != 3 {
			t.Fatalf("select: %+v, %v", sel, err)
		}
		_, err = b.SelectOption(tctx(t), browser.CSS("#fruit"), []string{"banana"})
		mustCode(t, err, werr.NotFound)
		if _, err := b.Type(tctx(t), browser.CSS("#editor"), "rich text", browser.TypeOptions{}); err != nil {
			t.Fatal(err)
		}
		if got := queryText(t, b, "#editor"); got != "rich text" {
			t.Fatalf("contenteditable = %q", got)
		}
		ar, err := b.Click(tctx(t), browser.CSS("#submit"))
		if err != nil || !ar.Navigated || !strings.HasSuffix(ar.URL, "/submit") {
			t.Fatalf("submit: %+v, %v", ar, err)
		}
		got := s.lastSubmit()
		want := map[string][]string{
			"text": {"Grüße 東京"}, "email": {"a@b.example"}, "password": {"hunter2"}, "number": {"42"},
			"search": {"query words"}, "tel": {"+1 555 0100"}, "url": {"https://example.com/x"},
			"date": {"2026-11-30"}, "time": {"13:45"}, "color": {"#00ff00"}, "range": {"7"},
			"notes": {"line one\r\nline two"}, "agree": {"yes"}, "size": {"m"}, "fruit": {"pear"},
			"colors": {"red", "green", "blue"}, "hidden": {"h1"},
		}
		for k, v := range want {
			if strings.Join(got[k], "|") != strings.Join(v, "|") {
				t.Errorf("server received %s = %q, want %q", k, got[k], v)
			}
		}
		if _, ok := got["news"]; ok {
			t.Errorf("unchecked checkbox was submitted: %q", got["news"])
		}
		if _, ok := got["disabled"]; ok {
			t.Errorf("disabled field was submitted")
		}
		// Fail fast: the second field does not exist.
		navigate(t, b, s.URL+"/form.html")
		res, err = b.FillForm(tctx(t), []browser.FormField{{Selector: "#text", Value: "x"}, {Selector: "#nope", Value: "y"}, {Selector: "#email", Value: "z"}})
		mustCode(t, err, werr.NotFound)
		if res == nil || res.Filled != 1 || len(res.Fields) != 2 || res.Fields[1].OK {
			t.Fatalf("partial result = %+v", res)
		}
		if v, _ := b.EvalJS(tctx(t), "document.getElementById('email').value"); v.Value != "" {
			t.Fatalf("a field after the failure was filled: %q", v.Value)
		}
		_, err = b.Type(tctx(t), browser.CSS("#disabled"), "x", browser.TypeOptions{})
		mustCode(t, err, werr.Timeout)
		_, err = b.Click(tctx(t), browser.CSS("#no-such-element"))
		mustCode(t, err, werr.NotFound)
		_, err = b.Click(tctx(t), browser.CSS("##bad"))
		mustCode(t, err, werr.InvalidArgument)
		// Typing finds, checks and focuses its element in one evaluation: the same errors.
		_, err = b.Type(tctx(t), browser.CSS("##bad"), "x", browser.TypeOptions{})
		mustCode(t, err, werr.InvalidArgument)
		_, err = b.Type(tctx(t), browser.CSS("#no-such-element"), "x", browser.TypeOptions{})
		mustCode(t, err, werr.NotFound)
		_, err = b.Type(tctx(t), browser.CSS("#agree"), "x", browser.TypeOptions{})
		mustCode(t, err, werr.InvalidArgument)
		if v, _ := b.EvalJS(tctx(t), "document.activeElement && document.activeElement.id"); v.Value == "agree" {
			t.Fatal("typing into a checkbox focused it")
		}
	})

	t.Run("WaitFor", func(t *testing.T) {
		navigate(t, b, s.URL+"/delayed.html")
		if _, err := b.QueryText(tctx(t), browser.CSS("#late")); codeOf(err) != werr.NotFound {
			t.Fatalf("late content present too early: %v", err)
		}
		if _, err := b.WaitFor(tctx(t), browser.WaitOptions{Selector: "#late"}); err != nil {
			t.Fatal(err)
		}
		if got := queryText(t, b, "#late"); got != "Late content arrived" {
			t.Fatalf("late = %q", got)
		}
		navigate(t, b, s.URL+"/delayed.html")
		if _, err := b.WaitFor(tctx(t), browser.WaitOptions{TextGone: "Loading data"}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.WaitFor(tctx(t), browser.WaitOptions{Text: "Late content"}); err != nil {
			t.Fatal(err)
		}
		navigate(t, b, s.URL+"/delayed.html")
		if _, err := b.WaitFor(tctx(t), browser.WaitOptions{Selector: "#hidden-first", Visible: true, TimeoutMs: 5000}); err != nil {
			t.Fatal(err)
		}
		if v, _ := b.EvalJS(tctx(t), "getComputedStyle(document.getElementById('hidden-first')).display"); v.Value != "block" {
			t.Fatalf("visible wait returned while hidden: %q", v.Value)
		}
		start := time.Now()
		_, err := b.WaitFor(tctx(t), browser.WaitOptions{Selector: "#never", TimeoutMs: 400})
		mustCode(t, err, werr.Timeout)
		if el := time.Since(start); el > 3*time.Second {
			t.Fatalf("timeout took %s", el)
		}
	})

	t.Run("Dialogs", func(t *testing.T) {
		navigate(t, b, s.URL+"/dialogs.html")
		if r, err := b.HandleDialog(tctx(t), true, ""); err != nil || r.Handled || r.Message != "No pending dialog" {
			t.Fatalf("no dialog: %+v, %v", r, err)
		}
		ar, err := b.Click(tctx(t), browser.CSS("#alert"))
		if err != nil || ar.Dialog == nil || ar.Dialog.Type != "alert" || ar.Dialog.Message != "Hello alert" {
			t.Fatalf("alert: %+v, %v", ar, err)
		}
		if len(b.PendingDialogs()) != 1 {
			t.Fatalf("pending = %v", b.PendingDialogs())
		}
		_, err = b.Text(tctx(t))
		mustCode(t, err, browser.DialogPending)
		if u, err := b.URL(tctx(t)); err != nil || !strings.HasSuffix(u, "/dialogs.html") {
			t.Fatalf("url during a dialog: %q %v", u, err)
		}
		if r, err := b.HandleDialog(tctx(t), true, ""); err != nil || !r.Handled || r.Dialog.Type != "alert" {
			t.Fatalf("handle alert: %+v, %v", r, err)
		}
		if got := queryText(t, b, "#out"); got != "alert done" {
			t.Fatalf("after alert: %q", got)
		}

		ar, err = b.Click(tctx(t), browser.CSS("#confirm"))
		if err != nil || ar.Dialog == nil || ar.Dialog.Type != "confirm" || ar.Dialog.Message != "Proceed?" {
			t.Fatalf("confirm: %+v, %v", ar, err)
		}
		if _, err := b.HandleDialog(tctx(t), false, ""); err != nil {
			t.Fatal(err)
		}
		if got := queryText(t, b, "#out"); got != "confirm false" {
			t.Fatalf("after confirm: %q", got)
		}

		ar, err = b.Click(tctx(t), browser.CSS("#prompt"))
		if err != nil || ar.Dialog == nil || ar.Dialog.Type != "prompt" || ar.Dialog.DefaultPrompt != "nobody" {
			t.Fatalf("prompt: %+v, %v", ar, err)
		}
		if _, err := b.HandleDialog(tctx(t), true, "Ada"); err != nil {
			t.Fatal(err)
		}
		if got := queryText(t, b, "#out"); got != "prompt Ada" {
			t.Fatalf("after prompt: %q", got)
		}

		// An eval that opens a dialog reports it instead of hanging.
		ev, err := b.EvalJS(tctx(t), "alert('from eval')")
		if err != nil || ev.Dialog == nil || ev.Dialog.Message != "from eval" {
			t.Fatalf("eval alert: %+v, %v", ev, err)
		}
		if _, err := b.HandleDialog(tctx(t), true, ""); err != nil {
			t.Fatal(err)
		}

		// A dialog opened while the page loads is reported by the navigation.
		nr, err := b.Navigate(tctx(t), s.URL+"/alert-onload.html", "")
		if err != nil || nr.Dialog == nil || nr.Dialog.Message != "loaded!" {
			t.Fatalf("alert during load: %+v, %v", nr, err)
		}
		if _, err := b.HandleDialog(tctx(t), true, ""); err != nil {
			t.Fatal(err)
		}
		if got := queryText(t, b, "#after"); got != "after alert" {
			t.Fatalf("after the load alert: %q", got)
		}
		navigate(t, b, s.URL+"/dialogs.html")

		if _, err := b.Click(tctx(t), browser.CSS("#arm")); err != nil {
			t.Fatal(err)
		}
		nr, err = b.Navigate(tctx(t), s.URL+"/second.html", "")
		if err != nil || nr.Dialog == nil || nr.Dialog.Type != "beforeunload" {
			t.Fatalf("beforeunload: %+v, %v", nr, err)
		}
		r, err := b.HandleDialog(tctx(t), true, "")
		if err != nil || !r.Handled {
			t.Fatalf("handle beforeunload: %+v, %v", r, err)
		}
		if _, err := b.WaitFor(tctx(t), browser.WaitOptions{Selector: "#h", Text: "Second page"}); err != nil {
			t.Fatalf("navigation after beforeunload: %v", err)
		}
	})

	t.Run("DragAndDrop", func(t *testing.T) {
		navigate(t, b, s.URL+"/dnd.html")
		if _, err := b.Drag(tctx(t), browser.CSS("#src"), browser.CSS("#dst")); err != nil {
			t.Fatal(err)
		}
		if got := queryText(t, b, "#dst"); got != "dropped card-42" {
			t.Fatalf("drop target = %q (log %q)", got, queryText(t, b, "#log"))
		}
	})

	t.Run("Tabs", func(t *testing.T) {
		navigate(t, b, s.URL+"/tabs.html")
		tabs, err := b.ListTabs(tctx(t))
		if err != nil || len(tabs) != 1 || !tabs[0].Active {
			t.Fatalf("tabs = %+v, %v", tabs, err)
		}
		first := tabs[0].ID
		ar, err := b.Click(tctx(t), browser.CSS("#blank"))
		if err != nil || len(ar.NewTabs) != 1 {
			t.Fatalf("target=_blank: %+v, %v", ar, err)
		}
		if _, err := b.WaitFor(tctx(t), browser.WaitOptions{Selector: "#h", Text: "Second page"}); err != nil {
			t.Fatalf("the new tab is not active: %v", err)
		}
		if _, err := b.SwitchTab(tctx(t), browser.TabRef{ID: first}); err != nil {
			t.Fatal(err)
		}
		ar, err = b.Click(tctx(t), browser.CSS("#open"))
		if err != nil || len(ar.NewTabs) != 1 {
			t.Fatalf("window.open: %+v, %v", ar, err)
		}
		if title, _ := b.Title(tctx(t)); title != "Third" {
			t.Fatalf("active after window.open = %q", title)
		}
		tabs, _ = b.ListTabs(tctx(t))
		if len(tabs) != 3 || !tabs[2].Active || tabs[2].Title != "Third" || tabs[1].Title != "Second" {
			t.Fatalf("tabs = %+v", tabs)
		}
		zero := 0
		if ti, err := b.SwitchTab(tctx(t), browser.TabRef{Index: &zero}); err != nil || ti.ID != first {
			t.Fatalf("switch: %+v, %v", ti, err)
		}
		created, err := b.CreateTabs(tctx(t), []string{s.URL + "/second.html", s.URL + "/third.html"}, nil)
		if err != nil || len(created) != 2 || created[0].Index != 3 || created[1].Index != 4 {
			t.Fatalf("create tabs: %+v, %v", created, err)
		}
		if title, _ := b.Title(tctx(t)); title != "Tabs" {
			t.Fatalf("focus moved without foregroundIndex: %q", title)
		}
		one := 1
		created, err = b.CreateTabs(tctx(t), []string{s.URL + "/", s.URL + "/dnd.html"}, &one)
		if err != nil || !created[1].Active {
			t.Fatalf("create tabs fg: %+v, %v", created, err)
		}
		if title, _ := b.Title(tctx(t)); title != "Drag and drop" {
			t.Fatalf("foreground tab = %q", title)
		}
		nt, err := b.NewTab(tctx(t), s.URL+"/second.html")
		if err != nil || !nt.Active || nt.Title != "Second" {
			t.Fatalf("new tab: %+v, %v", nt, err)
		}
		tabs, _ = b.ListTabs(tctx(t))
		if len(tabs) != 8 {
			t.Fatalf("tabs = %d", len(tabs))
		}
		bad := 99
		_, err = b.SwitchTab(tctx(t), browser.TabRef{Index: &bad})
		mustCode(t, err, werr.NotFound)
		for len(tabs) > 1 {
			last := len(tabs) - 1
			if tabs[last].ID == first {
				last--
			}
			if _, err := b.CloseTab(tctx(t), browser.TabRef{ID: tabs[last].ID}); err != nil {
				t.Fatal(err)
			}
			tabs, _ = b.ListTabs(tctx(t))
		}
		if tabs[0].ID != first || !tabs[0].Active {
			t.Fatalf("left = %+v", tabs)
		}
		// Closing the last tab leaves a blank one.
		r, err := b.CloseTab(tctx(t), browser.TabRef{Index: &zero})
		if err != nil || r.Active == nil || r.Active.URL != "about:blank" {
			t.Fatalf("close last: %+v, %v", r, err)
		}
	})

	// Each caller acts on its own tab: another caller's new tab, switch or close leaves
	// it where it was (engine/browser/callers.go).
	t.Run("CallersTabs", func(t *testing.T) {
		agent, person := browser.WithCaller(tctx(t), "agent"), browser.WithCaller(tctx(t), "person")
		if _, err := b.Navigate(agent, s.URL+"/second.html", browser.WaitLoad); err != nil {
			t.Fatal(err)
		}
		title := func(ctx context.Context) string {
			t.Helper()
			s, err := b.Title(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		third, err := b.NewTab(person, s.URL+"/third.html")
		if err != nil || !third.Active {
			t.Fatalf("new tab: %+v, %v", third, err)
		}
		if got := title(agent); got != "Second" {
			t.Fatalf("the person's new tab moved the agent to %q", got)
		}
		if got := title(person); got != "Third" {
			t.Fatalf("the person's calls act on %q, not the tab it opened", got)
		}
		tabs, err := b.ListTabs(agent)
		if err != nil {
			t.Fatal(err)
		}
		var second string
		for _, ti := range tabs {
			if ti.Active != (ti.Title == "Second") {
				t.Fatalf("the agent's tabs: %+v", tabs)
			}
			if ti.Active {
				second = ti.ID
			}
		}
		if _, err := b.SwitchTab(person, browser.TabRef{ID: second}); err != nil {
			t.Fatal(err)
		}
		if _, err := b.SwitchTab(agent, browser.TabRef{ID: third.ID}); err != nil {
			t.Fatal(err)
		}
		if a, p := title(agent), title(person); a != "Third" || p != "Second" {
			t.Fatalf("after each switched to the other's tab: agent on %q, person on %q", a, p)
		}
		// A tab closed under a caller moves it to the tab's neighbour.
		if _, err := b.CloseTab(person, browser.TabRef{ID: third.ID}); err != nil {
			t.Fatal(err)
		}
		if a, p := title(agent), title(person); a == "Third" || p != "Second" {
			t.Fatalf("after the person closed the agent's tab: agent on %q, person on %q", a, p)
		}
	})

	// A dialog reaches every caller, not only the one whose call opened it: another
	// caller's next action tells of it (and how it was answered), or its refusal does.
	t.Run("CallersDialogs", func(t *testing.T) {
		agent, person := browser.WithCaller(tctx(t), "agent-d"), browser.WithCaller(tctx(t), "person-d")
		// A call that came before the dialog opened and waited (its caller's first).
		queued := browser.WithCaller(tctx(t), "queued-d")
		if _, err := b.Navigate(agent, s.URL+"/dialogs.html", browser.WaitLoad); err != nil {
			t.Fatal(err)
		}
		tabs, _ := b.ListTabs(agent)
		for _, ti := range tabs {
			if ti.Active {
				if _, err := b.SwitchTab(person, browser.TabRef{ID: ti.ID}); err != nil {
					t.Fatal(err)
				}
			}
		}
		ar, err := b.Click(person, browser.CSS("#alert"))
		if err != nil || ar.Dialog == nil || ar.Dialog.Elsewhere() {
			t.Fatalf("the person's alert: %+v, %v", ar, err)
		}
		if _, err := b.HandleDialog(person, true, ""); err != nil {
			t.Fatal(err)
		}
		ar, err = b.Click(agent, browser.CSS("#out"))
		if err != nil || ar.Dialog == nil || !ar.Dialog.Elsewhere() || ar.Dialog.Closed() != "accepted" || ar.Dialog.Message != "Hello alert" {
			t.Fatalf("the agent's next action does not tell of the person's alert: %+v, %v", ar, err)
		}
		if ar, err := b.Click(queued, browser.CSS("#out")); err != nil || ar.Dialog == nil || ar.Dialog.Closed() != "accepted" {
			t.Fatalf("a first call that waited while the dialog came and went does not tell of it: %+v, %v", ar, err)
		}
		for _, ctx := range []context.Context{agent, person, queued} {
			if ar, err := b.Click(ctx, browser.CSS("#out")); err != nil || ar.Dialog != nil {
				t.Fatalf("a dialog told of twice: %+v, %v", ar, err)
			}
		}
		// Refused while it is open, the agent has heard of it.
		if ar, err := b.Click(person, browser.CSS("#confirm")); err != nil || ar.Dialog == nil {
			t.Fatalf("the person's confirm: %+v, %v", ar, err)
		}
		_, err = b.Text(agent)
		mustCode(t, err, browser.DialogPending)
		if _, err := b.HandleDialog(person, false, ""); err != nil {
			t.Fatal(err)
		}
		if ar, err := b.Click(agent, browser.CSS("#out")); err != nil || ar.Dialog != nil {
			t.Fatalf("the refusal told of the confirm, yet: %+v, %v", ar, err)
		}
	})

	t.Run("Download", func(t *testing.T) {
		navigate(t, b, s.URL+"/tabs.html")
		ar, err := b.Click(tctx(t), browser.CSS("#dl"))
		if err != nil || len(ar.Downloads) != 1 {
			t.Fatalf("download: %+v, %v", ar, err)
		}
		d := ar.Downloads[0]
		if d.State != "completed" || d.SuggestedName != "report.txt" || filepath.Dir(d.Path) != b.DownloadDir() {
			t.Fatalf("download = %+v", d)
		}
		if data, err := os.ReadFile(d.Path); err != nil || string(data) != "report body 123" {
			t.Fatalf("downloaded file: %q, %v", data, err)
		}
		if all := b.Downloads(); len(all) != 1 || all[0].Path != d.Path {
			t.Fatalf("downloads = %+v", all)
		}
		nr, err := b.Navigate(tctx(t), s.URL+"/download/report.txt", "")
		if err != nil || len(nr.Downloads) != 1 || nr.Downloads[0].State != "completed" || !strings.HasSuffix(nr.Downloads[0].Path, "report (1).txt") {
			t.Fatalf("navigate to a download: %+v, %v", nr, err)
		}
		// A page cannot drop a hidden file (.bashrc) into the output directory.
		nr, err = b.Navigate(tctx(t), s.URL+"/download/dotfile", "")
		if err != nil || len(nr.Downloads) != 1 || filepath.Base(nr.Downloads[0].Path) != "bashrc" || filepath.Dir(nr.Downloads[0].Path) != b.DownloadDir() {
			t.Fatalf("a download named .bashrc: %+v, %v", nr, err)
		}
	})

	t.Run("Cookies", func(t *testing.T) {
		navigate(t, b, s.URL+"/setcookie")
		cs, err := b.GetCookies(tctx(t), nil)
		if err != nil || len(cs) != 2 {
			t.Fatalf("cookies = %+v, %v", cs, err)
		}
		byName := map[string]browser.Cookie{}
		for _, c := range cs {
			byName[c.Name] = c
			if c.Value != browser.Redacted {
				t.Fatalf("cookie value not redacted: %+v", c)
			}
		}
		if !byName["session"].HTTPOnly || byName["theme"].HTTPOnly {
			t.Fatalf("flags = %+v", byName)
		}
		n, err := b.SetCookies(tctx(t), []browser.CookieInput{{Name: "added", Value: "v-123"}, {Name: "theme", Value: "x", Expires: 1}})
		if err != nil || n != 2 {
			t.Fatalf("set: %d, %v", n, err)
		}
		u, _ := url.Parse(s.URL)
		if _, err := b.SetCookies(tctx(t), []browser.CookieInput{{Name: "dom", Value: "d1", Domain: u.Hostname(), HTTPOnly: true, SameSite: "lax", Expires: float64(time.Now().Add(time.Hour).Unix())}}); err != nil {
			t.Fatal(err)
		}
		navigate(t, b, s.URL+"/echo-cookies")
		s.mu.Lock()
		got := s.cookies
		s.mu.Unlock()
		if !strings.Contains(got, "added=v-123") || !strings.Contains(got, "session=secret-value-xyz") || !strings.Contains(got, "dom=d1") || strings.Contains(got, "theme=") {
			t.Fatalf("server received cookies %q", got)
		}
		cs, _ = b.GetCookies(tctx(t), []string{s.URL + "/"})
		if len(cs) != 3 {
			t.Fatalf("cookies for url = %+v", cs)
		}
		_, err = b.SetCookies(tctx(t), []browser.CookieInput{{Name: "", Value: "x"}})
		mustCode(t, err, werr.InvalidArgument)
		// No cookie value anywhere in the session's outputs.
		all, _ := json.Marshal([]any{cs, b.NetworkRequests(browser.NetworkQuery{}), mustConsole(t, b, browser.ConsoleQuery{All: true})})
		for _, secret := range []string{"secret-value-xyz", "dark-secret", "v-123"} {
			if bytes.Contains(all, []byte(secret)) {
				t.Fatalf("cookie value %q leaked into output", secret)
			}
		}
	})

	t.Run("BigPageTruncated", func(t *testing.T) {
		start := time.Now()
		// Two megabytes of text may take a loaded machine past the launch's 8 s wait for
		// "load" (BrowserWaitMaxMs): the page is still read whole once it has loaded.
		if _, err := b.Navigate(tctx(t), s.URL+"/big", browser.WaitLoad); err != nil && codeOf(err) != werr.Timeout {
			t.Fatalf("navigate: %v", err)
		}
		for ctx := tctx(t); ; time.Sleep(200 * time.Millisecond) {
			if r, err := b.EvalJS(ctx, "document.readyState"); err == nil && r.Value == "complete" {
				break
			} else if ctx.Err() != nil {
				t.Fatalf("the big page never loaded: %v", err)
			}
		}
		t.Logf("navigate took %s", time.Since(start))
		start = time.Now()
		defer func() { t.Logf("reads took %s", time.Since(start)) }()
		txt, err := b.Text(tctx(t))
		if err != nil || !txt.Truncated || len(txt.Text) > 512*1024 || len(txt.Text) < 500*1024 || txt.TotalBytes < 2_000_000 {
			t.Fatalf("text: truncated=%v len=%d total=%d err=%v", txt.Truncated, len(txt.Text), txt.TotalBytes, err)
		}
		h, err := b.HTML(tctx(t))
		if err != nil || !h.Truncated || len(h.Text) > 512*1024 || strings.Contains(h.Text, "THE END") {
			t.Fatalf("html: truncated=%v len=%d err=%v", h.Truncated, len(h.Text), err)
		}
	})

	t.Run("Console", func(t *testing.T) {
		mustConsole(t, b, browser.ConsoleQuery{Clear: true})
		navigate(t, b, s.URL+"/console.html")
		var msgs []browser.ConsoleMessage
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			msgs = mustConsole(t, b, browser.ConsoleQuery{All: true})
			if len(msgs) >= 6 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		seen := map[string]string{}
		for _, m := range msgs {
			seen[m.Type] = m.Level + ":" + m.Text
		}
		want := map[string]string{
			"debug": "debug:debug message", "log": `info:log message 42 Object`, "info": "info:info message",
			"warning": "warning:warning message", "error": "error:error message",
		}
		for k, v := range want {
			if seen[k] != v {
				t.Errorf("console %s = %q, want %q (all %+v)", k, seen[k], v, msgs)
			}
		}
		if !strings.Contains(seen["exception"], "boom uncaught") {
			t.Errorf("exception = %q", seen["exception"])
		}
		warn := mustConsole(t, b, browser.ConsoleQuery{All: true, Level: "warning"})
		for _, m := range warn {
			if m.Level != "warning" && m.Level != "error" {
				t.Fatalf("level filter let %+v through", m)
			}
		}
		if len(warn) < 3 {
			t.Fatalf("warning+ = %+v", warn)
		}
		if again := mustConsole(t, b, browser.ConsoleQuery{}); len(again) != 0 {
			t.Fatalf("since-last returned old messages: %+v", again)
		}
		if _, err := b.EvalJS(tctx(t), "console.log('fresh one')"); err != nil {
			t.Fatal(err)
		}
		if fresh := mustConsole(t, b, browser.ConsoleQuery{}); len(fresh) != 1 || fresh[0].Text != "fresh one" {
			t.Fatalf("since-last = %+v", fresh)
		}
		_, err := b.ConsoleMessages(browser.ConsoleQuery{Level: "loud"})
		mustCode(t, err, werr.InvalidArgument)
	})

	t.Run("Network", func(t *testing.T) {
		b.NetworkRequests(browser.NetworkQuery{Clear: true})
		navigate(t, b, s.URL+"/failing.html")
		if _, err := b.WaitFor(tctx(t), browser.WaitOptions{Selector: "body[data-failed][data-status]"}); err != nil {
			t.Fatal(err)
		}
		reqs := b.NetworkRequests(browser.NetworkQuery{})
		find := func(suffix string) *browser.NetworkRequest {
			for i := range reqs {
				if strings.HasSuffix(reqs[i].URL, suffix) {
					return &reqs[i]
				}
			}
			t.Fatalf("no request for %s in %+v", suffix, reqs)
			return nil
		}
		if d := find("/failing.html"); d.Status != 200 || d.ResourceType != "Document" || d.Method != "GET" || d.Failed {
			t.Fatalf("document = %+v", d)
		}
		if r := find("/status/500"); r.Status != 500 || r.ResourceType != "Fetch" {
			t.Fatalf("500 = %+v", r)
		}
		if r := find("/hang-up"); !r.Failed || r.ErrorText == "" {
			t.Fatalf("hang-up = %+v", r)
		}
		if r := find("/no-such-image.png"); r.Status != 404 || r.ResourceType != "Image" {
			t.Fatalf("image = %+v", r)
		}
		failed := b.NetworkRequests(browser.NetworkQuery{FailedOnly: true})
		if len(failed) != 3 {
			t.Fatalf("failed = %+v", failed)
		}
		if xs := b.NetworkRequests(browser.NetworkQuery{ResourceType: "fetch", URLContains: "status"}); len(xs) != 1 {
			t.Fatalf("filter = %+v", xs)
		}
	})

	t.Run("EvalAndEvaluate", func(t *testing.T) {
		navigate(t, b, s.URL+"/second.html")
		cases := map[string]string{
			"1 + 2": "3", "({a: 1, b: [2]})": `{"a":1,"b":[2]}`, "document.title": "Second", "undefined": "undefined",
			"null": "null", "Promise.resolve('later')": "later", "true": "true", "1/0": "Infinity",
		}
		for expr, want := range cases {
			r, err := b.EvalJS(tctx(t), expr)
			if err != nil || r.Value != want {
				t.Errorf("eval %s = %+v, %v; want %q", expr, r, err, want)
			}
		}
		start := time.Now()
		_, err := b.EvalJS(tctx(t), "while (true) {}")
		mustCode(t, err, werr.Timeout)
		if el := time.Since(start); el > 15*time.Second {
			t.Fatalf("the endless script ran %s", el)
		}
		if r, err := b.EvalJS(tctx(t), "'alive'"); err != nil || r.Value != "alive" {
			t.Fatalf("page after a stopped script: %+v, %v", r, err)
		}
		_, err = b.EvalJS(tctx(t), "throw new Error('bad thing')")
		mustCode(t, err, werr.InvalidArgument)
		if !strings.Contains(err.Error(), "bad thing") {
			t.Fatalf("exception message lost: %v", err)
		}
		r, err := b.Evaluate(tctx(t), "() => document.title", nil)
		if err != nil || r.Value != "Second" {
			t.Fatalf("evaluate: %+v, %v", r, err)
		}
		el := browser.CSS("#h")
		r, err = b.Evaluate(tctx(t), "(el) => el.textContent + '!'", &el)
		if err != nil || r.Value != "Second page!" {
			t.Fatalf("evaluate on element: %+v, %v", r, err)
		}
	})

	t.Run("ScreenshotPDFPageState", func(t *testing.T) {
		navigate(t, b, s.URL+"/dnd.html")
		png := []byte("\x89PNG\r\n\x1a\n")
		for _, o := range []browser.ScreenshotOptions{{}, {FullPage: true}, {Element: &browser.Element{Selector: "#dst"}}} {
			img, err := b.Screenshot(tctx(t), o)
			if err != nil || !bytes.HasPrefix(img, png) {
				t.Fatalf("screenshot %+v: %d bytes, %v", o, len(img), err)
			}
		}
		img, err := b.Screenshot(tctx(t), browser.ScreenshotOptions{Format: "jpeg", Quality: 70})
		if err != nil || !bytes.HasPrefix(img, []byte{0xff, 0xd8}) {
			t.Fatalf("jpeg: %v", err)
		}
		dir := b.DownloadDir()
		name := fmt.Sprintf("page-%d.pdf", time.Now().UnixNano())
		pr, err := b.PDFSave(tctx(t), name, false) // relative: the output directory
		if err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(pr.Path); !bytes.HasPrefix(data, []byte("%PDF")) || filepath.Dir(pr.Path) != dir {
			t.Fatalf("not a PDF in %s: %s %.10q", dir, pr.Path, data)
		}
		_, err = b.PDFSave(tctx(t), name, false)
		mustCode(t, err, werr.InvalidArgument) // exists
		if _, err = b.PDFSave(tctx(t), name, true); err != nil {
			t.Fatal(err)
		}
		for _, bad := range []string{"/etc/w365-test.pdf", ".hidden.pdf", filepath.Join(t.TempDir(), "x.pdf"), filepath.Join(dir, "etc-link", "x.pdf")} {
			if strings.Contains(bad, "etc-link") {
				if err := os.Symlink("/etc", filepath.Join(dir, "etc-link")); err != nil {
					t.Fatal(err)
				}
			}
			_, err = b.PDFSave(tctx(t), bad, true)
			mustCode(t, err, werr.BlockedByPolicy)
		}
		ps, err := b.PageState(tctx(t), []string{"url", "title", "tabs", "screenshot"})
		if err != nil || ps.Title != "Drag and drop" || !strings.HasSuffix(ps.URL, "/dnd.html") || len(ps.Tabs) != 1 || !bytes.HasPrefix(ps.Screenshot, png) || ps.DOM != "" {
			t.Fatalf("page state: url %q title %q tabs %+v screenshot %d bytes dom %d bytes, %v", ps.URL, ps.Title, ps.Tabs, len(ps.Screenshot), len(ps.DOM), err)
		}
		ps, err = b.PageState(tctx(t), []string{"dom"})
		if err != nil || !strings.Contains(ps.DOM, `id="dst"`) || ps.URL != "" {
			t.Fatalf("page state dom: %v", err)
		}
		_, err = b.PageState(tctx(t), []string{"cookies"})
		mustCode(t, err, werr.InvalidArgument)
	})

	t.Run("CallerWithoutDeadline", func(t *testing.T) {
		ctx := context.Background()
		if _, err := b.Navigate(ctx, s.URL+"/second.html", ""); err != nil {
			t.Fatal(err)
		}
		if r, err := b.Text(ctx); err != nil || !strings.Contains(r.Text, "Second page") {
			t.Fatalf("text: %+v, %v", r, err)
		}
		if _, err := b.Click(ctx, browser.CSS("#back")); err != nil {
			t.Fatal(err)
		}
		if _, err := b.WaitFor(ctx, browser.WaitOptions{Selector: "#blank"}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("ConcurrentCalls", func(t *testing.T) {
		navigate(t, b, s.URL+"/second.html")
		var wg sync.WaitGroup
		errs := make(chan error, 40)
		for i := range 10 {
			wg.Go(func() {
				if _, err := b.EvalJS(tctx(t), fmt.Sprintf("'%d'", i)); err != nil {
					errs <- err
				}
				if _, err := b.ListTabs(tctx(t)); err != nil {
					errs <- err
				}
				b.ConsoleMessages(browser.ConsoleQuery{All: true})
				b.NetworkRequests(browser.NetworkQuery{})
				if _, err := b.Text(tctx(t)); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
	})
}

func mustConsole(t *testing.T, b *browser.Browser, q browser.ConsoleQuery) []browser.ConsoleMessage {
	t.Helper()
	m, err := b.ConsoleMessages(q)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCrashRecovery kills the browser with SIGKILL: the call in flight fails
// with BROWSER_CRASHED, as does the first call after a kill between calls,
// and the next call runs on a fresh browser.
func TestCrashRecovery(t *testing.T) {
	b, s := launch(t)
	navigate(t, b, s.URL+"/second.html")

	// In flight.
	pid := b.PID()
	done := make(chan error, 1)
	go func() {
		_, err := b.WaitFor(tctx(t), browser.WaitOptions{Selector: "#never", TimeoutMs: 20000})
		done <- err
	}()
	time.Sleep(500 * time.Millisecond)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		mustCode(t, err, werr.BrowserCrashed)
		if !werr.As(err).Retryable {
			t.Fatal("BROWSER_CRASHED must be retryable")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call in flight did not fail after the browser died")
	}
	r := navigate(t, b, s.URL+"/")
	if r.Status != 200 || b.PID() == pid || b.PID() == 0 {
		t.Fatalf("no fresh browser: %+v pid %d -> %d", r, pid, b.PID())
	}

	// Between calls.
	pid = b.PID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	_, err := b.Text(tctx(t))
	mustCode(t, err, werr.BrowserCrashed)
	txt, err := b.Text(tctx(t))
	if err != nil || b.PID() == pid {
		t.Fatalf("after relaunch: %+v, %v", txt, err)
	}
	r = navigate(t, b, s.URL+"/second.html")
	if r.Title != "Second" {
		t.Fatalf("after relaunch: %+v", r)
	}
	if tabs, err := b.ListTabs(tctx(t)); err != nil || len(tabs) != 1 {
		t.Fatalf("tabs after relaunch: %+v, %v", tabs, err)
	}
	pid = b.PID()
	b.Close()
	if err := syscall.Kill(pid, 0); b.PID() != 0 || err == nil {
		t.Fatalf("browser still running after Close")
	}
	_, err = b.Text(tctx(t))
	mustCode(t, err, werr.Unavailable)
}

// backendID finds the DOM backend node id of the first match of sel, the way
// an accessibility snapshot would name the element.
func backendID(t *testing.T, b *browser.Browser, sel string) int64 {
	t.Helper()
	var id int64
	err := b.Run(tctx(t), func(ctx context.Context, tg *chromedp.Target) error {
		doc, err := cdp.Call(ctx, tg, dom.GetDocument, dom.GetDocumentParams{})
		if err != nil {
			return err
		}
		q, err := cdp.Call(ctx, tg, dom.QuerySelector, dom.QuerySelectorParams{NodeID: doc.Root.NodeID, Selector: sel})
		if err != nil {
			return err
		}
		n, err := cdp.Call(ctx, tg, dom.DescribeNode, dom.DescribeNodeParams{NodeID: q.NodeID})
		if err != nil {
			return err
		}
		id = int64(n.Node.BackendNodeID)
		return nil
	})
	if err != nil || id == 0 {
		t.Fatalf("backend id of %s: %d, %v", sel, id, err)
	}
	return id
}

func TestBrowserExtras(t *testing.T) {
	b, s := launch(t)
	navigate(t, b, s.URL+"/extras.html")

	t.Run("NodeElements", func(t *testing.T) {
		id, err := b.Identity(tctx(t))
		if err != nil || id.LoaderID == "" || !strings.HasSuffix(id.URL, "/extras.html") {
			t.Fatalf("identity: %+v, %v", id, err)
		}
		node := backendID(t, b, "#node-btn")
		if _, err := b.Click(tctx(t), browser.Node(node)); err != nil {
			t.Fatal(err)
		}
		if got := queryText(t, b, "#node-btn"); got != "clicked by node" {
			t.Fatalf("node click: %q", got)
		}
		navigate(t, b, s.URL+"/extras.html")
		id2, _ := b.Identity(tctx(t))
		if id2.LoaderID == id.LoaderID {
			t.Fatal("the loader id did not change on navigation")
		}
		_, err = b.Click(tctx(t), browser.Node(node))
		mustCode(t, err, werr.SnapshotExpired)
		_, err = b.Click(tctx(t), browser.Element{})
		mustCode(t, err, werr.InvalidArgument)
	})

	t.Run("KeysHoverDoubleClick", func(t *testing.T) {
		navigate(t, b, s.URL+"/extras.html")
		if _, err := b.DoubleClick(tctx(t), browser.CSS("#dbl")); err != nil {
			t.Fatal(err)
		}
		if got := queryText(t, b, "#dblout"); got != "double" {
			t.Fatalf("double click: %q", got)
		}
		if _, err := b.Hover(tctx(t), browser.CSS("#hover")); err != nil {
			t.Fatal(err)
		}
		if got := queryText(t, b, "#hoverout"); got != "hovered" {
			t.Fatalf("hover: %q", got)
		}
		if _, err := b.Type(tctx(t), browser.CSS("#q"), "def", browser.TypeOptions{Append: true, Submit: true}); err != nil {
			t.Fatal(err)
		}
		if got := queryText(t, b, "#submitted"); got != "submitted abcdef" {
			t.Fatalf("append+submit: %q", got)
		}
		q := browser.CSS("#q")
		if _, err := b.PressKey(tctx(t), &q, "Backspace"); err != nil {
			t.Fatal(err)
		}
		if _, err := b.PressKey(tctx(t), &q, "Enter"); err != nil {
			t.Fatal(err)
		}
		if got := queryText(t, b, "#submitted"); got != "submitted abcde" {
			t.Fatalf("press keys: %q (keys %q)", got, queryText(t, b, "#keylog"))
		}
	})

	t.Run("ObscuredScrollFiles", func(t *testing.T) {
		navigate(t, b, s.URL+"/extras.html")
		_, err := b.Click(tctx(t), browser.CSS("#covered"))
		mustCode(t, err, werr.Obscured)
		if _, err := b.Scroll(tctx(t), nil, 0, 700); err != nil {
			t.Fatal(err)
		}
		if v, _ := b.EvalJS(tctx(t), "String(scrollY > 0)"); v.Value != "true" {
			t.Fatalf("wheel scroll did not scroll: %q", v.Value)
		}
		f := filepath.Join(t.TempDir(), "upload.txt")
		os.WriteFile(f, []byte("12345"), 0o644)
		if _, err := b.SetFiles(tctx(t), browser.CSS("#file"), []string{f}); err != nil {
			t.Fatal(err)
		}
		if got := queryText(t, b, "#fileout"); got != "upload.txt:5" {
			t.Fatalf("file input: %q", got)
		}
		_, err = b.SetFiles(tctx(t), browser.CSS("#q"), []string{f})
		mustCode(t, err, werr.InvalidArgument)
	})

	t.Run("RendererCrash", func(t *testing.T) {
		navigate(t, b, s.URL+"/second.html")
		_ = b.Run(tctx(t), func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, page.Crash, cdp.Empty{})
			return err
		})
		deadline := time.Now().Add(5 * time.Second)
		var err error
		for time.Now().Before(deadline) {
			if _, err = b.Text(tctx(t)); codeOf(err) == werr.BrowserCrashed {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		mustCode(t, err, werr.BrowserCrashed)
		if r, err := b.Reload(tctx(t)); err != nil || r.Title != "Second" {
			t.Fatalf("reload after a page crash: %+v, %v", r, err)
		}
		if _, err := b.Text(tctx(t)); err != nil {
			t.Fatal(err)
		}
		_ = b.Run(tctx(t), func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, page.Crash, cdp.Empty{})
			return err
		})
		if r, err := b.Navigate(tctx(t), s.URL+"/third.html", ""); err != nil || r.Title != "Third" {
			t.Fatalf("navigate after a page crash: %+v, %v", r, err)
		}
	})

	t.Run("NoDevToolsPort", func(t *testing.T) {
		// The launched browser is driven over a pipe: no port file, no flag.
		if _, err := os.Stat(filepath.Join(profileOf(t, b.PID()), "DevToolsActivePort")); !os.IsNotExist(err) {
			t.Fatalf("DevToolsActivePort exists: %v", err)
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", b.PID()))
		if bytes.Contains(cmdline, []byte("remote-debugging-port")) || !bytes.Contains(cmdline, []byte("remote-debugging-pipe")) {
			t.Fatalf("browser command line: %q", cmdline)
		}
	})

	t.Run("AttachToEndpoint", func(t *testing.T) {
		// A browser somebody else started with a port (--cdp-endpoint).
		ep := debuggableBrowser(t, s.URL+"/third.html")
		b2, err := browser.Launch(tctx(t), browser.Options{CDPEndpoint: ep, DownloadDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		var tabs []browser.TabInfo
		// The other browser may still be loading its page: until the <title> is parsed, a
		// tab's title is its URL.
		for range 100 {
			if tabs, err = b2.ListTabs(tctx(t)); err != nil || (len(tabs) == 1 && tabs[0].Title == "Third") {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil || len(tabs) != 1 || tabs[0].Title != "Third" {
			t.Fatalf("attached tabs: %+v, %v", tabs, err)
		}
		if r, err := b2.Navigate(tctx(t), s.URL+"/second.html", ""); err != nil || r.Title != "Second" {
			t.Fatalf("attached navigate: %+v, %v", r, err)
		}
		b2.Close()
		b3, err := browser.Launch(tctx(t), browser.Options{CDPEndpoint: ep, DownloadDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		defer b3.Close()
		if title, err := b3.Title(tctx(t)); err != nil || title != "Second" {
			t.Fatalf("the browser after the attached session closed: %q, %v", title, err)
		}
	})
}

// TestHeadless runs the browser without a display.
func TestHeadless(t *testing.T) {
	testenv.Require(t, "chromium")
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISPLAY=") && !strings.HasPrefix(kv, "WAYLAND_DISPLAY=") {
			env = append(env, kv)
		}
	}
	_, err := browser.Launch(tctx(t), browser.Options{Env: env})
	mustCode(t, err, werr.Unavailable) // headful needs a display
	b, err := browser.Launch(tctx(t), browser.Options{Env: env, Headless: true, DownloadDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	s := newServer(t)
	if r := navigate(t, b, s.URL+"/dnd.html"); r.Title != "Drag and drop" {
		t.Fatalf("headless navigate: %+v", r)
	}
	if _, err := b.Drag(tctx(t), browser.CSS("#src"), browser.CSS("#dst")); err != nil {
		t.Fatal(err)
	}
	if got := queryText(t, b, "#dst"); got != "dropped card-42" {
		t.Fatalf("headless drop: %q", got)
	}
	img, err := b.Screenshot(tctx(t), browser.ScreenshotOptions{})
	if err != nil || !bytes.HasPrefix(img, []byte("\x89PNG")) {
		t.Fatalf("headless screenshot: %v", err)
	}
	if _, err := b.PDFSave(tctx(t), "h.pdf", true); err != nil {
		t.Fatal(err)
	}
}

// profileOf is the --user-data-dir of a browser process.
func profileOf(t *testing.T, pid int) string {
	t.Helper()
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range strings.FieldsFunc(string(cmdline), func(r rune) bool { return r == 0 || r == ' ' }) {
		if v, ok := strings.CutPrefix(a, "--user-data-dir="); ok {
			return v
		}
	}
	t.Fatalf("no --user-data-dir in %q", cmdline)
	return ""
}

// debuggableBrowser starts a headless Chromium with a DevTools port at url and
// returns its WebSocket endpoint.
func debuggableBrowser(t *testing.T, url string) string {
	t.Helper()
	exe := ""
	for _, n := range []string{"chromium", "google-chrome", "chromium-browser"} {
		if p, err := exec.LookPath(n); err == nil {
			exe = p
			break
		}
	}
	if exe == "" {
		t.Fatal("no chromium")
	}
	dir, err := os.MkdirTemp("", "w365-debuggable-")
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--headless=new", "--remote-debugging-port=0", "--user-data-dir=" + dir, "--no-first-run", url}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	cmd := exec.Command(exe, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // its own group: the wrapper and the browser
		_ = cmd.Wait()
		for range 50 {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if data, err := os.ReadFile(filepath.Join(dir, "DevToolsActivePort")); err == nil {
			if l := strings.Split(strings.TrimSpace(string(data)), "\n"); len(l) == 2 {
				return "ws://127.0.0.1:" + l[0] + l[1]
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the debuggable browser did not start")
	return ""
}
