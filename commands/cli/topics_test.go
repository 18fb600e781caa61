package cli

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/engine/werr"
)

func TestHelpTopicsAndVersion(t *testing.T) {
	r := runCLI(t, &fakeCaller{}, false, nil, "help", "exit-codes")
	for _, want := range []string{"2  INVALID_ARGUMENT", "4  APPROVAL_REQUIRED, BLOCKED_BY_POLICY, FAILSAFE, PROTECTED_PROCESS, STALE_PROCESS", "child's own status", "124"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("help exit-codes lacks %q:\n%s", want, r.stdout)
		}
	}
	r = runCLI(t, &fakeCaller{}, false, nil, "help", "environment")
	for _, want := range []string{"W365_SESSION", "W365_API_KEY", "W365_RUNTIME_DIR", "XDG_STATE_HOME", "DISPLAY"} {
		if r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("help environment lacks %q:\n%s", want, r.stdout)
		}
	}
	root, _ := NewRoot(RootDeps{IO: IO{Out: &strings.Builder{}, Err: &strings.Builder{}}, Extra: AddDoctor, Args: []string{"version"}})
	var out strings.Builder
	root.SetOut(&out)
	root.SetArgs([]string{"version"})
	if err := root.Execute(); err != nil || !strings.Contains(out.String(), "commit: ") || !strings.Contains(out.String(), "go:     go1.") || !strings.Contains(out.String(), "built:  ") {
		t.Errorf("version: %v %q", err, out.String())
	}
}

func TestHostCommandsWithoutAHostSayUnavailable(t *testing.T) {
	t.Setenv("W365_RUNTIME_DIR", filepath.Join(t.TempDir(), "rt"))
	for _, line := range [][]string{{"host", "status"}, {"host", "stop"}, {"trace", "start"}, {"watch"}} {
		r := runCLI(t, &fakeCaller{}, false, nil, line...)
		if r.code != ExitCodes[werr.Unavailable] || !strings.Contains(r.stderr, "UNAVAILABLE: no w365 host is running") {
			t.Errorf("%v: %+v", line, r)
		}
	}
	if r := runCLI(t, &fakeCaller{}, false, nil, "host", "stats"); r.code != 2 || !strings.Contains(r.stderr, "Did you mean w365 host status?") {
		t.Errorf("host stats: %+v", r)
	}
}

func TestEventLines(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.Local)
	start := host.CallEvent{Phase: "start", ID: 7, Time: at, Tool: "browser_type", Frontend: "claude-code", Principal: "local",
		Args: map[string]any{"selector": "#pw", "text": "‹6 characters›"}}
	if got := EventLine(start, false); got != "03:04:05.006 start #7 browser_type selector=#pw text=‹6 characters› (claude-code, local)" {
		t.Errorf("start line %q", got)
	}
	end := host.CallEvent{Phase: "end", ID: 7, Time: at, Tool: "browser_type", DurationMs: 12, Error: werr.New(werr.NotFound, "no element")}
	if got := EventLine(end, false); got != "03:04:05.006 end   #7 browser_type 12ms NOT_FOUND: no element" {
		t.Errorf("end line %q", got)
	}
	paused := host.CallEvent{Phase: "person", ID: 8, Time: at, Person: "paused", By: "local user", Summary: "checking\nthe form"}
	if got := EventLine(paused, false); got != "03:04:05.006 person paused by local user: checking the form" {
		t.Errorf("person line %q", got)
	}
	opened := host.CallEvent{Phase: "person", ID: 9, Time: at, Person: "handover-opened", Summary: "a second factor"}
	if got := EventLine(opened, false); got != "03:04:05.006 person handover opened: a second factor (act, then: handback [NOTE])" {
		t.Errorf("hand-over line %q", got)
	}
}

func TestErrorsSpeakTheCommandLine(t *testing.T) {
	if r := runCLI(t, &fakeCaller{}, false, nil, "--sesion", "x", "get-screen-size"); r.code != 2 || !strings.Contains(r.stderr, "Did you mean --session?") {
		t.Errorf("--sesion: %+v", r)
	}
	e := werr.Invalid(`missing required parameter "snapshotId"`).WithHint("w365 trace stop ends it; see list_windows")
	if c := ForCLI(e, "w365 "); c.Message != "missing required flag --snapshot-id" || c.Hint != "w365 trace stop ends it; see w365 list-windows" {
		t.Errorf("CLI words: %q (%q)", c.Message, c.Hint)
	}
	if c := ForCLI(e, ""); c.Hint != "trace stop ends it; see list-windows" {
		t.Errorf("REPL hint: %q", c.Hint)
	}
}

func TestEventLinesNameRefsQueueExitAndErrors(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6e6, time.Local)
	start := host.CallEvent{Phase: "start", ID: 8, Time: at, Tool: "browser_click_ref", Frontend: "agent", Principal: "local",
		Args: map[string]any{"ref": "e4", "snapshotId": "latest"}, Refs: map[string]string{"e4": `button "Submit"`}}
	if got := EventLine(start, false); got != `03:04:05.006 start #8 browser_click_ref ref=e4 button "Submit" snapshotId=latest (agent, local)` {
		t.Errorf("start line %q", got)
	}
	two := 2
	end := host.CallEvent{Phase: "end", ID: 9, Time: at, Tool: "execute_shell_command", DurationMs: 80, QueuedMs: 4000, ExitCode: &two, Summary: "ls: cannot access"}
	if got := EventLine(end, false); got != "03:04:05.006 end   #9 execute_shell_command 80ms queued 4s exit 2: ls: cannot access" {
		t.Errorf("exit line %q", got)
	}
	fail := host.CallEvent{Phase: "end", ID: 10, Time: at, Tool: "browser_click_ref", DurationMs: 3, CorrelationID: "abc123",
		Error: werr.New(werr.NotFound, "no ref e9").WithHint("take a new snapshot").WithDetail("ref", "e9")}
	if got := EventLine(fail, false); got != `03:04:05.006 end   #10 browser_click_ref 3ms NOT_FOUND: no ref e9 (hint: take a new snapshot) details={"ref":"e9"} [cid abc123]` {
		t.Errorf("error line %q", got)
	}
	if got := colourEvent(fail, "x"); got != "\x1b[31mx\x1b[0m" {
		t.Errorf("error colour %q", got)
	}
}
