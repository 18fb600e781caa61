//go:build linux

package snapshot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/engine/snapshot"
)

// TestClickInAScaledFrame: a click on an element of a frame drawn scaled down (transform:
// scale(.6), a preview) lands on it, in a frame of the page's origin and in one of another
// origin (its own process). Before the point inside the frame was added to the frame's box
// unscaled: it fell outside the frame, on the page, and the click was refused as covered.
func TestClickInAScaledFrame(t *testing.T) {
	b := launch(t)
	same, cross := serve(t, pagesDir)
	for _, child := range []string{same, cross} {
		t.Run(strings.SplitN(child, ":", 3)[1][2:], func(t *testing.T) {
			navigate(t, b, same+"/scaled_frame.html?child="+child+"/scaled_frame_child.html")
			st := snapshot.NewStore()
			// The frame loads after the page.
			r := take(t, st, b, snapshot.Options{IncludeIframes: true})
			for i := 0; i < 50 && !strings.Contains(r.Text, "Press me"); i++ {
				time.Sleep(100 * time.Millisecond)
				r = take(t, st, b, snapshot.Options{IncludeIframes: true})
			}
			if _, err := st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `button "Press me"`), snapshot.ClickOptions{}); err != nil {
				t.Fatalf("click: %v", err)
			}
			if r := take(t, st, b, snapshot.Options{IncludeIframes: true}); !strings.Contains(r.Text, "status: pressed") {
				t.Errorf("the button was not pressed:\n%s", r.Text)
			}
		})
	}
}
