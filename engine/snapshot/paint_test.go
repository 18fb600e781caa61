//go:build linux

package snapshot_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/w365/w365/engine/snapshot"
)

// A click on a page that has not painted yet (its stylesheet still loading) waits for the
// first paint: Chromium drops the clicks a page gets before it, and the click was lost
// while its result said it clicked.
func TestClickWaitsForTheFirstPaint(t *testing.T) {
	b := launch(t)
	files := http.FileServer(http.Dir(pagesDir))
	same, _ := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/slow.css" {
			time.Sleep(time.Second)
			w.Header().Set("Content-Type", "text/css")
			w.Write([]byte("button { font-size: 20px }"))
			return
		}
		files.ServeHTTP(w, r)
	}))
	st := snapshot.NewStore()
	navigate(t, b, same+"/paint_late.html")
	click := func(name string) {
		t.Helper()
		fr, err := st.Find(tctx(t), b, snapshot.FindQuery{Role: "button", Name: name})
		if err != nil || fr.Total != 1 {
			t.Fatalf("find button %q: %+v, %v", name, fr, err)
		}
		if _, err := st.Click(tctx(t), b, fr.SnapshotID, fr.Matches[0].Ref, snapshot.ClickOptions{}); err != nil {
			t.Fatalf("click %q: %v", name, err)
		}
	}
	click("Open late")
	click("Late button")
	waitLog(t, b, "clicked")
}
