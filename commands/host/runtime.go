package host

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"

	"github.com/w365/w365/engine/hostconn"
	"github.com/w365/w365/engine/sysinfo"
	"github.com/w365/w365/engine/werr"
)

// The build's identity, set with -ldflags "-X github.com/w365/w365/commands/host.version=v1.2.3"
// (and .commit, .date) by the Makefile and the release build.
var (
	version = "dev"
	commit  = ""
	date    = ""
)

// Build describes this binary for `w365 version` and `w365 host status`.
type Build struct {
	Version string `json:"version"`
	Commit  string `json:"commit,omitempty"`
	Date    string `json:"date,omitempty"`
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
}

// BuildInfo is the build's version, commit and date (from the linker flags, else from
// the VCS stamp Go records), and the Go release that compiled it.
func BuildInfo() Build {
	b := Build{Version: version, Commit: commit, Date: date, Go: runtime.Version()}
	b.OS, b.Arch = sysinfo.Target()
	if b.Commit == "" {
		b.Commit = vcsSetting("vcs.revision")
	}
	if b.Date == "" {
		b.Date = vcsSetting("vcs.time")
	}
	return b
}

// vcsSetting is a VCS stamp Go recorded in the binary ("" for none). It is read only
// for what the linker flags left unset: parsing the build information (a line per
// module) is work a one-shot call of a stamped build need not do.
func vcsSetting(key string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == key {
				return s.Value
			}
		}
	}
	return ""
}

// release is the version and the commit it was built from (v1.2.3+0123456789ab): what an
// MCP client is told, in the initialize result and, with the newest protocol, in every
// result's _meta.
var release = sync.OnceValue(func() string {
	v := version
	// The stamped commit, else the one Go records (release builds record none).
	rev := commit
	if rev == "" {
		rev = vcsSetting("vcs.revision")
	}
	if len(rev) >= 12 {
		v += "+" + rev[:12]
	}
	return v
})

var versionOnce = sync.OnceValue(func() string {
	v := release()
	// A rebuilt binary must not talk to a host running the old code: add the
	// executable's size and modification time (a stat, cheap for one-shot CLI calls).
	if exe, err := os.Executable(); err == nil {
		if st, err := os.Stat(exe); err == nil {
			v += fmt.Sprintf("-%x.%x", st.Size(), st.ModTime().UnixNano())
		}
	}
	return v
})

// Version identifies this exact build; client and host must agree on it.
func Version() string { return versionOnce() }

// RuntimeDir is where the host's socket, lock and log live: W365_RUNTIME_DIR, else the
// platform's per-user place. It must be a private directory of this user.
func RuntimeDir() (string, error) {
	dir := os.Getenv("W365_RUNTIME_DIR")
	if dir == "" {
		dir = hostconn.DefaultDir()
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", werr.Wrap(err, werr.Unavailable, "cannot create runtime directory")
	}
	// Refuse a directory somebody else controls: the socket drives this user's desktop.
	st, err := os.Lstat(dir)
	if err != nil {
		return "", werr.Wrap(err, werr.Unavailable, "cannot stat runtime directory")
	}
	if !st.IsDir() || !hostconn.Private(st) {
		return "", werr.New(werr.Unavailable, "runtime directory %s is not a private directory of this user", dir)
	}
	return dir, nil
}

// SocketPath is the host's socket (AF_UNIX, which Windows 10 and later have too).
func SocketPath() (string, error) {
	dir, err := RuntimeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "host.sock"), nil
}
