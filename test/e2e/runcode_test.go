//go:build linux

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

func runCode(t *testing.T, cs *mcp.ClientSession, code string, timeoutMs int) (*mcp.CallToolResult, any) {
	t.Helper()
	args := map[string]any{"code": code}
	if timeoutMs > 0 {
		args["timeoutMs"] = timeoutMs
	}
	res := e2e.Call(t, cs, "browser_run_code", args)
	if res.IsError {
		return res, nil
	}
	var out struct {
		Result string `json:"result"`
	}
	e2e.Structured(t, res, &out)
	var v any
	if err := json.Unmarshal([]byte(out.Result), &v); err != nil {
		t.Fatalf("result %q is not JSON: %v", out.Result, err)
	}
	return res, v
}

// browser_run_code over MCP: a real Playwright page bound to the active tab, in
// a sandbox that has no host files and no network, with errors in the error model.
func TestBrowserRunCodeOverMCP(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium", "node", "bwrap")
	h := e2e.New(t)
	home := fakeHome(t, h)
	runCodeCache(h)
	same, _ := snapPages(t)
	cs := h.MCP()
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/contract.html"})

	if res, v := runCode(t, cs, "return await page.title()", 0); v != "Contract" {
		t.Fatalf("page.title(): %v %s", v, e2e.Text(res))
	}
	// Playwright MCP's function form, and a second tab: the page is the active tab.
	e2e.Must(t, cs, "browser_new_tab", map[string]any{"url": same + "/second.html"})
	if res, v := runCode(t, cs, "async (page) => page.title()", 0); v != "Second" {
		t.Fatalf("function form on the new tab: %v %s", v, e2e.Text(res))
	}
	e2e.Must(t, cs, "browser_switch_tab", map[string]any{"tabIndex": 0})
	// A locator click changes the page, as the page itself reports.
	start := time.Now()
	if res, v := runCode(t, cs, "await page.getByRole('button', {name: 'Go'}).click(); return page.url()", 0); v == nil || !strings.HasSuffix(v.(string), "/contract.html") {
		t.Fatalf("locator click: %v %s", v, e2e.Text(res))
	}
	t.Logf("warm run_code: %s", time.Since(start))
	if got := evalValue(t, cs, "JSON.stringify(window.__log)"); got != `["click:0:1:"]` {
		t.Fatalf("the page saw %s", got)
	}
	// A thrown error, a non-serialisable value.
	for code, want := range map[string]string{
		"throw new Error('boom from the code')":             "boom from the code",
		"return () => 1":                                    "not JSON-serialisable",
		"const a = {}; a.self = a; return a":                "not JSON-serialisable",
		"return 1n":                                         "not JSON-serialisable",
		"this is not javascript":                            "SyntaxError",
		"return await page.context().cookies()":             "Storage.getCookies is not allowed",
		"await page.locator('#nope').click({timeout: 300})": "Timeout",
	} {
		res, _ := runCode(t, cs, code, 0)
		if !res.IsError || !strings.Contains(e2e.Text(res), want) {
			t.Fatalf("%s: %s", code, e2e.Text(res))
		}
	}
	if got := evalValue(t, cs, "JSON.stringify(window.__log.filter(s => s.startsWith('file:')))"); got != "[]" {
		t.Fatalf("the page received files: %s", got)
	}
	// Cookie values stay in the browser: not in the headers Playwright sees either.
	e2e.Must(t, cs, "browser_set_cookies", map[string]any{"cookies": []any{
		map[string]any{"name": "sid", "value": "s3cr3t-value", "httpOnly": true}}})
	if res, v := runCode(t, cs, `const r = await page.reload(); const req = await r.request().allHeaders(); const resp = await r.allHeaders();
return JSON.stringify([req, resp, await r.request().headersArray()])`, 0); v == nil || strings.Contains(v.(string), "s3cr3t") {
		t.Fatalf("headers seen by the code: %v %s", v, e2e.Text(res))
	}
	// A timeout stops the code; the next call answers.
	res, _ := runCode(t, cs, "await new Promise(r => setTimeout(r, 20000)); return 'late'", 700)
	if code := e2e.ErrorCode(res); code != "TIMEOUT" {
		t.Fatalf("timeout: %q %s", code, e2e.Text(res))
	}
	if res, v := runCode(t, cs, "return 40 + 2", 0); v != float64(42) {
		t.Fatalf("after a timeout: %v %s", v, e2e.Text(res))
	}
	// The sandbox: no host files, no network (the page's server is on the host's loopback).
	port := same[strings.LastIndex(same, ":")+1:]
	for code, want := range map[string]string{
		"return process.mainModule.require('fs').readFileSync('/etc/passwd', 'utf8')":                                                                                                                                        "ENOENT",
		fmt.Sprintf("return process.mainModule.require('fs').readFileSync(%q, 'utf8')", filepath.Join(home, ".bashrc")):                                                                                                      "ENOENT",
		fmt.Sprintf("return process.mainModule.require('fs').readdirSync(%q)", h.RuntimeDir):                                                                                                                                 "ENOENT",
		fmt.Sprintf("const net = process.mainModule.require('net'); return await new Promise((ok, fail) => { const s = net.connect(%s, '127.0.0.1'); s.on('connect', () => ok('connected')); s.on('error', fail); })", port): "ECONNREFUSED",
		"return await fetch('http://example.com/').then(r => r.status)":                                                                                                                                                      "fetch failed",
	} {
		res, v := runCode(t, cs, code, 3000)
		if !res.IsError || !strings.Contains(e2e.Text(res), want) || strings.Contains(e2e.Text(res), "root:") || strings.Contains(e2e.Text(res), "canary") {
			t.Fatalf("the sandbox let through %s: %v %s", code, v, e2e.Text(res))
		}
	}
	// Writing in the scratch directory works.
	if res, v := runCode(t, cs, "const fs = process.mainModule.require('fs'); fs.writeFileSync('/tmp/x', 'y'); return fs.readFileSync('/tmp/x', 'utf8')", 0); v != "y" {
		t.Fatalf("scratch: %v %s", v, e2e.Text(res))
	}
}

// The policy turns browser_run_code off, and --read-only does not list it.
func TestBrowserRunCodeOffByPolicyAndReadOnly(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	pol := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(pol, []byte(`{"browserRunCode": false}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := h.MCP("--policy", pol)
	if code := e2e.ErrorCode(e2e.Call(t, cs, "browser_run_code", map[string]any{"code": "return 1"})); code != "BLOCKED_BY_POLICY" {
		t.Fatalf("run_code under a policy that turns it off: %q", code)
	}
	h.StopHost()
	ro := e2e.New(t).MCP("--read-only")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tools, err := ro.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(tools)
	if strings.Contains(string(b), "browser_run_code") {
		t.Fatal("--read-only lists browser_run_code")
	}
}

// The attacks on browser_run_code's DevTools proxy through the built binary,
// each judged by its effect: a canary file's content never reaches a result,
// the HttpOnly cookie's value neither, and a download lands only in the
// session's download directory, never in ~/.config/autostart.
func TestBrowserRunCodeProxyAttacks(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium", "node", "bwrap")
	h := e2e.New(t)
	home := fakeHome(t, h)
	runCodeCache(h)
	secret := fmt.Sprintf("CANARY-%d", time.Now().UnixNano())
	canary := filepath.Join(t.TempDir(), "canary.txt")
	if err := os.WriteFile(canary, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	autostart := filepath.Join(home, ".config", "autostart")
	if err := os.MkdirAll(autostart, 0o700); err != nil {
		t.Fatal(err)
	}
	same, _ := snapPages(t)
	cs := h.MCP()
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/dnd.html"})
	e2e.Must(t, cs, "browser_set_cookies", map[string]any{"cookies": []any{
		map[string]any{"name": "sid", "value": "s3cr3t-value", "httpOnly": true}}})
	file := "file://" + canary
	for name, code := range map[string]string{
		"case-variant url": fmt.Sprintf(`const s = await page.context().newCDPSession(page);
const errs = [];
try { await s.send('Page.navigate', {url: %q, URL: 'about:blank'}); } catch (e) { errs.push(e.message); }
await page.waitForTimeout(500);
return [errs, page.url(), await page.evaluate(() => document.documentElement.innerText)];`, file),
		"case-variant drag": fmt.Sprintf(`await page.evaluate(() => { window.__dropped = ''; document.getElementById('dst').addEventListener('drop', async e => { for (const f of e.dataTransfer.files) window.__dropped += await f.text(); }); });
const s = await page.context().newCDPSession(page);
const box = await page.locator('#dst').boundingBox();
const data = {items: [], dragOperationsMask: 1, files: [%q], Files: []};
for (const type of ['dragEnter', 'dragOver', 'drop']) { try { await s.send('Input.dispatchDragEvent', {type, x: box.x + 5, y: box.y + 5, data}); } catch (e) {} }
await page.waitForTimeout(300);
return await page.evaluate(() => window.__dropped);`, canary),
		"page script to a file": fmt.Sprintf(`await page.evaluate(u => { location.href = u; }, %q).catch(() => {});
await page.waitForTimeout(500);
return [page.url(), await page.evaluate(() => document.documentElement.innerText).catch(e => e.message)];`, file),
		"link to a file": fmt.Sprintf(`await page.evaluate(u => { const a = document.createElement('a'); a.id = 'l'; a.href = u; a.textContent = 'local'; document.body.append(a); }, %q);
await page.locator('#l').click();
await page.waitForTimeout(500);
return [page.url(), await page.evaluate(() => document.documentElement.innerText).catch(e => e.message)];`, file),
		"cookies through a non-flat session": `const s = await page.context().newCDPSession(page);
const {targetInfo} = await s.send('Target.getTargetInfo');
const got = [];
s.on('Target.receivedMessageFromTarget', e => got.push(e.message));
let sessionId = '';
try { ({sessionId} = await s.send('Target.attachToTarget', {targetId: targetInfo.targetId, flatten: false})); } catch (e) { got.push(e.message); }
for (const method of ['Network.getAllCookies', 'Storage.getCookies']) {
  try { await s.send('Target.sendMessageToTarget', {sessionId, message: JSON.stringify({id: 1, method})}); } catch (e) { got.push(e.message); }
}
await page.waitForTimeout(300);
return got;`,
		"download into autostart": fmt.Sprintf(`const s = await page.context().newCDPSession(page);
const {targetInfo} = await s.send('Target.getTargetInfo');
for (const [m, p] of [['Browser.setDownloadBehavior', {behavior: 'allow', downloadPath: %[1]q}], ['Page.setDownloadBehavior', {behavior: 'allow', downloadPath: %[1]q}]]) {
  try { await s.send(m, p); } catch (e) {}
  try {
    const {sessionId} = await s.send('Target.attachToTarget', {targetId: targetInfo.targetId, flatten: false});
    await s.send('Target.sendMessageToTarget', {sessionId, message: JSON.stringify({id: 1, method: m, params: p})});
  } catch (e) {}
}
await page.evaluate(() => { const a = document.createElement('a'); a.href = URL.createObjectURL(new Blob(['[Desktop Entry]\nExec=touch /tmp/pwned\n'])); a.download = 'evil.desktop'; document.body.append(a); a.click(); });
await page.waitForTimeout(1500);
return 'clicked';`, autostart),
	} {
		e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/dnd.html"})
		res, v := runCode(t, cs, code, 10000)
		text := e2e.Text(res) + fmt.Sprint(v)
		if strings.Contains(text, secret) || strings.Contains(text, "s3cr3t") {
			t.Fatalf("%s: the attack read a secret: %s", name, text)
		}
	}
	if ents, _ := os.ReadDir(autostart); len(ents) > 0 {
		t.Fatalf("a download landed in ~/.config/autostart: %v", ents)
	}
	var dl struct {
		Downloads []struct {
			Path  string `json:"path"`
			State string `json:"state"`
		} `json:"downloads"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "browser_downloads", map[string]any{}), &dl)
	// The session's download directory is in its state directory (docs/sessions.md#files).
	states := filepath.Join(home, ".local", "state", "w365", "sessions") + string(filepath.Separator)
	if len(dl.Downloads) != 1 || dl.Downloads[0].State != "completed" || !strings.HasPrefix(dl.Downloads[0].Path, states) {
		t.Fatalf("the download (in the session's directory, and only there): %+v", dl.Downloads)
	}
	// A refusal is BLOCKED_BY_POLICY, naming the method, with a hint.
	res, _ := runCode(t, cs, `const s = await page.context().newCDPSession(page); return await s.send('Network.getAllCookies')`, 0)
	if code := e2e.ErrorCode(res); code != "BLOCKED_BY_POLICY" || !strings.Contains(e2e.Text(res), "Network.getAllCookies") {
		t.Fatalf("refusal: %q %s", code, e2e.Text(res))
	}
}
