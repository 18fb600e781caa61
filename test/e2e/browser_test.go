//go:build linux

package e2e_test

import (
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

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// pageServer serves testdata/pages on loopback and records form submissions.
type pageServer struct {
	*httptest.Server
	mu   sync.Mutex
	last url.Values
}

func newPageServer(t *testing.T) *pageServer {
	ps := &pageServer{}
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join(testenv.Root(), "testdata", "pages"))))
	mux.HandleFunc("/submit", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		ps.mu.Lock()
		ps.last = r.PostForm
		ps.mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<title>Submitted</title><p id=ok>received " + r.PostForm.Get("text") + "</p>"))
	})
	mux.HandleFunc("/set-secret", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "TOPSECRET-123", HttpOnly: true, Path: "/"})
		w.Write([]byte("<title>cookie</title>ok"))
	})
	ps.Server = httptest.NewServer(mux)
	t.Cleanup(ps.Close)
	return ps
}

func (ps *pageServer) submitted() url.Values {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.last
}

// State lives in the host: three separate CLI processes drive one page.
func TestBrowserAcrossSeparateCLIProcesses(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	ps := newPageServer(t)
	out := h.MustRun("browser", "navigate", ps.URL+"/form.html")
	if !strings.HasPrefix(out, "200 ") {
		t.Fatalf("navigate: %q", out)
	}
	h.MustRun("browser", "type", "#text", "hello from w365")
	if v := strings.TrimSpace(h.MustRun("browser", "eval-js", "document.querySelector('#text').value")); v != "hello from w365" {
		t.Fatalf("value after type: %q", v)
	}
	h.MustRun("browser", "click", "#f [type=submit], #f button")
	if got := ps.submitted().Get("text"); got != "hello from w365" {
		t.Fatalf("server received text=%q", got)
	}
	if text := h.MustRun("browser", "get-text"); !strings.Contains(text, "received hello from w365") {
		t.Fatalf("get-text after submit: %q", text)
	}

	// Cookie values never leave the host.
	h.MustRun("browser", "navigate", ps.URL+"/set-secret")
	cookies := h.MustRun("--json", "browser", "get-cookies")
	if strings.Contains(cookies, "TOPSECRET") || !strings.Contains(cookies, `"session"`) {
		t.Fatalf("cookies: %s", cookies)
	}
	if log := readFile(t, filepath.Join(h.RuntimeDir, "host.log")); strings.Contains(log, "TOPSECRET") {
		t.Fatal("a cookie value reached the host log")
	}

	// Bad input: a URL without a scheme, a missing wait condition.
	if r := h.Run("browser", "navigate", "example.com"); r.Code != 2 {
		t.Errorf("navigate without scheme: exit %d %s", r.Code, r.Stderr)
	}
	if r := h.Run("browser", "wait-for"); r.Code != 2 {
		t.Errorf("wait-for with nothing to wait for: exit %d %s", r.Code, r.Stderr)
	}
	if r := h.Run("browser", "wait-for", "#never", "--timeout-ms", "300"); r.Code != 5 || !strings.Contains(r.Stderr, "TIMEOUT") {
		t.Errorf("wait-for timeout: exit %d %s", r.Code, r.Stderr)
	}
}

// A killed browser fails the call in flight or the next one with BROWSER_CRASHED,
// and the call after that gets a fresh browser.
func TestKilledBrowserIsRelaunched(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	ps := newPageServer(t)
	h.MustRun("browser", "navigate", ps.URL+"/form.html")
	var wl struct {
		Windows []struct {
			PID         int
			ProcessName string
		}
	}
	h.JSON(&wl, "list-windows")
	pid := 0
	for _, w := range wl.Windows {
		if strings.Contains(w.ProcessName, "chrom") {
			pid = w.PID
		}
	}
	if pid == 0 {
		t.Fatalf("no browser window in %+v", wl)
	}
	syscall.Kill(pid, syscall.SIGKILL)
	r := h.Run("browser", "get-title")
	if r.Code != 0 && !strings.Contains(r.Stderr, "BROWSER_CRASHED") {
		t.Fatalf("first call after the kill: exit %d %s", r.Code, r.Stderr)
	}
	out := h.MustRun("browser", "navigate", ps.URL+"/form.html")
	if !strings.HasPrefix(out, "200 ") {
		t.Fatalf("after relaunch: %q", out)
	}
	if exec.Command("kill", "-0", strconv.Itoa(pid)).Run() == nil {
		t.Fatal("the killed browser is still alive")
	}
}

// The REPL runs browser commands too (its script mode shares the TUI's line runner),
// and focus_browser finds the window of the browser w365 drives by its URL. The REPL acts on
// the agent's session, default-agent, by its id.
func TestREPLRunsABrowserCommandAndFocusBrowserFindsIt(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	ps := newPageServer(t)
	cs := agentOnItsSession(t, h)
	cmd := exec.Command(h.Bin, "--session", "default-agent", "repl")
	cmd.Env = h.Env
	cmd.Stdin = strings.NewReader("browser navigate " + ps.URL + "/form.html\nbrowser get-title\n")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "200 ") || !strings.Contains(string(out), "Form") {
		t.Fatalf("repl: %v\n%s", err, out)
	}
	// Another tab in front, then focus the browser by the form page's URL path.
	var w struct {
		Window struct{ Title, ProcessName string }
	}
	e2e.Structured(t, e2e.Call(t, cs, "focus_browser", map[string]any{"pattern": "/form.html"}), &w)
	if !strings.Contains(strings.ToLower(w.Window.ProcessName+w.Window.Title), "chrom") {
		t.Fatalf("focus_browser found %+v", w.Window)
	}
	if code := e2e.ErrorCode(e2e.Call(t, cs, "focus_browser", map[string]any{"pattern": "no-such-page-zzz"})); code != "NOT_FOUND" {
		t.Errorf("focus_browser with no match: %q", code)
	}
}

func readFile(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
