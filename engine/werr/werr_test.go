package werr

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestDoneNamesHowAContextEnded(t *testing.T) {
	if err := Done(context.Background(), "capture"); err != nil {
		t.Errorf("a live context: %v", err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if got := CodeOf(Done(cancelled, "capture")); got != Cancelled {
		t.Errorf("a cancelled context gives %s, want CANCELLED", got)
	}
	expired, cancel2 := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel2()
	err := Done(expired, "capture")
	if got := CodeOf(err); got != Timeout {
		t.Errorf("a passed deadline gives %s, want TIMEOUT", got)
	}
	if got := As(err).Message; got != "capture: deadline exceeded" {
		t.Errorf("message %q", got)
	}
}

// An error names what it was given, but never more than MaxQuoted bytes of one value: a
// caller's 10 MB title comes back as its first kilobyte and its length, in the message, the
// hint and the details alike, cut between characters.
func TestMessagesQuoteAtMostMaxQuotedOfAValue(t *testing.T) {
	huge := "a" + strings.Repeat("é", 5<<20) // 10 MB; byte 1000 is inside an é
	e := New(NotFound, "no window title contains %q (%d)", huge, 7).
		WithHint("try %s", huge).WithDetail("parameter", huge).WithDetail("names", []string{huge, "ok"})
	want := "a" + strings.Repeat("é", MaxQuoted/2-1) + "…(10485761 bytes in all)"
	if e.Message != fmt.Sprintf("no window title contains %q (7)", want) {
		t.Errorf("message %.80q… of %d bytes", e.Message, len(e.Message))
	}
	if e.Hint != "try "+want || e.Details["parameter"] != want {
		t.Errorf("hint %.80q, parameter %.80q", e.Hint, e.Details["parameter"])
	}
	if names := e.Details["names"].([]string); names[0] != want || names[1] != "ok" {
		t.Errorf("names %.80q", names)
	}
	if short := New(InvalidArgument, "%s and %v", "a", errors.New("b")); short.Message != "a and b" {
		t.Errorf("short values changed: %q", short.Message)
	}
}
