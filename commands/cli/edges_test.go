package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/sandbox"
	"github.com/w365/w365/engine/werr"
)

// cliRun is one command line as main runs it: stdout and stderr apart, the error
// printed by Report, and the process status.
type cliRun struct {
	stdout, stderr string
	code           int
}

func runCLI(t *testing.T, f *fakeCaller, terminal bool, stdin io.Reader, args ...string) cliRun {
	t.Helper()
	var out, errb bytes.Buffer
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	root, _ := NewRoot(RootDeps{
		IO:     IO{In: stdin, Out: &out, Err: &errb, OutIsTerminal: terminal, InIsTerminal: terminal},
		Caller: func(*Globals) host.Caller { return f },
		Args:   args,
	})
	root.SetArgs(args)
	code := Report(root.ExecuteContext(context.Background()), &errb)
	return cliRun{out.String(), errb.String(), code}
}

func TestTyposExitNonZeroWithASuggestionOnStderr(t *testing.T) {
	cases := []struct {
		line []string
		want string
	}{
		{[]string{"browser", "navigat", "https://example.com"}, "Did you mean w365 browser navigate?"},
		{[]string{"session", "lst"}, "Did you mean w365 session list?"},
		{[]string{"clik", "1", "2"}, "Did you mean w365 click?"},
		{[]string{"browser", "clik", "--now"}, "Did you mean w365 browser click?"},
		{[]string{"help", "browser", "navigat"}, "Did you mean w365 browser navigate?"},
		{[]string{"help", "exit-code"}, "Did you mean w365 exit-codes?"},
		{[]string{"completion", "bsh"}, "Did you mean w365 completion bash or"},
	}
	for _, c := range cases {
		f := &fakeCaller{}
		r := runCLI(t, f, false, nil, c.line...)
		if r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, "w365: INVALID_ARGUMENT: unknown command") || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: status %d, stdout %q, stderr %q; want 2, nothing, %q", c.line, r.code, r.stdout, r.stderr, c.want)
		}
		if f.calls != 0 {
			t.Errorf("%v reached the host", c.line)
		}
	}
	// A group alone still shows its help, successfully.
	if r := runCLI(t, &fakeCaller{}, false, nil, "browser"); r.code != 0 || !strings.Contains(r.stdout, "navigate") {
		t.Errorf("bare group: %d %q", r.code, r.stdout)
	}
}

func TestPositionalValuesAreAcceptedOrNameTheFlag(t *testing.T) {
	accepted := []struct {
		line []string
		tool string
		want map[string]any
	}{
		{[]string{"kill-process", "4242", "918273"}, "kill_process", map[string]any{"pid": int64(4242), "startTime": int64(918273)}},
		{[]string{"browser", "close-tab", "1"}, "browser_close_tab", map[string]any{"tabIndex": int64(1)}},
		{[]string{"browser", "switch-tab", "0"}, "browser_switch_tab", map[string]any{"tabIndex": int64(0)}},
		{[]string{"zoom-region", "0", "0", "300", "200", "-o", filepath.Join(t.TempDir(), "z.png")}, "zoom_region",
			map[string]any{"x": int64(0), "y": int64(0), "width": int64(300), "height": int64(200)}},
	}
	for _, c := range accepted {
		f := &fakeCaller{out: map[string]any{}}
		if r := runCLI(t, f, false, nil, c.line...); r.code != 0 {
			t.Errorf("%v: status %d, %s", c.line, r.code, r.stderr)
			continue
		}
		if f.tool != c.tool || !reflect.DeepEqual(f.args, c.want) {
			t.Errorf("%v called %s %#v", c.line, f.tool, f.args)
		}
	}
	r := runCLI(t, &fakeCaller{}, false, nil, "browser", "get-cookies", "https://example.com")
	if r.code != 2 || !strings.Contains(r.stderr, "takes no positional arguments") || !strings.Contains(r.stderr, "--urls https://example.com") {
		t.Errorf("flag-only command: %d %q", r.code, r.stderr)
	}
}

func TestEveryErrorHasACodeAndAHint(t *testing.T) {
	cases := []struct {
		line      []string
		want, not string
	}{
		{[]string{"kill-process", "--pid", "notnum", "--start-time", "1"}, `INVALID_ARGUMENT: --pid wants an integer, got "notnum" (w365 kill-process --help`, "strconv"},
		{[]string{"click", "1", "2", "3"}, "INVALID_ARGUMENT: w365 click takes at most 2 positional argument(s) (x y), got 3", "accepts"},
		{[]string{"type-text", "hello", "world"}, "quote a value with spaces: w365 type-text 'hello world'", ""},
		{[]string{"click", "--nope"}, "INVALID_ARGUMENT: unknown flag: --nope (w365 click --help lists its flags)", ""},
	}
	for _, c := range cases {
		r := runCLI(t, &fakeCaller{}, false, nil, c.line...)
		if r.code != 2 || !strings.HasPrefix(r.stderr, "w365: ") || !strings.Contains(r.stderr, c.want) || (c.not != "" && strings.Contains(r.stderr, c.not)) {
			t.Errorf("%v: status %d, stderr %q, want %q", c.line, r.code, r.stderr, c.want)
		}
	}
}

func TestHintsNameCommandsInTheCLIAndToolsInMCP(t *testing.T) {
	e := werr.New(werr.NotFound, "no window matches").WithHint("call list_windows, then browser_snapshot and browser_click_ref")
	f := &fakeCaller{err: e}
	r := runCLI(t, f, false, nil, "activate-window", "x")
	want := "w365: NOT_FOUND: no window matches (call w365 list-windows, then w365 browser snapshot and w365 browser click-ref)\n"
	if r.code != 3 || r.stderr != want {
		t.Errorf("status %d, stderr %q, want %q", r.code, r.stderr, want)
	}
	if e.Hint != "call list_windows, then browser_snapshot and browser_click_ref" {
		t.Errorf("the error itself (what MCP sends) changed: %q", e.Hint)
	}
}

func TestExecPassesOnTheChildsStreamsAndStatus(t *testing.T) {
	f := &fakeCaller{out: &commands.ExecOut{Result: &sandbox.Result{Stdout: "out\n", Stderr: "ls: cannot access\n", ExitCode: 2}}}
	r := runCLI(t, f, false, nil, "exec", "ls /nonexistent")
	if r.code != 2 || r.stdout != "out\n" || r.stderr != "ls: cannot access\n" {
		t.Errorf("exec: %+v", r)
	}
	f.out = &commands.ExecOut{Result: &sandbox.Result{Stdout: "42\n", ExitCode: 0, Success: true}}
	if r := runCLI(t, f, false, nil, "py", "print(42)"); r.code != 0 || r.stdout != "42\n" || r.stderr != "" {
		t.Errorf("py: %+v", r)
	}
	f.out = &commands.ExecOut{Result: &sandbox.Result{TimedOut: true, ExitCode: -1}}
	if r := runCLI(t, f, false, nil, "py", "while True: pass"); r.code != ExitTimedOut || !strings.Contains(r.stderr, "timed out") {
		t.Errorf("timeout: %+v", r)
	}
	f.out = &commands.ExecOut{Result: &sandbox.Result{Stdout: "x", ExitCode: 3}}
	if r := runCLI(t, f, false, nil, "--json", "exec", "ls"); r.code != 3 || !strings.Contains(r.stdout, `"exitCode":3`) {
		t.Errorf("exec --json: %+v", r)
	}
}

func TestDashAndFileReadLongValues(t *testing.T) {
	f := &fakeCaller{out: &commands.ExecOut{Result: &sandbox.Result{}}}
	runCLI(t, f, false, strings.NewReader("print(6*7)\n"), "py", "-")
	if f.args["code"] != "print(6*7)\n" {
		t.Errorf("py - sent %#v", f.args)
	}
	f.out = &commands.ClipboardWriteOut{Characters: 5}
	runCLI(t, f, false, strings.NewReader("hello"), "clipboard-write", "-")
	if f.args["text"] != "hello" {
		t.Errorf("clipboard-write - sent %#v", f.args)
	}
	file := filepath.Join(t.TempDir(), "s.py")
	os.WriteFile(file, []byte("print(1)"), 0o600)
	f.out = &commands.ExecOut{Result: &sandbox.Result{}}
	runCLI(t, f, false, nil, "py", "--file", file)
	if f.args["code"] != "print(1)" {
		t.Errorf("py --file sent %#v", f.args)
	}
	if r := runCLI(t, f, false, nil, "py", "x", "--file", file); r.code != 2 || !strings.Contains(r.stderr, "both") {
		t.Errorf("value and --file: %+v", r)
	}
	if r := runCLI(t, f, false, nil, "py", "--file", filepath.Join(t.TempDir(), "none")); r.code != 3 {
		t.Errorf("missing --file: %+v", r)
	}
	// A plain value is the value, even when it starts with a dash after --.
	runCLI(t, f, false, strings.NewReader("nope"), "type-text", "--", "-x")
	if f.args["text"] != "-x" {
		t.Errorf("type-text -- -x sent %#v", f.args)
	}
}

func TestOneRendererForTablesValuesAndRecords(t *testing.T) {
	wins := &commands.WindowsOut{Windows: []commands.ListedWindow{
		{Window: desktop.Window{Title: "Terminal", ProcessName: "xterm", Handle: 7, X: 1, Y: 2, Width: 300, Height: 200}},
		{Window: desktop.Window{Title: strings.Repeat("long title ", 10), ProcessName: "gedit", Handle: 9, Width: 10, Height: 10}},
	}}
	f := &fakeCaller{out: wins}
	term := runCLI(t, f, true, nil, "list-windows").stdout
	lines := strings.Split(strings.TrimRight(term, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "TITLE") || !strings.Contains(lines[0], "PROCESS NAME") || !strings.Contains(lines[2], "…") {
		t.Errorf("terminal table:\n%s", term)
	}
	if col := func(l, s string) int { return len([]rune(l[:strings.Index(l, s)])) }; col(lines[1], "xterm") != col(lines[2], "gedit") {
		t.Errorf("columns not aligned:\n%s", term)
	}
	pipe := runCLI(t, f, false, nil, "list-windows").stdout
	// The client area's four numbers follow the frame's.
	want := "Terminal\txterm\t7\t1\t2\t300\t200\t0\t0\t0\t0\n" + strings.Repeat("long title ", 10) + "\tgedit\t9\t0\t0\t10\t10\t0\t0\t0\t0\n"
	if pipe != want {
		t.Errorf("pipe rows %q, want %q", pipe, want)
	}
	f.out = &commands.WindowsOut{}
	if r := runCLI(t, f, true, nil, "list-windows"); r.stdout != "no windows\n" {
		t.Errorf("empty table on a terminal %q", r.stdout)
	}
	if r := runCLI(t, f, false, nil, "list-windows"); r.stdout != "" {
		t.Errorf("empty table in a pipe %q", r.stdout)
	}
	// Single values print plain.
	f.out = &commands.ClipboardOut{ClipboardContent: desktop.ClipboardContent{Format: "text", Text: "Grüße"}}
	if r := runCLI(t, f, false, nil, "clipboard-read"); r.stdout != "Grüße\n" {
		t.Errorf("clipboard-read %q", r.stdout)
	}
	f.out = &commands.URLOut{URL: "https://example.com/"}
	if r := runCLI(t, f, false, nil, "browser", "get-url"); r.stdout != "https://example.com/\n" {
		t.Errorf("get-url %q", r.stdout)
	}
	// Embedded and nested records are dotted keys, never a Go type name.
	f.out = &commands.CloseTabOut{CloseTabResult: browser.CloseTabResult{Closed: browser.TabInfo{Index: 1, URL: "about:blank"}}}
	r := runCLI(t, f, false, nil, "browser", "close-tab", "1")
	if strings.Contains(r.stdout, "CloseTabResult") || !strings.Contains(r.stdout, "closed.index\t1\n") || !strings.Contains(r.stdout, "closed.url\tabout:blank\n") {
		t.Errorf("close-tab %q", r.stdout)
	}
}

func TestJQFiltersTheJSONResult(t *testing.T) {
	f := &fakeCaller{out: &commands.WindowsOut{Windows: []commands.ListedWindow{{Window: desktop.Window{Title: "A", Handle: 1}}, {Window: desktop.Window{Title: "B", Handle: 2}}}}}
	if r := runCLI(t, f, false, nil, "--jq", ".windows[].title", "list-windows"); r.code != 0 || r.stdout != "A\nB\n" {
		t.Errorf("--jq strings %+v", r)
	}
	if r := runCLI(t, f, false, nil, "--jq", "[.windows[].handle]", "list-windows"); r.stdout != "[1,2]\n" {
		t.Errorf("--jq JSON %+v", r)
	}
	if r := runCLI(t, f, false, nil, "--jq", ".[", "list-windows"); r.code != 2 || !strings.Contains(r.stderr, "INVALID_ARGUMENT: --jq") {
		t.Errorf("bad --jq %+v", r)
	}
}
