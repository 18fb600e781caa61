//go:build linux

package proc

import (
	"context"
	"errors"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/w365/w365/engine/werr"
)

// Kill ends the process pid whose start time is startTime (StartTimeTicks from List).
//
// It opens a pidfd first, so that the process it checks is the process it signals: a PID
// reused after the pidfd is open cannot be hit. Then it compares the start time (mismatch:
// STALE_PROCESS, nothing is sent), then asks protected (true: PROTECTED_PROCESS). With
// force=false it sends SIGTERM and waits up to TermWait; it never escalates, and Exited tells
// whether the process ended (a process that ignores SIGTERM reports false and keeps running:
// call again with force). With force=true it sends SIGKILL at once and waits up to KillWait.
func Kill(ctx context.Context, pid int, startTime uint64, force bool, protected func(pid int, name string) bool) (KillResult, error) {
	if pid <= 0 {
		return KillResult{}, werr.Invalid("pid must be positive, got %d", pid)
	}
	fd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		if errors.Is(err, unix.ESRCH) {
			return KillResult{}, werr.New(werr.NotFound, "no process %d", pid).WithHint("call list_processes")
		}
		if errors.Is(err, unix.ENOSYS) {
			return KillResult{}, werr.New(werr.Unsupported, "this kernel has no pidfd_open (Linux 5.3+ is needed to kill without a PID-reuse race)")
		}
		return KillResult{}, werr.Wrap(err, werr.Internal, "cannot open process %d", pid)
	}
	defer unix.Close(fd)

	st, err := readStat(pid)
	if err != nil {
		return KillResult{}, werr.New(werr.NotFound, "process %d has exited", pid)
	}
	name := longName(pid, st.comm)
	res := KillResult{PID: pid, Name: name}
	if st.start != startTime {
		return res, werr.New(werr.StaleProcess, "process %d is not the one listed: its start time is %d, not %d (the pid was reused)",
			pid, st.start, startTime).
			WithDetail("startTimeTicks", st.start).
			WithHint("call list_processes again")
	}
	if st.state == 'Z' {
		res.Exited = true
		return res, nil
	}
	if protected != nil && (protected(pid, name) || (name != st.comm && protected(pid, st.comm))) {
		return res, werr.New(werr.ProtectedProcess, "process %d (%s) is protected", pid, name)
	}
	sig, wait := unix.SIGTERM, TermWait
	res.Signal = "SIGTERM"
	if force {
		sig, wait = unix.SIGKILL, KillWait
		res.Signal = "SIGKILL"
	}
	if err := unix.PidfdSendSignal(fd, sig, nil, 0); err != nil {
		if errors.Is(err, unix.ESRCH) {
			res.Exited = true
			return res, nil
		}
		if errors.Is(err, unix.EPERM) {
			return res, werr.New(werr.BlockedByPolicy, "not permitted to signal process %d (%s)", pid, name)
		}
		return res, werr.Wrap(err, werr.Internal, "cannot signal process %d", pid)
	}
	res.Exited = waitExit(ctx, fd, pid, wait)
	return res, nil
}

// waitExit waits until the process behind fd has exited (a pidfd becomes readable then;
// a zombie counts as exited), up to timeout or the end of ctx.
func waitExit(ctx context.Context, fd, pid int, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			return exited(fd, pid)
		}
		slice := min(left, 100*time.Millisecond)
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, int(slice/time.Millisecond)+1)
		if err == nil && n > 0 {
			return true
		}
		if err != nil && !errors.Is(err, unix.EINTR) {
			return exited(fd, pid)
		}
	}
}

func exited(fd, pid int) bool {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	if n, err := unix.Poll(fds, 0); err == nil && n > 0 {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	st, err := parseStat(string(b))
	return err != nil || st.state == 'Z' || strings.TrimSpace(string(b)) == ""
}
