//go:build linux

package proc

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/test/testenv"
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

	// A window without registering for RegisterAfterWindow, idle (an Xt program waiting
	// for input): no accessibility support.
	idle := started(t, "/bin/sleep", "60")
	r.Applications = func(context.Context) ([]int, error) { return nil, nil }
	r.Windows = func(context.Context) ([]int, error) { return []int{idle}, nil }
	if got := WaitRegistered(context.Background(), idle, r); got.Registered || !strings.Contains(got.Reason, "without it registering") {
		t.Fatalf("WaitRegistered with a window and no tree = %+v", got)
	}
}

// A toolkit that has loaded its accessibility bridge registers, however long after its
// window shows: baobab (GTK 4), at its first start on a fresh desktop, registered 2 s after
// it showed its window, and was reported as a toolkit without accessibility. Here a
// process that has loaded GTK 4 shows its window at once and registers at the 30th look
// (3 s: past RegisterAfterWindow).
func TestWaitRegisteredWaitsForABridgedToolkit(t *testing.T) {
	testenv.Require(t, "/usr/bin/python3")
	cmd := exec.Command("/usr/bin/python3", "-c", "import gi; gi.require_version('Gtk', '4.0'); from gi.repository import Gtk; print('up', flush=True); import time; time.sleep(60)")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); line != "up\n" {
		testenv.Missing(t, fmt.Sprintf("gir1.2-gtk-4.0 (python3 printed %q, %v)", line, err))
	}
	pid, looks := cmd.Process.Pid, 0
	r := Registrar{
		Applications: func(context.Context) ([]int, error) {
			if looks++; looks < 30 {
				return nil, nil
			}
			return []int{pid}, nil
		},
		Windows: func(context.Context) ([]int, error) { return []int{pid}, nil },
	}
	if got := WaitRegistered(context.Background(), pid, r); !got.Registered || got.Reason != "" {
		t.Fatalf("WaitRegistered = %+v after %d looks, want registered at the 30th", got, looks)
	}
}

// started runs a program for the test and returns its pid.
func started(t *testing.T, name string, args ...string) int {
	t.Helper()
	cmd := exec.Command(name, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// On a loaded machine an application works for longer than RegisterTimeout before its
// window shows: in the desktop task suite at loads of 25 to 78, LibreOffice, Gnumeric and
// Firefox were reported as showing no window after 10 s, and the agent's next step found
// none. Here, with RegisterTimeout at 1 s, a process that keeps working (a busy shell
// loop) registers and shows its window at the 30th look (3 s): it is waited for, and the
// note says how long it took; an idle one (sleep) that shows nothing is given up on, and
// the note says it was idle.
func TestWaitRegisteredWaitsWhileTheApplicationWorks(t *testing.T) {
	defer func(d time.Duration) { RegisterTimeout = d }(RegisterTimeout)
	RegisterTimeout = time.Second
	busy := started(t, "/bin/sh", "-c", "while :; do :; done")
	looks := 0
	shown := func(context.Context) ([]int, error) {
		if looks < 30 {
			return nil, nil
		}
		return []int{busy}, nil
	}
	r := Registrar{
		Applications: func(ctx context.Context) ([]int, error) { looks++; return shown(ctx) },
		Windows:      shown,
	}
	if got := WaitRegistered(context.Background(), busy, r); !got.Registered || !strings.Contains(got.Reason, "working all along") {
		t.Fatalf("WaitRegistered on a working process = %+v after %d looks, want registered at the 30th, with a note", got, looks)
	}

	idle := started(t, "/bin/sleep", "60")
	r = Registrar{
		Applications: func(context.Context) ([]int, error) { looks++; return nil, nil },
		Windows:      func(context.Context) ([]int, error) { return nil, nil },
	}
	if got := WaitRegistered(context.Background(), idle, r); got.Registered || !strings.Contains(got.Reason, "idle for") {
		t.Fatalf("WaitRegistered on an idle process = %+v, want given up on as idle", got)
	}
}
