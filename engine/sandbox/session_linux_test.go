package sandbox

import (
	"fmt"
	"os"
	"testing"

	"github.com/w365/w365/test/testenv"
)

// StartNamespaces returns namespaces a program can enter at once. bubblewrap says its
// child's PID before that child has written the user namespace's maps (it does so itself
// when bubblewrap is not set-uid), and a program that joined an unmapped user namespace
// lost its capabilities at exec: the X server, the first program of a session, then
// "did not start" on a busy machine.
func TestStartNamespacesReturnsThemReadyToEnter(t *testing.T) {
	testenv.Require(t, "bwrap", "cat")
	for i := range 20 {
		n, err := StartNamespaces(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{"uid_map", "gid_map"} {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", n.pid, m))
			if err != nil || len(b) == 0 {
				t.Errorf("start %d: the session's user namespace has no %s yet (%v)", i, m, err)
			}
		}
		n.Close()
	}
}
