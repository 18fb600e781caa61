//go:build linux

package atspi_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/desktop/x11/atspi"
	"github.com/w365/w365/engine/desktop/x11/display"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/test/testenv"
)

// TestCachedWalkIsTheLiveWalk: a walk that reads the application's Cache.GetItems gives
// the same tree and the same search results as the level-by-level walk, cut by depth or by
// count or not at all, on the toolkits whose cache holds their windows (Chromium, GTK 3); Qt 5's
// cache holds nothing of use, and GTK 2 serves its cache only peer to peer, where it is not read
// (docs/accessibility.md#speed): their walks are the live walk (GTK 2's with an open menu, whose
// closed menus' items are dropped for their INT_MIN extents).
func TestCachedWalkIsTheLiveWalk(t *testing.T) {
	cases := []struct {
		name   string
		start  func(t *testing.T, d *display.Desktop, tr *atspi.Tree)
		cached bool
	}{
		{"Chromium", func(t *testing.T, d *display.Desktop, tr *atspi.Tree) {
			startChromium(t, d, 53)
			activate(t, d, "w365 a11y page")
			findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Action 52"})
		}, true},
		{"GTK3", func(t *testing.T, d *display.Desktop, tr *atspi.Tree) {
			startApp(t, d, "a11y_gtk3.py")
			activate(t, d, "w365 a11y GTK3")
			findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Submit"})
		}, true},
		{"GTK3Cells", func(t *testing.T, d *display.Desktop, tr *atspi.Tree) {
			startApp(t, d, "a11y_gtk3_cells.py")
			activate(t, d, "w365 a11y GTK3 cells")
			findEventually(t, tr, desktop.FindQuery{Role: "DataItem", Name: "303"})
		}, true},
		{"GTK2OpenMenu", func(t *testing.T, d *display.Desktop, tr *atspi.Tree) {
			if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/gtk-2.0/modules/libatk-bridge.so"); err != nil {
				testenv.Missing(t, "libatk-adaptor (GTK 2's accessibility bridge)")
			}
			dir := t.TempDir()
			startReal(t, d, filepath.Base(dir), "/usr/bin/pcmanfm", "--no-desktop", dir)
			m := findEventually(t, tr, desktop.FindQuery{Role: "Menu", Name: "File"})[0]
			xdo(t, d, "mousemove", "--sync", strconv.Itoa(m.CenterX), strconv.Itoa(m.CenterY), "click", "1")
			treeEventually(t, tr, 10, 0, "MenuItem", "Close Window")
		}, false},
		{"GTK4", func(t *testing.T, d *display.Desktop, tr *atspi.Tree) {
			if err := exec.Command("/usr/bin/python3", "-c", "import gi; gi.require_version('Gtk', '4.0')").Run(); err != nil {
				testenv.Missing(t, "gir1.2-gtk-4.0")
			}
			startApp(t, d, "a11y_gtk4.py", "GSK_RENDERER=cairo")
			activate(t, d, "w365 a11y GTK4")
			findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Submit"})
		}, true},
		{"Qt5", func(t *testing.T, d *display.Desktop, tr *atspi.Tree) {
			if err := exec.Command("/usr/bin/python3", "-c", "import PyQt5.QtWidgets").Run(); err != nil {
				testenv.Missing(t, "python3-pyqt5")
			}
			startApp(t, d, "a11y_qt5.py")
			activate(t, d, "w365 a11y Qt5")
			findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Submit"})
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := x11test.Start(t)
			tr := open(t, d)
			c.start(t, d, tr)
			// Every walk reads the cache, whatever its size (these windows are small).
			atspi.CacheAfter(tr, 0)
			live := open(t, d)
			atspi.LiveOnly(live)
			before, walks := atspi.CachedWalks(tr), 0
			for _, lim := range [][2]int{{10, 2000}, {10, 40}, {3, 0}, {0, 0}} {
				walks += same(t, fmt.Sprintf("Tree(%d, %d)", lim[0], lim[1]), func(tr *atspi.Tree) (any, error) {
					root, meta, err := tr.Tree(context.Background(), lim[0], lim[1])
					return []any{root, meta}, err
				}, tr, live)
			}
			for _, q := range []desktop.FindQuery{{Role: "Button"}, {Name: "Action 5"}, {Text: "Submit"}, {Role: "MenuItem"}} {
				walks += same(t, fmt.Sprintf("Find(%+v)", q), func(tr *atspi.Tree) (any, error) {
					return tr.Find(context.Background(), q)
				}, tr, live)
			}
			if n := atspi.CachedWalks(tr) - before; c.cached && n != walks {
				t.Errorf("the cache answered %d of %d walks", n, walks)
			} else if !c.cached && n != 0 {
				t.Errorf("the cache answered %d walks of a toolkit whose cache holds nothing", n)
			}
			if n := atspi.CachedWalks(live); n != 0 {
				t.Errorf("the live tree's cache answered %d walks", n)
			}
		})
	}
}

// TestOnlyABigWalkReadsTheCache: the default tree of a Chromium window (three levels, a
// handful of objects) is walked without the application's cache, which costs more than such a
// walk; the whole ~300-node window reads it.
func TestOnlyABigWalkReadsTheCache(t *testing.T) {
	d := x11test.Start(t)
	tr := open(t, d)
	startChromium(t, d, 53)
	activate(t, d, "w365 a11y page")
	findEventually(t, tr, desktop.FindQuery{Role: "Button", Name: "Action 52"})
	for _, c := range []struct {
		depth, elems int
		cached       bool
	}{{0, 0, false}, {10, 2000, true}, {2, 0, false}} {
		before := atspi.CachedWalks(tr)
		if _, _, err := tr.Tree(context.Background(), c.depth, c.elems); err != nil {
			t.Fatal(err)
		}
		if got := atspi.CachedWalks(tr) > before; got != c.cached {
			t.Errorf("Tree(%d, %d) read the cache: %v, want %v", c.depth, c.elems, got, c.cached)
		}
	}
}

// same asserts that f gives the same result on the cached and the live tree (read three
// times at most, as a focus or a caret may change between two reads).
// same compares what f reads through cached and through live, three times at most (a
// window may change between the two reads), and returns how many reads of cached it made.
func same(t *testing.T, what string, f func(*atspi.Tree) (any, error), cached, live *atspi.Tree) int {
	t.Helper()
	var a, b any
	var errA, errB error
	for i := 1; i <= 3; i++ {
		a, errA = f(cached)
		b, errB = f(live)
		if errA == nil && errB == nil && reflect.DeepEqual(a, b) {
			return i
		}
	}
	t.Errorf("%s: cached walk %+v (%v)\nlive walk %+v (%v)", what, a, errA, b, errB)
	return 3
}
