//go:build linux

package tasks_test

import (
	"fmt"
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

// The tasks of this file drive applications and dialogs that no task before them had met
// (a second held-out round: MATE's editor and calculator, GTK 2's appearance settings, a Qt 5
// torrent client's preferences, Xt's editor, a GTK 4 clock), under the same rule: the agent
// takes every coordinate, title and name from what a tool returned.

// word is one word analyze_screen read, with its box.
type word struct {
	text       string
	x, y, w, h int
	cx, cy     int
}

// ocr reads the region x, y, width, height of the screen with analyze_screen: its text and
// its words.
func ocr(c *client, x, y, width, height int) (string, []word, error) {
	_, st, err := c.call("analyze_screen", map[string]any{"x": x, "y": y, "width": width, "height": height})
	if err != nil {
		return "", nil, err
	}
	full, _ := st["fullText"].(string)
	var ws []word
	bs, _ := st["boxes"].([]any)
	for _, b := range bs {
		m, _ := b.(map[string]any)
		i := func(k string) int { f, _ := m[k].(float64); return int(f) }
		t, _ := m["text"].(string)
		ws = append(ws, word{text: t, x: i("x"), y: i("y"), w: i("width"), h: i("height"), cx: i("x") + i("width")/2, cy: i("y") + i("height")/2})
	}
	return full, ws, nil
}

// ocrWindow reads the window titled title (its box as list_windows gives it).
func ocrWindow(c *client, title string) (string, []word, error) {
	_, st, err := c.call("list_windows", nil)
	if err != nil {
		return "", nil, err
	}
	ws, _ := st["windows"].([]any)
	for _, w := range ws {
		m, _ := w.(map[string]any)
		if m["title"] == title {
			i := func(k string) int { f, _ := m[k].(float64); return int(f) }
			return ocr(c, i("x"), i("y"), i("width"), i("height"))
		}
	}
	return "", nil, fmt.Errorf("no window %q to read", title)
}

// readWindow activates the window whose title holds part (activeWindow) and reads it
// (ocrWindow): its title and the words read.
func readWindow(c *client, part string) (string, []word, error) {
	title, err := activeWindow(c, part)
	if err != nil {
		return "", nil, err
	}
	_, ws, err := ocrWindow(c, title)
	return title, ws, err
}

// wordAt is the first word read that is text.
func wordAt(ws []word, text string) (word, error) {
	for _, w := range ws {
		if w.text == text {
			return w, nil
		}
	}
	return word{}, fmt.Errorf("no word %q on the screen", text)
}

// Pluma (GTK 3, MATE): open a draft, set its highlighting through a menu three levels deep
// (View > Highlight Mode > Script > Python), read the mode the status bar shows (its labels
// are in no tree: the tree gives the bar's box, analyze_screen reads it), write a line and
// save it through Save As into a folder the agent creates with the file chooser's Create
// Folder button. The file on disk and the mode read are the check.
func plumaTask(t *testing.T, c *client, work string) {
	testenv.Require(t, "pluma")
	dir := filepath.Join(work, "projects")
	os.MkdirAll(dir, 0o755)
	draft := filepath.Join(dir, "draft.txt")
	os.WriteFile(draft, nil, 0o644)
	want := filepath.Join(dir, "scripts", "hello.py")
	const code = `print("hello")`
	var mode string
	measure(t, "Pluma: a menu 3 deep, read the status bar, Save As in a new folder (file on disk)", "w365", c, func() error {
		if _, _, err := c.call("launch_application", map[string]any{"path": "pluma", "args": []string{draft}}); err != nil {
			return err
		}
		title, err := activeWindow(c, "draft.txt")
		if err != nil {
			return err
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "View"}) },
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "Highlight Mode"}) },
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "Script"}) },
			// GTK 3's focus tracker (gail) aborts the application when items of one submenu
			// take the focus twice before its idle handler has run: an item clicked at once
			// after its submenu opened did so in 2 of 8 runs. The agent looks at the open
			// submenu a moment, as a person does, before it clicks into it.
			func() error { _, _, err := c.call("wait_milliseconds", map[string]any{"ms": 400}); return err },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Python"}) },
		); err != nil {
			return err
		}
		bar, err := firstFound(c, map[string]any{"role": "StatusBar"})
		if err != nil {
			return err
		}
		for try := 0; !strings.Contains(mode, "Python"); try++ {
			if try == 10 {
				return fmt.Errorf("the status bar reads %q after Python was chosen", mode)
			}
			if mode, _, err = ocr(c, bar.X, bar.Y, bar.Width, bar.Height); err != nil {
				return err
			}
		}
		if err := first(
			func() error { return typed(c, code) },
			func() error { return key(c, "ctrl", "shift", "s") },
			func() error { _, err := activeWindow(c, "Save As"); return err },
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "Create Folder"}) },
		); err != nil {
			return err
		}
		// The new folder's name: the field the Create Folder pop-over shows under its label.
		label, err := firstFound(c, map[string]any{"role": "Text", "name": "Folder Name"})
		if err != nil {
			return err
		}
		_, fields, err := found(c, map[string]any{"role": "Edit"}, false)
		if err != nil {
			return err
		}
		var folder *node
		for _, m := range fields {
			f := matchNode(m)
			if f.Y >= label.Y+label.Height && f.X <= label.X+label.Width && f.X+f.Width >= label.X && folder == nil {
				folder = &f
			}
		}
		if folder == nil {
			return fmt.Errorf("no field under the Folder Name label")
		}
		// Create takes the name once the dialog has checked it (the button reads enabled
		// then): Enter at once was lost in 1 of 3 runs.
		create := map[string]any{"role": "Button", "name": "Create"}
		if err := first(
			func() error { return retype(c, *folder, "scripts") },
			func() error {
				for try := 0; ; try++ {
					_, ms, err := found(c, create, false)
					if err != nil {
						return err
					}
					if len(ms) > 0 && !slices.Contains(states(ms[0]), "disabled") {
						return nil
					}
					if try == 20 {
						return fmt.Errorf("the Create button stays disabled after a folder name was typed")
					}
					c.call("wait_milliseconds", map[string]any{"ms": 100})
				}
			},
			func() error { return clickFound(c, create) },
			// The file chooser goes into the folder it made: its path bar shows it.
			func() error {
				_, err := firstFound(c, map[string]any{"role": "Button", "name": "scripts"})
				return err
			},
		); err != nil {
			return err
		}
		name, err := firstFound(c, map[string]any{"role": "Edit", "text": "draft"})
		if err != nil {
			return err
		}
		return first(
			func() error { return retype(c, name, "hello.py") },
			func() error { return clickButton(c, "Save") },
			func() error { title, err = window(c, "hello.py"); return err },
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		if !strings.Contains(mode, "Python") {
			return fmt.Errorf("the agent read %q in the status bar", mode)
		}
		return fileHolds(want, code)
	})
}

// LXAppearance (GTK 2): on its Other tab pick "Icons only" in the Toolbar Style combo box (its
// list a GTK 2 menu), on its Font tab pick RGB in the Sub-pixel geometry combo box, which has
// no name (found beside its label), and Apply. It writes GTK 2's and GTK 3's settings files
// under its HOME: the files are the check.
func lxappearanceTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "lxappearance")
	home := filepath.Join(work, "lxappearance-home")
	os.MkdirAll(home, 0o755)
	programEnv(t, h, []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}, "/usr/bin/lxappearance")
	var title string
	measure(t, "LXAppearance: two combo boxes on two tabs, Apply (GTK 2 and 3 settings files)", "w365", c, func() error {
		var err error
		if title, err = activeWindow(c, "Customize Look and Feel"); err != nil {
			return err
		}
		// pick opens the combo box and chooses item in its list, then reads the box back.
		pick := func(combo node, item string) error {
			return first(
				func() error { return clickAt(c, combo) },
				func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": item}) },
				func() error {
					_, err := firstFound(c, map[string]any{"role": "ComboBox", "name": item})
					return err
				},
			)
		}
		// choose picks item in the combo box beside label on the tab named tab.
		choose := func(tab, label, item string) error {
			if err := clickFound(c, map[string]any{"role": "TabItem", "name": tab}); err != nil {
				return err
			}
			root, err := tree(c)
			if err != nil {
				return err
			}
			combo, err := beside(root, label, "ComboBox")
			if err != nil {
				return err
			}
			return pick(combo, item)
		}
		return first(
			func() error { return choose("Other", "Toolbar Style: ", "Icons only") },
			func() error { return choose("Font", "Sub-pixel geometry: ", "RGB") },
			func() error { return clickButton(c, "Apply") },
			func() error { return clickButton(c, "Close") },
		)
	}, func() error {
		return first(
			func() error {
				return settingsHold(filepath.Join(home, ".gtkrc-2.0"), "gtk-toolbar-style=GTK_TOOLBAR_ICONS", `gtk-xft-rgba="rgb"`)
			},
			func() error {
				return settingsHold(filepath.Join(home, ".config", "gtk-3.0", "settings.ini"), "gtk-toolbar-style=GTK_TOOLBAR_ICONS", "gtk-xft-rgba=rgb")
			},
		)
	})
	if title != "" {
		c.call("close_window", map[string]any{"title": title})
	}
}

// qBittorrent (Qt 5): agree to its legal notice, open Tools > Preferences, and on its Behavior
// page keep backup logs for 14 days: the row "Delete backup logs older than:" lies in a
// checkable group box below the page's scroll view, so the search marks it offscreen and the
// agent turns the wheel over a check box on the screen until it is not; then it enters 14 in
// the spin box on that row and picks days in the combo box beside it, and OK. qBittorrent
// writes its configuration: the file is the check.
func qbittorrentTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "qbittorrent")
	profile := filepath.Join(work, "qbittorrent-profile")
	printed := programEnv(t, h, []string{"QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"}, "/usr/bin/qbittorrent", "--profile="+profile)
	older := map[string]any{"role": "CheckBox", "name": "Delete backup logs older than:"}
	var title string
	measure(t, "qBittorrent: a spin box and combo box scrolled out of Preferences (its configuration)", "w365", c, func() error {
		if _, err := activeWindow(c, "Legal notice"); err != nil {
			return err
		}
		if err := clickButton(c, "I Agree"); err != nil {
			return err
		}
		var err error
		if title, err = activeWindow(c, "qBittorrent v"); err != nil {
			return err
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Tools"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Preferences"}) },
			func() error { _, err := activeWindow(c, "Preferences"); return err },
		); err != nil {
			return err
		}
		var row map[string]any
		for try := 0; ; try++ {
			_, ms, err := found(c, older, false)
			if err != nil {
				return err
			}
			if len(ms) == 0 {
				return fmt.Errorf("the Behavior page shows no %q", older["name"])
			}
			if row = ms[0]; !slices.Contains(states(row), "offscreen") {
				break
			}
			if try == 10 {
				return fmt.Errorf("%q stays out of view", older["name"])
			}
			_, boxes, err := found(c, map[string]any{"role": "CheckBox"}, false)
			if err != nil {
				return err
			}
			var over map[string]any
			for _, b := range boxes {
				if !slices.Contains(states(b), "offscreen") && over == nil {
					over = b
				}
			}
			if over == nil {
				return fmt.Errorf("no check box on the screen to scroll over")
			}
			if _, _, err := c.call("scroll", map[string]any{"x": over["centerX"], "y": over["centerY"], "deltaY": 3}); err != nil {
				return err
			}
		}
		// The spin box and the combo box on that row, right of the check box, from the tree.
		root, err := tree(c)
		if err != nil {
			return err
		}
		box := matchNode(row)
		onRow := func(role string) (node, error) {
			var hit *node
			root.walk(func(n node) {
				cy := box.Y + box.Height/2
				if n.Role == role && n.Y <= cy && cy <= n.Y+n.Height && n.X > box.X+box.Width/2 && hit == nil {
					hit = &n
				}
			})
			if hit == nil {
				return node{}, fmt.Errorf("no %s on the row of %q", role, older["name"])
			}
			return *hit, nil
		}
		spin, err := onRow("Spinner")
		if err != nil {
			return err
		}
		unit, err := onRow("ComboBox")
		if err != nil {
			return err
		}
		return first(
			func() error { return retype(c, spin, "14") },
			func() error { return key(c, "tab") },
			func() error { return clickAt(c, unit) },
			func() error { return clickFound(c, map[string]any{"role": "ListItem", "name": "days"}) },
			func() error {
				_, err := firstFound(c, map[string]any{"role": "ComboBox", "name": "days"})
				return err
			},
			func() error { return clickButton(c, "OK") },
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		for i := 0; i < 10; i++ { // it takes a moment to stop its session
			if _, err := printed(); err == nil {
				break
			}
		}
		return settingsHold(filepath.Join(profile, "qBittorrent", "config", "qBittorrent.conf"), `FileLogger\Age=14`, `FileLogger\AgeType=0`)
	})
}

// xedit (Xt, no accessibility): write a line in its text area, type the file's path in the
// field right of its Load button and press Save, everything placed from what analyze_screen
// read (the buttons' words, the "no file yet" line above the text area). The file on disk is
// the check.
func xeditTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "xedit")
	dir := filepath.Join(work, "xedit", "notes")
	os.MkdirAll(dir, 0o755)
	want := filepath.Join(dir, "todo.txt")
	const line = "Buy stamps"
	printed := program(t, h, "/usr/bin/xedit")
	measure(t, "xedit (Xt): write a line, type a path, Save, by what OCR read (file on disk)", "w365", c, func() error {
		title, ws, err := readWindow(c, "xedit")
		if err != nil {
			return err
		}
		load, err := wordAt(ws, "Load")
		if err != nil {
			return err
		}
		save, err := wordAt(ws, "Save")
		if err != nil {
			return err
		}
		status, err := wordAt(ws, "yet") // the status line "no file yet", above the text area
		if err != nil {
			return err
		}
		// The text area: below the status line; the file name field: right of Load.
		return first(
			func() error {
				_, _, err := c.call("click", map[string]any{"x": status.cx, "y": status.y + 6*status.h})
				return err
			},
			func() error { return typed(c, line) },
			func() error {
				_, _, err := c.call("click", map[string]any{"x": load.x + load.w + 4*load.h, "y": load.cy})
				return err
			},
			func() error { return typed(c, want) },
			func() error { _, _, err := c.call("click", map[string]any{"x": save.cx, "y": save.cy}); return err },
			func() error {
				for try := 0; ; try++ {
					if try == 10 {
						return fmt.Errorf("xedit's status line does not name %s", want)
					}
					text, _, err := ocrWindow(c, title)
					if err != nil {
						return err
					}
					// The status line names the file once it is saved.
					if strings.Contains(text, "todo") {
						return nil
					}
				}
			},
			func() error {
				q, err := wordAt(ws, "Quit")
				if err == nil {
					_, _, err = c.call("click", map[string]any{"x": q.cx, "y": q.cy})
				}
				return err
			},
		)
	}, func() error {
		if _, err := printed(); err != nil {
			return err
		}
		return fileHolds(want, line)
	})
}

// MATE Calculator (GTK 3): switch to Programming mode through its Mode menu, enter 3054, pick
// Hexadecimal in the base combo box (its list a menu), read the display and copy it. The
// clipboard, read by another program, the hexadecimal read (the arithmetic) and its settings
// file (the mode it keeps) are the check.
func mateCalcTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "mate-calc")
	testenv.Require(t, "xclip")
	cfg := filepath.Join(work, "mate-calc-config")
	programEnv(t, h, []string{"GSETTINGS_BACKEND=keyfile", "XDG_CONFIG_HOME=" + cfg}, "/usr/bin/mate-calc")
	var title, shown string
	measure(t, "MATE Calculator: Programming mode, convert to hexadecimal, copy (clipboard, settings)", "w365", c, func() error {
		var err error
		if title, err = activeWindow(c, "Calculator"); err != nil {
			return err
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "Mode"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Programming"}) },
			func() error {
				_, err := firstFound(c, map[string]any{"role": "ComboBox", "name": "Decimal"})
				return err
			},
			func() error { return typed(c, "3054\n") },
			func() error { return clickFound(c, map[string]any{"role": "ComboBox", "name": "Decimal"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Hexadecimal"}) },
		); err != nil {
			return err
		}
		// The display: the window's one editable field, once it shows the converted number.
		for try := 0; shown == "" || shown == "3054"; try++ {
			if try == 20 {
				return fmt.Errorf("the display reads %q after Hexadecimal was picked", shown)
			}
			if try > 0 {
				c.call("wait_milliseconds", map[string]any{"ms": 100})
			}
			_, ms, err := found(c, map[string]any{"role": "Edit"}, false)
			if err != nil {
				return err
			}
			if len(ms) == 0 {
				return fmt.Errorf("the calculator shows no display")
			}
			shown, _ = ms[0]["value"].(string)
		}
		return key(c, "ctrl", "c")
	}, func() error {
		if shown != strings.ToUpper(strconv.FormatInt(3054, 16)) {
			return fmt.Errorf("the agent read %q on the display, want BEE", shown)
		}
		if got, err := clipboard(h); err != nil || strings.TrimSpace(got) != "BEE" {
			return fmt.Errorf("the clipboard holds %q (%v), want BEE", got, err)
		}
		return settingsHold(filepath.Join(cfg, "glib-2.0", "settings", "keyfile"), "button-mode='programming'", "base=16")
	})
	if title != "" {
		c.call("close_window", map[string]any{"title": title})
	}
}

// gnome-clocks (GTK 4, libadwaita): on its Alarms page add an alarm at 07:45 named Dentist
// that rings for 1 minute: the hour and minute spin buttons have no names (the hour is the
// left one, as a clock reads), the name field is found by name, the ring duration is a
// drop-down. Its settings go to a key file (GSETTINGS_BACKEND=keyfile): the file is the check.
func gnomeClocksTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "gnome-clocks")
	cfg := filepath.Join(work, "clocks-config")
	programEnv(t, h, []string{"GSETTINGS_BACKEND=keyfile", "XDG_CONFIG_HOME=" + cfg}, "/usr/bin/gnome-clocks")
	measure(t, "gnome-clocks: add an alarm with unnamed spin buttons and a drop-down (its settings)", "w365", c, func() error {
		title, err := activeWindow(c, "Clocks")
		if err != nil {
			return err
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "TabItem", "name": "Alarms"}) },
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "Add Alarm"}) },
			func() error { _, err := activeWindow(c, "New Alarm"); return err },
		); err != nil {
			return err
		}
		// spins are the hour and minute spin buttons, left to right as a clock reads.
		spins := func() ([]map[string]any, error) {
			_, ms, err := found(c, map[string]any{"role": "Spinner"}, false)
			if err == nil && len(ms) != 2 {
				err = fmt.Errorf("the New Alarm dialog shows %d spin buttons, want hour and minute", len(ms))
			}
			slices.SortFunc(ms, func(a, b map[string]any) int { return int(a["x"].(float64) - b["x"].(float64)) })
			return ms, err
		}
		// A value the spin button does not read back is entered again, as a person who looks
		// would: its first Ctrl+A selected nothing in 2 of 6 runs (GTK 4 appended the digits
		// and clamped them to 23 or 59).
		for i, v := range []string{"7", "45"} {
			for try := 0; ; try++ {
				ms, err := spins()
				if err != nil {
					return err
				}
				if ms[i]["value"] == v {
					if try > 1 {
						t.Logf("gnome-clocks: %s was entered %d times", v, try)
					}
					break
				}
				if try == 3 {
					return fmt.Errorf("the spin button reads %v after %s was entered 3 times", ms[i]["value"], v)
				}
				if err := first(
					func() error { return retype(c, matchNode(ms[i]), v) },
					func() error { return key(c, "tab") },
				); err != nil {
					return err
				}
			}
		}
		name, err := firstFound(c, map[string]any{"role": "Edit", "name": "Name"})
		if err != nil {
			return err
		}
		if err := first(
			func() error { return retype(c, name, "Dentist") },
			func() error { return clickFound(c, map[string]any{"role": "ComboBox", "name": "Ring Duration"}) },
			func() error { return clickFound(c, map[string]any{"role": "Text", "name": "1 minute"}) },
		); err != nil {
			return err
		}
		// The drop-down shows its choice in a label inside its row.
		row, err := firstFound(c, map[string]any{"role": "ComboBox", "name": "Ring Duration"})
		if err != nil {
			return err
		}
		for try := 0; ; try++ {
			_, ms, err := found(c, map[string]any{"role": "Text", "name": "1 minute"}, true)
			if err != nil {
				return err
			}
			in := false
			for _, m := range ms {
				n := matchNode(m)
				in = in || n.Y >= row.Y && n.Y+n.Height <= row.Y+row.Height
			}
			if in {
				break
			}
			if try == 20 {
				return fmt.Errorf("the Ring Duration row does not show 1 minute")
			}
			c.call("wait_milliseconds", map[string]any{"ms": 100})
		}
		return first(
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "Add"}) },
			func() error {
				_, err := firstFound(c, map[string]any{"role": "Text", "name": "Dentist"})
				return err
			},
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		// gnome-clocks keeps running once an alarm is set (it rings it): its settings file
		// is the check, not its exit.
		file := filepath.Join(cfg, "glib-2.0", "settings", "keyfile")
		var b []byte
		for i := 0; i < 50; i++ {
			b, _ = os.ReadFile(file)
			missing := ""
			for _, w := range []string{"'name': <'Dentist'>", "'hour': <7>", "'minute': <45>", "'ring_minutes': <1>"} {
				if !strings.Contains(string(b), w) {
					missing = w
				}
			}
			if missing == "" {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		return fmt.Errorf("%s does not hold the alarm: %.600q", file, b)
	})
}

// heldOut2 runs the tasks of this file on TestDesktopTasks's desktop (under -tasks.all), each
// as a subtest named for its application.
func heldOut2(t *testing.T, h *e2e.Harness, c *client, work string) {
	for _, task := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"pluma", func(t *testing.T) { plumaTask(t, c, work) }},
		{"lxappearance", func(t *testing.T) { lxappearanceTask(t, h, c, work) }},
		{"qbittorrent", func(t *testing.T) { qbittorrentTask(t, h, c, work) }},
		{"xedit", func(t *testing.T) { xeditTask(t, h, c, work) }},
		{"mate-calc", func(t *testing.T) { mateCalcTask(t, h, c, work) }},
		{"gnome-clocks", func(t *testing.T) { gnomeClocksTask(t, h, c, work) }},
	} {
		t.Run(task.name, task.run)
	}
}
