//go:build linux

package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// appHostPage plays an MCP host that renders apps, with the extension's own host side
// (AppBridge, bundled from testdata/mcpclients): the app's HTML goes into a sandboxed
// frame under the content security policy its _meta.ui.csp asks for, built as the
// extension's sandbox does (its domains for scripts, styles, images; connectDomains for
// fetch), and after the handshake gets the tool's input and result.
const appHostPage = `<!doctype html><html><head><meta charset="utf-8"><title>test host</title></head><body>
<iframe id="app" sandbox="allow-scripts" style="width:1000px;height:700px;border:0"></iframe>
<script>window.errors = []; addEventListener("error", (e) => errors.push(String(e.message)));
addEventListener("unhandledrejection", (e) => errors.push(String(e.reason)));</script>
<script type="module">
import { AppBridge, PostMessageTransport } from "/bridge.js";
const { resource, result } = await (await fetch("/app.json")).json();
const csp = (resource._meta && resource._meta.ui && resource._meta.ui.csp) || {};
const res = (csp.resourceDomains || []).join(" "), conn = (csp.connectDomains || []).join(" ");
const policy = "default-src 'none'; script-src 'unsafe-inline' " + res + "; style-src 'unsafe-inline' " + res +
  "; img-src data: " + res + "; font-src " + res + "; media-src " + res + "; connect-src " + conn + "; frame-src 'none'; base-uri 'none'";
window.sizes = [];
window.initialized = false;
const bridge = new AppBridge(null, {name: "w365-test-host", version: "1.0.0"}, {logging: {}},
  {hostContext: {theme: "dark", displayMode: "inline", platform: "web"}});
bridge.addEventListener("sizechange", (p) => window.sizes.push(p));
bridge.addEventListener("initialized", () => {
  window.initialized = true;
  bridge.sendToolInput({arguments: {}});
  bridge.sendToolResult(result);
});
// Without HTTP the session start tool's result has no liveViewUrl.
window.sendWithoutLiveView = () => {
  const sc = Object.assign({}, result.structuredContent);
  delete sc.liveViewUrl;
  return bridge.sendToolResult({content: result.content, structuredContent: sc});
};
// Any other tool's result, such as a hand-over's.
window.sendResult = (r) => bridge.sendToolResult(r);
const frame = document.getElementById("app");
await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
frame.srcdoc = resource.text.replace(/<head>/i, '<head><meta http-equiv="Content-Security-Policy" content="' + policy + '">');
</script></body></html>`

// TestLiveViewAppRendersTheStream: the TypeScript SDK 1.x client, declaring the MCP
// Apps extension, finds the session start tool's app and reads it back valid by the
// extension's own schemas (testdata/mcpclients/liveapp.mjs); then headless Chromium
// renders the app in a host built on the extension's AppBridge, under the CSP the
// resource declares, with the real result of starting a virtual session: the app's image
// receives frames of that session's screen, its status poll answers, no hand-back is
// offered with no hand-over open, and a result without a live view says so.
func TestLiveViewAppRendersTheStream(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	dir := mcpClients(t)
	node := filepath.Join(dir, "node_modules", ".bin", "node")
	h := e2e.New(t)
	url, logs := serveHTTP(t, h, nil)

	cmd := exec.Command(node, filepath.Join(dir, "liveapp.mjs"), "check", url+"/")
	cmd.Env = append(h.Env, "HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("liveapp.mjs check: %v\n%s\n%s\n%s", err, stdout.String(), stderr.String(), logs)
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	t.Logf("%s", strings.Join(lines[:len(lines)-1], "\n"))
	var app struct {
		Resource json.RawMessage `json:"resource"`
		Result   struct {
			StructuredContent struct {
				SessionID   string `json:"sessionId"`
				LiveViewURL string `json:"liveViewUrl"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	last := []byte(lines[len(lines)-1])
	if err := json.Unmarshal(last, &app); err != nil || app.Result.StructuredContent.LiveViewURL == "" {
		t.Fatalf("liveapp.mjs check printed no resource and result: %v\n%.300s", err, last)
	}

	bridge := filepath.Join(t.TempDir(), "bridge.js")
	if out, err := exec.Command(node, filepath.Join(dir, "liveapp.mjs"), "bridge", bridge).CombinedOutput(); err != nil {
		t.Fatalf("liveapp.mjs bridge: %v\n%s", err, out)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, appHostPage)
	})
	mux.HandleFunc("/bridge.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		http.ServeFile(w, r, bridge)
	})
	mux.HandleFunc("/app.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(last)
	})
	hostPage := httptest.NewServer(mux)
	t.Cleanup(hostPage.Close)

	ctx := openInChromium(t, hostPage.URL+"/")
	inApp := appFrameEval(t, ctx)
	type view struct {
		Width, Height int
		State, Note   string
		ImageShown    bool
		HandBack      bool
	}
	const probe = `(() => { const $ = (id) => document.getElementById(id), img = $('screen');
		return {width: img.naturalWidth, height: img.naturalHeight, state: $('state').textContent, note: $('note').hidden ? '' : $('note').textContent,
			imageShown: !img.hidden, handBack: !$('handover').hidden}; })()`
	var v view
	for deadline := time.Now().Add(45 * time.Second); ; time.Sleep(250 * time.Millisecond) {
		inApp(probe, &v)
		if v.Width > 0 && v.State == "live" || time.Now().After(deadline) {
			break
		}
	}
	if v.Width == 0 || v.State != "live" {
		initialized, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.initialized`))
		t.Fatalf("the app shows %+v (handshake done: %v), want frames of the session and its status live\n%s", v, initialized, logs)
	}
	var size struct{ Width, Height int }
	e2e.Structured(t, e2e.Call(t, connectHTTP(t, url, "", "", nil), "get_screen_size",
		map[string]any{"sessionId": app.Result.StructuredContent.SessionID}), &size)
	if v.Width != size.Width || v.Height != size.Height {
		t.Errorf("the app's frames are %dx%d, the session's screen %dx%d", v.Width, v.Height, size.Width, size.Height)
	}
	if v.HandBack {
		t.Errorf("the app offers a hand-back with no hand-over open")
	}
	sizes, err := chromedp.Run(ctx, chromedp.Evaluate[[]map[string]float64](`window.sizes`))
	if err != nil || len(sizes) == 0 || sizes[len(sizes)-1]["height"] <= 0 {
		t.Errorf("the app told the host no size: %v %v", sizes, err)
	}

	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`window.sendWithoutLiveView()`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if inApp(probe, &v); !v.ImageShown {
			break
		}
	}
	if v.ImageShown || !strings.Contains(v.Note, "No live view") || !strings.Contains(v.Note, "serves no HTTP") {
		t.Errorf("a result without a liveViewUrl shows %+v, want the plain note that there is no live view", v)
	}

	// A hand-over's result in the app: the person hands back from the app's own frame (an
	// origin of the client's, not the host's), and the agent's wait answers with the note.
	agent := connectHTTP(t, url, "", "", nil)
	sid := app.Result.StructuredContent.SessionID
	res := e2e.Call(t, agent, "hand_over_to_person", map[string]any{"sessionId": sid, "reason": "a login for people", "timeoutSeconds": 30})
	var ho struct{ HandoverID, Status, LiveViewURL, Note string }
	e2e.Structured(t, res, &ho)
	if ho.Status != "waiting" || ho.LiveViewURL == "" {
		t.Fatalf("hand-over for a client without elicitation: %+v", ho)
	}
	rb, _ := json.Marshal(res)
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`window.sendResult(`+string(rb)+`)`, chromedp.EvalAwaitPromise)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if inApp(probe, &v); v.HandBack || time.Now().After(deadline) {
			break
		}
	}
	if !v.HandBack {
		t.Fatalf("the app shows no hand-back for an open hand-over: %+v", v)
	}
	var clicked bool
	inApp(`(() => { const b = document.getElementById('handback'); if (b.hidden) return false;
		document.getElementById('handnote').value = 'logged in'; b.click(); return true; })()`, &clicked)
	if !clicked {
		t.Fatal("the hand-back button is hidden behind the hand-over's own link")
	}
	e2e.Structured(t, e2e.Call(t, agent, "hand_over_to_person", map[string]any{"sessionId": sid, "reason": "x", "handoverId": ho.HandoverID}), &ho)
	if ho.Status != "handedBack" || ho.Note != "logged in" {
		var shown string
		inApp(`document.getElementById('handstate').textContent`, &shown)
		t.Fatalf("after Hand back in the app the agent's wait answers %+v (the app says %q)", ho, shown)
	}
}

// appFrameEval returns a function that evaluates an expression in the app's frame and
// decodes its value into out. Chromium runs a sandboxed frame in a process of its own,
// a target of its own (type iframe), which the test attaches to.
func appFrameEval(t *testing.T, ctx context.Context) func(expr string, out any) {
	t.Helper()
	var frame context.Context
	for deadline := time.Now().Add(30 * time.Second); frame == nil; time.Sleep(200 * time.Millisecond) {
		targets, err := chromedp.Targets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, ti := range targets {
			if ti.Type == "iframe" && ti.URL == "about:srcdoc" {
				var cancel context.CancelFunc
				frame, cancel = chromedp.NewContext(ctx, chromedp.WithTargetID(ti.TargetID))
				t.Cleanup(cancel)
			}
		}
		if frame == nil && time.Now().After(deadline) {
			errs, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.errors`))
			b, _ := json.Marshal(targets)
			t.Fatalf("the host page never framed the app: errors %q, targets %s", errs, b)
		}
	}
	return func(expr string, out any) {
		t.Helper()
		v, err := chromedp.Run(frame, chromedp.Evaluate[json.RawMessage](expr))
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(v, out); err != nil {
			t.Fatal(err)
		}
	}
}
