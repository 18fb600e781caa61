// Package displaytest starts a real virtual desktop for a test and stops it afterwards
// (Linux: the desktop is X11), and gates tests on the programs they need (everywhere).
// Under CI=true a missing Xvfb fails the test instead of skipping it.
package displaytest

import (
	"os"
	"os/exec"
	"testing"
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
