package browser

import (
	"bufio"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/w365/w365/engine/child"
	"github.com/w365/w365/engine/werr"
)

// browser_run_code: statements that form the body of an async function whose
// parameter page is a Playwright Page bound to the session's active tab. The
// code runs in a Node sidecar (playwright-core, pinned in runcode/package.json
// and its lock file) inside bubblewrap, started once per browser and kept warm;
// it reaches the browser only through the filtering proxy of cdpmux.go.

//go:embed runcode/package.json runcode/package-lock.json runcode/sidecar.js
var runcodeFiles embed.FS

// RunCode limits.
const (
	RunCodeMaxChars     = 100_000
	RunCodeTimeoutMaxMs = 120_000
)

// RunCodeResult is what the code returned, as JSON.
type RunCodeResult struct {
	Value json.RawMessage `json:"value"`
	Bytes int             `json:"bytes"`
}

// sidecar is one running Node process.
type sidecar struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan []byte
	done   chan struct{}
	stop   context.CancelFunc // the proxy
	dir    string
	nextID int64
	inst   *instance
}

func (s *sidecar) kill() {
	_ = child.KillGroup(s.cmd)
	<-s.done
	s.stop()
	os.RemoveAll(s.dir)
}

func (s *sidecar) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// runcodeState is the Browser's sidecar, guarded by its mutex.
type runcodeState struct {
	mu sync.Mutex
	sc *sidecar
}

var installMu sync.Mutex

// RunCodeModules returns the directory holding node_modules/playwright-core for
// the pinned lock file, installing it (npm ci, no scripts, no browser download)
// into the user's cache directory on first use. W365_RUNCODE_DIR names a
// directory prepared beforehand instead.
func RunCodeModules(ctx context.Context) (string, error) {
	if d := os.Getenv("W365_RUNCODE_DIR"); d != "" {
		if _, err := os.Stat(filepath.Join(d, "node_modules", "playwright-core", "package.json")); err != nil {
			return "", werr.New(werr.Unsupported, "W365_RUNCODE_DIR=%s has no node_modules/playwright-core", d).WithRetryable(false)
		}
		return d, nil
	}
	lock, _ := runcodeFiles.ReadFile("runcode/package-lock.json")
	sum := sha256.Sum256(lock)
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", werr.Wrap(err, werr.Unsupported, "no cache directory for playwright-core").WithRetryable(false)
	}
	dir := filepath.Join(cache, "w365", "runcode-"+hex.EncodeToString(sum[:6]))
	installMu.Lock()
	defer installMu.Unlock()
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core", "package.json")); err == nil {
		return dir, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", werr.New(werr.Unsupported, "browser_run_code needs playwright-core, and npm is not installed to fetch it").
			WithHint("install npm (apt-get install npm), or set W365_RUNCODE_DIR to a directory where `npm ci` ran on w365's runcode/package.json").WithRetryable(false)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return "", werr.Wrap(err, werr.Internal, "cannot create %s", filepath.Dir(dir))
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".runcode-")
	if err != nil {
		return "", werr.Wrap(err, werr.Internal, "cannot stage playwright-core")
	}
	defer os.RemoveAll(tmp)
	for _, f := range []string{"package.json", "package-lock.json", "sidecar.js"} {
		data, _ := runcodeFiles.ReadFile("runcode/" + f)
		if err := os.WriteFile(filepath.Join(tmp, f), data, 0o600); err != nil {
			return "", werr.Wrap(err, werr.Internal, "cannot stage playwright-core")
		}
	}
	ictx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ictx, npm, "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--omit=dev", "--loglevel=error")
	cmd.Dir = tmp
	cmd.Env = npmEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", werr.New(werr.Unsupported, "installing playwright-core for browser_run_code failed: %s", firstLine(strings.TrimSpace(string(out)))).
			WithHint("check that the npm registry is reachable, or set W365_RUNCODE_DIR").WithRetryable(true)
	}
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) {
		return "", werr.Wrap(err, werr.Internal, "cannot install playwright-core")
	}
	return dir, nil
}

// npmEnv is npm's environment, from an allowlist.
func npmEnv() []string {
	var env []string
	for _, k := range []string{"HOME", "PATH", "LANG", "USER", "npm_config_registry", "npm_config_cache", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// NodeVersion is the version of node on PATH ("" when there is none).
func NodeVersion(ctx context.Context) string {
	node, err := exec.LookPath("node")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// RunCode runs Playwright code against the active tab. See the top of this file.
func (b *Browser) RunCode(ctx context.Context, code string, timeoutMs int) (*RunCodeResult, error) {
	if strings.TrimSpace(code) == "" {
		return nil, werr.Invalid("code must not be empty")
	}
	if len([]rune(code)) > RunCodeMaxChars {
		return nil, werr.Invalid("code has more than %d characters", RunCodeMaxChars)
	}
	if timeoutMs <= 0 {
		timeoutMs = b.pol.BrowserWaitDefaultMs
	}
	timeoutMs = min(timeoutMs, RunCodeTimeoutMaxMs)
	if NodeVersion(ctx) == "" {
		return nil, werr.New(werr.Unsupported, "browser_run_code needs Node.js 20 or later, which is not installed").
			WithHint("install Node.js (apt-get install nodejs), then retry").WithRetryable(false)
	}
	modules, err := RunCodeModules(ctx)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Duration(timeoutMs)*time.Millisecond+90*time.Second)
	defer cancel()
	o, err := b.begin(ctx, false)
	if err != nil {
		return nil, err
	}
	defer o.end()
	if o.inst.mux == nil {
		return nil, werr.New(werr.Unsupported, "browser_run_code works on a browser w365 launched, not an attached one").WithRetryable(false)
	}
	b.runcode.mu.Lock()
	defer b.runcode.mu.Unlock()
	sc := b.runcode.sc
	if sc != nil && (!sc.alive() || sc.inst != o.inst) {
		sc.kill()
		sc = nil
	}
	if sc == nil {
		if sc, err = b.startSidecar(ctx, o.inst, modules); err != nil {
			return nil, err
		}
		b.runcode.sc = sc
	}
	sc.nextID++
	req, _ := json.Marshal(map[string]any{"id": sc.nextID, "code": code, "targetId": string(o.t.id), "timeoutMs": timeoutMs})
	if _, err := sc.in.Write(append(req, '\n')); err != nil {
		sc.kill()
		b.runcode.sc = nil
		return nil, werr.New(werr.Unavailable, "the run_code sidecar exited").WithRetryable(true)
	}
	var res struct {
		ID      int64  `json:"id"`
		Started bool   `json:"started"`
		OK      bool   `json:"ok"`
		JSON    string `json:"json"`
		Error   *struct {
			Name    string `json:"name"`
			Message string `json:"message"`
			Stack   string `json:"stack"`
			Code    string `json:"code"`
		} `json:"error"`
	}
	// The first run also connects Playwright to the browser: give it room until
	// the code starts. From then on the sidecar's own timer stops the code, unless
	// the code never yields to it (a busy loop): the host stops the sidecar a
	// moment after the timeout instead.
	hard := time.NewTimer(time.Duration(timeoutMs)*time.Millisecond + 30*time.Second)
	defer hard.Stop()
	for res.ID != sc.nextID || res.Started {
		select {
		case line, ok := <-sc.lines:
			if !ok {
				sc.kill()
				b.runcode.sc = nil
				return nil, werr.New(werr.Unavailable, "the run_code sidecar exited while the code ran").WithRetryable(false).
					WithHint("observe the page before running the code again: it may have acted")
			}
			res.ID, res.Started = 0, false
			_ = json.Unmarshal(line, &res)
			if res.ID == sc.nextID && res.Started {
				hard.Reset(time.Duration(timeoutMs)*time.Millisecond + runCodeGrace)
			}
		case <-hard.C:
			sc.kill()
			b.runcode.sc = nil
			return nil, runCodeTimeout(timeoutMs)
		case <-ctx.Done():
			sc.kill()
			b.runcode.sc = nil
			return nil, o.err(ctx.Err())
		}
	}
	if !res.OK {
		e := res.Error
		if e == nil {
			return nil, werr.New(werr.Internal, "the run_code sidecar gave no result")
		}
		switch e.Code {
		case "TIMEOUT":
			// The code may still be acting in the background: stop it.
			sc.kill()
			b.runcode.sc = nil
			return nil, runCodeTimeout(timeoutMs).WithDetail("error", e.Message)
		case "NOT_SERIALISABLE":
			return nil, werr.Invalid("%s", e.Message).WithHint("return only JSON-serialisable data (strings, numbers, booleans, arrays, plain objects)")
		case "PLAYWRIGHT_TIMEOUT":
			// A Playwright wait inside the code gave up (the code did not catch it).
			return nil, werr.New(werr.Timeout, "the code threw %s: %s", e.Name, e.Message).WithRetryable(false).
				WithDetail("name", e.Name).WithHint("observe the page before running it again: it may have acted")
		case "UNAVAILABLE":
			return nil, werr.New(werr.Unavailable, "%s", e.Message).WithRetryable(true)
		}
		if _, why, ok := strings.Cut(e.Message, blockedPrefix); ok {
			// The proxy refused a DevTools method the code sent (cdpcheck.go).
			method, _, _ := strings.Cut(why, " ")
			return nil, werr.New(werr.BlockedByPolicy, "%s", why).WithDetail("method", method).
				WithHint("use Playwright's page, locator and evaluation APIs, or the w365 tool made for it; docs/security.md lists what browser_run_code may do")
		}
		return nil, werr.Invalid("the code threw %s: %s", e.Name, e.Message).WithDetail("name", e.Name).WithDetail("stack", e.Stack).
			WithHint("the code may have acted before it threw: observe the page before running it again")
	}
	if len(res.JSON) > b.pol.PageTextBytes {
		return nil, werr.New(werr.ResourceExhausted, "the result is %d bytes, over the %d-byte response limit", len(res.JSON), b.pol.PageTextBytes).
			WithHint("return less: a summary, a slice, or only the fields needed").WithRetryable(false)
	}
	return &RunCodeResult{Value: json.RawMessage(res.JSON), Bytes: len(res.JSON)}, nil
}

// runCodeGrace is how long past its timeout the host waits for the sidecar to
// report that it stopped the code, before it stops the sidecar itself.
const runCodeGrace = 2 * time.Second

func runCodeTimeout(ms int) *werr.Error {
	return werr.New(werr.Timeout, "the code did not finish within %d ms; it was stopped", ms).WithRetryable(false).
		WithHint("observe the page before running it again: it may have acted")
}

// startSidecar starts the Node sidecar in its sandbox with a proxy socket of its own.
func (b *Browser) startSidecar(ctx context.Context, inst *instance, modules string) (*sidecar, error) {
	if err := os.MkdirAll(b.opts.StateDir, 0o700); err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot create the run_code directory")
	}
	dir, err := os.MkdirTemp(b.opts.StateDir, "sidecar-")
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot create the run_code directory")
	}
	pctx, stop := context.WithCancel(context.Background())
	sock, err := inst.mux.proxySocket(pctx, b, dir)
	if err != nil {
		stop()
		os.RemoveAll(dir)
		return nil, werr.Wrap(err, werr.Internal, "cannot open the run_code proxy")
	}
	fail := func(err error) (*sidecar, error) {
		stop()
		os.RemoveAll(dir)
		return nil, err
	}
	script := filepath.Join(dir, "sidecar.js")
	data, _ := runcodeFiles.ReadFile("runcode/sidecar.js")
	if err := os.WriteFile(script, data, 0o600); err != nil {
		return fail(werr.Wrap(err, werr.Internal, "cannot write the run_code sidecar"))
	}
	cmd, release, confined, err := sandboxedNode(modules, script, sock)
	if err != nil {
		return fail(err)
	}
	started := false
	defer func() {
		if !started {
			release()
			confined()
		}
	}()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return fail(werr.Wrap(err, werr.Internal, "cannot start the run_code sidecar"))
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fail(werr.Wrap(err, werr.Internal, "cannot start the run_code sidecar"))
	}
	logf, err := os.Create(filepath.Join(dir, "sidecar.log"))
	if err != nil {
		return fail(werr.Wrap(err, werr.Internal, "cannot start the run_code sidecar"))
	}
	cmd.Stderr = logf
	if err := child.Start(cmd); err != nil {
		logf.Close()
		return fail(werr.Wrap(err, werr.Unavailable, "cannot start the run_code sidecar"))
	}
	started = true
	release()
	logf.Close()
	sc := &sidecar{cmd: cmd, in: stdin, lines: make(chan []byte, 16), done: make(chan struct{}), stop: stop, dir: dir, inst: inst}
	go func() {
		sr := bufio.NewScanner(stdout)
		sr.Buffer(make([]byte, 64<<10), 64<<20)
		for sr.Scan() {
			select { // one line per request: a full channel means nobody waits for it
			case sc.lines <- append([]byte(nil), sr.Bytes()...):
			default:
			}
		}
		close(sc.lines)
		_ = cmd.Wait()
		confined()
		close(sc.done)
	}()
	// The sidecar says ready once node and playwright-core are loaded.
	select {
	case line, ok := <-sc.lines:
		var hello struct {
			ID int64 `json:"id"`
			OK bool  `json:"ok"`
		}
		if ok && json.Unmarshal(line, &hello) == nil && hello.ID == 0 && hello.OK {
			return sc, nil
		}
	case <-time.After(30 * time.Second):
	case <-ctx.Done():
	}
	log, _ := os.ReadFile(filepath.Join(dir, "sidecar.log"))
	sc.kill()
	return nil, werr.New(werr.Unavailable, "the run_code sidecar did not start: %s", firstLine(strings.TrimSpace(string(log)))).WithRetryable(false)
}
