//go:build linux && amd64

package sandbox

//go:generate env UPDATE_SECCOMP=true go test -count=1 -run TestSetidProgramIsTheFilters .

import (
	"fmt"

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
	return loadProgram(setidProgram[:])
}

// seccompSupported says the kernel takes seccomp filters: strict mode with a flag set is
// EINVAL where the call exists.
func seccompSupported() bool {
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_STRICT, 1, 0)
	return e == unix.EINVAL
}
