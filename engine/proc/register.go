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
// and show its window. It waits while the application works: until its window shows and
// it has registered, or it exits, or it has been idle for idleAfter (no CPU time used, no
// process of it running or waiting for the CPU or a disk) once RegisterTimeout has passed
// or, after one of its windows showed without it registering, RegisterAfterWindow
// (toolkits with accessibility register before their first window maps; one that has shown
// a window that long without registering has no accessibility support, Xt and Motif say),
// unless it has loaded an accessibility bridge (Bridged): then it will register, and is
// waited for as one without a window. LaunchMaxWait bounds it all: on a loaded machine an
// application may work for more than RegisterTimeout before its window shows (LibreOffice,
// Gnumeric and Firefox did, at loads of 25 to 78). A splash screen is no such window
// (Registrar.Windows leaves it out). Variables, so that a test can shorten them.
var (
	RegisterTimeout     = 10 * time.Second
	RegisterAfterWindow = 2 * time.Second
	LaunchMaxWait       = 45 * time.Second
)

const (
	registerPoll = 100 * time.Millisecond
	idleAfter    = 2 * time.Second
	activityPoll = 500 * time.Millisecond
)

// Registration says whether a launched application exposes an accessibility tree.
type Registration struct {
	Registered bool
	// Reason says why it has not registered, or, when it has, that it showed no window, or
	// that it took longer than RegisterTimeout.
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

// Work follows whether a process and those below it are working (activity), looking at
// most every activityPoll: launch_application waits while an application works, and the
// accessibility tools ask again while one that does not answer works.
type Work struct {
	pid        int
	next, last time.Time // the next look; the last time it was seen working
	first, cpu time.Duration
	seen       bool
}

// NewWork follows pid from now on.
func NewWork(pid int, now time.Time) *Work { return &Work{pid: pid, last: now} }

// Look looks at what the process does, unless it was looked at less than activityPoll ago.
func (w *Work) Look(now time.Time) {
	if now.Before(w.next) {
		return
	}
	w.next = now.Add(activityPoll)
	cpu, running, ok := activity(w.pid)
	if !ok {
		return
	}
	// The first look has no CPU time to compare with: what runs then works.
	if running || w.seen && cpu > w.cpu {
		w.last = now
	}
	if !w.seen {
		w.first, w.seen = cpu, true
	}
	w.cpu = cpu
}

// Idle says whether it has not been seen working for idleAfter.
func (w *Work) Idle(now time.Time) bool { return now.Sub(w.last) >= idleAfter }

// Used is the CPU time it used since the first look.
func (w *Work) Used() time.Duration { return (w.cpu - w.first).Round(10 * time.Millisecond) }

// WaitRegistered waits until pid, or a process it started, exposes an accessibility tree
// and (when r.Windows is set) shows a window, so that the caller's next call finds both;
// or says why not: the process exited, the accessibility bus failed, it showed a window
// for RegisterAfterWindow without registering, it was idle after RegisterTimeout
// (registered, it may be an application that shows no window yet, a tray icon's), or it
// still worked after LaunchMaxWait. How long it waited is in the reason when that was
// longer than RegisterTimeout.
func WaitRegistered(ctx context.Context, pid int, r Registrar) Registration {
	start := time.Now()
	w := NewWork(pid, start)
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
		now := time.Now()
		waited := now.Sub(start).Round(100 * time.Millisecond)
		if registered && (r.Windows == nil || !windowSince.IsZero()) {
			if waited > RegisterTimeout {
				return Registration{Registered: true, Reason: fmt.Sprintf("it registered and showed its window after %s, working all along (%s of CPU time): the machine is loaded or the application slow", waited, w.Used())}
			}
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
				windowSince, windowOf = now, ws[slices.IndexFunc(ws, mine)]
				continue // registered by now, or counting RegisterAfterWindow
			}
		}
		w.Look(now)
		idle := w.Idle(now)
		switch {
		case !registered && !windowSince.IsZero() && now.Sub(windowSince) >= RegisterAfterWindow && idle && !Bridged(windowOf) && !Bridged(pid):
			return Registration{Reason: fmt.Sprintf("its window has been shown for %s without it registering with the accessibility bus: the toolkit has no accessibility support (Xt, Motif) or it is switched off; use analyze_screen", RegisterAfterWindow)}
		case waited >= RegisterTimeout && idle:
			return Registration{Registered: registered, Reason: fmt.Sprintf("it %s within %s, and has been idle for %s (no CPU time used): it waits for something, or shows its window elsewhere", saw(registered, !windowSince.IsZero()), waited, idleAfter)}
		case waited >= LaunchMaxWait:
			return Registration{Registered: registered, Reason: fmt.Sprintf("it %s within %s, working all along (%s of CPU time): the machine is loaded or the application slow; look again with list_windows", saw(registered, !windowSince.IsZero()), waited, w.Used())}
		}
		select {
		case <-ctx.Done():
			return Registration{Registered: registered, Reason: fmt.Sprintf("cancelled after %s, before it registered with the accessibility bus and showed a window", waited)}
		case <-time.After(registerPoll):
		}
	}
}

// saw says what a launched application did, in the words of WaitRegistered's reasons.
func saw(registered, window bool) string {
	switch {
	case registered:
		return "registered with the accessibility bus but showed no window"
	case window:
		return "showed a window but did not register with the accessibility bus"
	}
	return "showed no window and did not register with the accessibility bus"
}

// Bridged says whether process pid has loaded a toolkit's accessibility bridge, and so will
// register with the accessibility bus: GTK 2's and GTK 3's (libatk-bridge) or GTK 4, which
// carries its own. baobab (GTK 4) at its first start on a fresh desktop showed its window
// 2 s before it registered, and launch_application called its toolkit one without
// accessibility. Where /proc is not, none has.
func Bridged(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/maps")
	return err == nil && (strings.Contains(string(b), "/libatk-bridge-2.0.so") || strings.Contains(string(b), "/libgtk-4.so"))
}
