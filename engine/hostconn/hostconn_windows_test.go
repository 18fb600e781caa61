//go:build windows

package hostconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/windows"

	"github.com/w365/w365/engine/werr"
)

// These run on Windows, and under wine through test/wine
// (TestWineBrowserDoctor/HostPipe).

// pipeFixture listens on a pipe of a fresh socket path and accepts in the background.
// The path only names the pipe: no directory is made (t.TempDir's removal fails under
// wine 8).
func pipeFixture(t *testing.T) (path, name string) {
	path = filepath.Join(os.TempDir(), fmt.Sprintf("w365-%s-%d", t.Name(), time.Now().UnixNano()), "host.sock")
	endpoint := serveEach(t, path, func(c net.Conn) { t.Cleanup(func() { c.Close() }) })
	return path, strings.TrimPrefix(endpoint, "pipe:")
}

// TestPipeServerCheck: Dial accepts a pipe this user's process serves, and
// serverCheck refuses a server whose user is not the one wanted, with the stable
// UNAVAILABLE error naming the server's process.
func TestPipeServerCheck(t *testing.T) {
	path, name := pipeFixture(t)
	c, err := Dial(context.Background(), path, 5*time.Second)
	if err != nil {
		t.Fatalf("Dial to our own pipe: %v", err)
	}
	defer c.Close()
	var pid uint32
	if err := windows.GetNamedPipeServerProcessId(windows.Handle(c.(interface{ Fd() uintptr }).Fd()), &pid); err != nil {
		t.Fatalf("GetNamedPipeServerProcessId: %v", err)
	}
	if int(pid) != os.Getpid() {
		t.Fatalf("GetNamedPipeServerProcessId = %d, want this process %d", pid, os.Getpid())
	}
	// The same server, checked against another user (SYSTEM): refused.
	err = serverCheck(c, name, "S-1-5-18")
	e := werr.As(err)
	if err == nil || e.Code != werr.Unavailable || e.Retryable || !strings.Contains(e.Message, fmt.Sprintf("served by process %d of another user", pid)) || e.Details["serverPid"] != pid {
		t.Fatalf("serverCheck against another SID = %#v, want a non-retryable UNAVAILABLE naming server pid %d", err, pid)
	}
	if !errors.Is(err, ErrServerRefused) {
		t.Fatal("the server check's error does not wrap ErrServerRefused, which dialers treat as final")
	}
	t.Logf("refused: %v", err)
}

// TestPipeDACL: the pipe's security descriptor, read back from a client handle
// (GetSecurityInfo), has a protected DACL with one ACE: full access for this user.
func TestPipeDACL(t *testing.T) {
	path, _ := pipeFixture(t)
	c, err := Dial(context.Background(), path, 5*time.Second)
	if err != nil {
		t.Fatalf("Dial: %v", err)
	}
	defer c.Close()
	sd, err := windows.GetSecurityInfo(windows.Handle(c.(interface{ Fd() uintptr }).Fd()), windows.SE_KERNEL_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatalf("GetSecurityInfo(pipe, DACL): %v", err)
	}
	sid, err := userSID()
	if err != nil {
		t.Fatal(err)
	}
	sddl := sd.String()
	t.Logf("pipe security descriptor: %s", sddl)
	m := regexp.MustCompile(`D:([A-Z]*)((?:\([^)]*\))*)`).FindStringSubmatch(sddl)
	if m == nil {
		t.Fatalf("no DACL in %q", sddl)
	}
	aces := regexp.MustCompile(`\(([^)]*)\)`).FindAllStringSubmatch(m[2], -1)
	if !strings.Contains(m[1], "P") || len(aces) != 1 {
		t.Fatalf("DACL %q: want protected (P) with exactly one ACE", m[0])
	}
	f := strings.Split(aces[0][1], ";")
	if len(f) < 6 || f[0] != "A" || f[5] != sid || (f[2] != "FA" && f[2] != "GA") {
		t.Fatalf("ACE %q: want allow full access (FA or GA) for %s", aces[0][1], sid)
	}
}
