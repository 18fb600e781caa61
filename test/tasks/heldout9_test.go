//go:build linux

package tasks_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// The tasks of this file drive applications no round before them had met (a ninth held-out
// round: xfce4-terminal, whose VTE terminal holds what a command printed in its Text
// interface only; TEA, a Qt 5 editor whose text functions sit two submenus deep; IDLE, Python's
// Tk editor, which exposes no accessibility at all and is read from the screen), under the
// same rule: the agent takes every coordinate, title and name from what a tool returned.

// linesOf is the count `wc -l NAME` printed, as the terminal's text holds it.
var linesOf = regexp.MustCompile(`(?m)^\s*(\d+) guests\.txt\s*$`)

// xfce4-terminal (GTK 3, VTE): count a file's lines with wc, read the count from the
// terminal's text (the tree's value of its terminal), and write it into a file by a second
// command. The file on disk is the check.
func xfceTerminalTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "xfce4-terminal")
	dir := filepath.Join(work, "terminal")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "guests.txt"), []byte("ann\nbob\ncid\ndan\neve\nfay\ngus\n"), 0o644)
	answer := filepath.Join(dir, "count.txt")
	programEnv(t, h, []string{"HOME=" + dir}, "/usr/bin/xfce4-terminal", "--disable-server", "--working-directory="+dir)
	measure(t, "xfce4-terminal (GTK 3, VTE): a command's output read from the terminal's text, typed into the next command (file on disk)", "w365", c, func() error {
		if _, err := activeWindow(c, "Terminal"); err != nil {
			return err
		}
		if err := typed(c, "wc -l guests.txt\n"); err != nil {
			return err
		}
		var count string
		for try := 0; count == ""; try++ {
			_, ms, err := found(c, map[string]any{"text": "guests.txt"}, false)
			if err != nil {
				return err
			}
			for _, m := range ms {
				if g := linesOf.FindStringSubmatch(fmt.Sprint(m["value"])); g != nil {
					count = g[1]
				}
			}
			if count == "" && try == 20 {
				return fmt.Errorf("no line count in what the terminal shows: %v", ms)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 250})
		}
		return typed(c, "echo "+count+" > count.txt\n")
	}, func() error {
		return fileHoldsAll(answer, "7\n")
	})
}

// TEA (Qt 5): upper-case a file's text through Functions > Case > UPCASE (two submenus deep),
// with the text selected by ctrl+a, and save it with ctrl+s. The file on disk is the check.
func teaTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "tea")
	dir := filepath.Join(work, "tea")
	os.MkdirAll(dir, 0o755)
	notes := filepath.Join(dir, "shout.txt")
	os.WriteFile(notes, []byte("quiet please\n"), 0o644)
	// TEA runs once per user: a second one hands its file to the first, found by a socket
	// in the temporary directory, and exits. Its own keeps it from any other test's TEA.
	programEnv(t, h, []string{"HOME=" + dir, "TMPDIR=" + dir, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"}, "/usr/bin/tea", notes)
	measure(t, "TEA (Qt 5): a text function two submenus deep on the selected text, saved (file on disk)", "w365", c, func() error {
		if _, err := activeWindow(c, "shout.txt"); err != nil {
			ts, _ := titles(c)
			return fmt.Errorf("%v; windows %q", err, ts)
		}
		editor, err := firstFound(c, map[string]any{"role": "Edit", "text": "quiet please"})
		if err != nil {
			return err
		}
		return first(
			func() error { return clickAt(c, editor) },
			func() error { return key(c, "ctrl", "a") },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Functions"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Case"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "UPCASE"}) },
			func() error {
				_, err := firstFound(c, map[string]any{"role": "Edit", "text": "QUIET PLEASE"})
				return err
			},
			func() error { return key(c, "ctrl", "s") },
		)
	}, func() error {
		// TEA writes the file after ctrl+s has been pressed: the check waits for it.
		return fileMatches(notes, regexp.MustCompile("QUIET PLEASE"))
	})
}

// IDLE (Tk, no accessibility): run the module its editor shows through the Run menu (Run >
// Run Module, both read from the screen), and read what it printed in IDLE's shell. The file
// the module writes, and the total the agent read, are the checks.
func idleTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "idle-python3.11")
	dir := filepath.Join(work, "idle")
	os.MkdirAll(dir, 0o755)
	script := filepath.Join(dir, "tally.py")
	out := filepath.Join(dir, "tally.out")
	os.WriteFile(script, []byte("total = sum([17, 25, 40])\nprint('total', total)\nopen("+fmt.Sprintf("%q", out)+", 'w').write(str(total))\n"), 0o644)
	programEnv(t, h, []string{"HOME=" + dir}, "/usr/bin/idle-python3.11", script)
	var read string
	measure(t, "IDLE (Tk, read from the screen): a module run through its menu, what it printed read in the shell (file on disk)", "w365", c, func() error {
		if err := first(
			func() error { return clickWord(c, "tally.py", "Run", 1) },
			func() error { return clickScreenWord(c, "Module") },
		); err != nil {
			return err
		}
		for try := 0; ; try++ {
			_, ws, err := readWindow(c, "IDLE Shell")
			if err != nil {
				return err
			}
			if w, err := wordAt(ws, "total"); err == nil {
				for _, n := range ws {
					if n.x > w.x && n.cy > w.y && n.cy < w.y+w.h && strings.Trim(n.text, " ") != "" && n.text != "total" {
						read = n.text
						return nil
					}
				}
			}
			if try == 20 {
				return fmt.Errorf("the shell shows no total: %v", ws)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 300})
		}
	}, func() error {
		if read != "82" {
			return fmt.Errorf("the agent read the total %q, want 82", read)
		}
		return fileHoldsAll(out, "82")
	})
}

// clickScreenWord clicks the word text where the whole screen shows it: a Tk menu is a
// window of its own, outside its application's window.
func clickScreenWord(c *client, text string) error {
	_, st, err := c.call("get_screen_size", nil)
	if err != nil {
		return err
	}
	i := func(k string) int { f, _ := st[k].(float64); return int(f) }
	for try := 0; ; try++ {
		_, ws, err := ocr(c, 0, 0, i("width"), i("height"))
		if err != nil {
			return err
		}
		if w, err := wordAt(ws, text); err == nil {
			_, _, err := c.call("click", map[string]any{"x": w.cx, "y": w.cy})
			return err
		} else if try == 10 {
			return err
		}
		c.call("wait_milliseconds", map[string]any{"ms": 300})
	}
}

func heldOut9(t *testing.T, h *e2e.Harness, c *client, work string) {
	for _, task := range []struct {
		name string
		run  func(t *testing.T)
	}{
		{"xfce4-terminal", func(t *testing.T) { xfceTerminalTask(t, h, c, work) }},
		{"tea", func(t *testing.T) { teaTask(t, h, c, work) }},
		{"idle", func(t *testing.T) { idleTask(t, h, c, work) }},
	} {
		t.Run(task.name, task.run)
	}
}
