package host

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/engine/werr"
)

func TestRedactRemovesSecretsAndTypedText(t *testing.T) {
	args := map[string]any{
		"cookies":  []any{map[string]any{"name": "sid", "value": "TOPSECRET", "url": "https://x"}},
		"apiKey":   "k-123",
		"headers":  map[string]any{"Authorization": "Bearer abc", "Accept": "text/html"},
		"selector": "#q",
	}
	got, _ := redact(commands.BrowserSetCookies, args, nil, false)
	b, _ := json.Marshal(got)
	for _, secret := range []string{"TOPSECRET", "k-123", "Bearer abc"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("%q survived: %s", secret, b)
		}
	}
	for _, kept := range []string{`"name":"sid"`, `"selector":"#q"`, `"Accept":"text/html"`} {
		if !strings.Contains(string(b), kept) {
			t.Errorf("%s lost: %s", kept, b)
		}
	}
	typed, _ := redact(commands.TypeText, map[string]any{"text": "hunter2"}, &pageState{}, false)
	if typed["text"] != "‹7 characters›" {
		t.Errorf("typed text shown as %v", typed["text"])
	}
	if args["apiKey"] != "k-123" {
		t.Error("redact changed its input")
	}
}

func TestTraceIsBoundedAndWatchersLoseEventsRatherThanBlock(t *testing.T) {
	h := New(Options{})
	defer h.Stop()
	dir := t.TempDir()
	defer func(n int, b int64) { traceMaxRecords, traceMaxBytes = n, b }(traceMaxRecords, traceMaxBytes)
	traceMaxRecords = 3
	info, err := h.StartTrace(TraceOptions{Session: "s", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.StartTrace(TraceOptions{Session: "s", Dir: dir}); werr.CodeOf(err) != werr.InvalidArgument {
		t.Errorf("a second trace of one session: %v", err)
	}
	ch, cancel := h.Subscribe("s")
	defer cancel()
	for i := range 300 {
		ev := CallEvent{Phase: "end", ID: uint64(i), Time: time.Now(), Session: "s", Tool: "get_screen_size", ReadOnly: true}
		h.traces.record(context.Background(), h, h.traces.get("s"), commands.GetScreenSize, ev, ev.Time, nil)
		h.calls.publish(ev) // nobody reads ch meanwhile: publishing must not block
	}
	if got := len(ch); got != cap(ch) {
		t.Errorf("subscriber holds %d events, want its buffer full (%d)", got, cap(ch))
	}
	final, err := h.StopTrace("s")
	if err != nil || !final.Truncated || final.Records != 3 {
		t.Fatalf("trace %+v %v", final, err)
	}
	f, _ := os.Open(info.Path)
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	// The header, three records and the truncation note.
	if len(lines) != 5 || !strings.Contains(lines[4], `"truncated":true`) {
		t.Errorf("trace file:\n%s", strings.Join(lines, "\n"))
	}
	if _, err := h.StopTrace("s"); werr.CodeOf(err) != werr.NotFound {
		t.Errorf("stopping twice: %v", err)
	}
}

func TestTraceFileNamesStayInTheirDirectory(t *testing.T) {
	h := New(Options{})
	defer h.Stop()
	dir := t.TempDir()
	info, err := h.StartTrace(TraceOptions{Session: "../../etc/x", Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(info.Path) != dir || !strings.HasPrefix(filepath.Base(info.Path), "trace-______etc_x-") {
		t.Errorf("trace file %s", info.Path)
	}
	if _, err := h.StartTrace(TraceOptions{Session: "../x"}); werr.CodeOf(err) != werr.InvalidArgument {
		t.Errorf("an output directory named by ../x: %v", err)
	}
}

func TestRecordsHideWhatReachedPasswordFields(t *testing.T) {
	pg := &pageState{Focus: "text", Passwords: []string{"s3cret-pw"}, Plain: []string{"Jane", "s3cret-pw"}}
	const code = `const p = "typed-by-var"; await page.fill('#pw', p); await page.click("#go")`
	rec, hidden := redact(commands.BrowserRunCode, map[string]any{"code": code}, pg, false)
	if rec["code"] != lengthOnly(code) {
		t.Errorf("run_code recorded as %s, want its length only", rec["code"])
	}
	if !slices.Equal(hidden, []string{"typed-by-var"}) {
		t.Errorf("run_code's strings hidden in its summary: %q, want its literals of %d characters or more", hidden, minCodeString)
	}
	if start, _ := redact(commands.BrowserRunCode, map[string]any{"code": "return 1"}, nil, false); start["code"] != "‹8 characters›" {
		t.Errorf("run_code before the page answered: %v", start["code"])
	}
	batch := map[string]any{"actions": []any{
		map[string]any{"action": "type_ref", "params": map[string]any{"ref": "e1", "text": "plain-name"}},
		map[string]any{"action": "type_ref", "params": map[string]any{"ref": "e2", "text": "typed-then-submitted"}},
		map[string]any{"action": "click_ref", "params": map[string]any{"ref": "e3"}},
	}}
	got, hidden := redact(commands.BrowserExecuteBatch, batch, &pageState{}, false)
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), "typed-then-submitted") || len(hidden) != 2 {
		t.Errorf("a batch that leaves the page after typing: %s (hidden %v)", b, hidden)
	}
	form, _ := redact(commands.BrowserFillForm, map[string]any{"fields": []any{
		map[string]any{"target": "e1", "value": "s3cret-pw"}, map[string]any{"target": "e2", "value": "Jane"}}}, pg, false)
	if b, _ := json.Marshal(form); strings.Contains(string(b), "s3cret-pw") || !strings.Contains(string(b), "Jane") {
		t.Errorf("fill_form recorded as %s", b)
	}
	// Text the page shows in no field (the call submitted the form) stays hidden; so does a
	// character a password field holds, while a key name is shown.
	if gone, _ := redact(commands.BrowserType, map[string]any{"text": "submitted-pw", "submit": true}, &pageState{Focus: "BODY"}, false); gone["text"] != "‹12 characters›" {
		t.Errorf("text the page no longer shows: %v", gone)
	}
	for key, want := range map[string]string{"3": "‹1 characters›", "J": "J", "Enter": "Enter"} {
		if got, _ := redact(commands.BrowserKeypressRef, map[string]any{"key": key}, &pageState{Passwords: []string{"s3"}, Plain: []string{"3", "J"}}, false); got["key"] != want {
			t.Errorf("key press %q recorded as %v, want %s", key, got["key"], want)
		}
	}
	if answer, _ := redact(commands.BrowserHandleDialog, map[string]any{"accept": true, "promptText": "4711"}, &pageState{}, false); answer["promptText"] != "‹4 characters›" {
		t.Errorf("a prompt's answer recorded as %v", answer["promptText"])
	}
	if all, _ := redact(commands.BrowserType, map[string]any{"text": "Jane"}, pg, true); all["text"] != "‹4 characters›" {
		t.Errorf("recordTypedText off: %v", all)
	}
	ev := CallEvent{Summary: "typed s3cret-pw", Error: werr.New(werr.Internal, "failed at s3cret-pw")}
	scrub(&ev, nil, pg)
	if strings.Contains(ev.Summary+ev.Error.Message, "s3cret-pw") {
		t.Errorf("scrubbed event %+v", ev)
	}
}

func TestRecordsHideTheCredentialsOfURLs(t *testing.T) {
	const u = "https://ann:pa%40ss-w0rd@example.com:8443/a?q=1&api_key=KEY-1234&access_token=tok%2B5#frag"
	got, hidden := redact(commands.BrowserNavigate, map[string]any{"url": u}, nil, false)
	s := got["url"].(string)
	for _, secret := range []string{"pa%40ss-w0rd", "pa@ss-w0rd", "KEY-1234", "tok%2B5", "tok+5"} {
		if strings.Contains(s, secret) {
			t.Errorf("the recorded URL %s holds %q", s, secret)
		}
	}
	if !strings.Contains(s, "https://ann:") || !strings.Contains(s, "@example.com:8443/a?q=1&api_key=") {
		t.Errorf("the recorded URL %s lost what is no credential", s)
	}
	ev := CallEvent{Summary: "200 https://example.com/a?api_key=KEY-1234"}
	scrub(&ev, hidden, nil)
	if strings.Contains(ev.Summary, "KEY-1234") {
		t.Errorf("the summary %q holds the key", ev.Summary)
	}
	for _, plain := range []string{"https://example.com/?q=token", "no url: api_key=1", "a://b@c"} {
		if got, _ := redact(commands.BrowserNavigate, map[string]any{"url": plain}, nil, false); got["url"] != plain {
			t.Errorf("%q recorded as %q", plain, got["url"])
		}
	}
}

func TestRecordsHideTheCharacterAKeyPressTypes(t *testing.T) {
	for _, c := range []struct {
		keys []any
		want string
	}{
		{[]any{"shift", "q"}, `["shift","‹1 characters›"]`},
		{[]any{"7"}, `["‹1 characters›"]`},
		{[]any{"ctrl", "c"}, `["ctrl","c"]`},
		{[]any{"enter"}, `["enter"]`},
	} {
		got, _ := redact(commands.PressKeys, map[string]any{"keys": c.keys}, nil, false)
		if b, _ := json.Marshal(got["keys"]); string(b) != c.want {
			t.Errorf("press_keys %v recorded as %s, want %s", c.keys, b, c.want)
		}
	}
	if s := recordedSummary("press_keys", map[string]any{"keys": []any{"shift", "q"}}, "pressed shift+q"); s != "‹15 characters›" {
		t.Errorf("the summary of a key typing a character: %q", s)
	}
	if s := recordedSummary("press_keys", map[string]any{"keys": []any{"ctrl", "s"}}, "pressed ctrl+s"); s != "pressed ctrl+s" {
		t.Errorf("the summary of a chord typing none: %q", s)
	}
}

// TestRedactTakesAnyJSONInABatch: a batch's action may be any JSON a client sends (the
// server refuses it after the record of its start is made); a list there made the record's
// map lookup panic, which ended the host (TestHostileArgumentsGetCodedRefusals saw EOF).
func TestRedactTakesAnyJSONInABatch(t *testing.T) {
	for _, action := range []any{[]any{"type_ref"}, map[string]any{"a": 1}, nil, 3.0, "type_ref"} {
		batch := map[string]any{"actions": []any{
			map[string]any{"action": action, "params": map[string]any{"ref": "e1", "text": "typed-then-left"}},
			map[string]any{"action": "click_ref", "params": map[string]any{"ref": "e3"}},
			[]any{"not", "an", "object"},
		}}
		got, _ := redact(commands.BrowserExecuteBatch, batch, &pageState{}, false)
		if b, _ := json.Marshal(got); action == "type_ref" && strings.Contains(string(b), "typed-then-left") {
			t.Errorf("action %v: recorded as %s", action, b)
		}
	}
}
