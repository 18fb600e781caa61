//go:build linux

package tasks_test

import (
	"fmt"
	"image"
	_ "image/png"
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

// The tasks of this file drive applications no round before them had met (a fourth held-out
// round: a GTK 3 calculator whose result is a picture and whose dialog names its fields only by
// labels, a Motif PDF viewer read and driven by OCR, a GTK 4 font viewer's read-only facts, a
// Qt 5 image viewer's context menu and file dialog), under the same rule: the agent takes every
// coordinate, title and name from what a tool returned.

// qalculate-gtk (GTK 3): type an expression, read its result (a picture named "Calculation
// result": analyze_screen reads the box the tree gives), show it in Roman numerals through the
// combo box that reads Decimal, store the result as a variable through File > Store Result…
// (a dialog whose fields are named only by the labels beside them), and quit through
// File > Quit. qalculate writes its settings and the variable in the session's HOME when it
// quits: the files and the result read are the check.
func qalculateTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "qalculate-gtk")
	// launch_application starts it in the session, whose HOME (read from the process's
	// environment once it runs) keeps what it writes.
	var home string
	var read, roman string
	// result reads the result's picture until it reads something.
	result := func() (string, error) {
		for try := 0; ; try++ {
			n, err := firstFound(c, map[string]any{"role": "Image", "name": "Calculation result"})
			if err != nil {
				return "", err
			}
			text, _, err := ocr(c, n.X, n.Y, n.Width, n.Height)
			if text = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "=")); err != nil || text != "" || try == 10 {
				return text, err
			}
			c.call("wait_milliseconds", map[string]any{"ms": 200})
		}
	}
	var pid int
	measure(t, "qalculate-gtk: a result read from its picture, a combo box, a dialog's fields by their labels (its files)", "w365", c, func() error {
		_, st, err := c.call("launch_application", map[string]any{"path": "qalculate-gtk"})
		if err != nil {
			return err
		}
		f, _ := st["pid"].(float64)
		pid = int(f)
		if home, err = homeOf(pid, "qalculate-gtk"); err != nil {
			return err
		}
		title, err := activeWindow(c, "Qalculate")
		if err != nil {
			return err
		}
		expr, err := firstFound(c, map[string]any{"role": "Edit"})
		if err != nil {
			return err
		}
		if err := first(
			func() error { return clickAt(c, expr) },
			func() error { return typed(c, "sqrt(1764) + 3") },
			func() error { return key(c, "enter") },
		); err != nil {
			return err
		}
		if read, err = result(); err != nil {
			return err
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "ComboBox", "name": "Decimal"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Roman"}) },
		); err != nil {
			return err
		}
		for try := 0; roman == "" || roman == read; try++ {
			if try == 10 {
				return fmt.Errorf("the result still reads %q after Roman was chosen", roman)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 200})
			if roman, err = result(); err != nil {
				return err
			}
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "File"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Store Result…"}) },
			func() error { _, err := activeWindow(c, "New Variable"); return err },
		); err != nil {
			return err
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		for _, f := range []struct{ label, text string }{{"Name", "rent"}, {"Category", "Budget"}, {"Descriptive name", "Monthly rent"}} {
			field, err := fieldBeside(root, f.label)
			if err == nil {
				err = retype(c, field, f.text)
			}
			if err != nil {
				return err
			}
		}
		if err := clickButton(c, "OK"); err != nil {
			return err
		}
		if _, err := activeWindow(c, title); err != nil {
			return err
		}
		return first(
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "File"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Quit"}) },
		)
	}, func() error {
		if read != "45" || roman != "XLV" {
			return fmt.Errorf("the result read %q, then %q in Roman numerals; want 45 and XLV", read, roman)
		}
		for i := 0; syscall.Kill(pid, 0) == nil; i++ {
			if i == 50 {
				return fmt.Errorf("qalculate-gtk (pid %d) still runs 5 s after Quit", pid)
			}
			time.Sleep(100 * time.Millisecond)
		}
		cfg, data := filepath.Join(home, ".config"), filepath.Join(home, ".local", "share")
		if err := fileHoldsAll(filepath.Join(data, "qalculate", "definitions", "variables.xml"), "rent", "Budget", "Monthly rent", "45"); err != nil {
			return err
		}
		return fileHoldsAll(filepath.Join(cfg, "qalculate", "qalculate-gtk.cfg"), "base_display=")
	})
}

// homeOf is the HOME of the process named name at or below pid (a launched application runs
// below its confinement's process).
func homeOf(pid int, name string) (string, error) {
	parent := func(p int) int {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		_, rest, _ := strings.Cut(string(b), ") ")
		f := strings.Fields(rest)
		if len(f) < 2 {
			return 0
		}
		pp, _ := strconv.Atoi(f[1])
		return pp
	}
	for try := 0; try < 50; try++ {
		ds, _ := os.ReadDir("/proc")
		for _, d := range ds {
			p, err := strconv.Atoi(d.Name())
			if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p)); err != nil || strings.TrimSpace(string(comm)) != name {
				continue
			}
			for a := p; a > 1; a = parent(a) {
				if a == pid {
					env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p))
					for _, kv := range strings.Split(string(env), "\x00") {
						if v, ok := strings.CutPrefix(kv, "HOME="); ok {
							return v, nil
						}
					}
					return "", fmt.Errorf("%s (pid %d) has no HOME", name, p)
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "", fmt.Errorf("no %s runs below pid %d", name, pid)
}

// xpdf (Motif, no accessibility): open a PDF, go to its third page by the page field of the
// bottom bar (found between the words "Page" and "of" that analyze_screen read), read the line
// of the page that says it is page three, and quit by the Quit button read there. The page's text (what the PDF draws on page 3) and
// xpdf's exit are the check.
func xpdfTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "xpdf")
	pdf := filepath.Join(work, "minutes.pdf")
	b, err := os.ReadFile(filepath.Join(testenv.Root(), "testdata", "tasks", "report.pdf"))
	if err == nil {
		err = os.WriteFile(pdf, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	printed := program(t, h, "/usr/bin/xpdf", pdf)
	var read []string
	measure(t, "xpdf (Motif): a page field, a page and a button read by OCR (the page's text, its exit)", "w365", c, func() error {
		title, ws, err := readWindow(c, "minutes.pdf")
		if err != nil {
			return err
		}
		label, err := wordAt(ws, "Page")
		if err != nil {
			return err
		}
		of, err := wordAt(ws, "of")
		if err != nil {
			return err
		}
		quit, err := wordAt(ws, "Quit")
		if err != nil {
			return err
		}
		// The field lies between "Page" and "of N".
		if err := first(
			func() error {
				_, _, err := c.call("click", map[string]any{"x": (label.x + label.w + of.x) / 2, "y": label.cy})
				return err
			},
			func() error { return key(c, "end") },
			func() error { return key(c, "backspace") },
			func() error { return key(c, "backspace") },
			func() error { return typed(c, "3\n") },
		); err != nil {
			return err
		}
		// The page is the part of the window above the bar; it reads "page three" once shown.
		for try := 0; ; try++ {
			_, ws, err := ocrWindow(c, title)
			if err != nil {
				return err
			}
			// The line of the page that reads "three": the words beside it.
			read = read[:0]
			if three, err := wordAt(ws, "three"); err == nil {
				for _, w := range ws {
					if three.y <= w.cy && w.cy <= three.y+three.h {
						read = append(read, w.text)
					}
				}
				break
			}
			if try == 10 {
				return fmt.Errorf("the page shown does not read page three: %q", read)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 200})
		}
		_, _, err = c.call("click", map[string]any{"x": quit.cx, "y": quit.cy})
		return err
	}, func() error {
		if got := strings.Join(read, " "); got != "Signed by the auditor page three" {
			return fmt.Errorf("the agent read %q on page 3", got)
		}
		_, err := printed()
		return err
	})
}

// GNOME Fonts (GTK 4): search the fonts for Nimbus Mono, open its Bold Italic face, and on its
// Info page read the facts shown only as read-only text beside their labels (Location, Style,
// Version). fontconfig reads the file found there: its family, style and version (a Type 1
// font's header line, where fontconfig reads none) are the check.
func fontViewerTask(t *testing.T, h *e2e.Harness, c *client) {
	testenv.Require(t, "gnome-font-viewer", "fc-query")
	const face = "Nimbus Mono PS, Bold Italic"
	facts := map[string]string{}
	measure(t, "GNOME Fonts (GTK 4): search, open a face, read its facts beside their labels (fontconfig)", "w365", c, func() error {
		if _, _, err := c.call("launch_application", map[string]any{"path": "org.gnome.font-viewer"}); err != nil {
			return err
		}
		if _, err := activeWindow(c, "gnome-font-viewer"); err != nil {
			return err
		}
		// The header bar's search button has no name: it is the button left of "About Fonts".
		about, err := firstFound(c, map[string]any{"role": "Button", "name": "About Fonts"})
		if err != nil {
			return err
		}
		_, ms, err := found(c, map[string]any{"role": "Button"}, false)
		if err != nil {
			return err
		}
		var search map[string]any
		for _, m := range ms {
			if n := matchNode(m); m["name"] == "" && n.Y == about.Y && n.X < about.X {
				search = m
			}
		}
		if search == nil {
			return fmt.Errorf("no unnamed button beside About Fonts")
		}
		// The search field shows once the button is pressed; the agent types once it has the
		// focus, and reads what it typed back from it.
		entry := map[string]any{"role": "Edit"}
		if err := first(
			func() error { return clickAt(c, matchNode(search)) },
			func() error { _, err := waitState(c, entry, "focused", false); return err },
			func() error { return typed(c, "Nimbus Mono") },
		); err != nil {
			return err
		}
		if _, ms, err := found(c, entry, false); err != nil || len(ms) == 0 || ms[0]["value"] != "Nimbus Mono" {
			return fmt.Errorf("the search field reads %v after Nimbus Mono was typed (%v)", ms, err)
		}
		n, err := firstFound(c, map[string]any{"role": "Text", "name": face})
		if err != nil {
			return err
		}
		if _, _, err := c.call("click", map[string]any{"x": n.X + n.Width/2, "y": n.Y + n.Height/2, "clickCount": 2}); err != nil {
			return err
		}
		if err := clickButton(c, "Info"); err != nil {
			return err
		}
		for _, label := range []string{"Location", "Style", "Version"} {
			for try := 0; ; try++ {
				root, err := tree(c)
				if err != nil {
					return err
				}
				if v, err := textBeside(root, label); err == nil {
					facts[label] = v.Name
					break
				} else if try == 10 {
					return err
				}
				c.call("wait_milliseconds", map[string]any{"ms": 200})
			}
		}
		return nil
	}, func() error {
		out, err := exec.Command("fc-query", "-f", "%{family[0]}|%{style[0]}|%{fontversion}", facts["Location"]).Output()
		if err != nil {
			return fmt.Errorf("fc-query %q: %v (facts read %q)", facts["Location"], err, facts)
		}
		f := strings.Split(string(out), "|")
		v, _ := strconv.Atoi(f[2])
		want := fmt.Sprintf("%.2f", float64(v)/65536)
		if v == 0 {
			// fontconfig reads no version from a Type 1 font: its header line ends with it.
			b, _ := os.ReadFile(facts["Location"])
			head, _, _ := strings.Cut(string(b), "\n")
			if fs := strings.Fields(head); strings.HasPrefix(head, "%!PS-AdobeFont") && len(fs) > 0 {
				want = fs[len(fs)-1]
			}
		}
		if f[0] != "Nimbus Mono PS" || f[1] != facts["Style"] || f[1] != "Bold Italic" || facts["Version"] != want {
			return fmt.Errorf("read %q; fontconfig reads that file as %q (version %s)", facts, out, want)
		}
		return nil
	})
}

// textBeside is the named text right of the label named label on its row, of the page shown:
// a text of the same row that a stack hid (offscreen) is not the label's.
func textBeside(root node, label string) (node, error) {
	var lab *node
	var texts []node
	root.walk(func(n node) {
		if n.Role != "Text" || n.Name == "" || slices.Contains(n.States, "offscreen") {
			return
		}
		if n.Name == label && lab == nil {
			lab = &n
		} else {
			texts = append(texts, n)
		}
	})
	if lab == nil {
		return node{}, fmt.Errorf("no label %q shown", label)
	}
	for _, e := range texts {
		if e.Y <= lab.Y+lab.Height/2 && lab.Y+lab.Height/2 <= e.Y+e.Height && e.X > lab.X+lab.Width/2 {
			return e, nil
		}
	}
	return node{}, fmt.Errorf("no text beside the label %q", label)
}

// LXImage-Qt (Qt 5): open a picture, rotate it through the picture's context menu (a right
// click on it once the title gives the picture's size, i.e. it is loaded; Qt lists the menu's
// items in no tree, find_ui_element reads them from the screen), and save it under another name through the toolbar's Save As button and Qt's
// file dialog. The picture on disk, its sides swapped, is the check.
func lximageTask(t *testing.T, c *client, work string) {
	testenv.Require(t, "lximage-qt", "convert")
	src, want := filepath.Join(work, "banner.png"), filepath.Join(work, "banner-tall.png")
	if out, err := exec.Command("convert", "-size", "160x60", "xc:orange", src).CombinedOutput(); err != nil {
		t.Fatalf("convert: %v: %s", err, out)
	}
	measure(t, "LXImage-Qt: a context menu on the picture, Save As through Qt's file dialog (file on disk)", "w365", c, func() error {
		if _, _, err := c.call("launch_application", map[string]any{"path": "lximage-qt", "args": []string{src}}); err != nil {
			return err
		}
		// The title gives the picture's size once it is loaded.
		title, err := activeWindow(c, "banner.png (160x60)")
		if err != nil {
			return err
		}
		// The picture is the focused pane below the toolbar.
		root, err := tree(c)
		if err != nil {
			return err
		}
		var view *node
		root.walk(func(n node) {
			if n.Role == "Pane" && n.Width > 100 && n.Height > 100 && len(n.Children) == 0 {
				view = &n
			}
		})
		if view == nil {
			return fmt.Errorf("no picture pane in %q's tree", title)
		}
		if _, _, err := c.call("click", map[string]any{"x": view.X + view.Width/2, "y": view.Y + view.Height/2, "button": "Right"}); err != nil {
			return err
		}
		// Qt lists a context menu in no tree: find_ui_element reads its items from the screen.
		if err := clickFound(c, map[string]any{"role": "MenuItem", "name": "Rotate Clockwise"}); err != nil {
			return err
		}
		if _, err := window(c, "(60x160)"); err != nil {
			return err
		}
		// The dialog is the window with Save in its title that the click opened: a window of
		// another application may have Save in its title too.
		before, err := titles(c)
		if err != nil {
			return err
		}
		if err := clickFound(c, map[string]any{"role": "Button", "name": "Save As"}); err != nil {
			return err
		}
		if _, err := activeWindow(c, "Save", before...); err != nil {
			return err
		}
		// The file name field is the edit field the dialog focuses.
		_, ms, err := found(c, map[string]any{"role": "Edit"}, false)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(ms, func(m map[string]any) bool { return slices.Contains(states(m), "focused") })
		if i < 0 {
			return fmt.Errorf("the Save dialog has no focused field among %v", ms)
		}
		name := matchNode(ms[i])
		return first(
			func() error { return retype(c, name, want) },
			func() error { return clickButton(c, "Save") },
		)
	}, func() error {
		for i := 0; i < 50; i++ {
			if f, err := os.Open(want); err == nil {
				cfg, _, err := image.DecodeConfig(f)
				f.Close()
				if err == nil && cfg.Width == 60 && cfg.Height == 160 {
					return nil
				} else if err == nil {
					return fmt.Errorf("%s is %dx%d, want 60x160", want, cfg.Width, cfg.Height)
				}
			}
			time.Sleep(100 * time.Millisecond)
		}
		return fmt.Errorf("no picture saved as %s", want)
	})
}

// AbiWord (GTK 3): open a note, open Tools > Word Count… and read its counts, each shown only
// as read-only text beside its label (Words:, Characters (no spaces):, Paragraphs:), then close
// the dialog by its Close button. The counts of the file's own text are the check, and the
// dialog gone.
func abiwordTask(t *testing.T, c *client, work string) {
	testenv.Require(t, "abiword")
	note := filepath.Join(work, "minutes.txt")
	const text = "The committee met on Tuesday and approved the budget for the new library wing.\nMinutes were taken by the secretary.\n"
	if err := os.WriteFile(note, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	read := map[string]string{}
	labels := []string{"Words:", "Characters (no spaces):", "Paragraphs:"}
	var dialog string
	measure(t, "AbiWord: a menu item, a dialog's counts read beside their labels (the file's counts)", "w365", c, func() error {
		if _, _, err := c.call("launch_application", map[string]any{"path": "abiword", "args": []string{note}}); err != nil {
			return err
		}
		if _, err := activeWindow(c, "minutes.txt"); err != nil {
			return err
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "Tools"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Word Count..."}) },
			func() error { var err error; dialog, err = activeWindow(c, "Word Count"); return err },
		); err != nil {
			return err
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		for _, l := range labels {
			v, err := textBeside(root, l)
			if err != nil {
				return err
			}
			read[l] = v.Name
		}
		return clickButton(c, "Close")
	}, func() error {
		chars := len(strings.Join(strings.Fields(text), ""))
		want := map[string]string{labels[0]: strconv.Itoa(len(strings.Fields(text))), labels[1]: strconv.Itoa(chars), labels[2]: "2"}
		for l, v := range want {
			if read[l] != v {
				return fmt.Errorf("read %q, the file's counts are %q", read, want)
			}
		}
		for i := 0; i < 30; i++ {
			_, st, err := c.call("list_windows", nil)
			if err != nil {
				return err
			}
			ws, _ := st["windows"].([]any)
			if !slices.ContainsFunc(ws, func(w any) bool { return w.(map[string]any)["title"] == dialog }) {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		return fmt.Errorf("the window %q is still open after Close", dialog)
	})
}

func heldOut4(t *testing.T, h *e2e.Harness, c *client, work string) {
	for _, task := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"qalculate", func(t *testing.T) { qalculateTask(t, h, c, work) }},
		{"xpdf", func(t *testing.T) { xpdfTask(t, h, c, work) }},
		{"gnome-font-viewer", func(t *testing.T) { fontViewerTask(t, h, c) }},
		{"lximage-qt", func(t *testing.T) { lximageTask(t, c, work) }},
		{"abiword", func(t *testing.T) { abiwordTask(t, c, work) }},
	} {
		t.Run(task.name, task.run)
	}
}
