//go:build linux

package tasks_test

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// The tasks of this file drive applications the desktop tasks before them had not met
// (one per toolkit and kind of task), as a held-out suite would.

// key presses a chord.
func key(c *client, keys ...string) error {
	_, _, err := c.call("press_keys", map[string]any{"keys": keys})
	return err
}

// typed types text into the focused window.
func typed(c *client, text string) error {
	_, _, err := c.call("type_text", map[string]any{"text": text})
	return err
}

// firstFound is the box of the first element find_ui_element finds for args (found).
func firstFound(c *client, args map[string]any) (node, error) {
	_, ms, err := found(c, args, false)
	if err == nil && len(ms) == 0 {
		err = fmt.Errorf("find_ui_element %v found nothing", args)
	}
	if err != nil {
		return node{}, err
	}
	return matchNode(ms[0]), nil
}

// clipboard is the session's clipboard text as another program of the session reads it,
// while the application that copied it still runs (X's clipboard is its owner's).
func clipboard(h *e2e.Harness) (string, error) { return selection(h, "clipboard") }

// selection is the text of the session's X selection named which (clipboard, primary) as
// another program of the session reads it.
func selection(h *e2e.Harness, which string) (string, error) {
	var out []byte
	var err error
	for i := 0; i < 30; i++ {
		cmd := exec.Command("xclip", "-o", "-selection", which)
		cmd.Env = append(append([]string{}, h.Env...), h.SessionEnvOf("default-agent")...)
		if out, err = cmd.Output(); err == nil && len(out) > 0 {
			return string(out), nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return string(out), err
}

// Gnumeric (GTK 3): enter three figures in column A, select them through the name box (the
// field that shows the current cell's address) and read their sum from the status bar, then
// save the sheet as uncompressed XML: the file type chosen in the save dialog's drop-down,
// found beside its label, and the path typed into the name field. The file on disk (the
// cells) and the sum read (the arithmetic) are the check.
func gnumericTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "gnumeric")
	want := filepath.Join(work, "sales.xml")
	printed := program(t, h, "/usr/bin/gnumeric", "--no-splash")
	var sum string
	cell := regexp.MustCompile(`^[A-Z]+[0-9]+$`)
	measure(t, "Gnumeric: enter figures, read their sum, Save As XML by file type (file on disk)", "w365", c, func() error {
		title, err := activeWindow(c, "Gnumeric")
		if err != nil {
			return err
		}
		if err := typed(c, "12\n30\n5.5\n"); err != nil {
			return err
		}
		_, edits, err := found(c, map[string]any{"role": "Edit"}, false)
		if err != nil {
			return err
		}
		var nameBox map[string]any
		for _, e := range edits {
			if v, _ := e["value"].(string); cell.MatchString(v) && nameBox == nil {
				nameBox = e
			}
		}
		if nameBox == nil {
			return fmt.Errorf("no field shows a cell's address: %v", edits)
		}
		if err := retype(c, matchNode(nameBox), "A1:A3\n"); err != nil {
			return err
		}
		for try := 0; !strings.Contains(sum, "47.5"); try++ {
			if try == 20 {
				return fmt.Errorf("the status bar reads %q for A1:A3", sum)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 100})
			_, ms, err := found(c, map[string]any{"text": "Sum ="}, false)
			if err != nil {
				return err
			}
			if len(ms) > 0 {
				sum, _ = ms[0]["name"].(string)
			}
		}
		if err := first(
			func() error { return key(c, "ctrl", "s") },
			func() error { _, err := activeWindow(c, "Save the current workbook"); return err },
		); err != nil {
			return err
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		kind, err := beside(root, "File type:", "ComboBox")
		if err != nil {
			return err
		}
		name, err := beside(root, "Name:", "Edit")
		if err != nil {
			return err
		}
		return first(
			func() error { return clickAt(c, kind) },
			func() error {
				return clickFound(c, map[string]any{"role": "MenuItem", "name": "Gnumeric XML uncompressed (*.xml)"})
			},
			func() error {
				_, ms, err := found(c, map[string]any{"role": "ComboBox", "name": "Gnumeric XML uncompressed (*.xml)"}, false)
				if err == nil && len(ms) == 0 {
					err = fmt.Errorf("the file type does not read uncompressed XML")
				}
				return err
			},
			func() error { return retype(c, name, want) },
			func() error { return key(c, "enter") },
			func() error { title, err = window(c, "sales.xml"); return err },
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		if sum != "Sum = 47.5" {
			return fmt.Errorf("the agent read %q, want Sum = 47.5", sum)
		}
		if _, err := printed(); err != nil {
			return err
		}
		b, err := os.ReadFile(want)
		for _, v := range []string{">12<", ">30<", ">5.5<"} {
			if err == nil && !strings.Contains(string(b), v) {
				err = fmt.Errorf("%s holds no cell %s: %.300q", want, v, b)
			}
		}
		return err
	})
}

// gnome-text-editor (GTK 4): write a list and save it through its Save As dialog (a GTK 4
// dialog of its own), typing the path into the name field. The file on disk is the check.
func gnomeTextEditorTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "gnome-text-editor")
	want := filepath.Join(work, "list.txt")
	const text = "Shopping list\nmilk\neggs"
	// Its own settings and data: it reopens the documents of its last session from there.
	own := filepath.Join(work, "text-editor")
	programEnv(t, h, []string{"GSETTINGS_BACKEND=memory", "XDG_DATA_HOME=" + own, "XDG_STATE_HOME=" + own, "XDG_CONFIG_HOME=" + own},
		"/usr/bin/gnome-text-editor", "--standalone")
	measure(t, "gnome-text-editor: write a list, Save As a path (file on disk)", "w365", c, func() error {
		if _, err := activeWindow(c, "Text Editor"); err != nil {
			return err
		}
		if err := first(
			func() error { return typed(c, text) },
			func() error { return key(c, "ctrl", "s") },
			func() error { _, err := activeWindow(c, "Save As"); return err },
		); err != nil {
			return err
		}
		name, err := firstFound(c, map[string]any{"role": "Edit", "name": "Name:"})
		if err != nil {
			return err
		}
		var title string
		return first(
			func() error { return retype(c, name, want) },
			func() error { return key(c, "enter") },
			func() error { title, err = window(c, "list.txt"); return err },
			func() error { return closeAnswering(t, c, title, "Save") },
		)
	}, func() error {
		// It ends the file with a line break of its own. (Its process may stay a while after
		// its window closed.)
		return fileHolds(want, text)
	})
}

// closeAnswering closes the window titled title and reads close_window's result: when the
// window stayed open because its application opened another that asks what to do with unsaved
// changes (gnome-text-editor asks when the close comes while its save is still under way), the
// agent answers it with the button named answer and waits for the window to go. Left
// unanswered, that window ("Save Changes?") stayed open for the tasks after it.
func closeAnswering(t *testing.T, c *client, title, answer string) error {
	_, st, err := c.call("close_window", map[string]any{"title": title})
	if err != nil || st["closed"] == true {
		return err
	}
	note, _ := st["note"].(string)
	_, asking, ok := strings.Cut(note, "opened the window ")
	if !ok {
		return fmt.Errorf("%q stayed open after close_window: %s", title, note)
	}
	if asking, err = strconv.QuotedPrefix(asking); err == nil {
		asking, err = strconv.Unquote(asking)
	}
	if err != nil {
		return fmt.Errorf("close_window's note %q: %v", note, err)
	}
	t.Logf("close_window left %q open: %s", title, note)
	if err := first(
		func() error { _, err := activeWindow(c, asking); return err },
		func() error { return clickButton(c, answer) },
	); err != nil {
		return err
	}
	for i := 0; i < 50; i++ {
		if ts, err := titles(c); err != nil || !slices.Contains(ts, title) {
			return err
		}
		c.call("wait_milliseconds", map[string]any{"ms": 100})
	}
	return fmt.Errorf("%q is still open after %q was answered %s", title, asking, answer)
}

// KCalc (Qt 5, KDE Frameworks): work out 12 × 34 with its buttons, found by name, read the
// result from the display (the only element of the window named by a number that is no
// button) and copy it. The clipboard, read by another program, is the check.
func kcalcTask(t *testing.T, h *e2e.Harness, c *client) {
	testenv.Require(t, "kcalc")
	testenv.Require(t, "xclip")
	var title, shown string
	measure(t, "KCalc: compute 12 × 34, read the display, copy the result (clipboard)", "w365", c, func() error {
		if _, _, err := c.call("launch_application", map[string]any{"path": "kcalc"}); err != nil {
			return err
		}
		var err error
		if title, err = activeWindow(c, "KCalc"); err != nil {
			return err
		}
		for _, k := range []string{"1", "2", "×", "3", "4", "="} {
			if err := clickFound(c, map[string]any{"role": "Button", "name": k}); err != nil {
				return err
			}
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		root.walk(func(n node) {
			if _, err := strconv.ParseFloat(n.Name, 64); err == nil && n.Role != "Button" {
				shown = n.Name
			}
		})
		return key(c, "ctrl", "c")
	}, func() error {
		if shown != "408" {
			return fmt.Errorf("the agent read %q from the display, want 408", shown)
		}
		if got, err := clipboard(h); err != nil || strings.TrimSpace(got) != "408" {
			return fmt.Errorf("the clipboard holds %q (%v), want 408", got, err)
		}
		return nil
	})
	if title != "" {
		c.call("close_window", map[string]any{"title": title})
	}
}

// Transmission (GTK 3): in Edit > Preferences, on the Speed tab, limit the upload speed: tick
// the Upload check box (the spin button beside it reads disabled until then) and enter 250 in
// that spin button. Transmission takes a spin button's value a second after it last changed
// (its preferences' timer), so the agent waits that long, as a person who looks back would,
// before it closes. It writes its settings when it quits: the file is the check.
func transmissionTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "transmission-gtk")
	cfg := filepath.Join(work, "transmission-config")
	printed := program(t, h, "/usr/bin/transmission-gtk", "--config-dir", cfg)
	upload := map[string]any{"role": "CheckBox", "name": "Upload (kB/s):"}
	measure(t, "Transmission: tick and set the upload limit in Preferences (its settings)", "w365", c, func() error {
		title, err := activeWindow(c, "Transmission")
		if err != nil {
			return err
		}
		// The first start asks to agree to its terms, in a window of no title in front.
		if _, ms, err := found(c, map[string]any{"role": "Button", "name": "I Agree"}, true); err == nil && len(ms) > 0 {
			if err := clickFound(c, map[string]any{"role": "Button", "name": "I Agree"}); err != nil {
				return err
			}
			if _, err := activeWindow(c, title); err != nil {
				return err
			}
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "Edit"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Preferences"}) },
			func() error { _, err := activeWindow(c, "Preferences"); return err },
			func() error { return clickFound(c, map[string]any{"role": "TabItem", "name": "Speed"}) },
		); err != nil {
			return err
		}
		// spin is the spin button on the Upload check box's row, from the tree.
		spin := func() (node, error) {
			root, err := tree(c)
			if err != nil {
				return node{}, err
			}
			var box node
			root.walk(func(n node) {
				if n.Role == "CheckBox" && n.Name == upload["name"] {
					box = n
				}
			})
			var s *node
			root.walk(func(n node) {
				if n.Role == "Spinner" && n.Y <= box.Y+box.Height/2 && box.Y+box.Height/2 <= n.Y+n.Height && n.X > box.X && s == nil {
					s = &n
				}
			})
			if s == nil {
				return node{}, fmt.Errorf("no spin button beside the Upload check box")
			}
			return *s, nil
		}
		s, err := spin()
		if err != nil {
			return err
		}
		if slices.Contains(s.States, "disabled") {
			if err := clickFound(c, upload); err != nil {
				return err
			}
		}
		for try := 0; slices.Contains(s.States, "disabled"); try++ {
			if try == 20 {
				return fmt.Errorf("the upload limit still reads disabled")
			}
			c.call("wait_milliseconds", map[string]any{"ms": 100})
			if s, err = spin(); err != nil {
				return err
			}
		}
		if err := first(
			func() error { return retype(c, s, "250") },
			func() error { return key(c, "tab") },
		); err != nil {
			return err
		}
		for try := 0; s.Value != "250"; try++ {
			if try == 20 {
				return fmt.Errorf("the upload limit reads %q after 250 was entered", s.Value)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 100})
			if s, err = spin(); err != nil {
				return err
			}
		}
		return first(
			func() error { _, _, err := c.call("wait_milliseconds", map[string]any{"ms": 1500}); return err },
			func() error { return clickButton(c, "Close") },
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		for i := 0; i < 20; i++ { // Transmission takes a moment to stop its session
			if _, err := printed(); err == nil {
				break
			}
		}
		b, _ := os.ReadFile(filepath.Join(cfg, "settings.json"))
		for _, w := range []string{`"speed-limit-up": 250,`, `"speed-limit-up-enabled": true,`} {
			if !strings.Contains(string(b), w) {
				return fmt.Errorf("settings.json has no %s: %.400q", w, b)
			}
		}
		return nil
	})
}

// gucharmap (GTK 3): find the snowman through Search > Find, read its code point from the
// status bar, add it to the text to copy (enter on the character table) and copy it with the
// Copy button. The clipboard, read by another program, and the code point read are the check.
func gucharmapTask(t *testing.T, h *e2e.Harness, c *client) {
	testenv.Require(t, "gucharmap")
	testenv.Require(t, "xclip")
	program(t, h, "/usr/bin/gucharmap")
	var title, status string
	measure(t, "gucharmap: find a character by name, read its code point, copy it (clipboard)", "w365", c, func() error {
		var err error
		if title, err = activeWindow(c, "Character Map"); err != nil {
			return err
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "Search"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Find"}) },
			func() error { _, err := activeWindow(c, "Find"); return err },
			func() error { return typed(c, "snowman") },
			func() error { return clickButton(c, "Next") },
			func() error { return clickButton(c, "Close") },
			func() error { _, err := activeWindow(c, title); return err },
		); err != nil {
			return err
		}
		for try := 0; !strings.Contains(status, "SNOWMAN"); try++ {
			if try == 20 {
				return fmt.Errorf("the status bar reads %q after the search", status)
			}
			_, ms, err := found(c, map[string]any{"role": "StatusBar"}, false)
			if err != nil {
				return err
			}
			if len(ms) > 0 {
				status, _ = ms[0]["name"].(string)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 100})
		}
		return first(
			func() error { return key(c, "enter") },
			func() error { return clickButton(c, "Copy") },
		)
	}, func() error {
		if !strings.HasPrefix(status, "U+2603 SNOWMAN") {
			return fmt.Errorf("the agent read %q, want U+2603 SNOWMAN", status)
		}
		if got, err := clipboard(h); err != nil || got != "☃" {
			return fmt.Errorf("the clipboard holds %q (%v), want ☃", got, err)
		}
		return nil
	})
	if title != "" {
		c.call("close_window", map[string]any{"title": title})
	}
}

// Atril (GTK 3): open a PDF, go to its third page through the page field and read what the
// pages shown say (each page's text, its value in the tree). The check is the reading against the
// text the PDF draws on that page.
func atrilTask(t *testing.T, c *client, work string) {
	testenv.Require(t, "atril")
	pdf := filepath.Join(work, "report.pdf")
	b, err := os.ReadFile(filepath.Join(testenv.Root(), "testdata", "tasks", "report.pdf"))
	if err == nil {
		err = os.WriteFile(pdf, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	var read string
	measure(t, "Atril: go to page 3 of a PDF and read it", "w365", c, func() error {
		if _, _, err := c.call("launch_application", map[string]any{"path": "atril", "args": []string{pdf}}); err != nil {
			return err
		}
		title, err := activeWindow(c, "report.pdf")
		if err != nil {
			return err
		}
		page, err := firstFound(c, map[string]any{"role": "Edit", "name": "page-label-entry"})
		if err != nil {
			return err
		}
		if err := retype(c, page, "3\n"); err != nil {
			return err
		}
		for try := 0; ; try++ {
			if try == 20 {
				return fmt.Errorf("atril does not show page 3 of 3")
			}
			if _, ms, err := found(c, map[string]any{"role": "Text", "name": "(3 of 3)"}, true); err != nil || len(ms) > 0 {
				if err != nil {
					return err
				}
				break
			}
			c.call("wait_milliseconds", map[string]any{"ms": 100})
		}
		// The pages shown, as the tree reads them; atril replaces the pages it shows a moment
		// after the page field changes, so the agent reads until two readings agree.
		pages := func() (string, error) {
			root, err := tree(c)
			var texts []string
			root.walk(func(n node) {
				if n.Role == "Document" && n.Name == "" && n.Value != "" {
					texts = append(texts, n.Value)
				}
			})
			return strings.Join(texts, "\n"), err
		}
		for last := "-"; read != last; {
			last = read
			c.call("wait_milliseconds", map[string]any{"ms": 200})
			if read, err = pages(); err != nil {
				return err
			}
		}
		_, _, err = c.call("close_window", map[string]any{"title": title})
		return err
	}, func() error {
		if !strings.Contains(read, "Signed by the auditor page three") {
			return fmt.Errorf("the agent read %q on page 3", read)
		}
		return nil
	})
}

// Firefox (its own accessibility, not a session's Chromium): book a reading room on a local
// page through the desktop tools alone, its fields found by name in the window's tree. The
// form the site received is the check.
func firefoxTask(t *testing.T, h *e2e.Harness, c *client) {
	testenv.Require(t, "/usr/bin/firefox-esr")
	s := startSite(t)
	printed := programEnv(t, h, []string{"GNOME_ACCESSIBILITY=1"},
		"/usr/bin/firefox-esr", "--no-remote", "--profile", t.TempDir(), s.url+"/booking.html")
	measure(t, "Firefox: book a reading room on a page by the desktop tools (the form sent)", "w365", c, func() error {
		title, err := activeWindow(c, "Reading room booking")
		if err != nil {
			return err
		}
		for _, f := range []struct{ name, text string }{{"Full name", "Grace Hopper"}, {"Email", "grace@example.org"}} {
			field, err := firstFound(c, map[string]any{"role": "Edit", "name": f.name})
			if err == nil {
				err = retype(c, field, f.text)
			}
			if err != nil {
				return err
			}
		}
		return first(
			func() error { return clickFound(c, map[string]any{"role": "RadioButton", "name": "2 hours"}) },
			func() error {
				return clickFound(c, map[string]any{"role": "CheckBox", "name": "I accept the reading-room rules"})
			},
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "Book the room"}) },
			func() error { title, err = window(c, "Booked"); return err },
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		if err := posted("/book", map[string]string{"name": "Grace Hopper", "email": "grace@example.org", "hours": "2", "rules": "yes"})(s); err != nil {
			return err
		}
		_, err := printed()
		return err
	})
}

// KeePassXC (Qt 5): in Tools > Settings, tick "Backup database file before saving", which lies
// below the settings' scroll view: the search marks it offscreen, so the agent turns the wheel
// over a check box on the screen in its column (not over a spin box, which would take the
// wheel) until it is not, ticks it and confirms with OK. KeePassXC writes its settings file:
// the file is the check.
func keepassxcTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "keepassxc")
	cfg := filepath.Join(work, "keepassxc-config")
	programEnv(t, h, []string{"XDG_CONFIG_HOME=" + cfg, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"}, "/usr/bin/keepassxc")
	backup := map[string]any{"role": "CheckBox", "name": "Backup database file before saving"}
	var title string
	measure(t, "KeePassXC: tick a setting scrolled out of view (its settings file)", "w365", c, func() error {
		var err error
		if title, err = activeWindow(c, "KeePassXC"); err != nil {
			return err
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Tools"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Settings"}) },
		); err != nil {
			return err
		}
		for try := 0; ; try++ {
			_, ms, err := found(c, backup, false)
			if err != nil {
				return err
			}
			if len(ms) == 0 {
				return fmt.Errorf("the settings show no backup check box")
			}
			if !slices.Contains(states(ms[0]), "offscreen") {
				break
			}
			if try == 10 {
				return fmt.Errorf("the backup check box stays out of view")
			}
			_, boxes, err := found(c, map[string]any{"role": "CheckBox"}, false)
			if err != nil {
				return err
			}
			// Over the on-screen check box nearest its column: the toolbar's toggles are
			// check boxes too, outside the view.
			var over map[string]any
			dx := func(m map[string]any) float64 { return math.Abs(m["x"].(float64) - ms[0]["x"].(float64)) }
			for _, b := range boxes {
				if !slices.Contains(states(b), "offscreen") && (over == nil || dx(b) < dx(over)) {
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
		if err := tick(c, backup); err != nil {
			return err
		}
		return clickButton(c, "OK")
	}, func() error {
		return settingsHold(filepath.Join(cfg, "keepassxc", "keepassxc.ini"), "BackupBeforeSave=true")
	})
	if title != "" {
		c.call("close_window", map[string]any{"title": title})
	}
}

// states are the states of a find_ui_element match.
func states(m map[string]any) []string {
	var out []string
	ss, _ := m["states"].([]any)
	for _, s := range ss {
		if v, ok := s.(string); ok {
			out = append(out, v)
		}
	}
	return out
}
