package proc

import (
	"context"
	"fmt"
	"time"
)

// How long launch_application waits for an application to expose its accessibility tree:
// at most RegisterTimeout in all, and at most RegisterAfterWindow once one of its windows is
// shown (toolkits with accessibility register before their first window maps; one that has
// shown a window that long without registering has no accessibility support, Xt and Motif
// say). A splash screen is no such window (Registrar.Windows leaves it out).
const (
	RegisterTimeout     = 10 * time.Second
	RegisterAfterWindow = 2 * time.Second
	registerPoll        = 100 * time.Millisecond
)

// Registration says whether a launched application exposes an accessibility tree.
type Registration struct {
	Registered bool
	// Reason says why not, when Registered is false.
	Reason string
}

// Registrar is what WaitRegistered watches: Applications are the processes whose
// applications expose a tree (desktop.Accessibility), Windows those owning a shown window.
type Registrar struct {
	Applications func(context.Context) ([]int, error)
	Windows      func(context.Context) ([]int, error)
}

// WaitRegistered waits until pid, or a process it started, exposes an accessibility tree,
// and says so; or says why it has not: the process exited, the accessibility bus failed,
// it showed a window for RegisterAfterWindow without registering, or RegisterTimeout
// passed.
func WaitRegistered(ctx context.Context, pid int, r Registrar) Registration {
	start := time.Now()
	var windowSince time.Time
	scope := Scope{Roots: []int{pid}}
	for {
		pids, err := r.Applications(ctx)
		if err != nil {
			return Registration{Reason: fmt.Sprintf("the accessibility bus did not answer: %v", err)}
		}
		for _, p := range pids {
			if p == pid || scope.Contains(p) {
				return Registration{Registered: true}
			}
		}
		if _, err := StartTime(pid); err != nil {
			return Registration{Reason: "the process exited before it registered with the accessibility bus"}
		}
		if windowSince.IsZero() && r.Windows != nil {
			if ws, err := r.Windows(ctx); err == nil {
				for _, p := range ws {
					if p == pid || scope.Contains(p) {
						windowSince = time.Now()
						break
					}
				}
			}
		}
		switch {
		case !windowSince.IsZero() && time.Since(windowSince) >= RegisterAfterWindow:
			return Registration{Reason: fmt.Sprintf("its window has been shown for %s without it registering with the accessibility bus: the toolkit has no accessibility support (Xt, Motif) or it is switched off; use analyze_screen", RegisterAfterWindow)}
		case time.Since(start) >= RegisterTimeout:
			return Registration{Reason: fmt.Sprintf("it showed no window and did not register with the accessibility bus within %s", RegisterTimeout)}
		}
		select {
		case <-ctx.Done():
			return Registration{Reason: "cancelled before it registered with the accessibility bus"}
		case <-time.After(registerPoll):
		}
	}
}
