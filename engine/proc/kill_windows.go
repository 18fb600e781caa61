package proc

import (
	"context"
	"errors"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/windows"

	"github.com/w365/w365/engine/internal/winapi"
	"github.com/w365/w365/engine/werr"
)

// Kill ends the process pid whose start time is startTime (StartTimeTicks from List).
//
// It opens a handle to the process first and does everything through it: Windows gives a
// pid to no other process while a handle to it is open, so the process whose start time it
// checks is the process it ends. A process it cannot open is another user's or a protected
// one (PROTECTED_PROCESS). Then it compares the start time (mismatch: STALE_PROCESS, nothing
// is sent) and asks protected (true: PROTECTED_PROCESS). With force=false it posts WM_CLOSE
// to the process's top-level windows, as their close buttons do, and waits up to TermWait;
// it never escalates, and Exited tells whether the process ended (one that asks to save
// changes stays: call again with force). A process without a window cannot be asked to end
// (UNSUPPORTED, with the hint to force). With force=true it calls TerminateProcess at once
// and waits up to KillWait.
func Kill(ctx context.Context, pid int, startTime uint64, force bool, protected func(pid int, name string) bool) (KillResult, error) {
	if pid <= 0 {
		return KillResult{}, werr.Invalid("pid must be positive, got %d", pid)
	}
	h, err := openQuery(pid, windows.PROCESS_TERMINATE|windows.SYNCHRONIZE)
	if errors.Is(err, windows.ERROR_ACCESS_DENIED) {
		// Perhaps it can be read but not ended: say which it is when it can.
		name, _ := ImageName(pid)
		return KillResult{PID: pid, Name: name}, werr.New(werr.ProtectedProcess, "process %d (%s) cannot be opened to be ended: it is a system process, a protected one or another user's", pid, name)
	}
	if err != nil {
		return KillResult{}, werr.New(werr.NotFound, "no process %d", pid).WithHint("call list_processes")
	}
	defer windows.CloseHandle(h)

	st, err := startTimeOf(h)
	if err != nil {
		return KillResult{PID: pid}, werr.Wrap(err, werr.Internal, "cannot read the start time of process %d", pid)
	}
	res := KillResult{PID: pid}
	if img, err := imagePath(h); err == nil {
		res.Name = filepath.Base(img)
	}
	if st != startTime {
		return res, werr.New(werr.StaleProcess, "process %d is not the one listed: its start time is %d, not %d (the pid was reused)",
			pid, st, startTime).
			WithDetail("startTimeTicks", st).
			WithHint("call list_processes again")
	}
	if !running(h) {
		res.Exited = true
		return res, nil
	}
	if protected != nil && protected(pid, res.Name) {
		return res, werr.New(werr.ProtectedProcess, "process %d (%s) is protected", pid, res.Name)
	}
	wait := TermWait
	if force {
		res.Signal, wait = "TerminateProcess", KillWait
		if err := windows.TerminateProcess(h, 1); err != nil {
			if !running(h) {
				res.Exited = true
				return res, nil
			}
			return res, werr.Wrap(err, werr.Internal, "TerminateProcess of process %d (%s) failed", pid, res.Name)
		}
	} else {
		res.Signal = "WM_CLOSE"
		if n := closeWindows(pid); n == 0 {
			return res, werr.New(werr.Unsupported, "process %d (%s) has no window to close, so it cannot be asked to end", pid, res.Name).
				WithHint("call kill_process again with force to end it at once (TerminateProcess)")
		}
	}
	res.Exited = waitHandle(ctx, h, wait)
	return res, nil
}

// closeWindows posts WM_CLOSE to every unowned top-level window of pid and returns how many
// it reached.
func closeWindows(pid int) int {
	var hwnds []windows.HWND
	cb := syscall.NewCallback(func(w windows.HWND, _ uintptr) uintptr {
		var owner uint32
		windows.GetWindowThreadProcessId(w, &owner)
		if int(owner) == pid {
			if o, _, _ := winapi.ProcGetWindow.Call(uintptr(w), winapi.GW_OWNER); o == 0 {
				hwnds = append(hwnds, w)
			}
		}
		return 1
	})
	windows.EnumWindows(cb, nil)
	n := 0
	for _, w := range hwnds {
		if ok, _, _ := winapi.ProcPostMessageW.Call(uintptr(w), winapi.WM_CLOSE, 0, 0); ok != 0 {
			n++
		}
	}
	return n
}

// waitHandle waits until the process behind h has exited, up to timeout or the end of ctx.
func waitHandle(ctx context.Context, h windows.Handle, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		left := time.Until(deadline)
		if left <= 0 || ctx.Err() != nil {
			return !running(h)
		}
		ms := uint32(min(left, 100*time.Millisecond)/time.Millisecond) + 1
		ev, err := windows.WaitForSingleObject(h, ms)
		if err != nil {
			return !running(h)
		}
		if ev == windows.WAIT_OBJECT_0 {
			return true
		}
	}
}

// Close ends every process of the group that is still the one that was started: WM_CLOSE to
// its windows, then TerminateProcess after two seconds. What a process started lives in its
// job object (child.Start), which Windows ends when the process has exited.
func (g *Group) Close() error {
	g.mu.Lock()
	roots := g.roots
	g.roots = nil
	g.mu.Unlock()
	var live []windows.Handle
	for _, r := range roots {
		h, err := openQuery(r.PID, windows.PROCESS_TERMINATE|windows.SYNCHRONIZE)
		if err != nil {
			continue
		}
		if st, err := startTimeOf(h); err != nil || st != r.StartTicks || !running(h) {
			windows.CloseHandle(h)
			continue
		}
		closeWindows(r.PID)
		live = append(live, h)
	}
	deadline := time.Now().Add(2 * time.Second)
	for _, h := range live {
		if !waitHandle(context.Background(), h, time.Until(deadline)) {
			windows.TerminateProcess(h, 1)
		}
		windows.CloseHandle(h)
	}
	return nil
}
