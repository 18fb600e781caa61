package child

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// spawns runs every Start on one OS thread that lives as long as the process.
// Pdeathsig fires when the thread that forked the child exits, not when the process
// does, and Go ends the thread of a goroutine that exits while locked to it
// (runtime.LockOSThread without Unlock): a child forked from such a thread, or from
// any thread the runtime later retires, would be killed long before the host dies.
// The thread starts with the first child, not in every w365 process.
var spawns = sync.OnceValue(func() chan func() {
	ch := make(chan func())
	go func() {
		runtime.LockOSThread()
		for f := range ch {
			f()
		}
	}()
	return ch
})

func start(cmd *exec.Cmd) error {
	ownGroup(cmd)
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	done := make(chan error, 1)
	spawns() <- func() { done <- cmd.Start() }
	return <-done
}

func closeInheritedOnExec() {
	if unix.CloseRange(3, math.MaxUint, unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	// Before Linux 5.11: one by one.
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.CloseOnExec(fd)
		}
	}
}

func selfPath() (string, error) { return "/proc/self/exe", nil }

// A process started from Self is named "exe" by the kernel (the last element of the path it
// was run by), in ps, top and pgrep, and to a policy's protectedProcesses: it takes its
// file's name again, as it starts.
func init() {
	b, err := os.ReadFile("/proc/self/comm")
	if err != nil || string(b) != "exe\n" {
		return
	}
	if p, err := os.Readlink("/proc/self/exe"); err == nil {
		// The kernel keeps the first 15 bytes.
		_ = os.WriteFile("/proc/self/comm", []byte(strings.TrimSuffix(filepath.Base(p), " (deleted)")), 0)
	}
}
