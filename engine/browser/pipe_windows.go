//go:build windows

package browser

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// givePipe hands the browser its ends as two inherited handles named by
// --remote-debugging-io-pipes; this process's ends are made non-inheritable, so
// no other child gets them.
func givePipe(cmd *exec.Cmd, p *debugPipe) {
	for _, f := range []*os.File{p.parentR, p.parentW} {
		_ = syscall.SetHandleInformation(syscall.Handle(f.Fd()), syscall.HANDLE_FLAG_INHERIT, 0)
	}
	hr, hw := syscall.Handle(p.childR.Fd()), syscall.Handle(p.childW.Fd())
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.AdditionalInheritedHandles = append(cmd.SysProcAttr.AdditionalInheritedHandles, hr, hw)
	flag := "--remote-debugging-io-pipes=" + strconv.FormatUint(uint64(hr), 10) + "," + strconv.FormatUint(uint64(hw), 10)
	cmd.Args = append(cmd.Args[:1:1], append([]string{flag}, cmd.Args[1:]...)...)
}
