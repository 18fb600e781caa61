//go:build linux

package tasks_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// The tasks of this file drive applications no round before them had met (an eighth held-out
// round: Grace, a Motif plotting program whose menu bar is a row of gadgets and whose labels
// are read from the screen; DB Browser for SQLite, a Qt 5 program with an SQL editor in a tab; Evince's
// GTK 3 print dialog, printing to a file chosen through GTK's file chooser; SciTE, a GTK 3
// editor whose search strip names its fields only by the labels beside them), under the same
// rule: the agent takes every coordinate, title and name from what a tool returned.

// Grace (Motif): give the graph a title through Plot > Graph appearance... (its field beside
// the label "Title:", Accept) and save the project through File > Save. Grace's menu bar is a
// row of cascade gadgets, read from the screen through Editres's tree. -noask: Grace asks for
// no confirmation. The project file on disk is the check.
func graceTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "xmgrace")
	testenv.Require(t, "gracebat")
	dir := filepath.Join(work, "grace")
	os.MkdirAll(dir, 0o755)
	project := filepath.Join(dir, "plot.agr")
	os.WriteFile(filepath.Join(dir, "sales.dat"), []byte("1 3\n2 5\n3 4\n4 8\n"), 0o644)
	// The project to open: the data set saved by Grace's batch program, which needs no display.
	mk := exec.Command("gracebat", "-nosafe", "sales.dat", "-saveall", "plot.agr")
	mk.Dir = dir
	if out, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("gracebat: %v: %s", err, out)
	}
	programEnv(t, h, []string{"HOME=" + dir}, "/usr/bin/xmgrace", "-noask", project)
	const title = "Weekly sales"
	measure(t, "Grace (Motif): a graph's title through a menu of gadgets and its dialog, saved (project file)", "w365", c, func() error {
		main, err := activeWindow(c, "Grace: plot.agr")
		if err != nil {
			return err
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"name": "Plot"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Graph appearance"}) },
			func() error { _, err := activeWindow(c, "Graph Appearance"); return err },
		); err != nil {
			return err
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		field, err := fieldBeside(root, "Title:")
		if err != nil {
			return err
		}
		return first(
			func() error { return clickAt(c, field) },
			func() error { return typed(c, title) },
			func() error { return clickButton(c, "Accept") },
			func() error { _, err := activeWindow(c, main); return err },
			func() error { return clickFound(c, map[string]any{"name": "File"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Save"}) },
		)
	}, func() error {
		return fileHoldsAll(project, `@    title "`+title+`"`)
	})
}

// DB Browser for SQLite (Qt 5): on its Execute SQL tab, type a statement into the SQL editor
// (the tab's field), run it by the toolbar's Execute SQL button, read the outcome from the
// message pane, and write the changes by the Write Changes button once it is enabled. What
// sqlite3 reads from the database file is the check.
func sqlitebrowserTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "sqlitebrowser")
	testenv.Require(t, "sqlite3")
	dir := filepath.Join(work, "sqlitebrowser")
	os.MkdirAll(dir, 0o755)
	db := filepath.Join(dir, "shop.db")
	if out, err := exec.Command("sqlite3", db, "CREATE TABLE items(name TEXT, qty INTEGER)").CombinedOutput(); err != nil {
		t.Fatalf("sqlite3: %v: %s", err, out)
	}
	programEnv(t, h, []string{"HOME=" + dir, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"}, "/usr/bin/sqlitebrowser", db)
	write := map[string]any{"role": "Button", "name": "Write Changes"}
	measure(t, "DB Browser for SQLite (Qt 5): a statement typed in a tab's SQL editor, run, its outcome read, written (database file)", "w365", c, func() error {
		if _, err := activeWindow(c, "DB Browser for SQLite"); err != nil {
			return err
		}
		if err := clickFound(c, map[string]any{"role": "TabItem", "name": "Execute SQL"}); err != nil {
			return err
		}
		editor, err := firstFound(c, map[string]any{"role": "Edit"})
		if err != nil {
			return err
		}
		if err := clickAt(c, editor); err != nil {
			return err
		}
		// The agent believes what type_text says of where its keys went.
		if out, _, err := c.call("type_text", map[string]any{"text": "INSERT INTO items VALUES ('apples', 12);"}); err != nil {
			return err
		} else if strings.Contains(out, "note") {
			return fmt.Errorf("type_text into the SQL editor says: %s", out)
		}
		if err := clickFound(c, map[string]any{"role": "Button", "name": "Execute SQL"}); err != nil {
			return err
		}
		_, ms, err := found(c, map[string]any{"role": "Text", "text": "rows affected"}, false)
		if err != nil {
			return err
		}
		if len(ms) == 0 || !strings.Contains(fmt.Sprint(ms[0]["value"]), "1 rows affected") {
			return fmt.Errorf("the message pane reads no row affected: %v", ms)
		}
		if _, err := waitState(c, write, "disabled", true); err != nil {
			return err
		}
		if err := clickFound(c, write); err != nil {
			return err
		}
		_, err = waitState(c, write, "disabled", false)
		return err
	}, func() error {
		out, err := exec.Command("sqlite3", db, "SELECT name, qty FROM items").CombinedOutput()
		if err != nil || strings.TrimSpace(string(out)) != "apples|12" {
			return fmt.Errorf("the database holds %q (%v), want apples|12", out, err)
		}
		return nil
	})
}

// Evince (GTK 3): print the second page of a document to a PDF file through GTK's print
// dialog: its Print to File printer picked in the printer table, the range typed into the
// field its "Pages:" radio button enables, the file chosen through the file chooser that the
// button beside "File:" opens (the path typed into its Name field, Select), and the dialog's
// Print button once the file button shows the name chosen. The file on disk (a PDF of one
// page) is the check.
// onePage is the page count of a PDF of one page (its page tree's /Count; Evince's own
// output, from cairo, puts a line break after it).
var onePage = regexp.MustCompile(`/Count 1\s`)

func evinceTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "evince")
	dir := filepath.Join(work, "evince")
	os.MkdirAll(filepath.Join(dir, "handouts"), 0o755)
	doc := filepath.Join(dir, "report.pdf")
	b, err := os.ReadFile(filepath.Join(testenv.Root(), "testdata", "tasks", "report.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(doc, b, 0o644)
	want := filepath.Join(dir, "handouts", "page2.pdf")
	programEnv(t, h, []string{"HOME=" + dir}, "/usr/bin/evince", doc)
	measure(t, "Evince (GTK 3): print one page to a file through the print dialog and its file chooser (file on disk)", "w365", c, func() error {
		if err := first(
			func() error { _, err := activeWindow(c, "report.pdf"); return err },
			func() error { return key(c, "ctrl", "p") },
			func() error { _, err := activeWindow(c, "Print"); return err },
			func() error {
				// The printer table fills in as GTK's print backends answer: under load, more
				// than the 5 s a search looks for.
				for try := 0; ; try++ {
					err := clickFound(c, map[string]any{"role": "DataItem", "name": "Print to File"})
					if err == nil || try == 3 || !strings.Contains(err.Error(), "found nothing") {
						return err
					}
				}
			},
			func() error { return clickFound(c, map[string]any{"role": "RadioButton", "name": "Pages:"}) },
		); err != nil {
			return err
		}
		pages, err := waitState(c, map[string]any{"role": "Edit", "name": "Pages"}, "disabled", true)
		if err != nil {
			return err
		}
		if err := first(
			func() error { return clickAt(c, matchNode(pages)) },
			func() error { return typed(c, "2") },
		); err != nil {
			return err
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		file, err := beside(root, "File:", "Button")
		if err != nil {
			return err
		}
		if err := first(
			func() error { return clickAt(c, file) },
			func() error { _, err := activeWindow(c, "Select a filename"); return err },
		); err != nil {
			return err
		}
		if root, err = tree(c); err != nil {
			return err
		}
		name, err := fieldBeside(root, "Name:")
		if err != nil {
			return err
		}
		return first(
			func() error { return retype(c, name, want) },
			func() error { return clickButton(c, "Select") },
			func() error { _, err := activeWindow(c, "Print"); return err },
			func() error {
				_, err := firstFound(c, map[string]any{"role": "Button", "name": filepath.Base(want)})
				return err
			},
			func() error { return clickButton(c, "Print") },
		)
	}, func() error {
		var b []byte
		for i := 0; i < 100; i++ {
			if b, _ = os.ReadFile(want); bytes.HasPrefix(b, []byte("%PDF-")) && onePage.Match(b) {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		return fmt.Errorf("%s is no PDF of one page: %d bytes, %.80q", want, len(b), b)
	})
}

// SciTE (GTK 3): replace a word everywhere through Search > Replace..., whose strip names its
// two fields only by the labels beside them ("Find:", "Replace:"), by its Replace All button,
// and save through File > Save. The file on disk is the check.
func sciteTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "scite")
	dir := filepath.Join(work, "scite")
	os.MkdirAll(dir, 0o755)
	file := filepath.Join(dir, "notes.txt")
	os.WriteFile(file, []byte("colour of the sky\nthe colour red\n"), 0o644)
	programEnv(t, h, []string{"HOME=" + dir}, "/usr/bin/scite", file)
	measure(t, "SciTE (GTK 3): replace all through a search strip's fields by their labels, saved (file on disk)", "w365", c, func() error {
		if err := first(
			func() error { _, err := activeWindow(c, "notes.txt"); return err },
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "Search"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Replace..."}) },
		); err != nil {
			return err
		}
		var root node
		var err error
		for try := 0; ; try++ {
			if root, err = tree(c); err != nil {
				return err
			}
			if _, err = fieldBeside(root, "Replace:"); err == nil || try == 10 {
				break
			}
			c.call("wait_milliseconds", map[string]any{"ms": 200})
		}
		for _, set := range []struct{ label, text string }{{"Find:", "colour"}, {"Replace:", "color"}} {
			field, err := fieldBeside(root, set.label)
			if err != nil {
				return err
			}
			if err := retype(c, field, set.text); err != nil {
				return err
			}
		}
		return first(
			func() error { return clickButton(c, "Replace All") },
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "File"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Save"}) },
		)
	}, func() error {
		return fileHolds(file, "color of the sky\nthe color red")
	})
}

func heldOut8(t *testing.T, h *e2e.Harness, c *client, work string) {
	for _, task := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"grace", func(t *testing.T) { graceTask(t, h, c, work) }},
		{"sqlitebrowser", func(t *testing.T) { sqlitebrowserTask(t, h, c, work) }},
		{"evince", func(t *testing.T) { evinceTask(t, h, c, work) }},
		{"scite", func(t *testing.T) { sciteTask(t, h, c, work) }},
	} {
		t.Run(task.name, task.run)
	}
}
