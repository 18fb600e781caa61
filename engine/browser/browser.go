// Package browser drives one Chromium-family browser per session over the Chrome
// DevTools Protocol: its lifecycle (launch, crash detection, relaunch), its tabs,
// navigation, page reading, CSS-selector actions with real input events, dialogs,
// cookies, PDF, and the console, network and download logs of the session.
//
// A *Browser is safe for concurrent use. Page operations of one Browser run one
// at a time (in call order); state queries (logs, dialogs, downloads, tabs) and
// HandleDialog never wait behind them. The browser process is started by this
// package (not by chromedp), so that it is supervised: when it dies, the call in
// flight fails with BROWSER_CRASHED (retryable) or, when none was in flight, the
// next call does; the call after that starts a fresh browser.
//
// Elements are named by an Element: a CSS selector (CSS) or a DOM backend node
// id from an accessibility snapshot (Node). Every element action scrolls the
// element into view, waits until it is visible, stable and enabled, and sends
// real input events. After an action the page is given time to settle: a
// navigation the action started is waited for, then a short quiet DOM window.
// No wait hangs on a JavaScript dialog: an action that opens one reports it in
// its result (Dialog), and while a dialog is pending other page operations fail
// with DIALOG_PENDING until HandleDialog is called.
package browser

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/chromedp/cdproto"
	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/target"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/remote"

	"github.com/w365/w365/engine/child"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

// DialogPending is the error code of a page operation refused because a
// JavaScript dialog is open; answer it with HandleDialog.
const DialogPending = werr.DialogPending

// Options configures a Browser.
type Options struct {
	// Env is the environment of the browser process: the session desktop's
	// DISPLAY, DBUS_SESSION_BUS_ADDRESS and accessibility switches. Nil means
	// os.Environ().
	Env []string
	// StateDir is a private directory (0700) of the host: an empty ProfileDir is
	// made inside it. No PDF or download is written inside it. Empty means the
	// user's cache directory.
	StateDir string
	// ProfileDir is the user data directory. Empty means a new directory in
	// StateDir that Close removes.
	ProfileDir string
	// DownloadDir is the session's output directory: downloads land in it and a
	// relative PDF path resolves against it. Empty means a new directory in the
	// temporary directory (kept after Close: it holds the user's files).
	DownloadDir string
	// HomeDir and TmpDir are the session's HOME and /tmp (docs/sessions.md#files): the
	// reference's %USERPROFILE% and %TEMP% in a path name them, and files may be saved
	// under them. Empty: neither is known.
	HomeDir, TmpDir string
	// UserDirs are the person's folders (UserDirs, by XDG name) files may be saved in
	// and set on a file input from: all of them where the session acts as the person, in
	// a virtual session only those a workspace root of the policy holds
	// (docs/security.md#boundaries). Empty: none.
	UserDirs map[string]string
	// Headless runs the browser without a window. The default is headful on the
	// display named by Env.
	Headless bool
	// WindowWidth and WindowHeight size a headful browser's window (the session's
	// screen, which a window manager's "maximized" does not reliably give); zero
	// starts it maximized.
	WindowWidth, WindowHeight int
	// Executable is the browser binary. Empty means what Find picks for Env:
	// $W365_BROWSER, else Edge, Chrome or Chromium.
	Executable string
	// RendererAccessibility is how much of the page the browser exposes to the
	// desktop accessibility tree: "basic" (default: roles, names, bounds),
	// "complete" (adds inline text boxes; slow on big pages) or "off".
	RendererAccessibility string
	// ExtraArgs are appended to the browser command line.
	ExtraArgs []string
	// CDPEndpoint attaches to a running browser (ws://host:port/devtools/browser/ID
	// or http://host:port) instead of launching one. Close then only disconnects.
	CDPEndpoint string
	// AllowFileURLs lets Navigate open file: URLs (blocked by default).
	AllowFileURLs bool
	// BlockedOrigins are origins the browser refuses besides the schemes lockdown.go blocks:
	// the host's own HTTP listeners, nothing of which is for a session's pages.
	BlockedOrigins []string
	// Policy supplies the limits; nil means policy.Default().
	Policy *policy.Policy
	// LaunchTimeout bounds the start of the browser; zero means 30 s.
	LaunchTimeout time.Duration
	// Confine, when set, rewrites the browser's command to run inside the session's
	// confinement (sandbox.Runner.Confine), showing it binds (its profile) besides the
	// session's files; release runs right after the start, done once the browser is gone.
	Confine func(cmd *exec.Cmd, binds []string) (release, done func(), err error)
}

// Browser is one session's browser. See the package documentation.
type Browser struct {
	opts Options
	pol  *policy.Policy

	launchMu sync.Mutex // held while launching or closing
	opMu     opLock     // serialises page operations

	mu         sync.Mutex // protects everything below and the mutable fields of tabs
	changed    chan struct{}
	inst       *instance
	closed     bool
	ownProfile bool
	ownOutput  bool // the output directory is the browser's own: Close removes it when empty
	crashGen   int  // generation of a crash not yet reported to a caller (0: none)

	console       []ConsoleMessage
	consoleSeq    int64
	consoleCursor int64
	network       []*NetworkRequest
	netSeq        int64
	netCursor     int64
	netByID       map[string]*NetworkRequest
	downloads     []*Download
	dlByGUID      map[string]*Download
	dialogSeq     int64
	dialogLog     []*Dialog        // the newest dialogs, for the callers not told yet (callers.go)
	dialogTold    map[string]int64 // each caller's newest dialog heard of

	runcode runcodeState

	uploadDir string // made by UploadDir, removed by Close
}

// instance is one running (or attached) browser process.
type instance struct {
	gen         int
	cmd         *exec.Cmd
	pid         int
	allocCancel context.CancelFunc
	root        context.Context
	rootCancel  context.CancelFunc
	dead        chan struct{}
	reaped      chan struct{} // the process was waited for; dead may close first, when the DevTools connection drops
	deadOnce    sync.Once
	killed      atomic.Bool // we killed it on purpose (Close)
	wsURL       string      // "" for a browser driven over the pipe
	mux         *cdpMux     // the pipe shared with the run_code proxy; nil for an attached browser
	logPath     string

	tabs   []*tab
	byID   map[target.ID]*tab
	active *tab // the front tab: the one last shown, by any caller or by the page
	// callerTabs are the callers' own tabs (callers.go).
	callerTabs map[string]*tab
}

var generation struct {
	sync.Mutex
	n int
}

// Launch starts the browser (or attaches to CDPEndpoint) and returns it once
// its first tab is ready. Call it on the first browser tool of a session.
func Launch(ctx context.Context, opts Options) (*Browser, error) {
	b := &Browser{opts: opts, pol: opts.Policy, changed: make(chan struct{}), opMu: newOpLock(),
		netByID: map[string]*NetworkRequest{}, dlByGUID: map[string]*Download{}}
	if b.pol == nil {
		b.pol = policy.Default()
	}
	switch b.opts.RendererAccessibility {
	case "", "basic", "complete", "off":
	default:
		return nil, werr.Invalid("renderer accessibility must be basic, complete or off")
	}
	if b.opts.LaunchTimeout <= 0 {
		b.opts.LaunchTimeout = 30 * time.Second
	}
	if b.opts.CDPEndpoint == "" {
		if _, err := b.executable(); err != nil {
			return nil, err
		}
	}
	if b.opts.ProfileDir == "" && b.opts.CDPEndpoint == "" {
		if b.opts.StateDir == "" {
			cache, err := os.UserCacheDir()
			if err != nil {
				return nil, werr.Wrap(err, werr.Internal, "no private directory for the browser profile")
			}
			b.opts.StateDir = filepath.Join(cache, "w365")
		}
		if err := os.MkdirAll(b.opts.StateDir, 0o700); err != nil {
			return nil, werr.Wrap(err, werr.Internal, "cannot create the browser profile directory")
		}
		dir, err := os.MkdirTemp(b.opts.StateDir, "browser-")
		if err != nil {
			return nil, werr.Wrap(err, werr.Internal, "cannot create a browser profile directory")
		}
		// Without symbolic links: a confined browser's profile is shown through an idmapped
		// mount on a root host, which follows none (docs/security.md#confinement).
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		b.opts.ProfileDir = dir
		b.ownProfile = true
	}
	if b.opts.DownloadDir == "" {
		dir, err := os.MkdirTemp("", "w365-output-")
		if err != nil {
			return nil, werr.Wrap(err, werr.Internal, "cannot create the output directory")
		}
		b.opts.DownloadDir = dir
		b.ownOutput = true
	}
	if err := os.MkdirAll(b.opts.DownloadDir, 0o700); err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot create the download directory")
	}
	if _, err := b.ensure(ctx); err != nil {
		b.Close()
		return nil, err
	}
	return b, nil
}

// UploadDir is a private directory (0700, in StateDir, else the temporary directory) that
// Close removes: the copies of files set on a file input are staged in it, so that the
// browser reads only what the host copied through a checked handle
// (snapshot.StageFiles), never a path a session could swap meanwhile.
func (b *Browser) UploadDir() (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.uploadDir != "" {
		return b.uploadDir, nil
	}
	parent := b.opts.StateDir
	if b.opts.Confine != nil {
		// A confined browser sees its profile (bound in) and nothing else of the host's;
		// never the session's /tmp, where a sandbox could swap the staging directory.
		parent = b.opts.ProfileDir
	}
	dir, err := os.MkdirTemp(parent, "uploads-")
	if err != nil {
		return "", werr.Wrap(err, werr.Internal, "cannot create the upload staging directory")
	}
	b.uploadDir = dir
	return dir, nil
}

// DownloadDir is the session's output directory: downloads are saved in it.
func (b *Browser) DownloadDir() string { return b.opts.DownloadDir }

// ProfileDir is the browser's user data directory ("" for an attached browser).
func (b *Browser) ProfileDir() string { return b.opts.ProfileDir }

// PID is the process id of the running browser, or 0 (not running, or attached).
func (b *Browser) PID() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inst == nil || b.inst.cmd == nil {
		return 0
	}
	return b.inst.pid
}

// Endpoint is the DevTools WebSocket URL of an attached browser (Options.CDPEndpoint).
// A browser this package launches is driven over a private pipe and has none: "".
func (b *Browser) Endpoint() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inst == nil || b.inst.isDead() {
		return ""
	}
	return b.inst.wsURL
}

// Close stops the browser (the whole process group) and frees the session's
// browser state. An attached browser is only disconnected. Close is idempotent.
func (b *Browser) Close() error {
	b.launchMu.Lock()
	defer b.launchMu.Unlock()
	b.mu.Lock()
	b.closed = true
	inst := b.inst
	b.inst = nil
	b.notifyLocked()
	b.mu.Unlock()
	b.runcode.mu.Lock()
	if b.runcode.sc != nil {
		b.runcode.sc.kill()
		b.runcode.sc = nil
	}
	b.runcode.mu.Unlock()
	if inst != nil {
		inst.stop()
	}
	b.mu.Lock()
	up := b.uploadDir
	b.uploadDir = ""
	b.mu.Unlock()
	if up != "" {
		os.RemoveAll(up)
	}
	if b.ownOutput {
		os.Remove(b.opts.DownloadDir) // kept when something was downloaded
	}
	if b.ownProfile {
		for range 5 {
			if os.RemoveAll(b.opts.ProfileDir) == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	return nil
}

func (inst *instance) stop() {
	inst.killed.Store(true)
	if inst.cmd != nil && inst.pid > 0 {
		_ = child.KillGroup(inst.cmd)
		select {
		case <-inst.reaped:
		case <-time.After(5 * time.Second):
		}
	}
	inst.markDead()
	inst.rootCancel()
	inst.allocCancel()
}

func (inst *instance) markDead() {
	inst.deadOnce.Do(func() { close(inst.dead) })
}

func (inst *instance) isDead() bool {
	select {
	case <-inst.dead:
		return true
	default:
		return false
	}
}

// notifyLocked wakes every waiter; b.mu must be held.
func (b *Browser) notifyLocked() {
	close(b.changed)
	b.changed = make(chan struct{})
}

func (b *Browser) crashedError() *werr.Error {
	return werr.New(werr.BrowserCrashed, "the browser process exited; the outcome of the call is unknown").
		WithHint("retry: the next call starts a fresh browser (tabs and page state were lost)")
}

// ensure returns the live instance, launching one when there is none. A crash
// not yet reported to anybody is reported here once.
func (b *Browser) ensure(ctx context.Context) (*instance, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, werr.New(werr.Unavailable, "the browser was closed").WithRetryable(false)
	}
	if inst := b.inst; inst != nil && !inst.isDead() {
		b.mu.Unlock()
		return inst, nil
	}
	b.mu.Unlock()

	b.launchMu.Lock()
	defer b.launchMu.Unlock()
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, werr.New(werr.Unavailable, "the browser was closed").WithRetryable(false)
	}
	inst := b.inst
	if inst != nil && !inst.isDead() {
		b.mu.Unlock()
		return inst, nil
	}
	if inst != nil && b.crashGen == inst.gen {
		// The browser died between calls: tell this caller once.
		b.crashGen = 0
		b.inst = nil
		b.mu.Unlock()
		inst.stop()
		return nil, b.crashedError()
	}
	b.inst = nil
	b.mu.Unlock()
	if inst != nil {
		inst.stop()
	}
	ni, err := b.start(ctx)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		ni.stop()
		return nil, werr.New(werr.Unavailable, "the browser was closed").WithRetryable(false)
	}
	b.inst = ni
	b.notifyLocked()
	b.mu.Unlock()
	return ni, nil
}

func (b *Browser) env() []string {
	if b.opts.Env != nil {
		return b.opts.Env
	}
	return os.Environ()
}

func lookupEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// executable picks the browser binary.
func (b *Browser) executable() (string, error) {
	if b.opts.Executable != "" {
		p, err := exec.LookPath(b.opts.Executable)
		if err != nil {
			return "", werr.Wrap(err, werr.Unavailable, "browser %q not found", b.opts.Executable).WithRetryable(false)
		}
		return p, nil
	}
	f, err := Find(b.env())
	return f.Path, err
}

func (b *Browser) args() []string {
	a := []string{
		"--user-data-dir=" + b.opts.ProfileDir,
		"--no-first-run",
		"--no-default-browser-check",
		"--disable-background-networking",
		"--disable-component-update",
		"--disable-sync",
		"--disable-default-apps",
		"--disable-client-side-phishing-detection",
		"--disable-domain-reliability",
		"--disable-breakpad",
		"--disable-crash-reporter",
		"--no-pings",
		"--metrics-recording-only",
		"--password-store=basic",
		"--use-mock-keychain",
		"--disable-background-timer-throttling",
		"--disable-backgrounding-occluded-windows",
		"--disable-renderer-backgrounding",
		"--disable-hang-monitor",
		// A scroll by key lands before the key's call returns: with smooth scrolling, End on a
		// focused scroller started an animation that now and then ended where it began
		// (TestKeyScrollLandsBeforeTheCallReturns).
		"--disable-smooth-scrolling",
		"--disable-popup-blocking",
		"--disable-prompt-on-repost",
		"--disable-dev-shm-usage",
		"--disable-search-engine-choice-screen",
		"--hide-crash-restore-bubble",
		"--disable-features=Translate,MediaRouter,OptimizationHints,InterestFeedContentSuggestions,AutofillServerCommunication,CertificateTransparencyComponentUpdater,DialMediaRouteProvider,BackForwardCache,HttpsUpgrades,PrivacySandboxSettings4",
	}
	switch b.opts.RendererAccessibility {
	case "", "basic":
		// Page content reaches AT-SPI (find_ui_element, OCR-free reading) at a
		// fraction of the cost of the complete mode on big pages (measured: a
		// 2 MB page loads and reads in 4 s instead of 70 s).
		a = append(a, "--force-renderer-accessibility=basic")
	case "complete":
		a = append(a, "--force-renderer-accessibility")
	}
	if os.Geteuid() == 0 && b.opts.Confine == nil {
		// Chromium refuses to run as root with its own sandbox; confined (Options.Confine)
		// it is another user inside its user namespace and keeps it (docs/security.md#confinement).
		a = append(a, "--no-sandbox")
	}
	if b.opts.Headless {
		a = append(a, "--headless=new", "--enable-unsafe-swiftshader", "--window-size=1280,900")
	} else {
		if b.opts.WindowWidth > 0 && b.opts.WindowHeight > 0 {
			a = append(a, fmt.Sprintf("--window-size=%d,%d", b.opts.WindowWidth, b.opts.WindowHeight), "--window-position=0,0")
		} else {
			a = append(a, "--start-maximized", "--window-position=0,0")
		}
	}
	a = append(a, b.opts.ExtraArgs...)
	return append(a, "about:blank")
}

// start launches (or attaches to) a browser and attaches to its tabs.
func (b *Browser) start(ctx context.Context) (*instance, error) {
	generation.Lock()
	generation.n++
	gen := generation.n
	generation.Unlock()
	inst := &instance{gen: gen, dead: make(chan struct{}), reaped: make(chan struct{}), byID: map[target.ID]*tab{}}

	wsURL := b.opts.CDPEndpoint
	if wsURL == "" {
		if !b.opts.Headless && runtime.GOOS != "windows" && lookupEnv(b.env(), "DISPLAY") == "" && lookupEnv(b.env(), "WAYLAND_DISPLAY") == "" {
			return nil, werr.New(werr.Unavailable, "no display for a headful browser").
				WithHint("start the session's desktop, or use a headless browser").WithRetryable(false)
		}
		exe, err := b.executable()
		if err != nil {
			return nil, err
		}
		if err := os.MkdirAll(b.opts.ProfileDir, 0o700); err != nil {
			return nil, werr.Wrap(err, werr.Internal, "cannot create the browser profile directory")
		}
		if err := b.writeProfilePolicy(); err != nil {
			return nil, err
		}
		logPath := filepath.Join(b.opts.ProfileDir, "w365-browser.log")
		logf, err := os.Create(logPath)
		if err != nil {
			return nil, werr.Wrap(err, werr.Internal, "cannot create the browser log")
		}
		pipe, err := newDebugPipe()
		if err != nil {
			logf.Close()
			return nil, werr.Wrap(err, werr.Internal, "cannot create the DevTools pipe")
		}
		cmd := exec.Command(exe, b.args()...)
		givePipe(cmd, pipe)
		cmd.Env = b.env()
		cmd.Stdout = logf
		cmd.Stderr = logf
		release, done := func() {}, func() {}
		if b.opts.Confine != nil {
			if release, done, err = b.opts.Confine(cmd, []string{b.opts.ProfileDir}); err != nil {
				logf.Close()
				pipe.close()
				return nil, err
			}
		}
		err = child.Start(cmd)
		release()
		logf.Close()
		if err != nil {
			done()
			pipe.close()
			return nil, werr.Wrap(err, werr.Unavailable, "cannot start the browser %s", filepath.Base(exe))
		}
		pipe.started()
		inst.cmd, inst.pid = cmd, cmd.Process.Pid
		inst.logPath = logPath
		go func() {
			_ = cmd.Wait()
			done()
			close(inst.reaped)
			b.onDead(inst)
		}()
		inst.mux = newCDPMux(pipe.parentR, pipe.parentW)
		allocCtx, allocCancel := newPipeAllocator(inst.mux)
		return b.connect(ctx, inst, allocCtx, allocCancel)
	} else if u, err := url.Parse(wsURL); err != nil || (u.Scheme != "ws" && u.Scheme != "wss" && u.Scheme != "http" && u.Scheme != "https") {
		return nil, werr.Invalid("cdp endpoint must be a ws:// or http:// URL")
	}

	var aopts []remote.Option
	if strings.Contains(wsURL, "/devtools/browser/") {
		aopts = append(aopts, remote.NoModifyURL)
	}
	allocCtx, allocCancel := remote.NewAllocator(context.Background(), wsURL, aopts...)
	inst.wsURL = wsURL
	return b.connect(ctx, inst, allocCtx, allocCancel)
}

// connect attaches chromedp to the browser behind allocCtx and adopts its tabs.
func (b *Browser) connect(ctx context.Context, inst *instance, allocCtx context.Context, allocCancel context.CancelFunc) (*instance, error) {
	root, rootCancel := chromedp.NewContext(allocCtx)
	inst.allocCancel, inst.root, inst.rootCancel = allocCancel, root, rootCancel
	fail := func(err error, format string, args ...any) (*instance, error) {
		dead := inst.isDead()
		inst.stop()
		if dead && inst.logPath != "" {
			return nil, werr.New(werr.Unavailable, "the browser exited during start: %s", tail(inst.logPath)).WithRetryable(false)
		}
		if we := (*werr.Error)(nil); errors.As(err, &we) {
			return nil, we
		}
		return nil, werr.Wrap(err, werr.Unavailable, format, args...)
	}
	if err := chromedp.ListenBrowser(root, func(ev any) { b.onBrowserEvent(inst, ev) }); err != nil {
		return fail(err, "cannot connect to the browser")
	}
	cb := chromedp.FromContext(root).Browser
	go func() {
		select {
		case <-cb.LostConnection:
			b.onDead(inst)
		case <-inst.dead:
		}
	}()
	cctx, cancel := context.WithTimeout(root, b.opts.LaunchTimeout)
	defer cancel()
	stopOnCancel := context.AfterFunc(ctx, cancel)
	defer stopOnCancel()
	if _, err := chromedp.CallBrowser(cctx, target.SetDiscoverTargets, target.SetDiscoverTargetsParams{Discover: true}); err != nil {
		return fail(err, "cannot discover the browser's tabs")
	}
	if _, err := chromedp.CallBrowser(cctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: b.opts.DownloadDir, EventsEnabled: new(true),
	}); err != nil {
		return fail(err, "cannot set the download directory")
	}
	targets, err := chromedp.CallBrowser(cctx, target.GetTargets, target.GetTargetsParams{})
	if err != nil {
		return fail(err, "cannot list the browser's tabs")
	}
	for _, ti := range targets.TargetInfos {
		if isTab(ti) {
			if _, err := b.adopt(inst, ti); err != nil {
				return fail(err, "cannot attach to a tab")
			}
		}
	}
	if len(inst.tabs) == 0 {
		if _, err := b.createTab(cctx, inst, "about:blank", false); err != nil {
			return fail(err, "cannot open a tab")
		}
	}
	b.mu.Lock()
	if inst.active == nil && len(inst.tabs) > 0 {
		inst.active = inst.tabs[0]
	}
	first := inst.active
	b.mu.Unlock()
	if b.opts.CDPEndpoint == "" && !b.opts.Headless && b.opts.WindowWidth > 0 && b.opts.WindowHeight > 0 && first != nil {
		// A window manager may still place the window its own way: set its bounds.
		if w, err := chromedp.CallBrowser(cctx, browser.GetWindowForTarget, browser.GetWindowForTargetParams{TargetID: first.id}); err == nil {
			_, _ = chromedp.CallBrowser(cctx, browser.SetWindowBounds, browser.SetWindowBoundsParams{WindowID: w.WindowID,
				Bounds: &browser.Bounds{Left: new(int64(0)), Top: new(int64(0)), Width: int64(b.opts.WindowWidth), Height: int64(b.opts.WindowHeight), WindowState: browser.WindowStateNormal}})
			// Maximized, the window has no resize border: the page gets the screen's width.
			_, _ = chromedp.CallBrowser(cctx, browser.SetWindowBounds, browser.SetWindowBoundsParams{WindowID: w.WindowID,
				Bounds: &browser.Bounds{WindowState: browser.WindowStateMaximized}})
		}
	}
	return inst, nil
}

func isTab(ti *target.Info) bool {
	return ti != nil && ti.Type == "page" && !strings.HasPrefix(ti.URL, "devtools://")
}

// onDead records that an instance's browser is gone.
func (b *Browser) onDead(inst *instance) {
	b.mu.Lock()
	already := inst.isDead()
	inst.markDead()
	if !already && !inst.killed.Load() && b.inst == inst {
		b.crashGen = inst.gen
	}
	b.notifyLocked()
	b.mu.Unlock()
	if inst.rootCancel != nil {
		inst.rootCancel()
	}
	if inst.cmd != nil && inst.pid > 0 {
		_ = child.KillGroup(inst.cmd)
	}
}

func tail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "no output"
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > 5 {
			lines = lines[1:]
		}
	}
	s := strings.Join(lines, " | ")
	if len(s) > 600 {
		s = s[len(s)-600:]
	}
	if s == "" {
		return "no output"
	}
	return s
}

// connLost says whether err is the DevTools connection breaking (reset, EOF, closed).
func connLost(err error) bool {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) || errors.Is(err, syscall.ECONNRESET) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, "connection reset") || strings.Contains(msg, "lost the connection") || strings.Contains(msg, "broken pipe")
}

// mapErr turns an error of a CDP call into a *werr.Error.
func (b *Browser) mapErr(ctx context.Context, inst *instance, err error) error {
	if err == nil {
		return nil
	}
	if inst != nil && !inst.killed.Load() && !inst.isDead() && inst.root != nil && (inst.root.Err() != nil || connLost(err)) {
		// chromedp ends the root context as soon as the connection drops, and a
		// call can see the broken connection even earlier, a moment before the
		// process watcher records the death: wait for it.
		select {
		case <-inst.dead:
		case <-time.After(3 * time.Second):
		}
	}
	if inst != nil && inst.isDead() && !inst.killed.Load() {
		b.mu.Lock()
		if b.crashGen == inst.gen {
			b.crashGen = 0
		}
		b.mu.Unlock()
		return b.crashedError()
	}
	var we *werr.Error
	if errors.As(err, &we) {
		return we
	}
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return werr.New(werr.Timeout, "the browser did not answer in time")
		}
		return werr.New(werr.Cancelled, "the call was cancelled")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return werr.New(werr.Timeout, "the browser did not answer in time")
	}
	if pe := (*cdproto.Error)(nil); errors.As(err, &pe) && pe.Message == frameTooLong {
		return werr.New(werr.ResourceExhausted, frameTooLong).WithRetryable(false)
	}
	if errors.Is(err, chromedp.ErrTargetDetached) {
		return werr.Wrap(err, werr.NotFound, "the tab was closed")
	}
	if inst != nil && inst.killed.Load() {
		return werr.New(werr.Unavailable, "the browser was closed").WithRetryable(false)
	}
	// The cause (kept for the host log) can hold addresses and page data: the
	// message stays generic.
	return werr.Wrap(err, werr.Internal, "browser protocol error")
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300]
	}
	return s
}

// String describes the browser for logs.
func (b *Browser) String() string {
	return fmt.Sprintf("browser(pid %d)", b.PID())
}
