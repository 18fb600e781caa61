//go:build linux

package e2e_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// freeAddr is a loopback address with a port nobody listens on.
// syncBuffer is a log buffer the serve process and the test share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serveHTTP runs `w365 serve --http ADDR args...` and waits until it answers.
func serveHTTP(t *testing.T, h *e2e.Harness, env []string, args ...string) (url string, logs *syncBuffer) {
	t.Helper()
	addr := freeAddr(t)
	cmd := exec.Command(h.Bin, append([]string{"serve", "--http", addr}, args...)...)
	cmd.Env = append(append([]string{}, h.Env...), env...)
	logs = &syncBuffer{}
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	url = "http://" + addr
	for i := 0; ; i++ {
		resp, err := http.Get(url + "/live/x/")
		if err == nil {
			resp.Body.Close()
			return url, logs
		}
		if i > 300 {
			t.Fatalf("serve --http never answered: %v\n%s", err, logs)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// headerTransport adds one header to every request.
type headerTransport struct{ name, value string }

func (ht headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if ht.name != "" {
		r.Header.Set(ht.name, ht.value)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// connectHTTP is an MCP client of url sending header name: value.
func connectHTTP(t *testing.T, url, name, value string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "http-e2e", Version: "1"}, opts)
	cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + "/",
		HTTPClient: &http.Client{Transport: headerTransport{name, value}}}, nil)
	if err != nil {
		t.Fatalf("connect to %s with %s: %v", url, name, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// status is the HTTP status of an MCP initialize POST carrying header name: value.
func status(t *testing.T, url, name, value string) (int, http.Header) {
	t.Helper()
	req, _ := http.NewRequest("POST", url+"/", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if name != "" {
		req.Header.Set(name, value)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header
}

// issuer signs the test's OAuth tokens.
type issuer struct {
	t     *testing.T
	key   *rsa.PrivateKey
	other *rsa.PrivateKey
}

const (
	testIssuer   = "https://issuer.test/"
	testAudience = "w365-test"
	testScope    = "w365.tools"
)

func newIssuer(t *testing.T) *issuer {
	k1, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := rsa.GenerateKey(rand.Reader, 2048)
	return &issuer{t: t, key: k1, other: k2}
}

// jwksFile writes the issuer's public key set and returns its path.
func (is *issuer) jwksFile() string {
	set := jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &is.key.PublicKey, KeyID: "k1", Algorithm: string(jose.RS256), Use: "sig"}}}
	b, _ := json.Marshal(set)
	p := filepath.Join(is.t.TempDir(), "jwks.json")
	os.WriteFile(p, b, 0o600)
	return p
}

// token is a JWT for sub; mutate changes what makes it wrong.
func (is *issuer) token(sub string, mutate func(c *jwt.Claims, scope *string, key **rsa.PrivateKey)) string {
	c := jwt.Claims{Issuer: testIssuer, Subject: sub, Audience: jwt.Audience{testAudience},
		Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour)), IssuedAt: jwt.NewNumericDate(time.Now())}
	scope, key := "openid "+testScope, is.key
	if mutate != nil {
		mutate(&c, &scope, &key)
	}
	sig, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		is.t.Fatal(err)
	}
	s, err := jwt.Signed(sig).Claims(c).Claims(map[string]any{"scope": scope}).Serialize()
	if err != nil {
		is.t.Fatal(err)
	}
	return s
}

func callCode(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, *mcp.CallToolResult) {
	t.Helper()
	res := e2e.Call(t, cs, name, args)
	return e2e.ErrorCode(res), res
}

func startSession(t *testing.T, cs *mcp.ClientSession) (id, liveView string) {
	t.Helper()
	var out struct {
		SessionID   string `json:"sessionId"`
		LiveViewURL string `json:"liveViewUrl"`
		Owner       string `json:"owner"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "mcp_W365ComputerUse_StartSession", nil), &out)
	if len(out.SessionID) != 34 {
		t.Fatalf("session id %q does not carry 128 random bits", out.SessionID)
	}
	return out.SessionID, out.LiveViewURL
}

func sessionIDs(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Owner     string `json:"owner"`
		} `json:"sessions"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "list_sessions", nil), &out)
	var ids []string
	for _, s := range out.Sessions {
		ids = append(ids, s.SessionID)
	}
	return ids
}

// TestHTTPPrincipalsOwnTheirSessions: two API keys and OAuth tokens are three principals;
// none sees or drives another's session, dead and made-up ids are refused with their
// codes without starting a desktop, and the per-principal cap holds.
func TestHTTPPrincipalsOwnTheirSessions(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	is := newIssuer(t)
	keys := filepath.Join(t.TempDir(), "keys")
	os.WriteFile(keys, []byte("# test keys\nalice alice-key-0123456789abcdef\nbob   bob-key-0123456789abcdef0\n"), 0o600)
	pol := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(pol, []byte(`{"maxSessionsPerPrincipal": 2}`), 0o600)
	url, logs := serveHTTP(t, h, nil, "--policy", pol, "--keys-file", keys,
		"--oauth-issuer", testIssuer, "--oauth-jwks", is.jwksFile(), "--oauth-audience", testAudience, "--oauth-scope", testScope)

	// Who may not call, and what a client that discovers OAuth is told.
	code, hdr := status(t, url, "", "")
	if code != http.StatusUnauthorized || !strings.Contains(hdr.Get("WWW-Authenticate"), `resource_metadata="`+url+`/.well-known/oauth-protected-resource"`) {
		t.Fatalf("no credential: %d, WWW-Authenticate %q", code, hdr.Get("WWW-Authenticate"))
	}
	resp, err := http.Get(url + "/.well-known/oauth-protected-resource")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
		ScopesSupported      []string `json:"scopes_supported"`
	}
	json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if meta.Resource != url+"/" || !slices.Equal(meta.AuthorizationServers, []string{testIssuer}) || !slices.Equal(meta.ScopesSupported, []string{testScope}) {
		t.Fatalf("protected resource metadata %+v", meta)
	}
	for _, c := range []struct {
		name   string
		header string
		value  string
		want   int
	}{
		{"an unknown key", "Authorization", "Bearer alice-key-0123456789abcdeX", 401},
		{"a key with a Bearer prefix in x-api-key", "x-api-key", "Bearer alice-key-0123456789abcdef", 401},
		{"an expired token", "Authorization", "Bearer " + is.token("carol", func(c *jwt.Claims, _ *string, _ **rsa.PrivateKey) {
			c.Expiry = jwt.NewNumericDate(time.Now().Add(-10 * time.Minute))
		}), 401},
		{"a token for another audience", "Authorization", "Bearer " + is.token("carol", func(c *jwt.Claims, _ *string, _ **rsa.PrivateKey) {
			c.Audience = jwt.Audience{"someone-else"}
		}), 401},
		{"a token of another issuer", "Authorization", "Bearer " + is.token("carol", func(c *jwt.Claims, _ *string, _ **rsa.PrivateKey) {
			c.Issuer = "https://evil.test/"
		}), 401},
		{"a token with a wrong signature", "Authorization", "Bearer " + is.token("carol", func(_ *jwt.Claims, _ *string, k **rsa.PrivateKey) {
			*k = is.other
		}), 401},
		{"a token without the scope", "Authorization", "Bearer " + is.token("carol", func(_ *jwt.Claims, s *string, _ **rsa.PrivateKey) {
			*s = "openid"
		}), 403},
	} {
		if got, hdr := status(t, url, c.header, c.value); got != c.want || hdr.Get("WWW-Authenticate") == "" {
			t.Errorf("%s: status %d (WWW-Authenticate %q), want %d", c.name, got, hdr.Get("WWW-Authenticate"), c.want)
		}
	}

	token := is.token("carol", nil)
	alice := connectHTTP(t, url, "Authorization", "Bearer alice-key-0123456789abcdef", nil)
	bob := connectHTTP(t, url, "x-api-key", "bob-key-0123456789abcdef0", nil)
	carol := connectHTTP(t, url, "Authorization", "Bearer "+token, nil)

	a, _ := startSession(t, alice)
	if !slices.Contains(sessionIDs(t, alice), a) {
		t.Fatalf("alice does not list her session %s", a)
	}
	for who, cs := range map[string]*mcp.ClientSession{"bob": bob, "carol": carol} {
		if slices.Contains(sessionIDs(t, cs), a) {
			t.Errorf("%s lists alice's session", who)
		}
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{"mcp_W365ComputerUse_GetSessionDetails", map[string]any{"sessionId": a}},
			{"move_mouse", map[string]any{"x": 100, "y": 100, "sessionId": a}},
			{"browser_get_url", map[string]any{"browserSessionId": a}},
			{"mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": a}},
			{"close_browser_session", map[string]any{"browserSessionId": a}},
		} {
			code, res := callCode(t, cs, c.tool, c.args)
			if code != "NOT_FOUND" || strings.Contains(e2e.Text(res), "alice") {
				t.Errorf("%s: %s on alice's session: %s %s", who, c.tool, code, e2e.Text(res))
			}
		}
	}
	if code, _ := callCode(t, alice, "move_mouse", map[string]any{"x": 321, "y": 123, "sessionId": a}); code != "" {
		t.Fatalf("alice cannot use her session: %s", code)
	}

	// Each principal has its own default session.
	e2e.Must(t, alice, "move_mouse", map[string]any{"x": 401, "y": 301})
	e2e.Must(t, bob, "move_mouse", map[string]any{"x": 602, "y": 502})
	var cur struct{ CursorX, CursorY int }
	e2e.Structured(t, e2e.Call(t, alice, "get_cursor_position", nil), &cur)
	if cur.CursorX != 401 || cur.CursorY != 301 {
		t.Fatalf("alice's default cursor %+v: bob moved it", cur)
	}
	// Over HTTP a browser tool names its browser session, in its schema too.
	for tl, err := range bob.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(tl.InputSchema)
		var in struct {
			Required []string `json:"required"`
		}
		json.Unmarshal(b, &in)
		if (strings.HasPrefix(tl.Name, "browser_") || tl.Name == "close_browser_session") != slices.Contains(in.Required, "browserSessionId") {
			t.Errorf("%s over HTTP requires %v", tl.Name, in.Required)
		}
	}
	if code, res := callCode(t, bob, "browser_get_url", nil); code != "INVALID_ARGUMENT" || !strings.Contains(e2e.Text(res), "browserSessionId") {
		t.Errorf("browser tool without browserSessionId: %s %s", code, e2e.Text(res))
	}

	if code, _ := callCode(t, bob, "mcp_W365ComputerUse_StartSession", map[string]any{"name": "work"}); code != "INVALID_ARGUMENT" {
		t.Errorf("a named session over HTTP: %s", code)
	}

	// Made-up ids start nothing.
	before := len(h.Sessions())
	for _, id := range []string{"s-00000000000000000000000000000000", "nosuch", "../../etc/passwd", "default-1", strings.Repeat("x", 10<<10)} {
		if code, _ := callCode(t, carol, "get_screen_size", map[string]any{"sessionId": id}); code != "NOT_FOUND" {
			t.Errorf("guessed id %.40q: %s", id, code)
		}
	}
	if after := len(h.Sessions()); after != before {
		t.Fatalf("guessed ids started %d sessions", after-before)
	}

	// Ended and closed ids stay dead: SESSION_EXPIRED, not retryable.
	e2e.Must(t, alice, "mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": a})
	var bs struct {
		BrowserSessionID string `json:"browserSessionId"`
	}
	e2e.Structured(t, e2e.Call(t, carol, "create_browser_session", nil), &bs)
	e2e.Must(t, carol, "close_browser_session", map[string]any{"browserSessionId": bs.BrowserSessionID})
	for _, c := range []struct {
		cs   *mcp.ClientSession
		tool string
		args map[string]any
	}{
		{alice, "move_mouse", map[string]any{"x": 10, "y": 10, "sessionId": a}},
		{alice, "mcp_W365ComputerUse_GetSessionDetails", map[string]any{"sessionId": a}},
		{carol, "browser_navigate", map[string]any{"url": "about:blank", "browserSessionId": bs.BrowserSessionID}},
	} {
		_, res := callCode(t, c.cs, c.tool, c.args)
		var p struct {
			Error struct {
				Code      string `json:"code"`
				Retryable bool   `json:"retryable"`
			} `json:"error"`
		}
		b := e2e.ErrorMeta(res)
		json.Unmarshal([]byte(b), &p)
		if p.Error.Code != "SESSION_EXPIRED" || p.Error.Retryable {
			t.Errorf("%s on a dead session: %s", c.tool, b)
		}
	}
	if code, _ := callCode(t, bob, "move_mouse", map[string]any{"x": 10, "y": 10, "sessionId": a}); code != "NOT_FOUND" {
		t.Errorf("bob learns alice's session ended: %s", code)
	}

	// The cap: two sessions besides the default, then RESOURCE_EXHAUSTED.
	startSession(t, bob)
	startSession(t, bob)
	if code, res := callCode(t, bob, "mcp_W365ComputerUse_StartSession", nil); code != "RESOURCE_EXHAUSTED" || !strings.Contains(e2e.Text(res), "maxSessionsPerPrincipal") {
		t.Fatalf("third session: %s %s", code, e2e.Text(res))
	}
	startSession(t, carol) // the cap is per principal

	for _, secret := range []string{"alice-key-0123456789abcdef", "bob-key-0123456789abcdef0", token} {
		if strings.Contains(logs.String(), secret) {
			t.Fatal("a credential reached the logs")
		}
	}
}

// TestHTTPAgentAndCLIShareASession: `serve --http` joins the host the CLI started, an
// HTTP agent starts a session, and the person at the CLI attaches to it with --session:
// each sees the other's cursor moves, tabs and snapshots.
func TestHTTPAgentAndCLIShareASession(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	ps := newPageServer(t)
	h.MustRun("get-screen-size")
	hostPID := h.HostPID()
	url, logs := serveHTTP(t, h, nil)
	if !strings.Contains(logs.String(), "the running w365 host serves HTTP") {
		t.Fatalf("serve --http did not join the running host:\n%s", logs)
	}
	agent := connectHTTP(t, url, "", "", nil)
	id, live := startSession(t, agent)
	if !strings.HasPrefix(live, url+"/live/"+id+"/?token=") {
		t.Errorf("liveViewUrl %q", live)
	}
	if h.HostPID() != hostPID {
		t.Fatal("a second host started")
	}
	cli := func(args ...string) string {
		return strings.TrimSpace(h.MustRun(append([]string{"--session", id}, args...)...))
	}

	// Cursor, both ways.
	e2e.Must(t, agent, "move_mouse", map[string]any{"x": 400, "y": 300, "sessionId": id})
	if got := cli("get-cursor-position"); got != "400 300" {
		t.Fatalf("the CLI sees the agent's cursor at %q", got)
	}
	cli("move-mouse", "500", "350")
	var cur struct{ CursorX, CursorY int }
	e2e.Structured(t, e2e.Call(t, agent, "get_cursor_position", map[string]any{"sessionId": id}), &cur)
	if cur.CursorX != 500 || cur.CursorY != 350 {
		t.Fatalf("the agent sees the CLI's cursor at %+v", cur)
	}
	// The agent's default is its own, not the person's.
	if got := strings.TrimSpace(h.MustRun("get-cursor-position")); got == "500 350" {
		t.Fatal("the CLI's default session is the agent's session")
	}

	// Tabs, both ways.
	e2e.Must(t, agent, "browser_navigate", map[string]any{"url": ps.URL + "/form.html", "browserSessionId": id})
	if got := cli("browser", "get-url"); !strings.Contains(got, "/form.html") {
		t.Fatalf("the CLI sees the agent's tab at %q", got)
	}
	// A stdio client the person pointed at it (serve --mcp --session ID) reaches it too; an
	// agent's stdio client, which names none, does not (TestAgentsAreApartOnAHeadlessHost).
	var u struct {
		URL string `json:"url"`
	}
	e2e.Structured(t, e2e.Call(t, h.MCP("--session", id), "browser_get_url", nil), &u)
	if !strings.Contains(u.URL, "/form.html") {
		t.Fatalf("the person's stdio client sees the session's tab at %q", u.URL)
	}
	if res := e2e.Call(t, h.MCP(), "browser_get_url", map[string]any{"sessionId": id}); e2e.ErrorCode(res) != "NOT_FOUND" {
		t.Fatalf("an agent's stdio client naming an HTTP principal's session: %s, want NOT_FOUND", e2e.Text(res))
	}
	cli("browser", "new-tab", ps.URL+"/second.html")
	var tabs struct {
		Tabs []struct {
			URL string `json:"url"`
		} `json:"tabs"`
	}
	e2e.Structured(t, e2e.Call(t, agent, "browser_list_tabs", map[string]any{"browserSessionId": id}), &tabs)
	if len(tabs.Tabs) != 2 || !strings.Contains(tabs.Tabs[1].URL, "/second.html") {
		t.Fatalf("the agent sees tabs %+v", tabs)
	}
	e2e.Must(t, agent, "browser_switch_tab", map[string]any{"tabIndex": 0, "browserSessionId": id})
	// Each caller acts on its own tab (docs/sessions.md): the person opened the second
	// tab, so the person goes back to the first as the agent did.
	cli("browser", "switch-tab", "0")

	// Snapshots, both ways: each types through a ref of the other's snapshot.
	var snap struct {
		SnapshotID string `json:"snapshotId"`
	}
	// The snapshot's text is the result's text content (structured content does not repeat it).
	snapRes := e2e.Call(t, agent, "browser_snapshot", map[string]any{"browserSessionId": id})
	e2e.Structured(t, snapRes, &snap)
	snapText := e2e.Text(snapRes)
	cli("browser", "type-ref", "--snapshot-id", snap.SnapshotID, "--ref", snapRef(t, snapText, `textbox "Text"`), "--text", "from the CLI")
	var ev struct {
		Value string `json:"value"`
	}
	e2e.Structured(t, e2e.Call(t, agent, "browser_eval_js", map[string]any{"expression": "document.querySelector('#text').value", "browserSessionId": id}), &ev)
	if ev.Value != "from the CLI" {
		t.Fatalf("the agent reads %q", ev.Value)
	}
	h.JSON(&snap, "--session", id, "browser", "snapshot")
	res := e2e.Call(t, agent, "browser_type_ref", map[string]any{"snapshotId": snap.SnapshotID, "ref": snapRef(t, snapText, `textbox "Email"`), "text": "agent@example.com", "browserSessionId": id})
	if res.IsError {
		t.Fatalf("the agent cannot use the CLI's snapshot: %s", e2e.Text(res))
	}
	if got := cli("browser", "eval-js", "document.querySelector('#email').value"); got != "agent@example.com" {
		t.Fatalf("the CLI reads %q", got)
	}

	// The list of the local user shows the agent's session with its owner.
	var list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Owner     string `json:"owner"`
		} `json:"sessions"`
	}
	h.JSON(&list, "session", "list")
	if !slices.ContainsFunc(list.Sessions, func(s struct {
		SessionID string `json:"sessionId"`
		Owner     string `json:"owner"`
	}) bool {
		return s.SessionID == id && s.Owner == "http:anonymous"
	}) {
		t.Fatalf("session list %+v", list.Sessions)
	}
}

// TestLiveViewShowsTheSessionDesktop opens a session's liveViewUrl in headless Chromium,
// draws a big magenta window on the session's desktop, and finds it in a screenshot of
// the page; a missing, wrong or dead token is refused.
func TestLiveViewShowsTheSessionDesktop(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium", "xmessage")
	h := e2e.New(t)
	url, _ := serveHTTP(t, h, nil)
	agent := connectHTTP(t, url, "", "", nil)
	id, live := startSession(t, agent)
	if live == "" {
		t.Fatal("StartSession gave no liveViewUrl while the host serves HTTP")
	}
	var details struct {
		LiveViewURL string            `json:"liveViewUrl"`
		Env         map[string]string `json:"env"`
	}
	e2e.Structured(t, e2e.Call(t, agent, "mcp_W365ComputerUse_GetSessionDetails", map[string]any{"sessionId": id}), &details)
	if details.LiveViewURL != live {
		t.Fatalf("session details liveViewUrl %q, StartSession's %q", details.LiveViewURL, live)
	}
	noToken, _, _ := strings.Cut(live, "?")
	for _, c := range []struct {
		url  string
		want int
	}{
		{noToken, http.StatusUnauthorized},
		{noToken + "?token=0123", http.StatusForbidden},
		{strings.Replace(live, "/?token=", "/stream?token=x", 1), http.StatusForbidden},
	} {
		if got := httpStatus(t, c.url); got != c.want {
			t.Errorf("GET %s: %d, want %d", c.url, got, c.want)
		}
	}

	xm := exec.Command("xmessage", "-geometry", "900x600+300+200", "-bg", "#ff00ff", "-fg", "#ff00ff", "-center", "w365 live view")
	xm.Env = append(os.Environ(), "DISPLAY="+details.Env["DISPLAY"], "XAUTHORITY="+details.Env["XAUTHORITY"])
	if err := xm.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { xm.Process.Kill(); xm.Wait() })

	ctx := openInChromium(t, live)
	var share float64
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if share = magentaShare(t, shot); share > 0.10 {
			break
		}
	}
	if share <= 0.10 {
		t.Fatalf("the live view shows %.1f%% magenta, want the big magenta window", share*100)
	}

	// View-only unless the policy says otherwise.
	resp, err := http.Post(strings.Replace(live, "/?token=", "/input?token=", 1), "application/json", strings.NewReader(`{"tool":"click","args":{"x":500,"y":500}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("input to a view-only live view: %d", resp.StatusCode)
	}

	// The token dies with the session.
	e2e.Must(t, agent, "mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": id})
	if got := httpStatus(t, live); got != http.StatusForbidden {
		t.Errorf("live view of an ended session: %d, want 403", got)
	}
}

// openInChromium opens url in a headless Chromium with a 1280x800 viewport.
func openInChromium(t *testing.T, url string) context.Context {
	t.Helper()
	chromium, _ := exec.LookPath("chromium")
	actx, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium), chromedp.NoSandbox, chromedp.WindowSize(1280, 800),
		chromedp.UserDataDir(t.TempDir()))...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)
	if _, err := chromedp.Run(ctx, chromedp.Navigate(url)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// Behind a router or in a pod, the listening address is not how viewers reach the host:
// --public-url names the address live-view URLs carry; a malformed one is refused.
func TestLiveViewURLsNameThePublicURL(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	url, _ := serveHTTP(t, h, nil, "--public-url", "https://w365.example.test:8443")
	_, live := startSession(t, connectHTTP(t, url, "", "", nil))
	if !strings.HasPrefix(live, "https://w365.example.test:8443/live/") {
		t.Errorf("liveViewUrl %q does not name --public-url", live)
	}
	if r := h.Run("serve", "--http", freeAddr(t), "--public-url", "w365.example.test"); r.Code != 2 || !strings.Contains(r.Stderr, "--public-url") {
		t.Errorf("a malformed --public-url: %+v", r)
	}
}

// TestLiveViewControlsTheDesktopWhenThePolicyAllows: with liveViewControl on, a click
// on the live image clicks the desktop at the matching point.
func TestLiveViewControlsTheDesktopWhenThePolicyAllows(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	pol := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(pol, []byte(`{"liveViewControl": true}`), 0o600)
	url, _ := serveHTTP(t, h, nil, "--policy", pol)
	agent := connectHTTP(t, url, "", "", nil)
	id, live := startSession(t, agent)
	ctx := openInChromium(t, live)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool]("document.querySelector('img').naturalWidth > 0")); err != nil {
		t.Fatal(err)
	}
	// The page's bar takes room above the image: the desktop is fitted, centred, into the
	// image element's own box (object-fit: contain), not into the viewport.
	var size struct{ Width, Height float64 }
	e2e.Structured(t, e2e.Call(t, agent, "get_screen_size", map[string]any{"sessionId": id}), &size)
	box, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => { const i = document.querySelector('img'), r = i.getBoundingClientRect();
		return [r.left, r.top, r.width, r.height, i.naturalWidth, i.naturalHeight]; })()`))
	if err != nil {
		t.Fatal(err)
	}
	if box[4] != size.Width || box[5] != size.Height {
		t.Fatalf("the live image is %.0fx%.0f, the session's screen %.0fx%.0f", box[4], box[5], size.Width, size.Height)
	}
	k := min(box[2]/size.Width, box[3]/size.Height)
	left, top := box[0]+(box[2]-size.Width*k)/2, box[1]+(box[3]-size.Height*k)/2
	// A quarter into the picture, not its centre: that is where X puts the pointer at start.
	wantX, wantY := size.Width/4, size.Height/4
	px, py := left+wantX*k, top+wantY*k
	if _, err := chromedp.Run(ctx, chromedp.MouseClickXY(px, py)); err != nil {
		t.Fatal(err)
	}
	var cur struct{ CursorX, CursorY int }
	near := func(a int, b float64) bool { return float64(a) > b-4 && float64(a) < b+4 }
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		e2e.Structured(t, e2e.Call(t, agent, "get_cursor_position", map[string]any{"sessionId": id}), &cur)
		if near(cur.CursorX, wantX) && near(cur.CursorY, wantY) {
			return
		}
	}
	t.Fatalf("after a click at (%.0f, %.0f) on a %.0fx%.0f image at (%.0f, %.0f) the cursor is at %+v, want about %.0f,%.0f", px, py, box[2], box[3], box[0], box[1], cur, wantX, wantY)
}

func httpStatus(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// magentaShare is the fraction of a PNG's pixels that are (JPEG-ish) magenta.
func magentaShare(t *testing.T, b []byte) float64 {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	r := img.Bounds()
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr>>8 > 200 && cg>>8 < 60 && cb>>8 > 200 {
				n++
			}
		}
	}
	return float64(n) / float64((r.Dx()/2)*(r.Dy()/2))
}

// progressLog collects the progress notifications of an MCP client by token.
type progressLog struct {
	mu  sync.Mutex
	got map[string][]*mcp.ProgressNotificationParams
}

func (p *progressLog) handler(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	p.mu.Lock()
	defer p.mu.Unlock()
	tok, _ := req.Params.ProgressToken.(string)
	p.got[tok] = append(p.got[tok], req.Params)
}

func (p *progressLog) of(token string) []*mcp.ProgressNotificationParams {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.got[token]
}

// TestLongCallsReportProgress: with a progress token, a slow navigation and a long
// browser_wait_for send progress notifications (elapsed seconds, the wait's bound as
// total).
func TestLongCallsReportProgress(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2500 * time.Millisecond)
		w.Write([]byte("<title>slow</title><p>finally</p>"))
	}))
	t.Cleanup(slow.Close)
	h.MustRun("get-screen-size")
	log := &progressLog{got: map[string][]*mcp.ProgressNotificationParams{}}
	cs := h.MCPWith(&mcp.ClientOptions{ProgressNotificationHandler: log.handler})
	call := func(name, token string, args map[string]any) *mcp.CallToolResult {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args, Meta: mcp.Meta{"progressToken": token}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := call("browser_navigate", "nav", map[string]any{"url": slow.URL + "/"}); res.IsError {
		t.Fatalf("navigate: %s", e2e.Text(res))
	}
	// The first navigation says what it waits for: the browser starting, then the page.
	if got := log.of("nav"); len(got) == 0 || got[0].Progress < 0.9 || !strings.Contains(got[len(got)-1].Message, "browser_navigate: loading "+slow.URL) {
		t.Fatalf("progress of a 2.5 s navigation: %+v", got)
	}
	if code := e2e.ErrorCode(call("browser_wait_for", "wait", map[string]any{"text": "never there", "timeoutMs": 2500})); code != "TIMEOUT" {
		t.Fatalf("wait_for: %s", code)
	}
	if got := log.of("wait"); len(got) == 0 || got[0].Total != 2.5 {
		t.Fatalf("progress of a 2.5 s wait_for: %+v", got)
	}
	if len(log.of("")) != 0 {
		t.Fatal("a call without a token got progress")
	}
}
