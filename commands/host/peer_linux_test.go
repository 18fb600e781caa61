package host

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/w365/w365/test/testenv"
)

// helloFrom connects to the host socket as the program prefix (nothing, bwrap, setpriv) runs
// python, sends a valid hello and returns the host's reply.
const helloClient = `
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(('{"w365":1,"version":"%s"}\n' % sys.argv[2]).encode())
print(s.makefile().readline().strip())
`

func helloFrom(t *testing.T, sock string, prefix ...string) helloReply {
	t.Helper()
	argv := append(prefix, "/usr/bin/python3", "-c", helloClient, sock, Version())
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", prefix, err, out)
	}
	var r helloReply
	if err := json.Unmarshal([]byte(strings.TrimSpace(string(out))), &r); err != nil {
		t.Fatalf("%v: reply %q", prefix, out)
	}
	return r
}

// A client in another namespace, as every bubblewrap sandbox is, or of another user, is refused
// whatever path it reached the socket by; one beside the host is served.
func TestSocketRefusesSandboxedAndForeignPeers(t *testing.T) {
	testenv.Require(t, "/usr/bin/python3", "bwrap")
	h := testHost(t)
	if err := h.Listen(); err != nil {
		t.Fatal(err)
	}
	go h.Serve(context.Background())
	sock, _ := SocketPath()

	if r := helloFrom(t, sock); !r.OK {
		t.Fatalf("a client beside the host was refused: %+v", r)
	}
	bw := []string{"bwrap", "--dev-bind", "/", "/", "--die-with-parent"}
	for _, c := range []struct {
		name  string
		flags []string
	}{
		{"mount namespace", nil},
		{"user namespace", []string{"--unshare-user"}},
		{"PID namespace", []string{"--unshare-pid"}},
		{"like the sandbox", []string{"--unshare-all"}},
	} {
		if r := helloFrom(t, sock, append(bw, c.flags...)...); r.OK || !strings.Contains(r.Error, "namespace") {
			t.Errorf("%s: reply %+v, want a refusal", c.name, r)
		}
	}

	if os.Getuid() != 0 {
		t.Log("not root: the other-user case needs setpriv as root")
		return
	}
	// Let uid 65534 reach the socket file, as a misconfigured runtime directory would (the
	// directories are this test's own: the runtime directory and the test's temporary ones).
	for d := filepath.Dir(sock); strings.HasPrefix(d, os.TempDir()+"/"); d = filepath.Dir(d) {
		os.Chmod(d, 0o711)
	}
	os.Chmod(sock, 0o666)
	if r := helloFrom(t, sock, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"); r.OK || !strings.Contains(r.Error, "uid 65534") {
		t.Errorf("another user: reply %+v, want a refusal", r)
	}
}

func TestSandboxCgroup(t *testing.T) {
	for path, want := range map[string]bool{
		"/w365/run-1234-7":               true,
		"/user.slice/w365/run-9-1/inner": true,
		"/system.slice/w365.service":     false,
		"/w365":                          false,
		"/user.slice/user-0.slice":       false,
	} {
		if got := sandboxCgroup(path); got != want {
			t.Errorf("sandboxCgroup(%q) = %v, want %v", path, got, want)
		}
	}
}
