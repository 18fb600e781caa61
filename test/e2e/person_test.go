//go:build linux

package e2e_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// handBackInBrowser opens a hand-over's link in headless Chromium, as the person would, and
// presses Hand back with note.
func handBackInBrowser(t *testing.T, link, note string) {
	t.Helper()
	ctx := openInChromium(t, link)
	pressHandBack(t, ctx, note)
}

// pressHandBack fills the page's note and presses its Hand back button once it shows.
func pressHandBack(t *testing.T, ctx context.Context, note string) {
	t.Helper()
	n, _ := json.Marshal(note)
	for _, js := range []string{`!document.getElementById('handback').hidden`,
		`(() => { document.getElementById('note').value = ` + string(n) + `; document.getElementById('handback').click(); return true; })()`,
		`document.getElementById('state').textContent.startsWith('handed back')`} {
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js)); err != nil {
			t.Fatalf("hand back in the live view page (%s): %v", js, err)
		}
	}
}

// liveStatus is the live view's status for a link (the page's or a hand-over's).
func liveStatus(t *testing.T, link string) (code int, st map[string]any) {
	t.Helper()
	resp, err := http.Get(strings.Replace(link, "/?token=", "/status?token=", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	json.NewDecoder(resp.Body).Decode(&st)
	return resp.StatusCode, st
}

// TestHandOverWithTheTypeScriptClients: the 1.x and 2.x TypeScript clients that accept the
// URL elicitation, decline it, or declare none, and one that nobody answers; the person
// hands back in the live view page in headless Chromium (testdata/mcpclients/handover.mjs).
func TestHandOverWithTheTypeScriptClients(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	dir := mcpClients(t)
	node := filepath.Join(dir, "node_modules", ".bin", "node")
	h := e2e.New(t)
	url, _ := serveHTTP(t, h, nil)
	for _, c := range []struct{ sdk, mode string }{
		{"v1", "accept"}, {"v1", "decline"}, {"v1", "none"}, {"v1", "timeout"},
		{"v2", "accept"}, {"v2", "decline"}, {"v2", "none"}, {"v2-auto", "accept"},
	} {
		t.Run(c.sdk+"/"+c.mode, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "handover.mjs"), c.sdk, c.mode)
			cmd.Env = append(append([]string{}, h.Env...), "W365_HTTP_URL="+url+"/")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			var lines []string
			links := 0
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines = append(lines, sc.Text())
				if link, ok := strings.CutPrefix(sc.Text(), "LINK "); ok {
					links++
					handBackInBrowser(t, link, "done by the person")
				}
			}
			err = cmd.Wait()
			report := strings.Join(lines, "\n") + "\n" + stderr.String()
			if err != nil {
				t.Fatalf("handover.mjs %s %s: %v\n%s", c.sdk, c.mode, err, report)
			}
			if want := map[bool]int{true: 0, false: 1}[c.mode == "timeout"]; links != want {
				t.Fatalf("the person was given %d links, want %d\n%s", links, want, report)
			}
			t.Logf("%s", report)
		})
	}
}

// TestHandOverGivesThePersonControlAndTheAgentSeesWhatTheyLeft (go-sdk client with URL
// elicitation): while the hand-over is open the agent's other call on the session waits, the
// one-time link gives control although the policy's live view is view-only, the person's click
// moves the session's pointer, and after the hand-back the waiting call sees where they left
// it; the link dies, and watch and the trace name each step.
func TestHandOverGivesThePersonControlAndTheAgentSeesWhatTheyLeft(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	url, _ := serveHTTP(t, h, nil)
	links := make(chan string, 1)
	// The 2025 era: the 2026-07-28 one has no server-to-client requests, so no elicitation.
	agent, err := mcp.NewClient(&mcp.Implementation{Name: "handover-e2e", Version: "1"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			links <- r.Params.URL
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	}).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url + "/"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { agent.Close() })
	id, live := startSession(t, agent)
	if r := h.Run("--session", id, "trace", "start"); r.Code != 0 {
		t.Fatalf("trace start: %+v", r)
	}
	watch := exec.Command(h.Bin, "--session", id, "watch", "--json")
	watch.Env = h.Env
	var watched, watchReady syncBuffer
	watch.Stdout, watch.Stderr = &watched, &watchReady
	if err := watch.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watch.Process.Kill(); watch.Wait() })
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(watchReady.String(), "watching session"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("watch never began: %s", watchReady.String())
		}
	}

	type answer struct {
		res *mcp.CallToolResult
		at  time.Time
	}
	handedBack := make(chan answer, 1)
	go func() {
		res, _ := agent.CallTool(context.Background(), &mcp.CallToolParams{Name: "hand_over_to_person",
			Arguments: map[string]any{"sessionId": id, "reason": "pick the spot", "instructions": "click a quarter in", "timeoutSeconds": 120}})
		handedBack <- answer{res, time.Now()}
	}()
	var link string
	select {
	case link = <-links:
	case a := <-handedBack:
		t.Fatalf("no URL elicitation; the call answered %s", e2e.Text(a.res))
	case <-time.After(60 * time.Second):
		t.Fatal("no URL elicitation")
	}
	if code, st := liveStatus(t, link); code != 200 || st["control"] != true || st["handover"] == nil ||
		st["handover"].(map[string]any)["reason"] != "pick the spot" {
		t.Fatalf("status with the hand-over's token: %d %v", code, st)
	}
	// The session's ordinary token keeps its meaning: view-only, no hand back.
	if resp, err := http.Post(strings.Replace(live, "/?token=", "/handback?token=", 1), "application/json", nil); err != nil || resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("hand back with the view-only token: %v %v", resp.StatusCode, err)
	}
	// The agent's other call waits while the person acts.
	looked := make(chan answer, 1)
	other := connectHTTP(t, url, "", "", nil)
	go func() {
		res, _ := other.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_cursor_position", Arguments: map[string]any{"sessionId": id}})
		looked <- answer{res, time.Now()}
	}()

	ctx := openInChromium(t, link)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool]("document.querySelector('img').naturalWidth > 0")); err != nil {
		t.Fatal(err)
	}
	box, err := chromedp.Run(ctx, chromedp.Evaluate[[]float64](`(() => { const i = document.querySelector('img'), r = i.getBoundingClientRect();
		return [r.left, r.top, r.width, r.height, i.naturalWidth, i.naturalHeight]; })()`))
	if err != nil {
		t.Fatal(err)
	}
	k := min(box[2]/box[4], box[3]/box[5])
	wantX, wantY := box[4]/4, box[5]/4
	if _, err := chromedp.Run(ctx, chromedp.MouseClickXY(box[0]+(box[2]-box[4]*k)/2+wantX*k, box[1]+(box[3]-box[5]*k)/2+wantY*k)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	select {
	case a := <-looked:
		t.Fatalf("the agent's call ran during the hand-over: %s", e2e.Text(a.res))
	default:
	}
	pressHandBack(t, ctx, "left it a quarter in")
	var out struct {
		Status, Note, LiveViewURL string
		HandoverID                string
	}
	var back answer
	select {
	case back = <-handedBack:
	case <-time.After(30 * time.Second):
		t.Fatal("the hand-over did not resolve on the hand-back")
	}
	e2e.Structured(t, back.res, &out)
	if out.Status != "handedBack" || out.Note != "left it a quarter in" || out.LiveViewURL != "" {
		t.Fatalf("hand-over result %+v", out)
	}
	a := <-looked
	var cur struct{ CursorX, CursorY float64 }
	e2e.Structured(t, a.res, &cur)
	if cur.CursorX < wantX-4 || cur.CursorX > wantX+4 || cur.CursorY < wantY-4 || cur.CursorY > wantY+4 {
		t.Fatalf("after the hand-back the agent sees the cursor at %+v, the person left it at %.0f,%.0f", cur, wantX, wantY)
	}
	if a.at.Before(back.at.Add(-time.Second)) {
		t.Fatal("the waiting call answered before the hand-back")
	}
	if code, _ := liveStatus(t, link); code != http.StatusForbidden {
		t.Fatalf("the one-time link after the hand-back: %d, want 403", code)
	}
	// A second wait on it answers how it ended.
	e2e.Structured(t, e2e.Call(t, agent, "hand_over_to_person", map[string]any{"sessionId": id, "reason": "x", "handoverId": out.HandoverID}), &out)
	if out.Status != "handedBack" {
		t.Fatalf("waiting again on an ended hand-over: %+v", out)
	}

	r := h.Run("--session", id, "trace", "stop")
	b, err := os.ReadFile(strings.TrimSpace(r.Stdout))
	if err != nil {
		t.Fatalf("trace stop: %+v %v", r, err)
	}
	for _, want := range []string{`"person":"handover-opened"`, `"summary":"left it a quarter in","person":"handed-back","by":"live view"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the trace has no %s:\n%s", want, b)
		}
		if !strings.Contains(watched.String(), want) {
			t.Errorf("watch printed no %s:\n%s", want, watched.String())
		}
	}
}

// TestPausedSessionCallsWaitAndRunOnceAfterResume: the person pauses a session from the CLI
// (what the REPL's pause runs); the agent's pipelined calls wait, saying who paused it and
// why, and after resume each runs once, in order.
func TestPausedSessionCallsWaitAndRunOnceAfterResume(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	url, _ := serveHTTP(t, h, nil)
	log := &progressLog{got: map[string][]*mcp.ProgressNotificationParams{}}
	agent := connectHTTP(t, url, "", "", &mcp.ClientOptions{ProgressNotificationHandler: log.handler})
	id, live := startSession(t, agent)
	if r := h.Run("--session", id, "trace", "start"); r.Code != 0 {
		t.Fatalf("trace start: %+v", r)
	}
	if r := h.Run("--session", id, "pause", "checking", "the", "form"); r.Code != 0 || !strings.Contains(r.Stdout, "paused session "+id) {
		t.Fatalf("pause: %+v", r)
	}
	if _, st := liveStatus(t, live); st["paused"] != true || st["pausedBy"] != "local user" || st["note"] != "checking the form" {
		t.Fatalf("live view status of a paused session: %v", st)
	}
	var wg sync.WaitGroup
	ends := make([]time.Time, 3)
	for i, x := range []int{100, 200, 300} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := agent.CallTool(context.Background(), &mcp.CallToolParams{Name: "move_mouse",
				Arguments: map[string]any{"sessionId": id, "x": x, "y": x}, Meta: mcp.Meta{"progressToken": "m" + string(rune('0'+i))}})
			if err != nil || res.IsError {
				t.Errorf("move_mouse %d: %v %s", x, err, e2e.Text(res))
			}
			ends[i] = time.Now()
		}()
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(2500 * time.Millisecond)
	got := log.of("m0")
	if len(got) == 0 || !strings.Contains(got[len(got)-1].Message, "paused by local user: checking the form") {
		t.Fatalf("progress of a paused call: %+v", got)
	}
	resumed := time.Now()
	if r := h.Run("--session", id, "resume"); r.Code != 0 {
		t.Fatalf("resume: %+v", r)
	}
	wg.Wait()
	for i, e := range ends {
		if e.Before(resumed) {
			t.Fatalf("call %d answered before the resume", i)
		}
	}
	var cur struct{ CursorX, CursorY int }
	e2e.Structured(t, e2e.Call(t, agent, "get_cursor_position", map[string]any{"sessionId": id}), &cur)
	if cur.CursorX != 300 || cur.CursorY != 300 {
		t.Fatalf("after the three moves the cursor is at %+v, want the last one's 300,300", cur)
	}
	// Each ran once: the trace has three move_mouse calls and the pause and resume between.
	r := h.Run("--session", id, "trace", "stop")
	b, err := os.ReadFile(strings.TrimSpace(r.Stdout))
	if err != nil {
		t.Fatalf("trace stop: %+v %v", r, err)
	}
	if n := strings.Count(string(b), `"tool":"move_mouse"`); n != 3 {
		t.Fatalf("the trace has %d move_mouse calls, want 3:\n%s", n, b)
	}
	for _, want := range []string{`"summary":"checking the form","person":"paused","by":"local user"`, `"person":"resumed","by":"local user"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the trace has no %s:\n%s", want, b)
		}
	}
	// Resuming a session that is not paused, or handing back one with no hand-over, is refused.
	if r := h.Run("--session", id, "resume"); r.Code == 0 || !strings.Contains(r.Stderr, "not paused") {
		t.Fatalf("resume of a running session: %+v", r)
	}
	if r := h.Run("--session", id, "handback"); r.Code == 0 || !strings.Contains(r.Stderr, "no open hand-over") {
		t.Fatalf("handback without a hand-over: %+v", r)
	}
}

// TestREPLPausesResumesAndHandsBack: the person at the REPL (under tmux, a real terminal)
// pauses the agent's session, resumes it, sees the agent's hand-over without watching, and
// hands the session back with a note that the agent's wait returns.
func TestREPLPausesResumesAndHandsBack(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	url, _ := serveHTTP(t, h, nil)
	agent := connectHTTP(t, url, "", "", nil)
	id, _ := startSession(t, agent)
	m := newTmux(t, h, 200, 50)
	m.run("repl", "--session", id, "repl")
	m.waitScreen("repl", regexp.MustCompile(`(?m)^.*> `))

	m.keys("repl", "pause my turn now")
	m.waitScreen("repl", regexp.MustCompile(`paused session `+id))
	moved := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := agent.CallTool(context.Background(), &mcp.CallToolParams{Name: "move_mouse", Arguments: map[string]any{"sessionId": id, "x": 40, "y": 50}})
		moved <- res
	}()
	select {
	case res := <-moved:
		t.Fatalf("the agent's call ran while paused: %s", e2e.Text(res))
	case <-time.After(1500 * time.Millisecond):
	}
	m.keys("repl", "resume")
	m.waitScreen("repl", regexp.MustCompile(`resumed session `+id))
	select {
	case res := <-moved:
		if res == nil || res.IsError {
			t.Fatalf("move_mouse after resume: %s", e2e.Text(res))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the agent's call did not run after resume")
	}

	var out struct{ HandoverID, Status, Note string }
	e2e.Structured(t, e2e.Call(t, agent, "hand_over_to_person", map[string]any{"sessionId": id, "reason": "a CAPTCHA for people"}), &out)
	if out.Status != "waiting" {
		t.Fatalf("hand-over of a client without elicitation: %+v", out)
	}
	m.waitScreen("repl", regexp.MustCompile(`person handover opened: a CAPTCHA for people \(act, then: handback`))
	m.keys("repl", "handback solved it")
	m.waitScreen("repl", regexp.MustCompile(`handed session `+id+` back`))
	e2e.Structured(t, e2e.Call(t, agent, "hand_over_to_person", map[string]any{"sessionId": id, "reason": "x", "handoverId": out.HandoverID}), &out)
	if out.Status != "handedBack" || out.Note != "solved it" {
		t.Fatalf("after handback at the REPL: %+v", out)
	}
}

// TestLiveViewPausesAndResumesWithControl: with liveViewControl on, the page's Pause button
// pauses the agent (its call waits, saying the live view paused it) and Resume lets it run;
// another site's page cannot pause it.
func TestLiveViewPausesAndResumesWithControl(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	pol := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(pol, []byte(`{"liveViewControl": true}`), 0o600)
	url, _ := serveHTTP(t, h, nil, "--policy", pol)
	log := &progressLog{got: map[string][]*mcp.ProgressNotificationParams{}}
	agent := connectHTTP(t, url, "", "", &mcp.ClientOptions{ProgressNotificationHandler: log.handler})
	id, live := startSession(t, agent)
	ctx := openInChromium(t, live)
	for _, js := range []string{`!document.getElementById('pause').hidden`,
		`(() => { document.getElementById('note').value = 'my turn'; document.getElementById('pause').click(); return true; })()`,
		`!document.getElementById('resume').hidden && document.getElementById('hold').textContent === 'paused by live view: my turn'`} {
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js)); err != nil {
			t.Fatalf("live view page (%s): %v", js, err)
		}
	}
	moved := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := agent.CallTool(context.Background(), &mcp.CallToolParams{Name: "move_mouse",
			Arguments: map[string]any{"sessionId": id, "x": 60, "y": 70}, Meta: mcp.Meta{"progressToken": "mv"}})
		moved <- res
	}()
	time.Sleep(2500 * time.Millisecond)
	if got := log.of("mv"); len(got) == 0 || !strings.Contains(got[len(got)-1].Message, "paused by live view: my turn") {
		t.Fatalf("progress of a call paused from the live view: %+v", got)
	}
	select {
	case res := <-moved:
		t.Fatalf("the agent's call ran while paused: %s", e2e.Text(res))
	default:
	}
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`(() => { document.getElementById('resume').click(); return true; })()`)); err != nil {
		t.Fatal(err)
	}
	select {
	case res := <-moved:
		if res == nil || res.IsError {
			t.Fatalf("move_mouse after resume: %s", e2e.Text(res))
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the agent's call did not run after the page's Resume")
	}
	// Another page's request is refused (no cross-site pause).
	req, _ := http.NewRequest("POST", strings.Replace(live, "/?token=", "/pause?token=", 1), nil)
	req.Header.Set("Origin", "http://evil.example")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("cross-origin pause: %v %v", resp, err)
	}
}

// TestHandOverIsOneAtATimeAndEndsWithItsCall: a second hand-over while one is open waits on
// that one (its hand-back answers both), and the person's page says when the hand-over ended
// elsewhere; a hand-over whose waiting call is cancelled closes, its link with it.
func TestHandOverIsOneAtATimeAndEndsWithItsCall(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	url, _ := serveHTTP(t, h, nil)
	legacy := func(opts *mcp.ClientOptions) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "handover-e2e", Version: "1"}, opts).Connect(context.Background(),
			&mcp.StreamableClientTransport{Endpoint: url + "/"}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	agent := legacy(nil)
	id, _ := startSession(t, agent)
	var first struct{ HandoverID, Status, LiveViewURL, Note string }
	e2e.Structured(t, e2e.Call(t, agent, "hand_over_to_person", map[string]any{"sessionId": id, "reason": "first"}), &first)
	if first.Status != "waiting" || first.LiveViewURL == "" {
		t.Fatalf("a client without elicitation: %+v", first)
	}
	page := openInChromium(t, first.LiveViewURL)
	if _, err := chromedp.Run(page, chromedp.Poll[bool](`document.getElementById('hold').textContent.startsWith('handed over to you: first')`)); err != nil {
		t.Fatalf("the person's page: %v", err)
	}
	second := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, _ := agent.CallTool(context.Background(), &mcp.CallToolParams{Name: "hand_over_to_person", Arguments: map[string]any{"sessionId": id, "reason": "second"}})
		second <- res
	}()
	select {
	case res := <-second:
		t.Fatalf("a second hand-over while one is open answered at once: %s", e2e.Text(res))
	case <-time.After(1500 * time.Millisecond):
	}
	resp, err := http.Post(strings.Replace(first.LiveViewURL, "/?token=", "/handback?token=", 1), "application/json", strings.NewReader(`{"note":"both done"}`))
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("hand back by POST: %v %v", resp, err)
	}
	var got struct{ HandoverID, Status, Note string }
	select {
	case res := <-second:
		e2e.Structured(t, res, &got)
	case <-time.After(30 * time.Second):
		t.Fatal("the second call did not answer on the hand-back")
	}
	if got.HandoverID != first.HandoverID || got.Status != "handedBack" || got.Note != "both done" {
		t.Fatalf("the second call waited on %+v, want the first hand-over %s handed back", got, first.HandoverID)
	}
	if _, err := chromedp.Run(page, chromedp.Poll[bool](`document.getElementById('state').textContent === 'the hand-over ended: this link is closed'`)); err != nil {
		t.Fatalf("the person's page after a hand-back elsewhere: %v", err)
	}

	links := make(chan string, 1)
	asking := legacy(&mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{URL: &mcp.URLElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			links <- r.Params.URL
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := asking.CallTool(ctx, &mcp.CallToolParams{Name: "hand_over_to_person", Arguments: map[string]any{"sessionId": id, "reason": "then cancelled"}})
		done <- err
	}()
	link := <-links
	if code, _ := liveStatus(t, link); code != http.StatusOK {
		t.Fatalf("the open hand-over's link: %d", code)
	}
	cancel()
	<-done
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if code, _ := liveStatus(t, link); code == http.StatusForbidden {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the link of a cancelled hand-over still works")
		}
	}
	// The session is the agent's again: its calls run.
	e2e.Must(t, agent, "get_cursor_position", map[string]any{"sessionId": id})
}

// TestAPauseEndsWithItsSession: a pause belongs to the session, not to its name. A session
// ended while paused and started again under the same name runs its calls at once.
func TestAPauseEndsWithItsSession(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.MustRun("session", "start", "p1")
	if r := h.Run("--session", "p1", "pause", "lunch"); r.Code != 0 {
		t.Fatalf("pause: %+v", r)
	}
	h.MustRun("session", "end", "p1")
	h.MustRun("session", "start", "p1")
	done := make(chan e2e.Result, 1)
	go func() { done <- h.Run("--session", "p1", "get-cursor-position") }()
	select {
	case r := <-done:
		if r.Code != 0 {
			t.Fatalf("a call in the new session p1: %+v", r)
		}
	case <-time.After(20 * time.Second):
		h.Run("--session", "p1", "resume")
		t.Fatal("the new session p1 was still paused by the pause of the session that ended")
	}
}
