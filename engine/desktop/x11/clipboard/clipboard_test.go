//go:build linux

package clipboard

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop/x11/display"
	"github.com/w365/w365/engine/desktop/x11/window"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

const unicodeText = "Grüße aus Köln – 東京タワー 🎉 naïve café\nzweite Zeile\ttab"

func open(t *testing.T, d *display.Desktop) *Clipboard {
	t.Helper()
	c, err := Open(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// xclipOut reads the clipboard with xclip, another X client in another process.
func xclipOut(t *testing.T, d *display.Desktop, target string) []byte {
	t.Helper()
	args := []string{"-selection", "clipboard", "-o"}
	if target != "" {
		args = append(args, "-t", target)
	}
	cmd := d.Command("xclip", args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xclip -o %s: %v: %s", target, err, stderr.String())
	}
	return out
}

// xclipIn makes xclip (which forks and keeps serving) own the clipboard with data.
func xclipIn(t *testing.T, d *display.Desktop, target string, data []byte) {
	t.Helper()
	f := filepath.Join(t.TempDir(), "in")
	if err := os.WriteFile(f, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// No pipes: xclip forks a child that keeps serving, and it would hold them open.
	cmd := d.Command("xclip", "-selection", "clipboard", "-t", target, "-i", f)
	if err := cmd.Run(); err != nil {
		t.Fatalf("xclip -i: %v", err)
	}
}

// readUntil reads until the clipboard holds format (xclip takes the selection after forking).
func readUntil(t *testing.T, c *Clipboard, format string) ReadResult {
	t.Helper()
	var r ReadResult
	var err error
	for i := 0; i < 100; i++ {
		r, err = c.Read(context.Background())
		if err == nil && r.Format == format {
			return r
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("clipboard never held %s: %+v, %v", format, r, err)
	return r
}

func TestTextRoundTrip(t *testing.T) {
	testenv.Require(t, "xclip")
	d := x11test.Start(t)
	c := open(t, d)
	ctx := context.Background()

	r, err := c.Read(ctx)
	if err != nil || r.Format != "empty" {
		t.Fatalf("fresh display: %+v, %v", r, err)
	}

	n, err := c.Write(ctx, unicodeText)
	if err != nil {
		t.Fatal(err)
	}
	if n != utf8.RuneCountInString(unicodeText) || n != 52 {
		t.Fatalf("Write returned %d characters", n)
	}
	r, err = c.Read(ctx)
	if err != nil || r.Format != "text" || r.Text != unicodeText || r.MIMEType != "text/plain;charset=utf-8" {
		t.Fatalf("Read after Write: %+v, %v", r, err)
	}
	// Another X client in another process reads it while this Clipboard (the host) lives.
	if got := string(xclipOut(t, d, "")); got != unicodeText {
		t.Fatalf("xclip -o = %q", got)
	}
	if got := string(xclipOut(t, d, "UTF8_STRING")); got != unicodeText {
		t.Fatalf("xclip -o -t UTF8_STRING = %q", got)
	}
	if got := string(xclipOut(t, d, "STRING")); got != string(latin1([]byte(unicodeText))) {
		t.Fatalf("xclip -o -t STRING = %q", got)
	}
	targets := string(xclipOut(t, d, "TARGETS"))
	for _, want := range []string{"TARGETS", "UTF8_STRING", "STRING", "text/plain;charset=utf-8"} {
		if !strings.Contains(targets, want) {
			t.Errorf("TARGETS %q lacks %s", targets, want)
		}
	}

	// Empty text is a valid clipboard content.
	if n, err := c.Write(ctx, ""); err != nil || n != 0 {
		t.Fatalf("Write(\"\") = %d, %v", n, err)
	}
	if _, err := c.Write(ctx, "bad \xff utf8"); werr.CodeOf(err) != werr.InvalidArgument {
		t.Fatalf("invalid UTF-8: %v", err)
	}

	// Another application takes the clipboard: the new text is read back, Unicode intact.
	other := "von xclip: 日本語 ✓"
	xclipIn(t, d, "UTF8_STRING", []byte(other))
	r = readUntil(t, c, "text")
	for i := 0; i < 100 && r.Text != other; i++ {
		time.Sleep(50 * time.Millisecond)
		r, _ = c.Read(ctx)
	}
	if r.Text != other {
		t.Fatalf("Read after xclip = %+v", r)
	}
	c.ownMu.Lock()
	owned := c.owned
	c.ownMu.Unlock()
	if owned {
		t.Error("SelectionClear was not noticed")
	}
	// And we take it back.
	if _, err := c.Write(ctx, "back"); err != nil {
		t.Fatal(err)
	}
	if got := string(xclipOut(t, d, "")); got != "back" {
		t.Fatalf("after taking it back: %q", got)
	}
}

func TestLargeTextIncremental(t *testing.T) {
	testenv.Require(t, "xclip")
	d := x11test.Start(t)
	c := open(t, d)
	ctx := context.Background()
	var b strings.Builder
	for b.Len() < 3<<20 {
		b.WriteString("Zeile mit Ümlauten und 漢字 ")
	}
	text := b.String()
	if len(text) <= c.maxChunk {
		t.Fatal("text too small to need INCR")
	}
	n, err := c.Write(ctx, text)
	if err != nil || n != utf8.RuneCountInString(text) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if got := xclipOut(t, d, ""); string(got) != text {
		t.Fatalf("xclip read %d bytes, want %d", len(got), len(text))
	}
	// Our own reader handles INCR too (served by ourselves).
	r, err := c.Read(ctx)
	if err != nil || r.Text != text {
		t.Fatalf("Read: %d bytes, %v", len(r.Text), err)
	}
	if c.incrOut.Load() != 2 || c.incrIn.Load() != 1 {
		t.Fatalf("INCR transfers: %d out, %d in; want 2 and 1", c.incrOut.Load(), c.incrIn.Load())
	}
}

func testPNG(t *testing.T, w, h int, noise bool) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	rng := rand.New(rand.NewSource(1))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if noise {
				img.Set(x, y, color.RGBA{uint8(rng.Intn(256)), uint8(rng.Intn(256)), uint8(rng.Intn(256)), 255})
			} else {
				img.Set(x, y, color.RGBA{uint8(x * 4), uint8(y * 4), 128, 255})
			}
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestImageRead(t *testing.T) {
	testenv.Require(t, "xclip")
	d := x11test.Start(t)
	c := open(t, d)

	small := testPNG(t, 64, 48, false)
	xclipIn(t, d, "image/png", small)
	r := readUntil(t, c, "image")
	if r.MIMEType != "image/png" || r.Text != "" {
		t.Fatalf("%+v", r)
	}
	got, err := base64.StdEncoding.DecodeString(r.ImageBase64)
	if err != nil || !bytes.Equal(got, small) {
		t.Fatalf("image differs: %d bytes, %v", len(got), err)
	}

	// A large image arrives incrementally (xclip uses INCR above its chunk size).
	large := testPNG(t, 1200, 1000, true)
	xclipIn(t, d, "image/png", large)
	for i := 0; i < 100; i++ {
		r = readUntil(t, c, "image")
		if got, _ = base64.StdEncoding.DecodeString(r.ImageBase64); len(got) == len(large) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !bytes.Equal(got, large) {
		t.Fatalf("large image: %d bytes, want %d", len(got), len(large))
	}
	if c.incrIn.Load() == 0 {
		t.Fatalf("the %d-byte image did not come incrementally", len(large))
	}

	// JPEG only: converted to PNG.
	var jb bytes.Buffer
	src, _ := png.Decode(bytes.NewReader(small))
	if err := jpeg.Encode(&jb, src, nil); err != nil {
		t.Fatal(err)
	}
	xclipIn(t, d, "image/jpeg", jb.Bytes())
	var img image.Image
	for i := 0; i < 100; i++ {
		r = readUntil(t, c, "image")
		got, _ = base64.StdEncoding.DecodeString(r.ImageBase64)
		if !bytes.HasPrefix(got, pngMagic) {
			t.Fatalf("clipboard image is not PNG: % x", got[:min(8, len(got))])
		}
		if img, err = png.Decode(bytes.NewReader(got)); err == nil && img.Bounds().Dx() == 64 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if img == nil || img.Bounds().Dx() != 64 || img.Bounds().Dy() != 48 {
		t.Fatalf("JPEG clipboard did not come back as a 64x48 PNG: %v", err)
	}

	// Content in no usable format.
	xclipIn(t, d, "application/x-w365-private", []byte("opaque"))
	for i := 0; i < 100; i++ {
		_, err = c.Read(context.Background())
		if werr.CodeOf(err) == werr.Unsupported {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if werr.CodeOf(err) != werr.Unsupported {
		t.Fatalf("private format: %v", err)
	}
}

func TestPasteIntoGTKEntry(t *testing.T) {
	testenv.Require(t, "/usr/bin/python3", "xdotool")
	d := x11test.Start(t)
	c := open(t, d)
	ctx := context.Background()

	script := filepath.Join(testenv.Root(), "testdata", "apps", "win_app.py")
	cmd := d.Command("/usr/bin/python3", script, "--title", "Paste Target", "--entry")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
	events := make(chan map[string]any, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				events <- ev
			}
		}
		close(events)
	}()
	waitEvent := func(pred func(map[string]any) bool) map[string]any {
		t.Helper()
		deadline := time.After(15 * time.Second)
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatal("app exited")
				}
				if pred(ev) {
					return ev
				}
			case <-deadline:
				t.Fatal("timed out waiting for the app")
			}
		}
	}
	waitEvent(func(ev map[string]any) bool { return ev["event"] == "ready" })

	if _, err := c.Write(ctx, unicodeText); err != nil {
		t.Fatal(err)
	}
	m, err := window.Open(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Disconnect()
	if _, err := m.Activate(ctx, "Paste Target"); err != nil {
		t.Fatal(err)
	}
	if out, err := d.Command("xdotool", "key", "--clearmodifiers", "ctrl+v").CombinedOutput(); err != nil {
		t.Fatalf("xdotool: %v %s", err, out)
	}
	// GTK's entry keeps a single line: newlines and tabs become spaces or are cut, so
	// compare the first line, which carries all the non-ASCII characters.
	first := strings.SplitN(unicodeText, "\n", 2)[0]
	ev := waitEvent(func(ev map[string]any) bool {
		s, _ := ev["text"].(string)
		return ev["event"] == "text" && strings.HasPrefix(s, first)
	})
	t.Logf("pasted: %q", ev["text"])
}

// Each session's display has its own clipboard.
func TestTwoDisplays(t *testing.T) {
	testenv.Require(t, "xclip")
	d1, d2 := x11test.Start(t), x11test.Start(t)
	c1, c2 := open(t, d1), open(t, d2)
	ctx := context.Background()
	if _, err := c1.Write(ctx, "eins"); err != nil {
		t.Fatal(err)
	}
	if _, err := c2.Write(ctx, "zwei"); err != nil {
		t.Fatal(err)
	}
	if a, b := string(xclipOut(t, d1, "")), string(xclipOut(t, d2, "")); a != "eins" || b != "zwei" {
		t.Fatalf("display one holds %q, display two %q", a, b)
	}
	r1, err1 := c1.Read(ctx)
	r2, err2 := c2.Read(ctx)
	if err1 != nil || err2 != nil || r1.Text != "eins" || r2.Text != "zwei" {
		t.Fatalf("%+v %v / %+v %v", r1, err1, r2, err2)
	}
}

// MULTIPLE (ICCCM 2.6.2), asked by a raw X client: supported pairs are converted, the
// unsupported one comes back as None.
func TestMultiple(t *testing.T) {
	d := x11test.Start(t)
	c := open(t, d)
	ctx := context.Background()
	if _, err := c.Write(ctx, "Grüße"); err != nil {
		t.Fatal(err)
	}
	conn, win, atom := otherClient(t, d)
	pairs := []xproto.Atom{atom("UTF8_STRING"), atom("P1"), atom("STRING"), atom("P2"), atom("image/png"), atom("P3")}
	buf := make([]byte, 4*len(pairs))
	for i, a := range pairs {
		xgb.Put32(buf[i*4:], uint32(a))
	}
	xproto.ChangeProperty(conn, xproto.PropModeReplace, win, atom("REQ"), atom("ATOM_PAIR"), 32, uint32(len(pairs)), buf)
	xproto.ConvertSelection(conn, win, atom("CLIPBOARD"), atom("MULTIPLE"), atom("REQ"), xproto.TimeCurrentTime)
	evc := make(chan xgb.Event, 1)
	go func() {
		for {
			ev, _ := conn.WaitForEvent()
			if ev == nil {
				return
			}
			if _, ok := ev.(xproto.SelectionNotifyEvent); ok {
				evc <- ev
				return
			}
		}
	}()
	select {
	case ev := <-evc:
		if ev.(xproto.SelectionNotifyEvent).Property != atom("REQ") {
			t.Fatalf("MULTIPLE refused: %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no SelectionNotify")
	}
	get := func(p xproto.Atom) []byte {
		r, err := xproto.GetProperty(conn, false, win, p, xproto.GetPropertyTypeAny, 0, 1024).Reply()
		if err != nil {
			t.Fatal(err)
		}
		return r.Value
	}
	if got := string(get(atom("P1"))); got != "Grüße" {
		t.Errorf("UTF8_STRING via MULTIPLE: %q", got)
	}
	if got := get(atom("P2")); string(got) != "Gr\xfc\xdfe" {
		t.Errorf("STRING via MULTIPLE: %q", got)
	}
	back := get(atom("REQ"))
	if len(back) != 24 || xproto.Atom(xgb.Get32(back[20:])) != xproto.AtomNone || xproto.Atom(xgb.Get32(back[4:])) != atom("P1") {
		t.Errorf("pairs written back: % x", back)
	}
}

// An owner that announces an incremental transfer of almost 8 MiB and then hands over one
// byte at a time, each chunk well within chunkTimeout, held Read (and every later call of
// the session, queued behind it) for as long as it liked: 8 MiB at one byte every 50 ms is
// 116 hours. With the code before, Read ran until this test's own deadline (30 s); now it
// ends with TIMEOUT once readTimeout has passed, whatever the owner does.
func TestReadEndsAnOwnerThatDrips(t *testing.T) {
	d := x11test.Start(t)
	c := open(t, d)
	defer func(r time.Duration) { readTimeout = r }(readTimeout)
	readTimeout = time.Second
	conn, win, atom := otherClient(t, d)
	clip, targets, utf8s, incr, atomT := atom("CLIPBOARD"), atom("TARGETS"), atom("UTF8_STRING"), atom("INCR"), atom("ATOM")
	if err := xproto.SetSelectionOwnerChecked(conn, win, clip, xproto.TimeCurrentTime).Check(); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		var req xproto.Window
		var prop xproto.Atom
		for {
			ev, _ := conn.WaitForEvent()
			if ev == nil {
				return
			}
			switch e := ev.(type) {
			case xproto.SelectionRequestEvent:
				switch e.Target {
				case targets:
					buf := make([]byte, 4)
					xgb.Put32(buf, uint32(utf8s))
					xproto.ChangeProperty(conn, xproto.PropModeReplace, e.Requestor, e.Property, atomT, 32, 1, buf)
				case utf8s:
					req, prop = e.Requestor, e.Property
					xproto.ChangeWindowAttributes(conn, req, xproto.CwEventMask, []uint32{xproto.EventMaskPropertyChange})
					buf := make([]byte, 4)
					xgb.Put32(buf, uint32(maxContent-1))
					xproto.ChangeProperty(conn, xproto.PropModeReplace, req, prop, incr, 32, 1, buf)
				}
				n := xproto.SelectionNotifyEvent{Time: e.Time, Requestor: e.Requestor, Selection: e.Selection, Target: e.Target, Property: e.Property}
				xproto.SendEvent(conn, false, e.Requestor, xproto.EventMaskNoEvent, string(n.Bytes()))
			case xproto.PropertyNotifyEvent:
				if e.Window == req && e.Atom == prop && e.State == xproto.PropertyDelete {
					select {
					case <-stop:
						return
					case <-time.After(50 * time.Millisecond):
					}
					xproto.ChangeProperty(conn, xproto.PropModeReplace, req, prop, utf8s, 8, 1, []byte("x"))
				}
			}
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := c.Read(ctx)
	if werr.CodeOf(err) != werr.Timeout || ctx.Err() != nil {
		t.Fatalf("Read of a dripping owner: %+v, %v (the test's own deadline: %v), want TIMEOUT from Read itself", r, err, ctx.Err())
	}
	if c.incrIn.Load() != 1 {
		t.Fatalf("%d incremental transfers read, want the dripping one", c.incrIn.Load())
	}
	t.Log(err)
}

// otherClient connects another X client to d, closed when the test ends, with an input-only
// window of its own; atom interns a name on that connection.
func otherClient(t *testing.T, d *display.Desktop) (conn *xgb.Conn, win xproto.Window, atom func(string) xproto.Atom) {
	t.Helper()
	conn, err := xconn.Connect(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	atom = func(n string) xproto.Atom {
		r, err := xproto.InternAtom(conn, false, uint16(len(n)), n).Reply()
		if err != nil {
			t.Fatal(err)
		}
		return r.Atom
	}
	root := xproto.Setup(conn).DefaultScreen(conn).Root
	win, _ = xproto.NewWindowId(conn)
	if err := xproto.CreateWindowChecked(conn, 0, win, root, 0, 0, 1, 1, 0, xproto.WindowClassInputOnly, 0, 0, nil).Check(); err != nil {
		t.Fatal(err)
	}
	return conn, win, atom
}
