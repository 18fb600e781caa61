//go:build linux && !amd64

package sandbox

import (
	seccomp "github.com/elastic/go-seccomp-bpf"

	"github.com/w365/w365/engine/sandbox/internal/setid"
)

// loadSetidFilter sets no_new_privs and loads the set-id filter (internal/setid) on the
// calling thread, assembled for this architecture.
func loadSetidFilter() error { return seccomp.LoadFilter(setid.Filter()) }

// seccompSupported says the kernel takes seccomp filters.
func seccompSupported() bool { return seccomp.Supported() }
