package hostconn

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// PeerRefused says why the host will not serve the process at the other end of c, or "" when
// it will. The socket is the host's whole authority (it launches programs, types, reads the
// screen), so besides the private runtime directory that hides it, the host checks who
// connected (SO_PEERCRED): a process of another user is refused, and so is one inside a
// sandbox of ours, seen by a namespace (mount, user or PID) other than the host's or by the
// sandbox's per-run cgroup. Whatever cannot be read is refused.
func PeerRefused(c net.Conn) string {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return ""
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return "cannot read the peer's credentials"
	}
	var cred *unix.Ucred
	cerr := raw.Control(func(fd uintptr) {
		cred, err = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	})
	if cerr != nil || err != nil {
		return "cannot read the peer's credentials"
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Sprintf("the peer runs as uid %d, not as this user", cred.Uid)
	}
	if cred.Pid <= 0 {
		// The kernel reports 0 for a peer in a PID namespace the host cannot see.
		return "the peer is in a PID namespace of its own"
	}
	ours := ownNamespaces()
	for i, ns := range namespaces {
		theirs, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", cred.Pid, ns))
		if ours[i] == "" || err != nil {
			return fmt.Sprintf("cannot read the peer's %s namespace", ns)
		}
		if ours[i] != theirs {
			return fmt.Sprintf("the peer is in another %s namespace (a sandbox)", ns)
		}
	}
	cg, err := cgroups(fmt.Sprintf("/proc/%d/cgroup", cred.Pid))
	if err != nil {
		return "cannot read the peer's cgroup"
	}
	for _, p := range cg {
		if sandboxCgroup(p) {
			return "the peer runs in a w365 sandbox's cgroup"
		}
	}
	return ""
}

// namespaces are the namespaces a peer must share with the host.
var namespaces = [...]string{"mnt", "user", "pid"}

// ownNamespaces are the host's own namespaces (their /proc links, "" where unreadable),
// read once: a process stays in the namespaces it started in unless it enters others,
// which the host never does (its sandboxes are processes of their own).
var ownNamespaces = sync.OnceValue(func() (ours [len(namespaces)]string) {
	for i, ns := range namespaces {
		ours[i], _ = os.Readlink("/proc/self/ns/" + ns)
	}
	return ours
})

// cgroups lists the cgroup paths in a /proc/PID/cgroup file (one per hierarchy).
func cgroups(file string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// hierarchy-ID:controllers:path
		if parts := strings.SplitN(sc.Text(), ":", 3); len(parts) == 3 {
			out = append(out, parts[2])
		}
	}
	return out, sc.Err()
}

// sandboxCgroup says whether a cgroup path is one of the sandbox's per-run cgroups
// (engine/sandbox makes them as w365/run-* under the pids or unified hierarchy).
func sandboxCgroup(path string) bool {
	segs := strings.Split(path, "/")
	i := slices.Index(segs, "w365")
	return i >= 0 && i+1 < len(segs) && strings.HasPrefix(segs[i+1], "run-")
}
