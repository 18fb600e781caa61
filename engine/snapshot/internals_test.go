//go:build linux

package snapshot_test

import (
	"strings"
	"testing"

	"github.com/w365/w365/engine/snapshot"
)

// Custom elements that take their role, name and states from ElementInternals (no
// attribute says them) show with that role, name and state in the snapshot and in
// browser_find, in the document and in open and closed shadow roots; clicks by ref act on
// them and the next snapshot shows the state they changed. Without the browser's tree the
// switch and the tabs were generic text and the unnamed checkbox was not there at all.
func TestElementInternalsRoles(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/internals.html")

	r := take(t, st, b, snapshot.Options{})
	for _, want := range []string{`switch "Dark mode" [ref=`, `checkbox "Accept the terms" [ref=`, `button "Save changes" [ref=`,
		`tab "General" [selected] [ref=`, `tab "Advanced" [ref=`} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the snapshot has no %q:\n%s", want, r.Text)
		}
	}
	for _, q := range []snapshot.FindQuery{{Role: "switch", Name: "Dark mode"}, {Role: "checkbox", Name: "Accept the terms"}, {Role: "button", Name: "Save changes"}, {Role: "tab", Name: "Advanced"}} {
		if fr, err := st.Find(tctx(t), b, q); err != nil || fr.Total != 1 {
			t.Errorf("find %+v: %+v, %v", q, fr, err)
		}
	}
	for _, name := range []string{`switch "Dark mode"`, `checkbox "Accept the terms"`, `button "Save changes"`} {
		if _, err := st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, name), snapshot.ClickOptions{}); err != nil {
			t.Fatalf("click %s: %v", name, err)
		}
	}
	v, err := b.EvalJS(tctx(t), "document.getElementById('result').textContent")
	if want := `{"dark":"true","terms":true,"Save changes":true}`; err != nil || v.Value != want {
		t.Errorf("after the clicks the page holds %+v (%v), want %s", v, err, want)
	}
	r = take(t, st, b, snapshot.Options{})
	for _, want := range []string{`switch "Dark mode" [checked] [ref=`, `checkbox "Accept the terms" [checked] [ref=`} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("after the clicks the snapshot has no %q:\n%s", want, r.Text)
		}
	}
}
