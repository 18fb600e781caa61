package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/w365/w365/engine/werr"
)

// WaitUntil is the condition Navigate waits for.
type WaitUntil string

// The navigation wait conditions.
const (
	WaitLoad             WaitUntil = "load"
	WaitDOMContentLoaded WaitUntil = "domcontentloaded"
	WaitNetworkIdle0     WaitUntil = "networkidle0" // no network connection for 500 ms
	WaitNetworkIdle2     WaitUntil = "networkidle2" // at most 2 connections for 500 ms
)

const (
	objectGroup = "w365"
	// After an action the page is watched for DOM changes: a rendered frame and the task
	// after it without any end the wait (quietFirst bounds that where no frame comes, a
	// hidden tab); once something changed, the DOM must stay unchanged for quietWindow.
	// All of it, and the wait for the requests an action started, take at most quietMax each.
	quietFirst     = 30 * time.Millisecond
	quietWindow    = 100 * time.Millisecond
	quietMax       = 1500 * time.Millisecond
	settleNavMax   = 10 * time.Second
	downloadSettle = 5 * time.Second
	closeMax       = 2 * time.Second // for a popup that closed itself to be gone (awaitClosing)
)

// ActionResult is what every action reports besides its own value.
type ActionResult struct {
	// URL is the active tab's URL after the action settled.
	URL string `json:"url,omitempty"`
	// Navigated says the action started a navigation of the tab.
	Navigated bool `json:"navigated,omitempty"`
	// Dialog is set when the action opened a JavaScript dialog (outcome
	// "dialog-opened"); the dialog is pending until HandleDialog.
	Dialog *Dialog `json:"dialog,omitempty"`
	// Downloads began during the action (state as of the end of the action).
	Downloads []Download `json:"downloads,omitempty"`
	// NewTabs were opened by the page during the action (the last one is active).
	NewTabs []TabInfo `json:"newTabs,omitempty"`
	// AfterClose is set when the action's tab closed while it ran (a popup that closed
	// itself): the tab active now (its URL is URL).
	AfterClose *TabInfo `json:"afterClose,omitempty"`
	// FileChooser says the action made the page open a file chooser (a click on an upload
	// button), pending until files are set on it. Results say it in their text: a field in
	// the output schema of every action tool would cost tools/list ~400 bytes.
	FileChooser bool `json:"-"`
}

// SavedPaths are the files of the downloads the action completed.
func (a ActionResult) SavedPaths() []string { return CompletedPaths(a.Downloads) }

// CompletedPaths are the files of the completed downloads among ds.
func CompletedPaths(ds []Download) []string {
	var out []string
	for _, d := range ds {
		if d.State == "completed" && d.Path != "" {
			out = append(out, d.Path)
		}
	}
	return out
}

// op is one page operation on the active tab; it holds Browser.opMu.
type op struct {
	b      *Browser
	inst   *instance
	t      *tab
	ctx    context.Context
	cancel context.CancelFunc
}

func dialogPendingError(d *Dialog) *werr.Error {
	return werr.New(DialogPending, "a %s dialog is open: %q", d.Type, truncUTF8(d.Message, 200)).
		WithHint("call browser_handle_dialog to accept or dismiss it").WithDetail("dialog", *d)
}

func pageCrashedError() *werr.Error {
	return werr.New(werr.BrowserCrashed, "the page of the active tab crashed; the outcome of the call is unknown").
		WithHint("reload the tab (browser_reload) or navigate it")
}

// begin starts a page operation on the active tab. allowDialog lets it run
// while a dialog is pending (reads that need no JavaScript).
func (b *Browser) begin(ctx context.Context, allowDialog bool) (*op, error) {
	return b.beginOp(ctx, allowDialog, false)
}

// beginOp bounds the whole operation (the wait for the lock and for the tab
// included), takes the lock and begins.
func (b *Browser) beginOp(ctx context.Context, allowDialog, allowCrashed bool) (*op, error) {
	ctx, cancel := b.bound(ctx)
	if err := b.opMu.lock(ctx); err != nil {
		cancel()
		return nil, err
	}
	o, err := b.beginLocked(ctx, allowDialog, allowCrashed)
	if err != nil {
		b.opMu.unlock()
		cancel()
		return nil, err
	}
	inner := o.cancel
	o.cancel = func() { inner(); cancel() }
	return o, nil
}

func (b *Browser) beginLocked(ctx context.Context, allowDialog, allowCrashed bool) (*op, error) {
	inst, err := b.ensure(ctx)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	t := inst.tabOfLocked(ctx)
	if t == nil && len(inst.tabs) > 0 {
		t = inst.tabs[0]
		inst.active = t
	}
	if t != nil {
		// The tab stays this caller's whatever tab another caller selects (callers.go).
		inst.setTabLocked(ctx, t)
	}
	b.mu.Unlock()
	if t == nil {
		if t, err = b.createTab(ctx, inst, "about:blank", false); err != nil {
			return nil, err
		}
	}
	select {
	case <-t.ready:
	case <-ctx.Done():
		return nil, b.mapErr(ctx, inst, ctx.Err())
	}
	if t.readyErr != nil {
		return nil, t.readyErr
	}
	b.mu.Lock()
	d, crashed := t.dialog, t.crashed
	if _, seen := b.dialogTold[CallerOf(ctx)]; !seen {
		b.firstLocked(ctx)
	}
	if d != nil && !allowDialog {
		// The refusal tells of the dialog.
		b.toldLocked(ctx, b.dialogSeq)
	}
	b.mu.Unlock()
	if d != nil && !allowDialog {
		return nil, dialogPendingError(d)
	}
	if crashed && !allowCrashed {
		return nil, pageCrashedError()
	}
	octx, cancel := withCancelOf(t.ctx, ctx)
	if _, ok := ctx.Deadline(); !ok {
		// Every operation is bounded, also for callers without a deadline.
		dctx, dcancel := context.WithTimeout(octx, b.opTimeout())
		// The closure must call the outer cancel, not itself.
		outer := cancel
		octx, cancel = dctx, func() { dcancel(); outer() }
	}
	return &op{b: b, inst: inst, t: t, ctx: octx, cancel: cancel}, nil
}

func (o *op) end() {
	// Free the page objects of the operation. A pending dialog pauses the
	// renderer, so skip then: the next operation frees the (shared) group.
	o.b.mu.Lock()
	paused := o.t.dialog != nil || o.t.crashed
	o.b.mu.Unlock()
	if !paused {
		rctx, cancel := context.WithTimeout(o.t.ctx, time.Second)
		_, _ = cdp.Call(rctx, o.t.t, runtime.ReleaseObjectGroup, runtime.ReleaseObjectGroupParams{ObjectGroup: objectGroup})
		cancel()
	}
	o.cancel()
	o.b.opMu.unlock()
}

func (o *op) err(err error) error { return o.b.mapErr(o.ctx, o.inst, err) }

// await runs f and returns early with the dialog when one opens in the tab
// meanwhile: an open dialog blocks the renderer, so f would hang.
func (b *Browser) await(ctx context.Context, inst *instance, t *tab, f func(ctx context.Context) error) (*Dialog, error) {
	b.mu.Lock()
	startSeq := b.dialogSeq
	wasCrashed := t.crashed
	if t.dialog != nil {
		startSeq = t.dialog.seq - 1
	}
	b.mu.Unlock()
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- f(fctx) }()
	for {
		b.mu.Lock()
		d, ch, crashed, gone := t.dialog, b.changed, t.crashed, t.gone
		b.mu.Unlock()
		if d != nil && d.seq > startSeq {
			dd := *d
			return &dd, nil
		}
		if crashed && !wasCrashed {
			return nil, pageCrashedError()
		}
		if gone {
			return nil, werr.New(werr.NotFound, "the tab was closed")
		}
		select {
		case err := <-done:
			b.mu.Lock()
			d := t.dialog
			b.mu.Unlock()
			if d != nil && d.seq > startSeq {
				dd := *d
				return &dd, nil
			}
			if err != nil {
				return nil, b.mapErr(ctx, inst, err)
			}
			return nil, nil
		case <-ch:
		case <-ctx.Done():
			return nil, b.mapErr(ctx, inst, ctx.Err())
		}
	}
}

func (o *op) await(f func(ctx context.Context) error) (*Dialog, error) {
	return o.b.await(o.ctx, o.inst, o.t, f)
}

// do runs f like await and turns a dialog that opened meanwhile into DIALOG_PENDING: for
// operations whose result has no place for the dialog.
func (o *op) do(f func(ctx context.Context) error) error {
	d, err := o.await(f)
	if d != nil {
		o.b.mu.Lock()
		o.b.toldLocked(o.ctx, d.seq)
		o.b.mu.Unlock()
		return dialogPendingError(d)
	}
	return err
}

// jsError turns exception details into an INVALID_ARGUMENT error.
func jsError(d *runtime.ExceptionDetails) *werr.Error {
	text := d.Text
	if d.Exception != nil && d.Exception.Description != "" {
		text = d.Exception.Description
	}
	text = firstLine(text)
	return werr.Invalid("JavaScript error: %s", text).WithDetail("exception", text)
}

// evalRaw evaluates an expression in the tab (not dialog-aware).
func evalRaw(ctx context.Context, t *tab, expr string, byValue bool) (*runtime.RemoteObject, error) {
	res, err := cdp.Call(ctx, t.t, runtime.Evaluate, runtime.EvaluateParams{
		Expression: expr, ReturnByValue: new(byValue), AwaitPromise: new(true), ObjectGroup: objectGroup,
		UserGesture: new(true),
	})
	if err != nil {
		return nil, err
	}
	if res.ExceptionDetails != nil {
		return nil, jsError(res.ExceptionDetails)
	}
	return res.Result, nil
}

// evalValue evaluates expr and decodes its JSON value into out; a dialog that
// opens meanwhile gives DIALOG_PENDING.
func (o *op) evalValue(expr string, out any) error {
	var obj *runtime.RemoteObject
	err := o.do(func(ctx context.Context) error {
		var err error
		for try := 0; ; try++ {
			obj, err = evalRaw(ctx, o.t, expr, true)
			// A navigation in progress destroys the context: try again.
			if err == nil || try == 20 || ctx.Err() != nil || !contextGone(err) {
				return err
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	if err != nil {
		return err
	}
	return decodeValue(obj, out)
}

// contextGone reports the errors of a JavaScript context that a navigation destroyed.
func contextGone(err error) bool {
	var we *werr.Error
	if errors.As(err, &we) {
		return false
	}
	m := err.Error()
	return strings.Contains(m, "Execution context was destroyed") || strings.Contains(m, "Cannot find context") ||
		strings.Contains(m, "Inspected target navigated or closed")
}

func decodeValue(obj *runtime.RemoteObject, out any) error {
	if out == nil || obj == nil || len(obj.Value) == 0 {
		return nil
	}
	if err := json.Unmarshal(obj.Value, out); err != nil {
		return werr.Wrap(err, werr.Internal, "cannot decode a page value")
	}
	return nil
}

// callOn calls fn with this = the object and JSON args; the result is decoded into out.
func callOn(ctx context.Context, t *tab, obj runtime.RemoteObjectID, fn string, out any, args ...any) error {
	return callIn(ctx, t.t, obj, fn, out, args...)
}

// callIn is callOn on any target: the tab's, or an out-of-process frame's.
func callIn(ctx context.Context, t *chromedp.Target, obj runtime.RemoteObjectID, fn string, out any, args ...any) error {
	cargs := make([]*runtime.CallArgument, 0, len(args))
	for _, a := range args {
		v, err := json.Marshal(a)
		if err != nil {
			return werr.Wrap(err, werr.Internal, "cannot encode an argument")
		}
		cargs = append(cargs, &runtime.CallArgument{Value: v})
	}
	res, err := cdp.Call(ctx, t, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: obj, Arguments: cargs, ReturnByValue: new(true), AwaitPromise: new(true),
		UserGesture: new(true),
	})
	if err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return jsError(res.ExceptionDetails)
	}
	return decodeValue(res.Result, out)
}

// navMark is the navigation state of a tab before an action.
type navMark struct {
	loader               cdp.LoaderID
	navCount, loadStarts int
	downloads            int
	windowOpens          int
	choosers             int
	netSeq               int64
	tabs                 map[string]bool
	at                   time.Time
}

func (b *Browser) markLocked(t *tab) navMark {
	m := navMark{loader: t.loaderID, navCount: t.navCount, loadStarts: t.loadStarts, downloads: len(b.downloads),
		windowOpens: t.windowOpens, choosers: t.choosers, netSeq: b.netSeq, tabs: map[string]bool{}, at: time.Now()}
	if b.inst != nil {
		for _, x := range b.inst.tabs {
			m.tabs[string(x.id)] = true
		}
	}
	return m
}

func (o *op) mark() navMark {
	o.b.mu.Lock()
	defer o.b.mu.Unlock()
	return o.b.markLocked(o.t)
}

const quietJS = `new Promise(resolve => {
  let timer, changed = false;
  const finish = () => { obs.disconnect(); clearTimeout(timer); clearTimeout(first); clearTimeout(cap); resolve(true); };
  const obs = new MutationObserver(() => { changed = true; clearTimeout(timer); timer = setTimeout(finish, %d); });
  obs.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
  const idle = () => { if (!changed) finish(); };
  requestAnimationFrame(() => setTimeout(idle, 0));
  const first = setTimeout(idle, %d);
  const cap = setTimeout(finish, %d);
})`

// quiet waits until the DOM had no mutation up to the task after the next frame (at most
// quietFirst), or, once it changed, for quietWindow (at most quietMax).
func (b *Browser) quiet(ctx context.Context, inst *instance, t *tab) (*Dialog, error) {
	qctx, cancel := context.WithTimeout(ctx, quietMax+time.Second)
	defer cancel()
	expr := fmt.Sprintf(quietJS, quietWindow.Milliseconds(), quietFirst.Milliseconds(), quietMax.Milliseconds())
	d, err := b.await(qctx, inst, t, func(ctx context.Context) error {
		_, err := evalRaw(ctx, t, expr, true)
		return err
	})
	if err != nil && inst.isDead() {
		return nil, err
	}
	return d, nil // other errors (a navigation destroyed the context) are not failures here
}

// settle waits, bounded, for the page to settle after an action: a navigation
// the action started, or else the requests it started (then the DOM changes their
// answers cause), then a quiet DOM window; then it collects downloads and new tabs the
// action caused.
func (b *Browser) settle(ctx context.Context, inst *instance, t *tab, m navMark) (*ActionResult, error) {
	res := &ActionResult{}
	d, err := b.quiet(ctx, inst, t)
	if err != nil {
		return nil, err
	}
	if d == nil && !b.navStarted(t, m) && b.awaitRequests(ctx, t, m) {
		if d, err = b.quiet(ctx, inst, t); err != nil {
			return nil, err
		}
	}
	if d == nil {
		if b.navStarted(t, m) {
			res.Navigated = true
			if d, err = b.waitNavigation(ctx, inst, t, m, settleNavMax); err != nil {
				return nil, err
			}
			if d == nil {
				if d, err = b.quiet(ctx, inst, t); err != nil {
					return nil, err
				}
			}
		}
	}
	res.Dialog = d
	if d == nil {
		b.awaitClosing(ctx, t)
	}
	b.collect(ctx, inst, t, m, res)
	return res, nil
}

// awaitClosing waits, at most closeMax, for the tab of a popup whose page closed its
// window (window.closed is true from the call of window.close() on, the tab goes some
// milliseconds later) to be gone, so that the action's result says the tab closed and
// names the one now active, rather than the next call failing on it. Only popups (tabs a
// page opened) are asked, the ones a script closes.
func (b *Browser) awaitClosing(ctx context.Context, t *tab) {
	b.mu.Lock()
	popup, gone := t.opener != "", t.gone
	b.mu.Unlock()
	if !popup || gone {
		return
	}
	cctx, cancel := context.WithTimeout(ctx, closeMax)
	defer cancel()
	if r, err := evalRaw(cctx, t, "window.closed", true); err == nil && (r == nil || string(r.Value) != "true") {
		return
	}
	b.awaitGone(cctx, t)
}

// awaitGone waits until the browser has told that tab t is gone, or ctx ends, and says
// whether it is.
func (b *Browser) awaitGone(ctx context.Context, t *tab) bool {
	return b.until(ctx, func() bool { return t.gone })
}

// until waits until cond, read with b.mu held, holds, or ctx ends; it says whether cond
// held.
func (b *Browser) until(ctx context.Context, cond func() bool) bool {
	for {
		b.mu.Lock()
		ok, ch := cond(), b.changed
		b.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return false
		}
	}
}

// navStarted tells whether the tab began a navigation since m.
func (b *Browser) navStarted(t *tab, m navMark) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return t.loadStarts != m.loadStarts || t.navCount != m.navCount
}

// awaitRequests waits, at most quietMax, until the fetches, XHRs, documents, scripts,
// style sheets and images the tab requested since m have finished. It reports whether
// there were any.
func (b *Browser) awaitRequests(ctx context.Context, t *tab, m navMark) bool {
	deadline := time.After(quietMax)
	waited := false
	for {
		b.mu.Lock()
		pending := false
		for i := len(b.network) - 1; i >= 0 && b.network[i].Seq > m.netSeq; i-- {
			r := b.network[i]
			if r.TabID == string(t.id) && !r.Finished && settleType()[network.ResourceType(r.ResourceType)] {
				pending = true
				break
			}
		}
		ch := b.changed
		b.mu.Unlock()
		if !pending {
			return waited
		}
		waited = true
		select {
		case <-ch:
		case <-deadline:
			return true
		case <-ctx.Done():
			return true
		}
	}
}

// settleType lists the requests an action's outcome may wait for; streams (event
// sources, web sockets) and media never finish on their own.
var settleType = sync.OnceValue(func() map[network.ResourceType]bool {
	return map[network.ResourceType]bool{
		network.ResourceTypeXHR: true, network.ResourceTypeFetch: true, network.ResourceTypeScript: true,
		network.ResourceTypeDocument: true, network.ResourceTypeStylesheet: true, network.ResourceTypeImage: true,
	}
})

// collect fills the URL, downloads and new tabs of an action result.
func (b *Browser) collect(ctx context.Context, inst *instance, t *tab, m navMark, res *ActionResult) {
	deadline := time.Now().Add(downloadSettle)
	for {
		b.mu.Lock()
		pending := false
		for _, d := range b.downloads[min(m.downloads, len(b.downloads)):] {
			if d.State == "inProgress" {
				pending = true
			}
		}
		ch := b.changed
		b.mu.Unlock()
		if !pending || time.Now().After(deadline) {
			break
		}
		select {
		case <-ch:
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			deadline = time.Now()
		}
	}
	b.awaitOpened(ctx, inst, t, m)
	b.waitTabsReady(inst)
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, d := range b.downloads[min(m.downloads, len(b.downloads)):] {
		res.Downloads = append(res.Downloads, *d)
	}
	for _, x := range inst.tabs {
		if !m.tabs[string(x.id)] && x == inst.active && x.opener == t.id {
			// The action's page opened it in front: the caller follows it.
			inst.setTabLocked(ctx, x)
		}
	}
	for _, x := range inst.tabs {
		if !m.tabs[string(x.id)] {
			res.NewTabs = append(res.NewTabs, b.infoLocked(ctx, inst, x))
		}
	}
	a := inst.tabOfLocked(ctx)
	if a != nil {
		res.URL = a.url
	} else {
		res.URL = t.url
	}
	res.FileChooser = t.choosers > m.choosers && t.chooser != 0
	if t.gone {
		res.AfterClose = &TabInfo{}
		if a != nil {
			*res.AfterClose = b.infoLocked(ctx, inst, a)
		}
	}
	b.noticeLocked(ctx, res)
}

// openedMax bounds awaitOpened: a popup the browser blocks is asked for and never made.
const openedMax = 3 * time.Second

// awaitOpened waits, at most openedMax, until every window t's page asked for since m has
// its tab: the browser creates it a moment after the page asks, on a loaded machine after
// the action's page has settled, and a result without it leaves the caller on the opener
// (TestClickThatClosesItsTab saw no new tab, once, in a full run).
func (b *Browser) awaitOpened(ctx context.Context, inst *instance, t *tab, m navMark) {
	ctx, cancel := context.WithTimeout(ctx, openedMax)
	defer cancel()
	b.until(ctx, func() bool {
		opened := 0
		for _, x := range inst.tabs {
			if !m.tabs[string(x.id)] && x.opener == t.id {
				opened++
			}
		}
		return opened >= t.windowOpens-m.windowOpens || inst.isDead()
	})
}

// waitNavigation waits until a navigation begun after m commits and loads, or
// stops without committing (a download, a 204), bounded by max.
func (b *Browser) waitNavigation(ctx context.Context, inst *instance, t *tab, m navMark, max time.Duration) (*Dialog, error) {
	wctx, cancel := context.WithTimeout(ctx, max)
	defer cancel()
	lastPoll := time.Time{}
	for {
		b.mu.Lock()
		committed := t.navCount != m.navCount
		loaded := committed && t.lifecycle[t.loaderID]["load"]
		d, ch := t.dialog, b.changed
		newDownload := len(b.downloads) > m.downloads
		b.mu.Unlock()
		if d != nil {
			dd := *d
			return &dd, nil
		}
		if loaded || (newDownload && !committed) || inst.isDead() {
			if inst.isDead() {
				return nil, b.mapErr(ctx, inst, context.Canceled)
			}
			return nil, nil
		}
		// A navigation that has not committed is waited for while its document is on the
		// way (a slow server); one whose request never came, or ended without a document
		// (a 204), leaves the old page, complete, in place.
		if time.Since(lastPoll) > 200*time.Millisecond && (committed || !b.docPending(t, m)) {
			lastPoll = time.Now()
			var state string
			pctx, pcancel := context.WithTimeout(wctx, 300*time.Millisecond)
			obj, err := evalRaw(pctx, t, "document.readyState", true)
			pcancel()
			if err == nil {
				_ = decodeValue(obj, &state)
				if state == "complete" && (committed || time.Since(m.at) > 500*time.Millisecond) {
					return nil, nil
				}
			}
		}
		select {
		case <-ch:
		case <-time.After(100 * time.Millisecond):
		case <-wctx.Done():
			if ctx.Err() != nil {
				return nil, b.mapErr(ctx, inst, ctx.Err())
			}
			return nil, nil // bounded: carry on
		}
	}
}

// docPending tells whether a main-frame document the tab requested since m is still
// loading.
func (b *Browser) docPending(t *tab, m navMark) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i := len(b.network) - 1; i >= 0 && b.network[i].Seq > m.netSeq; i-- {
		if r := b.network[i]; r.mainDoc && r.TabID == string(t.id) && !r.Finished {
			return true
		}
	}
	return false
}

// lifecycleName maps a WaitUntil to Chrome's lifecycle event name.
func lifecycleName(w WaitUntil) (string, error) {
	switch w {
	case "", WaitLoad:
		return "load", nil
	case WaitDOMContentLoaded:
		return "DOMContentLoaded", nil
	case WaitNetworkIdle0:
		return "networkIdle", nil
	case WaitNetworkIdle2:
		return "networkAlmostIdle", nil
	}
	return "", werr.Invalid("waitUntil must be load, domcontentloaded, networkidle0 or networkidle2").
		WithDetail("allowed", []string{"load", "domcontentloaded", "networkidle0", "networkidle2"})
}

// checkURL validates a URL to open: it needs a scheme; file:, chrome:,
// view-source:, javascript: and the like are blocked by policy.
func (b *Browser) checkURL(raw string) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme == "" {
		return werr.Invalid("url must be absolute with a scheme, e.g. https://example.com (got %q)", truncUTF8(raw, 200))
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return werr.Invalid("url %q has no host", truncUTF8(raw, 200))
		}
		return nil
	case "about", "data":
		return nil
	case "file":
		if b.opts.AllowFileURLs {
			return nil
		}
		return werr.New(werr.BlockedByPolicy, "file: URLs are blocked by policy")
	case "chrome", "edge", "view-source", "javascript", "chrome-extension", "devtools", "chrome-untrusted", "blob", "filesystem":
		return werr.New(werr.BlockedByPolicy, "%s: URLs are blocked by policy", strings.ToLower(u.Scheme))
	}
	return werr.Invalid("unsupported URL scheme %q (use http, https, about or data)", u.Scheme)
}

// NavigateResult is the outcome of Navigate, Back, Forward and Reload.
type NavigateResult struct {
	URL    string `json:"url"`
	Title  string `json:"title"`
	Status int64  `json:"status,omitempty"` // HTTP status of the document; 0 when none (about:, data:, same-document)
	ActionResult
}

// Navigate opens rawURL in the active tab and waits for waitUntil (default
// load), at most the policy's BrowserWaitMaxMs.
func (b *Browser) Navigate(ctx context.Context, rawURL string, waitUntil WaitUntil) (*NavigateResult, error) {
	if err := b.checkURL(rawURL); err != nil {
		return nil, err
	}
	if _, err := lifecycleName(waitUntil); err != nil {
		return nil, err
	}
	o, err := b.beginRecover(ctx)
	if err != nil {
		return nil, err
	}
	defer o.end()
	return b.navigateTab(o.ctx, o.inst, o.t, strings.TrimSpace(rawURL), waitUntil)
}

func (b *Browser) navigateTab(ctx context.Context, inst *instance, t *tab, rawURL string, waitUntil WaitUntil) (*NavigateResult, error) {
	name, err := lifecycleName(waitUntil)
	if err != nil {
		return nil, err
	}
	timeout := time.Duration(b.pol.BrowserWaitMaxMs) * time.Millisecond
	nctx, cancel := withCancelOf(t.ctx, ctx)
	defer cancel()
	b.mu.Lock()
	m := b.markLocked(t)
	b.mu.Unlock()
	var nav page.NavigateResult
	callCtx, callCancel := context.WithTimeout(nctx, timeout)
	d, err := b.await(callCtx, inst, t, func(ctx context.Context) error {
		var err error
		nav, err = cdp.Call(ctx, t.t, page.Navigate, page.NavigateParams{URL: rawURL})
		return err
	})
	callCancel()
	if err != nil {
		if werr.CodeOf(err) == werr.Timeout {
			return nil, werr.New(werr.Timeout, "the server did not answer within %s", timeout).
				WithHint("the navigation may still complete; check with browser_get_url")
		}
		return nil, err
	}
	res := &NavigateResult{}
	if d != nil { // beforeunload
		res.Dialog = d
		b.collect(ctx, inst, t, m, &res.ActionResult)
		res.URL = res.ActionResult.URL
		return res, nil
	}
	if nav.IsDownload {
		// The download events follow the answer to Page.navigate.
		wctx, wcancel := context.WithTimeout(ctx, downloadSettle)
		for {
			b.mu.Lock()
			n, ch := len(b.downloads), b.changed
			b.mu.Unlock()
			if n > m.downloads {
				break
			}
			select {
			case <-ch:
				continue
			case <-wctx.Done():
			}
			break
		}
		wcancel()
		b.collect(ctx, inst, t, m, &res.ActionResult)
		res.URL, res.Title = t.url, t.title
		return res, nil
	}
	if nav.ErrorText != "" {
		e := werr.New(werr.Unavailable, "navigation to %s failed: %s", truncUTF8(rawURL, 200), nav.ErrorText)
		if permanentNavError(nav.ErrorText) {
			// The same URL fails the same way again: retrying cannot help.
			e = e.WithRetryable(false).WithHint("Chromium refuses this address itself; use another port or URL")
		}
		return nil, e
	}
	loader := nav.LoaderID
	if loader != "" {
		loader, d, err = b.waitLifecycle(nctx, inst, t, loader, m.loader, name, timeout)
		if err != nil {
			return nil, err
		}
		res.Dialog = d
		res.Navigated = true
	}
	if res.Dialog == nil {
		if res.Dialog, err = b.quiet(nctx, inst, t); err != nil {
			return nil, err
		}
	}
	b.collect(ctx, inst, t, m, &res.ActionResult)
	b.mu.Lock()
	res.Status = t.docStatus[loader]
	res.URL = t.url
	res.Title = t.title
	b.mu.Unlock()
	if res.Dialog == nil {
		var title string
		tctx, tcancel := context.WithTimeout(nctx, 2*time.Second)
		if obj, err := evalRaw(tctx, t, "document.title", true); err == nil && decodeValue(obj, &title) == nil {
			res.Title = title
			b.mu.Lock()
			t.title = title
			b.mu.Unlock()
		}
		tcancel()
	}
	return res, nil
}

// waitLifecycle waits for a lifecycle event of loader in the main frame. When
// the page replaces that document by another one (a script redirect), it
// follows the new document; it returns the loader it ended on. before is the
// loader of the document shown before the navigation.
func (b *Browser) waitLifecycle(ctx context.Context, inst *instance, t *tab, loader, before cdp.LoaderID, name string, timeout time.Duration) (cdp.LoaderID, *Dialog, error) {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	lastPoll := time.Now()
	committed := false
	for {
		b.mu.Lock()
		if t.loaderID == loader || t.lifecycle[loader] != nil {
			committed = true
		}
		if committed && t.loaderID != loader && t.loaderID != "" && t.loaderID != before {
			loader = t.loaderID // a newer document replaced ours
		}
		done := t.lifecycle[loader][name]
		d, ch := t.dialog, b.changed
		b.mu.Unlock()
		if d != nil {
			dd := *d
			return loader, &dd, nil
		}
		if done {
			return loader, nil, nil
		}
		if inst.isDead() {
			return loader, nil, b.mapErr(ctx, inst, context.Canceled)
		}
		// A page whose events were missed (attached late) still finishes:
		// poll readyState for the load conditions.
		if (name == "load" || name == "DOMContentLoaded") && time.Since(lastPoll) > 500*time.Millisecond {
			lastPoll = time.Now()
			var state string
			pctx, pcancel := context.WithTimeout(wctx, 300*time.Millisecond)
			obj, err := evalRaw(pctx, t, "document.readyState", true)
			pcancel()
			b.mu.Lock()
			cur := t.loaderID
			b.mu.Unlock()
			if err == nil && cur == loader && decodeValue(obj, &state) == nil &&
				(state == "complete" || (name == "DOMContentLoaded" && state == "interactive")) {
				return loader, nil, nil
			}
		}
		select {
		case <-ch:
		case <-time.After(100 * time.Millisecond):
		case <-wctx.Done():
			if ctx.Err() != nil {
				return loader, nil, b.mapErr(ctx, inst, ctx.Err())
			}
			return loader, nil, werr.New(werr.Timeout, "the page did not reach %q within %s", name, timeout).
				WithHint("the page may still be usable; try browser_get_text, or a weaker waitUntil")
		}
	}
}

// waitReadyState polls document.readyState until it equals want.
func (b *Browser) waitReadyState(ctx context.Context, inst *instance, t *tab, want string) error {
	for {
		var state string
		pctx, cancel := withCancelOf(t.ctx, ctx)
		obj, err := evalRaw(pctx, t, "document.readyState", true)
		cancel()
		if err == nil && decodeValue(obj, &state) == nil && state == want {
			return nil
		}
		if inst.isDead() {
			return b.mapErr(ctx, inst, context.Canceled)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// historyGo moves delta entries in the history and waits for the page.
func (b *Browser) historyGo(ctx context.Context, delta int) (*NavigateResult, error) {
	o, err := b.begin(ctx, false)
	if err != nil {
		return nil, err
	}
	defer o.end()
	h, err := cdp.Call(o.ctx, o.t.t, page.GetNavigationHistory, cdp.Empty{})
	if err != nil {
		return nil, o.err(err)
	}
	i := int(h.CurrentIndex) + delta
	if i < 0 || i >= len(h.Entries) {
		dir := "previous"
		if delta > 0 {
			dir = "next"
		}
		return nil, werr.New(werr.NotFound, "there is no %s page in the history of this tab", dir)
	}
	m := o.mark()
	d, err := o.await(func(ctx context.Context) error {
		_, err := cdp.Call(ctx, o.t.t, page.NavigateToHistoryEntry, page.NavigateToHistoryEntryParams{EntryID: h.Entries[i].ID})
		return err
	})
	if err != nil {
		return nil, err
	}
	return b.finishNav(o, m, d)
}

func (b *Browser) finishNav(o *op, m navMark, d *Dialog) (*NavigateResult, error) {
	res := &NavigateResult{}
	var err error
	if d == nil {
		d, err = b.waitNavigation(o.ctx, o.inst, o.t, m, time.Duration(b.pol.BrowserWaitMaxMs)*time.Millisecond)
		if err != nil {
			return nil, err
		}
		if d == nil {
			if d, err = b.quiet(o.ctx, o.inst, o.t); err != nil {
				return nil, err
			}
		}
	}
	res.Dialog = d
	b.collect(o.ctx, o.inst, o.t, m, &res.ActionResult)
	b.mu.Lock()
	res.Navigated = o.t.navCount != m.navCount
	res.URL, res.Title = o.t.url, o.t.title
	res.Status = o.t.docStatus[o.t.loaderID]
	b.mu.Unlock()
	if d == nil {
		var title string
		if obj, err := evalRaw(o.ctx, o.t, "document.title", true); err == nil && decodeValue(obj, &title) == nil {
			res.Title = title
		}
	}
	return res, nil
}

// Back goes one step back in the active tab's history.
func (b *Browser) Back(ctx context.Context) (*NavigateResult, error) { return b.historyGo(ctx, -1) }

// Forward goes one step forward in the active tab's history.
func (b *Browser) Forward(ctx context.Context) (*NavigateResult, error) { return b.historyGo(ctx, 1) }

// beginRecover begins an operation that also runs on a crashed page (a navigation
// or reload loads a fresh one) and clears the page's crashed mark.
func (b *Browser) beginRecover(ctx context.Context) (*op, error) {
	o, err := b.beginOp(ctx, false, true)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	o.t.crashed = false
	b.mu.Unlock()
	return o, nil
}

// Reload reloads the active tab (also when its page crashed).
func (b *Browser) Reload(ctx context.Context) (*NavigateResult, error) {
	o, err := b.beginRecover(ctx)
	if err != nil {
		return nil, err
	}
	defer o.end()
	m := o.mark()
	d, err := o.await(func(ctx context.Context) error {
		_, err := cdp.Call(ctx, o.t.t, page.Reload, page.ReloadParams{})
		return err
	})
	if err != nil {
		return nil, err
	}
	return b.finishNav(o, m, d)
}

// URL returns the active tab's URL (works while a dialog is pending).
func (b *Browser) URL(ctx context.Context) (string, error) {
	o, err := b.begin(ctx, true)
	if err != nil {
		return "", err
	}
	defer o.end()
	b.mu.Lock()
	defer b.mu.Unlock()
	return o.t.url, nil
}

// Title returns the active tab's title.
func (b *Browser) Title(ctx context.Context) (string, error) {
	o, err := b.begin(ctx, true)
	if err != nil {
		return "", err
	}
	defer o.end()
	b.mu.Lock()
	title, d := o.t.title, o.t.dialog
	b.mu.Unlock()
	if d != nil {
		return title, nil
	}
	if err := o.evalValue("document.title", &title); err != nil {
		return "", err
	}
	return title, nil
}

// TextResult is page text cut at the policy's PageTextBytes.
type TextResult struct {
	Text       string `json:"text"`
	Truncated  bool   `json:"truncated"`
	TotalBytes int    `json:"totalBytes"`
}

const textJS = `(() => {
  const s = %s;
  const max = %d;
  return {text: s.length > max ? s.slice(0, max) : s, bytes: new TextEncoder().encode(s).length};
})()`

func (b *Browser) pageString(ctx context.Context, source string) (*TextResult, error) {
	o, err := b.begin(ctx, false)
	if err != nil {
		return nil, err
	}
	defer o.end()
	return o.pageString(source)
}

func (o *op) pageString(source string) (*TextResult, error) {
	limit := o.b.pol.PageTextBytes
	var r struct {
		Text  string `json:"text"`
		Bytes int    `json:"bytes"`
	}
	if err := o.evalValue(fmt.Sprintf(textJS, source, limit), &r); err != nil {
		return nil, err
	}
	out := &TextResult{Text: r.Text, TotalBytes: r.Bytes}
	if len(out.Text) > limit {
		out.Text = truncUTF8(out.Text, limit)
	}
	out.Truncated = r.Bytes > len(out.Text)
	return out, nil
}

// Text returns the visible text of the active tab (innerText of the body).
func (b *Browser) Text(ctx context.Context) (*TextResult, error) {
	return b.pageString(ctx, `(document.body ? document.body.innerText : (document.documentElement ? document.documentElement.innerText : ''))`)
}

// HTML returns the serialised DOM of the active tab, doctype included.
func (b *Browser) HTML(ctx context.Context) (*TextResult, error) {
	return b.pageString(ctx, `((document.doctype ? new XMLSerializer().serializeToString(document.doctype) + '\n' : '') + (document.documentElement ? document.documentElement.outerHTML : ''))`)
}

// permanentNavError says whether Chromium refused a navigation for what the URL is
// (a port it never connects to, a scheme or address it blocks), not for the network.
func permanentNavError(text string) bool {
	for _, e := range []string{"net::ERR_UNSAFE_PORT", "net::ERR_INVALID_URL", "net::ERR_DISALLOWED_URL_SCHEME",
		"net::ERR_BLOCKED_BY_ADMINISTRATOR", "net::ERR_BLOCKED_BY_CLIENT", "net::ERR_UNKNOWN_URL_SCHEME"} {
		if strings.Contains(text, e) {
			return true
		}
	}
	return false
}

// truncUTF8 cuts s to at most n bytes without splitting a character.
func truncUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Run runs f against the active tab's CDP target (for packages built on this
// one, such as accessibility snapshots). f must be bounded by its ctx. It
// refuses to run while a dialog is pending and maps crashes to BROWSER_CRASHED.
func (b *Browser) Run(ctx context.Context, f func(ctx context.Context, t *chromedp.Target) error) error {
	o, err := b.begin(ctx, false)
	if err != nil {
		return err
	}
	defer o.end()
	err = o.do(func(ctx context.Context) error { return f(ctx, o.t.t) })
	return err
}

// ActionWait is how long an action waits for its element to become actionable (visible,
// enabled, uncovered): the policy's browser wait.
func (b *Browser) ActionWait() time.Duration {
	return time.Duration(b.pol.BrowserWaitDefaultMs) * time.Millisecond
}

// Act is Run for an action, settled as every action is (the navigation it started,
// the downloads and tabs it caused are in its result): when the action's own effect
// opens a dialog, the action ran, so the dialog comes back as a result, not as an
// error (only a later call, refused while it is open, gets DIALOG_PENDING).
func (b *Browser) Act(ctx context.Context, f func(ctx context.Context, t *chromedp.Target) error) (*ActionResult, error) {
	return b.action(ctx, func(o *op) (*Dialog, error) {
		return o.await(func(ctx context.Context) error { return f(ctx, o.t.t) })
	})
}

// PageIdentity names the document shown in the active tab; LoaderID changes
// whenever the main frame navigates to a new document (refs keyed on it die).
type PageIdentity struct {
	TabID    string `json:"tabId"`
	FrameID  string `json:"frameId"`
	LoaderID string `json:"loaderId"`
	URL      string `json:"url"`
}

// Identity returns the identity of the active tab's document.
func (b *Browser) Identity(ctx context.Context) (*PageIdentity, error) {
	o, err := b.begin(ctx, true)
	if err != nil {
		return nil, err
	}
	defer o.end()
	b.mu.Lock()
	defer b.mu.Unlock()
	return &PageIdentity{TabID: string(o.t.id), FrameID: string(o.t.mainFrame), LoaderID: string(o.t.loaderID), URL: o.t.url}, nil
}
