package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

func loadPolicy(t *testing.T, body string) *policy.Policy {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(path, []byte(body), 0o600)
	p, err := policy.Load(path)
	if err != nil {
		t.Fatalf("%s: %v", body, err)
	}
	return p
}

// A rule naming a tool or toolset w365 lacks would never ask: an error, whereas
// older names count as the tool.
func TestCheckApprovals(t *testing.T) {
	for body, want := range map[string]string{
		`{"approvals": [{"tools": ["move_mouze"]}]}`:                      `names no tool "move_mouze"`,
		`{"approvals": [{"toolsets": ["desktp"]}]}`:                       `names no toolset "desktp"`,
		`{"approvals": [{"tools": ["move_mouse"]}]}`:                      "",
		`{"approvals": [{"toolsets": ["browser"]}]}`:                      "",
		`{"approvals": [{"tools": ["mcp_desktop_get_cursor_position"]}]}`: "",
	} {
		err := CheckApprovals(loadPolicy(t, body))
		if want == "" && err != nil || want != "" && (werr.CodeOf(err) != werr.InvalidArgument || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", body, err, want)
		}
	}
}

// The recommended set in docs/security.md loads and names real tools.
func TestRecommendedApprovals(t *testing.T) {
	doc, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "A recommended set")
	_, block, ok2 := strings.Cut(rest, "```json\n")
	block, _, ok3 := strings.Cut(block, "```")
	if !ok || !ok2 || !ok3 {
		t.Fatal("docs/security.md has no recommended set of approvals in a json block")
	}
	p := loadPolicy(t, block)
	if err := CheckApprovals(p); err != nil || len(p.Approvals) == 0 {
		t.Fatalf("the recommended set: %v (%d rules)", err, len(p.Approvals))
	}
}
