//go:build linux

package proc

import (
	"os"
	"slices"
	"strings"
)

// HostPIDs returns the current process and all its ancestors up to PID 1.
func HostPIDs() []int {
	pids := []int{os.Getpid()}
	for pid := os.Getppid(); pid > 1 && !slices.Contains(pids, pid); {
		pids = append(pids, pid)
		st, err := readStat(pid)
		if err != nil {
			break
		}
		pid = st.ppid
	}
	return pids
}

// Protected says whether pid (named name, "" to look it up) must not be closed or killed:
// PID 1, kernel threads (PF_KTHREAD, or children of kthreadd), p.PIDs, and names from
// BuiltinProtectedNames and p.Names.
func (p Protection) Protected(pid int, name string) bool {
	if pid <= 1 || slices.Contains(p.PIDs, pid) {
		return true
	}
	names := []string{name}
	if st, err := readStat(pid); err == nil {
		if st.kernelThread() || pid == 2 && st.ppid == 0 {
			return true
		}
		names = append(names, st.comm, longName(pid, st.comm))
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		for _, pn := range append(slices.Clone(BuiltinProtectedNames), p.Names...) {
			if strings.EqualFold(n, pn) {
				return true
			}
		}
	}
	return false
}

// ProtectedPID is Protected with the name looked up; it fits window.Manager.Close.
func (p Protection) ProtectedPID(pid int) bool { return p.Protected(pid, "") }
