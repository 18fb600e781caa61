//go:build linux

package browser_test

import (
	"testing"
	"time"

	"github.com/w365/w365/engine/browser"
)

// TestAPopupThatClosesItselfHandsBackToItsOpener: when the active tab closes (a preview or
// sign-in popup that closes itself once done), the tab that opened it is active again, the
// one the browser shows in front, not the neighbour in the list: that could be a tab left in
// the background, whose pages the browser throttles (an upload bar there never moved, a form
// there was not sent). Before, the tab before it in the list became active ("Second").
func TestAPopupThatClosesItselfHandsBackToItsOpener(t *testing.T) {
	b, s := launch(t)
	navigate(t, b, s.URL+"/tabs.html")
	tabs, err := b.ListTabs(tctx(t))
	if err != nil || len(tabs) != 1 {
		t.Fatalf("tabs = %+v, %v", tabs, err)
	}
	first := tabs[0].ID
	if ar, err := b.Click(tctx(t), browser.CSS("#blank")); err != nil || len(ar.NewTabs) != 1 {
		t.Fatalf("target=_blank: %+v, %v", ar, err)
	}
	if _, err := b.SwitchTab(tctx(t), browser.TabRef{ID: first}); err != nil {
		t.Fatal(err)
	}
	if ar, err := b.Click(tctx(t), browser.CSS("#open")); err != nil || len(ar.NewTabs) != 1 {
		t.Fatalf("window.open: %+v, %v", ar, err)
	}
	if title, _ := b.Title(tctx(t)); title != "Third" {
		t.Fatalf("active after window.open = %q", title)
	}
	// The popup closes itself (a script may close a window a script opened).
	if _, err := b.EvalJS(tctx(t), "setTimeout(() => window.close(), 100), 1"); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		tabs, _ = b.ListTabs(tctx(t))
		if len(tabs) == 2 {
			break
		}
		if i == 50 {
			t.Fatalf("the popup did not close: %+v", tabs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if title, _ := b.Title(tctx(t)); title != "Tabs" {
		t.Errorf("active after the popup closed = %q, want its opener's (Tabs)", title)
	}
}
