//go:build linux

package snapshot_test

import (
	"strings"
	"testing"

	"github.com/w365/w365/engine/snapshot"
	"github.com/w365/w365/engine/werr"
)

// TestOptionOfADropDown: the groups of a drop-down <select> are named by their labels, so
// that options sharing a label are told apart, and a click on an option's ref (it has no box:
// the open list is the browser's own) chooses it, as a person picks it from the list, with
// input and change. Before, the groups had no name, and the click failed: "not visible".
func TestOptionOfADropDown(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	navigate(t, b, same+"/select_groups.html")
	st := snapshot.NewStore()
	r := take(t, st, b, snapshot.Options{})
	i := strings.Index(r.Text, `group "Massachusetts"`)
	if i < 0 || !strings.Contains(r.Text, `group "Illinois"`) {
		t.Fatalf("the groups are not named by their labels:\n%s", r.Text)
	}
	ma := refOf(t, r.Text[i:], `option "Springfield"`)
	if _, err := st.Click(tctx(t), b, r.SnapshotID, ma, snapshot.ClickOptions{}); err != nil {
		t.Fatalf("click the option: %v", err)
	}
	if log := waitLog(t, b, "change:ma"); log[0] != "input:ma" {
		t.Errorf("page log %q, want input:ma then change:ma", log)
	}
	r = take(t, st, b, snapshot.Options{})
	if !strings.Contains(r.Text, `option "Springfield" [selected] [ref=`+ma+`]`) {
		t.Errorf("the option does not read selected:\n%s", r.Text)
	}
	// A disabled option is not chosen.
	_, err := st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `option "Boston"`), snapshot.ClickOptions{})
	wantCode(t, err, werr.InvalidArgument)
	if log := pageLog(t, b); len(log) != 2 {
		t.Errorf("page log %q after a click on a disabled option", log)
	}
}
