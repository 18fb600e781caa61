//go:build linux

package e2e_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/w365/w365/test/e2e"
)

// A read path of the policy (sandboxReadPaths) is shown from what the host checked, never
// through a symbolic link swapped in afterwards: while a writer exchanges the read path
// with a link to a directory inside one only root may enter, 80 calls that read through the
// read path never see the file there. Against the binary before, which staged the read path
// by a lookup that followed links, some call printed it (one in 20 or so on a root host).
func TestReadPathsAreShownFromWhatTheHostChecked(t *testing.T) {
	t.Parallel()
	base, err := os.MkdirTemp("/var/tmp", "w365-rp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	closed, err := os.MkdirTemp("/var/tmp", "w365-closed-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(closed) })
	os.Chmod(base, 0o755)
	inner := filepath.Join(closed, "inner") // closed stays 0700: only root enters it
	os.Mkdir(inner, 0o755)
	os.WriteFile(filepath.Join(inner, "f"), []byte("CLOSED-SECRET"), 0o644)
	rp, other := filepath.Join(base, "rp"), filepath.Join(base, "other")
	os.Mkdir(rp, 0o755)
	os.WriteFile(filepath.Join(rp, "f"), []byte("open"), 0o644)
	if err := os.Symlink(inner, other); err != nil {
		t.Fatal(err)
	}
	pol := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(pol, []byte(`{"sandboxReadPaths": [`+strconv.Quote(rp)+`]}`), 0o644)
	h := e2e.New(t)
	h.SetEnv("W365_POLICY", pol)
	cs := h.MCP()

	var stop atomic.Bool
	swapped := make(chan struct{})
	go func() {
		defer close(swapped)
		for !stop.Load() {
			unix.Renameat2(unix.AT_FDCWD, rp, unix.AT_FDCWD, other, unix.RENAME_EXCHANGE)
		}
	}()
	defer func() { stop.Store(true); <-swapped }()
	code := "try:\n    print(open(" + strconv.Quote(filepath.Join(rp, "f")) + ").read())\nexcept OSError as e:\n    print(e)\n"
	for i := 0; i < 80; i++ {
		res := e2e.Call(t, cs, "execute_python_code", map[string]any{"code": code})
		if text := e2e.Text(res); strings.Contains(text, "CLOSED-SECRET") {
			t.Fatalf("call %d read the file inside the root-only directory through the read path: %s", i, text)
		}
	}
}
