//go:build linux

// Package setid defines the confinement's seccomp filter with go-seccomp-bpf. On amd64 the
// sandbox loads the program this assembles, generated into engine/sandbox/zseccomp_linux_amd64.go
// (go generate ./engine/sandbox), so that the library and its syscall tables, whose
// initialisation every one-shot command used to pay, are not linked into the binary; other
// architectures assemble it at run time.
package setid

import (
	seccomp "github.com/elastic/go-seccomp-bpf"
	sysarch "github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/sys/unix"
)

// Bits are the mode bits no confined process may set on a file: on a root host its
// writable directories are idmapped, so a set-uid file it made would be root's outside.
const Bits = unix.S_ISUID | unix.S_ISGID

// Filter is the seccomp filter: every system call that sets a mode (chmod family, open and
// mknod with a creation mode) fails with EPERM when the mode carries a set-id bit; openat2,
// whose mode lies in a structure a filter cannot read, fails with ENOSYS so that the C
// library falls back to openat. Calls the architecture does not have (arm64 has no chmod,
// open, creat nor mknod) are left out: nothing can make them there.
func Filter() seccomp.Filter {
	var names map[string]int // an unsupported architecture fails to assemble
	if a, err := sysarch.GetInfo(""); err == nil {
		names = a.SyscallNames
	}
	var modes []seccomp.NameWithConditions
	for _, m := range []struct {
		name string
		arg  uint32
	}{{"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2}, {"open", 2}, {"openat", 3}, {"creat", 1}, {"mknod", 1}, {"mknodat", 2}} {
		if _, ok := names[m.name]; ok {
			modes = append(modes, seccomp.NameWithConditions{Name: m.name, Conditions: seccomp.ArgumentConditions{
				{Argument: m.arg, Operation: seccomp.BitsSet, Value: Bits}}})
		}
	}
	return seccomp.Filter{
		NoNewPrivs: true,
		Policy: seccomp.Policy{
			DefaultAction: seccomp.ActionAllow,
			Syscalls: []seccomp.SyscallGroup{
				{Action: seccomp.ActionErrno | seccomp.Action(unix.EPERM), NamesWithCondtions: modes},
				{Action: seccomp.ActionErrno | seccomp.Action(unix.ENOSYS), Names: []string{"openat2"}},
			},
		},
	}
}
