// Package testenv gates tests on the components they need: under CI=true a missing one
// fails the test instead of skipping it (CI installs everything the tests need).
package testenv

import (
	"image"
	"image/png"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// Missing stops a test that lacks a component: under CI=true it fails (CI installs
// everything the tests need), elsewhere it skips. Every test gate goes through here.
func Missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is required (CI=true)", what)
	}
	t.Skipf("%s not available", what)
}

// Require stops the test through Missing when a program it needs is not installed.
func Require(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			Missing(t, p)
		}
	}
}

// Root is the repository's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// PNG is the image in the PNG file at path; the test fails when it cannot be read.
func PNG(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// HangUpServer listens on loopback, accepts every connection and closes each after the
// given time without a byte sent: a server that answers nothing. It stops at cleanup.
func HangUpServer(t testing.TB, after time.Duration) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() { time.Sleep(after); c.Close() }()
		}
	}()
	return l
}
