//go:build unix && !linux

package child

import "os/exec"

func start(cmd *exec.Cmd) error {
	ownGroup(cmd)
	return cmd.Start()
}
