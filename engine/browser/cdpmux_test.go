//go:build linux

package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/coder/websocket"

	"github.com/w365/w365/test/testenv"
)

// Raw frames a client of the proxy could send, beyond what Playwright's
// JSON.stringify can produce (duplicate keys, escaped keys, envelope
// variants): each is answered with BLOCKED_BY_POLICY, and the tab never shows
// the canary file.
func TestProxyStrictFrames(t *testing.T) {
	testenv.Require(t, "chromium")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	secret := fmt.Sprintf("CANARY-%d-raw", time.Now().UnixNano())
	file := filepath.Join(t.TempDir(), "canary.txt")
	if err := os.WriteFile(file, []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	// The browser's own blocklist is off here (AllowFileURLs), so that the
	// proxy's refusal is what is judged.
	b, err := Launch(ctx, Options{Headless: true, DownloadDir: t.TempDir(), StateDir: t.TempDir(), AllowFileURLs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.opts.AllowFileURLs = false // the proxy's check (checkURL) refuses file: again
	inst := b.inst
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	sock, err := inst.mux.proxySocket(pctx, b, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, _, err := websocket.Dial(ctx, "ws://w365/devtools/browser/test", &websocket.DialOptions{HTTPClient: &http.Client{
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", sock)
		}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	var seen []string
	call := func(frame string) map[string]any {
		t.Helper()
		var id struct {
			ID int64 `json:"id"`
		}
		_ = json.Unmarshal([]byte(frame), &id) // the lenient reading finds the id of the frames below
		if err := ws.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		for {
			_, data, err := ws.Read(ctx)
			if err != nil {
				t.Fatalf("no answer to %s: %v", frame, err)
			}
			seen = append(seen, string(data))
			var m map[string]any
			if json.Unmarshal(data, &m) == nil && m["id"] == float64(id.ID) {
				return m
			}
		}
	}
	tab := string(inst.active.id)
	att := call(fmt.Sprintf(`{"id":1,"method":"Target.attachToTarget","params":{"targetId":%q,"flatten":true}}`, tab))
	sid, _ := att["result"].(map[string]any)["sessionId"].(string)
	if sid == "" {
		t.Fatalf("attach: %v", att)
	}
	u := "file://" + file
	for i, frame := range []string{
		`{"id":%d,"sessionId":%q,"method":"Page.navigate","params":{"url":"about:blank","url":%q}}`,
		`{"id":%d,"sessionId":%q,"method":"Page.navigate","params":{"url":%[3]q,"URL":"about:blank"}}`,
		`{"id":%d,"sessionId":%q,"method":"Page.navigate","params":{"url":"about:blank","\u0075rl":%q}}`,
		`{"id":%d,"sessionId":%q,"method":"Page.navigate","params":{"url":"about:blank","Url":%q}}`,
		`{"id":%d,"sessionId":%q,"method":"Page.navigate","params":{"url":%q}}`,
		`{"id":%d,"sessionId":%q,"method":"Runtime.evaluate","Method":"Page.navigate","params":{"expression":"1","url":%q}}`,
		`{"id":%d,"sessionId":%q,"method":"Runtime.evaluate","method":"Page.navigate","params":{"expression":"1","url":%q}}`,
		`{"id":%d,"sessionId":%q,"method":"Page.navigate","params":{"url":"about:blank","referrer":"x","frameUrl":%q}}`,
		`{"id":%d,"sessionId":%q,"method":"Input.dispatchDragEvent","params":{"type":"drop","x":1,"y":1,"data":{"items":[],"dragOperationsMask":1,"files":[%q]}}}`,
		`{"id":%d,"sessionId":%q,"method":"Input.dispatchDragEvent","params":{"type":"drop","x":1,"y":1,"data":{"items":[],"dragOperationsMask":1,"Files":[%q]}}}`,
		`{"id":%d,"sessionId":%q,"method":"Network.getAllCookies","params":{"x":%q}}`,
		`{"id":%d,"sessionId":%q,"method":"Target.attachToTarget","params":{"targetId":%q,"flatten":false}}`,
		`{"id":%d,"sessionId":%q,"method":"Target.sendMessageToTarget","params":{"message":%q}}`,
		`{"id":%d,"method":"Target.createTarget","params":{"url":%[3]q},"sessionId":%[2]q}`,
		`{"id":%d,"sessionId":%q,"method":"Fetch.continueRequest","params":{"requestId":"1","url":%q}}`,
	} {
		id := 100 + i
		f := fmt.Sprintf(frame, id, sid, u)
		r := call(f)
		e, _ := r["error"].(map[string]any)
		if msg, _ := e["message"].(string); !strings.HasPrefix(msg, blockedPrefix) {
			t.Errorf("not refused: %s -> %v", f, r)
		}
	}
	if r := call(fmt.Sprintf(`{"id":200,"sessionId":%q,"method":"Page.navigate","params":{"url":"about:blank"}}`, sid)); r["error"] != nil {
		t.Fatalf("a plain navigation was refused: %v", r)
	}
	time.Sleep(500 * time.Millisecond)
	ev, err := cdp.Call(ctx, inst.active.t, runtime.Evaluate, runtime.EvaluateParams{
		Expression: `location.href + " " + document.documentElement.innerText`, ReturnByValue: new(true)})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(ev.Result.Value); strings.Contains(got, secret) || strings.Contains(got, "file:") {
		t.Fatalf("the tab opened the file: %s", got)
	}
	for _, f := range seen {
		if strings.Contains(f, secret) {
			t.Fatalf("the canary reached the client: %s", f)
		}
	}
}

func TestStrictJSON(t *testing.T) {
	for in, ok := range map[string]bool{
		`{"a":1,"b":{"c":[1,{"d":2}]}}`: true,
		`{"a":1,"a":2}`:                 false,
		`{"url":"x","URL":"y"}`:         false,
		`{"a":{"files":[],"Files":[]}}`: false,
		`{"a":[{"k":1,"\u006b":2}]}`:    false,
		`{"a":1} {"b":2}`:               false,
		`{"a":1`:                        false,
		`{"n":12345678901234567890}`:    true,
	} {
		v, err := strictJSON([]byte(in))
		if (err == nil) != ok {
			t.Errorf("%s: %v", in, err)
		}
		if ok {
			out, _ := json.Marshal(v)
			if in == `{"n":12345678901234567890}` && string(out) != in {
				t.Errorf("a number changed in the re-encoding: %s", out)
			}
		}
	}
}
