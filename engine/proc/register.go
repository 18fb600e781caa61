package proc

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// How long launch_application waits for an application to expose its accessibility tree
// and show its window: at most RegisterTimeout in all, and at most RegisterAfterWindow
// once one of its windows is shown without it registering (toolkits with accessibility
// register before their first window maps; one that has shown a window that long without
// registering has no accessibility support, Xt and Motif say), unless it has loaded an
// accessibility bridge (bridged): then it will register, and is waited for up to
// RegisterTimeout. A splash screen is no such window (Registrar.Windows leaves it out).
const (
	RegisterTimeout     = 10 * time.Second
	RegisterAfterWindow = 2 * time.Second
	registerPoll        = 100 * time.Millisecond
)

// Registration says whether a launched application exposes an accessibility tree.
type Registration struct {
	Registered bool
	// Reason says why it has not registered, or, when it has, that it showed no window.
	Reason string
	// Exited: the process exited before it registered (a single-instance application may
	// have handed its request to its running instance).
	Exited bool
}

// Registrar is what WaitRegistered watches: Applications are the processes whose
// applications expose a tree (desktop.Accessibility), Windows those owning a shown window.
type Registrar struct {
	Applications func(context.Context) ([]int, error)
	Windows      func(context.Context) ([]int, error)
}

// WaitRegistered waits until pid, or a process it started, exposes an accessibility tree
// and (when r.Windows is set) shows a window, so that the caller's next call finds both;
// or says why not: the process exited, the accessibility bus failed, it showed a window
// for RegisterAfterWindow without registering, or RegisterTimeout passed (registered, it
// may be an application that shows no window yet, a tray icon's).
func WaitRegistered(ctx context.Context, pid int, r Registrar) Registration {
	start := time.Now()
	var windowSince time.Time
	var windowOf int // the process that showed it
	registered := false
	scope := Scope{Roots: []int{pid}}
	mine := func(p int) bool { return p == pid || scope.Contains(p) }
	for {
		if !registered {
			pids, err := r.Applications(ctx)
			if err != nil {
				return Registration{Reason: fmt.Sprintf("the accessibility bus did not answer: %v", err)}
			}
			registered = slices.ContainsFunc(pids, mine)
		}
		if registered && (r.Windows == nil || !windowSince.IsZero()) {
			return Registration{Registered: true}
		}
		if _, err := StartTime(pid); err != nil {
			if registered { // a launcher whose child registered: its windows are no longer pid's
				return Registration{Registered: true}
			}
			return Registration{Reason: "the process exited before it registered with the accessibility bus", Exited: true}
		}
		if windowSince.IsZero() && r.Windows != nil {
			if ws, err := r.Windows(ctx); err == nil && slices.ContainsFunc(ws, mine) {
				windowSince, windowOf = time.Now(), ws[slices.IndexFunc(ws, mine)]
				continue // registered by now, or counting RegisterAfterWindow
			}
		}
		switch {
		case registered && time.Since(start) >= RegisterTimeout:
			return Registration{Registered: true, Reason: fmt.Sprintf("it registered with the accessibility bus but showed no window within %s", RegisterTimeout)}
		case !windowSince.IsZero() && time.Since(windowSince) >= RegisterAfterWindow && !bridged(windowOf) && !bridged(pid):
			return Registration{Reason: fmt.Sprintf("its window has been shown for %s without it registering with the accessibility bus: the toolkit has no accessibility support (Xt, Motif) or it is switched off; use analyze_screen", RegisterAfterWindow)}
		case time.Since(start) >= RegisterTimeout:
			return Registration{Reason: fmt.Sprintf("it showed no window and did not register with the accessibility bus within %s", RegisterTimeout)}
		}
		select {
		case <-ctx.Done():
			return Registration{Registered: registered, Reason: "cancelled before it registered with the accessibility bus and showed a window"}
		case <-time.After(registerPoll):
		}
	}
}

// bridged says whether process pid has loaded a toolkit's accessibility bridge, and so will
// register with the accessibility bus: GTK 2's and GTK 3's (libatk-bridge) or GTK 4, which
// carries its own. baobab (GTK 4) at its first start on a fresh desktop showed its window
// 2 s before it registered, and launch_application called its toolkit one without
// accessibility. Where /proc is not, none has.
func bridged(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
	return err == nil && (strings.Contains(string(b), "/libatk-bridge-2.0.so") || strings.Contains(string(b), "/libgtk-4.so"))
}
