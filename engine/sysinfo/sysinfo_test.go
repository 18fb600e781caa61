package sysinfo

import (
	"path/filepath"
	"testing"
)

func TestMountOf(t *testing.T) {
	mounts := []string{"/", "/home", "/home/user/data", "/homework"}
	for p, want := range map[string]string{"/": "/", "/root": "/", "/home/user": "/home", "/homework/x": "/homework", "/home/user/data": "/home/user/data"} {
		// mountOf answers in the platform's separators.
		if got := mountOf(p, mounts); got != filepath.FromSlash(want) {
			t.Errorf("mountOf(%q) = %q, want %q", p, got, want)
		}
	}
}
