//go:build linux

package wine

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWineInput checks what SendInput delivers to a window of our own (testdata/
// inputprobe.c logs every mouse and key message it gets): the five buttons, a double
// click, wheel notches of 120 both ways, a drag, key chords, and the refusal of an
// unknown key before anything is sent.
func TestWineInput(t *testing.T) {
	x := New(t, screenW, screenH)
	exe := filepath.Join(x.dir, "inputprobe.exe")
	x.BuildC("inputprobe.c", exe, "-mwindows")
	x.Start(exe, "probe.log")
	w := waitWindow(t, x, "w365 input probe")
	x.MustRun("activate-window", "w365 input probe")
	cx, cy := w.X+w.Width/2, w.Y+w.Height/2
	log := &probeLog{path: filepath.Join(x.dir, "probe.log")}
	at := func(px, py int) string { return strconv.Itoa(px) + " " + strconv.Itoa(py) }
	here := at(cx, cy)

	t.Run("Buttons", func(t *testing.T) {
		for _, c := range []struct{ button, down, up string }{
			{"Left", "down-left " + here + " 0", "up-left " + here + " 0"},
			{"Right", "down-right " + here + " 0", "up-right " + here + " 0"},
			{"Middle", "down-middle " + here + " 0", "up-middle " + here + " 0"},
			{"Backward", "down-x " + here + " 1", "up-x " + here + " 1"}, // XBUTTON1
			{"Forward", "down-x " + here + " 2", "up-x " + here + " 2"},  // XBUTTON2
		} {
			out := x.MustRun("click", strconv.Itoa(cx), strconv.Itoa(cy), "--button", c.button)
			log.expect(t, "click "+c.button, c.down, c.up)
			// The click names the window it landed in, as on X11.
			if !strings.Contains(out, `in "w365 input probe"`) {
				t.Errorf("click %s: %q names no window it landed in", c.button, out)
			}
		}
		x.MustRun("click", strconv.Itoa(cx), strconv.Itoa(cy), "--click-count", "2")
		log.expect(t, "double click", "down-left "+here+" 0", "up-left "+here+" 0", "dblclk-left "+here+" 0", "up-left "+here+" 0")
	})

	t.Run("Wheel", func(t *testing.T) {
		x.MustRun("scroll", strconv.Itoa(cx), strconv.Itoa(cy), "--delta-y", "3")
		log.expect(t, "three notches down", "wheel "+here+" -120", "wheel "+here+" -120", "wheel "+here+" -120")
		x.MustRun("scroll", strconv.Itoa(cx), strconv.Itoa(cy), "--delta-y", "-1")
		log.expect(t, "a notch up", "wheel "+here+" 120")
		// Wine 8 gives WM_MOUSEHWHEEL client coordinates (Windows: screen ones, as for
		// WM_MOUSEWHEEL above), so only the notches are compared.
		x.MustRun("scroll", strconv.Itoa(cx), strconv.Itoa(cy), "--delta-x", "2")
		got := log.next(t, func(l []string) bool { return len(l) >= 2 })
		for i, l := range got {
			if f := strings.Fields(l); len(got) != 2 || f[0] != "hwheel" || f[3] != "120" {
				t.Fatalf("two notches right: the probe got %q (line %d), want two hwheel messages of 120", got, i)
			}
		}
	})

	t.Run("Drag", func(t *testing.T) {
		x.MustRun("drag-mouse", "--start-x", strconv.Itoa(cx-100), "--start-y", strconv.Itoa(cy), "--end-x", strconv.Itoa(cx+100), "--end-y", strconv.Itoa(cy+50))
		got := log.next(t, func(l []string) bool { return len(l) > 0 && strings.HasPrefix(l[len(l)-1], "up-left") })
		if got[0] != "down-left "+at(cx-100, cy)+" 0" || got[len(got)-1] != "up-left "+at(cx+100, cy+50)+" 0" {
			t.Fatalf("drag: %q, want down at the start and up at the end", got)
		}
		moves := slices.DeleteFunc(slices.Clone(got[1:len(got)-1]), func(s string) bool { return !strings.HasPrefix(s, "move-left") })
		if len(moves) == 0 || moves[len(moves)-1] != "move-left "+at(cx+100, cy+50)+" 0" {
			t.Fatalf("drag: moves with the button held %q, want them to reach the end point", moves)
		}
	})

	t.Run("Keys", func(t *testing.T) {
		r := x.Run("press-keys", "ctrl", "nosuchkey")
		if r.Code == 0 || !strings.Contains(r.Stderr, "INVALID_ARGUMENT") {
			t.Fatalf("press_keys ctrl nosuchkey: exit %d, %s; want INVALID_ARGUMENT", r.Code, r.Stderr)
		}
		// VK_CONTROL 17 (scan 29), VK_SHIFT 16 (scan 42), VK_F5 116 (scan 63), in order,
		// and nothing of the refused chord before them.
		x.MustRun("press-keys", "ctrl", "shift", "f5")
		log.expect(t, "ctrl+shift+f5", "key 17 29", "key 16 42", "key 116 63")
	})
}

// probeLog reads the probe's log from where the last read stopped.
type probeLog struct {
	path string
	seen int
}

// next waits until done says the new lines are complete and returns them.
func (p *probeLog) next(t *testing.T, done func([]string) bool) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(p.path)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) == 1 && lines[0] == "" {
			lines = nil
		}
		got := lines[min(p.seen, len(lines)):]
		if done(got) {
			p.seen = len(lines)
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("the probe logged %q since the last step", got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// expect waits for exactly the lines want (and fails on anything else).
func (p *probeLog) expect(t *testing.T, what string, want ...string) {
	t.Helper()
	got := p.next(t, func(l []string) bool { return len(l) >= len(want) })
	time.Sleep(200 * time.Millisecond) // nothing more may follow
	got = append(got, p.next(t, func([]string) bool { return true })...)
	if !slices.Equal(got, want) {
		t.Fatalf("%s: the probe got %q, want %q", what, got, want)
	}
}
