//go:build linux

package tasks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// The tasks of this file drive applications no round before them had met (a seventh
// held-out round: NEdit, a Motif editor whose Save As dialog is a Motif file selection box
// whose buttons and labels are gadgets, read from the screen; xcalc, an Athena calculator
// whose keys are read through Editres and whose display, read from the screen, becomes the
// X selection when clicked; Xfe, a file manager of the FOX toolkit, which has no tree at
// all: read by OCR, under the same rule: the agent takes every coordinate, title and name
// from what a tool returned; Dillo, a web browser of the FLTK toolkit, no tree either, its
// page saved through FLTK's file chooser, read by OCR).

// NEdit (Motif): write a line and save it through File > Save As... NEdit 5.7 joins a path
// typed whole in the dialog's "New File Name" field to the folder of its Directory field
// (it checks /dir/minutes.txt, then writes <cwd>/dir/minutes.txt and reports "No such file
// or directory"), so the agent does what the dialog asks of a person: the folder in the
// field under "Directory" (Enter lists it), then the name in the field under "New File
// Name:". A Motif text field selects nothing on ctrl+a (it goes to the line's start): a
// field is emptied by end, then shift+home. The file on disk is the check.
func neditTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "nedit")
	want := filepath.Join(work, "nedit", "notes", "minutes.txt")
	os.MkdirAll(filepath.Dir(want), 0o755)
	programEnv(t, h, []string{"HOME=" + filepath.Join(work, "nedit")}, "/usr/bin/nedit")
	measure(t, "NEdit (Motif): Save As through a file selection box of gadgets, fields by their labels (file on disk)", "w365", c, func() error {
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
		// While Motif's menu is posted the window manager names no window active: the menus
		// and their items are searched in the editor's window by its handle.
		if err := first(
			func() error { return clickAt(c, text) },
			func() error { return typed(c, "ship on friday") },
			func() error {
				return clickFound(c, map[string]any{"role": "MenuItem", "name": "File", "windowHandle": editor})
			},
			func() error {
				return clickFound(c, map[string]any{"role": "MenuItem", "name": "Save As", "windowHandle": editor})
			},
			func() error { _, err := activeWindow(c, "Save File As"); return err },
		); err != nil {
			return err
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		for _, set := range []struct{ label, text string }{{"Directory", filepath.Dir(want) + "/"}, {"New File Name:", filepath.Base(want)}} {
			field, err := fieldUnder(root, set.label)
			if err != nil {
				return err
			}
			if err := first(
				func() error { return clickAt(c, field) },
				func() error { return key(c, "end") },
				func() error { return key(c, "shift", "home") },
				func() error { return typed(c, set.text) },
				func() error { return key(c, "enter") },
			); err != nil {
				return err
			}
		}
		_, err = window(c, filepath.Base(want))
		return err
	}, func() error {
		return fileHolds(want, "ship on friday")
	})
}

// fieldUnder is the text field right under the label named label (a Motif dialog puts its
// labels above their fields): the first Edit whose top lies within two of the label's
// heights below it and whose box spans the label's left edge.
func fieldUnder(root node, label string) (node, error) {
	var lab *node
	var edits []node
	root.walk(func(n node) {
		if n.Role == "Text" && n.Name == label && lab == nil {
			lab = &n
		}
		if n.Role == "Edit" {
			edits = append(edits, n)
		}
	})
	if lab == nil {
		return node{}, fmt.Errorf("no label %q in the window's tree", label)
	}
	for _, e := range edits {
		if e.Y >= lab.Y+lab.Height && e.Y <= lab.Y+3*lab.Height && e.X <= lab.X && lab.X < e.X+e.Width {
			return e, nil
		}
	}
	return node{}, fmt.Errorf("no field under the label %q", label)
}

// xcalc (Xaw): compute (1.5 + 2.5) × 2^5 by the names of its keys (y^x for the power, its
// keys found through Editres), read the display, and click it, which makes its number the
// PRIMARY selection (xcalc's display toggles and calls selection()). What another program of
// the session reads from PRIMARY, and the display read, are the check.
func xcalcTask(t *testing.T, h *e2e.Harness, c *client) {
	testenv.Require(t, "xcalc")
	testenv.Require(t, "xclip")
	program(t, h, "/usr/bin/xcalc")
	var shown string
	measure(t, "xcalc (Xaw): parentheses and a power by its keys' names, the display made the selection (PRIMARY)", "w365", c, func() error {
		if _, err := activeWindow(c, "Calculator"); err != nil {
			return err
		}
		for _, k := range []string{"(", "1", ".", "5", "+", "2", ".", "5", ")", "*", "2", "y^x", "5", "="} {
			// A search ranks the key named k first; "1" also matches "1/x": the agent takes
			// the match of that very name.
			_, ms, err := found(c, map[string]any{"role": "Button", "name": k}, false)
			if err != nil {
				return err
			}
			i := slices.IndexFunc(ms, func(m map[string]any) bool { return m["name"] == k })
			if i < 0 {
				return fmt.Errorf("no key %q among %v", k, ms)
			}
			if _, _, err := c.call("click", map[string]any{"x": ms[i]["centerX"], "y": ms[i]["centerY"]}); err != nil {
				return err
			}
		}
		// The display: the button above the DEG label, read from the screen.
		for try := 0; ; try++ {
			root, err := tree(c)
			if err != nil {
				return err
			}
			var deg *node
			var buttons []node
			root.walk(func(n node) {
				if n.Role == "Text" && n.Name == "DEG" && deg == nil {
					deg = &n
				}
				if n.Role == "Button" {
					buttons = append(buttons, n)
				}
			})
			if deg != nil {
				if i := slices.IndexFunc(buttons, func(b node) bool { return b.Y+b.Height <= deg.Y+2 && b.Y+b.Height >= deg.Y-deg.Height }); i >= 0 {
					shown = buttons[i].Name
					if shown == "128" || try == 10 {
						return clickAt(c, buttons[i])
					}
				}
			}
			if try == 10 {
				return fmt.Errorf("no display above DEG in %+v", root)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 200})
		}
	}, func() error {
		if shown != "128" {
			return fmt.Errorf("the agent read %q from the display, want 128", shown)
		}
		if got, err := selection(h, "primary"); err != nil || strings.TrimSpace(got) != "128" {
			return fmt.Errorf("PRIMARY holds %q (%v), want 128", got, err)
		}
		return nil
	})
}

// Xfe (FOX): open a folder by a double click on its name, then make a subfolder through
// File > New folder... and its dialog. FOX draws everything itself and exposes no tree: the
// agent reads each window with analyze_screen and clicks the words it read (run as root,
// Xfe first warns in a dialog, answered by its OK). The folder on disk is the check.
func xfeTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "xfe")
	dir := filepath.Join(work, "xfe")
	os.MkdirAll(filepath.Join(dir, "inbox"), 0o755)
	want := filepath.Join(dir, "inbox", "reports")
	programEnv(t, h, []string{"HOME=" + filepath.Join(work, "xfe-home")}, "/usr/bin/xfe", dir)
	measure(t, "Xfe (FOX): a folder opened by its name, a subfolder made through a menu and its dialog, all by OCR (folder on disk)", "w365", c, func() error {
		title, err := windowWhere(c, "Xfe or its warning", func(w map[string]any) bool {
			t, _ := w["title"].(string)
			return strings.HasPrefix(t, "Xfe") || t == "Warning"
		})
		if err != nil {
			return err
		}
		if title == "Warning" {
			if err := clickWord(c, "Warning", "OK", 1); err != nil {
				return err
			}
		}
		if err := first(
			func() error { return clickWord(c, "Xfe", "inbox", 2) },
			func() error { _, err := window(c, "/inbox"); return err },
			func() error { return clickWord(c, "Xfe", "File", 1) },
			func() error { return newFolderItem(c) },
			func() error { _, err := activeWindow(c, "New Folder"); return err },
		); err != nil {
			return err
		}
		// The dialog's field has the focus (its label reads "Create new folder"); Accept
		// makes the folder.
		if _, ws, err := readWindow(c, "New Folder"); err != nil {
			return err
		} else if _, err := wordAt(ws, "Create"); err != nil {
			return fmt.Errorf("the New Folder dialog reads no label: %v (%v)", err, ws)
		}
		return first(
			func() error { return typed(c, filepath.Base(want)) },
			func() error { return clickWord(c, "New Folder", "Accept", 1) },
		)
	}, func() error {
		for i := 0; i < 50; i++ {
			if fi, err := os.Stat(want); err == nil && fi.IsDir() {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		return fmt.Errorf("no folder %s", want)
	})
}

// newFolderItem clicks the item "New folder..." of Xfe's open File menu: a word that begins
// with "folder" right of a word "New" on its row (OCR reads the dots as "..." or "…", and
// the status bar's "(1 folder)" is no item). When the menu does not show after a few
// readings, "File" is clicked again.
func newFolderItem(c *client) error {
	for try := 1; ; try++ {
		_, ws, err := readWindow(c, "Xfe")
		if err != nil {
			return err
		}
		for _, n := range ws {
			if n.text != "New" {
				continue
			}
			for _, f := range ws {
				if strings.HasPrefix(f.text, "folder") && f.x > n.x && f.x < n.x+n.w+2*n.h && f.cy > n.y && f.cy < n.y+n.h {
					_, _, err := c.call("click", map[string]any{"x": f.cx, "y": f.cy})
					return err
				}
			}
		}
		switch {
		case try == 10:
			return fmt.Errorf("no item New folder... read in Xfe's File menu: %v", ws)
		case try%4 == 0:
			if err := clickWord(c, "Xfe", "File", 1); err != nil {
				return err
			}
		}
		c.call("wait_milliseconds", map[string]any{"ms": 300})
	}
}

// clickWord reads the window whose title holds part (readWindow) until it shows the word
// text (up to 10 readings, 300 ms apart), and clicks its centre count times.
func clickWord(c *client, part, text string, count int) error {
	for try := 0; ; try++ {
		_, ws, err := readWindow(c, part)
		if err != nil {
			return err
		}
		if w, err := wordAt(ws, text); err == nil {
			_, _, err := c.call("click", map[string]any{"x": w.cx, "y": w.cy, "clickCount": count})
			return err
		} else if try == 10 {
			return err
		}
		c.call("wait_milliseconds", map[string]any{"ms": 300})
	}
}

// Dillo (FLTK): save the page it shows through its toolbar's Save button and FLTK's file
// chooser ("Save Page as File"): the path put into the field right of the "Filename:"
// label, then OK. FLTK exposes no tree: every word is read with analyze_screen. The field
// completes what is typed into it key by key (a "/" lists that folder and rewrites the
// field, and ctrl+a goes to the line's start): a path typed as keys, fast or 120 ms a key,
// came out as "/tmp/tmp/dt10/...". The agent empties the field (end, shift+home,
// backspace) and puts the path in at once (type_text's usePaste). The saved page on disk
// is the check.
func dilloTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "dillo")
	page := filepath.Join(work, "dillo", "menu.html")
	want := filepath.Join(work, "dillo", "saved", "week.html")
	os.MkdirAll(filepath.Dir(want), 0o755)
	const body = "<p>Monday: lentil soup</p>"
	os.WriteFile(page, []byte("<html><head><title>Menu of the week</title></head><body><h1>Menu of the week</h1>"+body+"</body></html>"), 0o644)
	home := filepath.Join(work, "dillo")
	programEnv(t, h, []string{"HOME=" + home}, "/usr/bin/dillo", page)
	// Dillo starts dpid, its plug-ins' daemon, and plug-in servers (file.dpi), which outlive
	// it and hold its output open: they are ended (by their HOME, this task's) before the
	// program's own cleanup waits for that output.
	t.Cleanup(func() { endProcesses("HOME=" + home) })
	measure(t, "Dillo (FLTK): a page saved through FLTK's file chooser, a field right of its label, all by OCR (file on disk)", "w365", c, func() error {
		if err := first(
			func() error { return clickWord(c, "Menu of the week", "Save", 1) },
			func() error { _, err := activeWindow(c, "Save Page as File"); return err },
		); err != nil {
			return err
		}
		// The field right of its label, on its row: a click at the label's right plus two of
		// its heights.
		var label word
		for try := 0; ; try++ {
			_, ws, err := readWindow(c, "Save Page as File")
			if err != nil {
				return err
			}
			if label, err = wordAt(ws, "Filename:"); err == nil {
				break
			} else if try == 10 {
				return err
			}
			c.call("wait_milliseconds", map[string]any{"ms": 300})
		}
		return first(
			func() error {
				_, _, err := c.call("click", map[string]any{"x": label.x + label.w + 2*label.h, "y": label.cy})
				return err
			},
			func() error { return key(c, "end") },
			func() error { return key(c, "shift", "home") },
			func() error { return key(c, "backspace") },
			func() error {
				_, _, err := c.call("type_text", map[string]any{"text": want, "usePaste": true})
				return err
			},
			func() error { return clickWord(c, "Save Page as File", "OK", 1) },
			func() error {
				for try := 0; ; try++ {
					ts, err := titles(c)
					if err != nil || !slices.Contains(ts, "Save Page as File") {
						return err
					}
					if try == 10 {
						return fmt.Errorf("the file chooser is still open after OK")
					}
					c.call("wait_milliseconds", map[string]any{"ms": 300})
				}
			},
		)
	}, func() error {
		for i := 0; i < 50; i++ {
			if b, err := os.ReadFile(want); err == nil && strings.Contains(string(b), body) {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		return fmt.Errorf("%s does not hold the page", want)
	})
}

// endProcesses kills the processes whose environment holds env.
func endProcesses(env string) {
	ps, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range ps {
		environ, err := os.ReadFile(filepath.Join(p, "environ"))
		if err != nil || !slices.Contains(strings.Split(string(environ), "\x00"), env) {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(p)); err == nil {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func heldOut7(t *testing.T, h *e2e.Harness, c *client, work string) {
	for _, task := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"nedit", func(t *testing.T) { neditTask(t, h, c, work) }},
		{"xcalc", func(t *testing.T) { xcalcTask(t, h, c) }},
		{"xfe", func(t *testing.T) { xfeTask(t, h, c, work) }},
		{"dillo", func(t *testing.T) { dilloTask(t, h, c, work) }},
	} {
		t.Run(task.name, task.run)
	}
}
