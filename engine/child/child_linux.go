package child

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
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
