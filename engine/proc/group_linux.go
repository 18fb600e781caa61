//go:build linux

package proc

import (
	"syscall"
	"time"
)

// Close ends every process of the group that is still the one that was started, with its
// process group: SIGTERM, then SIGKILL after two seconds.
func (g *Group) Close() error {
	g.mu.Lock()
	roots := g.roots
	g.roots = nil
	g.mu.Unlock()
	var live []Root
	for _, r := range roots {
		if st, err := StartTime(r.PID); err == nil && st == r.StartTicks {
			_ = syscall.Kill(-r.PID, syscall.SIGTERM)
			_ = syscall.Kill(r.PID, syscall.SIGTERM)
			live = append(live, r)
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for _, r := range live {
		for time.Now().Before(deadline) {
			if st, err := StartTime(r.PID); err != nil || st != r.StartTicks {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		_ = syscall.Kill(-r.PID, syscall.SIGKILL)
		if st, err := StartTime(r.PID); err == nil && st == r.StartTicks {
			_ = syscall.Kill(r.PID, syscall.SIGKILL)
		}
	}
	return nil
}
