//go:build linux

package sandbox

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/w365/w365/test/testenv"
)

// On a root host an idmapped mount shows root's files as the sandbox user's, so the helper
// stages its source following no symbolic link: a file an application is given, whose
// directory a program of the session turned into a link to a directory only root may enter
// after the host checked the path, is not shown, and the application does not start.
func TestConfineFollowsNoLinkToAnIdmappedSource(t *testing.T) {
	testenv.Require(t, "bwrap", "cat")
	if os.Geteuid() != 0 {
		testenv.Missing(t, "a root host (the case is a root host's)")
	}
	secret := t.TempDir()
	if err := os.WriteFile(filepath.Join(secret, "f"), []byte("root-only"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "sub")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	r := NewRunner(nil, nil)
	defer r.Close()
	file := filepath.Join(link, "f")
	cmd := exec.Command("cat", file)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	release, done, err := r.Confine(cmd, ConfineOptions{Binds: []string{file}})
	if err != nil {
		t.Fatal(err)
	}
	err = cmd.Start()
	release()
	if err != nil {
		done()
		t.Fatal(err)
	}
	cmd.Wait()
	done()
	if strings.Contains(out.String(), "root-only") || !strings.Contains(out.String(), "a symbolic link on its path") {
		t.Errorf("an idmapped source reached through a link: %q, want the helper's refusal", out.String())
	}
}
