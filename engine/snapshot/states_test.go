//go:build linux

package snapshot_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/snapshot"
	"github.com/w365/w365/engine/werr"
)

// A field the page marks invalid (aria-invalid, in the odd golden) and one whose native
// constraint fails once typed into read [invalid] in the snapshot: the agent sees which
// field to correct. A pristine required field does not.
func TestInvalidField(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/snap_odd.html")
	r := take(t, st, b, snapshot.Options{})
	if strings.Contains(r.Text, `textbox "Required email" [invalid]`) {
		t.Fatalf("a pristine required field reads invalid:\n%s", r.Text)
	}
	email := refOf(t, r.Text, `textbox "Required email"`)
	if _, err := st.Type(tctx(t), b, r.SnapshotID, email, "not an address", snapshot.TypeOptions{}); err != nil {
		t.Fatal(err)
	}
	if r = take(t, st, b, snapshot.Options{}); !strings.Contains(r.Text, `textbox "Required email" [invalid] [ref=`+email+`]: not an address`) {
		t.Fatalf("the field with a bad address does not read invalid:\n%s", r.Text)
	}
}

// While a modal <dialog> is open the page behind it is inert: the snapshot shows the
// dialog (shadow content in it too), not the controls it blocks, nor an inert subtree.
func TestModalDialogHidesThePage(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/modal_dialog.html")
	if r := take(t, st, b, snapshot.Options{}); !strings.Contains(r.Text, `button "Place order"`) {
		t.Fatalf("no page before the dialog opens:\n%s", r.Text)
	}
	if _, err := b.EvalJS(tctx(t), "document.getElementById('dlg').showModal(), 'ok'"); err != nil {
		t.Fatal(err)
	}
	r := take(t, st, b, snapshot.Options{})
	for _, want := range []string{`heading "Delivery address"`, `textbox "Street"`, `button "Save address"`} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the open dialog lacks %s:\n%s", want, r.Text)
		}
	}
	if strings.Contains(r.Text, "Place order") || strings.Contains(r.Text, "Your order") {
		t.Errorf("the page behind the modal dialog is in the snapshot:\n%s", r.Text)
	}
}

// A ref the snapshot does not have names the refs it has, not an example that may be
// the very ref asked for.
func TestUnknownRefNamesTheSnapshotsRefs(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/modal_dialog.html")
	r := take(t, st, b, snapshot.Options{})
	_, err := st.Click(tctx(t), b, r.SnapshotID, "e5", snapshot.ClickOptions{})
	want := fmt.Sprintf("that snapshot's %d refs lie between e1 and e%d", r.Refs, r.Refs)
	if werr.CodeOf(err) != werr.NotFound || !strings.Contains(err.Error(), want) {
		t.Fatalf("clicking e5 of %d refs: %v, want a hint with %q\n%s", r.Refs, err, want, r.Text)
	}
}

// A key written as a combination, "Control+a" as Playwright takes it, presses the key
// with those modifiers held: here it selects all of a field's text.
func TestKeypressCombination(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/snap_odd.html")
	r := take(t, st, b, snapshot.Options{})
	notes := refOf(t, r.Text, `textbox "Notes"`)
	if _, err := st.Keypress(tctx(t), b, r.SnapshotID, notes, "Control+a", nil); err != nil {
		t.Fatal(err)
	}
	v, err := b.EvalJS(tctx(t), "(e => e.selectionStart + '-' + e.selectionEnd)(document.activeElement)")
	if err != nil || v.Value != "0-8" {
		t.Fatalf("after Control+a the selection is %+v, %v; want all of \"line one\"", v, err)
	}
}

// Text typed into a date or time input sets its value whole, with a change event, by ref
// (browser_type_ref) and through the element a ref resolves to (browser_type): typed key by
// key, ISO text left a date input empty while the call reported it typed. A value the input
// does not keep is an error saying the format.
func TestTypeIntoDateInputs(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/dates.html")
	r := take(t, st, b, snapshot.Options{})
	if _, err := st.Type(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `textbox "Arrival"`), "2027-03-15", snapshot.TypeOptions{Clear: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Type(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `textbox "Check-in time"`), "14:30", snapshot.TypeOptions{Clear: true}); err != nil {
		t.Fatal(err)
	}
	e, err := st.Element(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `textbox "Departure"`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Type(tctx(t), e, "2027-03-18", browser.TypeOptions{}); err != nil {
		t.Fatal(err)
	}
	v, err := b.EvalJS(tctx(t), "[...document.querySelectorAll('input')].map(i => i.value).join(' ') + ' | ' + document.getElementById('log').textContent.trim()")
	if err != nil || v.Value != "2027-03-15 14:30 2027-03-18 | arrive at leave" {
		t.Fatalf("the inputs hold %+v, %v", v, err)
	}
	_, err = b.Type(tctx(t), e, "18/03/2027", browser.TypeOptions{})
	if werr.CodeOf(err) != werr.InvalidArgument || !strings.Contains(err.Error(), "2027-03-15") {
		t.Fatalf("a malformed date: %v", err)
	}
}

// Text typed into a colour or a range input sets its value whole, as into a date input, by
// ref and through the element a ref resolves to: typed key by key it left both unchanged
// (a colour input takes no keys, a range only arrows) while the call reported it typed.
// A value the range does not keep is an error saying what it takes.
func TestTypeIntoColourAndRangeInputs(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/pickers.html")
	r := take(t, st, b, snapshot.Options{})
	ink, copies := refOf(t, r.Text, `"Ink colour"`), refOf(t, r.Text, `slider "Copies"`)
	if _, err := st.Type(tctx(t), b, r.SnapshotID, ink, "#1e90ff", snapshot.TypeOptions{Clear: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Type(tctx(t), b, r.SnapshotID, copies, "12", snapshot.TypeOptions{Clear: true}); err != nil {
		t.Fatal(err)
	}
	e, err := st.Element(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `"Paper colour"`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Type(tctx(t), e, "#fafad2", browser.TypeOptions{}); err != nil {
		t.Fatal(err)
	}
	v, err := b.EvalJS(tctx(t), "[...document.querySelectorAll('input')].map(i => i.value).join(' ') + ' | ' + document.getElementById('log').textContent.trim()")
	if err != nil || v.Value != "#1e90ff 12 #fafad2 | ink copies paper" {
		t.Fatalf("the inputs hold %+v, %v", v, err)
	}
	_, err = st.Type(tctx(t), b, r.SnapshotID, copies, "40", snapshot.TypeOptions{Clear: true})
	if werr.CodeOf(err) != werr.InvalidArgument || !strings.Contains(err.Error(), "within its min and max") {
		t.Fatalf("a range value past its max: %v", err)
	}
}

// A named list has a ref: it is what an agent drops a card on, as a column of a board
// whose drop handler is the list's. Before, a named list had none (the agent read
// `list "Finished"` and had nothing to drag onto).
func TestNamedListIsADropTarget(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/columns.html")
	r := take(t, st, b, snapshot.Options{})
	dune, err := st.Element(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `]: Dune`))
	if err != nil {
		t.Fatal(err)
	}
	done, err := st.Element(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `list "Finished"`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Drag(tctx(t), dune, done); err != nil {
		t.Fatal(err)
	}
	v, err := b.EvalJS(tctx(t), "[...document.getElementById('done').children].map(li => li.textContent).join(',')")
	if err != nil || v.Value != "Middlemarch,Dune" {
		t.Fatalf("the Finished list holds %+v, %v", v, err)
	}
}

// Depth counts what an agent reads or acts on: a tree three items deep in a navigation and
// a link in a menu of nested lists are within the default depth, though each level sits in
// an unnamed group or list item (before, "Optics" and "My holds" were cut at depth 5).
func TestDepthCountsNamedNodes(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/snap_deep_tree.html")
	r := take(t, st, b, snapshot.Options{MaxDepth: snapshot.DefaultMaxDepth})
	for _, want := range []string{`treeitem "Optics"`, `link "My holds"`} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the default depth leaves out %s:\n%s", want, r.Text)
		}
	}
	if r.DepthLimited != 0 {
		t.Errorf("%d nodes cut:\n%s", r.DepthLimited, r.Text)
	}
	if r = take(t, st, b, snapshot.Options{MaxDepth: 3}); r.DepthLimited == 0 || strings.Contains(r.Text, `treeitem "Optics"`) {
		t.Errorf("maxDepth 3 cuts nothing:\n%s", r.Text)
	}
}

// A details element's summary reads [expanded] when open and [expanded=false] when
// closed, as a disclosure button does: clicking an open one closes it.
func TestDetailsSummaryReadsExpanded(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/snap_details.html")
	r := take(t, st, b, snapshot.Options{})
	for _, want := range []string{`button "Opening hours" [expanded=false]`, `button "Renewals" [expanded]`} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("no %s:\n%s", want, r.Text)
		}
	}
}

// An unnamed SVG drawing shows what is in it: its text (a chart's title and axis labels) and
// the parts the page gives roles (bars as images), with refs to point at; a hidden one does
// not. Before, every SVG without a name was left out whole: a chart's figures, shown only in a
// tooltip while the pointer is on a bar, could not be reached (the new task 'read an SVG
// chart's figures from hover tooltips'; playwright-mcp shows the bars).
func TestUnnamedSVGShowsItsContent(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/svg_chart.html")
	r := take(t, st, b, snapshot.Options{})
	for _, want := range []string{"Loans per month, 2026", `img "January" [ref=`, `img "February" [ref=`, "Jan", "Feb"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the snapshot lacks %s:\n%s", want, r.Text)
		}
	}
	if strings.Contains(r.Text, "decor") {
		t.Errorf("a hidden drawing's text shows:\n%s", r.Text)
	}
	if _, err := st.Hover(tctx(t), b, r.SnapshotID, refOf(t, r.Text, `img "February"`)); err != nil {
		t.Fatal(err)
	}
	if r = take(t, st, b, snapshot.Options{}); !strings.Contains(r.Text, `tooltip "February: 110 loans"`) {
		t.Fatalf("pointing at the bar shows no figure:\n%s", r.Text)
	}
}

// Text CSS generates before or after an element (::before, ::after: strings, attr() values,
// an image's alternative text) is in the snapshot and names what it is the content of, as in
// the browser's own tree; an icon font's glyph and a pseudo-element not displayed are not.
// Before, a shelf code shown only through ::after was absent (the new task 'read a shelf code
// shown only in CSS generated content'; playwright-mcp shows it).
func TestGeneratedTextShows(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/generated_text.html")
	r := take(t, st, b, snapshot.Options{})
	for _, want := range []string{"New: holds wait seven days.", "listitem: Dune — shelf H-31", `button "Save"`, `button "Print"`, "paragraph: Choose", "paragraph: Shown", "Emma on sale"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the snapshot lacks %s:\n%s", want, r.Text)
		}
	}
	if strings.Contains(r.Text, "Hidden text") || strings.Contains(r.Text, "\uf0c7") {
		t.Errorf("the snapshot shows generated text not displayed, or a glyph:\n%s", r.Text)
	}
}

// TestKeyScrollLandsBeforeTheCallReturns: End on a focused scroller has scrolled it to its
// end when browser_keypress_ref returns, and Home back to its start: the browser runs without
// smooth scrolling (browser.args). Before, the key started an animation that had moved the box
// little or not at all when the call returned, and that now and then ended where it started
// (the terms task: a scrollend at scrollTop 0 and the checkbox still disabled, 2 runs in 30).
func TestKeyScrollLandsBeforeTheCallReturns(t *testing.T) {
	b := launch(t)
	same, _ := serve(t, "../../testdata/tasks/pages")
	navigate(t, b, same+"/terms.html")
	st := snapshot.NewStore()
	r := take(t, st, b, snapshot.Options{})
	terms := refOf(t, r.Text, `region "Loan terms"`)
	for _, c := range []struct{ key, want string }{
		{"End", "end, agree enabled"},
		{"Home", "start"},
	} {
		if _, err := st.Keypress(tctx(t), b, r.SnapshotID, terms, c.key, nil); err != nil {
			t.Fatal(err)
		}
		v, err := b.EvalJS(tctx(t), `(() => { const t = document.getElementById('terms');
  return t.scrollTop === 0 ? 'start' : t.scrollTop + t.clientHeight >= t.scrollHeight - 2 ? 'end, agree ' + (document.getElementById('agree').disabled ? 'disabled' : 'enabled') : 'at ' + t.scrollTop; })()`)
		if err != nil {
			t.Fatal(err)
		}
		if v.Value != c.want {
			t.Errorf("after %s the terms are at %s, want %s", c.key, v.Value, c.want)
		}
	}
}
