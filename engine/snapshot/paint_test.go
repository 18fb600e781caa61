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
	clickButton(t, st, b, "Open late")
	clickButton(t, st, b, "Late button")
	waitLog(t, b, "clicked")
}
