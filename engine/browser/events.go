package browser

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"

	"github.com/w365/w365/engine/safefs"
	"github.com/w365/w365/engine/werr"
)

const (
	maxConsole     = 2000
	maxNetwork     = 2000
	maxMessageText = 8 << 10
	maxURLLen      = 2048
)

// Dialog is a JavaScript dialog (alert, confirm, prompt, beforeunload).
type Dialog struct {
	TabID         string    `json:"tabId"`
	Type          string    `json:"type"`
	Message       string    `json:"message"`
	DefaultPrompt string    `json:"defaultPrompt,omitempty"`
	URL           string    `json:"url"`
	OpenedAt      time.Time `json:"openedAt"`
	seq           int64
	elsewhere     bool   // see Elsewhere
	closed        string // see Closed
}

// ConsoleMessage is one console message, uncaught exception or browser log
// entry. Text is page-derived (untrusted) content.
type ConsoleMessage struct {
	Seq    int64     `json:"seq"`
	Level  string    `json:"level"` // debug, info, warning, error
	Type   string    `json:"type"`  // console API type (log, warning, ...), "exception" or "browser"
	Text   string    `json:"text"`
	URL    string    `json:"url,omitempty"`
	Line   int64     `json:"line,omitempty"`
	Column int64     `json:"column,omitempty"`
	TabID  string    `json:"tabId"`
	Time   time.Time `json:"time"`
}

// NetworkRequest is one request of a tab. It never holds headers or cookies.
type NetworkRequest struct {
	Seq          int64     `json:"seq"`
	ID           string    `json:"id"`
	TabID        string    `json:"tabId"`
	Method       string    `json:"method"`
	URL          string    `json:"url"`
	ResourceType string    `json:"resourceType"`
	Status       int64     `json:"status,omitempty"`
	StatusText   string    `json:"statusText,omitempty"`
	MimeType     string    `json:"mimeType,omitempty"`
	Failed       bool      `json:"failed"`
	ErrorText    string    `json:"errorText,omitempty"`
	Finished     bool      `json:"finished"`
	Size         int64     `json:"size,omitempty"` // bytes received on the wire
	StartTime    time.Time `json:"startTime"`
	DurationMs   float64   `json:"durationMs,omitempty"`
	started      float64
	mainDoc      bool // the document of a navigation of the tab's main frame
}

// Download is a file the page downloaded into the session's download directory.
type Download struct {
	ID            string    `json:"id"`
	URL           string    `json:"url"`
	SuggestedName string    `json:"suggestedName"`
	Path          string    `json:"path,omitempty"` // set once completed
	State         string    `json:"state"`          // inProgress, completed, canceled
	ReceivedBytes int64     `json:"receivedBytes"`
	TotalBytes    int64     `json:"totalBytes"`
	StartedAt     time.Time `json:"startedAt"`
	seq           int64
}

// onFrameEvent handles the events of the session watching an out-of-process frame of t
// (watchFrame), ctx's; *ft is the frame's target once attached. It runs in the read loop: no
// commands here.
func (b *Browser) onFrameEvent(inst *instance, t *tab, ctx context.Context, ft **chromedp.Target, ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *page.EventFileChooserOpened:
		if *ft != nil {
			t.chooser, t.chooserIn = ev.BackendNodeID, *ft
			t.choosers++
			b.notifyLocked()
		}
	case *target.EventAttachedToTarget:
		b.frameAttachedLocked(inst, t, ctx, ev)
	}
}

// frameAttachedLocked watches an out-of-process frame attached below the session of ctx
// (the tab's or a frame's).
func (b *Browser) frameAttachedLocked(inst *instance, t *tab, ctx context.Context, ev *target.EventAttachedToTarget) {
	if ev.TargetInfo != nil && ev.TargetInfo.Type == "iframe" && ctx != nil {
		go b.watchFrame(inst, t, ctx, ev.TargetInfo.TargetID)
	}
}

// onTabEvent records the events of one tab. It runs in the tab's read loop: no
// commands, return fast.
func (b *Browser) onTabEvent(inst *instance, t *tab, ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *page.EventFrameNavigated:
		if ev.Frame != nil && ev.Frame.ParentID == "" {
			t.mainFrame = ev.Frame.ID
			t.loaderID = ev.Frame.LoaderID
			t.url = ev.Frame.URL + ev.Frame.URLFragment
			t.navCount++
		}
	case *page.EventNavigatedWithinDocument:
		if ev.FrameID == t.mainFrame {
			t.url = ev.URL
			t.navCount++
		}
	case *page.EventFrameStartedLoading:
		if ev.FrameID == t.mainFrame {
			t.loadStarts++
		}
	case *page.EventFrameRequestedNavigation:
		if ev.FrameID == t.mainFrame {
			t.loadStarts++
		}
	case *page.EventLifecycleEvent:
		if ev.FrameID == t.mainFrame || t.mainFrame == "" {
			m := t.lifecycle[ev.LoaderID]
			if m == nil || ev.Name == "init" {
				m = map[string]bool{}
				t.lifecycle[ev.LoaderID] = m
				t.loaders = append(t.loaders, ev.LoaderID)
				if len(t.loaders) > 8 {
					delete(t.lifecycle, t.loaders[0])
					delete(t.docStatus, t.loaders[0])
					t.loaders = t.loaders[1:]
				}
			}
			m[ev.Name] = true
		}
	case *page.EventJavascriptDialogOpening:
		b.dialogSeq++
		t.dialog = &Dialog{TabID: string(t.id), Type: string(ev.Type), Message: ev.Message,
			DefaultPrompt: ev.DefaultPrompt, URL: ev.URL, OpenedAt: time.Now(), seq: b.dialogSeq}
		b.openedLocked(t.dialog)
	case *page.EventJavascriptDialogClosed:
		b.closedLocked(t, ev.Result)
		t.dialog = nil
	case *page.EventWindowOpen:
		t.windowOpens++
	case *page.EventFileChooserOpened:
		t.chooser, t.chooserIn = ev.BackendNodeID, nil
		t.choosers++
	case *target.EventAttachedToTarget:
		b.frameAttachedLocked(inst, t, t.ctx, ev)
	case *inspector.EventTargetCrashed:
		t.crashed = true
	case *page.EventDomContentEventFired, *page.EventLoadEventFired:
		t.crashed = false
	case *runtime.EventConsoleAPICalled:
		typ := string(ev.Type)
		level := "info"
		switch ev.Type {
		case runtime.ConsoleAPICalledTypeDebug:
			level = "debug"
		case runtime.ConsoleAPICalledTypeWarning:
			level = "warning"
		case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert:
			level = "error"
		}
		parts := make([]string, 0, len(ev.Args))
		for _, a := range ev.Args {
			parts = append(parts, remoteText(a))
		}
		m := ConsoleMessage{Level: level, Type: typ, Text: strings.Join(parts, " "), TabID: string(t.id), Time: time.Now()}
		if ev.StackTrace != nil && len(ev.StackTrace.CallFrames) > 0 {
			cf := ev.StackTrace.CallFrames[0]
			m.URL, m.Line, m.Column = cf.URL, cf.LineNumber+1, cf.ColumnNumber+1
		}
		b.addConsoleLocked(m)
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		if d == nil {
			break
		}
		text := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			text = d.Exception.Description
		}
		b.addConsoleLocked(ConsoleMessage{Level: "error", Type: "exception", Text: text, URL: d.URL,
			Line: d.LineNumber + 1, Column: d.ColumnNumber + 1, TabID: string(t.id), Time: time.Now()})
	case *log.EventEntryAdded:
		e := ev.Entry
		if e == nil {
			break
		}
		level := string(e.Level)
		if e.Level == log.EntryLevelVerbose {
			level = "debug"
		}
		b.addConsoleLocked(ConsoleMessage{Level: level, Type: "browser", Text: e.Text, URL: e.URL,
			Line: e.LineNumber, TabID: string(t.id), Time: time.Now()})
	case *network.EventRequestWillBeSent:
		id := string(t.id) + "/" + string(ev.RequestID)
		if r, ok := b.netByID[id]; ok && ev.RedirectResponse != nil {
			r.Status, r.StatusText, r.MimeType = ev.RedirectResponse.Status, ev.RedirectResponse.StatusText, ev.RedirectResponse.MimeType
			r.Finished = true
			r.DurationMs = (float64(ev.Timestamp) - r.started) * 1000
		}
		if ev.Request == nil {
			break
		}
		b.netSeq++
		r := &NetworkRequest{Seq: b.netSeq, ID: string(ev.RequestID), TabID: string(t.id), Method: ev.Request.Method,
			URL: capURL(ev.Request.URL), ResourceType: string(ev.Type), StartTime: time.Unix(0, int64(float64(ev.WallTime)*1e9)),
			started: float64(ev.Timestamp), mainDoc: ev.Type == network.ResourceTypeDocument && ev.FrameID == t.mainFrame}
		b.netByID[id] = r
		b.network = append(b.network, r)
		if len(b.network) > maxNetwork {
			old := b.network[0]
			if b.netByID[old.TabID+"/"+old.ID] == old {
				delete(b.netByID, old.TabID+"/"+old.ID)
			}
			b.network = b.network[1:]
		}
	case *network.EventResponseReceived:
		if r, ok := b.netByID[string(t.id)+"/"+string(ev.RequestID)]; ok && ev.Response != nil {
			r.Status, r.StatusText, r.MimeType = ev.Response.Status, ev.Response.StatusText, ev.Response.MimeType
			if ev.Type != "" {
				r.ResourceType = string(ev.Type)
			}
		}
		if ev.Type == network.ResourceTypeDocument && ev.Response != nil && ev.FrameID == t.mainFrame {
			t.docStatus[ev.LoaderID] = ev.Response.Status
		}
	case *network.EventLoadingFinished:
		if r, ok := b.netByID[string(t.id)+"/"+string(ev.RequestID)]; ok {
			r.Finished = true
			r.Size = int64(ev.EncodedDataLength)
			r.DurationMs = (float64(ev.Timestamp) - r.started) * 1000
		}
	case *network.EventLoadingFailed:
		if r, ok := b.netByID[string(t.id)+"/"+string(ev.RequestID)]; ok {
			r.Finished = true
			r.Failed = true
			r.ErrorText = ev.ErrorText
			if ev.BlockedReason != "" {
				r.ErrorText += " (blocked: " + string(ev.BlockedReason) + ")"
			}
			r.DurationMs = (float64(ev.Timestamp) - r.started) * 1000
		}
	default:
		return
	}
	b.notifyLocked()
}

func capURL(u string) string {
	if len(u) > maxURLLen {
		return u[:maxURLLen] + "..."
	}
	return u
}

// remoteText renders a console argument the way the DevTools console does, roughly.
func remoteText(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	if o.UnserializableValue != "" {
		return string(o.UnserializableValue)
	}
	if len(o.Value) > 0 {
		var s string
		if json.Unmarshal(o.Value, &s) == nil {
			return s
		}
		return string(o.Value)
	}
	if o.Type == runtime.RemoteObjectTypeUndefined {
		return "undefined"
	}
	if o.Description != "" {
		return o.Description
	}
	return string(o.Type)
}

func (b *Browser) addConsoleLocked(m ConsoleMessage) {
	if len(m.Text) > maxMessageText {
		m.Text = truncUTF8(m.Text, maxMessageText) + "..."
	}
	// A script names its own URL (a sourceURL comment): kept whole, the last maxConsole
	// messages held gigabytes of the host.
	m.URL = capURL(m.URL)
	b.consoleSeq++
	m.Seq = b.consoleSeq
	b.console = append(b.console, m)
	if len(b.console) > maxConsole {
		b.console = b.console[len(b.console)-maxConsole:]
	}
}

// onDownloadEvent records browser-level download events.
func (b *Browser) onDownloadEvent(_ *instance, ev any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch ev := ev.(type) {
	case *browser.EventDownloadWillBegin:
		d := &Download{ID: ev.GUID, URL: capURL(ev.URL), SuggestedName: ev.SuggestedFilename, State: "inProgress",
			StartedAt: time.Now(), seq: int64(len(b.downloads) + 1)}
		b.dlByGUID[ev.GUID] = d
		b.downloads = append(b.downloads, d)
	case *browser.EventDownloadProgress:
		d, ok := b.dlByGUID[ev.GUID]
		if !ok {
			return
		}
		d.ReceivedBytes, d.TotalBytes = int64(ev.ReceivedBytes), int64(ev.TotalBytes)
		switch ev.State {
		case browser.DownloadProgressStateCompleted:
			if d.State != "completed" {
				d.State = "completed"
				d.Path = b.finishDownload(d)
			}
		case browser.DownloadProgressStateCanceled:
			d.State = "canceled"
		}
	default:
		return
	}
	b.notifyLocked()
}

// finishDownload renames the guid-named file to a unique suggested name (fixName: every
// character a listing would misread replaced), never a hidden one (a page could otherwise
// drop .bashrc-like files), never over a file, and only when the guid-named entry is a
// regular file (safefs: nothing there is followed, nor, for the session's own folder, a
// link on the way to it: OpenRoot).
func (b *Browser) finishDownload(d *Download) string {
	src := filepath.Join(b.opts.DownloadDir, d.ID)
	dir, err := OpenRoot(b.opts.DownloadDir, b.SessionOwned(b.opts.DownloadDir))
	if err != nil {
		return src
	}
	defer dir.Close()
	name := strings.TrimLeft(fixName(filepath.Base(strings.ReplaceAll(d.SuggestedName, "\\", "/"))), ".")
	if name == "" || name == "/" {
		name = "download"
	}
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for i := 0; i < 1000; i++ {
		cand := name
		if i > 0 {
			cand = fmt.Sprintf("%s (%d)%s", stem, i, ext)
		}
		if err := dir.Link(d.ID, cand); err != nil {
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			if k, kerr := dir.Kind(cand); kerr != nil || k != safefs.Missing {
				continue
			}
			// No hard links on this file system: the name was free a moment ago.
			if k, kerr := dir.Kind(d.ID); kerr != nil || k != safefs.Regular || dir.Rename(d.ID, cand) != nil {
				return src
			}
			return filepath.Join(b.opts.DownloadDir, cand)
		}
		dir.Remove(d.ID)
		return filepath.Join(b.opts.DownloadDir, cand)
	}
	return src
}

// PendingDialogs lists the dialogs open in any tab.
func (b *Browser) PendingDialogs() []Dialog {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []Dialog
	if b.inst == nil {
		return nil
	}
	for _, t := range b.inst.tabs {
		if t.dialog != nil {
			out = append(out, *t.dialog)
		}
	}
	return out
}

// DialogResult is the outcome of HandleDialog.
type DialogResult struct {
	Handled bool    `json:"handled"`
	Message string  `json:"message"`
	Dialog  *Dialog `json:"dialog,omitempty"`
	ActionResult
}

// HandleDialog accepts or dismisses the pending dialog of the caller's tab (or,
// when it has none, of any tab). promptText is typed into a prompt. With no
// dialog pending the result says "No pending dialog" (not an error). After
// the dialog closes, a navigation it released (beforeunload) is waited for.
func (b *Browser) HandleDialog(ctx context.Context, accept bool, promptText string) (*DialogResult, error) {
	inst, err := b.ensure(ctx)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	var t *tab
	if a := inst.tabOfLocked(ctx); a != nil && a.dialog != nil {
		t = a
	} else {
		for _, x := range inst.tabs {
			if x.dialog != nil {
				t = x
			}
		}
	}
	if t == nil {
		b.mu.Unlock()
		return &DialogResult{Message: "No pending dialog"}, nil
	}
	d := *t.dialog
	mark := b.markLocked(t)
	b.toldLocked(ctx, d.seq)
	b.mu.Unlock()
	octx, cancel := withCancelOf(t.ctx, ctx)
	defer cancel()
	_, err = cdp.Call(octx, t.t, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: accept, PromptText: promptText})
	if err != nil {
		return nil, b.mapErr(octx, inst, err)
	}
	b.mu.Lock()
	if t.dialog != nil && t.dialog.seq == d.seq {
		b.closedLocked(t, accept)
		t.dialog = nil
	}
	b.mu.Unlock()
	verb := "accepted"
	if !accept {
		verb = "dismissed"
	}
	res := &DialogResult{Handled: true, Message: fmt.Sprintf("%s dialog %s", d.Type, verb), Dialog: &d}
	// Let the page go on (a confirm handler, a released navigation); skip the
	// settle when the operation that opened the dialog still holds the page.
	if b.opMu.tryLock() {
		defer b.opMu.unlock()
		ar, err := b.settle(ctx, inst, t, mark)
		if err != nil {
			return nil, err
		}
		res.ActionResult = *ar
	}
	return res, nil
}

// ConsoleQuery selects console messages.
type ConsoleQuery struct {
	// Level is the minimum level: debug, info (= log), warning or error. Empty: all.
	Level string
	// All returns every retained message; otherwise only those since the last
	// call without All. Either way the cursor moves to the newest message.
	All bool
	// Clear forgets the returned messages after reading.
	Clear bool
}

var levelRank = sync.OnceValue(func() map[string]int {
	return map[string]int{"debug": 0, "verbose": 0, "info": 1, "log": 1, "warning": 2, "warn": 2, "error": 3}
})

// ConsoleMessages returns captured console messages (all tabs, all browsers of
// this session, in order).
func (b *Browser) ConsoleMessages(q ConsoleQuery) ([]ConsoleMessage, error) {
	min := 0
	if q.Level != "" {
		r, ok := levelRank()[strings.ToLower(q.Level)]
		if !ok {
			return nil, werr.Invalid("level must be one of debug, info, warning, error").WithDetail("allowed", []string{"debug", "info", "warning", "error"})
		}
		min = r
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	out := []ConsoleMessage{}
	for _, m := range b.console {
		if !q.All && m.Seq <= b.consoleCursor {
			continue
		}
		if levelRank()[m.Level] < min {
			continue
		}
		out = append(out, m)
	}
	b.consoleCursor = b.consoleSeq
	if q.Clear {
		b.console = nil
	}
	return out, nil
}

// NetworkQuery selects network requests.
type NetworkQuery struct {
	URLContains  string
	Method       string
	ResourceType string // Document, Script, XHR, Fetch, Image, ... (case-insensitive)
	FailedOnly   bool
	// SinceLast returns only requests started after the previous SinceLast call.
	SinceLast bool
	Clear     bool
}

// NetworkRequests returns captured requests (copies), oldest first.
func (b *Browser) NetworkRequests(q NetworkQuery) []NetworkRequest {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := []NetworkRequest{}
	for _, r := range b.network {
		if q.SinceLast && r.Seq <= b.netCursor {
			continue
		}
		if q.URLContains != "" && !strings.Contains(r.URL, q.URLContains) {
			continue
		}
		if q.Method != "" && !strings.EqualFold(q.Method, r.Method) {
			continue
		}
		if q.ResourceType != "" && !strings.EqualFold(q.ResourceType, r.ResourceType) {
			continue
		}
		if q.FailedOnly && !r.Failed && r.Status < 400 {
			continue
		}
		out = append(out, *r)
	}
	if q.SinceLast {
		b.netCursor = b.netSeq
	}
	if q.Clear {
		b.network = nil
		b.netByID = map[string]*NetworkRequest{}
	}
	return out
}

// Downloads lists the downloads of the session, oldest first.
func (b *Browser) Downloads() []Download {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]Download, 0, len(b.downloads))
	for _, d := range b.downloads {
		out = append(out, *d)
	}
	return out
}
