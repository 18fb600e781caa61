//go:build linux

package e2e_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// serve --http answers browsers of the origins the policy lists, and refuses every other:
// its own (no page of its own calls it: TestTheLiveViewPageCannotCallTheMCPEndpoint), and
// another port on localhost (a dev server's page), and none (a navigation). A client that
// is no browser sends no Origin.
func TestServeHTTPOriginsAreThePolicys(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	pol := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(pol, []byte(`{"httpAllowedOrigins": ["https://app.example:3000"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	_, port, _ := strings.Cut(addr, ":")
	srv := exec.Command(h.Bin, "--policy", pol, "serve", "--http", addr)
	srv.Env, srv.Stderr = h.Env, os.Stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	waitListening(t, addr)
	status := func(origin string, browser bool) int {
		req, _ := http.NewRequest("POST", "http://"+addr+"/", strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"o","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if browser {
			req.Header.Set("Sec-Fetch-Site", "same-origin")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	// A program may name the server's own origin (MCP's conformance suite does); a browser's
	// page there (its fetch metadata) may not.
	for origin, want := range map[string]int{"http://127.0.0.1:" + port: http.StatusOK, "http://localhost:" + port: http.StatusOK} {
		if got := status(origin, false); got != want {
			t.Errorf("Origin %q from a program: status %d, want %d", origin, got, want)
		}
	}
	for origin, want := range map[string]int{
		"":                               http.StatusForbidden, // a navigation (TestBrowserRunCodeCannotCallTheListener)
		"http://127.0.0.1:" + port:       http.StatusForbidden,
		"http://localhost:" + port:       http.StatusForbidden,
		"https://app.example:3000":       http.StatusOK,
		"http://localhost:5173":          http.StatusForbidden,
		"http://127.0.0.1:5173":          http.StatusForbidden,
		"https://app.example:3001":       http.StatusForbidden,
		"http://app.example:3000":        http.StatusForbidden,
		"https://evil.example":           http.StatusForbidden,
		"null":                           http.StatusForbidden,
		"http://localhost:" + port + "0": http.StatusForbidden,
	} {
		if got := status(origin, true); got != want {
			t.Errorf("Origin %q from a browser: status %d, want %d", origin, got, want)
		}
	}
}

// A session's browser does not open the host's own HTTP listener: a script of a page of
// that origin would pass its origin check and call the MCP endpoint as one more client
// (on a server without a key, the anonymous principal, whose sessions are every keyless
// agent's). Other loopback pages open as before.
func TestSessionBrowserDoesNotOpenTheHostsListener(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	ps := newPageServer(t)
	addr := freeAddr(t)
	_, port, _ := strings.Cut(addr, ":")
	srv := exec.Command(h.Bin, "serve", "--http", addr)
	srv.Env, srv.Stderr = h.Env, os.Stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	waitListening(t, addr)
	h.MustRun("session", "start", "b1")
	if out := h.MustRun("--session", "b1", "browser", "navigate", ps.URL+"/form.html"); !strings.Contains(out, "form") {
		t.Fatalf("a loopback page: %q", out)
	}
	for _, u := range []string{"http://" + addr + "/healthz", "http://localhost:" + port + "/healthz"} {
		res := h.Run("--session", "b1", "browser", "navigate", u)
		if res.Code == 0 || !strings.Contains(res.Stderr+res.Stdout, "BLOCKED") {
			t.Errorf("navigate %s: exit %d, %s%s; want it refused", u, res.Code, res.Stdout, res.Stderr)
		}
	}
	if out := h.MustRun("--session", "b1", "browser", "get-text"); strings.Contains(out, "ok") {
		t.Errorf("the page shows the listener's answer: %q", out)
	}
}

// browserBeforeListener starts session name with its browser on a loopback page, then an
// HTTP listener joining h's host (its base URL): a browser started before the listener has
// no blocklist entry for it.
func browserBeforeListener(t *testing.T, h *e2e.Harness, name string) string {
	ps := newPageServer(t)
	h.MustRun("session", "start", name)
	if out := h.MustRun("--session", name, "browser", "navigate", ps.URL+"/form.html"); !strings.Contains(out, "form") {
		t.Fatalf("a loopback page: %q", out)
	}
	base, _ := serveHTTP(t, h, nil)
	return base
}

// A document on the listener's origin runs in a sandbox of its own (an opaque origin), so
// a script in it, an agent's through browser_eval_js included, calls the MCP endpoint as
// origin "null", which is refused: this holds for a session browser started before the
// listener joined, which has no blocklist entry for it.
func TestAPageOnTheListenersOriginCannotCallIt(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	base := browserBeforeListener(t, h, "b1")
	for _, path := range []string{"/healthz", "/mcp"} {
		if res := h.Run("--session", "b1", "browser", "navigate", base+path); res.Code != 0 {
			continue // refused outright: nothing of the listener's runs in the browser
		}
		call := `fetch('/mcp', {method: 'POST', headers: {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream'},
			body: JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'page', version: '1'}}})})
			.then(r => origin + ' ' + r.status, e => origin + ' refused: ' + e)`
		out := strings.TrimSpace(h.MustRun("--session", "b1", "browser", "eval-js", call))
		if !strings.HasPrefix(out, "null ") || strings.Contains(out, " 200") {
			t.Errorf("a script on %s called the MCP endpoint: %q", path, out)
		}
	}
}

// The live view's page of a session (its URL, token included, is in the session's own
// list_sessions) is the one document of the listener that runs script in its origin. A
// session's browser started before the listener joined opens it, and the agent's script
// there called the MCP endpoint as a page of the server's own origin: as the anonymous
// HTTP principal, whose sessions are every keyless HTTP agent's. The binary before
// answered, and the page listed another agent's session; the endpoint now serves a browser
// only from the origins the policy lists.
func TestTheLiveViewPageCannotCallTheMCPEndpoint(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	base := browserBeforeListener(t, h, "lv1")
	victim := otherAgentsSession(t, base)
	live := h.Session("lv1").LiveViewURL
	if live == "" {
		t.Fatalf("no live view URL for lv1 in %+v", h.Sessions())
	}
	if res := h.Run("--session", "lv1", "browser", "navigate", live); res.Code != 0 {
		return // refused outright: nothing of the listener's runs in the browser
	}
	call := `async () => {
  const h = {'Content-Type': 'application/json', 'Accept': 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-06-18'};
  const post = (body, sid) => fetch('/mcp', {method: 'POST', headers: sid ? {...h, 'Mcp-Session-Id': sid} : h, body: JSON.stringify(body)});
  const r = await post({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'page', version: '1'}}});
  if (r.status !== 200) return 'initialize ' + r.status;
  const sid = r.headers.get('mcp-session-id');
  await post({jsonrpc: '2.0', method: 'notifications/initialized'}, sid);
  const c = await post({jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'list_sessions', arguments: {}}}, sid);
  return 'list_sessions ' + c.status + ' ' + await c.text();
}`
	out := h.MustRun("--session", "lv1", "browser", "evaluate", "--function", call)
	if strings.Contains(out, victim) || !strings.Contains(out, "initialize 403") {
		t.Errorf("the live view's page called the MCP endpoint: %s", out)
	}
}

// otherAgentsSession connects another agent over HTTP without a key, at base, and has it
// create a browser session of its own, whose id it returns; the agent stays connected
// until the test ends.
func otherAgentsSession(t *testing.T, base string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	other, err := mcp.NewClient(&mcp.Implementation{Name: "other-agent", Version: "1"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: base + "/"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	var victim struct{ BrowserSessionID string }
	e2e.Structured(t, e2e.Call(t, other, "create_browser_session", nil), &victim)
	if victim.BrowserSessionID == "" {
		t.Fatal("the other agent got no session")
	}
	return victim.BrowserSessionID
}
