//go:build linux

package e2e_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/w365/w365/test/e2e"
)

// sandboxedClient is Python that tries to drive the host through its socket: the hello, MCP's
// initialize, then a call in a session of its own (the default one is busy running this code),
// whose existence is the effect the test looks for. It prints how far it got.
const sandboxedClient = `
import json, socket
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(%q)
except OSError as e:
    print("connect failed:", e); raise SystemExit
f = s.makefile("rw")
def send(m): f.write(json.dumps(m) + "\n"); f.flush()
send({"w365": 1, "version": %q, "session": "pwned"})
hello = f.readline().strip()
print("hello:", hello)
if json.loads(hello or "{}").get("ok"):
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "1"}}})
    print(f.readline().strip())
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "get_screen_size", "arguments": {}}})
    print("call:", f.readline().strip())
`

// Code in the sandbox that knows the host socket's path cannot use it: the host refuses peers in
// another namespace, whatever the sandbox can see of the runtime directory.
func TestSandboxedCodeCannotDriveTheHostSocket(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	cs := h.MCP()
	version := strings.TrimSpace(h.MustRun("version"))
	sock := filepath.Join(h.RuntimeDir, "host.sock")
	code := fmt.Sprintf(sandboxedClient, sock, version)
	for _, args := range []map[string]any{
		{"code": code},
		{"code": code, "cwd": h.RuntimeDir},
		{"code": code, "cwd": filepath.Dir(h.RuntimeDir)},
	} {
		res := e2e.Call(t, cs, "execute_python_code", args)
		t.Logf("cwd %v: %s", args["cwd"], e2e.Text(res))
		for _, s := range h.Sessions() {
			if s.SessionID == "pwned" {
				t.Fatalf("sandboxed code started a session through the host socket (cwd %v)", args["cwd"])
			}
		}
	}
}
