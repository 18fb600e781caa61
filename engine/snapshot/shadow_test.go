//go:build linux

package snapshot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/engine/snapshot"
)

// A consent banner in a closed shadow root is in the snapshot, browser_find, the
// page text (browser_get_text) and the frame texts, and its button clicks by ref; text that comes late in an open
// shadow root is in the frame texts that browser_wait_for polls.
func TestClosedShadowRoot(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/closed_banner.html")

	r := take(t, st, b, snapshot.Options{IncludeIframes: true})
	if !strings.Contains(r.Text, "We use cookies to improve your visit.") {
		t.Errorf("the banner's text is not in the snapshot:\n%s", r.Text)
	}
	var texts []string
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		var err error
		if texts, err = snapshot.FrameTexts(tctx(t), b); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(strings.Join(texts, "\n"), "the late edition is out") {
			break
		}
	}
	if all := strings.Join(texts, "\n"); !strings.Contains(all, "the late edition is out") || !strings.Contains(all, "We use cookies") {
		t.Errorf("frame texts miss shadow content: %q", texts)
	}
	if pt, err := snapshot.PageText(tctx(t), b, 1<<20); err != nil || !strings.Contains(pt.Text, "We use cookies") || !strings.Contains(pt.Text, "Today's news") {
		t.Errorf("page text: %+v, %v", pt, err)
	}
	fr, err := st.Find(tctx(t), b, snapshot.FindQuery{Role: "button", Name: "Accept all"})
	if err != nil || fr.Total != 1 {
		t.Fatalf("find: %+v, %v", fr, err)
	}
	if _, err := st.Click(tctx(t), b, fr.SnapshotID, fr.Matches[0].Ref, snapshot.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	v, err := b.EvalJS(tctx(t), "document.getElementById('consent').textContent")
	if err != nil || v.Value != "accepted" {
		t.Fatalf("after the click: %+v, %v", v, err)
	}
}
