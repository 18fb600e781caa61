//go:build linux

package proc

import (
	"context"
	"os"
	"strings"
	"testing"
)

// A toolkit registers with the accessibility bus before its first window maps (GTK does
// at gtk_init): launch_application waits for the window too, so that activate_window and
// find_ui_element right after it find the application. Here the process registers at the
// first look and shows its window at the fourth.
func TestWaitRegisteredWaitsForTheWindow(t *testing.T) {
	pid := os.Getpid()
	looks := 0
	r := Registrar{
		Applications: func(context.Context) ([]int, error) { return []int{pid}, nil },
		Windows: func(context.Context) ([]int, error) {
			if looks++; looks < 4 {
				return nil, nil
			}
			return []int{pid}, nil
		},
	}
	got := WaitRegistered(context.Background(), pid, r)
	if !got.Registered || got.Reason != "" || looks != 4 {
		t.Fatalf("WaitRegistered = %+v after %d looks at the windows, want registered once the window shows (4)", got, looks)
	}

	// Registered with no window yet when the caller gives up: registered, and says so.
	ctx, cancel := context.WithTimeout(context.Background(), 3*registerPoll)
	defer cancel()
	r.Windows = func(context.Context) ([]int, error) { return nil, nil }
	if got := WaitRegistered(ctx, pid, r); !got.Registered || got.Reason == "" {
		t.Fatalf("WaitRegistered with no window = %+v, want registered with a note", got)
	}

	// A window without registering for RegisterAfterWindow: no accessibility support.
	r.Applications = func(context.Context) ([]int, error) { return nil, nil }
	r.Windows = func(context.Context) ([]int, error) { return []int{pid}, nil }
	if got := WaitRegistered(context.Background(), pid, r); got.Registered || !strings.Contains(got.Reason, "without it registering") {
		t.Fatalf("WaitRegistered with a window and no tree = %+v", got)
	}
}
