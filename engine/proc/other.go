//go:build !linux && !windows

package proc

import (
	"context"
	"os"
	"time"

	"github.com/w365/w365/engine/werr"
)

func unsupported() *werr.Error {
	return werr.New(werr.Unsupported, "process tools are implemented for Linux only")
}

// List is not implemented on this platform.
func List(ctx context.Context, maxCount int, titles map[int]string, scope Scope) ([]Process, error) {
	return nil, unsupported()
}

// Contains is false on this platform, where processes cannot be inspected.
func (s Scope) Contains(pid int) bool { return false }

// activity is not known on this platform.
func activity(pid int) (cpu time.Duration, running, ok bool) { return 0, false, false }

// StartTime is not implemented on this platform.
func StartTime(pid int) (uint64, error) { return 0, unsupported() }

// Kill is not implemented on this platform.
func Kill(ctx context.Context, pid int, startTime uint64, force bool, protected func(pid int, name string) bool) (KillResult, error) {
	return KillResult{}, unsupported()
}

// HostPIDs returns only the current process on this platform.
func HostPIDs() []int { return []int{os.Getpid()} }

// Resolve is not implemented on this platform.
func Resolve(path string, dirs []string) (string, error) { return "", unsupported() }

// Launch is not implemented on this platform.
func Launch(ctx context.Context, path string, args []string, o LaunchOptions) (int, string, error) {
	return 0, "", unsupported()
}

// Close has nothing to end on this platform.
func (g *Group) Close() error { return nil }
