//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// nativeArch is the seccomp (audit) architecture of this build's system-call ABI. A
// process of it can also enter the kernel through a compatibility ABI (on amd64 the i386
// one, by int 0x80; on arm64 aarch32), whose calls have other numbers: a filter written
// for the native numbers does not see them. The set-id filter is such a filter.
var nativeArch = map[string]uint32{
	"amd64":   unix.AUDIT_ARCH_X86_64,
	"arm64":   unix.AUDIT_ARCH_AARCH64,
	"386":     unix.AUDIT_ARCH_I386,
	"arm":     unix.AUDIT_ARCH_ARM,
	"riscv64": unix.AUDIT_ARCH_RISCV64,
	"ppc64le": unix.AUDIT_ARCH_PPC64LE,
	"s390x":   unix.AUDIT_ARCH_S390X,
}[runtime.GOARCH]

// aroundProgram refuses the ways into the kernel around the set-id filter, with ENOSYS as a
// kernel without them: every system call of another ABI than the native one (a set-uid chmod
// through int 0x80 did), and io_uring, whose operations (an openat with a creation mode) no
// seccomp filter sees. Confined programs are the system's, built for the native ABI, and
// fall back from io_uring to plain calls.
func aroundProgram() []unix.SockFilter {
	const (
		ld  = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS // seccomp_data: nr at 0, arch at 4
		jeq = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		ret = unix.BPF_RET | unix.BPF_K
	)
	return []unix.SockFilter{
		{Code: ld, K: 4},
		{Code: jeq, Jt: 1, K: nativeArch},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
		{Code: ld, K: 0},
		{Code: jeq, Jt: 3, K: unix.SYS_IO_URING_SETUP},
		{Code: jeq, Jt: 2, K: unix.SYS_IO_URING_ENTER},
		{Code: jeq, Jt: 1, K: unix.SYS_IO_URING_REGISTER},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		{Code: ret, K: unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)},
	}
}

// loadProgram adds a seccomp filter program to the calling thread (no_new_privs must be
// set: the set-id filter sets it first).
func loadProgram(prog []unix.SockFilter) error {
	fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, 0, uintptr(unsafe.Pointer(&fp))); e != 0 {
		return fmt.Errorf("loading a seccomp filter: %w", e)
	}
	return nil
}
