//go:build unix && !linux

package child

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func start(cmd *exec.Cmd) error {
	ownGroup(cmd)
	return cmd.Start()
}

func closeInheritedOnExec() {
	ents, _ := os.ReadDir("/dev/fd")
	for _, e := range ents {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}

func selfPath() (string, error) { return os.Executable() }
