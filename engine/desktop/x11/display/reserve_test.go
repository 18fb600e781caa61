//go:build linux

package display

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A display number whose socket path is a link a w365 host that died left (into a private
// directory that is gone) is taken back when no live process holds its lock; while one does,
// the number is passed over.
func TestReserveDisplayTakesBackWhatADeadHostLeft(t *testing.T) {
	// Far above the numbers the other tests' desktops take.
	n := 7000 + os.Getpid()%2000
	unix, _ := os.ReadFile("/proc/net/unix")
	for ; ; n++ {
		_, errL := os.Lstat(fmt.Sprintf("/tmp/.X%d-lock", n))
		_, errS := os.Lstat(fmt.Sprintf("/tmp/.X11-unix/X%d", n))
		if os.IsNotExist(errL) && os.IsNotExist(errS) && !strings.Contains(string(unix), fmt.Sprintf("@/tmp/.X11-unix/X%d\n", n)) {
			break
		}
	}
	lock, sock := fmt.Sprintf("/tmp/.X%d-lock", n), fmt.Sprintf("/tmp/.X11-unix/X%d", n)
	gone := filepath.Join(t.TempDir(), "w365-xauth-gone", "X11", fmt.Sprintf("X%d", n))
	if err := os.Symlink(gone, sock); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Remove(sock); os.Remove(lock) })
	reserve := func() int {
		d := &Desktop{authDir: t.TempDir()}
		got, err := d.reserveDisplay(n)
		if err != nil {
			t.Fatal(err)
		}
		d.Stop()
		return got
	}

	os.WriteFile(lock, []byte(fmt.Sprintf("%10d\n", os.Getpid())), 0o444)
	if got := reserve(); got == n {
		t.Fatalf("took :%d, whose lock a live process holds", n)
	}
	if target, err := os.Readlink(sock); err != nil || target != gone {
		t.Fatalf("the link of :%d was touched: %q %v", n, target, err)
	}

	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	os.Remove(lock)
	os.WriteFile(lock, []byte(fmt.Sprintf("%10d\n", dead.Process.Pid)), 0o444)
	if got := reserve(); got != n {
		t.Fatalf("took :%d, want :%d, which a dead host left", got, n)
	}
	if _, err := os.Lstat(sock); !os.IsNotExist(err) {
		t.Errorf("the desktop's link outlived its Stop: %v", err)
	}
}
