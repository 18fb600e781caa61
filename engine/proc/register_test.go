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

	// A window without registering for RegisterAfterWindow: no accessibility support.
	r.Applications = func(context.Context) ([]int, error) { return nil, nil }
	r.Windows = func(context.Context) ([]int, error) { return []int{pid}, nil }
	if got := WaitRegistered(context.Background(), pid, r); got.Registered || !strings.Contains(got.Reason, "without it registering") {
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
