package desktoptest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/werr"
)

// testAccessibility: the queries and limits refused before any application is asked.
func testAccessibility(ctx context.Context, t *testing.T, a desktop.Accessibility) {
	for _, q := range []desktop.FindQuery{
		{},
		{Text: "   ", Name: "\t"},
		{WindowHandle: 1},
	} {
		_, err := a.Find(ctx, q)
		wantCode(t, err, werr.InvalidArgument, fmt.Sprintf("Find(%+v), with nothing to look for", q))
	}
	for _, q := range []desktop.FindQuery{
		{Role: "NoSuchRole"},
		{Role: "no such role", Name: "OK"},
	} {
		_, err := a.Find(ctx, q)
		e := wantCode(t, err, werr.InvalidArgument, fmt.Sprintf("Find(%+v), an unknown role", q))
		roles, _ := e.Details["roles"].([]string)
		if !slices.Contains(roles, "Button") {
			t.Fatalf("Find(%+v) refuses the role but does not list the known ones: details %v", q, e.Details)
		}
	}
	_, err := a.Find(cancelled(), desktop.FindQuery{Role: "Button"})
	wantCode(t, err, werr.Cancelled, "Find with a cancelled context")
	_, _, err = a.Tree(cancelled(), 0, 0)
	wantCode(t, err, werr.Cancelled, "Tree with a cancelled context")
	// Applications (what launch_application waits for) answers on any desktop, with real
	// pids only.
	_, err = a.Applications(cancelled())
	wantCode(t, err, werr.Cancelled, "Applications with a cancelled context")
	pids, err := a.Applications(ctx)
	if err != nil {
		t.Fatalf("Applications: %v", err)
	}
	for _, p := range pids {
		if p <= 0 {
			t.Fatalf("Applications lists pid %d: %v", p, pids)
		}
	}
	for _, l := range [][2]int{{-1, 0}, {0, -1}, {-5, -5}} {
		_, _, err := a.Tree(ctx, l[0], l[1])
		wantCode(t, err, werr.InvalidArgument, fmt.Sprintf("Tree(maxDepth %d, maxElements %d)", l[0], l[1]))
	}
}
