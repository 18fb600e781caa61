package commands

import (
	"cmp"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/proc"
	"github.com/w365/w365/engine/sandbox"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/snapshot"
	"github.com/w365/w365/engine/werr"
)

// browserTools are the tools of the browser toolset, in the order help lists them.
var browserTools = []*tool.Tool{
	BrowserNavigate,
	BrowserBack,
	BrowserForward,
	BrowserReload,
	BrowserGetURL,
	BrowserGetTitle,
	BrowserGetText,
	BrowserGetHTML,
	BrowserClick,
	BrowserType,
	BrowserQueryText,
	BrowserWaitFor,
	BrowserEvalJS,
	BrowserEvaluate,
	BrowserRunCode,
	BrowserScreenshot,
	BrowserTakeScreenshot,
	BrowserSelectOption,
	BrowserFillForm,
	BrowserDrag,
	BrowserListTabs,
	BrowserSwitchTab,
	BrowserNewTab,
	BrowserCreateTabs,
	BrowserCloseTab,
	BrowserGetCookies,
	BrowserSetCookies,
	BrowserHandleDialog,
	BrowserPDFSave,
	BrowserGetPageState,
	BrowserConsoleMessages,
	BrowserNetworkRequests,
	BrowserDownloads,
}

const browserKey = "browser"

// browserOf is the session's browser, launched on first use: headful on the session's
// desktop, with a profile of its own.
func browserOf(ctx context.Context, env *tool.Env) (*browser.Browser, error) {
	return session.Use(env.Session, browserKey, func(s *session.Session) (*browser.Browser, error) {
		o := browser.Options{
			Env:      s.Desktop.Environ(nil),
			Headless: env.Host.Browser().Headless,
			StateDir: env.Host.Browser().StateDir,
			// A script of a page on the host's own HTTP origin would pass its origin check
			// and call its MCP endpoint as an anonymous client (docs/security.md).
			BlockedOrigins: env.Host.Browser().HostOrigins,
			DownloadDir:    s.DownloadDir(),
			HomeDir:        s.HomeDir(),
			TmpDir:         s.TmpDir(),
			UserDirs:       personDirs(env),
			Policy:         env.Policy,
		}
		// The window fills the session's screen from its first page on.
		if scr, err := screenOf(env); err == nil {
			o.WindowWidth, o.WindowHeight, _ = scr.Size()
		}
		if s.ID == session.DefaultName {
			// Only the default session uses an attached browser; other sessions get their own.
			o.CDPEndpoint = env.Host.Browser().CDPEndpoint
		}
		tool.Phase(ctx, "starting the session's browser")
		if s.Desktop.Virtual() {
			r, err := runnerOf(env)
			if err != nil {
				return nil, err
			}
			o.Confine = confineBrowser(r)
		}
		return browser.Launch(ctx, o)
	})
}

// confineBrowser starts the browser in the session's confinement, on the host's network.
func confineBrowser(r *sandbox.Runner) func(*exec.Cmd, []string) (func(), func(), error) {
	return func(cmd *exec.Cmd, binds []string) (func(), func(), error) {
		return r.Confine(cmd, sandbox.ConfineOptions{ShareNet: true, Binds: binds})
	}
}

// browserProcesses is the process tree of the browser w365 launched for the session
// (proc.Scope with its process as the root); ok is false while there is none (not yet
// launched, or attached over CDPEndpoint). Confined, the process started is the
// confinement (bubblewrap) and the browser one of its descendants.
func browserProcesses(env *tool.Env) (_ *browser.Browser, _ proc.Scope, ok bool) {
	b, ok := session.Peek[*browser.Browser](env.Session, browserKey)
	if !ok || b.PID() <= 0 {
		return nil, proc.Scope{}, false
	}
	return b, proc.Scope{Roots: []int{b.PID()}}, true
}

// browserURLOf tells focus_browser the current URL of a window of the browser w365
// drives (never launching one to answer): a window whose process is in that browser's
// tree, never another Chromium launched in the session (its own tree). pids maps window
// handles to processes; it is read before the window manager's FindBrowser runs, since
// that holds the manager's lock while it asks.
func browserURLOf(env *tool.Env, pids map[uint32]int) func(handle uint32) string {
	return func(handle uint32) string {
		b, tree, ok := browserProcesses(env)
		if !ok || pids[handle] <= 0 || !tree.Contains(pids[handle]) {
			return ""
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		u, _ := b.URL(ctx)
		return u
	}
}

// Hint sets of browser tools: the web is an open world.
var (
	WebRead = tool.Annotations{ReadOnly: tool.Yes, Destructive: tool.No, Idempotent: tool.Yes, OpenWorld: tool.Yes}
	WebAct  = tool.Annotations{ReadOnly: tool.No, Destructive: tool.No, Idempotent: tool.No, OpenWorld: tool.Yes}
	// WebSet puts the page or browser into a given state (the active tab, a file written
	// from the page); repeating it changes nothing more.
	WebSet = tool.Annotations{ReadOnly: tool.No, Destructive: tool.No, Idempotent: tool.Yes, OpenWorld: tool.Yes}
)

// deref turns an engine result pointer into the value a tool returns.
func deref[T any](p *T, err error) (T, error) {
	if err != nil || p == nil {
		var zero T
		if err == nil {
			err = werr.New(werr.Internal, "empty result")
		}
		return zero, err
	}
	return *p, nil
}

// browserTool defines a browser tool whose handler needs only the browser and the input.
func browserTool[In, Out any](t tool.Tool, f func(ctx context.Context, b *browser.Browser, in In) (Out, error)) *tool.Tool {
	return tool.Define(t, func(ctx context.Context, env *tool.Env, in In) (Out, error) {
		b, err := browserOf(ctx, env)
		if err != nil {
			var zero Out
			return zero, err
		}
		return f(ctx, b, in)
	})
}

// NavigateIn is browser_navigate's input.
type NavigateIn struct {
	URL       string `json:"url" jsonschema:"with scheme, e.g. https://example.com" w365:"minLength=1"`
	WaitUntil string `json:"waitUntil,omitempty" w365:"enum=load|domcontentloaded|networkidle0|networkidle2,default=load"`
}

// NavOut is where a navigation ended.
type NavOut struct{ browser.NavigateResult }

func (o NavOut) Text() string {
	s := fmt.Sprintf("%s %q", o.URL, o.Title)
	if o.Status != 0 {
		s = fmt.Sprintf("%d %s", o.Status, s)
	}
	return s + actionNotes(o.ActionResult)
}

// actionNotes mentions what an action set off besides its effect: dialogs, downloads, tabs.
func actionNotes(a browser.ActionResult) string {
	var parts []string
	if d := a.Dialog; d != nil {
		switch {
		case !d.Elsewhere():
			parts = append(parts, fmt.Sprintf("%s dialog opened: %q (answer with browser handle-dialog)", d.Type, d.Message))
		case d.Closed() != "":
			parts = append(parts, fmt.Sprintf("%s dialog %q (not opened by this call) was %s", d.Type, d.Message, d.Closed()))
		default:
			parts = append(parts, fmt.Sprintf("%s dialog opened, not by this call: %q (answer with browser handle-dialog)", d.Type, d.Message))
		}
	}
	for _, d := range a.Downloads {
		parts = append(parts, downloadNote(d))
	}
	for _, t := range a.NewTabs {
		parts = append(parts, fmt.Sprintf("new tab %d: %s", t.Index, t.URL))
	}
	if a.FileChooser {
		parts = append(parts, "file chooser opened (answer with browser file-upload, no target)")
	}
	if t := a.AfterClose; t != nil {
		parts = append(parts, fmt.Sprintf("the page closed its tab; the active tab is now %d: %s", t.Index, t.URL))
	}
	if len(parts) == 0 {
		return ""
	}
	return "\n" + strings.Join(parts, "\n")
}

// downloadNote names a download, its state, size and where it was saved.
func downloadNote(d browser.Download) string {
	switch {
	case d.State == "completed":
		return fmt.Sprintf("download %s (completed, %d bytes): %s", d.SuggestedName, d.ReceivedBytes, d.Path)
	case d.TotalBytes > 0:
		return fmt.Sprintf("download %s (%s, %d of %d bytes)", d.SuggestedName, d.State, d.ReceivedBytes, d.TotalBytes)
	}
	return fmt.Sprintf("download %s (%s)", d.SuggestedName, d.State)
}

// ActOut is the result of a page action.
type ActOut struct{ browser.ActionResult }

func (o ActOut) Text() string {
	s := "done"
	if o.Navigated {
		s = "navigated to " + o.URL
	}
	return s + actionNotes(o.ActionResult)
}

// SelectorIn names one element.
type SelectorIn struct {
	Selector string `json:"selector" jsonschema:"CSS selector; first match" w365:"minLength=1"`
}

// targetDoc describes every target parameter.
const targetDoc = "a ref from the latest browser_snapshot or browser_find (e5, or SNAPSHOTID:e5), or a CSS selector"

// BrowserClickIn is browser_click's input: W365 selector or PW target.
type BrowserClickIn struct {
	Selector    string   `json:"selector,omitempty"`
	Target      string   `json:"target,omitempty" jsonschema:"ref (e5) or CSS selector"`
	Button      string   `json:"button,omitempty" w365:"enum=left|right|middle,default=left"`
	DoubleClick bool     `json:"doubleClick,omitempty" w365:"default=false"`
	ClickCount  int      `json:"clickCount,omitempty" w365:"min=1,max=2,default=1"`
	Modifiers   []string `json:"modifiers,omitempty" w365:"enum=Alt|Control|ControlOrMeta|Ctrl|Meta|Shift"`
}

// BrowserTypeIn is browser_type's input.
type BrowserTypeIn struct {
	Selector string `json:"selector,omitempty"`
	Target   string `json:"target,omitempty" jsonschema:"ref (e5) or CSS selector"`
	Text     string `json:"text" w365:"maxLength=20000"`
	Append   bool   `json:"append,omitempty" jsonschema:"type at the end of the current value" w365:"default=false"`
	Submit   bool   `json:"submit,omitempty" jsonschema:"press Enter after" w365:"default=false"`
	Slowly   bool   `json:"slowly,omitempty" w365:"default=false"`
}

// pickTarget chooses between the W365 selector and the PW target.
func pickTarget(selector, target string) (string, error) {
	switch {
	case selector != "" && target != "":
		return "", werr.Invalid("give selector or target, not both")
	case selector != "":
		return selector, nil
	case strings.TrimSpace(target) != "":
		return target, nil
	}
	return "", werr.Invalid("give target (a snapshot ref such as e5, or a CSS selector) or selector")
}

// URLOut and TitleOut are single values.
type URLOut struct {
	URL string `json:"url"`
}

func (o URLOut) Text() string { return o.URL }

type TitleOut struct {
	Title string `json:"title"`
}

func (o TitleOut) Text() string { return o.Title }

// TextOut is page or element text.
type TextOut struct{ browser.TextResult }

func (o TextOut) Text() string {
	if o.Truncated {
		return o.TextResult.Text + fmt.Sprintf("\n[truncated: %d of %d bytes]", len(o.TextResult.Text), o.TotalBytes)
	}
	return o.TextResult.Text
}

// WaitForIn is browser_wait_for's input (W365 selector form and PW text forms).
type WaitForIn struct {
	Selector  string  `json:"selector,omitempty"`
	Text      string  `json:"text,omitempty" jsonschema:"text to appear (inside selector if given)"`
	TextGone  string  `json:"textGone,omitempty"`
	Visible   bool    `json:"visible,omitempty" w365:"default=false"`
	TimeoutMs int     `json:"timeoutMs,omitempty" w365:"min=1,max=30000,default=5000"`
	Time      float64 `json:"time,omitempty" jsonschema:"seconds to wait first" w365:"min=0,max=30"`
}

// WaitForOut says how long it took, and the line of page text that held the text waited
// for (in the text only: a toast may be gone by the next look).
type WaitForOut struct {
	browser.WaitResult
	Line string `json:"-"`
}

func (o WaitForOut) Text() string {
	if o.Line != "" {
		return fmt.Sprintf("ready after %d ms: %q", o.ElapsedMs, o.Line)
	}
	return fmt.Sprintf("ready after %d ms", o.ElapsedMs)
}

// EvalJSIn is browser_eval_js's input.
type EvalJSIn struct {
	Expression string `json:"expression" jsonschema:"result comes back as a string" w365:"minLength=1"`
}

// EvaluateIn is browser_evaluate's input.
type EvaluateIn struct {
	Function string `json:"function" jsonschema:"e.g. () => document.title; el => ... with target" w365:"minLength=1"`
	Target   string `json:"target,omitempty" jsonschema:"element passed: ref (e5) or CSS selector"`
}

// EvalOut is a script's result.
type EvalOut struct{ browser.EvalResult }

func (o EvalOut) Text() string { return o.Value }

// RunCodeIn is browser_run_code's input.
type RunCodeIn struct {
	Code      string `json:"code" jsonschema:"body of an async function of a Playwright page, e.g. return await page.title()" w365:"minLength=1,maxLength=100000"`
	TimeoutMs int    `json:"timeoutMs,omitempty" w365:"min=1,max=120000,default=5000"`
}

// RunCodeOut is what the code returned.
type RunCodeOut struct {
	Result string `json:"result" jsonschema:"JSON text"`
	Bytes  int    `json:"bytes"`
}

func (o RunCodeOut) Text() string { return o.Result }

// BrowserShotIn is browser_take_screenshot's input.
type BrowserShotIn struct {
	Type     string `json:"type,omitempty" w365:"enum=png|jpeg,default=png"`
	Target   string `json:"target,omitempty" jsonschema:"one element: ref (e5) or CSS selector"`
	FullPage bool   `json:"fullPage,omitempty" w365:"default=false"`
}

// PageImageOut is a browser capture.
type PageImageOut struct {
	MIMEType string `json:"mimeType"`
	Bytes    int    `json:"bytes"`
	data     []byte
}

func (o PageImageOut) OutputImages() []tool.Image {
	return []tool.Image{{Data: o.data, MIMEType: o.MIMEType}}
}
func (o PageImageOut) Text() string { return fmt.Sprintf("%s, %d bytes", o.MIMEType, o.Bytes) }

func pageShot(ctx context.Context, b *browser.Browser, so browser.ScreenshotOptions) (PageImageOut, error) {
	data, err := b.Screenshot(ctx, so)
	if err != nil {
		return PageImageOut{}, err
	}
	mime := "image/png"
	if so.Format == "jpeg" {
		mime = "image/jpeg"
	}
	return PageImageOut{MIMEType: mime, Bytes: len(data), data: data}, nil
}

// SelectOptionIn is browser_select_option's input.
type SelectOptionIn struct {
	Selector string   `json:"selector" jsonschema:"ref (e5) or CSS selector of the <select>" w365:"minLength=1"`
	Values   []string `json:"values" jsonschema:"values or labels" w365:"minItems=1"`
}

// SelectOut counts selected options.
type SelectOut struct {
	browser.SelectResult
	in string // " in " and the ref with its name (refName) when the select was given by ref
}

func (o SelectOut) Text() string {
	return fmt.Sprintf("%d option(s) selected%s", o.Selected, o.in) + actionNotes(o.ActionResult)
}

// FillFormIn is browser_fill_form's input: W365 {selector, value} or PW {target, value, name, type}.
type FillFormIn struct {
	Fields []browser.FormField `json:"fields" jsonschema:"in order; target: ref or CSS; value: a string, or a boolean for checkboxes" w365:"minItems=1,maxItems=100"`
}

// FillFormOut says which fields were filled.
type FillFormOut struct{ browser.FillFormResult }

func (o FillFormOut) Text() string {
	s := fmt.Sprintf("%d of %d field(s) filled", o.Filled, len(o.Fields))
	for _, f := range o.Fields {
		if !f.OK {
			s += fmt.Sprintf("\nfield %d (%s): %s", f.Index, f.Selector, f.Error)
		}
	}
	return s + actionNotes(o.ActionResult)
}

// BrowserDragIn is browser_drag's input.
type BrowserDragIn struct {
	SourceSelector string `json:"sourceSelector" w365:"minLength=1"`
	TargetSelector string `json:"targetSelector" w365:"minLength=1"`
}

// TabIn picks a tab by index or id.
type TabIn struct {
	TabIndex *int   `json:"tabIndex,omitempty" jsonschema:"0-based" w365:"min=0"`
	TabID    string `json:"tabId,omitempty" jsonschema:"wins over tabIndex"`
}

// tabInstead: a TabIn names its tab by W365's tabIndex or by tabId.
var tabInstead = map[string][]string{"tabIndex": {"tabId"}}

func (in TabIn) ref() browser.TabRef { return browser.TabRef{Index: in.TabIndex, ID: in.TabID} }

// ListTabsIn is browser_list_tabs's input.
type ListTabsIn struct {
	TabID string `json:"tabId,omitempty"`
}

// TabsOut lists tabs.
type TabsOut struct {
	Tabs []browser.TabInfo `json:"tabs"`
}

func (o TabsOut) Text() string {
	var b strings.Builder
	for _, t := range o.Tabs {
		mark := " "
		if t.Active {
			mark = "*"
		}
		fmt.Fprintf(&b, "%s%d %s %q\n", mark, t.Index, t.URL, t.Title)
	}
	return strings.TrimRight(b.String(), "\n")
}

// TabOut is one tab.
type TabOut struct{ browser.TabInfo }

func (o TabOut) Text() string { return fmt.Sprintf("%d %s %q", o.Index, o.URL, o.Title) }

// NewTabIn is browser_new_tab's input.
type NewTabIn struct {
	URL string `json:"url,omitempty"`
}

// CreateTabsIn is browser_create_tabs's input.
type CreateTabsIn struct {
	URLs            []string `json:"urls" w365:"minItems=1,maxItems=50"`
	ForegroundIndex *int     `json:"foregroundIndex,omitempty" jsonschema:"index in urls to bring to the front" w365:"min=0"`
}

// CloseTabOut says what closed.
type CloseTabOut struct{ browser.CloseTabResult }

// CookiesIn is browser_get_cookies's input.
type CookiesIn struct {
	URLs []string `json:"urls,omitempty" jsonschema:"default: the current page"`
}

// CookiesOut lists cookies with values redacted.
type CookiesOut struct {
	Cookies []browser.Cookie `json:"cookies"`
}

func (o CookiesOut) Text() string {
	var b strings.Builder
	for _, c := range o.Cookies {
		fmt.Fprintf(&b, "%s=%s domain=%s path=%s httpOnly=%v secure=%v\n", c.Name, c.Value, c.Domain, c.Path, c.HTTPOnly, c.Secure)
	}
	if b.Len() == 0 {
		return "no cookies"
	}
	return strings.TrimRight(b.String(), "\n")
}

// SetCookiesIn is browser_set_cookies's input.
type SetCookiesIn struct {
	Cookies []browser.CookieInput `json:"cookies" jsonschema:"a past expires deletes" w365:"minItems=1,maxItems=100"`
}

// CountOut counts what a call did.
type CountOut struct {
	Count int `json:"count"`
}

// HandleDialogIn accepts both contracts: W365 action and PW accept.
type HandleDialogIn struct {
	Action     string `json:"action,omitempty" w365:"enum=accept|dismiss"`
	Accept     *bool  `json:"accept,omitempty" jsonschema:"alternative to action"`
	PromptText string `json:"promptText,omitempty" jsonschema:"answer to a prompt"`
}

// DialogOut reports the handled dialog.
type DialogOut struct{ browser.DialogResult }

func (o DialogOut) Text() string { return o.Message + actionNotes(o.ActionResult) }

// PDFIn is browser_pdf_save's input.
type PDFIn struct {
	FilePath  string `json:"filePath" jsonschema:"a name (output directory) or a path in Downloads or Documents" w365:"minLength=1"`
	Overwrite bool   `json:"overwrite,omitempty" w365:"default=false"`
}

// PDFOut is the saved file.
type PDFOut struct{ browser.PDFResult }

func (o PDFOut) Text() string { return fmt.Sprintf("%s (%d bytes)", o.Path, o.Bytes) }

// SavedPaths names the PDF: over MCP it is read back beneath its directory, as a download is.
func (o PDFOut) SavedPaths() []string { return []string{o.Path} }

// PageStateIn is browser_get_page_state's input.
type PageStateIn struct {
	Fields []string `json:"fields" jsonschema:"dom and screenshot can be large" w365:"enum=url|title|dom|screenshot|tabs,minItems=1"`
}

// PageStateOut holds only the fields asked for; a screenshot travels as image content.
type PageStateOut struct {
	browser.PageState
	HasScreenshot bool `json:"screenshot,omitempty"`
}

func (o PageStateOut) OutputImages() []tool.Image {
	if len(o.Screenshot) == 0 {
		return nil
	}
	return []tool.Image{{Data: o.Screenshot, MIMEType: "image/png"}}
}

// ConsoleIn is browser_console_messages's input.
type ConsoleIn struct {
	Level string `json:"level,omitempty" jsonschema:"this level and above" w365:"enum=debug|info|warning|error"`
	All   bool   `json:"all,omitempty" jsonschema:"not only those since the last call" w365:"default=false"`
	Clear bool   `json:"clear,omitempty" jsonschema:"forget them after returning" w365:"default=false"`
}

// ConsoleOut lists console messages (untrusted page content).
type ConsoleOut struct {
	Messages []browser.ConsoleMessage `json:"messages"`
}

func (o ConsoleOut) Text() string {
	var b strings.Builder
	for _, m := range o.Messages {
		fmt.Fprintf(&b, "[%s] %s\n", m.Level, m.Text)
	}
	if b.Len() == 0 {
		return "no console messages"
	}
	return strings.TrimRight(b.String(), "\n")
}

// NetworkIn is browser_network_requests's input.
type NetworkIn struct {
	URLContains  string `json:"urlContains,omitempty"`
	Method       string `json:"method,omitempty"`
	ResourceType string `json:"resourceType,omitempty" jsonschema:"Document, Script, XHR, Fetch, Image..."`
	FailedOnly   bool   `json:"failedOnly,omitempty" jsonschema:"network errors and status 400+" w365:"default=false"`
	SinceLast    bool   `json:"sinceLast,omitempty" w365:"default=false"`
	Clear        bool   `json:"clear,omitempty" jsonschema:"forget them after returning" w365:"default=false"`
}

// NetworkOut lists requests.
type NetworkOut struct {
	Requests []browser.NetworkRequest `json:"requests"`
}

func (o NetworkOut) Text() string {
	var b strings.Builder
	for _, r := range o.Requests {
		status := fmt.Sprint(r.Status)
		if r.Failed {
			status = "FAILED " + r.ErrorText
		}
		fmt.Fprintf(&b, "%s %s %s %s\n", r.Method, status, r.ResourceType, r.URL)
	}
	if b.Len() == 0 {
		return "no requests"
	}
	return strings.TrimRight(b.String(), "\n")
}

// DownloadsOut lists downloads.
type DownloadsOut struct {
	Downloads []browser.Download `json:"downloads"`
}

func (o DownloadsOut) SavedPaths() []string { return browser.CompletedPaths(o.Downloads) }

// nav adapts a history move (back, forward, reload) to a browser tool's handler.
func nav(f func(*browser.Browser, context.Context) (*browser.NavigateResult, error)) func(context.Context, *browser.Browser, None) (NavOut, error) {
	return func(ctx context.Context, b *browser.Browser, _ None) (NavOut, error) {
		r, err := deref(f(b, ctx))
		return NavOut{r}, err
	}
}

// BrowserNavigate is the tool browser_navigate (w365 browser navigate).
var BrowserNavigate = browserTool(tool.Tool{
	Name: "browser_navigate", Legacy: []string{"mcp_browser_navigate"}, Aliases: []string{"open", "goto"},
	Summary: "Open a URL in the active tab, wait for it to load; invalidates snapshot refs",
	Long: "Navigates the active tab (launching the browser on first use) and waits for waitUntil.\n" +
		"Returns the final URL, title and HTTP status. Navigation invalidates snapshot refs.",
	Example: "  $ w365 browser navigate https://example.com\n  $ w365 browser open http://localhost:8080 --wait-until networkidle0",
	Args:    []string{"url"}, Annotations: WebAct,
}, func(ctx context.Context, b *browser.Browser, in NavigateIn) (NavOut, error) {
	tool.Phase(ctx, "loading %.200s", in.URL)
	r, err := deref(b.Navigate(ctx, in.URL, browser.WaitUntil(in.WaitUntil)))
	return NavOut{r}, err
})

// BrowserBack is the tool browser_back (w365 browser back).
var BrowserBack = browserTool(tool.Tool{
	Name: "browser_back", Legacy: []string{"mcp_browser_back"},
	Summary: "Go back in the browser history", Long: "Like the Back button; waits for the page to settle.",
	Example: "  $ w365 browser back", Annotations: WebAct,
}, nav((*browser.Browser).Back))

// BrowserForward is the tool browser_forward (w365 browser forward).
var BrowserForward = browserTool(tool.Tool{
	Name: "browser_forward", Legacy: []string{"mcp_browser_forward"},
	Summary: "Go forward in the browser history", Long: "Like the Forward button; waits for the page to settle.",
	Example: "  $ w365 browser forward", Annotations: WebAct,
}, nav((*browser.Browser).Forward))

// BrowserReload is the tool browser_reload (w365 browser reload).
var BrowserReload = browserTool(tool.Tool{
	Name: "browser_reload", Legacy: []string{"mcp_browser_reload"},
	Summary: "Reload the page", Long: "Reloads the active tab and waits for it to load.",
	Example: "  $ w365 browser reload", Annotations: WebAct,
}, nav((*browser.Browser).Reload))

// BrowserGetURL is the tool browser_get_url (w365 browser get-url).
var BrowserGetURL = browserTool(tool.Tool{
	Name: "browser_get_url", Legacy: []string{"mcp_browser_get_url"}, Aliases: []string{"url"},
	Summary: "Read the active tab's URL", Long: "The URL of the page in the active tab.",
	Example: "  $ w365 browser get-url", Annotations: WebRead,
}, func(ctx context.Context, b *browser.Browser, _ None) (URLOut, error) {
	u, err := b.URL(ctx)
	return URLOut{u}, err
})

// BrowserGetTitle is the tool browser_get_title (w365 browser get-title).
var BrowserGetTitle = browserTool(tool.Tool{
	Name: "browser_get_title", Legacy: []string{"mcp_browser_get_title"}, Aliases: []string{"title"},
	Summary: "Read the active tab's title", Long: "The document title of the active tab.",
	Example: "  $ w365 browser get-title", Annotations: WebRead,
}, func(ctx context.Context, b *browser.Browser, _ None) (TitleOut, error) {
	t, err := b.Title(ctx)
	return TitleOut{t}, err
})

// BrowserGetText is the tool browser_get_text (w365 browser get-text).
var BrowserGetText = tool.Define(tool.Tool{
	Name: "browser_get_text", Legacy: []string{"mcp_browser_get_text"}, Aliases: []string{"text"},
	InText:  []string{"text"},
	Summary: "Read the page's visible text (at most 512 KB)",
	Long: "The page's and its frames' visible text (innerText), shadow roots too, closed ones too.\n" +
		"Cut at 512 KB on a UTF-8 boundary; truncated says so.",
	Example: "  $ w365 browser get-text", Annotations: WebRead,
}, func(ctx context.Context, env *tool.Env, _ None) (TextOut, error) {
	b, err := browserOf(ctx, env)
	if err != nil {
		return TextOut{}, err
	}
	r, err := deref(snapshot.PageText(ctx, b, env.Policy.PageTextBytes))
	return TextOut{r}, err
})

// BrowserGetHTML is the tool browser_get_html (w365 browser get-html).
var BrowserGetHTML = browserTool(tool.Tool{
	Name: "browser_get_html", Legacy: []string{"mcp_browser_get_html"}, Aliases: []string{"html"},
	InText:  []string{"text"},
	Summary: "Read the page's HTML (at most 512 KB)",
	Long:    "The serialized DOM of the page. Cut at 512 KB on a UTF-8 boundary; truncated says so.",
	Example: "  $ w365 browser get-html > page.html", Annotations: WebRead,
}, func(ctx context.Context, b *browser.Browser, _ None) (TextOut, error) {
	r, err := deref(b.HTML(ctx))
	return TextOut{r}, err
})

// BrowserClick is the tool browser_click (w365 browser click).
var BrowserClick = tool.Define(tool.Tool{
	Name: "browser_click", Legacy: []string{"mcp_browser_click"},
	Summary: "Click an element by snapshot ref or CSS selector",
	Long: "target (or selector) is " + targetDoc + ". Scrolls the element into\n" +
		"view, waits until it is visible, stable, enabled and not covered (OBSCURED otherwise), then\n" +
		"sends real mouse events at its centre, with button, doubleClick and modifiers, and waits for the\n" +
		"page to settle. A dialog the click opened comes back in the result.",
	Example: "  $ w365 browser click '#submit'\n  $ w365 browser click --target e5 --modifiers Shift",
	Args:    []string{"selector"}, Annotations: WebAct, Instead: map[string][]string{"selector": {"target"}},
}, func(ctx context.Context, env *tool.Env, in BrowserClickIn) (ActOut, error) {
	t, err := pickTarget(in.Selector, in.Target)
	if err != nil {
		return ActOut{}, err
	}
	b, err := browserOf(ctx, env)
	if err != nil {
		return ActOut{}, err
	}
	count := in.ClickCount
	if in.DoubleClick {
		count = 2
	}
	e, err := elementOf(ctx, env, b, t)
	if st, id, ref, ok := crossOriginRef(ctx, env, t, err); ok {
		// A ref inside a cross-origin iframe: the ref tools' way, same hit test.
		p, err := st.Click(ctx, b, id, ref, snapshot.ClickOptions{Button: in.Button, ClickCount: count, Modifiers: in.Modifiers})
		return ActOut{p.ActionResult}, err
	}
	if err != nil {
		return ActOut{}, err
	}
	r, err := deref(b.ClickWith(ctx, e, browser.ClickOptions{Button: in.Button, Count: count, Modifiers: in.Modifiers}))
	return ActOut{r}, err
})

// BrowserType is the tool browser_type (w365 browser type).
var BrowserType = tool.Define(tool.Tool{
	Name: "browser_type", Legacy: []string{"mcp_browser_type"},
	Summary: "Type into a form field by snapshot ref or CSS selector",
	Long: "target (or selector) is " + targetDoc + ". Focuses the element and\n" +
		"puts the text in as one insertText (input events, as Playwright's fill), or with slowly a real\n" +
		"key event per character; it replaces the value unless append is set (then at its end);\n" +
		"submit presses Enter afterwards.",
	Example: "  $ w365 browser type '#q' 'hello world'\n  $ w365 browser type --target e7 --text w365 --submit",
	Args:    []string{"selector", "text"}, Annotations: WebAct, Instead: map[string][]string{"selector": {"target"}},
}, func(ctx context.Context, env *tool.Env, in BrowserTypeIn) (ActOut, error) {
	t, err := pickTarget(in.Selector, in.Target)
	if err != nil {
		return ActOut{}, err
	}
	b, err := browserOf(ctx, env)
	if err != nil {
		return ActOut{}, err
	}
	e, err := elementOf(ctx, env, b, t)
	if st, id, ref, ok := crossOriginRef(ctx, env, t, err); ok {
		r, err := st.Type(ctx, b, id, ref, in.Text, snapshot.TypeOptions{Clear: !in.Append, Submit: in.Submit})
		return ActOut{browser.ActionResult{Dialog: r.Dialog}}, err
	}
	if err != nil {
		return ActOut{}, err
	}
	r, err := deref(b.Type(ctx, e, in.Text, browser.TypeOptions{Append: in.Append, Submit: in.Submit, Slowly: in.Slowly}))
	return ActOut{r}, err
})

// BrowserQueryText is the tool browser_query_text (w365 browser query-text).
var BrowserQueryText = browserTool(tool.Tool{
	Name: "browser_query_text", Legacy: []string{"mcp_browser_query_text"}, Aliases: []string{"query"},
	InText:  []string{"text"},
	Summary: "Read the text of the first element matching a CSS selector",
	Long:    "The text content of the first match; NOT_FOUND when nothing matches.",
	Example: "  $ w365 browser query-text h1", Args: []string{"selector"}, Annotations: WebRead,
}, func(ctx context.Context, b *browser.Browser, in SelectorIn) (TextOut, error) {
	r, err := deref(b.QueryText(ctx, browser.CSS(in.Selector)))
	return TextOut{r}, err
})

// BrowserWaitFor is the tool browser_wait_for (w365 browser wait-for).
var BrowserWaitFor = tool.Define(tool.Tool{
	Name: "browser_wait_for", Legacy: []string{"mcp_browser_wait_for"},
	Summary: "Wait for an element or text to appear, text to go, or a time (max 30 s)",
	Long: "Polls the page until selector matches (and is visible with visible), text appears or textGone\n" +
		"disappears, in every frame (cross-origin ones too) when no selector is given. time waits that\n" +
		"many seconds first. TIMEOUT after timeoutMs (default 5000, max 30000).",
	Example: "  $ w365 browser wait-for '#results' --visible\n  $ w365 browser wait-for --text 'Saved' --timeout-ms 10000",
	Args:    []string{"selector"}, Annotations: WebRead, Instead: map[string][]string{"selector": {"text", "textGone", "time"}},
}, func(ctx context.Context, env *tool.Env, in WaitForIn) (WaitForOut, error) {
	b, err := browserOf(ctx, env)
	if err != nil {
		return WaitForOut{}, err
	}
	start := time.Now()
	if in.Time > 0 {
		select {
		case <-time.After(time.Duration(in.Time * float64(time.Second))):
		case <-ctx.Done():
			return WaitForOut{}, werr.New(werr.Cancelled, "the wait was cancelled")
		}
		if in.Selector == "" && in.Text == "" && in.TextGone == "" {
			return WaitForOut{WaitResult: browser.WaitResult{ElapsedMs: time.Since(start).Milliseconds()}}, nil
		}
	}
	if in.Selector == "" {
		// Text through every frame, as the snapshot shows them.
		r, line, err := waitFrameText(ctx, env, b, in.Text, in.TextGone, in.TimeoutMs)
		if err != nil {
			return WaitForOut{}, err
		}
		r.ElapsedMs = time.Since(start).Milliseconds()
		return WaitForOut{r, line}, nil
	}
	r, err := deref(b.WaitFor(ctx, browser.WaitOptions{Selector: in.Selector, Text: in.Text, TextGone: in.TextGone, Visible: in.Visible, TimeoutMs: in.TimeoutMs}))
	if err == nil {
		r.ElapsedMs = time.Since(start).Milliseconds()
	}
	return WaitForOut{WaitResult: r}, err
})

// BrowserEvalJS is the tool browser_eval_js (w365 browser eval-js).
var BrowserEvalJS = browserTool(tool.Tool{
	Name: "browser_eval_js", Legacy: []string{"mcp_browser_eval_js"}, Aliases: []string{"eval"},
	Summary: "Evaluate a JavaScript expression in the page; the result is a string",
	Long: "The result always comes back as a string: strings as they are, objects as JSON. A thrown\n" +
		"exception is an error naming it.",
	Example: "  $ w365 browser eval-js 'document.title'\n  $ w365 browser eval 'JSON.stringify([...document.links].map(a => a.href))'",
	Args:    []string{"expression"}, Annotations: WebAct,
}, func(ctx context.Context, b *browser.Browser, in EvalJSIn) (EvalOut, error) {
	r, err := deref(b.EvalJS(ctx, in.Expression))
	return EvalOut{r}, err
})

// BrowserEvaluate is the tool browser_evaluate (w365 browser evaluate).
var BrowserEvaluate = tool.Define(tool.Tool{
	Name:    "browser_evaluate",
	Summary: "Run a JavaScript function in the page, optionally on an element",
	Long: "function is a function expression such as () => document.title; with target, the element\n" +
		"matching that selector is its argument (el => el.textContent). The result comes back as a string.",
	Example: "  $ w365 browser evaluate '() => location.href'\n  $ w365 browser evaluate 'el => el.value' --target '#email'",
	Args:    []string{"function"}, Annotations: WebAct,
}, func(ctx context.Context, env *tool.Env, in EvaluateIn) (EvalOut, error) {
	b, err := browserOf(ctx, env)
	if err != nil {
		return EvalOut{}, err
	}
	var el *browser.Element
	if in.Target != "" {
		e, err := elementOf(ctx, env, b, in.Target)
		if st, id, ref, ok := crossOriginRef(ctx, env, in.Target, err); ok {
			// A ref inside a cross-origin iframe: the ref tools' way.
			v, ar, err := st.Evaluate(ctx, b, id, ref, in.Function, time.Duration(env.Policy.BrowserWaitMaxMs)*time.Millisecond)
			r, err := deref(b.EvalResult(ar.Dialog, v, err))
			return EvalOut{r}, err
		}
		if err != nil {
			return EvalOut{}, err
		}
		el = &e
	}
	r, err := deref(b.Evaluate(ctx, in.Function, el))
	return EvalOut{r}, err
})

// BrowserRunCode is the tool browser_run_code (w365 browser run-code).
var BrowserRunCode = tool.Define(tool.Tool{
	Name:    "browser_run_code",
	Summary: "Run Playwright code against the active tab (sandboxed; off in read-only mode)",
	Long: "code is the body of an async function whose parameter page is a Playwright Page bound to the\n" +
		"session's active tab (return await page.title()), or a function async (page) => {...}. It\n" +
		"runs in a Node sidecar (playwright-core) inside bubblewrap: no files but a scratch directory,\n" +
		"no network but the page's browser, reached through an allowlist of what Playwright's page,\n" +
		"locator and evaluation APIs send (anything else is BLOCKED_BY_POLICY, naming the method):\n" +
		"cookies cannot be read, files cannot be set from host paths, downloads land in the session's\n" +
		"download directory, and the browser refuses file:, chrome: and devtools: URLs. The returned\n" +
		"value must be JSON-serialisable and within the response limit. Not\n" +
		"idempotent: after a TIMEOUT or an error, observe the page before running it again. Needs\n" +
		"Node.js 20+ (w365 doctor); the policy's browserRunCode turns it off.",
	Example:     "  $ w365 browser run-code 'return await page.title()'\n  $ w365 browser run-code \"await page.getByRole('button', {name: 'Go'}).click(); return page.url()\"",
	Args:        []string{"code"},
	Annotations: tool.Annotations{ReadOnly: tool.No, Destructive: tool.Yes, Idempotent: tool.No, OpenWorld: tool.Yes},
}, func(ctx context.Context, env *tool.Env, in RunCodeIn) (RunCodeOut, error) {
	if !env.Policy.BrowserRunCode {
		return RunCodeOut{}, werr.New(werr.BlockedByPolicy, "browser_run_code is turned off by the policy (browserRunCode)").WithRetryable(false)
	}
	b, err := browserOf(ctx, env)
	if err != nil {
		return RunCodeOut{}, err
	}
	r, err := b.RunCode(ctx, in.Code, in.TimeoutMs)
	if err != nil {
		return RunCodeOut{}, err
	}
	return RunCodeOut{Result: string(r.Value), Bytes: r.Bytes}, nil
})

// BrowserScreenshot is the tool browser_screenshot (w365 browser screenshot).
var BrowserScreenshot = browserTool(tool.Tool{
	Name: "browser_screenshot", Legacy: []string{"mcp_browser_screenshot"},
	Summary: "Capture the browser viewport as PNG",
	Long:    "Captures only the page viewport of the active tab, not the whole screen.",
	Example: "  $ w365 browser screenshot -o page.png", Annotations: WebRead,
}, func(ctx context.Context, b *browser.Browser, _ None) (PageImageOut, error) {
	return pageShot(ctx, b, browser.ScreenshotOptions{})
})

// BrowserTakeScreenshot is the tool browser_take_screenshot (w365 browser take-screenshot).
var BrowserTakeScreenshot = tool.Define(tool.Tool{
	Name:    "browser_take_screenshot",
	Summary: "Capture the page, an element or the full page as PNG or JPEG",
	Long: "Visual evidence, not a way to choose targets (use browser_snapshot or browser_find). type jpeg\n" +
		"is smaller; target captures one element; fullPage the whole page.",
	Example:     "  $ w365 browser take-screenshot --type jpeg -o page.jpg\n  $ w365 browser take-screenshot --target '#chart' -o chart.png",
	Annotations: WebRead,
}, func(ctx context.Context, env *tool.Env, in BrowserShotIn) (PageImageOut, error) {
	b, err := browserOf(ctx, env)
	if err != nil {
		return PageImageOut{}, err
	}
	so := browser.ScreenshotOptions{FullPage: in.FullPage, Format: in.Type}
	if in.Target != "" {
		e, err := elementOf(ctx, env, b, in.Target)
		if st, id, ref, ok := crossOriginRef(ctx, env, in.Target, err); ok {
			// A ref inside a cross-origin iframe: its box in the tab's viewport.
			box, err := st.Box(ctx, b, id, ref)
			if err != nil {
				return PageImageOut{}, err
			}
			so.Area = &box
		} else if err != nil {
			return PageImageOut{}, err
		} else {
			so.Element = &e
		}
	}
	return pageShot(ctx, b, so)
})

// BrowserSelectOption is the tool browser_select_option (w365 browser select-option).
var BrowserSelectOption = tool.Define(tool.Tool{
	Name: "browser_select_option", Legacy: []string{"mcp_browser_select_option"}, Aliases: []string{"select"},
	Summary: "Select options of a select element by value or label",
	Long:    "Selects the options whose value (or label) is in values and fires input and change events.",
	Example: "  $ w365 browser select-option '#country' fr\n  $ w365 browser select '#tags' --values a --values b",
	Args:    []string{"selector", "values"}, Annotations: WebAct,
}, func(ctx context.Context, env *tool.Env, in SelectOptionIn) (SelectOut, error) {
	b, err := browserOf(ctx, env)
	if err != nil {
		return SelectOut{}, err
	}
	e, err := elementOf(ctx, env, b, in.Selector)
	st, id, ref, oop := crossOriginRef(ctx, env, in.Selector, err)
	if err != nil && !oop {
		return SelectOut{}, err
	}
	where := ""
	if st, serr := snapshotsOf(env); serr == nil {
		if id, ref, isRef, rerr := st.ResolveTarget(ctx, "", in.Selector); isRef && rerr == nil {
			where = " in " + ref + refName(ctx, st, id, ref)
		}
	}
	if oop {
		// A ref inside a cross-origin iframe: the ref tools' way.
		r, err := st.Select(ctx, b, id, ref, in.Values)
		return SelectOut{r, where}, err
	}
	r, err := deref(b.SelectOption(ctx, e, in.Values))
	return SelectOut{r, where}, err
})

// BrowserFillForm is the tool browser_fill_form (w365 browser fill-form).
var BrowserFillForm = tool.Define(tool.Tool{
	Name: "browser_fill_form", Legacy: []string{"mcp_browser_fill_form"}, Aliases: []string{"fill"},
	Summary: "Fill several form fields in one call, stopping at the first failure",
	Long: "Each field is {selector, value}: text inputs and textareas get the text, checkboxes and radios\n" +
		"a boolean, selects an option value. Reports which fields were filled and which failed.",
	Example:     "  $ w365 browser fill-form --fields '[{\"selector\":\"#name\",\"value\":\"Ada\"},{\"selector\":\"#agree\",\"value\":true}]'",
	Annotations: WebAct,
}, func(ctx context.Context, env *tool.Env, in FillFormIn) (FillFormOut, error) {
	b, err := browserOf(ctx, env)
	if err != nil {
		return FillFormOut{}, err
	}
	// A field behind a ref in an out-of-process frame is filled the ref tools' way;
	// the runs of fields between such fields go to the engine in one call each.
	type oopField struct {
		st      *snapshot.Store
		id, ref string
	}
	oop := map[int]oopField{}
	for i, f := range in.Fields {
		if t := cmp.Or(f.Selector, f.Target); t != "" {
			e, err := elementOf(ctx, env, b, t)
			if st, id, ref, ok := crossOriginRef(ctx, env, t, err); ok {
				oop[i] = oopField{st, id, ref}
				continue
			}
			if err != nil {
				return FillFormOut{}, werr.As(err).WithDetail("failedIndex", i)
			}
			in.Fields[i].Element = &e
		}
	}
	if len(oop) == 0 {
		r, err := b.FillForm(ctx, in.Fields)
		if r == nil {
			return FillFormOut{}, err
		}
		// A partial fill returns its progress together with the error.
		return FillFormOut{*r}, err
	}
	out := FillFormOut{browser.FillFormResult{Fields: []browser.FieldResult{}}}
	for i := 0; i < len(in.Fields); {
		if of, ok := oop[i]; ok {
			fr := browser.FieldResult{Index: i, Selector: cmp.Or(in.Fields[i].Selector, in.Fields[i].Target)}
			d, err := of.st.Fill(ctx, b, of.id, of.ref, in.Fields[i].Value)
			if err != nil {
				fr.Error = werr.As(err).Message
				out.Fields = append(out.Fields, fr)
				return out, werr.As(err).WithDetail("filled", out.Filled).WithDetail("failedIndex", i)
			}
			fr.OK = true
			out.Filled++
			out.Fields = append(out.Fields, fr)
			if out.Dialog = d; d != nil {
				return out, nil
			}
			i++
			continue
		}
		j := i + 1
		for ; j < len(in.Fields); j++ {
			if _, isOOP := oop[j]; isOOP {
				break
			}
		}
		r, err := b.FillForm(ctx, in.Fields[i:j])
		if r != nil {
			for _, fr := range r.Fields {
				fr.Index += i
				out.Fields = append(out.Fields, fr)
			}
			out.Filled += r.Filled
			out.ActionResult = r.ActionResult
		}
		if err != nil {
			failed := i
			if r != nil && len(r.Fields) > 0 {
				failed += len(r.Fields) - 1
			}
			return out, werr.As(err).WithDetail("filled", out.Filled).WithDetail("failedIndex", failed)
		}
		if out.Dialog != nil {
			return out, nil
		}
		i = j
	}
	return out, nil
})

// BrowserDrag is the tool browser_drag (w365 browser drag).
var BrowserDrag = tool.Define(tool.Tool{
	Name: "browser_drag", Legacy: []string{"mcp_browser_drag"},
	Summary: "Drag an element (ref or CSS) onto another; HTML5 drag and drop works",
	Long: "Drags sourceSelector onto targetSelector (the first match of each), each\n" +
		targetDoc + ".",
	Example:     "  $ w365 browser drag --source-selector '#card' --target-selector '#done'\n  $ w365 browser drag --source-selector e4 --target-selector e2",
	Annotations: WebAct,
}, func(ctx context.Context, env *tool.Env, in BrowserDragIn) (ActOut, error) {
	b, err := browserOf(ctx, env)
	if err != nil {
		return ActOut{}, err
	}
	src, err := elementOf(ctx, env, b, in.SourceSelector)
	if err == nil {
		var dst browser.Element
		if dst, err = elementOf(ctx, env, b, in.TargetSelector); err == nil {
			r, err := deref(b.Drag(ctx, src, dst))
			return ActOut{r}, err
		}
	}
	if werr.CodeOf(err) != werr.Unsupported {
		return ActOut{}, err
	}
	// A ref inside a cross-origin frame: both must be refs, dragged by their snapshot.
	st, err := snapshotsOf(env)
	if err != nil {
		return ActOut{}, err
	}
	refOf := func(target string) (string, string, error) {
		id, ref, isRef, err := st.ResolveTarget(ctx, "", target)
		if err == nil && !isRef {
			err = werr.Invalid("a ref inside a cross-origin frame is dragged onto a ref, and from one: %q is not a ref", target)
		}
		return id, ref, err
	}
	fromID, from, err := refOf(in.SourceSelector)
	if err != nil {
		return ActOut{}, err
	}
	toID, to, err := refOf(in.TargetSelector)
	if err != nil {
		return ActOut{}, err
	}
	r, err := st.Drag(ctx, b, fromID, from, toID, to)
	return ActOut{r.ActionResult}, err
})

// BrowserListTabs is the tool browser_list_tabs (w365 browser list-tabs).
var BrowserListTabs = browserTool(tool.Tool{
	Name: "browser_list_tabs", Legacy: []string{"mcp_browser_list_tabs"}, Aliases: []string{"tabs"},
	Summary: "List the open tabs", Long: "Every tab with index, id, URL, title and whether it is active.",
	Example: "  $ w365 browser list-tabs", Annotations: WebRead,
}, func(ctx context.Context, b *browser.Browser, in ListTabsIn) (TabsOut, error) {
	tabs, err := b.ListTabs(ctx)
	if err != nil {
		return TabsOut{}, err
	}
	out := TabsOut{Tabs: []browser.TabInfo{}}
	for _, t := range tabs {
		if in.TabID == "" || t.ID == in.TabID {
			out.Tabs = append(out.Tabs, t)
		}
	}
	return out, nil
})

// BrowserSwitchTab is the tool browser_switch_tab (w365 browser switch-tab).
var BrowserSwitchTab = browserTool(tool.Tool{
	Name: "browser_switch_tab", Legacy: []string{"mcp_browser_switch_tab"},
	Summary: "Make a tab active by index or id", Long: "The tab comes to the front and later browser tools act on it.",
	Example: "  $ w365 browser switch-tab 1\n  $ w365 browser switch-tab --tab-id 8F3A...", Args: []string{"tabIndex"}, Annotations: WebSet,
	Instead: tabInstead,
}, func(ctx context.Context, b *browser.Browser, in TabIn) (TabOut, error) {
	r, err := deref(b.SwitchTab(ctx, in.ref()))
	return TabOut{r}, err
})

// BrowserNewTab is the tool browser_new_tab (w365 browser new-tab).
var BrowserNewTab = browserTool(tool.Tool{
	Name: "browser_new_tab", Legacy: []string{"mcp_browser_new_tab"},
	Summary: "Open a new tab, optionally at a URL", Long: "Opens a tab, makes it active and returns {index, title, url}.",
	Example: "  $ w365 browser new-tab https://example.com", Args: []string{"url"}, Annotations: WebAct,
}, func(ctx context.Context, b *browser.Browser, in NewTabIn) (TabOut, error) {
	r, err := deref(b.NewTab(ctx, in.URL))
	return TabOut{r}, err
})

// BrowserCreateTabs is the tool browser_create_tabs (w365 browser create-tabs).
var BrowserCreateTabs = browserTool(tool.Tool{
	Name:    "browser_create_tabs",
	Summary: "Open several tabs in order",
	Long:    "One tab per URL in the given order. Without foregroundIndex the active tab stays active.",
	Example: "  $ w365 browser create-tabs https://a.example https://b.example --foreground-index 1",
	Args:    []string{"urls"}, Annotations: WebAct,
}, func(ctx context.Context, b *browser.Browser, in CreateTabsIn) (TabsOut, error) {
	tabs, err := b.CreateTabs(ctx, in.URLs, in.ForegroundIndex)
	return TabsOut{tabs}, err
})

// BrowserCloseTab is the tool browser_close_tab (w365 browser close-tab).
var BrowserCloseTab = browserTool(tool.Tool{
	Name: "browser_close_tab", Legacy: []string{"mcp_browser_close_tab"},
	Summary: "Close a tab by index or id", Long: "Closes the tab; another becomes active when it was the active one.",
	Example: "  $ w365 browser close-tab 2", Args: []string{"tabIndex"}, Annotations: tool.Annotations{ReadOnly: tool.No, Destructive: tool.Yes, Idempotent: tool.No, OpenWorld: tool.Yes},
	Instead: tabInstead,
}, func(ctx context.Context, b *browser.Browser, in TabIn) (CloseTabOut, error) {
	r, err := deref(b.CloseTab(ctx, in.ref()))
	return CloseTabOut{r}, err
})

// BrowserGetCookies is the tool browser_get_cookies (w365 browser get-cookies).
var BrowserGetCookies = browserTool(tool.Tool{
	Name: "browser_get_cookies", Aliases: []string{"cookies"},
	Summary:     "List cookies (values redacted)",
	Long:        "Names, domains, paths, expiry and flags of the current page's cookies, or of urls. Values are never returned.",
	Example:     "  $ w365 browser get-cookies\n  $ w365 browser get-cookies --urls https://example.com",
	Annotations: WebRead,
}, func(ctx context.Context, b *browser.Browser, in CookiesIn) (CookiesOut, error) {
	cs, err := b.GetCookies(ctx, in.URLs)
	if cs == nil {
		cs = []browser.Cookie{}
	}
	return CookiesOut{cs}, err
})

// BrowserSetCookies is the tool browser_set_cookies (w365 browser set-cookies).
var BrowserSetCookies = browserTool(tool.Tool{
	Name:    "browser_set_cookies",
	Summary: "Add or overwrite cookies (never clears others)",
	Long: "Sets each cookie on the current page's domain unless url or domain says otherwise. To delete\n" +
		"one, overwrite it with an expires in the past.",
	Example:     "  $ w365 browser set-cookies --cookies '[{\"name\":\"lang\",\"value\":\"en\"}]'",
	Annotations: WebSet,
}, func(ctx context.Context, b *browser.Browser, in SetCookiesIn) (CountOut, error) {
	n, err := b.SetCookies(ctx, in.Cookies)
	return CountOut{n}, err
})

// BrowserHandleDialog is the tool browser_handle_dialog (w365 browser handle-dialog).
var BrowserHandleDialog = browserTool(tool.Tool{
	Name: "browser_handle_dialog", Legacy: []string{"mcp_browser_handle_dialog"}, Aliases: []string{"dialog"},
	Summary: "Accept or dismiss the pending alert, confirm, prompt or beforeunload dialog",
	Long: "action accept|dismiss (or accept true|false); promptText answers a prompt when accepting.\n" +
		"With no dialog pending the result says \"No pending dialog\".",
	Example:     "  $ w365 browser handle-dialog --action accept\n  $ w365 browser dialog --action accept --prompt-text 'Ada'",
	Annotations: WebAct, Instead: map[string][]string{"action": {"accept"}},
}, func(ctx context.Context, b *browser.Browser, in HandleDialogIn) (DialogOut, error) {
	var accept bool
	switch {
	case in.Action != "" && in.Accept != nil:
		return DialogOut{}, werr.Invalid("give action or accept, not both")
	case in.Action != "":
		accept = in.Action == "accept"
	case in.Accept != nil:
		accept = *in.Accept
	default:
		return DialogOut{}, werr.Invalid("give action (accept or dismiss) or accept (true or false)")
	}
	r, err := deref(b.HandleDialog(ctx, accept, in.PromptText))
	return DialogOut{r}, err
})

// BrowserPDFSave is the tool browser_pdf_save (w365 browser pdf-save).
var BrowserPDFSave = browserTool(tool.Tool{
	Name: "browser_pdf_save", Legacy: []string{"mcp_browser_pdf_save"}, Aliases: []string{"pdf"},
	Summary: "Save the page as PDF in the output directory, Downloads or Documents",
	Long: "Prints the page to PDF at filePath. A relative path is in the session's output directory\n" +
		"(where downloads go too); an absolute or ~/ path must lie under Downloads or Documents once\n" +
		"symlinks are resolved. No hidden (dot) files or directories; an existing file is replaced only\n" +
		"with overwrite.",
	Example: "  $ w365 browser pdf-save page.pdf\n  $ w365 browser pdf-save ~/Documents/page.pdf --overwrite", Args: []string{"filePath"},
	Annotations: WebSet,
}, func(ctx context.Context, b *browser.Browser, in PDFIn) (PDFOut, error) {
	r, err := deref(b.PDFSave(ctx, in.FilePath, in.Overwrite))
	return PDFOut{r}, err
})

// BrowserGetPageState is the tool browser_get_page_state (w365 browser get-page-state).
var BrowserGetPageState = browserTool(tool.Tool{
	Name: "browser_get_page_state", Aliases: []string{"state"},
	Summary: "Read url, title, dom, screenshot and tabs in one call",
	Long:    "Returns only the fields asked for; dom (512 KB cap) and screenshot can be large.",
	Example: "  $ w365 browser get-page-state url title tabs", Args: []string{"fields"}, Annotations: WebRead,
}, func(ctx context.Context, b *browser.Browser, in PageStateIn) (PageStateOut, error) {
	r, err := deref(b.PageState(ctx, in.Fields))
	return PageStateOut{PageState: r, HasScreenshot: len(r.Screenshot) > 0}, err
})

// BrowserConsoleMessages is the tool browser_console_messages (w365 browser console-messages).
var BrowserConsoleMessages = browserTool(tool.Tool{
	Name: "browser_console_messages", Aliases: []string{"console"},
	Summary: "Read console messages since the last call (page content: untrusted)",
	Long: "Console output of every level, uncaught exceptions and browser log entries, kept by the host\n" +
		"between calls. By default only messages since the previous call are returned.",
	Example:     "  $ w365 browser console-messages --level error\n  $ w365 browser console --all",
	Annotations: tool.Annotations{ReadOnly: tool.Yes, Destructive: tool.No, Idempotent: tool.No, OpenWorld: tool.Yes},
}, func(ctx context.Context, b *browser.Browser, in ConsoleIn) (ConsoleOut, error) {
	ms, err := b.ConsoleMessages(browser.ConsoleQuery{Level: in.Level, All: in.All, Clear: in.Clear})
	if ms == nil {
		ms = []browser.ConsoleMessage{}
	}
	return ConsoleOut{ms}, err
})

// BrowserNetworkRequests is the tool browser_network_requests (w365 browser network-requests).
var BrowserNetworkRequests = browserTool(tool.Tool{
	Name: "browser_network_requests", Aliases: []string{"network"},
	Summary:     "List the page's network requests, with status and failures",
	Long:        "Requests of every tab kept by the host between calls, filtered as asked.",
	Example:     "  $ w365 browser network-requests --failed-only\n  $ w365 browser network --url-contains /api/",
	Annotations: tool.Annotations{ReadOnly: tool.Yes, Destructive: tool.No, Idempotent: tool.No, OpenWorld: tool.Yes},
}, func(ctx context.Context, b *browser.Browser, in NetworkIn) (NetworkOut, error) {
	rs := b.NetworkRequests(browser.NetworkQuery{URLContains: in.URLContains, Method: in.Method, ResourceType: in.ResourceType,
		FailedOnly: in.FailedOnly, SinceLast: in.SinceLast, Clear: in.Clear})
	if rs == nil {
		rs = []browser.NetworkRequest{}
	}
	return NetworkOut{rs}, nil
})

// BrowserDownloads is the tool browser_downloads (w365 browser downloads).
var BrowserDownloads = browserTool(tool.Tool{
	Name:    "browser_downloads",
	Summary: "List downloads with state and saved path",
	Long:    "Downloads started by any page of the session, saved in the session's download directory.",
	Example: "  $ w365 browser downloads", Annotations: WebRead,
}, func(ctx context.Context, b *browser.Browser, _ None) (DownloadsOut, error) {
	ds := b.Downloads()
	if ds == nil {
		ds = []browser.Download{}
	}
	return DownloadsOut{ds}, nil
})
