//go:build linux

package browser_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

func TestRunCodeEngine(t *testing.T) {
	testenv.Require(t, "node", "bwrap")
	b, s := launch(t)
	navigate(t, b, s.URL+"/third.html")
	r, err := b.RunCode(tctx(t), "return await page.title()", 0)
	if err != nil {
		t.Fatal(err)
	}
	if string(r.Value) != `"Third"` {
		t.Fatalf("title: %s", r.Value)
	}
}

// Without Node, browser_run_code says UNSUPPORTED and how to fix it.
func TestRunCodeWithoutNode(t *testing.T) {
	b, s := launch(t)
	navigate(t, b, s.URL+"/third.html")
	t.Setenv("PATH", t.TempDir())
	_, err := b.RunCode(tctx(t), "return 1", 0)
	mustCode(t, err, werr.Unsupported)
	if !strings.Contains(werr.As(err).Hint, "install Node.js") {
		t.Fatalf("no fix named: %+v", werr.As(err))
	}
}

// canary writes a file with a unique content outside every root and returns
// its path and content.
func canary(t *testing.T) (string, string) {
	t.Helper()
	secret := fmt.Sprintf("CANARY-%d-file-content", time.Now().UnixNano())
	path := filepath.Join(t.TempDir(), "canary.txt")
	if err := os.WriteFile(path, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, secret
}

// The attacks on the run_code proxy, each judged by its effect: the canary
// file's content and the HttpOnly cookie's value never reach the result, and
// no download lands outside the session's download directory.
func TestRunCodeProxyAttacks(t *testing.T) {
	testenv.Require(t, "node", "bwrap")
	b, s := launch(t)
	file, secret := canary(t)
	fileURL := "file://" + file
	outside := t.TempDir()
	navigate(t, b, s.URL+"/setcookie") // session=secret-value-xyz, HttpOnly
	navigate(t, b, s.URL+"/dnd.html")
	const cookieValue = "secret-value-xyz"
	for _, a := range []struct{ name, code string }{
		{"navigate with a case-variant key", fmt.Sprintf(`const s = await page.context().newCDPSession(page);
try { await s.send('Page.navigate', {url: %q, URL: 'about:blank'}); } catch (e) {}
await page.waitForTimeout(500);
return await page.evaluate(() => location.href + ' ' + document.documentElement.innerText);`, fileURL)},
		{"new tab with a case-variant key", fmt.Sprintf(`const s = await page.context().newCDPSession(page);
const out = [];
try { await s.send('Target.createTarget', {url: %q, URL: 'about:blank'}); } catch (e) { out.push(e.message) }
await page.waitForTimeout(500);
for (const p of page.context().pages()) out.push(p.url() + ' ' + await p.evaluate(() => document.documentElement.innerText).catch(() => ''));
return out;`, fileURL)},
		{"goto a file", fmt.Sprintf(`await page.goto(%q).catch(() => {}); return await page.evaluate(() => location.href + ' ' + document.documentElement.innerText);`, fileURL)},
		{"dragged file with a case-variant key", fmt.Sprintf(`await page.evaluate(() => {
  window.__dropped = '';
  document.getElementById('dst').addEventListener('drop', async e => { for (const f of e.dataTransfer.files) window.__dropped += await f.text(); });
});
const s = await page.context().newCDPSession(page);
const box = await page.locator('#dst').boundingBox();
const x = box.x + 10, y = box.y + 10;
const data = {items: [], dragOperationsMask: 1, files: [%q], Files: []};
for (const type of ['dragEnter', 'dragOver', 'drop']) {
  try { await s.send('Input.dispatchDragEvent', {type, x, y, data}); } catch (e) {}
}
await page.waitForTimeout(300);
return await page.evaluate(() => window.__dropped);`, file)},
		{"a world with universal access fetches a file", fmt.Sprintf(`const s = await page.context().newCDPSession(page);
const {frameTree} = await s.send('Page.getFrameTree');
const {executionContextId} = await s.send('Page.createIsolatedWorld', {frameId: frameTree.frame.id, worldName: 'x', grantUniveralAccess: true});
const out = [];
for (const expression of ['fetch(%[1]q).then(r => r.text())', 'new Promise(ok => { const x = new XMLHttpRequest(); x.open("GET", %[1]q); x.onload = () => ok(x.responseText); x.onerror = () => ok("xhr error"); x.send(); })',
  'new Promise(ok => { const f = document.createElement("iframe"); f.src = %[1]q; f.onload = () => { try { ok(f.contentDocument.body.innerText); } catch (e) { ok(e.message); } }; document.body.append(f); })']) {
  const bounded = 'Promise.race([' + expression + ', new Promise(ok => setTimeout(() => ok("no answer"), 2000))]).catch(e => String(e))';
  try { out.push(JSON.stringify(await s.send('Runtime.evaluate', {expression: bounded, contextId: executionContextId, awaitPromise: true, returnByValue: true}))); } catch (e) { out.push(e.message); }
}
return out;`, fileURL)},
		{"cookies through a non-flat session", `const s = await page.context().newCDPSession(page);
const {targetInfo} = await s.send('Target.getTargetInfo');
const got = [];
s.on('Target.receivedMessageFromTarget', e => got.push(e.message));
let sessionId = '';
try { ({sessionId} = await s.send('Target.attachToTarget', {targetId: targetInfo.targetId, flatten: false})); } catch (e) { got.push(e.message); }
for (const method of ['Network.getAllCookies', 'Storage.getCookies', 'Network.getCookies']) {
  try { await s.send('Target.sendMessageToTarget', {sessionId, message: JSON.stringify({id: 1, method})}); } catch (e) { got.push(e.message); }
  try { got.push(JSON.stringify(await s.send(method))); } catch (e) { got.push(e.message); }
}
await page.waitForTimeout(300);
return got;`},
		{"cookies in request headers", fmt.Sprintf(`const seen = [];
page.on('request', async r => seen.push(JSON.stringify(await r.allHeaders().catch(() => ({})))));
page.on('response', async r => seen.push(JSON.stringify(await r.allHeaders().catch(() => ({})))));
await page.goto(%q);
await page.waitForTimeout(200);
return seen;`, s.URL+"/echo-cookies")},
		{"download behavior", fmt.Sprintf(`const s = await page.context().newCDPSession(page);
const {targetInfo} = await s.send('Target.getTargetInfo');
try { await s.send('Browser.setDownloadBehavior', {behavior: 'allow', downloadPath: %[1]q}); } catch (e) {}
try { await s.send('Page.setDownloadBehavior', {behavior: 'allow', downloadPath: %[1]q}); } catch (e) {}
try {
  const {sessionId} = await s.send('Target.attachToTarget', {targetId: targetInfo.targetId, flatten: false});
  await s.send('Target.sendMessageToTarget', {sessionId, message: JSON.stringify({id: 1, method: 'Page.setDownloadBehavior', params: {behavior: 'allow', downloadPath: %[1]q}})});
} catch (e) {}
await page.evaluate(u => { const a = document.createElement('a'); a.href = u; a.download = 'autostart.desktop'; document.body.append(a); a.click(); }, %[2]q);
await page.waitForTimeout(1500);
return 'done';`, outside, s.URL+"/download/report.txt")},
	} {
		t.Run(a.name, func(t *testing.T) {
			navigate(t, b, s.URL+"/dnd.html")
			r, err := b.RunCode(tctx(t), a.code, 10000)
			got := fmt.Sprint(err)
			if r != nil {
				got += string(r.Value)
			}
			if strings.Contains(got, secret) || strings.Contains(got, cookieValue) {
				t.Fatalf("the attack read a secret: %s", got)
			}
			t.Logf("%s", truncate(got, 600))
		})
	}
	if ents, _ := os.ReadDir(outside); len(ents) > 0 {
		t.Fatalf("a download landed outside the download directory: %v", ents)
	}
	if ents, _ := os.ReadDir(b.DownloadDir()); len(ents) == 0 {
		t.Fatal("the download did not land in the download directory either: the test did not download")
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// What Playwright code does every day keeps working through the proxy: goto,
// locators (fill, click, textContent), evaluate, waits, keyboard, a drag,
// screenshots, frames (one of them out of process), routes, a new page, a
// CDP session of its own.
func TestRunCodePlaywrightAPIs(t *testing.T) {
	testenv.Require(t, "node", "bwrap")
	b, s := launch(t)
	navigate(t, b, s.URL+"/third.html")
	cross := strings.Replace(s.URL, "127.0.0.1", "localhost", 1) + "/snap_child.html"
	code := fmt.Sprintf(`const base = %q, cross = %q, out = {};
await page.goto(base + '/form.html');
await page.locator('#text').fill('hello');
await page.getByRole('textbox', {name: /notes/i}).or(page.locator('#notes')).first().fill('some notes');
await page.locator('#agree').check();
await page.locator('#fruit').selectOption({index: 1});
out.text = await page.locator('#text').inputValue();
await page.locator('#email').click();
await page.keyboard.type('a@b.c');
out.email = await page.evaluate(() => document.getElementById('email').value);
await page.locator('#submit').click();
await page.waitForSelector('#echo');
out.echo = await page.locator('#echo').textContent();
out.shot = (await page.screenshot()).length;
out.elShot = (await page.locator('#echo').screenshot()).length;
await page.goto(base + '/snap_frames.html?x=' + encodeURIComponent(cross));
await page.frameLocator('#same').locator('#b').click();
const crossFrame = page.frames().find(f => f.url().startsWith(cross));
await crossFrame.waitForSelector('#b');
await page.frameLocator('#cross').locator('input').fill('typed');
out.frames = page.frames().length;
out.crossValue = await crossFrame.locator('input').inputValue();
await page.goto(base + '/dnd.html');
await page.locator('#src').dragTo(page.locator('#dst'));
out.dropped = await page.locator('#dst').textContent();
await page.route('**/routed', r => r.fulfill({status: 200, contentType: 'text/html', body: '<title>Routed</title><p id=r>from the route</p>'}));
await page.goto(base + '/routed');
out.routed = await page.locator('#r').textContent();
await page.unroute('**/routed');
const p2 = await page.context().newPage();
await p2.goto(base + '/second.html');
out.second = await p2.title();
await p2.close();
const s = await page.context().newCDPSession(page);
out.cdp = (await s.send('Runtime.evaluate', {expression: '6 * 7', returnByValue: true})).result.value;
await s.detach();
await page.goBack();
out.back = page.url();
const [download] = await Promise.all([page.waitForEvent('download'), page.evaluate(u => { const a = document.createElement('a'); a.href = u; document.body.append(a); a.click(); }, base + '/download/report.txt')]);
out.download = download.suggestedFilename();
await page.setViewportSize({width: 800, height: 600});
out.width = await page.evaluate(() => innerWidth);
return out;`, s.URL, cross)
	r, err := b.RunCode(tctx(t), code, 60000)
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Text, Email, Echo, Dropped, Routed, Second, Back, CrossValue, Download string
		Shot, ElShot, Frames, Cdp, Width                                       int
	}
	if err := json.Unmarshal(r.Value, &out); err != nil {
		t.Fatalf("%s: %v", r.Value, err)
	}
	if out.Text != "hello" || out.Email != "a@b.c" || !strings.Contains(out.Echo, `"hello"`) || !strings.Contains(out.Echo, "some notes") ||
		out.Shot < 1000 || out.ElShot < 100 || out.Frames < 3 || out.CrossValue != "typed" || out.Dropped != "dropped card-42" ||
		out.Routed != "from the route" || out.Second != "Second" || out.Cdp != 42 || !strings.HasSuffix(out.Back, "/dnd.html") || out.Width != 800 || out.Download != "report.txt" {
		t.Fatalf("Playwright through the proxy: %s", r.Value)
	}
}

// Code that never yields (a busy loop) cannot hold the sidecar's own timer off:
// the host stops it just past its timeout. Before, a loop of 8 s under a
// timeout of 500 ms ran to its end and the call returned its value.
func TestRunCodeBusyLoopIsStoppedAtItsTimeout(t *testing.T) {
	testenv.Require(t, "node", "bwrap")
	b, s := launch(t)
	navigate(t, b, s.URL+"/third.html")
	if _, err := b.RunCode(tctx(t), "return 1", 0); err != nil { // Playwright connected
		t.Fatal(err)
	}
	r, err := b.RunCode(tctx(t), "const end = Date.now() + 8000; while (Date.now() < end) {} return 'done';", 500)
	mustCode(t, err, werr.Timeout)
	if r != nil {
		t.Fatalf("result %s", r.Value)
	}
	if r, err = b.RunCode(tctx(t), "return await page.title()", 0); err != nil || string(r.Value) != `"Third"` {
		t.Fatalf("the next call: %v %v", r, err) // a new sidecar serves it
	}
}
