//go:build linux

package tasks_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// The tasks of this file drive widgets and applications that no round before them had met (a
// third held-out round: a Qt 5 settings tool's checkable list, tree and spin box; GTK 3's font
// chooser dialog and slider; GTK 2's icon-only toolbar buttons and file chooser; an Xt dialog
// read by OCR; a menu opened by its mnemonic and its check items), under the same rule: the
// agent takes every coordinate, title and name from what a tool returned.

// waitState waits (up to 2 s) until the first element find_ui_element finds for args has the
// state state (or, with not, lacks it), and returns it.
func waitState(c *client, args map[string]any, state string, not bool) (map[string]any, error) {
	for try := 0; ; try++ {
		_, ms, err := found(c, args, false)
		if err != nil {
			return nil, err
		}
		if len(ms) == 0 {
			return nil, fmt.Errorf("find_ui_element %v found nothing", args)
		}
		if slices.Contains(states(ms[0]), state) != not {
			return ms[0], nil
		}
		if try == 20 {
			return nil, fmt.Errorf("%v does not read %s (its states %v)", args, map[bool]string{false: state, true: "not " + state}[not], states(ms[0]))
		}
		c.call("wait_milliseconds", map[string]any{"ms": 100})
	}
}

// matchAt is the element of role that find_ui_element finds at the place of n (the element
// n was read as in the tree): its value now, and its click point.
func matchAt(c *client, role string, n node) (map[string]any, error) {
	_, ms, err := found(c, map[string]any{"role": role}, false)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if b := matchNode(m); b.X == n.X && b.Y == n.Y {
			return m, nil
		}
	}
	return nil, fmt.Errorf("no %s at %d,%d any more", role, n.X, n.Y)
}

// focusAt clicks the element of role at the place of n until it reads focused (three times at
// most), as a person looks before typing: in 1 run of 15 the 40 keys that followed a single
// click on yad's slider, right after its font chooser closed, moved nothing.
func focusAt(c *client, role string, n node) error {
	for try := 0; ; try++ {
		if err := clickAt(c, n); err != nil {
			return err
		}
		for wait := 0; wait < 5; wait++ {
			m, err := matchAt(c, role, n)
			if err != nil {
				return err
			}
			if slices.Contains(states(m), "focused") {
				return nil
			}
			c.call("wait_milliseconds", map[string]any{"ms": 100})
		}
		if try == 2 {
			return fmt.Errorf("the %s at %d,%d does not take the focus", role, n.X, n.Y)
		}
	}
}

// valueOf is the value of the element of role at the place of n (matchAt).
func valueOf(c *client, role string, n node) (string, error) {
	m, err := matchAt(c, role, n)
	if err != nil {
		return "", err
	}
	v, _ := m["value"].(string)
	return v, nil
}

// fileHoldsAll waits (up to 5 s) for file to hold every one of parts.
func fileHoldsAll(file string, parts ...string) error {
	var b []byte
	for i := 0; i < 50; i++ {
		b, _ = os.ReadFile(file)
		if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(string(b), p) }) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s holds %.800q, want each of %q", file, b, parts)
}

// qt5ct (Qt 5): on its Style Sheets tab tick two style sheets in a list whose items are check
// boxes (a click selects an item, space ticks it), on its Interface tab set the spin box beside
// "Mouse wheel scroll lines:" (it has no name) to 5 and untick "Show shortcuts in context
// menus", on its Icon Theme tab choose Adwaita in the tree, and OK. qt5ct writes its
// configuration: the file is the check.
func qt5ctTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "qt5ct")
	cfg := filepath.Join(work, "qt5ct-config")
	printed := programEnv(t, h, []string{"XDG_CONFIG_HOME=" + cfg, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"}, "/usr/bin/qt5ct")
	sheets := []string{"scrollbar-simple.qss", "tooltip-simple.qss"}
	measure(t, "qt5ct: tick list items, an unnamed spin box, a tree item, on three tabs (its configuration)", "w365", c, func() error {
		if _, err := activeWindow(c, "Qt5 Configuration Tool"); err != nil {
			return err
		}
		if err := clickFound(c, map[string]any{"role": "TabItem", "name": "Style Sheets"}); err != nil {
			return err
		}
		for _, s := range sheets {
			item := map[string]any{"role": "ListItem", "name": s}
			if err := first(
				func() error { return clickFound(c, item) },
				func() error { _, err := waitState(c, item, "selected", false); return err },
				func() error { return key(c, "space") },
				func() error { _, err := waitState(c, item, "checked", false); return err },
			); err != nil {
				return err
			}
		}
		if err := clickFound(c, map[string]any{"role": "TabItem", "name": "Interface"}); err != nil {
			return err
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		spin, err := beside(root, "Mouse wheel scroll lines:", "Spinner")
		if err != nil {
			return err
		}
		if err := first(
			func() error { return retype(c, spin, "5") },
			func() error { return key(c, "tab") },
			func() error {
				v, err := valueOf(c, "Spinner", spin)
				if err == nil && v != "5" {
					err = fmt.Errorf("the scroll lines spin box reads %q after 5 was typed", v)
				}
				return err
			},
		); err != nil {
			return err
		}
		shortcuts := map[string]any{"role": "CheckBox", "name": "Show shortcuts in context menus"}
		_, ms, err := found(c, shortcuts, false)
		if err == nil && len(ms) == 0 {
			err = fmt.Errorf("the Interface tab shows no %q", shortcuts["name"])
		}
		if err != nil {
			return err
		}
		if slices.Contains(states(ms[0]), "checked") {
			if err := clickAt(c, matchNode(ms[0])); err != nil {
				return err
			}
		}
		if _, err := waitState(c, shortcuts, "checked", true); err != nil {
			return err
		}
		theme := map[string]any{"role": "DataItem", "name": "Adwaita"}
		return first(
			func() error { return clickFound(c, map[string]any{"role": "TabItem", "name": "Icon Theme"}) },
			func() error { return clickFound(c, theme) },
			func() error { _, err := waitState(c, theme, "selected", false); return err },
			func() error { return clickButton(c, "OK") },
		)
	}, func() error {
		if _, err := printed(); err != nil {
			return err
		}
		return fileHoldsAll(filepath.Join(cfg, "qt5ct", "qt5ct.conf"), "icon_theme=Adwaita", "wheel_scroll_lines=5",
			"show_shortcuts_in_context_menus=false", sheets[0], sheets[1])
	})
}

// yad (GTK 3) --form: a poster's settings. Its font button opens GTK 3's font chooser dialog:
// the agent searches it for Monospace, picks Monospace Bold in its list (which keeps its
// scroll offset, so the row may sit above the view: the agent scrolls up over the list until
// it shows), sets the size in the spin box beside Size, and Selects; it sets the Opacity slider
// to 75 with the keyboard, reading the slider's value after each key, and ticks Print borders.
// What yad prints on OK is the check.
func yadFormTask(t *testing.T, h *e2e.Harness, c *client) {
	testenv.Require(t, "yad")
	printed := program(t, h, "yad", "--form", "--title", "Poster settings", "--field", "Heading font:FN",
		"--field", "Opacity:SCL", "--field", "Print borders:CHK", "Sans 12", "50", "FALSE")
	measure(t, "yad: GTK 3 font chooser dialog, a slider by keys, a check box (its output)", "w365", c, func() error {
		if _, err := activeWindow(c, "Poster settings"); err != nil {
			return err
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		font, err := beside(root, "Heading font", "Button")
		if err != nil {
			return err
		}
		slider, err := beside(root, "Opacity", "Slider")
		if err != nil {
			return err
		}
		if err := first(
			func() error { return clickAt(c, font) },
			func() error { _, err := activeWindow(c, "Pick a Font"); return err },
			func() error { return clickFound(c, map[string]any{"role": "Edit", "name": "Search"}) },
			func() error { return typed(c, "Monospace") },
		); err != nil {
			return err
		}
		bold := map[string]any{"role": "DataItem", "name": "Monospace Bold"}
		for try := 0; ; try++ {
			_, ms, err := found(c, bold, true)
			if err != nil {
				return err
			}
			if len(ms) > 0 {
				break
			}
			if try == 10 {
				return fmt.Errorf("the font list does not show Monospace Bold")
			}
			list, err := firstFound(c, map[string]any{"role": "Table"})
			if err != nil {
				return err
			}
			if _, _, err := c.call("scroll", map[string]any{"x": list.X + list.Width/2, "y": list.Y + list.Height/2, "deltaY": -3}); err != nil {
				return err
			}
		}
		dialog, err := func() (node, error) {
			if err := first(
				func() error { return clickFound(c, bold) },
				func() error { _, err := waitState(c, bold, "selected", false); return err },
			); err != nil {
				return node{}, err
			}
			return tree(c)
		}()
		if err != nil {
			return err
		}
		size, err := beside(dialog, "Size", "Spinner")
		if err != nil {
			return err
		}
		// Into the spin button at the point find_ui_element gives to click (its number: its
		// centre lies on its - button), then its text replaced.
		if err := first(
			func() error {
				m, err := matchAt(c, "Spinner", size)
				if err == nil {
					_, _, err = c.call("click", map[string]any{"x": m["centerX"], "y": m["centerY"]})
				}
				return err
			},
			func() error { return key(c, "ctrl", "a") },
			func() error { return typed(c, "18") },
			func() error { return key(c, "tab") },
			func() error {
				v, err := valueOf(c, "Spinner", size)
				if err == nil && v != "18" {
					err = fmt.Errorf("the size spin box reads %q after 18 was typed", v)
				}
				return err
			},
			func() error { return clickButton(c, "Select") },
			func() error { _, err := activeWindow(c, "Poster settings"); return err },
			// The font button names the font it now holds.
			func() error {
				_, err := firstFound(c, map[string]any{"role": "Button", "name": "Monospace Bold"})
				return err
			},
			func() error { return focusAt(c, "Slider", slider) },
		); err != nil {
			return err
		}
		// The slider takes keys once it has the focus: a page key while it is 10 or more off,
		// an arrow for the rest, its value read after each; a key that moved it away from 75
		// is swapped for its opposite (GTK's Page Up lowers a horizontal scale).
		keys := map[bool][2]string{true: {"pageup", "pagedown"}, false: {"right", "left"}}
		for try, last := 0, -1.0; ; try++ {
			v, err := valueOf(c, "Slider", slider)
			if err != nil {
				return err
			}
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("the slider reads %q", v)
			}
			if n == 75 {
				break
			}
			if try == 40 {
				return fmt.Errorf("the slider reads %v after 40 keys", n)
			}
			page := math.Abs(75-n) >= 10
			if last >= 0 && math.Abs(75-n) > math.Abs(75-last) {
				// The last key (of the kind the distance before chose) went the wrong way.
				k := keys[math.Abs(75-last) >= 10]
				keys[math.Abs(75-last) >= 10] = [2]string{k[1], k[0]}
			}
			k := keys[page][0]
			if n > 75 {
				k = keys[page][1]
			}
			if err := key(c, k); err != nil {
				return err
			}
			last = n
		}
		return first(
			func() error { return tick(c, map[string]any{"role": "CheckBox", "name": "Print borders"}) },
			func() error { return clickButton(c, "OK") },
		)
	}, func() error {
		if got, err := printed(); err != nil || got != "Monospace Bold 18|75|TRUE|" {
			return fmt.Errorf("yad printed %q (%v)", got, err)
		}
		return nil
	})
}

// gpicview (GTK 2): rotate a photo clockwise with one of its toolbar's four buttons that show
// only an icon (the tree names them by their tooltips), then Save As into a sibling folder
// through GTK 2's file chooser: up by its path bar, into the folder by a double click on its
// row in the file list, the name typed in the field beside "Name:". The file on disk, 48x64
// where the photo was 64x48, is the check.
func gpicviewTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "gpicview")
	root := filepath.Join(work, "photos")
	for _, d := range []string{"inbox", "archive"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	var b bytes.Buffer
	png.Encode(&b, img)
	os.WriteFile(filepath.Join(root, "inbox", "photo.png"), b.Bytes(), 0o644)
	want := filepath.Join(root, "archive", "photo-upright.png")
	programEnv(t, h, nil, "/usr/bin/gpicview", filepath.Join(root, "inbox", "photo.png"))
	measure(t, "gpicview (GTK 2): an icon button by its tooltip, Save As in another folder (file on disk)", "w365", c, func() error {
		title, err := activeWindow(c, "photo.png")
		if err != nil {
			return err
		}
		// The button shows only an icon; the tree names it by its tooltip. (gpicview's title
		// keeps the size the picture had when it opened.)
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "Rotate Clockwise"}) },
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "Save As"}) },
			// The path bar's button of the folder above the photo's.
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "photos"}) },
		); err != nil {
			return err
		}
		archive, err := firstFound(c, map[string]any{"role": "DataItem", "name": "archive"})
		if err != nil {
			return err
		}
		if _, _, err := c.call("click", map[string]any{"x": archive.X + archive.Width/2, "y": archive.Y + archive.Height/2, "clickCount": 2}); err != nil {
			return err
		}
		// In it, the path bar shows it as the current folder.
		if _, err := waitState(c, map[string]any{"role": "Button", "name": "archive"}, "checked", false); err != nil {
			return err
		}
		dialog, err := tree(c)
		if err != nil {
			return err
		}
		name, err := fieldBeside(dialog, "Name:")
		if err != nil {
			return err
		}
		return first(
			func() error { return retype(c, name, "photo-upright.png") },
			func() error { return clickButton(c, "Save") },
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		var err error
		for i := 0; i < 50; i++ {
			var f *os.File
			if f, err = os.Open(want); err == nil {
				var cfg image.Config
				cfg, err = png.DecodeConfig(f)
				f.Close()
				if err == nil && (cfg.Width != 48 || cfg.Height != 64) {
					return fmt.Errorf("%s is %dx%d, want 48x64", want, cfg.Width, cfg.Height)
				}
				if err == nil {
					return nil
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		return fmt.Errorf("no picture saved as %s: %v", want, err)
	})
}

// wordLike is the first word read that is text once the bevel marks OCR reads beside a
// command button's label ("(Yes)", "C" and ")") are trimmed off it.
func wordLike(ws []word, text string) (word, error) {
	for _, w := range ws {
		if strings.Trim(w.text, "(){}[]|") == text {
			return w, nil
		}
	}
	return word{}, fmt.Errorf("no word %q on the screen", text)
}

// bitmap (Xt, no accessibility): invert a new 16x16 bitmap with its Invert button, close the
// window, and in the dialog that asks to save it first type the file's path in its field and
// press Yes; everything placed from what analyze_screen read (the button's word, the dialog's
// question above its field and its Yes below). The file on disk, every bit set, is the check.
// bitmap is started with the file's name, as from a file manager: started with none, its
// window takes no WM_DELETE_WINDOW (close_window says so), and its menus open only while a
// button is held, which no tool does.
func bitmapTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "bitmap")
	dir := filepath.Join(work, "icons")
	os.MkdirAll(dir, 0o755)
	want := filepath.Join(dir, "block.xbm")
	printed := program(t, h, "/usr/bin/bitmap", want)
	measure(t, "bitmap (Xt): a command button, then the save dialog's field and Yes, by OCR (file on disk)", "w365", c, func() error {
		title, ws, err := readWindow(c, "bitmap")
		if err != nil {
			return err
		}
		invert, err := wordLike(ws, "Invert")
		if err != nil {
			return err
		}
		if err := first(
			func() error { _, _, err := c.call("click", map[string]any{"x": invert.cx, "y": invert.cy}); return err },
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		); err != nil {
			return err
		}
		if _, ws, err = readWindow(c, "qsave"); err != nil {
			return err
		}
		question, err := wordLike(ws, "save")
		if err != nil {
			return err
		}
		yes, err := wordLike(ws, "Yes")
		if err != nil {
			return err
		}
		// The field lies between the question and the buttons.
		return first(
			func() error {
				_, _, err := c.call("click", map[string]any{"x": question.cx, "y": (question.y + question.h + yes.y) / 2})
				return err
			},
			func() error { return typed(c, want) },
			func() error { _, _, err := c.call("click", map[string]any{"x": yes.cx, "y": yes.cy}); return err },
		)
	}, func() error {
		if _, err := printed(); err != nil {
			return err
		}
		b, err := os.ReadFile(want)
		if err != nil {
			return err
		}
		if n := strings.Count(string(b), "0xff"); n != 32 || !strings.Contains(string(b), "_width 16") {
			return fmt.Errorf("%s holds %d set bytes of 32: %q", want, n, b)
		}
		return nil
	})
}

// Pluma (GTK 3): its View menu opened by its mnemonic (Alt+V, no click), two check items read
// from the open menu: hide the status bar and show the side pane, each checked state read back
// from the menu opened again. Pluma keeps them in its settings (a key file,
// GSETTINGS_BACKEND=keyfile): the file is the check.
func plumaViewTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "pluma")
	cfg := filepath.Join(work, "pluma-config")
	programEnv(t, h, []string{"GSETTINGS_BACKEND=keyfile", "XDG_CONFIG_HOME=" + cfg}, "/usr/bin/pluma")
	measure(t, "Pluma: a menu by its mnemonic, two check items (its settings)", "w365", c, func() error {
		title, err := activeWindow(c, "Pluma")
		if err != nil {
			return err
		}
		// set opens the View menu by its mnemonic and clicks the item unless it reads as
		// wanted, then opens the menu again to read it.
		set := func(item string, checked bool) error {
			args := map[string]any{"role": "MenuItem", "name": item}
			for try := 0; ; try++ {
				if err := key(c, "alt", "v"); err != nil {
					return err
				}
				_, ms, err := found(c, args, false)
				if err == nil && len(ms) == 0 {
					err = fmt.Errorf("the View menu shows no %q", item)
				}
				if err != nil {
					return err
				}
				if slices.Contains(states(ms[0]), "checked") == checked {
					return key(c, "escape")
				}
				if try == 2 {
					return fmt.Errorf("%q still reads %v after two clicks", item, states(ms[0]))
				}
				if _, _, err := c.call("click", map[string]any{"x": ms[0]["centerX"], "y": ms[0]["centerY"]}); err != nil {
					return err
				}
			}
		}
		return first(
			func() error { return set("Statusbar", false) },
			func() error { return set("Side Pane", true) },
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		return settingsHold(filepath.Join(cfg, "glib-2.0", "settings", "keyfile"), "statusbar-visible=false", "side-pane-visible=true")
	})
}

// heldOut3 runs the tasks of this file on TestDesktopTasks's desktop (under -tasks.all), each
// as a subtest named for its application.
func heldOut3(t *testing.T, h *e2e.Harness, c *client, work string) {
	for _, task := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"qt5ct", func(t *testing.T) { qt5ctTask(t, h, c, work) }},
		{"yad", func(t *testing.T) { yadFormTask(t, h, c) }},
		{"gpicview", func(t *testing.T) { gpicviewTask(t, h, c, work) }},
		{"bitmap", func(t *testing.T) { bitmapTask(t, h, c, work) }},
		{"pluma-view", func(t *testing.T) { plumaViewTask(t, h, c, work) }},
	} {
		t.Run(task.name, task.run)
	}
}
