package werr

import (
	"context"
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
