package browser

import (
	"context"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/w365/w365/engine/werr"
)

// tab is one page target. Its mutable fields are protected by Browser.mu.
type tab struct {
	id       target.ID
	opener   target.ID
	ctx      context.Context
	cancel   context.CancelFunc
	t        *chromedp.Target
	ready    chan struct{}
	readyErr error

	url, title string
	mainFrame  cdp.FrameID
	loaderID   cdp.LoaderID
	lifecycle  map[cdp.LoaderID]map[string]bool
	loaders    []cdp.LoaderID // order of lifecycle keys, for pruning
	docStatus  map[cdp.LoaderID]int64
	navCount   int // main-frame commits and same-document navigations
	loadStarts int // main-frame navigation requests and load starts
	// windowOpens counts the windows its page asked for (Page.windowOpen: window.open, a
	// link or form with a target), each a tab the browser creates a moment later.
	windowOpens int
	dialog      *Dialog
	crashed     bool
	gone        bool
	// chooser is the file input whose file chooser the page opened (intercepted:
	// no native dialog appears); 0 when none is pending. chooserIn is the out-of-process
	// frame whose document holds it, nil for the tab's own.
	chooser   cdp.BackendNodeID
	chooserIn *chromedp.Target
	// frames end the sessions that watch the tab's out-of-process frames (watchFrame).
	frames map[target.ID]context.CancelFunc
	// choosers counts the file choosers the page opened.
	choosers int
}

// TabInfo describes one tab.
type TabInfo struct {
	Index  int    `json:"index"`
	ID     string `json:"tabId"`
	URL    string `json:"url"`
	Title  string `json:"title"`
	Active bool   `json:"active"`
}

// TabRef names a tab by index (0-based, in ListTabs order) or by id. ID wins
// when both are set.
type TabRef struct {
	Index *int
	ID    string
}

// infoLocked describes t; Active says it is the tab of the caller of ctx.
func (b *Browser) infoLocked(ctx context.Context, inst *instance, t *tab) TabInfo {
	idx := -1
	for i, x := range inst.tabs {
		if x == t {
			idx = i
		}
	}
	return TabInfo{Index: idx, ID: string(t.id), URL: t.url, Title: t.title, Active: inst.tabOfLocked(ctx) == t}
}

// adopt attaches to a page target once, and returns its tab when ready.
func (b *Browser) adopt(inst *instance, ti *target.Info) (*tab, error) {
	b.mu.Lock()
	if t, ok := inst.byID[ti.TargetID]; ok {
		b.mu.Unlock()
		<-t.ready
		return t, t.readyErr
	}
	t := &tab{id: ti.TargetID, opener: ti.OpenerID, url: ti.URL, title: ti.Title, ready: make(chan struct{}),
		lifecycle: map[cdp.LoaderID]map[string]bool{}, docStatus: map[cdp.LoaderID]int64{}}
	inst.byID[t.id] = t
	inst.tabs = append(inst.tabs, t)
	b.notifyLocked() // for awaitOpened
	b.mu.Unlock()

	// Detach only when the context ends: tabs are closed explicitly
	// (CloseTab), and an attached browser's tabs must survive Close.
	tctx, cancel := chromedp.NewContext(inst.root, chromedp.WithTargetID(t.id), chromedp.WithDetachOnCancel(),
		chromedp.WithListener(func(ev any) { b.onTabEvent(inst, t, ev) }))
	t.ctx, t.cancel = tctx, cancel
	timer := time.AfterFunc(15*time.Second, cancel) // the first Run binds the tab to tctx: bound it this way
	err := chromedp.Do(tctx)
	var tree page.GetFrameTreeResult
	if err == nil {
		tree, err = chromedp.Call(tctx, page.GetFrameTree, cdp.Empty{})
	}
	if err == nil {
		// A file chooser a page opens becomes a pending chooser that
		// browser_file_upload fills, instead of a native dialog nobody can answer.
		_, err = chromedp.Call(tctx, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: true})
	}
	timer.Stop()
	b.mu.Lock()
	if err != nil {
		t.readyErr = b.mapErr(tctx, inst, err)
		t.gone = true
		b.removeLocked(inst, t)
	} else {
		t.t = chromedp.FromContext(tctx).Target
		if tree.FrameTree != nil && tree.FrameTree.Frame != nil {
			f := tree.FrameTree.Frame
			if t.mainFrame == "" {
				t.mainFrame = f.ID
			}
			if t.loaderID == "" {
				t.loaderID = f.LoaderID
				t.url = f.URL + f.URLFragment
			}
		}
		if t.opener != "" && !t.gone {
			// A page opened this tab (target=_blank, window.open): the browser
			// shows it in front, so it becomes the active tab.
			inst.active = t
		}
	}
	close(t.ready)
	b.notifyLocked()
	b.mu.Unlock()
	if err != nil {
		cancel()
	}
	return t, t.readyErr
}

// watchFrame attaches to the out-of-process frame id of t (a frame of another site) and has
// the file choosers its page opens intercepted as the tab's are: Chromium asks the frame's
// own DevTools session, so that without this one the chooser was cancelled unseen and
// browser_file_upload found none. A chooser it opens is t's pending one; the frames inside
// it are watched in turn (onFrameEvent). The session ends with parent's, or when the frame
// goes (onBrowserEvent).
func (b *Browser) watchFrame(inst *instance, t *tab, parent context.Context, id target.ID) {
	b.mu.Lock()
	if t.gone || t.frames[id] != nil {
		b.mu.Unlock()
		return
	}
	var ft *chromedp.Target // guarded by b.mu
	var ctx context.Context
	ctx, cancel := chromedp.NewContext(parent, chromedp.WithTargetID(id), chromedp.WithDetachOnCancel(),
		chromedp.WithListener(func(ev any) { b.onFrameEvent(inst, t, ctx, &ft, ev) }))
	if t.frames == nil {
		t.frames = map[target.ID]context.CancelFunc{}
	}
	t.frames[id] = cancel
	b.mu.Unlock()
	timer := time.AfterFunc(15*time.Second, cancel)
	err := chromedp.Do(ctx)
	if err == nil {
		b.mu.Lock()
		ft = chromedp.FromContext(ctx).Target
		b.mu.Unlock()
		_, err = chromedp.Call(ctx, page.SetInterceptFileChooserDialog, page.SetInterceptFileChooserDialogParams{Enabled: true})
	}
	timer.Stop()
	if err != nil {
		// The frame went while it was attached to, or the tab did.
		b.mu.Lock()
		b.forgetFrameLocked(t, id)
		b.mu.Unlock()
	}
}

// forgetFrameLocked ends the session watching the out-of-process frame id of t (the
// frame is gone): a chooser it held is no longer pending. It may run in a read loop.
func (b *Browser) forgetFrameLocked(t *tab, id target.ID) {
	if cancel := t.frames[id]; cancel != nil {
		// chromedp's cancel waits for the detach to be answered: never in a read loop.
		go cancel()
		delete(t.frames, id)
	}
	if t.chooserIn != nil && t.chooserIn.TargetID == id {
		t.chooser, t.chooserIn = 0, nil
	}
}

// removeLocked drops a tab from the list; the front tab and the callers on it move to
// its neighbour.
func (b *Browser) removeLocked(inst *instance, t *tab) {
	for i, x := range inst.tabs {
		if x == t {
			inst.tabs = append(inst.tabs[:i], inst.tabs[i+1:]...)
			// The tab that opened it takes its place, as the browser brings it to the front
			// (a popup that closes itself hands back to its page); else its neighbour.
			next := inst.byID[t.opener]
			if (next == nil || next.gone) && len(inst.tabs) > 0 {
				next = inst.tabs[max(0, i-1)]
			}
			if inst.active == t {
				inst.active = next
			}
			for c, y := range inst.callerTabs {
				if y == t {
					if next != nil {
						inst.callerTabs[c] = next
					} else {
						delete(inst.callerTabs, c)
					}
				}
			}
			break
		}
	}
	delete(inst.byID, t.id)
	if t.dialog != nil {
		t.dialog.closed = "closed"
	}
	t.gone = true
}

// onBrowserEvent handles browser-session events. It runs in the read loop:
// no commands here.
func (b *Browser) onBrowserEvent(inst *instance, ev any) {
	switch ev := ev.(type) {
	case *target.EventTargetCreated:
		if isTab(ev.TargetInfo) {
			go func() { _, _ = b.adopt(inst, ev.TargetInfo) }()
		}
	case *target.EventTargetInfoChanged:
		b.mu.Lock()
		if t, ok := inst.byID[ev.TargetInfo.TargetID]; ok {
			t.title = ev.TargetInfo.Title
			if ev.TargetInfo.URL != "" {
				t.url = ev.TargetInfo.URL
			}
		}
		b.mu.Unlock()
	case *target.EventTargetDestroyed:
		b.mu.Lock()
		for _, x := range inst.tabs {
			b.forgetFrameLocked(x, ev.TargetID)
		}
		t, ok := inst.byID[ev.TargetID]
		if ok {
			b.removeLocked(inst, t)
			b.notifyLocked()
		}
		b.mu.Unlock()
		if ok {
			go func() {
				<-t.ready
				if t.cancel != nil {
					t.cancel()
				}
			}()
		}
	default:
		b.onDownloadEvent(inst, ev)
	}
}

// tabFor resolves a TabRef against the live instance.
func (b *Browser) tabFor(inst *instance, ref TabRef) (*tab, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ref.ID != "" {
		if t, ok := inst.byID[target.ID(ref.ID)]; ok && !t.gone {
			return t, nil
		}
		return nil, werr.New(werr.NotFound, "no tab with id %q", ref.ID).WithHint("call browser_list_tabs")
	}
	if ref.Index == nil {
		return nil, werr.Invalid("give tabIndex or tabId")
	}
	if *ref.Index < 0 || *ref.Index >= len(inst.tabs) {
		return nil, werr.New(werr.NotFound, "no tab at index %d (there are %d)", *ref.Index, len(inst.tabs)).
			WithHint("call browser_list_tabs")
	}
	return inst.tabs[*ref.Index], nil
}

// ListTabs returns every tab in order, marking the active one.
func (b *Browser) ListTabs(ctx context.Context) ([]TabInfo, error) {
	inst, err := b.ensure(ctx)
	if err != nil {
		return nil, err
	}
	b.waitTabsReady(inst)
	b.refreshInfos(ctx, inst)
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]TabInfo, 0, len(inst.tabs))
	for _, t := range inst.tabs {
		out = append(out, b.infoLocked(ctx, inst, t))
	}
	return out, nil
}

// refreshInfos updates the titles and URLs of the tabs from the browser (a
// browser-level call: it works while a page is blocked by a dialog).
func (b *Browser) refreshInfos(ctx context.Context, inst *instance) {
	rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	res, err := callBrowser(rctx, b, inst, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, ti := range res.TargetInfos {
		if t, ok := inst.byID[ti.TargetID]; ok {
			t.title = ti.Title
			if ti.URL != "" {
				t.url = ti.URL
			}
		}
	}
}

// waitTabsReady waits briefly for tabs that are still being attached.
func (b *Browser) waitTabsReady(inst *instance) {
	b.mu.Lock()
	tabs := append([]*tab(nil), inst.tabs...)
	b.mu.Unlock()
	for _, t := range tabs {
		select {
		case <-t.ready:
		case <-time.After(5 * time.Second):
		}
	}
}

// createTab opens a tab at rawURL and attaches to it.
func (b *Browser) createTab(ctx context.Context, inst *instance, rawURL string, background bool) (*tab, error) {
	res, err := callBrowser(ctx, b, inst, target.CreateTarget, target.CreateTargetParams{
		URL: rawURL, NewWindow: new(false), Background: new(background),
	})
	if err != nil {
		return nil, err
	}
	t, err := b.adopt(inst, &target.Info{TargetID: res.TargetID, Type: "page", URL: rawURL})
	if err != nil {
		return nil, err
	}
	if !background {
		b.mu.Lock()
		inst.showLocked(ctx, t)
		b.mu.Unlock()
	}
	return t, nil
}

// withCancelOf returns a context with base's values (the chromedp context) and ctx's
// caller (callers.go) that also ends when ctx ends or reaches its deadline.
func withCancelOf(base, ctx context.Context) (context.Context, context.CancelFunc) {
	c, cancel := context.WithCancel(base)
	if caller := ctx.Value(callerKey{}); caller != nil {
		c = context.WithValue(c, callerKey{}, caller)
	}
	stop := context.AfterFunc(ctx, cancel)
	if dl, ok := ctx.Deadline(); ok {
		c2, cancel2 := context.WithDeadline(c, dl)
		return c2, func() { stop(); cancel2(); cancel() }
	}
	return c, func() { stop(); cancel() }
}

// callBrowser runs a browser-level command bounded by ctx.
func callBrowser[P, R any](ctx context.Context, b *Browser, inst *instance, cmd cdp.Command[P, R], params P) (R, error) {
	cctx, cancel := withCancelOf(inst.root, ctx)
	defer cancel()
	r, err := chromedp.CallBrowser(cctx, cmd, params)
	if err != nil {
		return r, b.mapErr(cctx, inst, err)
	}
	return r, nil
}

// NewTab opens a tab (about:blank when rawURL is empty), makes it active and,
// for a URL, waits for it to load.
func (b *Browser) NewTab(ctx context.Context, rawURL string) (*TabInfo, error) {
	if rawURL != "" {
		if err := b.checkURL(rawURL); err != nil {
			return nil, err
		}
	}
	ctx, done, err := b.tabOp(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	inst, err := b.ensure(ctx)
	if err != nil {
		return nil, err
	}
	t, err := b.createTab(ctx, inst, "about:blank", false)
	if err != nil {
		return nil, err
	}
	_, _ = callBrowser(ctx, b, inst, target.ActivateTarget, target.ActivateTargetParams{TargetID: t.id})
	if rawURL != "" {
		if _, err := b.navigateTab(ctx, inst, t, rawURL, WaitLoad); err != nil {
			return nil, err
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	info := b.infoLocked(ctx, inst, t)
	return &info, nil
}

// CreateTabs opens one tab per URL in order and waits (bounded) for each to
// load. With foreground set, that new tab (index into urls) becomes active;
// otherwise the active tab stays as it was.
func (b *Browser) CreateTabs(ctx context.Context, urls []string, foreground *int) ([]TabInfo, error) {
	if len(urls) == 0 {
		return nil, werr.Invalid("urls must not be empty")
	}
	for _, u := range urls {
		if err := b.checkURL(u); err != nil {
			return nil, err
		}
	}
	if foreground != nil && (*foreground < 0 || *foreground >= len(urls)) {
		return nil, werr.Invalid("foregroundIndex %d is outside the %d urls", *foreground, len(urls))
	}
	ctx, done, err := b.tabOp(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	inst, err := b.ensure(ctx)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	prev := inst.tabOfLocked(ctx)
	b.mu.Unlock()
	var created []*tab
	for _, u := range urls {
		t, err := b.createTab(ctx, inst, u, true)
		if err != nil {
			return nil, err
		}
		created = append(created, t)
	}
	for _, t := range created {
		wctx, cancel := context.WithTimeout(ctx, time.Duration(b.pol.BrowserWaitMaxMs)*time.Millisecond)
		_ = b.waitReadyState(wctx, inst, t, "complete")
		cancel()
	}
	b.mu.Lock()
	if foreground != nil {
		inst.showLocked(ctx, created[*foreground])
	} else if prev != nil && !prev.gone {
		inst.showLocked(ctx, prev)
	}
	act := inst.tabOfLocked(ctx)
	b.mu.Unlock()
	if act != nil {
		_, _ = callBrowser(ctx, b, inst, target.ActivateTarget, target.ActivateTargetParams{TargetID: act.id})
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]TabInfo, 0, len(created))
	for _, t := range created {
		out = append(out, b.infoLocked(ctx, inst, t))
	}
	return out, nil
}

// tabOp bounds ctx and takes opMu for a tab operation; done releases both.
func (b *Browser) tabOp(ctx context.Context) (_ context.Context, done func(), _ error) {
	ctx, cancel := b.bound(ctx)
	if err := b.opMu.lock(ctx); err != nil {
		cancel()
		return nil, nil, err
	}
	return ctx, func() { b.opMu.unlock(); cancel() }, nil
}

// findTab starts the browser if needed and finds the tab ref names; the caller holds opMu.
func (b *Browser) findTab(ctx context.Context, ref TabRef) (*instance, *tab, error) {
	inst, err := b.ensure(ctx)
	if err != nil {
		return nil, nil, err
	}
	b.waitTabsReady(inst)
	t, err := b.tabFor(inst, ref)
	return inst, t, err
}

// SwitchTab makes a tab active and brings it to the front.
func (b *Browser) SwitchTab(ctx context.Context, ref TabRef) (*TabInfo, error) {
	ctx, done, err := b.tabOp(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	inst, t, err := b.findTab(ctx, ref)
	if err != nil {
		return nil, err
	}
	if _, err := callBrowser(ctx, b, inst, target.ActivateTarget, target.ActivateTargetParams{TargetID: t.id}); err != nil {
		return nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	inst.showLocked(ctx, t)
	info := b.infoLocked(ctx, inst, t)
	return &info, nil
}

// CloseTabResult says which tab closed and which is active now.
type CloseTabResult struct {
	Closed TabInfo  `json:"closed"`
	Active *TabInfo `json:"active,omitempty"`
}

// CloseTab closes a tab (without running beforeunload). Closing the last tab
// first opens a blank one, so the browser keeps running.
func (b *Browser) CloseTab(ctx context.Context, ref TabRef) (*CloseTabResult, error) {
	ctx, done, err := b.tabOp(ctx)
	if err != nil {
		return nil, err
	}
	defer done()
	inst, t, err := b.findTab(ctx, ref)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	closed := b.infoLocked(ctx, inst, t)
	last := len(inst.tabs) == 1
	b.mu.Unlock()
	if last {
		if _, err := b.createTab(ctx, inst, "about:blank", false); err != nil {
			return nil, err
		}
	}
	if _, err := callBrowser(ctx, b, inst, target.CloseTarget, target.CloseTargetParams{TargetID: t.id}); err != nil {
		return nil, err
	}
	// Wait until the browser reports the tab gone (bounded), then drop it.
	deadline := time.After(3 * time.Second)
	for {
		b.mu.Lock()
		gone := t.gone
		ch := b.changed
		if !gone && inst.isDead() {
			b.mu.Unlock()
			return nil, b.mapErr(ctx, inst, context.Canceled)
		}
		b.mu.Unlock()
		if gone {
			break
		}
		select {
		case <-ch:
			continue
		case <-deadline:
		case <-ctx.Done():
		}
		b.mu.Lock()
		b.removeLocked(inst, t)
		b.mu.Unlock()
		break
	}
	go t.cancel()
	b.mu.Lock()
	defer b.mu.Unlock()
	res := &CloseTabResult{Closed: closed}
	act := inst.tabOfLocked(ctx)
	if act != nil {
		ai := b.infoLocked(ctx, inst, act)
		res.Active = &ai
		inst.showLocked(ctx, act)
		go func() {
			actx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, _ = callBrowser(actx, b, inst, target.ActivateTarget, target.ActivateTargetParams{TargetID: act.id})
		}()
	}
	return res, nil
}
