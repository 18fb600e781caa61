package repl

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/cli"
	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/werr"
)

// fakeCaller answers like a host would, without one.
type fakeCaller struct {
	mu    sync.Mutex
	calls []string
	args  []map[string]any
}

type fakeOut struct{ s string }

func (o fakeOut) Text() string { return o.s }

func (f *fakeCaller) Call(ctx context.Context, t *tool.Tool, args map[string]any) (*host.Outcome, error) {
	f.mu.Lock()
	f.calls = append(f.calls, t.Name)
	f.args = append(f.args, args)
	f.mu.Unlock()
	switch t.Name {
	case "mcp_W365ComputerUse_GetSessionDetails":
		return &host.Outcome{Out: &commands.SessionOut{SessionID: "default", Display: ":42"}}, nil
	case "get_screen_size":
		return &host.Outcome{Out: fakeOut{"1920x1080"}}, nil
	case "browser_snapshot":
		raw := []byte(`{"snapshotId":"s9-1","nodes":[{"role":"main","children":[{"ref":"e3","role":"button","name":"Sign in"}]}]}`)
		return &host.Outcome{Out: fakeOut{"snapshotId: s9-1"}, JSON: raw}, nil
	case "browser_click_ref":
		return &host.Outcome{Out: fakeOut{fmt.Sprintf("clicked %v of %v", args["ref"], args["snapshotId"])}}, nil
	case "list_windows":
		return &host.Outcome{Out: &commands.WindowsOut{Windows: []commands.ListedWindow{{Window: desktop.Window{Title: "Terminal one", ProcessName: "xterm"}}, {Window: desktop.Window{Title: "Editor", ProcessName: "gedit"}}}}}, nil
	case "browser_list_tabs":
		return &host.Outcome{Out: &commands.TabsOut{Tabs: []browser.TabInfo{{Index: 0, Title: "Home"}, {Index: 1, Title: "Docs"}}}}, nil
	case "list_sessions":
		return &host.Outcome{Out: &commands.SessionListOut{Sessions: []commands.SessionOut{{SessionID: "default"}, {SessionID: "s-1a2b"}}}}, nil
	case "take_screenshot":
		return &host.Outcome{Out: &commands.ImageOut{Width: 4, Height: 4, MIMEType: "image/png"}, Images: []tool.Image{{Data: tinyPNG(), MIMEType: "image/png"}}}, nil
	case "wait_milliseconds":
		<-ctx.Done() // waits until cancelled
		return nil, werr.Wrap(ctx.Err(), werr.Cancelled, "call cancelled")
	}
	return nil, werr.New(werr.NotFound, "nothing like that here")
}

func newTestModel(t *testing.T) (*model, *fakeCaller) {
	f := &fakeCaller{}
	r := newRunner(Options{Globals: cli.Globals{Session: "default"}, Caller: func(*cli.Globals) host.Caller { return f }})
	m := newModel(r, loadHistory(filepath.Join(t.TempDir(), "history")))
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	return m, f
}

// drain runs cmd and feeds what it produces back into the model, as the program
// would, except for ticks and blinks that would loop forever.
func drain(m *model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			drain(m, c)
		}
	case doneMsg, detailsMsg, completionMsg, historySavedMsg:
		_, next := m.Update(msg)
		drain(m, next)
	}
}

func typeLine(m *model, line string) tea.Cmd {
	m.Update(tea.PasteMsg{Content: line})
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyEnter})
	return cmd
}

func scrollback(m *model) string { return strings.Join(m.lines, "\n") }

func TestModelRunsALineAndShowsItsOutput(t *testing.T) {
	m, f := newTestModel(t)
	drain(m, m.Init())
	if !strings.Contains(m.status(), "display :42") {
		t.Errorf("status = %q, want the display from the session details", m.status())
	}
	drain(m, typeLine(m, "get-screen-size"))
	if !strings.Contains(scrollback(m), "1920x1080") {
		t.Errorf("scrollback lacks the output:\n%s", scrollback(m))
	}
	if m.running {
		t.Error("still running after the result arrived")
	}
	if len(f.args) < 2 || f.args[0]["sessionId"] != "default" {
		t.Errorf("details call args = %v, want sessionId default", f.args)
	}
}

func TestModelShowsErrorsAndGoesOn(t *testing.T) {
	m, _ := newTestModel(t)
	drain(m, typeLine(m, "get-cursor-position"))
	drain(m, typeLine(m, "frobnicate"))
	drain(m, typeLine(m, `type-text "unterminated`))
	out := scrollback(m)
	for _, want := range []string{
		"error: NOT_FOUND: nothing like that here",
		`error: INVALID_ARGUMENT: unknown command "frobnicate"`,
		"error: INVALID_ARGUMENT: unterminated quote",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("scrollback lacks %q:\n%s", want, out)
		}
	}
}

func TestModelCtrlCCancelsThenClearsThenQuits(t *testing.T) {
	m, _ := newTestModel(t)
	cmd := typeLine(m, "wait-milliseconds 100")
	if !m.running {
		t.Fatal("not running after Enter")
	}
	ctrlC := tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	m.Update(ctrlC)
	drain(m, cmd) // the call returns once cancelled
	if m.running || !strings.Contains(scrollback(m), "error: CANCELLED") {
		t.Fatalf("after ctrl+c: running=%v\n%s", m.running, scrollback(m))
	}
	m.Update(tea.PasteMsg{Content: "half a line"})
	if _, cmd := m.Update(ctrlC); cmd != nil && reflect.ValueOf(cmd()).Type() == reflect.TypeOf(tea.QuitMsg{}) {
		t.Fatal("ctrl+c on a non-empty line quit")
	}
	if m.input.Value() != "" {
		t.Errorf("ctrl+c left %q on the line", m.input.Value())
	}
	_, cmd = m.Update(ctrlC)
	if cmd == nil {
		t.Fatal("ctrl+c on an empty line did nothing")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("ctrl+c on an empty line did not quit")
	}
}

func TestModelHistoryWalksBackAndForthKeepingTheDraft(t *testing.T) {
	m, _ := newTestModel(t)
	drain(m, typeLine(m, "get-screen-size"))
	drain(m, typeLine(m, "session details x"))
	m.Update(tea.PasteMsg{Content: "dra"})
	up, down := tea.KeyPressMsg{Code: tea.KeyUp}, tea.KeyPressMsg{Code: tea.KeyDown}
	for _, step := range []struct {
		key  tea.KeyPressMsg
		want string
	}{
		{up, "session details x"}, {up, "get-screen-size"}, {up, "get-screen-size"},
		{down, "session details x"}, {down, "dra"}, {down, "dra"},
	} {
		m.Update(step.key)
		if got := m.input.Value(); got != step.want {
			t.Fatalf("after %s: line %q, want %q", step.key, got, step.want)
		}
	}
}

func TestModelTabCompletesTheWordBeforeTheCursor(t *testing.T) {
	m, _ := newTestModel(t)
	m.Update(tea.PasteMsg{Content: "get-scr"})
	_, cmd := m.Update(tea.KeyPressMsg{Code: tea.KeyTab})
	drain(m, cmd)
	if got := m.input.Value(); got != "get-screen-size " {
		t.Errorf("after Tab: %q, want %q", got, "get-screen-size ")
	}
}

func TestRunLinesRunsAScriptAndStopsAtTheFirstFailure(t *testing.T) {
	f := &fakeCaller{}
	var out strings.Builder
	err := RunLines(context.Background(), Options{
		Globals: cli.Globals{Session: "default"},
		In:      strings.NewReader("# a comment\n\nget-screen-size\nw365 get-screen-size\nfrobnicate\nget-screen-size\n"),
		Out:     &out,
		Caller:  func(*cli.Globals) host.Caller { return f },
	})
	if got := out.String(); got != "1920x1080\n1920x1080\n" {
		t.Errorf("output %q, want two screen sizes", got)
	}
	if werr.CodeOf(err) != werr.InvalidArgument || !strings.Contains(err.Error(), "line 5:") {
		t.Errorf("error = %v, want INVALID_ARGUMENT on line 5", err)
	}
}

func TestModelUseSwitchesTheSessionOfTheFollowingLines(t *testing.T) {
	f := &fakeCaller{}
	var mu sync.Mutex
	var sessions []string
	r := newRunner(Options{Globals: cli.Globals{Session: "default"}, Caller: func(g *cli.Globals) host.Caller {
		mu.Lock()
		sessions = append(sessions, g.Session)
		mu.Unlock()
		return f
	}})
	m := newModel(r, loadHistory(filepath.Join(t.TempDir(), "history")))
	drain(m, typeLine(m, "use s2"))
	if !strings.Contains(m.status(), "session s2") {
		t.Errorf("status %q, want session s2", m.status())
	}
	drain(m, typeLine(m, "get-screen-size"))
	drain(m, typeLine(m, "get-screen-size --session s3"))
	if want := []string{"s2", "s2", "s2", "s3", "s2"}; !slices.Equal(sessions, want) {
		t.Errorf("calls went to sessions %q, want %q (details, line, details, line, details)", sessions, want)
	}
}

func TestCleanKeepsTheScreenSafe(t *testing.T) {
	for in, want := range map[string]string{
		"a\tb":                   "a       b",
		"東\tx":                   "東      x",
		"red \x1b[31mtext\x1b[m": "red [31mtext[m",
		"over\rwrite\n\tnext":    "overwrite\n        next",
	} {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestScrollbackIsBounded(t *testing.T) {
	m, _ := newTestModel(t)
	for range 3 {
		m.appendLines(strings.Repeat("line\n", scrollbackLimit/2))
	}
	if len(m.lines) != scrollbackLimit {
		t.Errorf("%d lines kept, want %d", len(m.lines), scrollbackLimit)
	}
}

func TestModelCtrlRSearchesTheHistory(t *testing.T) {
	m, _ := newTestModel(t)
	for _, l := range []string{"get-screen-size", "wait-milliseconds 10", "get-cursor-position"} {
		m.hist.add(l)
	}
	m.histIdx = len(m.hist.entries)
	m.Update(tea.PasteMsg{Content: "draft"})
	key := func(k tea.KeyPressMsg) { m.Update(k) }
	ctrlR := tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl}
	shown := func() string {
		if m.search.match < 0 {
			return ""
		}
		return m.hist.entries[m.search.match]
	}

	key(ctrlR)
	for _, r := range "get" {
		key(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	if shown() != "get-cursor-position" {
		t.Fatalf("search for get shows %q, want the newest match", shown())
	}
	key(ctrlR)
	if shown() != "get-screen-size" {
		t.Fatalf("ctrl+r again shows %q, want the older match", shown())
	}
	key(ctrlR)
	if shown() != "get-screen-size" {
		t.Fatalf("ctrl+r past the oldest match shows %q", shown())
	}
	if !strings.Contains(m.View().Content, "reverse-i-search") {
		t.Error("the prompt does not show the search")
	}
	key(tea.KeyPressMsg{Code: tea.KeyEscape})
	if m.search.active || m.input.Value() != "draft" {
		t.Fatalf("esc: active=%v line %q, want the draft back", m.search.active, m.input.Value())
	}

	key(ctrlR)
	m.Update(tea.PasteMsg{Content: "wait"})
	key(tea.KeyPressMsg{Code: tea.KeyRight})
	if m.search.active || m.input.Value() != "wait-milliseconds 10" {
		t.Fatalf("right arrow: active=%v line %q, want the match on the line", m.search.active, m.input.Value())
	}
}

func TestViewFillsTheWindowExactly(t *testing.T) {
	m, _ := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 40, Height: 12})
	m.statusErr = strings.Repeat("a very long host error ", 10)
	m.cands = []candidate{{Value: "one", Desc: strings.Repeat("long description ", 10)}, {Value: "two"}}
	m.layout()
	m.appendLines(strings.Repeat("x", 100))
	lines := strings.Split(m.View().Content, "\n")
	if len(lines) != 12 {
		t.Errorf("view has %d lines, want 12", len(lines))
	}
	for i, l := range lines {
		if w := lipgloss.Width(l); w > 40 {
			t.Errorf("line %d is %d wide: %q", i, w, l)
		}
	}
}

func tinyPNG() []byte {
	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 4, 4)))
	return b.Bytes()
}

func TestModelFillsInTheLastSnapshotAndCompletesItsRefs(t *testing.T) {
	m, _ := newTestModel(t)
	drain(m, typeLine(m, "browser click-ref --ref e3"))
	if !strings.Contains(scrollback(m), "missing required flag --snapshot-id") {
		t.Errorf("without a snapshot the ref command should fail naming its --snapshot-id flag:\n%s", scrollback(m))
	}
	drain(m, typeLine(m, "browser snapshot"))
	drain(m, typeLine(m, "browser click-ref --ref e3"))
	if !strings.Contains(scrollback(m), "clicked e3 of s9-1") {
		t.Errorf("the last snapshot was not filled in:\n%s", scrollback(m))
	}
	c := complete(m.r.newCompletionRoot, "browser click-ref --ref e")
	if c.line != "browser click-ref --ref e3 " {
		t.Errorf("ref completion %+v", c)
	}
	if refs := m.r.complete("ref", "default"); len(refs) != 1 || refs[0] != "e3\tbutton \"Sign in\"" {
		t.Errorf("refs %q", refs)
	}
}

func TestModelPreviewsScreenshotsOnImageTerminals(t *testing.T) {
	m, _ := newTestModel(t)
	dir := t.TempDir()
	m.r.preview = "kitty"
	cmd := typeLine(m, "take-screenshot -o "+filepath.Join(dir, "s.png"))
	var raw string
	var find func(tea.Cmd)
	find = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			for _, c := range msg {
				find(c)
			}
		case doneMsg:
			_, next := m.Update(msg)
			find(next)
		case tea.RawMsg:
			raw = fmt.Sprint(msg.Msg)
		}
	}
	find(cmd)
	if !strings.Contains(raw, "\x1b_Ga=T,f=100") || !strings.Contains(scrollback(m), filepath.Join(dir, "s.png")) {
		t.Errorf("preview %q, scrollback:\n%s", raw, scrollback(m))
	}
}

func TestModelSaysWhenALineWaitsBehindAnotherClient(t *testing.T) {
	m, _ := newTestModel(t)
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 30})
	other := host.CallEvent{Phase: "start", ID: 1, Time: time.Now(), Session: "default", Tool: "browser_navigate", Frontend: "claude-code", Client: "conn-9"}
	m.Update(watchMsg{other})
	mine := host.CallEvent{Phase: "start", ID: 2, Time: time.Now(), Session: "default", Tool: "get_screen_size", Client: m.r.clientID}
	m.Update(watchMsg{mine})
	typeLine(m, "get-screen-size") // not drained: it stays running
	if !strings.Contains(scrollback(m), "(waiting behind a call of another client: browser_navigate from claude-code") {
		t.Errorf("no queue notice:\n%s", scrollback(m))
	}
	if !strings.Contains(m.status(), "waiting behind browser_navigate of claude-code") {
		t.Errorf("status %q", m.status())
	}
	m.Update(watchMsg{host.CallEvent{Phase: "end", ID: 1, Time: time.Now(), Session: "default", Tool: "browser_navigate", Client: "conn-9"}})
	if strings.Contains(m.status(), "waiting behind") {
		t.Errorf("still waiting after the other call ended: %q", m.status())
	}
}

func TestCompletionOfWindowTitlesTabsAndSessions(t *testing.T) {
	m, _ := newTestModel(t)
	if c := complete(m.r.newCompletionRoot, "activate-window Term"); c.line != "activate-window 'Terminal one' " {
		t.Errorf("window title completion %+v", c)
	}
	m.input.SetValue("use s-")
	m.input.CursorEnd()
	if msg, ok := m.completeCmd()().(completionMsg); !ok || msg.c.line != "use s-1a2b " {
		t.Errorf("use completion %+v", msg)
	}
	m.input.Reset()
	if c := complete(m.r.newCompletionRoot, "session end s-"); c.line != "session end s-1a2b " {
		t.Errorf("session completion %+v", c)
	}
	// Tabs only once the browser runs: asking earlier would start it.
	if c := complete(m.r.newCompletionRoot, "browser close-tab "); len(c.cands) != 0 {
		t.Errorf("tabs offered before the browser ran: %+v", c)
	}
	drain(m, typeLine(m, "browser snapshot"))
	c := complete(m.r.newCompletionRoot, "browser close-tab ")
	if len(c.cands) != 2 || c.cands[0].Value != "0" || c.cands[0].Desc != "Home" || c.cands[1].Desc != "Docs" {
		t.Errorf("tab completion %+v", c)
	}
}

// A line that may carry what the records hide (type-text's text, clipboard-write's, code, a
// line that does not parse) is recalled by Up but never written to the history file, which
// kept a password typed with type-text in clear (found by red10).
func TestModelKeepsSecretLinesOutOfTheHistoryFile(t *testing.T) {
	m, _ := newTestModel(t)
	lines := []string{
		"get-screen-size",
		"type-text --text PW-CANARY-repl-51",
		"clipboard-write --text PW-CANARY-repl-52",
		"browser type --selector '#pw' --text PW-CANARY-repl-53",
		`type-text --text "PW-CANARY-repl-54`,
		"session details x",
	}
	for _, l := range lines {
		drain(m, typeLine(m, l))
	}
	m.Update(tea.KeyPressMsg{Code: tea.KeyUp})
	m.Update(tea.KeyPressMsg{Code: tea.KeyUp})
	if got := m.input.Value(); got != lines[4] {
		t.Errorf("Up twice recalls %q, want %q", got, lines[4])
	}
	b, err := os.ReadFile(m.hist.path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), "get-screen-size\nsession details x\n"; got != want {
		t.Errorf("the history file holds %q, want %q", got, want)
	}
}
