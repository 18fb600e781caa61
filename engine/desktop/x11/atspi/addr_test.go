//go:build linux

package atspi

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// dialLocal reaches a socket beside the session bus or below a directory the session's
// programs write (an application's own server in HOME/.cache), never one elsewhere nor one
// through a symbolic link.
func TestDialLocalReachesOnlyTheSessionsSockets(t *testing.T) {
	busDir, home, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	listen := func(p string) {
		os.MkdirAll(filepath.Dir(p), 0o700)
		l, err := net.Listen("unix", p)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
	}
	bus := filepath.Join(busDir, "bus")
	own := filepath.Join(home, ".cache", "at-spi2-ABC", "socket")
	host := filepath.Join(elsewhere, "socket")
	for _, p := range []string{bus, own, host} {
		listen(p)
	}
	link := filepath.Join(home, ".cache", "link")
	os.Symlink(host, link)
	for _, c := range []struct {
		path string
		dirs []string
		ok   bool
	}{
		{bus, nil, true},
		{own, nil, false},
		{own, []string{home}, true},
		{host, []string{home}, false},
		{link, []string{home}, false},
		{filepath.Join(home, "..", filepath.Base(elsewhere), "socket"), []string{home}, false},
	} {
		c0, err := dialLocal("unix:path="+c.path, "unix:path="+bus, time.Second, c.dirs...)
		if err == nil {
			c0.Close()
		}
		if (err == nil) != c.ok {
			t.Errorf("dialLocal(%s, dirs %v): %v, want reached %v", c.path, c.dirs, err, c.ok)
		}
	}
}
