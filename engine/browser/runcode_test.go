//go:build linux

package browser_test

import (
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
