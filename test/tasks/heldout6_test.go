//go:build linux

package tasks_test

import (
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// The tasks of this file drive applications no round before them had met (a sixth held-out
// round: a GTK 2 paint program whose toolbar window covers its menus, its dialog's unnamed
// spin boxes and its own save dialog; a GTK 3 editor's Replace dialog, the untitled dialog
// that follows it and Save As past a list of completions; a GTK 4 disk usage analyser whose
// folder list has no accessible rows, read by OCR; a Qt 5 editor's Settings, a page chosen in
// a tree), under the same rule: the agent takes every coordinate, title and name from what a
// tool returned.

// l3afpad (GTK 3): write a line, replace a word in it through Search > Replace... (a dialog
// whose fields are named only by the labels beside them, and its "Replace all at once"
// check box), and save it through File > Save As... with the path typed in the file
// chooser's name field and its Save As button. The file on disk is the check.
func l3afpadTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "l3afpad")
	want := filepath.Join(work, "l3afpad", "fruit.txt")
	os.MkdirAll(filepath.Dir(want), 0o755)
	programEnv(t, h, []string{"XDG_CONFIG_HOME=" + filepath.Join(work, "l3afpad-config")}, "/usr/bin/l3afpad")
	measure(t, "l3afpad (GTK 3): a menu's Replace dialog by its labels, Save As a path (file on disk)", "w365", c, func() error {
		title, err := activeWindow(c, "Untitled")
		if err != nil {
			return err
		}
		_, st, err := c.call("activate_window", map[string]any{"title": title})
		if err != nil {
			return err
		}
		editor := st["window"].(map[string]any)["handle"]
		text, err := firstFound(c, map[string]any{"role": "Edit"})
		if err != nil {
			return err
		}
		if err := first(
			func() error { return clickAt(c, text) },
			func() error { return typed(c, "red apples, red pears") },
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "Search"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Replace..."}) },
			func() error { _, err := activeWindow(c, "Replace"); return err },
		); err != nil {
			return err
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		find, err := fieldBeside(root, "Find what:")
		if err != nil {
			return err
		}
		with, err := fieldBeside(root, "Replace with:")
		if err != nil {
			return err
		}
		if err := first(
			func() error { return retype(c, find, "red") },
			func() error { return retype(c, with, "green") },
			func() error { return tick(c, map[string]any{"role": "CheckBox", "name": "Replace all at once"}) },
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "Find and Replace"}) },
		); err != nil {
			return err
		}
		// l3afpad says how many it replaced in a dialog of its own (untitled), shown a few
		// hundred milliseconds after the Replace dialog closed: the agent waits for the
		// windows to settle (settled), then activate_window on the editor returns the dialog,
		// which has the focus, and the agent answers it with its one button, until the editor
		// is in front with the text replaced.
		if err := settled(c); err != nil {
			return err
		}
		for try := 0; ; try++ {
			_, st, err := c.call("activate_window", map[string]any{"title": title})
			if err != nil {
				return err
			}
			if w, _ := st["window"].(map[string]any); w["handle"] != editor {
				if try == 10 {
					return fmt.Errorf("the window %v stays in front of the editor", w)
				}
				_, bs, err := found(c, map[string]any{"role": "Button"}, true)
				if err != nil {
					return err
				}
				// A dialog answered a moment ago may still be going: it is looked at again.
				if len(bs) == 1 {
					if _, _, err := c.call("click", map[string]any{"x": bs[0]["centerX"], "y": bs[0]["centerY"]}); err != nil {
						return err
					}
				}
				if err := settled(c); err != nil {
					return err
				}
				continue
			}
			if v, err := valueOf(c, "Edit", text); err == nil && v == "green apples, green pears" {
				break
			} else if try == 10 {
				return fmt.Errorf("the text reads %q (%v) after Find and Replace", v, err)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 200})
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "File"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Save As..."}) },
			func() error { _, err := activeWindow(c, "Save As"); return err },
		); err != nil {
			return err
		}
		root, err = tree(c)
		if err != nil {
			return err
		}
		name, err := fieldBeside(root, "Name:")
		if err != nil {
			return err
		}
		if err := retype(c, name, want); err != nil {
			return err
		}
		// The dialog has no default button (Enter in the field saves nothing): the agent
		// clicks Save As, once no list of completions shows below the field (GTK lists them
		// as the path is typed, in a pop-up that takes the next click for itself; Escape
		// closes it), and again while the dialog stays open. The tree is read after the
		// titles: on a loaded machine the dialog closed (and the editor took the file's name)
		// between the two, and what the agent reads last is what it goes by: a foreground
		// window other than the dialog is a dialog that closed, looked at again, not clicked.
		for try := 0; ; try++ {
			if try == 8 {
				return fmt.Errorf("the Save As dialog is still open after %d looks", try)
			}
			if err := settled(c); err != nil {
				return err
			}
			ts, err := titles(c)
			if err != nil {
				return err
			}
			if slices.ContainsFunc(ts, func(t string) bool { return strings.Contains(t, "fruit.txt") }) {
				return nil
			}
			root, err := tree(c)
			if err != nil {
				return err
			}
			if strings.Contains(root.Name, "fruit.txt") {
				return nil
			}
			if root.Name != "Save As" {
				c.call("wait_milliseconds", map[string]any{"ms": 500})
				continue
			}
			list := false
			root.walk(func(n node) {
				list = list || n.Role == "Window" && n.Y >= name.Y+name.Height/2 && n.Y <= name.Y+2*name.Height && n.X >= name.X-10 && n.X <= name.X+name.Width/2
			})
			if list {
				if err := key(c, "escape"); err != nil {
					return err
				}
				continue
			}
			if err := clickFound(c, map[string]any{"role": "Button", "name": "Save As"}); err != nil {
				return err
			}
		}
	}, func() error {
		return fileHolds(want, "green apples, green pears")
	})
}

// settled waits (up to 5 s) until list_windows lists the same windows twice 500 ms apart:
// what an action opens or closes has then shown.
func settled(c *client) error {
	var last string
	for try := 0; try < 10; try++ {
		_, st, err := c.call("list_windows", nil)
		if err != nil {
			return err
		}
		var hs []string
		for _, w := range st["windows"].([]any) {
			hs = append(hs, fmt.Sprint(w.(map[string]any)["handle"]))
		}
		if now := strings.Join(hs, " "); now == last {
			return nil
		} else {
			last = now
		}
		c.call("wait_milliseconds", map[string]any{"ms": 500})
	}
	return fmt.Errorf("the windows still change after 5 s: %s", last)
}

// baobab (GTK 4): scan a folder given on its command line and read the size of one of its
// subfolders. Its folder list (GTK 4's tree view) exposes no rows: the agent reads the list
// by OCR, the size on the row of the folder's name under the Size heading. The size read
// (the folder holds 3,000,000 bytes: baobab shows 3.0 MB) is the check.
func baobabTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "baobab")
	dir := filepath.Join(work, "baobab", "photos")
	for name, size := range map[string]int{"trips": 3000000, "pets": 1000000} {
		os.MkdirAll(filepath.Join(dir, name), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name, "album.bin"), make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	programEnv(t, h, []string{"GSETTINGS_BACKEND=memory"}, "/usr/bin/baobab", dir)
	var size string
	measure(t, "baobab (GTK 4): a folder's size read by OCR from a list with no accessible rows", "w365", c, func() error {
		for try := 0; ; try++ {
			title, ws, err := readWindow(c, "photos")
			if err != nil {
				return err
			}
			head, err1 := wordAt(ws, "Size")
			row, err2 := wordAt(ws, "trips")
			if err1 == nil && err2 == nil {
				// The words under the heading, on the row: "3.0" and "MB".
				size = ""
				for _, w := range ws {
					if w.cy >= row.y && w.cy <= row.y+row.h && w.x < head.x+head.w+2*head.h && w.x+w.w > head.x-2*head.h {
						size += " " + w.text
					}
				}
				if size != "" {
					size = size[1:]
					return nil
				}
			}
			if try == 10 {
				return fmt.Errorf("the window %q shows no row trips under Size: %v", title, ws)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 300})
		}
	}, func() error {
		if size != "3.0 MB" {
			return fmt.Errorf("the agent read the size %q for trips, want 3.0 MB", size)
		}
		return nil
	})
}

// JuffEd (Qt 5): open Tools > Settings, tick "Strip trailing spaces" on its General page,
// choose the Editor page in the tree of pages beside it, set the spin box beside
// "Tabstop width" to 4 (the spin box is named by its group only) and tick "Replace tabs
// with spaces", OK, and quit through File > Exit. The settings JuffEd writes are the check.
func juffedTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "juffed")
	cfg := filepath.Join(work, "juffed-config")
	printed := programEnv(t, h, []string{"XDG_CONFIG_HOME=" + cfg, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"}, "/usr/bin/juffed")
	measure(t, "JuffEd (Qt 5): Settings from a menu, a page chosen in its tree, a spin box by its label (settings)", "w365", c, func() error {
		if _, err := activeWindow(c, "JuffEd"); err != nil {
			return err
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Tools"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Settings"}) },
			func() error { _, err := activeWindow(c, "Settings"); return err },
			func() error { return tick(c, map[string]any{"role": "CheckBox", "name": "Strip trailing spaces"}) },
			func() error { return clickFound(c, map[string]any{"role": "DataItem", "name": "Editor"}) },
			func() error {
				_, err := waitState(c, map[string]any{"role": "DataItem", "name": "Editor"}, "selected", false)
				return err
			},
		); err != nil {
			return err
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		spin, err := beside(root, "Tabstop width", "Spinner")
		if err != nil {
			return err
		}
		if err := first(
			func() error { return focusAt(c, "Spinner", spin) },
			func() error { return key(c, "ctrl", "a") },
			func() error { return typed(c, "4") },
		); err != nil {
			return err
		}
		for try := 0; ; try++ {
			v, err := valueOf(c, "Spinner", spin)
			if err != nil {
				return err
			}
			if v == "4" {
				break
			}
			if try == 10 {
				return fmt.Errorf("the tab stop width reads %q after 4 was typed", v)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 200})
		}
		return first(
			func() error { return tick(c, map[string]any{"role": "CheckBox", "name": "Replace tabs with spaces"}) },
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "OK"}) },
			func() error { _, err := activeWindow(c, "JuffEd"); return err },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "File"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Exit"}) },
		)
	}, func() error {
		if _, err := printed(); err != nil {
			return err
		}
		return settingsHold(filepath.Join(cfg, "juff", "juffed.ini"), "stripTrailingSpaces=true", "tabStopWidth=4", "replaceTabsWithSpaces=true")
	})
}

// mtPaint (GTK 2): scale the new image's canvas to 320 x 200 through Image > Scale Canvas
// (its spin boxes are unnamed: the agent places them by the "New" row and the "Width" and
// "Height" columns, with "Fix Aspect Ratio" unticked), read the size the status bar shows,
// and save it as PNG through mtPaint's own file dialog. mtPaint keeps its Settings Toolbar
// above its main window, at the same corner, over its menus: the search says "covered", and
// the agent moves the window list_windows shows there out of the way first. The PNG's size
// and the size read are the check.
func mtpaintTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "mtpaint")
	want := filepath.Join(work, "mtpaint", "banner.png")
	os.MkdirAll(filepath.Dir(want), 0o755)
	programEnv(t, h, []string{"HOME=" + filepath.Join(work, "mtpaint")}, "/usr/bin/mtpaint")
	var status string
	measure(t, "mtPaint (GTK 2): a covered menu uncovered, a dialog's unnamed spin boxes, its own save dialog (PNG)", "w365", c, func() error {
		// mtPaint opens its toolbar's window a moment after its own, and the window manager
		// gives the new one the focus: the agent lets its windows settle first.
		if _, err := window(c, "mtPaint"); err != nil {
			return err
		}
		if err := settled(c); err != nil {
			return err
		}
		if _, err := activeWindow(c, "mtPaint"); err != nil {
			return err
		}
		image := map[string]any{"role": "Menu", "name": "Image"}
		_, ms, err := found(c, image, false)
		if err != nil {
			return err
		}
		if len(ms) == 0 {
			return fmt.Errorf("mtPaint shows no Image menu")
		}
		if slices.Contains(states(ms[0]), "covered") {
			// The window over it: the one list_windows lists at its centre, mtPaint's own
			// window aside; it goes right of mtPaint's.
			_, st, err := c.call("list_windows", nil)
			if err != nil {
				return err
			}
			var main, over map[string]any
			for _, w := range st["windows"].([]any) {
				w := w.(map[string]any)
				b := matchNode(w)
				cx, cy := int(ms[0]["centerX"].(float64)), int(ms[0]["centerY"].(float64))
				switch {
				case strings.Contains(fmt.Sprint(w["title"]), "mtPaint"):
					main = w
				case over == nil && cx >= b.X && cx < b.X+b.Width && cy >= b.Y && cy < b.Y+b.Height:
					over = w
				}
			}
			if main == nil || over == nil {
				return fmt.Errorf("the Image menu reads covered, and list_windows shows no window over it: %v", st["windows"])
			}
			m := matchNode(main)
			if _, _, err := c.call("resize_window", map[string]any{"title": over["title"], "action": "Move", "x": m.X + m.Width + 20, "y": m.Y}); err != nil {
				return err
			}
			// (Its title may mark the image modified by now.)
			if _, err := activeWindow(c, "mtPaint"); err != nil {
				return err
			}
			if _, ms, err = found(c, image, false); err != nil {
				return err
			}
			if len(ms) == 0 || slices.Contains(states(ms[0]), "covered") {
				return fmt.Errorf("the Image menu still reads %v", ms)
			}
		}
		if err := first(
			func() error {
				_, _, err := c.call("click", map[string]any{"x": ms[0]["centerX"], "y": ms[0]["centerY"]})
				return err
			},
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Scale Canvas"}) },
			func() error { _, err := activeWindow(c, "Scale Canvas"); return err },
		); err != nil {
			return err
		}
		fix := map[string]any{"role": "CheckBox", "name": "Fix Aspect Ratio"}
		if m, err := waitState(c, fix, "checked", false); err == nil {
			if _, _, err := c.call("click", map[string]any{"x": m["centerX"], "y": m["centerY"]}); err != nil {
				return err
			}
		}
		if _, err := waitState(c, fix, "checked", true); err != nil {
			return err
		}
		// The spin boxes on the row of "New", under the headings "Width" and "Height".
		root, err := tree(c)
		if err != nil {
			return err
		}
		var row *node
		heads := map[string]node{}
		var spins []node
		root.walk(func(n node) {
			switch name := strings.TrimSpace(n.Name); {
			case n.Role == "Text" && name == "New":
				row = &n
			case n.Role == "Text" && (name == "Width" || name == "Height"):
				heads[name] = n
			case n.Role == "Spinner":
				spins = append(spins, n)
			}
		})
		if row == nil || len(heads) != 2 {
			return fmt.Errorf("the Scale Canvas dialog shows no row New under Width and Height")
		}
		for _, set := range []struct{ head, value string }{{"Width", "320"}, {"Height", "200"}} {
			hd := heads[set.head]
			i := slices.IndexFunc(spins, func(n node) bool {
				return n.Y <= row.Y+row.Height/2 && row.Y+row.Height/2 <= n.Y+n.Height && n.X <= hd.X+hd.Width/2 && hd.X+hd.Width/2 <= n.X+n.Width
			})
			if i < 0 {
				return fmt.Errorf("no spin box on the row New under %s", set.head)
			}
			if err := first(
				func() error { return focusAt(c, "Spinner", spins[i]) },
				func() error { return key(c, "ctrl", "a") },
				func() error { return typed(c, set.value) },
				func() error { return key(c, "tab") },
			); err != nil {
				return err
			}
			if v, err := valueOf(c, "Spinner", spins[i]); err != nil || v != set.value {
				return fmt.Errorf("the %s spin box reads %q (%v) after %s was typed", set.head, v, err, set.value)
			}
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "OK"}) },
			// Its title now marks the image modified.
			func() error { _, err := activeWindow(c, "mtPaint"); return err },
		); err != nil {
			return err
		}
		// The status bar names the image's size: " 320 x 200 x 256 ".
		for try := 0; ; try++ {
			_, ts, err := found(c, map[string]any{"role": "Text", "name": " x "}, false)
			if err != nil {
				return err
			}
			if len(ts) > 0 {
				status = strings.TrimSpace(ts[0]["name"].(string))
			}
			if strings.HasPrefix(status, "320 x 200") || try == 10 {
				break
			}
			c.call("wait_milliseconds", map[string]any{"ms": 200})
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "File"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Save As"}) },
			func() error { _, err := activeWindow(c, "Save Image File"); return err },
		); err != nil {
			return err
		}
		// The dialog's fields: the folder at its top (its value a path), the file's name,
		// focused, below its list; a path typed in the name field is taken as a name in the
		// folder ("Unable to save file: /home//tmp/..."). The folder is typed and entered
		// first, then the name.
		_, es, err := found(c, map[string]any{"role": "Edit"}, false)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(es, func(m map[string]any) bool { return slices.Contains(states(m), "focused") })
		d := slices.IndexFunc(es, func(m map[string]any) bool { v, _ := m["value"].(string); return strings.HasPrefix(v, "/") })
		if i < 0 || d < 0 || d == i {
			return fmt.Errorf("the save dialog shows no folder field and focused name field among %v", es)
		}
		return first(
			func() error { return retype(c, matchNode(es[d]), filepath.Dir(want)+"/") },
			func() error { return key(c, "enter") },
			func() error { return retype(c, matchNode(es[i]), filepath.Base(want)) },
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "OK"}) },
			func() error { _, err := window(c, "banner.png"); return err },
		)
	}, func() error {
		if !strings.HasPrefix(status, "320 x 200") {
			return fmt.Errorf("the agent read the size %q, want 320 x 200", status)
		}
		f, err := os.Open(want)
		if err != nil {
			return err
		}
		defer f.Close()
		cfg, err := png.DecodeConfig(f)
		if err != nil || cfg.Width != 320 || cfg.Height != 200 {
			return fmt.Errorf("%s is %+v (%v), want a 320x200 PNG", want, cfg, err)
		}
		return nil
	})
}

func heldOut6(t *testing.T, h *e2e.Harness, c *client, work string) {
	for _, task := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"mtpaint", func(t *testing.T) { mtpaintTask(t, h, c, work) }},
		{"l3afpad", func(t *testing.T) { l3afpadTask(t, h, c, work) }},
		{"baobab", func(t *testing.T) { baobabTask(t, h, c, work) }},
		{"juffed", func(t *testing.T) { juffedTask(t, h, c, work) }},
	} {
		t.Run(task.name, task.run)
	}
}
