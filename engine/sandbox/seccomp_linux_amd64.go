//go:build linux && amd64

package sandbox

//go:generate env UPDATE_SECCOMP=true go test -count=1 -run TestSetidProgramIsTheFilters .

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// loadSetidFilter sets no_new_privs and loads the set-id filter (internal/setid) on the
// calling thread, as go-seccomp-bpf's LoadFilter does, from the program generated for amd64
// (zseccomp_linux_amd64.go): the library is not linked, nor its tables initialised at every
// start (docs/architecture.md, "One-shot start").
func loadSetidFilter() error {
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("failed to set no_new_privs with prctl: %w", err)
	}
	prog := unix.SockFprog{Len: uint16(len(setidProgram)), Filter: &setidProgram[0]}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&prog))); e != 0 {
		if e == unix.ENOSYS {
			return fmt.Errorf("failed loading seccomp filter: seccomp is not supported by the kernel: %w", e)
		}
		return fmt.Errorf("failed loading seccomp filter: %w", e)
	}
	return nil
}

// seccompSupported says the kernel takes seccomp filters: strict mode with a flag set is
// EINVAL where the call exists.
func seccompSupported() bool {
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_STRICT, 1, 0)
	return e == unix.EINVAL
}
