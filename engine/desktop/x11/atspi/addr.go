//go:build linux

package atspi

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// The addresses the host dials for accessibility come from programs of the session: the
// accessibility bus's from whoever owns org.a11y.Bus on the session bus (any client may
// take the name over), an application's own server's from the application. The host dials
// them as itself, unconfined, so it takes only a unix socket in the session bus's own
// directory (a virtual desktop's private directory, the person's runtime directory),
// reached with no symbolic link, or an abstract one where the session bus is abstract too.
// Any other transport would have the host connect where the session chose (tcp: anywhere;
// nonce-tcp: read a file of the host's and send it there), and a path elsewhere, or through
// a link, to another bus or service (docs/security.md#confinement).

// An application's own server may also lie in one of the session's directories its
// programs write (Tree.AllowPeersIn: a virtual session's HOME, where atk-bridge puts it in
// .cache when it has no runtime directory), reached the same way.

// dialLocal connects to addr (a D-Bus address) when it names such a socket: beside the
// session bus, or below one of dirs.
func dialLocal(addr, sessionAddr string, timeout time.Duration, dirs ...string) (net.Conn, error) {
	path, abstract, err := unixAddress(addr)
	if err != nil {
		return nil, err
	}
	sessionPath, _, _ := unixAddress(sessionAddr)
	d := net.Dialer{Timeout: timeout}
	switch {
	case abstract != "" && sessionPath == "":
		return d.Dial("unix", "@"+abstract)
	case path == "" || sessionPath == "":
		return nil, fmt.Errorf("refused accessibility address %q: not a socket beside the session bus", addr)
	}
	dir, rel := "", ""
	for _, d := range append([]string{filepath.Dir(sessionPath)}, dirs...) {
		if r, err := filepath.Rel(d, path); err == nil && filepath.IsLocal(r) {
			dir, rel = d, r
			break
		}
	}
	if dir == "" {
		return nil, fmt.Errorf("refused accessibility address %q: not in the session bus's directory %s", addr, filepath.Dir(sessionPath))
	}
	dfd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(dfd)
	fd, err := unix.Openat2(dfd, rel, &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS})
	if err != nil {
		return nil, fmt.Errorf("refused accessibility address %q: %w", addr, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		return nil, fmt.Errorf("refused accessibility address %q: not a socket", addr)
	}
	// The socket the handle names, not the path looked up again.
	return d.Dial("unix", "/proc/self/fd/"+strconv.Itoa(fd))
}

// unixAddress is the socket path or abstract name of a D-Bus address of one unix: entry
// with nothing but path=, abstract= and guid= keys, unescaped.
func unixAddress(addr string) (path, abstract string, err error) {
	rest, ok := strings.CutPrefix(addr, "unix:")
	if !ok || strings.Contains(addr, ";") || strings.Contains(addr, "%") {
		return "", "", fmt.Errorf("refused accessibility address %q: only one unix: socket is taken", addr)
	}
	for _, kv := range strings.Split(rest, ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "path":
			path = v
		case "abstract":
			abstract = v
		case "guid":
		default:
			return "", "", fmt.Errorf("refused accessibility address %q: key %q", addr, k)
		}
	}
	if (path == "") == (abstract == "") {
		return "", "", fmt.Errorf("refused accessibility address %q: one path or abstract name", addr)
	}
	return path, abstract, nil
}
