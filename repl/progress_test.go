package repl

import (
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/commands/host"
)

// TestStatusShowsElapsedTimeAndTheQueue: while a line runs, the status line counts its
// seconds and says when the host reports the call waiting behind another one.
func TestStatusShowsElapsedTimeAndTheQueue(t *testing.T) {
	m, _ := newTestModel(t)
	typeLine(m, "get-screen-size") // starts the line; its command is not run here
	m.startedAt = time.Now().Add(-3 * time.Second)
	if s := m.status(); !strings.Contains(s, "running get-screen-size 3s") || strings.Contains(s, "queued behind") {
		t.Fatalf("status %q", s)
	}
	m.r.progress.Store(&host.Progress{Elapsed: 3 * time.Second, Message: "get_screen_size: queued behind 1 call(s) on session default, 3 s elapsed"})
	if s := m.status(); !strings.Contains(s, "queued behind another call") {
		t.Fatalf("status %q while queued", s)
	}
}
