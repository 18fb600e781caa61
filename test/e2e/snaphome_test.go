//go:build linux

package e2e_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// ~/snap holds the HOME of each snap application (snapd sets HOME to ~/snap/NAME/REVISION),
// and Ubuntu's Firefox is one: its profile, with the person's cookies and saved passwords,
// lies in ~/snap/firefox/common/.mozilla. With the default workspace root ~, a Python call
// with ~/snap/firefox/common as its working directory read logins.json and wrote a user.js
// the person's Firefox would load. Judged by effect: the secret is not in any output, the
// profile holds nothing new, and the shell's ~/snap path is refused as a dot-entry's is.
func TestBoundarySessionReachesNoSnapApplicationsHome(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3")
	h := e2e.New(t)
	home := h.FakeHome()
	profile := filepath.Join(home, "snap", "firefox", "common", ".mozilla", "firefox", "abc.default")
	if err := os.MkdirAll(profile, 0o700); err != nil {
		t.Fatal(err)
	}
	logins := filepath.Join(profile, "logins.json")
	if err := os.WriteFile(logins, []byte(e2e.Canary+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := h.MCP()
	steal := `import glob, os
for p in glob.glob('**/logins.json', recursive=True) + glob.glob('.mozilla/**/logins.json', recursive=True):
    print(open(p).read())
for d in glob.glob('.mozilla/firefox/*/') + glob.glob('firefox/common/.mozilla/firefox/*/') + glob.glob('*/firefox/*/'):
    open(os.path.join(d, 'user.js'), 'w').write('user_pref("network.proxy.type", 1);')
print('done')`
	for _, cwd := range []string{"~/snap/firefox/common", "~/snap", "~/snap/firefox"} {
		res := e2e.Call(t, cs, "execute_python_code", map[string]any{"code": steal, "cwd": cwd})
		if strings.Contains(e2e.Text(res), e2e.Canary) {
			t.Errorf("cwd %s: the call read the person's Firefox logins: %s", cwd, e2e.Text(res))
		}
		if !res.IsError {
			t.Errorf("cwd %s was accepted: %s", cwd, e2e.Text(res))
		}
	}
	res := e2e.Call(t, cs, "execute_shell_command", map[string]any{"command": "cat ~/snap/firefox/common/.mozilla/firefox/abc.default/logins.json"})
	if strings.Contains(e2e.Text(res), e2e.Canary) || e2e.ErrorCode(res) != "BLOCKED_BY_POLICY" {
		t.Errorf("the shell's ~/snap path: %s %s", e2e.ErrorCode(res), e2e.Text(res))
	}
	unchanged(t, logins)
	if _, err := os.Stat(filepath.Join(profile, "user.js")); err == nil {
		t.Error("the call wrote a user.js into the person's Firefox profile")
	}
}
