//go:build linux

package e2e_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/w365/w365/test/testenv"
)

// namesApp is what the application of TestAccessibleNamesTheHostReadsAreBounded runs: a
// GTK window titled w365-names with as many buttons as its first argument says, each
// accessible by a name of its second argument's MiB ("I " then "A"s); it writes "ready" to
// /tmp/names once the window is shown.
const namesApp = `import sys, gi
gi.require_version('Gtk', '3.0')
from gi.repository import Gtk, GLib
N, MIB = int(sys.argv[1]), int(sys.argv[2])
w, box = Gtk.Window(title='w365-names'), Gtk.Box()
for i in range(N):
    b = Gtk.Button(label='b%d' % i)
    b.get_accessible().set_name(('%d ' % i) + 'A' * (MIB << 20))
    box.add(b)
w.add(box)
w.show_all()
def ready():
    open('/tmp/names', 'w').write('ready')
GLib.timeout_add(500, ready)
Gtk.main()
`

// An application of a virtual session (python3 with GTK, added by the policy) names 4
// buttons of its window with 8 MiB each. get_accessibility_tree kept every name whole, in
// the host, outside every limit of the session, and copied it into every form of the
// result: with the binary before, the host's resident peak grew by 575 to 780 MiB. A string
// an application answers is now kept up to 16 KiB (atspi's maxString) and a message read up
// to 16 MiB (the accessibility bus's too): the host's peak may grow by 192 MiB at most (the
// names in flight, 8 MiB each, decoded and cut).
func TestAccessibleNamesTheHostReadsAreBounded(t *testing.T) {
	// Not parallel (docs/development.md#tests): its application answers 32 MiB of names within the host's 3 s.
	testenv.Require(t, "bwrap", "python3", "Xvfb", "dbus-daemon")
	h, home, stamp, _ := compromisedApplication(t, "w365-names-")
	running := "w365-names-\x00" + stamp
	killWith(t, running)
	h.MustRun("session", "start", "nm1")
	tmp := filepath.Join(sessionDir(t, home, "nm1"), "tmp")
	h.MustRun("--session", "nm1", "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args="+namesApp,
		"--args=4", "--args=8", "--args=w365-names-", "--args="+stamp)
	waitReady(t, filepath.Join(tmp, "names"))
	grown := peakGrowth(t, h.HostPID())
	r := h.Run("--session", "nm1", "get-accessibility-tree", "--json")
	grew := grown()
	t.Logf("get-accessibility-tree: exit %d, %d bytes out %.300s; the host's peak grew by %d MiB", r.Code, len(r.Stdout), r.Stderr, grew)
	if r.Code != 0 || !strings.Contains(r.Stdout, `"3 AAAA`) {
		t.Errorf("the tree has not the buttons' names: exit %d %.300s", r.Code, r.Stderr)
	}
	if grew > 192 {
		t.Errorf("the host's resident peak grew by %d MiB while it read the accessibility tree of an application of the session, past 192 MiB", grew)
	}
	h.Run("session", "end", "nm1")
	gone(t, running)
}
