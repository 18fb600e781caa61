package policy

import (
	"strings"
	"testing"

	"github.com/w365/w365/engine/werr"
)

// The rules of approvals: by tool (any of its names), annotation, toolset and argument
// pattern; kinds combine, entries of one kind are alternatives; the first rule wins.
func TestApprovalRulesMatch(t *testing.T) {
	p, err := Load(write(t, `{"approvals": [
		{"name": "bank", "tools": ["browser_navigate"], "arguments": [{"name": "url", "glob": "*bank*"}]},
		{"tools": ["kill_process"]},
		{"annotations": ["destructive"], "toolsets": ["browser"]},
		{"name": "rm", "arguments": [{"name": "command", "regexp": "^rm\\b"}, {"name": "args", "glob": "-rf"}]},
		{"name": "outside", "annotations": ["openWorld", "notReadOnly"], "toolsets": ["desktop"]}
	], "approvalTimeoutSeconds": 30}`))
	if err != nil {
		t.Fatal(err)
	}
	nav := ApprovalCall{Names: []string{"browser_navigate", "navigate"}, Toolset: "browser", OpenWorld: true}
	cases := []struct {
		name string
		c    ApprovalCall
		want string
	}{
		{"glob crosses slashes and case", with(nav, "url", "https://MyBank.example/login"), "bank"},
		{"glob misses", with(nav, "url", "https://example.org/"), ""},
		{"no argument", nav, ""},
		{"older name", ApprovalCall{Names: []string{"terminate_process", "kill_process"}, Toolset: "process", Destructive: true}, "tool kill_process"},
		{"annotation and toolset", ApprovalCall{Names: []string{"browser_close"}, Toolset: "browser", Destructive: true}, "destructive, toolset browser"},
		{"annotation, other toolset", ApprovalCall{Names: []string{"close_window"}, Toolset: "windows", Destructive: true}, ""},
		{"regexp", with(ApprovalCall{Names: []string{"execute_shell_command"}}, "command", "rm -r x"), "rm"},
		{"regexp unanchored by choice", with(ApprovalCall{Names: []string{"execute_shell_command"}}, "command", "echo rm"), ""},
		{"list element", with(ApprovalCall{Names: []string{"execute_shell_command"}}, "args", []any{"x", "-RF"}), "rm"},
		{"number is no string match", with(ApprovalCall{Names: []string{"click"}}, "command", 5.0), ""},
		{"not read-only", ApprovalCall{Names: []string{"click"}, Toolset: "desktop"}, "outside"},
		{"read-only", ApprovalCall{Names: []string{"take_screenshot"}, Toolset: "desktop", ReadOnly: true}, ""},
	}
	for _, c := range cases {
		got := ""
		if r := p.ApprovalFor(c.c); r != nil {
			got = r.Label()
		}
		if got != c.want {
			t.Errorf("%s: rule %q, want %q", c.name, got, c.want)
		}
	}
	if Default().ApprovalFor(with(nav, "url", "https://bank")) != nil || Default().ApprovalTimeoutSeconds != 120 {
		t.Error("the defaults ask for approval")
	}
}

func with(c ApprovalCall, k string, v any) ApprovalCall {
	c.Args = map[string]any{k: v}
	return c
}

// A bad rule is an error that says what is wrong with which rule.
func TestApprovalRulesRefused(t *testing.T) {
	for body, want := range map[string]string{
		`{"approvals": [{"name": "x"}]}`:                                                           "names none",
		`{"approvals": [{"Tools": ["click"]}]}`:                                                    `unknown key "Tools"`,
		`{"approvals": [{"tool": ["click"]}]}`:                                                     `unknown field "tool"`,
		`{"approvals": [{"annotations": ["readOnly"]}]}`:                                           `unknown annotation "readOnly"`,
		`{"approvals": [{"arguments": [{"name": "url"}]}]}`:                                        "one of glob and regexp",
		`{"approvals": [{"arguments": [{"name": "url", "glob": "a", "regexp": "b"}]}]}`:            "one of glob and regexp",
		`{"approvals": [{"arguments": [{"glob": "a"}]}]}`:                                          "names no argument",
		`{"approvals": [{"arguments": [{"name": "url", "regexp": "("}]}]}`:                         "missing closing",
		`{"approvals": [{"arguments": [{"name": "url", "Glob": "a"}]}]}`:                           `unknown key "Glob"`,
		`{"approvals": [{"tools": ["click"]}, {"tools": ["click"]}]}`:                              "named \"tool click\" too",
		`{"approvals": [{"tools": ["click"]}], "approvalTimeoutSeconds": 0}`:                       "1..3600",
		`{"approvals": {"tools": ["click"]}}`:                                                      "cannot unmarshal",
		`{"approvals": [{"tools": ["click"], "arguments": [{"name": "u", "glob": "*"}]}], "x": 1}`: `unknown key "x"`,
	} {
		_, err := Load(write(t, body))
		if werr.CodeOf(err) != werr.InvalidArgument || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want INVALID_ARGUMENT with %q", body, err, want)
		}
	}
}
