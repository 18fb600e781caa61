//go:build linux

package snapshot_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/w365/w365/engine/snapshot"
)

// TestKeysAPageCancels: a key whose keydown the page cancels does nothing more, as on a
// keyboard: Enter taken by a tag input submits no form, a letter a digits-only field refuses
// is not inserted. Before the keys' text went in a char event of its own, which Chrome acts
// on whatever the keydown's handlers did: the form was submitted and "a1b2" went in whole.
// A key pressed on an element that takes no focus reaches its document's shortcuts; before
// it was refused.
func TestKeysAPageCancels(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	navigate(t, b, same+"/keys_cancel.html")
	st := snapshot.NewStore()
	r := take(t, st, b, snapshot.Options{})
	tag, digits, heading := refOf(t, r.Text, `textbox "Tag"`), refOf(t, r.Text, `textbox "Digits"`), refOf(t, r.Text, `heading "Shortcuts"`)

	if _, err := st.Type(tctx(t), b, r.SnapshotID, tag, "poetry", snapshot.TypeOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Keypress(tctx(t), b, r.SnapshotID, tag, "Enter", nil); err != nil {
		t.Fatal(err)
	}
	waitLog(t, b, "tag:poetry")
	typed, err := st.Type(tctx(t), b, r.SnapshotID, digits, "a1b2", snapshot.TypeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := b.EvalJS(tctx(t), "document.getElementById('digits').value"); strings.Trim(v.Value, `"`) != "12" {
		t.Errorf("the digits-only field holds %s after a1b2 (%+v), want \"12\"", v.Value, typed)
	}

	if _, err := st.Keypress(tctx(t), b, r.SnapshotID, heading, "Control+k", nil); err != nil {
		t.Fatalf("Ctrl+K on a heading: %v", err)
	}
	log := waitLog(t, b, "palette:BODY")
	if slices.Contains(log, "submitted") {
		t.Errorf("the form was submitted: %q", log)
	}
}
