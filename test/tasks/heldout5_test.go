//go:build linux

package tasks_test

import (
	"fmt"
	"os"
	"os/exec"
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

// The tasks of this file drive applications no round before them had met (a fifth held-out
// round: a Qt 5 calculator's submenus and file dialog, a Qt 5 character table, a GTK 3 task
// manager's process list and its confirmation, a GTK 3 editor's preferences and save dialog,
// a Qt 5 process list drawn by the application itself, an Xaw PostScript viewer read by OCR
// and its own save dialog), under the same rule: the agent takes every coordinate, title and
// name from what a tool returned.

// lastResult is the last "= N" line of a calculator's history text.
func lastResult(history string) string {
	var out string
	for _, l := range strings.Split(history, "\n") {
		if r, ok := strings.CutPrefix(strings.TrimSpace(l), "= "); ok {
			out = r
		}
	}
	return out
}

// SpeedCrunch (Qt 5): define a variable and compute with it in the expression field, read the
// result from the history shown above it (its text), show results in hexadecimal through
// Settings > Result Format > Hexadecimal (a submenu), read the result again, export the
// session as plain text through Session > Export (Qt's file dialog), and quit through Session
// > Quit. The exported file and the settings SpeedCrunch writes when it quits are the check.
func speedcrunchTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "speedcrunch")
	cfg := filepath.Join(work, "speedcrunch-config")
	want := filepath.Join(work, "speedcrunch", "budget.txt")
	os.MkdirAll(filepath.Dir(want), 0o755)
	printed := programEnv(t, h, []string{"XDG_CONFIG_HOME=" + cfg, "XDG_DATA_HOME=" + filepath.Join(work, "speedcrunch-data")}, "/usr/bin/speedcrunch")
	var decimal, hex string
	// history is the text of the history pane: the one Text element with a value.
	history := func() (string, error) {
		_, ms, err := found(c, map[string]any{"role": "Text"}, false)
		if err != nil {
			return "", err
		}
		for _, m := range ms {
			if v, _ := m["value"].(string); v != "" {
				return v, nil
			}
		}
		return "", fmt.Errorf("no Text element holds the history among %v", ms)
	}
	// menu clicks through a menu path, each item found once the one before it opened.
	menu := func(path ...string) error {
		for _, name := range path {
			if err := clickFound(c, map[string]any{"role": "MenuItem", "name": name}); err != nil {
				return err
			}
		}
		return nil
	}
	measure(t, "SpeedCrunch (Qt 5): a variable, a submenu's format, Export through Qt's file dialog (its file, its settings)", "w365", c, func() error {
		title, err := activeWindow(c, "SpeedCrunch")
		if err != nil {
			return err
		}
		expr, err := firstFound(c, map[string]any{"role": "Edit"})
		if err != nil {
			return err
		}
		// Each line is entered once the field reads it (SpeedCrunch completes a name typed in a
		// list that pops up over the field).
		if err := clickAt(c, expr); err != nil {
			return err
		}
		for _, line := range []string{"rent = 1200", "rent * 12 + 600"} {
			if err := typed(c, line); err != nil {
				return err
			}
			for try := 0; ; try++ {
				v, err := valueOf(c, "Edit", expr)
				if err != nil {
					return err
				}
				if v == line {
					break
				}
				if try == 10 {
					return fmt.Errorf("the expression field reads %q after %q was typed", v, line)
				}
				c.call("wait_milliseconds", map[string]any{"ms": 200})
			}
			if err := key(c, "enter"); err != nil {
				return err
			}
		}
		for try := 0; decimal == ""; try++ {
			text, err := history()
			if err != nil {
				return err
			}
			if strings.Contains(text, "rent * 12") || strings.Contains(text, "rent*12") {
				decimal = lastResult(text)
			} else if try == 10 {
				return fmt.Errorf("the history reads %q", text)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 200})
		}
		if err := menu("Settings", "Result Format", "Hexadecimal"); err != nil {
			return err
		}
		for try := 0; hex == "" || hex == decimal; try++ {
			if try == 10 {
				return fmt.Errorf("the result still reads %q after Hexadecimal was chosen", hex)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 200})
			text, err := history()
			if err != nil {
				return err
			}
			hex = lastResult(text)
		}
		if err := menu("Session", "Export", "Plain text"); err != nil {
			return err
		}
		if _, err := activeWindow(c, "Export"); err != nil {
			return err
		}
		_, ms, err := found(c, map[string]any{"role": "Edit"}, false)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(ms, func(m map[string]any) bool { return slices.Contains(states(m), "focused") })
		if i < 0 {
			return fmt.Errorf("the Export dialog has no focused field among %v", ms)
		}
		if err := first(
			func() error { return retype(c, matchNode(ms[i]), want) },
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "Save"}) },
			func() error { _, err := activeWindow(c, title); return err },
		); err != nil {
			return err
		}
		return menu("Session", "Quit")
	}, func() error {
		if decimal != "15000" || hex != "0x3A98" {
			return fmt.Errorf("the agent read %q, then %q in hexadecimal; want 15000 and 0x3A98", decimal, hex)
		}
		if err := fileHoldsAll(want, "rent = 1200", "0x3A98"); err != nil {
			return err
		}
		if _, err := printed(); err != nil {
			return err
		}
		return fileHoldsAll(filepath.Join(cfg, "SpeedCrunch", "SpeedCrunch.ini"), `Format\Type=h`)
	})
}

// KCharSelect (Qt 5): search the characters for "euro sign" and for "snowman" in its search
// field, add each found character to the text below the table by a double click on its cell
// (found by the character it shows), read each one's code point from the details beside the
// table (a read-only text), and copy the text with To Clipboard. The clipboard and the code
// points read are the check.
func kcharselectTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "kcharselect", "xclip")
	programEnv(t, h, []string{"XDG_CONFIG_HOME=" + filepath.Join(work, "kcharselect-config"), "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"}, "/usr/bin/kcharselect")
	var points []string
	measure(t, "KCharSelect (Qt 5): search, a table cell by its character, details read, To Clipboard (clipboard)", "w365", c, func() error {
		if _, err := activeWindow(c, "KCharSelect"); err != nil {
			return err
		}
		for _, ch := range []struct{ search, char string }{{"euro sign", "€"}, {"snowman", "☃"}} {
			// The search field is the field at the top, above the table.
			_, es, err := found(c, map[string]any{"role": "Edit"}, false)
			if err != nil {
				return err
			}
			if len(es) == 0 {
				return fmt.Errorf("KCharSelect shows no field")
			}
			search := matchNode(slices.MinFunc(es, func(a, b map[string]any) int { return matchNode(a).Y - matchNode(b).Y }))
			if err := retype(c, search, ch.search); err != nil {
				return err
			}
			cell := map[string]any{"role": "DataItem", "name": ch.char}
			_, ms, err := found(c, cell, false)
			if err != nil {
				return err
			}
			if len(ms) == 0 {
				return fmt.Errorf("no cell shows %s after the search %q", ch.char, ch.search)
			}
			if _, _, err := c.call("click", map[string]any{"x": ms[0]["centerX"], "y": ms[0]["centerY"], "clickCount": 2}); err != nil {
				return err
			}
			// The details name the character shown: "Character: € U+20AC".
			for try := 0; ; try++ {
				_, ts, err := found(c, map[string]any{"role": "Text"}, false)
				if err != nil {
					return err
				}
				read := ""
				for _, m := range ts {
					v, _ := m["value"].(string)
					if line, _, _ := strings.Cut(v, "\u2028"); strings.HasPrefix(line, "Character: "+ch.char+" ") {
						read = strings.TrimPrefix(line, "Character: "+ch.char+" ")
					}
				}
				if read != "" {
					points = append(points, read)
					break
				}
				if try == 10 {
					return fmt.Errorf("the details do not name %s: %v", ch.char, ts)
				}
				c.call("wait_milliseconds", map[string]any{"ms": 200})
			}
		}
		return clickButton(c, "To Clipboard")
	}, func() error {
		if !slices.Equal(points, []string{"U+20AC", "U+2603"}) {
			return fmt.Errorf("the agent read the code points %q, want U+20AC and U+2603", points)
		}
		if got, err := clipboard(h); err != nil || got != "€☃" {
			return fmt.Errorf("the clipboard holds %q (%v), want €☃", got, err)
		}
		return nil
	})
}

// xfce4-taskmanager (GTK 3): find a running job by its name through the search field, read
// its PID on its row, end it through the row's context menu (Terminate) and the dialog that
// asks to confirm. The job's end and the PID read are the check.
func taskManagerTask(t *testing.T, h *e2e.Harness, c *client) {
	testenv.Require(t, "xfce4-taskmanager")
	job, ended := startJob(t, "nightly-backup")
	program(t, h, "/usr/bin/xfce4-taskmanager")
	var pid string
	measure(t, "xfce4-taskmanager (GTK 3): search, a row's PID, its context menu and a confirmation (the process ended)", "w365", c, func() error {
		if _, err := activeWindow(c, "Task Manager"); err != nil {
			return err
		}
		search, err := firstFound(c, map[string]any{"role": "Edit", "name": "Search"})
		if err != nil {
			return err
		}
		if err := retype(c, search, "nightly"); err != nil {
			return err
		}
		// The row is the cell that shows the job's name; its PID is the cell of the PID column on
		// the same row.
		var cell node
		for try := 0; ; try++ {
			root, err := tree(c)
			if err != nil {
				return err
			}
			var pidCol *node
			var cells []node
			root.walk(func(n node) {
				if n.Role == "HeaderItem" && n.Name == "PID" {
					pidCol = &n
				}
				if n.Role == "DataItem" {
					cells = append(cells, n)
				}
			})
			if i := slices.IndexFunc(cells, func(n node) bool { return strings.Contains(n.Name, "nightly-backup") }); i >= 0 && pidCol != nil {
				cell = cells[i]
				for _, n := range cells {
					if n.X >= pidCol.X && n.X < pidCol.X+pidCol.Width && n.Y == cell.Y {
						pid = n.Name
					}
				}
				break
			}
			if try == 10 {
				return fmt.Errorf("no row names nightly-backup among %d cells", len(cells))
			}
			c.call("wait_milliseconds", map[string]any{"ms": 200})
		}
		if _, _, err := c.call("click", map[string]any{"x": cell.X + cell.Width/2, "y": cell.Y + cell.Height/2, "button": "Right"}); err != nil {
			return err
		}
		if err := clickFound(c, map[string]any{"role": "MenuItem", "name": "Terminate"}); err != nil {
			return err
		}
		return clickFound(c, map[string]any{"role": "Button", "name": "Yes"})
	}, func() error {
		if pid != strconv.Itoa(job) {
			return fmt.Errorf("the agent read the PID %q, want %d", pid, job)
		}
		return terminated(ended)
	})
}

// gedit (GTK 3): write a list, open Preferences from the header bar's main menu (the Menu
// button beside Save: the one beside Open lists recent files), tick "Display right margin" on
// its View tab and "Insert spaces instead of tabs" on its Editor tab, close it by its title,
// and save the list through ctrl+s and the Save As dialog with the path typed in its name
// field. The file on disk and the settings gedit writes (GSettings' keyfile) are the check.
func geditTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "gedit")
	cfg := filepath.Join(work, "gedit-config")
	want := filepath.Join(work, "gedit", "groceries.txt")
	os.MkdirAll(filepath.Dir(want), 0o755)
	programEnv(t, h, []string{"GSETTINGS_BACKEND=keyfile", "XDG_CONFIG_HOME=" + cfg}, "/usr/bin/gedit")
	measure(t, "gedit (GTK 3): a header bar's menu, two tabs' check boxes, Save As a path (file, its settings)", "w365", c, func() error {
		title, err := activeWindow(c, "gedit")
		if err != nil {
			return err
		}
		text, err := firstFound(c, map[string]any{"role": "Edit"})
		if err != nil {
			return err
		}
		if err := first(
			func() error { return clickAt(c, text) },
			func() error { return typed(c, "milk\nbread\napples\n") },
		); err != nil {
			return err
		}
		save, err := firstFound(c, map[string]any{"role": "Button", "name": "Save"})
		if err != nil {
			return err
		}
		_, ms, err := found(c, map[string]any{"role": "Button", "name": "Menu"}, false)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(ms, func(m map[string]any) bool { n := matchNode(m); return n.Y == save.Y && n.X > save.X })
		if i < 0 {
			return fmt.Errorf("no Menu button right of Save among %v", ms)
		}
		if err := first(
			func() error { return clickAt(c, matchNode(ms[i])) },
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "Preferences"}) },
			func() error { _, err := activeWindow(c, "Preferences"); return err },
			func() error { return tick(c, map[string]any{"role": "CheckBox", "name": "Display right margin"}) },
			func() error { return clickFound(c, map[string]any{"role": "TabItem", "name": "Editor"}) },
			func() error {
				return tick(c, map[string]any{"role": "CheckBox", "name": "Insert spaces instead of tabs"})
			},
			func() error { _, _, err := c.call("close_window", map[string]any{"title": "Preferences"}); return err },
			func() error { _, err := activeWindow(c, title); return err },
			func() error { return key(c, "ctrl", "s") },
			func() error { _, err := activeWindow(c, "Save As"); return err },
		); err != nil {
			return err
		}
		// The name field is the field beside the label "Name:".
		root, err := tree(c)
		if err != nil {
			return err
		}
		name, err := fieldBeside(root, "Name:")
		if err != nil {
			return err
		}
		if err := first(
			func() error { return retype(c, name, want) },
			func() error { return key(c, "enter") },
		); err != nil {
			return err
		}
		_, err = window(c, "groceries.txt")
		return err
	}, func() error {
		if err := fileHolds(want, "milk\nbread\napples"); err != nil {
			return err
		}
		return fileHoldsAll(filepath.Join(cfg, "glib-2.0", "settings", "keyfile"), "display-right-margin=true", "insert-spaces=true")
	})
}

// startJob starts a sleep under the name name; ended reports how it ended.
func startJob(t *testing.T, name string) (pid int, ended <-chan error) {
	job := exec.Command("bash", "-c", "exec -a "+name+" sleep 600")
	if err := job.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- job.Wait() }()
	t.Cleanup(func() { job.Process.Kill() })
	return job.Process.Pid, done
}

// terminated waits (up to 5 s) for a job to end, and says how it ended unless by SIGTERM.
func terminated(ended <-chan error) error {
	select {
	case err := <-ended:
		if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
			return fmt.Errorf("the job ended with %v, want SIGTERM", err)
		}
		return nil
	case <-time.After(5 * time.Second):
		return fmt.Errorf("the job still runs 5 s after the agent finished")
	}
}

// qps (Qt 5): its process table is drawn by qps itself (no tree): filter it by a job's name in
// the field beside Thread, read the job's row by OCR (its PID under the PID heading) once the
// field reads the whole filter, select the row and end the job through the row's context menu
// (Terminate) and the dialog that asks to confirm. The job's end and the PID read are the
// check.
func qpsTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "qps")
	job, ended := startJob(t, "weekly-report")
	programEnv(t, h, []string{"XDG_CONFIG_HOME=" + filepath.Join(work, "qps-config"), "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"}, "/usr/bin/qps")
	var pid string
	measure(t, "qps (Qt 5): a filter, a row read by OCR, its context menu (the process ended)", "w365", c, func() error {
		// qps titles its window with the host's name: the agent finds it by its process.
		title, err := windowWhere(c, "of qps", func(w map[string]any) bool { return w["processName"] == "qps" })
		if err != nil {
			return err
		}
		if _, _, err := c.call("activate_window", map[string]any{"title": title}); err != nil {
			return err
		}
		thread, err := firstFound(c, map[string]any{"role": "CheckBox", "name": "Thread"})
		if err != nil {
			return err
		}
		_, es, err := found(c, map[string]any{"role": "Edit"}, false)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(es, func(m map[string]any) bool {
			n := matchNode(m)
			return n.X > thread.X && n.Y <= thread.Y+thread.Height/2 && thread.Y+thread.Height/2 <= n.Y+n.Height
		})
		if i < 0 {
			return fmt.Errorf("no field beside Thread among %v", es)
		}
		field := matchNode(es[i])
		if err := retype(c, field, "weekly"); err != nil {
			return err
		}
		// type_text returns once the keys are sent, and qps filters its table at each key: a
		// read while its field shows "we" placed the row lower than the table shows it once
		// filtered by "weekly", and the clicks there, below the last row, left no process
		// selected (Terminate then asks nothing). The table is read from a frame whose field
		// reads the whole filter: qps refilters in the key's handler, before it paints.
		var row word
		for try := 0; ; try++ {
			_, ws, err := ocrWindow(c, title)
			if err != nil {
				return err
			}
			filtered := slices.ContainsFunc(ws, func(w word) bool {
				return w.text == "weekly" && w.cx >= field.X && w.cx < field.X+field.Width && w.cy >= field.Y && w.cy < field.Y+field.Height
			})
			head, err1 := wordAt(ws, "PID")
			if row, err = wordAt(ws, "weekly-report"); err == nil && err1 == nil && filtered {
				for _, w := range ws {
					if w.cy >= row.y && w.cy <= row.y+row.h && w.x < head.x+head.w && w.x+w.w > head.x {
						pid = w.text
					}
				}
				break
			}
			if try == 10 {
				return fmt.Errorf("no row reads weekly-report below a field that reads weekly: %v", ws)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 300})
		}
		if err := first(
			func() error { _, _, err := c.call("click", map[string]any{"x": row.cx, "y": row.cy}); return err },
			func() error {
				_, _, err := c.call("click", map[string]any{"x": row.cx, "y": row.cy, "button": "Right"})
				return err
			},
		); err != nil {
			return err
		}
		// qps asks to confirm in a dialog titled Question.
		return first(
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Terminate"}) },
			func() error { _, err := activeWindow(c, "Question"); return err },
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "Yes"}) },
		)
	}, func() error {
		if pid != strconv.Itoa(job) {
			return fmt.Errorf("the agent read the PID %q, want %d", pid, job)
		}
		return terminated(ended)
	})
}

// gv (Xaw, no accessibility): open a three-page PostScript file, show its third page by the
// page list's "3" (a single digit read by OCR), read the page, mark it (gv's M key), and save
// the marked page through gv's own file dialog (s) with the path typed in its path field (an
// Xaw text: ctrl+a and ctrl+k empty it) and its Save Marked Pages button. The file saved (page
// three only) and the page read are the check.
func gvTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "gv", "gs")
	src, want := filepath.Join(work, "inventory.ps"), filepath.Join(work, "gv", "page3.ps")
	os.MkdirAll(filepath.Dir(want), 0o755)
	ps := "%!PS-Adobe-3.0\n%%Pages: 3\n%%EndComments\n"
	for i, p := range []string{"one", "two", "three"} {
		ps += fmt.Sprintf("%%%%Page: %d %d\n/Helvetica findfont 28 scalefont setfont\n72 650 moveto (Inventory page %s) show\nshowpage\n", i+1, i+1, p)
	}
	if err := os.WriteFile(src, []byte(ps+"%%EOF\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	programEnv(t, h, []string{"HOME=" + work}, "/usr/bin/gv", src)
	var read []string
	measure(t, "gv (Xaw): a page by a digit read by OCR, a key's mark, its own save dialog (file on disk)", "w365", c, func() error {
		title, ws, err := readWindow(c, "inventory.ps")
		if err != nil {
			return err
		}
		three, err := wordAt(ws, "3")
		if err != nil {
			return err
		}
		if _, _, err := c.call("click", map[string]any{"x": three.cx, "y": three.cy}); err != nil {
			return err
		}
		for try := 0; ; try++ {
			_, ws, err := ocrWindow(c, title)
			if err != nil {
				return err
			}
			read = read[:0]
			// The page's line: the words of its size on the row of "three" (the buttons beside
			// the page are in a smaller type), left to right.
			if w, err := wordAt(ws, "three"); err == nil {
				var line []word
				for _, o := range ws {
					if w.y <= o.cy && o.cy <= w.y+w.h && 2*o.h >= w.h {
						line = append(line, o)
					}
				}
				slices.SortFunc(line, func(a, b word) int { return a.x - b.x })
				for _, o := range line {
					read = append(read, o.text)
				}
				break
			}
			if try == 10 {
				return fmt.Errorf("the page shown does not read page three: %v", ws)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 300})
		}
		if err := first(
			func() error { return key(c, "shift", "m") },
			func() error { return key(c, "s") },
			func() error { _, err := activeWindow(c, "Save"); return err },
		); err != nil {
			return err
		}
		// The dialog's path field is its top line; its button reads Save Marked Pages.
		_, ws, err = ocrWindow(c, "Save")
		if err != nil {
			return err
		}
		var path *word
		for i, w := range ws {
			if strings.HasPrefix(w.text, "/") && (path == nil || w.y < path.y) {
				path = &ws[i]
			}
		}
		pages, err := wordAt(ws, "Pages")
		if err != nil {
			return err
		}
		if path == nil {
			return fmt.Errorf("the Save dialog shows no path: %v", ws)
		}
		return first(
			func() error { _, _, err := c.call("click", map[string]any{"x": path.cx, "y": path.cy}); return err },
			func() error { return key(c, "ctrl", "a") },
			func() error { return key(c, "ctrl", "k") },
			func() error { return typed(c, want) },
			func() error { _, _, err := c.call("click", map[string]any{"x": pages.cx, "y": pages.cy}); return err },
		)
	}, func() error {
		if got := strings.Join(read, " "); got != "Inventory page three" {
			return fmt.Errorf("the agent read %q on page 3", got)
		}
		if err := fileHoldsAll(want, "(Inventory page three)"); err != nil {
			return err
		}
		if b, _ := os.ReadFile(want); strings.Contains(string(b), "page one") || strings.Contains(string(b), "page two") {
			return fmt.Errorf("%s holds other pages than the third: %q", want, b)
		}
		return nil
	})
}

func heldOut5(t *testing.T, h *e2e.Harness, c *client, work string) {
	for _, task := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"speedcrunch", func(t *testing.T) { speedcrunchTask(t, h, c, work) }},
		{"kcharselect", func(t *testing.T) { kcharselectTask(t, h, c, work) }},
		{"xfce4-taskmanager", func(t *testing.T) { taskManagerTask(t, h, c) }},
		{"gedit", func(t *testing.T) { geditTask(t, h, c, work) }},
		{"qps", func(t *testing.T) { qpsTask(t, h, c, work) }},
		{"gv", func(t *testing.T) { gvTask(t, h, c, work) }},
	} {
		t.Run(task.name, task.run)
	}
}
