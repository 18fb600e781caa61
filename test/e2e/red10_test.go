//go:build linux

package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// formSignIn serves a sign-in form that the browser submits itself (Enter posts it, and the
// next page has no password field), and a PIN field whose script submits the form once it
// holds 16 characters. posted gets each password the server received.
func formSignIn(t *testing.T, posted chan<- string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		if r.Method == http.MethodPost {
			r.ParseForm()
			posted <- r.PostForm.Get("pw")
			io.WriteString(w, `<title>welcome</title><p id="welcome">welcome</p>`)
			return
		}
		io.WriteString(w, `<title>sign in</title><form id="f" method="post" action="/login">
<label>password <input id="pw" name="pw" type="password"></label></form>
<button id="ask" onclick="const v = prompt('PIN'); fetch('/prompt', {method: 'POST', body: new URLSearchParams({pw: v})})">ask</button>
<form id="p" method="post" action="/pin"><label>pin <input id="pin" name="pw" type="password"
oninput="if (this.value.length >= 16) document.querySelector('#p').submit()"></label></form>`)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// signInRecorded is an agent on its session, whose calls a trace records, beside formSignIn.
func signInRecorded(t *testing.T) (h *e2e.Harness, cs *mcp.ClientSession, srv *httptest.Server, posted chan string, trace string) {
	testenv.Require(t, "chromium")
	h = e2e.New(t)
	posted = make(chan string, 8)
	srv = formSignIn(t, posted)
	cs = agentOnItsSession(t, h)
	file := strings.Fields(h.MustRun("--session", "default-agent", "trace", "start"))
	return h, cs, srv, posted, file[len(file)-1]
}

// A password typed into a password field by a call that itself takes the field away was in
// the trace and host.log in clear: the records showed typed text again whenever the page,
// asked after the call, held it in no password field, and a call that submits the form
// (browser_type with submit, a PIN field whose script submits it), and a key press of one
// character was no typed text at all leaves a page with no password field at all. Judged by effect: the server gets
// each password, and no record holds any of them.
func TestRecordsKeepNoPasswordACallSubmitted(t *testing.T) {
	h, cs, srv, posted, trace := signInRecorded(t)
	const typed, pressed, pin, prompted = "PW-CANARY-submit-31", "PW-CANARY-keys-32", "PW-CANARY-pin-33", "PW-CANARY-prompt-34"
	for _, c := range []struct {
		password, tool string
		args           map[string]any
	}{
		{typed, "browser_type", map[string]any{"selector": "#pw", "text": typed, "submit": true}},
		{pin, "browser_type_ref", map[string]any{"text": pin}},
	} {
		e2e.Must(t, cs, "browser_navigate", map[string]any{"url": srv.URL + "/"})
		if _, ok := c.args["selector"]; !ok {
			field := `textbox "password"`
			if c.password == pin {
				field = `textbox "pin"`
			}
			c.args["snapshotId"] = "latest"
			c.args["ref"] = snapRef(t, e2e.Text(e2e.Must(t, cs, "browser_snapshot", map[string]any{})), field)
		}
		e2e.Must(t, cs, c.tool, c.args)
		select {
		case got := <-posted:
			if got != c.password {
				t.Fatalf("%s: the server got %q, want %q", c.tool, got, c.password)
			}
		case <-time.After(15 * time.Second):
			t.Fatalf("%s: the page posted no password", c.tool)
		}
		e2e.Must(t, cs, "browser_wait_for", map[string]any{"selector": "#welcome"})
	}
	// A key press at a time, then Enter: each record would hold one character of it.
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": srv.URL + "/"})
	field := snapRef(t, e2e.Text(e2e.Must(t, cs, "browser_snapshot", map[string]any{})), `textbox "password"`)
	for _, k := range strings.Split(pressed, "") {
		e2e.Must(t, cs, "browser_keypress_ref", map[string]any{"snapshotId": "latest", "ref": field, "key": k})
	}
	e2e.Must(t, cs, "browser_keypress_ref", map[string]any{"snapshotId": "latest", "ref": field, "key": "Enter"})
	if got := <-posted; got != pressed {
		t.Fatalf("key presses: the server got %q, want %q", got, pressed)
	}
	// A page's prompt, answered: no field of the page ever shows the answer.
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": srv.URL + "/"})
	t.Logf("the click that opens the prompt: %s", e2e.Text(e2e.Call(t, cs, "browser_click", map[string]any{"selector": "#ask"})))
	e2e.Must(t, cs, "browser_handle_dialog", map[string]any{"accept": true, "promptText": prompted})
	if got := <-posted; got != prompted {
		t.Fatalf("prompt: the server got %q, want %q", got, prompted)
	}
	for name, b := range agentRecords(t, h, trace) {
		for _, pw := range []string{typed, pin, prompted} {
			if n := bytes.Count(b, []byte(pw)); n > 0 {
				t.Errorf("%s holds the password %s %d times", name, pw, n)
			}
		}
		// The test's only key presses of one character are the password's.
		if keys := pressedKeys(b); keys != "" {
			t.Errorf("%s holds %d characters of the password %s a key press at a time: %s", name, len(keys), pressed, keys)
		}
	}
}

// pressedKeys joins the characters the records' key presses name, in order (each record a
// JSON line: a trace's, or host.log's): browser_keypress_ref's key, press_keys' keys and
// its summary ("pressed q").
func pressedKeys(records []byte) string {
	var keys strings.Builder
	for _, line := range bytes.Split(records, []byte("\n")) {
		var r struct {
			Tool    string         `json:"tool"`
			Args    map[string]any `json:"args"`
			Summary string         `json:"summary"`
		}
		if json.Unmarshal(line, &r) != nil {
			continue
		}
		switch r.Tool {
		case "browser_keypress_ref":
			if k, _ := r.Args["key"].(string); len([]rune(k)) == 1 {
				keys.WriteString(k)
			}
		case "press_keys":
			l, _ := r.Args["keys"].([]any)
			for _, k := range l {
				if k, _ := k.(string); len([]rune(k)) == 1 {
					keys.WriteString(k)
				}
			}
			if k, ok := strings.CutPrefix(r.Summary, "pressed "); ok && len([]rune(k)) == 1 {
				keys.WriteString(k)
			}
		}
	}
	return keys.String()
}

// A password typed on the desktop a key at a time (press_keys, one character each) was in
// the trace in clear, in each call's keys and its summary ("pressed q"), while type_text's
// text is always hidden there: nothing can tell where desktop keys went. Judged by effect:
// the server gets the password typed into the browser's window, and no record names any of
// its characters.
func TestRecordsKeepNoPasswordPressedOnTheDesktop(t *testing.T) {
	h, cs, srv, posted, trace := signInRecorded(t)
	const password = "pw-canary-desk-41"
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": srv.URL + "/"})
	e2e.Must(t, cs, "browser_click", map[string]any{"selector": "#pw"})
	e2e.ActivateShown(t, cs, "sign in")
	for _, k := range strings.Split(password, "") {
		e2e.Must(t, cs, "press_keys", map[string]any{"keys": []string{k}})
	}
	e2e.Must(t, cs, "press_keys", map[string]any{"keys": []string{"enter"}})
	select {
	case got := <-posted:
		if got != password {
			t.Fatalf("the server got %q, want %q", got, password)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the page posted no password")
	}
	for name, b := range agentRecords(t, h, trace) {
		if keys := pressedKeys(b); keys != "" {
			t.Errorf("%s names %d characters of the password %s a key at a time: %s", name, len(keys), password, keys)
		}
	}
}

// A trace started in a workspace (trace start --dir) lies where the session's own calls
// write: a Python call that put a FIFO in place of the trace file held the person's trace
// show in open() for good (the trace was opened by its path, following links and opening
// whatever was there). Judged by effect: trace show of that path ends, with an error.
func TestTraceShowOfAFIFOASessionPutInPlaceEnds(t *testing.T) {
	testenv.Require(t, "bwrap", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	work := filepath.Join(home, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cs := agentOnItsSession(t, h)
	file := strings.Fields(h.MustRun("--session", "default-agent", "trace", "start", "--dir", work))
	trace := file[len(file)-1]
	out, ok := pyOver(t, cs, `import glob, os
t = glob.glob('trace-*.jsonl')[0]
os.rename(t, 'moved.jsonl')
os.mkfifo(t)
print('fifo', t)`, work)
	if !ok || !strings.Contains(out.Stdout, "fifo") {
		t.Fatalf("the planting call: %+v", out)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.Bin, "trace", "show", trace, "-o", filepath.Join(t.TempDir(), "report.html"))
	cmd.Env = h.Env
	b, err := cmd.CombinedOutput()
	t.Logf("trace show: %v %s", err, b)
	if ctx.Err() != nil {
		t.Errorf("trace show of the FIFO the session put in place of its trace did not end in 20 s")
	}
}

// A repository a call made may name its work tree anywhere (core.worktree, which the git
// guard kept as a key git writes itself): one made with core.worktree = ~/.ssh had the
// person's git status list the private key as untracked, and their git add -A copy it
// into the repository's objects in the workspace, where the next call read it. Judged by
// effect: after the person's git add -A in that repository, the next call finds no byte of
// the key in its objects.
func TestGitGuardKeepsNoWorkTreeOutsideTheWorkspace(t *testing.T) {
	testenv.Require(t, "git", "bwrap", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	work := filepath.Join(home, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cs := h.MCP()
	out, ok := pyOver(t, cs, `import os
os.makedirs('r/.git/objects')
os.makedirs('r/.git/refs/heads')
open('r/.git/HEAD', 'w').write('ref: refs/heads/main\n')
open('r/.git/config', 'w').write('[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = `+filepath.Join(home, ".ssh")+`\n')
print('planted')`, work)
	if !ok || !strings.Contains(out.Stdout, "planted") {
		t.Fatalf("the planting call: %+v", out)
	}
	git := personsGit(t, home)
	st, err := git(filepath.Join(work, "r"), "status", "--porcelain")
	t.Logf("the person's git status: %v %s", err, st)
	add, err := git(filepath.Join(work, "r"), "add", "-A")
	t.Logf("the person's git add -A: %v %s", err, add)
	out, ok = pyOver(t, cs, `import os, zlib
for d, _, fs in os.walk('r/.git/objects'):
    for f in fs:
        print(zlib.decompress(open(os.path.join(d, f), 'rb').read()))`, work)
	if !ok {
		t.Fatalf("the reading call: %+v", out)
	}
	if strings.Contains(out.Stdout, e2e.Canary) {
		t.Errorf("the call read the person's private key from the objects their git add -A wrote: %s", out.Stdout)
	}
}
