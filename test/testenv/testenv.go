// Package testenv gates tests on the components they need: under CI=true a missing one
// fails the test instead of skipping it (CI installs everything the tests need).
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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

// Root is the repository's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}
