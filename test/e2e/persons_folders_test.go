//go:build linux

package e2e_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// A virtual session reaches the person's Documents, Downloads and Desktop only where a
// workspace root of the policy holds them, as its shell and Python do
// (docs/security.md#boundaries). With workspaceRoots naming one directory of its own, the
// session's Python sees no ~/Documents; before, the host still took the person's folders
// as roots of the session's for its own tools: a page received a canary of ~/Documents
// through browser_set_file_input_ref, browser_pdf_save with overwrite replaced it with a
// PDF and wrote into ~/Downloads, and mousepad launched on it was shown it read-write and
// saved into it. Judged by effect: the page gets no file, the canary is unchanged, nothing
// new lies in ~/Downloads.
func TestBoundaryVirtualSessionReachesNoPersonsFolderOutsideTheWorkspace(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium", "Xvfb", "bwrap", "mousepad")
	h := e2e.New(t)
	home := fakeHome(t, h)
	ws := t.TempDir()
	pol := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(pol, []byte(`{"workspaceRoots": ["`+ws+`"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	canary := filepath.Join(home, "Documents", "canary.txt")
	if err := os.WriteFile(canary, []byte(e2e.Canary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A page of its own, not testdata's: as uid 1000 (TestConfineOnANonRootHost) the
	// checkout may lie where that user may not enter.
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `<!doctype html><title>upload</title><script>window.__log = [];</script>
<input type="file" aria-label="Upload" onchange="window.__log.push('file:' + [...this.files].map(f => f.name).join(','))">`)
	}))
	t.Cleanup(page.Close)
	cs := h.MCP("--policy", pol)

	out, ok := pyOver(t, cs, "import os\nprint(os.path.exists('"+canary+"'))", ws)
	if !ok || strings.TrimSpace(out.Stdout) != "False" {
		t.Fatalf("the session's Python sees the person's Documents (a workspace root of %s only): %+v", ws, out)
	}

	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": page.URL})
	snapID, snapText := snapshotOver(t, cs, map[string]any{})
	up := snapRef(t, snapText, "Upload")
	if res := e2e.Call(t, cs, "browser_set_file_input_ref", map[string]any{"snapshotId": snapID, "ref": up, "filePaths": []string{canary}}); !res.IsError {
		t.Errorf("the person's %s was set on the page's file input: %s", canary, e2e.Text(res))
	} else if code := e2e.ErrorCode(res); code != "BLOCKED_BY_POLICY" {
		t.Errorf("upload of %s: %s, want BLOCKED_BY_POLICY", canary, e2e.Text(res))
	}
	if got := evalValue(t, cs, "JSON.stringify(window.__log.filter(s => s.startsWith('file:')))"); got != "[]" {
		t.Errorf("the page received the person's file: %s", got)
	}

	for _, p := range []string{"~/Documents/canary.txt", filepath.Join(home, "Downloads", "page.pdf")} {
		if res := e2e.Call(t, cs, "browser_pdf_save", map[string]any{"filePath": p, "overwrite": true}); !res.IsError {
			t.Errorf("browser_pdf_save wrote %s, outside the session and its workspace: %s", p, e2e.Text(res))
		}
	}
	intact(t, canary)
	if ents, _ := os.ReadDir(filepath.Join(home, "Downloads")); len(ents) != 0 {
		t.Errorf("the person's Downloads got %d files", len(ents))
	}
	// The session's own folders still take them.
	var pdf struct{ Path string }
	e2e.Structured(t, e2e.Call(t, cs, "browser_pdf_save", map[string]any{"filePath": "page.pdf"}), &pdf)
	if _, err := os.Stat(pdf.Path); err != nil || !strings.HasPrefix(pdf.Path, filepath.Join(home, ".local", "state")) {
		t.Errorf("a PDF by name went to %q (%v), want the session's Downloads", pdf.Path, err)
	}

	res := e2e.Call(t, cs, "launch_application", map[string]any{"path": "org.xfce.mousepad", "args": []string{canary}})
	if !res.IsError {
		t.Errorf("mousepad was launched on the person's %s: %s", canary, e2e.Text(res))
		// What it was shown, it may write: edit and save it, as the agent would.
		deadline := time.Now().Add(20 * time.Second)
		for !windowTitled(t, cs, "canary.txt") && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
		}
		// The test has failed already; these only show the harm, whether or not they work.
		_ = e2e.Call(t, cs, "press_keys", map[string]any{"keys": []string{"ctrl", "End"}})
		_ = e2e.Call(t, cs, "type_text", map[string]any{"text": "written by the session"})
		_ = e2e.Call(t, cs, "press_keys", map[string]any{"keys": []string{"ctrl", "s"}})
		time.Sleep(2 * time.Second)
	} else if code := e2e.ErrorCode(res); code != "BLOCKED_BY_POLICY" {
		t.Errorf("launch on %s: %s, want BLOCKED_BY_POLICY", canary, e2e.Text(res))
	}
	intact(t, canary)
}

// intact fails the test when the canary file f no longer holds the canary, and puts it back.
func intact(t *testing.T, f string) {
	t.Helper()
	if b, err := os.ReadFile(f); err != nil || string(b) != e2e.Canary+"\n" {
		t.Errorf("%s was changed: %.40q %v", f, b, err)
		os.WriteFile(f, []byte(e2e.Canary+"\n"), 0o600)
	}
}

// windowTitled says whether a window of the session's desktop has part in its title.
func windowTitled(t *testing.T, cs *mcp.ClientSession, part string) bool {
	t.Helper()
	var wl struct{ Windows []struct{ Title string } }
	e2e.Structured(t, e2e.Call(t, cs, "list_windows", nil), &wl)
	return slices.ContainsFunc(wl.Windows, func(w struct{ Title string }) bool { return strings.Contains(w.Title, part) })
}
