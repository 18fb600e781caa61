//go:build linux

package e2e_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// proxyFlood is browser_run_code's code that opens 48 connections to the host's DevTools
// proxy (the socket its sidecar is given, $W365_CDP_SOCKET), upgrades each to a WebSocket
// and sends 14 MiB of a 15 MiB message on each, never its end: the host reads each
// message whole before it decodes it, so it holds what every connection sent. It returns
// how many connections the host upgraded.
const proxyFlood = `const net = process.mainModule.require('net')
const chunk = Buffer.alloc(1 << 20, 0x61)
const hdr = Buffer.alloc(14)
hdr[0] = 0x81; hdr[1] = 0xff; hdr.writeBigUInt64BE(BigInt(15 << 20), 2)
let upgraded = 0
const conns = []
for (let i = 0; i < 48; i++) {
	const s = net.connect(process.env.W365_CDP_SOCKET)
	s.on('error', () => {})
	conns.push(s)
	s.write('GET /devtools/browser/w365 HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n')
	s.once('data', () => { upgraded++; s.write(hdr); for (let k = 0; k < 14; k++) s.write(chunk) })
}
await new Promise(r => setTimeout(r, 15000))
for (const s of conns) s.destroy()
return upgraded`

// The host's DevTools proxy for browser_run_code took every connection the sidecar opened,
// and each may hold a message of up to 16 MiB being read and 64 MiB queued for it: the
// code, which Node lets open sockets, had the host hold as much as it liked, in the host's
// own process outside every limit of the session. Judged by effect: the host's resident
// peak while 48 connections each send 14 MiB of an unfinished message, and the next call
// still runs.
func TestBrowserRunCodeProxyConnectionsAreBounded(t *testing.T) {
	testenv.Require(t, "chromium", "node", "bwrap")
	h := e2e.New(t)
	fakeHome(t, h)
	runCodeCache(h)
	cs := h.MCP()
	e2e.Structured(t, e2e.Call(t, cs, "browser_navigate", map[string]any{"url": "data:text/html,<title>t</title>"}), &struct{}{})
	if _, v := runCode(t, cs, `return await page.title()`, 60000); v != "t" {
		t.Fatalf("run_code before the flood: %v, want t", v)
	}
	grown := peakGrowth(t, h.HostPID())
	res, v := runCode(t, cs, proxyFlood, 60000)
	grew := grown()
	t.Logf("the host's resident peak grew by %d MiB; connections upgraded: %v (%s)", grew, v, e2e.Text(res))
	if grew > 256 {
		t.Errorf("the host's resident peak grew by %d MiB while run_code's code held 48 proxy connections with 14 MiB each, past 256 MiB", grew)
	}
	if _, v := runCode(t, cs, `return await page.title()`, 60000); v != "t" {
		t.Errorf("run_code after the flood: %v, want t", v)
	}
}

// signInPage serves a sign-in form as a single-page application has it: Sign in posts the
// password with fetch, then takes the form away and shows #welcome. posted gets each
// password the server received.
func signInPage(t *testing.T, posted chan<- string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			b, _ := io.ReadAll(r.Body)
			posted <- string(b)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<title>sign in</title><form id="f" onsubmit="return false">
<input id="pw" type="password"><button id="go" onclick="signIn()">Sign in</button></form>
<script>async function signIn() {
	await fetch('/login', {method: 'POST', body: document.querySelector('#pw').value})
	document.querySelector('#f').remove()
	document.body.insertAdjacentHTML('beforeend', '<p id="welcome">welcome</p>')
}</script>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A password that page code types through a variable, as an agent writes it, and that the
// page then takes away (it signed in), was in the trace and host.log in clear: the records
// hid only the string literals of typing calls (fill('#pw', 'literal')) and the values
// password fields still held after the call, and showed the rest of the code, the password
// in it. Judged by effect: after browser_run_code, browser_evaluate and browser_eval_js each
// sign in so, the server got the password each time and no record holds it.
func TestRecordsKeepNoPasswordCodeTyped(t *testing.T) {
	testenv.Require(t, "chromium", "node", "bwrap")
	h := e2e.New(t)
	runCodeCache(h)
	posted := make(chan string, 8)
	srv := signInPage(t, posted)
	cs := agentOnItsSession(t, h)
	file := strings.Fields(h.MustRun("--session", "default-agent", "trace", "start"))
	const password = "PW-CANARY-code-typed-88"
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"browser_run_code", map[string]any{"code": "const pw = '" + password + "'\nawait page.fill('#pw', pw)\nawait page.click('#go')\nawait page.waitForSelector('#welcome')\nreturn 'signed in'", "timeoutMs": 60000}},
		{"browser_evaluate", map[string]any{"function": "async () => { const pw = '" + password + "'; document.querySelector('#pw').value = pw; await signIn(); return 'signed in' }"}},
		{"browser_eval_js", map[string]any{"expression": "(async () => { const pw = '" + password + "'; document.querySelector('#pw').value = pw; await signIn(); return 'signed in' })()"}},
	} {
		e2e.Structured(t, e2e.Call(t, cs, "browser_navigate", map[string]any{"url": srv.URL + "/"}), &struct{}{})
		if res := e2e.Call(t, cs, c.tool, c.args); res.IsError || !strings.Contains(e2e.Text(res), "signed in") {
			t.Fatalf("%s: %s", c.tool, e2e.Text(res))
		}
		select {
		case got := <-posted:
			if got != password {
				t.Fatalf("%s: the server got %q", c.tool, got)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: the page posted no password", c.tool)
		}
	}
	for name, b := range agentRecords(t, h, file[len(file)-1]) {
		if n := bytes.Count(b, []byte(password)); n > 0 {
			t.Errorf("%s holds the password %d times:\n%s", name, n, b)
		}
	}
}

// multipleApp (python3, ctypes on libX11) sends the CLIPBOARD's owner argv[1] MULTIPLE
// conversions, each of 2,047 STRING targets into properties of its own window, reads none
// of the answers, writes $HOME/sent, and sleeps.
const multipleApp = `import ctypes, os, sys, time
X = ctypes.CDLL('libX11.so.6')
X.XOpenDisplay.restype = ctypes.c_void_p
X.XDefaultRootWindow.restype = ctypes.c_ulong
X.XDefaultRootWindow.argtypes = [ctypes.c_void_p]
X.XCreateSimpleWindow.restype = ctypes.c_ulong
X.XCreateSimpleWindow.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_uint, ctypes.c_uint, ctypes.c_uint, ctypes.c_ulong, ctypes.c_ulong]
X.XInternAtom.restype = ctypes.c_ulong
X.XInternAtom.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
X.XChangeProperty.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
X.XConvertSelection.argtypes = [ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
X.XSync.argtypes = [ctypes.c_void_p, ctypes.c_int]
d = X.XOpenDisplay(None)
w = X.XCreateSimpleWindow(d, X.XDefaultRootWindow(d), 0, 0, 1, 1, 0, 0, 0)
A = lambda s: X.XInternAtom(d, s.encode(), 0)
CLIP, MULT, STRING, PAIR = A('CLIPBOARD'), A('MULTIPLE'), A('STRING'), A('ATOM_PAIR')
for r in range(int(sys.argv[1])):
    pairs = (ctypes.c_ulong * 4094)()
    for i in range(2047):
        pairs[2*i], pairs[2*i+1] = STRING, A('W365_P%d_%d' % (r, i))
    mp = A('W365_M%d' % r)
    X.XChangeProperty(d, w, mp, PAIR, 32, 0, pairs, 4094)
    X.XConvertSelection(d, CLIP, MULT, mp, w, 0)
    X.XSync(d, 0)
open(os.path.join(os.environ['HOME'], 'sent'), 'w').write('1')
time.sleep(120)
`

// The host owns the session's CLIPBOARD after clipboard_write and answers every X client
// of the session that asks for it. It converted the text to ISO 8859-1 anew for each STRING
// target, each of a MULTIPLE request's up to 2,047, and kept each copy of a text longer than
// one X request for 30 s while the client took it in pieces (INCR): a python3 of the session
// (added by the policy) that sent two such requests, reading no answer, after the agent put
// 512 KiB on the clipboard had the host hold a copy per target, in its own process outside
// every limit of the session. Judged by effect: the host's resident peak, and the clipboard
// still reads back.
func TestClipboardRequestsTheHostAnswersAreBounded(t *testing.T) {
	testenv.Require(t, "bwrap", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	pol := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(pol, []byte(`{"launchApplications": ["/usr/bin/python3"], "launchArguments": "any"}`), 0o644)
	h.SetEnv("W365_POLICY", pol)
	cs := h.MCP()
	text := strings.Repeat("x", 512<<10)
	if res := e2e.Call(t, cs, "clipboard_write", map[string]any{"text": text}); res.IsError {
		t.Fatalf("clipboard_write: %s", e2e.Text(res))
	}
	grown := peakGrowth(t, h.HostPID())
	if res := e2e.Call(t, cs, "launch_application", map[string]any{"path": "/usr/bin/python3", "args": []any{"-c", multipleApp, "2"}}); res.IsError {
		t.Fatalf("launch_application: %s", e2e.Text(res))
	}
	sent := false
	for range 240 {
		if m, _ := filepath.Glob(filepath.Join(home, ".local/state/w365/sessions/*/home/sent")); len(m) > 0 {
			sent = true
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if !sent {
		t.Fatal("the application sent no request in 60 s")
	}
	time.Sleep(3 * time.Second)
	grew := grown()
	t.Logf("the host's resident peak grew by %d MiB", grew)
	if grew > 128 {
		t.Errorf("the host's resident peak grew by %d MiB while a client of the session asked for 4,094 STRING conversions of a 512 KiB clipboard, past 128 MiB", grew)
	}
	var out struct {
		Text string `json:"text"`
	}
	if e2e.Structured(t, e2e.Call(t, cs, "clipboard_read", nil), &out); out.Text != text {
		t.Errorf("clipboard_read afterwards: %d characters, want %d", len(out.Text), len(text))
	}
}

// A URL's credentials (the password of https://user:password@host/, an ?api_key= or
// &access_token= value) were in the trace and host.log in clear: only arguments named like
// a credential were hidden, and a URL is named url. Judged by effect: the page is reached
// with both, and neither record holds either.
func TestRecordsKeepNoCredentialOfAURL(t *testing.T) {
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	const password, key = "PW-CANARY-url-77", "KEY-CANARY-url-78"
	got := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pw, _ := r.BasicAuth()
		got <- pw + " " + r.URL.Query().Get("api_key")
		io.WriteString(w, "<title>reached</title>")
	}))
	t.Cleanup(srv.Close)
	cs := agentOnItsSession(t, h)
	file := strings.Fields(h.MustRun("--session", "default-agent", "trace", "start"))
	u := strings.Replace(srv.URL, "http://", "http://ann:"+password+"@", 1) + "/?q=1&api_key=" + key
	if res := e2e.Call(t, cs, "browser_navigate", map[string]any{"url": u}); res.IsError {
		t.Fatalf("browser_navigate: %s", e2e.Text(res))
	}
	select {
	case g := <-got:
		if !strings.Contains(g, key) {
			t.Fatalf("the server got %q, want the key", g)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the page was not reached")
	}
	for name, b := range agentRecords(t, h, file[len(file)-1]) {
		for _, secret := range []string{password, key} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%s holds %s:\n%s", name, secret, b)
			}
		}
	}
}

// agentRecords stops the trace of the agent's session, written to file, and returns what the
// records hold by name: the trace and the host's log.
func agentRecords(t *testing.T, h *e2e.Harness, file string) map[string][]byte {
	t.Helper()
	h.MustRun("--session", "default-agent", "trace", "stop")
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	hostLog, _ := os.ReadFile(filepath.Join(h.RuntimeDir, "host.log"))
	return map[string][]byte{"the trace": raw, "host.log": hostLog}
}
