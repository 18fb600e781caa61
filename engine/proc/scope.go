//go:build linux

package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/w365/w365/engine/desktop/x11/xconn"
)

// members resolves s against the running processes: it returns a predicate that says whether
// a pid is in scope, computed from one reading of the process table.
func (s Scope) members() func(pid int) bool {
	if s.All {
		return func(int) bool { return true }
	}
	parent := parents()
	roots := map[int]bool{}
	for _, r := range s.Roots {
		roots[r] = true
	}
	self := exeOf("self")
	memo := map[int]bool{}
	var in func(pid int, depth int) bool
	in = func(pid int, depth int) bool {
		if v, ok := memo[pid]; ok {
			return v
		}
		var v bool
		switch {
		case roots[pid]:
			v = true
		case w365(pid, self):
			// Another w365 host (or this one): never a session's, nor what it started.
		case s.Display != "" && xconn.StartedOn(pid, s.Display):
			v = true
		case depth < 512:
			if pp, ok := parent[pid]; ok && pp > 1 && pp != pid {
				v = in(pp, depth+1)
			}
		}
		memo[pid] = v
		return v
	}
	return func(pid int) bool { return in(pid, 0) }
}

// Contains says whether pid is in s now.
func (s Scope) Contains(pid int) bool { return s.members()(pid) }

// w365 says whether pid runs a w365 executable: the file this one runs (self), or one
// started from the path self was, or any named w365.
func w365(pid int, self exeFile) bool {
	e := exeOf(strconv.Itoa(pid))
	return e.path != "" && (e.path == self.path || filepath.Base(e.path) == "w365") ||
		e.file != nil && self.file != nil && os.SameFile(e.file, self.file)
}

// exeFile is what a process runs: the file, and the path it was started from.
type exeFile struct {
	path string
	file os.FileInfo
}

// exeOf is what process pid ("self" for this one) runs. Once the file at its path was
// replaced (an upgrade), the kernel reads that path "PATH (deleted)" for the processes
// started before, and a host started before and one started after read different strings:
// the suffix is left out.
func exeOf(pid string) exeFile {
	name := "/proc/" + pid + "/exe"
	var e exeFile
	if p, err := os.Readlink(name); err == nil {
		e.path = strings.TrimSuffix(p, " (deleted)")
	}
	if st, err := os.Stat(name); err == nil {
		e.file = st
	}
	return e
}
