//go:build linux

package snapshot_test

import (
	"strings"
	"testing"

	"github.com/w365/w365/engine/snapshot"
)

// A click that opens a popup says so (newTabs), and a click in the popup that makes it
// report back and close itself succeeds, saying the tab closed and which one is active,
// instead of failing NOT_FOUND "the tab was closed" after its effect took place. The close
// races the click's end: several rounds.
func TestClickThatClosesItsTab(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	click := func(name string) snapshot.ActResult {
		t.Helper()
		fr, err := st.Find(tctx(t), b, snapshot.FindQuery{Role: "button", Name: name})
		if err != nil || fr.Total != 1 {
			t.Fatalf("find button %q: %+v, %v", name, fr, err)
		}
		r, err := st.Click(tctx(t), b, fr.SnapshotID, fr.Matches[0].Ref, snapshot.ClickOptions{})
		if err != nil {
			t.Fatalf("click %q: %v", name, err)
		}
		return r
	}
	for round := 0; round < 5; round++ {
		navigate(t, b, same+"/popup.html")
		if r := click("Open picker"); len(r.NewTabs) != 1 || !strings.HasSuffix(r.NewTabs[0].URL, "/popup_child.html") {
			t.Fatalf("round %d: the opening click's new tabs: %+v", round, r.NewTabs)
		}
		if r := click("Navy"); r.AfterClose == nil || !strings.HasSuffix(r.AfterClose.URL, "/popup.html") {
			t.Fatalf("round %d: the closing click's result: %+v", round, r.ActionResult)
		}
		v, err := b.EvalJS(tctx(t), "document.getElementById('chosen').textContent")
		if err != nil || v.Value != "Navy" {
			t.Fatalf("round %d: the opener got %+v, %v", round, v, err)
		}
	}
}
