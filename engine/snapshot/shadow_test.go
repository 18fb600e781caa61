//go:build linux

package snapshot_test

import (
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/engine/browser"
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

// Fields in a closed shadow root, and in an open one inside it, take text by ref
// (browser_type_ref) and through the element a ref resolves to (browser_type,
// browser_click with a ref): the focus and the hit test look inside the roots, not at
// the outermost host.
func TestTypeIntoClosedShadowRoot(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/closed_form.html")
	take(t, st, b, snapshot.Options{IncludeIframes: true})
	ref := func(role, name string) (string, string) {
		t.Helper()
		fr, err := st.Find(tctx(t), b, snapshot.FindQuery{Role: role, Name: name})
		if err != nil || fr.Total != 1 {
			t.Fatalf("find %s %q: %+v, %v", role, name, fr, err)
		}
		return fr.SnapshotID, fr.Matches[0].Ref
	}
	id, msg := ref("textbox", "Gift message")
	if _, err := st.Type(tctx(t), b, id, msg, "Happy birthday", snapshot.TypeOptions{}); err != nil {
		t.Fatalf("type_ref in the closed root: %v", err)
	}
	id, code := ref("textbox", "Promo code")
	e, err := st.Element(tctx(t), b, id, code)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Type(tctx(t), e, "SAVE10", browser.TypeOptions{}); err != nil {
		t.Fatalf("type in the open root inside the closed one: %v", err)
	}
	id, apply := ref("button", "Apply code")
	if e, err = st.Element(tctx(t), b, id, apply); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Click(tctx(t), e); err != nil {
		t.Fatalf("click in the open root inside the closed one: %v", err)
	}
	v, err := b.EvalJS(tctx(t), "document.getElementById('applied').textContent")
	if err != nil || v.Value != "Happy birthday|SAVE10" {
		t.Fatalf("the page got %+v, %v", v, err)
	}
}
