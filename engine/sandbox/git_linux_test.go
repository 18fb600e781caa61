//go:build linux

package sandbox

import (
	"slices"
	"testing"
	"time"
)

// A git guard's walk that outlives its call (gitGuardWait) goes on by itself: until it
// ends the session's calls are refused, and what it renamed after its call returned is
// named by the next call's result, once. The walk here is held by the test, as a walk
// through a million directories is held by the disk.
func TestGitGuardNamesWhatALateWalkRenamedInTheNextCall(t *testing.T) {
	r := &Runner{}
	release := make(chan struct{})
	renamed := []string{"/w/r/.git/config", "/w/r/.git/hooks"}
	got, ended := r.guardAfter(func() []string {
		<-release
		return renamed
	})
	if ended || got != nil {
		t.Fatalf("a walk still running ended with its call: %v %v", got, ended)
	}
	if err := r.guardIdle(); err == nil {
		t.Fatal("a call was let run while the walk went on")
	}
	if late := r.takeLate(); len(late) != 0 {
		t.Fatalf("names before the walk ended: %v", late)
	}
	close(release)
	for deadline := time.Now().Add(10 * time.Second); r.guardIdle() != nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the walk never ended")
		}
	}
	if late := r.takeLate(); !slices.Equal(late, renamed) {
		t.Fatalf("the next call names %v, want %v", late, renamed)
	}
	if late := r.takeLate(); len(late) != 0 {
		t.Fatalf("named twice: %v", late)
	}

	// A walk that ends within its call names what it renamed in that call's result only.
	got, ended = r.guardAfter(func() []string { return renamed })
	if !ended || !slices.Equal(got, renamed) {
		t.Fatalf("a walk within its call: %v %v", got, ended)
	}
	if late := r.takeLate(); len(late) != 0 {
		t.Fatalf("a walk within its call was named again later: %v", late)
	}
}
