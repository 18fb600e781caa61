//go:build linux

package snapshot_test

import (
	"strings"
	"testing"

	"github.com/w365/w365/engine/snapshot"
)

// A click on an element still moving (a carousel's card sliding in) waits for it to rest:
// it was sent where the card stood when located, the card went on sliding, and the click
// landed beside it while its result said it clicked (the agent task "page a carousel whose
// hidden slides are inert; choose one").
func TestClickWaitsForAMovingElementToRest(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/snap_sliding.html")
	clickButton(t, st, b, "Next")
	clickButton(t, st, b, "Choose B")
	clickButton(t, st, b, "Next")
	clickButton(t, st, b, "Choose C")
	if log := pageLog(t, b); strings.Join(log, ",") != "B,C" {
		t.Errorf("the page saw %v", log)
	}
}

// An image map's areas are links of the image that uses the map, as the browser's own tree
// has them, and a click on one lands on its shape: the snapshot showed the image alone (the
// areas have no box, and the walk left them out), so no tool could choose a room on a floor
// plan (the agent task "choose a room on an image map, book it").
func TestImageMapAreasAreLinksToClick(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/snap_imagemap.html")
	r := take(t, st, b, snapshot.Options{})
	if !strings.Contains(r.Text, `img "Floor plan"`) || strings.Contains(r.Text, "no link") {
		t.Fatalf("snapshot:\n%s", r.Text)
	}
	for _, room := range []string{"A", "C"} {
		ref := refOf(t, r.Text, `link "Room `+room+`"`)
		if _, err := st.Click(tctx(t), b, r.SnapshotID, ref, snapshot.ClickOptions{}); err != nil {
			t.Fatalf("click room %s: %v", room, err)
		}
		waitLog(t, b, room)
	}
	if log := pageLog(t, b); strings.Join(log, ",") != "A,C" {
		t.Errorf("the page saw %v", log)
	}
}
