//go:build linux

package xconn

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerPID is the pid of the process at the other end of c (SO_PEERCRED: for a listening socket,
// the process that bound it).
func peerPID(c *net.UnixConn) (int, bool) {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, false
	}
	pid, known := 0, false
	raw.Control(func(fd uintptr) {
		if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			pid, known = int(cred.Pid), true
		}
	})
	return pid, known
}
