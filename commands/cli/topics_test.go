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
	for _, want := range []string{"2  INVALID_ARGUMENT", "4  BLOCKED_BY_POLICY, FAILSAFE, PROTECTED_PROCESS, STALE_PROCESS", "child's own status", "124"} {
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
}
