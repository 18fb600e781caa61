package hostconn

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/w365/w365/test/testenv"
)

// askClient connects to the socket as the program prefix (nothing, bwrap, setpriv) runs
// python, and prints the line the server answers.
const askClient = `
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
print(s.makefile().readline().strip())
`

// refusalServer listens on a socket in a private directory and answers each client with
// why PeerRefused refuses it ("served" when it does not).
func refusalServer(t *testing.T) string {
	dir := filepath.Join(t.TempDir(), "run")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "host.sock")
	serveEach(t, sock, func(c net.Conn) {
		why := PeerRefused(c)
		if why == "" {
			why = "served"
		}
		c.Write([]byte(why + "\n"))
		c.Close()
	})
	return sock
}

func askFrom(t *testing.T, sock string, prefix ...string) string {
	t.Helper()
	argv := append(prefix, "/usr/bin/python3", "-c", askClient, sock)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %v\n%s", prefix, err, out)
	}
	return strings.TrimSpace(string(out))
}

// A client in another namespace, as every bubblewrap sandbox is, or of another user, is refused
// whatever path it reached the socket by; one beside the server is served.
func TestSocketRefusesSandboxedAndForeignPeers(t *testing.T) {
	testenv.Require(t, "/usr/bin/python3", "bwrap")
	sock := refusalServer(t)

	if r := askFrom(t, sock); r != "served" {
		t.Fatalf("a client beside the server was refused: %q", r)
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
		if r := askFrom(t, sock, append(bw, c.flags...)...); !strings.Contains(r, "namespace") {
			t.Errorf("%s: reply %q, want a refusal", c.name, r)
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
	if r := askFrom(t, sock, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"); !strings.Contains(r, "uid 65534") {
		t.Errorf("another user: reply %q, want a refusal", r)
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
