//go:build linux

package snapshot_test

import (
	"strings"
	"testing"

	"github.com/w365/w365/engine/snapshot"
)

// TestCanvasFallbackContent: the buttons of a canvas's fallback content (its accessible form,
// which Chromium's accessibility tree has) are in the snapshot, and a click on one, which has
// no box to click, activates it as assistive technology does (its default action: the
// button pressed, the checkbox ticked). Before neither was in the snapshot.
func TestCanvasFallbackContent(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	navigate(t, b, same+"/canvas_fallback.html")
	st := snapshot.NewStore()
	r := take(t, st, b, snapshot.Options{})
	seat, aisle := refOf(t, r.Text, `button "Seat B4"`), refOf(t, r.Text, `checkbox "Aisle"`)
	if _, err := st.Click(tctx(t), b, r.SnapshotID, seat, snapshot.ClickOptions{}); err != nil {
		t.Fatalf("click the seat: %v", err)
	}
	waitLog(t, b, "seat")
	if _, err := st.Click(tctx(t), b, r.SnapshotID, aisle, snapshot.ClickOptions{}); err != nil {
		t.Fatalf("click the checkbox: %v", err)
	}
	waitLog(t, b, "aisle:true")
	if r := take(t, st, b, snapshot.Options{}); !strings.Contains(r.Text, `button "Seat B4" [pressed]`) {
		t.Errorf("the seat does not read pressed:\n%s", r.Text)
	}
}
