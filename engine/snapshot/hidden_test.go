//go:build linux

package snapshot_test

import (
	"strings"
	"testing"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/snapshot"
)

// TestVisibilityHiddenIsLeftOut: an element of visibility: hidden (a row's actions shown only
// while the pointer is on the row) is not in the snapshot, nor its text, while a child that
// sets itself visible again is; once the pointer is on the row, its action shows and is
// clicked. Before the hidden button showed with a ref that a click refused as not visible.
func TestVisibilityHiddenIsLeftOut(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	navigate(t, b, same+"/snap_hidden_actions.html")
	st := snapshot.NewStore()
	r := take(t, st, b, snapshot.Options{})
	if strings.Contains(r.Text, "Renew Dune") || strings.Contains(r.Text, "Hidden words") || !strings.Contains(r.Text, `button "Shown again"`) {
		t.Fatalf("want neither the hidden button nor the hidden text, and the button shown again:\n%s", r.Text)
	}
	if _, err := b.Hover(tctx(t), browser.CSS("td")); err != nil {
		t.Fatal(err)
	}
	r = take(t, st, b, snapshot.Options{})
	if _, err := st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `button "Renew Dune"`), snapshot.ClickOptions{}); err != nil {
		t.Fatalf("click the row's action with the pointer on the row: %v", err)
	}
}
