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

// TestVisibleIsPlaywrightsRule: every check of "visible" (browser_wait_for's visible, the
// browser actions, the ref actions, a canvas's fallback content) follows one rule,
// Playwright's (browser.VisibleBoxJS): an element of visibility: collapse, or under an
// ancestor of content-visibility: hidden, is not visible though it has a box; one of opacity 0,
// or of visibility: visible under a hidden parent, is. Before the waits and the actions took
// the collapsed and the skipped buttons for visible (checking only visibility: hidden and the
// box), a click then waiting for a cover that was not there, and a hidden canvas's fallback
// button was pressed.
func TestVisibleIsPlaywrightsRule(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	navigate(t, b, same+"/snap_visibility.html")
	for id, want := range map[string]bool{"faint": true, "back": true, "inside": true, "hid": false, "collapsed": false, "skipped": false} {
		_, err := b.WaitFor(tctx(t), browser.WaitOptions{Selector: "#" + id, Visible: true, TimeoutMs: 300})
		if (err == nil) != want {
			t.Errorf("wait for #%s visible: want visible %t, got %v", id, want, err)
		}
	}
	for _, id := range []string{"collapsed", "skipped"} {
		_, err := b.Click(tctx(t), browser.CSS("#"+id))
		if err == nil || !strings.Contains(err.Error(), "not visible") {
			t.Errorf("click #%s: want not visible, got %v", id, err)
		}
	}
	if _, err := b.Click(tctx(t), browser.CSS("#faint")); err != nil {
		t.Fatalf("click the button of opacity 0: %v", err)
	}
	waitLog(t, b, "faint")

	st := snapshot.NewStore()
	r := take(t, st, b, snapshot.Options{})
	later, drawn := refOf(t, r.Text, `button "Later"`), refOf(t, r.Text, `button "Drawn"`)
	for _, s := range []string{"Hid", "Collapsed", "Skipped"} {
		if strings.Contains(r.Text, `button "`+s+`"`) {
			t.Errorf("button %q is in the snapshot:\n%s", s, r.Text)
		}
	}
	if _, err := b.EvalJS(tctx(t), `document.getElementById('later').style.visibility = 'collapse'; document.getElementById('c').style.visibility = 'hidden'`); err != nil {
		t.Fatal(err)
	}
	for ref, what := range map[string]string{later: "Later", drawn: "Drawn"} {
		_, err := st.Click(tctx(t), b, r.SnapshotID, ref, snapshot.ClickOptions{})
		if err == nil || !strings.Contains(err.Error(), "not visible") {
			t.Errorf("click %s once hidden: want not visible, got %v", what, err)
		}
	}
	if got := pageLog(t, b); strings.Contains(strings.Join(got, ","), "drawn") {
		t.Errorf("the fallback button of a hidden canvas was pressed: %v", got)
	}
}
