//go:build !windows

package browser

import (
	"os"
	"os/exec"
)

// givePipe hands the browser its ends as file descriptors 3 and 4 and adds the flag.
func givePipe(cmd *exec.Cmd, p *debugPipe) {
	cmd.ExtraFiles = []*os.File{p.childR, p.childW}
	cmd.Args = append(cmd.Args[:1:1], append([]string{"--remote-debugging-pipe"}, cmd.Args[1:]...)...)
}
