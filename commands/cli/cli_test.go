package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/werr"
)

// fakeCaller records the call the command line became and answers with out.
type fakeCaller struct {
	tool  string
	args  map[string]any
	calls int
	out   any
	imgs  []tool.Image
	err   error
}

// TestOneShotBuildsNoOtherCommands: a tool call or --version builds neither the commands
// that are no tools (host, doctor, the help topics) nor cobra's completion command; a line
// that may need them (no tool named, help) gets them.
func TestOneShotBuildsNoOtherCommands(t *testing.T) {
	others := func(args ...string) (names []string) {
		root, _ := NewRoot(RootDeps{IO: IO{In: strings.NewReader(""), Out: &strings.Builder{}, Err: &strings.Builder{}}, Args: args, Extra: AddDoctor})
		root.InitDefaultCompletionCmd() // as Execute does
		for _, c := range root.Commands() {
			if slices.Contains([]string{"host", "doctor", "exit-codes", "completion"}, c.Name()) {
				names = append(names, c.Name())
			}
		}
		return names
	}
	for _, line := range [][]string{{"get-cursor-position"}, {"--session", "s1", "browser", "click", "#go"}, {"--version"}} {
		if got := others(line...); len(got) != 0 {
			t.Errorf("%v builds %v", line, got)
		}
	}
	for _, line := range [][]string{{"host", "status"}, {"doctor"}, {"click", "--help"}, {"clik"}, {"help", "exit-codes"}} {
		if got := others(line...); len(got) != 4 {
			t.Errorf("%v builds only %v", line, got)
		}
	}
}

// TestNoToolIsNamedLikeAnotherCommand: a tool call builds only its tool's top-level
// command (TestOneShotBuildsNoOtherCommands), so no command that is not a tool may share
// that name.
func TestNoToolIsNamedLikeAnotherCommand(t *testing.T) {
	root, _ := NewRoot(RootDeps{IO: IO{In: strings.NewReader(""), Out: &strings.Builder{}, Err: &strings.Builder{}},
		Extra: func(root *cobra.Command, g *Globals) { AddServe(root, g); AddDoctor(root, g) }})
	others := []string{"repl", "completion"}
	for _, c := range root.Commands() {
		if c.Annotations["tool"] == "" && c.GroupID != "tools" {
			others = append(others, c.Name())
			others = append(others, c.Aliases...)
		}
	}
	for _, tl := range commands.All() {
		names := []string{tl.Path[0]}
		if len(tl.Path) == 1 {
			names = append(names, tl.Aliases...)
		}
		for _, n := range names {
			if slices.Contains(others, n) {
				t.Errorf("tool %s is called %q, as a command that is not a tool", tl.Name, n)
			}
		}
	}
}

func (f *fakeCaller) Call(_ context.Context, t *tool.Tool, args map[string]any) (*host.Outcome, error) {
	f.calls++
	f.tool, f.args = t.Name, args
	if f.err != nil {
		return nil, f.err
	}
	raw, _ := json.Marshal(f.out)
	return &host.Outcome{Out: f.out, JSON: raw, Images: f.imgs}, nil
}

// run executes one command line against a fake caller, as main does.
func run(t *testing.T, f *fakeCaller, terminal bool, args ...string) (stdout string, err error) {
	t.Helper()
	var out bytes.Buffer
	root, _ := NewRoot(RootDeps{
		IO:     IO{In: strings.NewReader(""), Out: &out, Err: &out, OutIsTerminal: terminal},
		Caller: func(*Globals) host.Caller { return f },
		Args:   args,
	})
	root.SetArgs(args)
	err = root.ExecuteContext(context.Background())
	return out.String(), err
}

func TestCommandLinesBecomeToolArguments(t *testing.T) {
	cases := []struct {
		name string
		line []string
		tool string
		want map[string]any
	}{
		{"positionals fill x and y", []string{"click", "10", "20"}, "click", map[string]any{"x": int64(10), "y": int64(20)}},
		{"camelCase fields are dashed flags", []string{"click", "--click-count", "2", "--button", "right"}, "click",
			map[string]any{"clickCount": int64(2), "button": "right"}},
		{"a slice takes the remaining positionals", []string{"press-keys", "ctrl", "shift", "s"}, "press_keys",
			map[string]any{"keys": []any{"ctrl", "shift", "s"}}},
		{"a repeated flag fills a slice", []string{"press-keys", "--keys", "alt", "--keys", "tab"}, "press_keys",
			map[string]any{"keys": []any{"alt", "tab"}}},
		{"an alias runs the same tool", []string{"keys", "enter"}, "press_keys", map[string]any{"keys": []any{"enter"}}},
		{"a nested path and a JSON flag", []string{"browser", "execute-batch", "--actions", `[{"action":"snapshot"}]`}, "browser_execute_batch",
			map[string]any{"actions": []any{map[string]any{"action": "snapshot"}}}},
		{"booleans and unchanged flags", []string{"type-text", "hi", "--use-paste"}, "type_text", map[string]any{"text": "hi", "usePaste": true}},
		{"a session tool", []string{"session", "end", "s-1"}, "mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": "s-1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeCaller{out: map[string]any{}}
			if _, err := run(t, f, false, c.line...); err != nil {
				t.Fatal(err)
			}
			if f.tool != c.tool || !reflect.DeepEqual(f.args, c.want) {
				t.Errorf("called %s %#v, want %s %#v", f.tool, f.args, c.tool, c.want)
			}
		})
	}
}

func TestBadCommandLinesNeverReachTheHost(t *testing.T) {
	cases := []struct {
		name string
		line []string
		code werr.Code // "" for a cobra usage error
		msg  string
	}{
		{"a value outside the enum", []string{"click", "--button", "Side"}, werr.InvalidArgument, "Backward"},
		{"a value outside the range", []string{"click", "--click-count", "3"}, werr.InvalidArgument, "clickCount"},
		{"a positional that is not a number", []string{"click", "ten", "20"}, werr.InvalidArgument, "x must be an integer"},
		{"a value given twice", []string{"move-mouse", "5", "6", "--x", "7"}, werr.InvalidArgument, "both as an argument and as --x"},
		{"malformed JSON", []string{"browser", "execute-batch", "--actions", "[{"}, werr.InvalidArgument, "--actions takes JSON"},
		{"a missing required value", []string{"browser", "navigate"}, werr.InvalidArgument, `"url"`},
		{"too many positionals", []string{"click", "1", "2", "3"}, "", "at most 2"},
		{"an unknown flag", []string{"click", "--nope"}, "", "unknown flag"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fakeCaller{}
			_, err := run(t, f, false, c.line...)
			if err == nil {
				t.Fatal("accepted")
			}
			if c.code != "" && werr.CodeOf(err) != c.code {
				t.Errorf("code %s, want %s: %v", werr.CodeOf(err), c.code, err)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not mention %q", err, c.msg)
			}
			if f.calls != 0 {
				t.Errorf("the host was called %d times", f.calls)
			}
		})
	}
}

func TestOutputIsHumanByDefaultAndJSONOnRequest(t *testing.T) {
	f := &fakeCaller{out: &commands.ClickOut{X: 10, Y: 20, Button: "Left", ClickCount: 1}}
	out, err := run(t, f, false, "click", "10", "20")
	if err != nil || out != "clicked Left x1 at 10,20\n" {
		t.Errorf("human output %q, %v", out, err)
	}
	out, err = run(t, f, false, "--json", "click", "10", "20")
	if err != nil || out != `{"x":10,"y":20,"button":"Left","clickCount":1}`+"\n" {
		t.Errorf("JSON output %q, %v", out, err)
	}
	// Without a Text method, the output is its fields: aligned on a terminal, tab-separated in a pipe.
	f.out = &commands.LaunchOut{Path: "/usr/bin/xterm", PID: 42, Registered: true}
	if out, _ := run(t, f, false, "launch", "/usr/bin/xterm"); out != "path\t/usr/bin/xterm\npid\t42\nregistered\ttrue\n" {
		t.Errorf("default human output in a pipe %q", out)
	}
	if out, _ := run(t, f, true, "launch", "/usr/bin/xterm"); out != "path:       /usr/bin/xterm\npid:        42\nregistered: true\n" {
		t.Errorf("default human output on a terminal %q", out)
	}
}

func TestImagesGoToFiles(t *testing.T) {
	dir := t.TempDir()
	png := []byte("\x89PNG fake")
	f := &fakeCaller{out: &commands.ImageOut{Width: 2, Height: 1, MIMEType: "image/png", Bytes: len(png)}, imgs: []tool.Image{{Data: png, MIMEType: "image/png"}}}
	file := filepath.Join(dir, "shot.png")
	out, err := run(t, f, true, "screenshot", "-o", file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, file+"\n") {
		t.Errorf("output %q does not start with the path", out)
	}
	if b, _ := os.ReadFile(file); !bytes.Equal(b, png) {
		t.Errorf("file holds %q", b)
	}
	out, err = run(t, f, false, "--json", "screenshot", "-o", file)
	var m map[string]any
	if err != nil || json.Unmarshal([]byte(out), &m) != nil || m["path"] != file {
		t.Errorf("JSON output %q (%v) does not name the file", out, err)
	}
	if out, _ := run(t, f, false, "screenshot", "-o", "-"); out != string(png) {
		t.Errorf("-o - to a pipe wrote %q", out)
	}
	if _, err := run(t, f, true, "screenshot", "-o", "-"); werr.CodeOf(err) != werr.InvalidArgument {
		t.Errorf("-o - to a terminal: %v", err)
	}
}

func TestToolErrorsKeepTheirExitCode(t *testing.T) {
	f := &fakeCaller{err: werr.New(werr.NotFound, "no window matches %q", "x")}
	_, err := run(t, f, false, "activate-window", "x")
	if ExitCode(err) != 3 {
		t.Errorf("exit code %d for %v, want 3", ExitCode(err), err)
	}
	if ExitCode(nil) != 0 || ExitCode(werr.New(werr.Failsafe, "corner")) != 4 {
		t.Error("exit code table")
	}
}

// TestOneShotBuildsOnlyTheCommandItRuns: a one-shot call pays for the commands of the tool
// it names (all of "browser" for a browser tool), --version for none; a line that needs
// the whole tree (help, a typo to correct) gets it.
func TestOneShotBuildsOnlyTheCommandItRuns(t *testing.T) {
	tools := func(args ...string) (names []string) {
		root, _ := NewRoot(RootDeps{IO: IO{In: strings.NewReader(""), Out: &strings.Builder{}, Err: &strings.Builder{}}, Args: args})
		var walk func(c *cobra.Command)
		walk = func(c *cobra.Command) {
			if c.Annotations["tool"] != "" {
				names = append(names, c.Annotations["tool"])
			}
			for _, s := range c.Commands() {
				walk(s)
			}
		}
		walk(root)
		return names
	}
	all := len(commands.All())
	if got := tools("--session", "s1", "get-cursor-position"); !slices.Equal(got, []string{"get_cursor_position"}) {
		t.Errorf("get-cursor-position builds %v", got)
	}
	if got := tools("--version"); len(got) != 0 {
		t.Errorf("--version builds %d tool commands", len(got))
	}
	if got := tools("browser", "click", "#go"); len(got) < 10 || slices.Contains(got, "click") {
		t.Errorf("browser click builds %v", got)
	}
	for _, line := range [][]string{nil, {"clik"}, {"help"}, {"click", "--help"}, {"--help"}, {"host", "status"}} {
		if got := tools(line...); len(got) != all {
			t.Errorf("%v builds %d of %d tool commands", line, len(got), all)
		}
	}
}
