package proc

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/w365/w365/engine/internal/winapi"
	"github.com/w365/w365/engine/werr"
)

// entry is one process of a toolhelp snapshot.
type entry struct {
	pid, ppid int
	name      string // the executable's file name ("notepad.exe")
}

// snapshot lists the running processes (CreateToolhelp32Snapshot).
func snapshot() ([]entry, error) {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPPROCESS, 0)
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot list processes (CreateToolhelp32Snapshot)")
	}
	defer windows.CloseHandle(snap)
	pe := windows.ProcessEntry32{Size: uint32(unsafe.Sizeof(windows.ProcessEntry32{}))}
	var out []entry
	for err = windows.Process32First(snap, &pe); err == nil; err = windows.Process32Next(snap, &pe) {
		out = append(out, entry{pid: int(pe.ProcessID), ppid: int(pe.ParentProcessID), name: windows.UTF16ToString(pe.ExeFile[:])})
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return nil, werr.Wrap(err, werr.Internal, "cannot list processes (Process32Next)")
	}
	return out, nil
}

// openQuery opens pid for reading its times, image and memory (the right Windows grants
// most widely, for other users' and protected processes too), plus the extra rights.
func openQuery(pid int, extra uint32) (windows.Handle, error) {
	return windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION|extra, false, uint32(pid))
}

// startTimeOf is the creation time of the process behind h in microseconds since the Unix
// epoch (GetProcessTimes). It is fixed for the process's life, unlike a time since boot
// (Windows moves its boot time when the clock is set), and stays below 2^53, so a JSON client
// that reads numbers as doubles hands back exactly what it was given.
func startTimeOf(h windows.Handle) (uint64, error) {
	var created, exited, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0, err
	}
	return uint64(created.Nanoseconds() / 1000), nil
}

// StartTime returns the start time of pid in microseconds since the Unix epoch.
func StartTime(pid int) (uint64, error) {
	h, err := openQuery(pid, 0)
	if err != nil {
		return 0, werr.Wrap(err, werr.NotFound, "no process %d that can be opened", pid)
	}
	defer windows.CloseHandle(h)
	st, err := startTimeOf(h)
	if err != nil {
		return 0, werr.Wrap(err, werr.Internal, "cannot read the start time of process %d", pid)
	}
	return st, nil
}

// activity is the CPU time pid has used (GetProcessTimes: its own, not that of the
// processes it started); whether it waits for the CPU is not known. ok is false when pid
// cannot be opened.
func activity(pid int) (cpu time.Duration, running, ok bool) {
	h, err := openQuery(pid, 0)
	if err != nil {
		return 0, false, false
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(h, &created, &exited, &kernel, &user) != nil {
		return 0, false, false
	}
	// A Filetime counts 100 ns intervals.
	span := func(f windows.Filetime) time.Duration {
		return time.Duration(uint64(f.HighDateTime)<<32|uint64(f.LowDateTime)) * 100
	}
	return span(kernel) + span(user), false, true
}

// workingSet is the resident memory of the process behind h (0 when unreadable).
func workingSet(h windows.Handle) uint64 {
	c := winapi.PROCESS_MEMORY_COUNTERS{Size: uint32(unsafe.Sizeof(winapi.PROCESS_MEMORY_COUNTERS{}))}
	if ok, _, _ := winapi.ProcGetProcessMemoryInfo.Call(uintptr(h), uintptr(unsafe.Pointer(&c)), uintptr(c.Size)); ok == 0 {
		return 0
	}
	return uint64(c.WorkingSetSize)
}

// stillActive is STILL_ACTIVE, the exit code of a process that has not exited.
const stillActive = 259

// running says whether the process behind h has not exited: its handle is not signalled
// (with SYNCHRONIZE), or else its exit code is STILL_ACTIVE.
func running(h windows.Handle) bool {
	if ev, err := windows.WaitForSingleObject(h, 0); err == nil {
		return ev == uint32(windows.WAIT_TIMEOUT)
	}
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == stillActive
}

// List returns up to maxCount processes of scope: processes that own a window first, then
// by resident memory (working set), largest first. The idle process and processes this
// user cannot open (other users', protected ones: they have no start time to give) are left
// out, as kernel threads are on Linux. titles maps a PID to the title of its window;
// maxCount <= 0 means 200.
func List(ctx context.Context, maxCount int, titles map[int]string, scope Scope) ([]Process, error) {
	if maxCount <= 0 {
		maxCount = 200
	}
	ents, err := snapshot()
	if err != nil {
		return nil, err
	}
	in := scope.resolve(ents)
	out := make([]Process, 0, len(ents))
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return nil, werr.Wrap(err, werr.Cancelled, "cancelled")
		}
		if e.pid == 0 || !in(e.pid) {
			continue
		}
		h, err := openQuery(e.pid, 0)
		if err != nil {
			continue
		}
		st, err := startTimeOf(h)
		if err == nil && running(h) {
			out = append(out, Process{PID: e.pid, Name: e.name, MemoryBytes: workingSet(h), WindowTitle: titles[e.pid], StartTimeTicks: st})
		}
		windows.CloseHandle(h)
	}
	return ranked(out, maxCount), nil
}

// parents maps each process of ents to its parent, leaving out the links Windows keeps
// after a parent has exited: the parent pid may since have been given to a newer process,
// so a parent that started after its child is not its parent.
func parents(ents []entry) map[int]int {
	start := map[int]uint64{}
	for _, e := range ents {
		if h, err := openQuery(e.pid, 0); err == nil {
			if st, err := startTimeOf(h); err == nil {
				start[e.pid] = st
			}
			windows.CloseHandle(h)
		}
	}
	out := map[int]int{}
	for _, e := range ents {
		cs, okc := start[e.pid]
		ps, okp := start[e.ppid]
		if e.ppid != e.pid && e.ppid > 4 && okc && okp && ps <= cs {
			out[e.pid] = e.ppid
		}
	}
	return out
}

// resolve returns a predicate that says whether a pid of ents is in s. The Windows
// counterpart of a session's display is its Windows (terminal services) session: a process
// of the host's session is in scope, as a process started on the session's DISPLAY is on
// Linux, and so are the roots and their descendants. A w365 executable (a host) is never in
// scope, nor what it started except through that session.
func (s Scope) resolve(ents []entry) func(pid int) bool {
	if s.All {
		return func(int) bool { return true }
	}
	parent := parents(ents)
	names := map[int]string{}
	for _, e := range ents {
		names[e.pid] = e.name
	}
	roots := map[int]bool{}
	for _, r := range s.Roots {
		roots[r] = true
	}
	self, _ := os.Executable()
	var mySession uint32
	sessionKnown := s.Display != "" && windows.ProcessIdToSessionId(uint32(os.Getpid()), &mySession) == nil
	memo := map[int]bool{}
	var in func(pid, depth int) bool
	in = func(pid, depth int) bool {
		if v, ok := memo[pid]; ok {
			return v
		}
		var v bool
		switch {
		case roots[pid]:
			v = true
		case isW365(pid, names[pid], self):
		case sessionKnown && inSession(pid, mySession):
			v = true
		case depth < 512:
			if pp, ok := parent[pid]; ok {
				v = in(pp, depth+1)
			}
		}
		memo[pid] = v
		return v
	}
	return func(pid int) bool { return in(pid, 0) }
}

// Contains says whether pid is in s now.
func (s Scope) Contains(pid int) bool {
	ents, err := snapshot()
	if err != nil {
		return false
	}
	return s.resolve(ents)(pid)
}

func inSession(pid int, session uint32) bool {
	var id uint32
	return windows.ProcessIdToSessionId(uint32(pid), &id) == nil && id == session
}

// isW365 says whether pid runs a w365 executable: this one (self), or any named w365.exe.
func isW365(pid int, name, self string) bool {
	if strings.EqualFold(name, "w365.exe") {
		return true
	}
	if pid == os.Getpid() {
		return true
	}
	h, err := openQuery(pid, 0)
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	img, err := imagePath(h)
	return err == nil && (strings.EqualFold(img, self) || strings.EqualFold(filepath.Base(img), "w365.exe"))
}

// imagePath is the full path of the executable of the process behind h.
func imagePath(h windows.Handle) (string, error) {
	buf := make([]uint16, windows.MAX_LONG_PATH)
	n := uint32(len(buf))
	if err := windows.QueryFullProcessImageName(h, 0, &buf[0], &n); err != nil {
		return "", err
	}
	return windows.UTF16ToString(buf[:n]), nil
}

// HostPIDs returns the current process and its ancestors, as far as the parent links hold.
func HostPIDs() []int {
	pids := []int{os.Getpid()}
	ents, err := snapshot()
	if err != nil {
		return pids
	}
	parent := parents(ents)
	for pid := pids[0]; ; {
		pp, ok := parent[pid]
		if !ok || slices.Contains(pids, pp) {
			return pids
		}
		pids = append(pids, pp)
		pid = pp
	}
}
