//go:build linux

package snapshot_test

import (
	"testing"

	"github.com/w365/w365/engine/snapshot"
)

// A click that makes the page open a file chooser (an upload button over a hidden file
// input) says so, for the caller to answer it: the result said nothing, and an agent had
// no way to know the chooser was waiting. A click that opens none does not say it.
func TestClickSaysAFileChooserOpened(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/upload_button.html")
	r := take(t, st, b, snapshot.Options{})
	res, err := st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `button "Do nothing"`), snapshot.ClickOptions{})
	if err != nil || res.FileChooser {
		t.Fatalf("a click that opens no chooser: %+v, %v", res, err)
	}
	res, err = st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `button "Choose a file"`), snapshot.ClickOptions{})
	if err != nil || !res.FileChooser {
		t.Fatalf("the upload button's click does not say a file chooser opened: %+v, %v", res, err)
	}
}
