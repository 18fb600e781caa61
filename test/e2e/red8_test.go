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
	h.MustRun("--session", "default-agent", "trace", "stop")
	raw, err := os.ReadFile(file[len(file)-1])
	if err != nil {
		t.Fatal(err)
	}
	hostLog, _ := os.ReadFile(filepath.Join(h.RuntimeDir, "host.log"))
	for name, b := range map[string][]byte{"the trace": raw, "host.log": hostLog} {
		if n := bytes.Count(b, []byte(password)); n > 0 {
			t.Errorf("%s holds the password %d times:\n%s", name, n, b)
		}
	}
}
