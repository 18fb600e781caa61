//go:build linux

package input_test

import (
	"context"
	"testing"

	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/test/testenv"
)

// The benchmarks run against a real probe window, so the X server delivers every
// event to a GTK client as it would in use. The *Xdotool variants run the same
// action through the xdotool command for comparison (process start included, as a
// caller of xdotool would pay it).

const text100 = "The quick brown fox jumps over the lazy dog; 0123456789 ÄÖÜ äöü ß é 東京 ✓ — pack my box with 5 jugs!!"

// benchSetup starts a desktop with a probe, puts the cursor on its Pad and returns
// a function running a program on that desktop.
func benchSetup(b *testing.B) (run func(name string, args ...string)) {
	d := x11test.Start(b)
	c := newController(b, d, nil)
	p := x11test.StartProbe(b, d)
	x, y := p.Ready.Widgets["Pad"].Center()
	if err := c.Move(context.Background(), x, y); err != nil {
		b.Fatal(err)
	}
	return func(name string, args ...string) {
		if out, err := d.Command(name, args...).CombinedOutput(); err != nil {
			b.Fatalf("%s %v: %v %s", name, args, err, out)
		}
	}
}

func BenchmarkClick(b *testing.B) { benchClick(b, 0) }

// BenchmarkClickMoving clicks two points in turn: each click moves first, and waits for the
// focused application to read the move (caughtUp).
func BenchmarkClickMoving(b *testing.B) { benchClick(b, 10) }

// benchClick clicks the probe's pad, step pixels right of its centre every other click.
func benchClick(b *testing.B, step int) {
	d := x11test.Start(b)
	c := newController(b, d, nil)
	p := x11test.StartProbe(b, d)
	x, y := p.Ready.Widgets["Pad"].Center()
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		cx := x + i%2*step
		if _, err := c.Click(ctx, &cx, &y, "left", 1); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkClickXdotool(b *testing.B) {
	testenv.Require(b, "xdotool")
	run := benchSetup(b)
	for b.Loop() {
		run("xdotool", "click", "1")
	}
}

// BenchmarkClickXdotoolNoDelay is xdotool without its default 100 ms delay after
// a click: the process start and X round trips alone.
func BenchmarkClickXdotoolNoDelay(b *testing.B) {
	testenv.Require(b, "xdotool")
	run := benchSetup(b)
	for b.Loop() {
		run("xdotool", "click", "--delay", "0", "1")
	}
}

func BenchmarkPressKeys(b *testing.B) {
	d := x11test.Start(b)
	c := newController(b, d, nil)
	x11test.StartProbe(b, d)
	ctx := context.Background()
	for b.Loop() {
		if err := c.PressKeys(ctx, []string{"ctrl", "shift", "s"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPressKeysXdotool(b *testing.B) {
	testenv.Require(b, "xdotool")
	run := benchSetup(b)
	for b.Loop() {
		run("xdotool", "key", "ctrl+shift+s")
	}
}

// BenchmarkPressKeysXdotoolNoDelay is xdotool key without its default 12 ms
// delay between keys.
func BenchmarkPressKeysXdotoolNoDelay(b *testing.B) {
	testenv.Require(b, "xdotool")
	run := benchSetup(b)
	for b.Loop() {
		run("xdotool", "key", "--delay", "0", "ctrl+shift+s")
	}
}

func BenchmarkType100(b *testing.B) {
	if n := len([]rune(text100)); n != 100 {
		b.Fatalf("text has %d characters", n)
	}
	d := x11test.Start(b)
	c := newController(b, d, nil)
	p := x11test.StartProbe(b, d)
	x, y := p.Ready.Widgets["Pad"].Center() // typing into the Pad: events only, no text buffer growing
	ctx := context.Background()
	if err := c.Move(ctx, x, y); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := c.TypeText(ctx, text100); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkType100Xdotool(b *testing.B) {
	testenv.Require(b, "xdotool")
	run := benchSetup(b)
	for b.Loop() {
		// --delay 0: xdotool's default is 12 ms between keys.
		run("xdotool", "type", "--delay", "0", text100)
	}
}
