//go:build linux

package proc

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/w365/w365/engine/werr"
)

// pfKthread is PF_KTHREAD in the flags field of /proc/PID/stat.
const pfKthread = 0x00200000

// stat is what /proc/PID/stat says about a process.
type stat struct {
	comm     string
	state    byte
	ppid     int
	flags    uint64
	start    uint64
	rssPages uint64
	cpu      uint64 // user and system time, in clock ticks
}

// readStat parses /proc/PID/stat. The command name may contain spaces and parentheses, so
// the fields are split after the last ')'.
func readStat(pid int) (stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, err
	}
	return parseStat(string(b))
}

func parseStat(s string) (stat, error) {
	open := strings.IndexByte(s, '(')
	closeIdx := strings.LastIndexByte(s, ')')
	if open < 0 || closeIdx < open {
		return stat{}, werr.New(werr.Internal, "malformed stat line")
	}
	var st stat
	st.comm = s[open+1 : closeIdx]
	f := strings.Fields(s[closeIdx+1:])
	// f[0] is field 3 (state), so field n is f[n-3].
	if len(f) < 22 {
		return stat{}, werr.New(werr.Internal, "short stat line")
	}
	st.state = f[0][0]
	st.ppid, _ = strconv.Atoi(f[1])
	st.flags, _ = strconv.ParseUint(f[6], 10, 64)
	var err error
	if st.start, err = strconv.ParseUint(f[19], 10, 64); err != nil {
		return stat{}, werr.Wrap(err, werr.Internal, "malformed start time")
	}
	st.rssPages, _ = strconv.ParseUint(f[21], 10, 64)
	utime, _ := strconv.ParseUint(f[11], 10, 64)
	stime, _ := strconv.ParseUint(f[12], 10, 64)
	st.cpu = utime + stime
	return st, nil
}

func (s stat) kernelThread() bool { return s.flags&pfKthread != 0 || s.ppid == 2 }

// StartTime returns the start time of pid in clock ticks since boot (/proc/PID/stat field 22).
func StartTime(pid int) (uint64, error) {
	st, err := readStat(pid)
	if err != nil {
		return 0, werr.Wrap(err, werr.NotFound, "no process %d", pid)
	}
	return st.start, nil
}

// clockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on every Linux architecture).
const clockTick = 10 * time.Millisecond

// activity is what pid and the processes below it are doing: the CPU time they have used
// and whether one of them runs or waits for the CPU or a disk (state R or D: on a loaded
// machine a starting application waits for the CPU more than it uses it). ok is false when
// pid is gone.
func activity(pid int) (cpu time.Duration, running, ok bool) {
	all, err := listPIDs()
	if err != nil {
		return 0, false, false
	}
	stats := make(map[int]stat, len(all))
	for _, p := range all {
		if st, err := readStat(p); err == nil {
			stats[p] = st
		}
	}
	if _, ok := stats[pid]; !ok {
		return 0, false, false
	}
	below := func(p int) bool {
		for depth := 0; depth < 512 && p > 1; depth++ {
			if p == pid {
				return true
			}
			p = stats[p].ppid
		}
		return false
	}
	for p, st := range stats {
		if below(p) {
			cpu += time.Duration(st.cpu) * clockTick
			running = running || st.state == 'R' || st.state == 'D'
		}
	}
	return cpu, running, true
}

// longName returns the full process name when the kernel's comm (15 characters at most) may
// be truncated: the base name of the command line's first word, when it begins with comm.
func longName(pid int, comm string) string {
	if len(comm) < 15 {
		return comm
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return comm
	}
	arg0, _, _ := bytes.Cut(b, []byte{0})
	if base := filepath.Base(string(arg0)); strings.HasPrefix(base, comm) {
		return base
	}
	return comm
}

// parents maps every running process to its parent, from one reading of /proc.
func parents() map[int]int {
	parent := map[int]int{}
	if all, err := listPIDs(); err == nil {
		for _, p := range all {
			if st, err := readStat(p); err == nil {
				parent[p] = st.ppid
			}
		}
	}
	return parent
}

// listPIDs lists the processes in /proc, in ascending order. (Not gopsutil's process package:
// it links gopsutil's cpu package, which reads /proc/stat twice when it initialises, at
// every start of the binary; docs/architecture.md#one-shot-start.)
func listPIDs() ([]int, error) {
	d, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer d.Close()
	names, err := d.Readdirnames(-1)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, n := range names {
		if pid, err := strconv.Atoi(n); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	slices.Sort(out)
	return out, nil
}

// List returns up to maxCount user-space processes of scope (kernel threads left out):
// processes that own a window first, then by resident memory, largest first. titles maps a
// PID to the title of its window (from the window list); maxCount <= 0 means 200.
func List(ctx context.Context, maxCount int, titles map[int]string, scope Scope) ([]Process, error) {
	if maxCount <= 0 {
		maxCount = 200
	}
	all, err := listPIDs()
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot list processes")
	}
	page := uint64(os.Getpagesize())
	in := scope.members()
	out := make([]Process, 0, len(all))
	for _, p := range all {
		if err := ctx.Err(); err != nil {
			return nil, werr.Wrap(err, werr.Cancelled, "cancelled")
		}
		st, err := readStat(p)
		if err != nil || st.kernelThread() || st.state == 'Z' || !in(p) {
			continue // gone, kernel thread or zombie
		}
		out = append(out, Process{
			PID:            p,
			Name:           longName(p, st.comm),
			MemoryBytes:    st.rssPages * page,
			WindowTitle:    titles[p],
			StartTimeTicks: st.start,
		})
	}
	return ranked(out, maxCount), nil
}
