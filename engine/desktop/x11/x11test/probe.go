//go:build linux

// The probe: testdata/apps/probe.py, a GTK3 app that logs every input event it receives as
// JSON lines, run on a test desktop so that tests can wait for what it received.

package x11test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"image"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/w365/w365/engine/desktop/x11/display"
	"github.com/w365/w365/test/testenv"
)

// Python is Debian's interpreter with GObject bindings (the pyenv python3 on PATH
// has none).
const Python = "/usr/bin/python3"

// Rect is a screen rectangle as the probe reports it.
type Rect struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// Rectangle converts r to an image.Rectangle.
func (r Rect) Rectangle() image.Rectangle { return image.Rect(r.X, r.Y, r.X+r.Width, r.Y+r.Height) }

// Center is the middle pixel of r.
func (r Rect) Center() (x, y int) { return r.X + r.Width/2, r.Y + r.Height/2 }

// PatternRect is one rectangle of the --pattern test image.
type PatternRect struct {
	Rect
	RGB [3]uint8 `json:"rgb"`
}

// Event is one line the probe printed. Fields not in the line are zero.
type Event struct {
	Event     string   `json:"event"`
	X         int      `json:"x"`
	Y         int      `json:"y"`
	Width     int      `json:"width"`
	Height    int      `json:"height"`
	Button    int      `json:"button"`
	Clicks    int      `json:"clicks"`
	Direction string   `json:"direction"`
	Key       string   `json:"key"`
	Char      string   `json:"char"`
	Modifiers []string `json:"modifiers"`
	Widget    string   `json:"widget"`
	Text      string   `json:"text"`
	Value     float64  `json:"value"`
	Phase     string   `json:"phase"`
	// Mono is when a text change happened: CLOCK_MONOTONIC, in seconds.
	Mono    float64         `json:"mono"`
	Motions int             `json:"motions"`
	Title   string          `json:"title"`
	PID     int             `json:"pid"`
	Widgets map[string]Rect `json:"widgets"`
	Volume  *struct {
		Trough       Rect `json:"trough"`
		SliderLength int  `json:"sliderLength"`
		Min          int  `json:"min"`
		Max          int  `json:"max"`
	} `json:"volume"`
	Background [3]uint8      `json:"background"`
	Pattern    []PatternRect `json:"pattern"`
	Raw        string        `json:"-"`
}

// Probe is a running probe app.
type Probe struct {
	Ready Event // the "ready" event: window and widget geometry
	// PID is the probe's process as this process sees it (Ready.PID is the one the
	// desktop's PID namespace sees).
	PID int

	mu     sync.Mutex
	cond   *sync.Cond
	events []Event
	next   int // index of the first event not yet consumed by Until
	done   bool
	stderr strings.Builder
}

// Path returns the absolute path of testdata/apps/probe.py.
func Path() string { return filepath.Join(testenv.Root(), "testdata", "apps", "probe.py") }

// Timeout bounds every wait for an event.
var Timeout = 15 * time.Second

// Start runs the probe on d with args (e.g. "--position", "200,150", "--pattern")
// and waits for its "ready" event. It is killed at cleanup.
func StartProbe(t testing.TB, d *display.Desktop, args ...string) *Probe {
	t.Helper()
	testenv.Require(t, Python)
	if _, err := os.Stat(Path()); err != nil {
		t.Fatalf("probe app: %v", err)
	}
	cmd := d.Command(Python, append([]string{Path()}, args...)...)
	cmd.Env = append(cmd.Env, "GDK_BACKEND=x11")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &Probe{}
	p.cond = sync.NewCond(&p.mu)
	cmd.Stderr = &lockedWriter{p: p}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start probe: %v", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var e Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				continue
			}
			e.Raw = sc.Text()
			p.mu.Lock()
			p.events = append(p.events, e)
			p.cond.Broadcast()
			p.mu.Unlock()
		}
		p.mu.Lock()
		p.done = true
		p.cond.Broadcast()
		p.mu.Unlock()
	}()
	// A GTK start on a loaded machine (a full test run beside a desktop's own start) has
	// been seen to take longer than one event's wait: the start gets three.
	p.Ready = p.within(t, 3*Timeout, func(e Event) bool { return e.Event == "ready" })
	p.PID = d.ProgramPID(cmd)
	return p
}

type lockedWriter struct{ p *Probe }

func (w *lockedWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.stderr.Write(b)
}

// Until waits for the next not yet consumed event matching match and returns every
// event from the last consumed one up to and including it.
func (p *Probe) Until(t testing.TB, match func(Event) bool) []Event {
	t.Helper()
	return p.until(t, Timeout, match)
}

// within is Next with its own bound.
func (p *Probe) within(t testing.TB, d time.Duration, match func(Event) bool) Event {
	t.Helper()
	ev := p.until(t, d, match)
	return ev[len(ev)-1]
}

func (p *Probe) until(t testing.TB, d time.Duration, match func(Event) bool) []Event {
	t.Helper()
	deadline := time.Now().Add(d)
	timer := time.AfterFunc(d, func() {
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	})
	defer timer.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		for i := p.next; i < len(p.events); i++ {
			if match(p.events[i]) {
				got := append([]Event(nil), p.events[p.next:i+1]...)
				p.next = i + 1
				return got
			}
		}
		if p.done || time.Now().After(deadline) {
			var lines []string
			for _, e := range p.events[p.next:] {
				lines = append(lines, e.Raw)
			}
			t.Fatalf("probe: the expected event did not arrive (exited=%v); unconsumed events:\n%s\nstderr:\n%s",
				p.done, strings.Join(lines, "\n"), p.stderr.String())
		}
		p.cond.Wait()
	}
}

// Next is Until's last event.
func (p *Probe) Next(t testing.TB, match func(Event) bool) Event {
	t.Helper()
	return p.within(t, Timeout, match)
}

// All returns a copy of every event received so far.
func (p *Probe) All() []Event {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Event(nil), p.events...)
}

// Is returns a matcher for an event name.
func Is(name string) func(Event) bool { return func(e Event) bool { return e.Event == name } }

// String describes events for failure messages.
func String(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		fmt.Fprintln(&b, e.Raw)
	}
	return b.String()
}
