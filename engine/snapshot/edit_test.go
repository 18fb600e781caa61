//go:build linux

package snapshot_test

import (
	"strings"
	"testing"

	"github.com/w365/w365/engine/snapshot"
	"github.com/w365/w365/engine/werr"
)

// Where editing starts (a contenteditable cell or paragraph) has a ref, whatever its role,
// and text typed there replaces what it held: a stock sheet's count cells had none, so an
// agent could read the count but not change it.
func TestEditableCellsHaveRefs(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/editable_cells.html")
	r := take(t, st, b, snapshot.Options{})
	if strings.Contains(r.Text, `cell "Dune" [ref=`) {
		t.Errorf("a cell no one can edit has a ref:\n%s", r.Text)
	}
	cell := refOf(t, r.Text, `cell "4"`)
	note := refOf(t, r.Text, `A note`)
	for ref, text := range map[string]string{cell: "9", note: "Checked"} {
		if _, err := st.Type(tctx(t), b, r.SnapshotID, ref, text, snapshot.TypeOptions{Clear: true}); err != nil {
			t.Fatal(err)
		}
	}
	v, err := b.EvalJS(tctx(t), "document.querySelector('td[contenteditable]').textContent + '|' + document.querySelector('p').textContent")
	if err != nil || v.Value != "9|Checked" {
		t.Fatalf("the editable elements hold %+v, %v", v, err)
	}
}

// An item under a grab cursor (a list sorted by pointer events, with no draggable
// attribute) has a ref, as an item with draggable does: it had none, and an agent had to
// search for each item it dragged. Its inner element under the same cursor adds none.
func TestGrabCursorItemsHaveRefs(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/grab_list.html")
	r := take(t, st, b, snapshot.Options{})
	for _, want := range []string{"listitem [ref=e2]: Middlemarch", "listitem [ref=e3]: Dune", "listitem: Emma"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("no %q in:\n%s", want, r.Text)
		}
	}
}

// A button scrolled out of its scrolling list's visible part, while the list's place on the
// page is in the window, is scrolled into view and clicked, by ref and through the element
// the ref resolves to: the click hit-tested its centre where the list clips it and failed,
// "covered by h1 Archive" (a virtualised list's row, in the page but not in view, in the new
// task 'find a row far down a virtualised list').
func TestClickScrollsAClippedElementIntoView(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/clipped_list.html")
	r := take(t, st, b, snapshot.Options{})
	if _, err := st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `button "Item 3"`), snapshot.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.EvalJS(tctx(t), "document.getElementById('box').scrollTop = 200, 'ok'"); err != nil {
		t.Fatal(err)
	}
	e, err := st.Element(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `button "Item 2"`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Click(tctx(t), e); err != nil {
		t.Fatal(err)
	}
	waitLog(t, b, "clicked Item 2")
	if log := pageLog(t, b); strings.Join(log, ",") != "clicked Item 3,clicked Item 2" {
		t.Fatalf("the page saw %q", log)
	}
}

// A button in the viewport under a fixed header is clicked, not refused as covered, by a
// ref and by the element tools alike: its centre is tested again with it scrolled to the
// middle, where the header no longer lies over it. Before, both failed "covered by header"
// (the new task 'press a button that a fixed header covers'; Playwright's click scrolls).
func TestClickScrollsFromUnderAFixedHeader(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/fixed_header.html")
	r := take(t, st, b, snapshot.Options{})
	if _, err := st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `button "Renew"`), snapshot.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.EvalJS(tctx(t), "under()"); err != nil {
		t.Fatal(err)
	}
	e, err := st.Element(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `button "Return"`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Click(tctx(t), e); err != nil {
		t.Fatal(err)
	}
	waitLog(t, b, "clicked Return")
	if log := pageLog(t, b); strings.Join(log, ",") != "clicked Renew,clicked Return" {
		t.Fatalf("the page saw %q", log)
	}
}

// A ref whose element a snackbar covers for a moment is clicked once it has gone: the click
// waits for the element to be uncovered, as browser_click does. Before, it failed at once,
// "covered by div#snack", and the agent's click was lost (the new task 'check out while a
// snackbar still covers the bottom bar'; Playwright's click waits).
func TestClickRefWaitsForACoverToGo(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/snackbar.html")
	r := take(t, st, b, snapshot.Options{})
	if _, err := st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `button "Checkout"`), snapshot.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	waitLog(t, b, "clicked Checkout")
	if log := pageLog(t, b); strings.Join(log, ",") != "clicked Checkout" {
		t.Fatalf("the page saw %q", log)
	}
}

// A ref's button that the page enables a moment later is clicked once enabled, and one that
// stays disabled is not pressed at all: the click says so (TIMEOUT, "stayed disabled"). Before,
// the click pressed the disabled button, which did nothing, and reported success (the new task
// 'submit a button enabled a moment after typing stops'; Playwright's click waits).
func TestClickRefWaitsForItsElementToBeEnabled(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/enable_later.html")
	r := take(t, st, b, snapshot.Options{})
	if _, err := st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `button "Create"`), snapshot.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	waitLog(t, b, "clicked Create")
	_, err := st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `button "Never"`), snapshot.ClickOptions{})
	if we := wantCode(t, err, werr.Timeout); !strings.Contains(we.Message, "stayed disabled") {
		t.Errorf("the error does not say the button stayed disabled: %v", we)
	}
	if log := pageLog(t, b); strings.Join(log, ",") != "pressed Create,clicked Create" {
		t.Fatalf("the page saw %q", log)
	}
}

// A link that wraps onto a second line is clicked on its words, by ref and through the
// element the ref resolves to: the centre of its box lies on the paragraph's own words
// there, and both failed "covered by p#one" (the new task 'renew by a link that wraps onto
// a second line'; Playwright clicks the centre of its first fragment).
func TestClickAWrappedLink(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/wrapped_link.html")
	r := take(t, st, b, snapshot.Options{})
	if _, err := st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `link "two weeks: renew"`), snapshot.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	e, err := st.Element(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `link "three days: return"`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Click(tctx(t), e); err != nil {
		t.Fatal(err)
	}
	waitLog(t, b, "clicked back")
	if log := pageLog(t, b); strings.Join(log, ",") != "clicked renew,clicked back" {
		t.Fatalf("the page saw %q", log)
	}
}

// Keys pressed one browser_keypress_ref after another on a field that holds the focus act
// where the keys before them left the caret and the selection: Ctrl+A then Ctrl+C copies the
// whole field, and a second ArrowLeft moves on from the first. Before, each call put the
// caret back at the end: Ctrl+C found nothing selected (22-22) and two ArrowLefts left the
// caret one place from the end (the new task 'copy a reference from a read-only field by
// keys; paste it' pasted an empty reference).
func TestKeysKeepTheSelectionTheKeysBeforeMade(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/keys_selection.html")
	r := take(t, st, b, snapshot.Options{})
	ref, word := refOf(t, r.Text, `textbox "Reference"`), refOf(t, r.Text, `textbox "Word"`)
	for _, k := range []struct{ ref, key string }{{ref, "Control+a"}, {ref, "Control+c"}, {word, "ArrowLeft"}, {word, "ArrowLeft"}} {
		if _, err := st.Keypress(tctx(t), b, r.SnapshotID, k.ref, k.key, nil); err != nil {
			t.Fatal(err)
		}
	}
	if log := pageLog(t, b); strings.Join(log, ",") != "copy 0-22" {
		t.Errorf("the page saw %q, want copy 0-22", log)
	}
	caret := func() string {
		v, err := b.EvalJS(tctx(t), "String(document.getElementById('word').selectionStart)")
		if err != nil {
			t.Fatal(err)
		}
		return v.Value
	}
	if c := caret(); c != "2" {
		t.Errorf("after two ArrowLefts the caret is at %s, want 2", c)
	}
}
