package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/w365/w365/engine/werr"
)

func write(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A policy file fails closed: an unknown key, a wrong type or trailing data is an error.
func TestLoadFailsClosed(t *testing.T) {
	for _, body := range []string{`{"toolAllowList": ["click"]}`, `{"toolAllowlist": "click"}`, `{} {}`, `{`} {
		if _, err := Load(write(t, body)); werr.CodeOf(err) != werr.InvalidArgument {
			t.Errorf("%s: %v, want INVALID_ARGUMENT", body, err)
		}
	}
	p, err := Load(write(t, `{"toolDenylist": ["launch_application"], "failsafeEnabled": false}`))
	if err != nil {
		t.Fatal(err)
	}
	s := p.Summarize()
	if !slices.Equal(s.Changed, []string{"failsafeEnabled", "toolDenylist"}) || s.Digest == Default().Digest() || s.Source == "defaults" {
		t.Errorf("summary %+v", s)
	}
	if d := Default().Summarize(); d.Source != "defaults" || len(d.Changed) != 0 || len(d.Digest) != 12 {
		t.Errorf("default summary %+v", d)
	}
}

func TestToolAllowed(t *testing.T) {
	p := Default()
	if !p.ToolAllowed("click") {
		t.Error("default policy refuses click")
	}
	p.ToolAllowlist = []string{"start_session", "click"}
	p.ToolDenylist = []string{"click"}
	for names, want := range map[string]bool{"click": false, "take_screenshot": false, "start_session": true} {
		if got := p.ToolAllowed(names); got != want {
			t.Errorf("ToolAllowed(%s) = %v", names, got)
		}
	}
	// An alias counts: the V3 name is allowed through its short alias.
	if !p.ToolAllowed("mcp_W365ComputerUse_StartSession", "start_session") {
		t.Error("alias not honoured")
	}
	p.ToolAllowlist = nil
	p.ToolDenylist = []string{"end_session"}
	if p.ToolAllowed("mcp_W365ComputerUse_EndSession", "end_session") {
		t.Error("denied alias not honoured")
	}
}

// A policy file that the sessions it governs could rewrite (for the next host to load) is
// refused: below a workspace root anywhere but HOME itself and HOME's dot-directories,
// also when the path given is a symbolic link to such a file.
func TestLoadRefusesAPolicyASessionCouldRewrite(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	elsewhere := t.TempDir()
	put := func(rel, body string) string {
		p := filepath.Join(home, rel)
		if filepath.IsAbs(rel) {
			p = rel
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := filepath.Join(home, ".config", "w365", "linked.json")
	for _, c := range []struct {
		path    string
		refused bool
	}{
		{put("project/policy.json", `{}`), true},
		{put("project/.w365/policy.json", `{}`), true},
		{put("Documents/policy.json", `{}`), true},
		{put(filepath.Join(elsewhere, "work", "policy.json"), `{"workspaceRoots": [`+strconv.Quote(filepath.Join(elsewhere, "work"))+`]}`), true},
		{put("policy.json", `{}`), false},
		{put(".config/w365/policy.json", `{}`), false},
		{put(filepath.Join(elsewhere, "policy.json"), `{"workspaceRoots": [`+strconv.Quote(filepath.Join(elsewhere, "work"))+`]}`), false},
		{link, true},
	} {
		if c.path == link {
			if err := os.Symlink(filepath.Join(home, "project", "policy.json"), link); err != nil {
				t.Fatal(err)
			}
		}
		_, err := Load(c.path)
		if got := werr.CodeOf(err) == werr.InvalidArgument; got != c.refused || (err != nil && !c.refused) {
			t.Errorf("%s: %v, refused %v", c.path, err, c.refused)
		}
	}
}
