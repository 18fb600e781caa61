//go:build linux

package tasks_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// The tasks of this file drive applications no round before them had met (a tenth held-out
// round: Qt Linguist, a Qt 6 application, whose translation field lies scrolled out of a
// small pane; git gui, Tk, read from the screen only; LibreOffice Calc, whose sheet manages
// its descendants and counts a billion cells), under the same rule: the agent takes every
// coordinate, title and name from what a tool returned.

// Qt Linguist (Qt 6): translate one string of a .ts file. The agent selects the source text
// in the Strings list; the field for its translation lies below the editor pane's view
// (find_ui_element reads it offscreen), so the agent turns the wheel over the pane's scroll
// bar, a notch at a time towards the field, until the field reads on screen, types the
// translation, marks it done (ctrl+Return, Done and Next) and saves (ctrl+s). The .ts file on
// disk is the check.
func linguistTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	const linguist = "/usr/lib/qt6/bin/linguist"
	testenv.Require(t, linguist)
	dir := filepath.Join(work, "linguist")
	os.MkdirAll(dir, 0o755)
	ts := filepath.Join(dir, "app_de.ts")
	os.WriteFile(ts, []byte(`<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>MainWindow</name>
    <message>
        <source>Open File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save Changes</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Quit</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
`), 0o644)
	const german = "Änderungen speichern"
	programEnv(t, h, []string{"HOME=" + dir, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"}, linguist, ts)
	measure(t, "Qt Linguist (Qt 6): a string translated in a field scrolled into its pane by the wheel, saved (file on disk)", "w365", c, func() error {
		if err := first(
			func() error { _, err := activeWindow(c, "Qt Linguist"); return err },
			func() error { return clickFound(c, map[string]any{"role": "DataItem", "name": "Save Changes"}) },
		); err != nil {
			return err
		}
		field := map[string]any{"role": "Edit", "name": "Translation to"}
		var edit node
		for try := 0; ; try++ {
			_, ms, err := found(c, field, false)
			if err != nil {
				return err
			}
			if len(ms) == 0 {
				return fmt.Errorf("no translation field")
			}
			edit = matchNode(ms[0])
			if !slices.Contains(states(ms[0]), "offscreen") {
				break
			}
			if try == 8 {
				return fmt.Errorf("the translation field stays offscreen: %v", ms[0])
			}
			// The pane's scroll bar: the vertical one right of the field nearest it.
			_, bars, err := found(c, map[string]any{"role": "ScrollBar"}, true)
			if err != nil {
				return err
			}
			var bar node
			for _, m := range bars {
				b := matchNode(m)
				if b.X >= edit.X+edit.Width && b.Height > b.Width && (bar.Height == 0 || dist(b, edit) < dist(bar, edit)) {
					bar = b
				}
			}
			if bar.Height == 0 {
				return fmt.Errorf("no scroll bar beside the translation field: %v", bars)
			}
			notch := 1
			if edit.Y+edit.Height/2 < bar.Y+bar.Height/2 {
				notch = -1
			}
			if _, _, err := c.call("scroll", map[string]any{"x": bar.X + bar.Width/2, "y": bar.Y + bar.Height/2, "deltaY": notch}); err != nil {
				return err
			}
		}
		return first(
			func() error { return clickAt(c, edit) },
			func() error { return typed(c, german) },
			func() error { _, err := firstFound(c, map[string]any{"role": "Edit", "text": german}); return err },
			func() error { return key(c, "ctrl", "Return") },
			func() error { return key(c, "ctrl", "s") },
		)
	}, func() error {
		return fileMatches(ts, regexp.MustCompile(`<source>Save Changes</source>\s*<translation>`+german+`</translation>`))
	})
}

// dist is how far apart the middles of a and b lie vertically.
func dist(a, b node) int {
	d := (a.Y + a.Height/2) - (b.Y + b.Height/2)
	return max(d, -d)
}

// fileMatches waits (up to 5 s) for file to match re.
func fileMatches(file string, re *regexp.Regexp) error {
	var b []byte
	for i := 0; i < 50; i++ {
		if b, _ = os.ReadFile(file); re.Match(b) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s holds %q, want it to match %s", file, b, re)
}

// git gui (Tk, no accessibility): commit a changed file. Every word is read with
// analyze_screen: the agent clicks Stage Changed, clicks into the commit message's box (under
// its "Commit Message:" label), types the message and clicks the Commit button (the "Commit"
// in the column of buttons under Sign Off, not the menu's). The repository's last commit is
// the check.
func gitGuiTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "/usr/lib/git-core/git-gui")
	repo := filepath.Join(work, "gitgui")
	os.MkdirAll(repo, 0o755)
	git := func(args ...string) (string, error) {
		out, err := exec.Command("git", append([]string{"-C", repo}, args...)...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	notes := filepath.Join(repo, "notes.txt")
	os.WriteFile(notes, []byte("first line\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.name", "Task Agent"}, {"config", "user.email", "agent@example.org"},
		{"add", "notes.txt"}, {"commit", "-qm", "Start the notes"}} {
		if out, err := git(args...); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(notes, []byte("first line\nsecond line\n"), 0o644)
	const message = "Add the second line"
	// git-gui itself, not `git gui`, whose git would leave it running when ended.
	programEnv(t, h, []string{"HOME=" + repo, "GIT_DIR=" + filepath.Join(repo, ".git"), "GIT_WORK_TREE=" + repo}, "/usr/lib/git-core/git-gui")
	measure(t, "git gui (Tk, read from the screen): a changed file staged and committed with a message (repository)", "w365", c, func() error {
		if err := clickWord(c, "Git Gui", "Changed", 1); err != nil {
			return err
		}
		_, ws, err := readWindow(c, "Git Gui")
		if err != nil {
			return err
		}
		label, err := wordAt(ws, "Message:")
		if err != nil {
			return err
		}
		sign, err := wordAt(ws, "Sign")
		if err != nil {
			return err
		}
		var commit *word
		for i, w := range ws {
			if w.text == "Commit" && w.cy > sign.cy && w.cx > sign.x-sign.w && w.cx < sign.x+2*sign.w {
				commit = &ws[i]
			}
		}
		if commit == nil {
			return fmt.Errorf("no Commit button under Sign Off: %v", ws)
		}
		return first(
			// The box begins a line under its label.
			func() error {
				_, _, err := c.call("click", map[string]any{"x": label.cx, "y": label.y + 4*label.h})
				return err
			},
			func() error { return typed(c, message) },
			func() error { _, _, err := c.call("click", map[string]any{"x": commit.cx, "y": commit.cy}); return err },
		)
	}, func() error {
		var subject, files string
		for i := 0; i < 50; i++ {
			subject, _ = git("log", "-1", "--format=%s")
			files, _ = git("show", "--name-only", "--format=", "HEAD")
			if subject == message && files == "notes.txt" {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		return fmt.Errorf("the last commit is %q with %q, want %q with notes.txt", subject, files, message)
	})
}

// cellAddress is what LibreOffice's Name Box shows: the current cell's address.
var cellAddress = regexp.MustCompile(`^[A-Z]+[0-9]+$`)

// LibreOffice Calc (VCL, GTK 3): change one cell of a CSV file and save it as CSV. The agent
// answers the Text Import dialog, goes to the cell through the Name Box (the Edit whose value is
// a cell's address), types the figure and saves with ctrl+s, keeping the format in the
// question that follows. The file on disk is the check.
func calcTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	const soffice = "/usr/lib/libreoffice/program/soffice"
	testenv.Require(t, soffice, "/usr/bin/localc") // localc: Calc is installed
	dir := filepath.Join(work, "calc")
	os.MkdirAll(dir, 0o755)
	csv := filepath.Join(dir, "stock.csv")
	os.WriteFile(csv, []byte("item,qty\napples,4\npears,7\nplums,2\n"), 0o644)
	programEnv(t, h, []string{"HOME=" + dir}, soffice, "--calc", "--norestore", "--nologo", csv)
	// soffice starts soffice.bin, which keeps its output open: each process of this HOME is
	// ended before programEnv's clean-up waits for that output's end.
	t.Cleanup(func() { endProcesses("HOME=" + dir) })
	measure(t, "LibreOffice Calc (VCL): a cell reached through the Name Box changed, saved as CSV (file on disk)", "w365", c, func() error {
		// Calc starts slowly: at a load of 15 to 50 its first window had not shown after the
		// 30 s activeWindow waits, and the agent waits twice as long again.
		var err error
		for try := 0; try < 3; try++ {
			if _, err = activeWindow(c, "Text Import"); err == nil {
				break
			}
		}
		if err != nil {
			return err
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "OK"}) },
			func() error { _, err := activeWindow(c, "LibreOffice Calc"); return err },
		); err != nil {
			return err
		}
		_, ms, err := found(c, map[string]any{"role": "Edit"}, false)
		if err != nil {
			return err
		}
		var box *node
		for _, m := range ms {
			if v, _ := m["value"].(string); cellAddress.MatchString(v) {
				n := matchNode(m)
				box = &n
				break
			}
		}
		if box == nil {
			return fmt.Errorf("no Name Box among the fields: %v", ms)
		}
		return first(
			func() error { return retype(c, *box, "B3\n") },
			func() error { _, err := firstFound(c, map[string]any{"role": "Edit", "text": "B3"}); return err },
			func() error { return typed(c, "9\n") },
			func() error { return key(c, "ctrl", "s") },
			func() error { _, err := activeWindow(c, "Confirm File Format"); return err },
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "Use Text CSV Format"}) },
		)
	}, func() error {
		return fileHolds(csv, "item,qty\napples,4\npears,9\nplums,2")
	})
}

func heldOut10(t *testing.T, h *e2e.Harness, c *client, work string) {
	for _, task := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"linguist", func(t *testing.T) { linguistTask(t, h, c, work) }},
		{"git-gui", func(t *testing.T) { gitGuiTask(t, h, c, work) }},
		{"calc", func(t *testing.T) { calcTask(t, h, c, work) }},
	} {
		t.Run(task.name, task.run)
	}
}
