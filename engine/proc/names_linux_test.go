package proc

import (
	"context"
	"slices"
	"testing"

	"github.com/shirou/gopsutil/v4/process"
)

// TestNamesAndPIDsAsGopsutilReadsThem: listPIDs and longName replaced gopsutil's process
// package (docs/architecture.md#one-shot-start); on this machine's processes they agree
// with it, long names (a comm of 15 characters) included.
func TestNamesAndPIDsAsGopsutilReadsThem(t *testing.T) {
	ctx := context.Background()
	ours, err := listPIDs()
	if err != nil {
		t.Fatal(err)
	}
	theirs, err := process.PidsWithContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	long := 0
	for _, p := range theirs {
		if !slices.Contains(ours, int(p)) {
			if _, err := readStat(int(p)); err == nil {
				t.Errorf("pid %d is missing", p)
			}
			continue
		}
		st, err := readStat(int(p))
		if err != nil {
			continue // gone
		}
		gp, err := process.NewProcessWithContext(ctx, p)
		if err != nil {
			continue
		}
		want, err := gp.NameWithContext(ctx)
		if err != nil {
			continue
		}
		if len(st.comm) >= 15 {
			long++
		}
		if got := longName(int(p), st.comm); got != want {
			t.Errorf("pid %d: name %q, gopsutil says %q", p, got, want)
		}
	}
	if long == 0 {
		t.Log("no process with a 15-character comm on this machine")
	}
	t.Logf("%d processes, %d with a long name", len(theirs), long)
}
