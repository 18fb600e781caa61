//go:build linux

package browser_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/werr"
)

// frameBackendID is the DOM backend node id of the first match of sel inside the
// document of the in-process iframe frameSel, as an accessibility snapshot names it.
func frameBackendID(t *testing.T, b *browser.Browser, frameSel, sel string) int64 {
	t.Helper()
	var id int64
	err := b.Run(tctx(t), func(ctx context.Context, tg *chromedp.Target) error {
		doc, err := cdp.Call(ctx, tg, dom.GetDocument, dom.GetDocumentParams{Depth: new(int64(-1)), Pierce: new(true)})
		if err != nil {
			return err
		}
		fr, err := cdp.Call(ctx, tg, dom.QuerySelector, dom.QuerySelectorParams{NodeID: doc.Root.NodeID, Selector: frameSel})
		if err != nil {
			return err
		}
		fn, err := cdp.Call(ctx, tg, dom.DescribeNode, dom.DescribeNodeParams{NodeID: fr.NodeID, Depth: new(int64(1)), Pierce: new(true)})
		if err != nil || fn.Node.ContentDocument == nil {
			return werr.New(werr.NotFound, "no in-process document in %s (%v)", frameSel, err)
		}
		// DescribeNode's nodes carry no NodeID: ask for the frame document by pushing it.
		ids, err := cdp.Call(ctx, tg, dom.PushNodesByBackendIDsToFrontend, dom.PushNodesByBackendIDsToFrontendParams{BackendNodeIDs: []cdp.BackendNodeID{fn.Node.ContentDocument.BackendNodeID}})
		if err != nil {
			return err
		}
		q, err := cdp.Call(ctx, tg, dom.QuerySelector, dom.QuerySelectorParams{NodeID: ids.NodeIDs[0], Selector: sel})
		if err != nil {
			return err
		}
		n, err := cdp.Call(ctx, tg, dom.DescribeNode, dom.DescribeNodeParams{NodeID: q.NodeID})
		if err != nil {
			return err
		}
		id = int64(n.Node.BackendNodeID)
		return nil
	})
	if err != nil || id == 0 {
		t.Fatalf("backend id of %s in %s: %d, %v", sel, frameSel, id, err)
	}
	return id
}

// TestBrowserAgentPages covers what an agent met on realistic pages (issue 25.5).
func TestBrowserAgentPages(t *testing.T) {
	b, s := launch(t)

	// A click on a link to a server that answers after 800 ms (and after 2 s, longer
	// than the wait for an action's requests) returns after the navigation it started:
	// the next call reads the new page.
	t.Run("ClickWaitsForSlowNavigation", func(t *testing.T) {
		for _, q := range []string{"", "?ms=2000"} {
			navigate(t, b, s.URL+"/slow_link.html")
			if _, err := b.EvalJS(tctx(t), "document.getElementById('next').search = '"+q+"'"); err != nil {
				t.Fatal(err)
			}
			ar, err := b.Click(tctx(t), browser.CSS("#next"))
			if err != nil || !ar.Navigated || !strings.Contains(ar.URL, "/slow-page") {
				t.Fatalf("click (%s): %+v, %v", q, ar, err)
			}
			if title, err := b.Title(tctx(t)); err != nil || title != "Slow page" {
				t.Fatalf("title after the click (%s): %q, %v", q, title, err)
			}
		}
	})

	// Fields inside a cross-origin (second loopback port) iframe: fill_form ticks
	// the checkbox and types into the text field, as it reports.
	t.Run("FillFormInCrossOriginFrame", func(t *testing.T) {
		other := httptest.NewServer(http.FileServer(http.Dir("../../testdata/pages")))
		defer other.Close()
		navigate(t, b, s.URL+"/xframe.html?child="+other.URL+"/xframe_child.html")
		if _, err := b.WaitFor(tctx(t), browser.WaitOptions{Selector: "#pay"}); err != nil {
			t.Fatal(err)
		}
		holder := frameBackendID(t, b, "#pay", "#holder")
		terms := frameBackendID(t, b, "#pay", "#terms")
		hn, tn := browser.Node(holder), browser.Node(terms)
		res, err := b.FillForm(tctx(t), []browser.FormField{
			{Selector: "#note", Value: "leave at the door"},
			{Element: &hn, Value: "Ada Lovelace"},
			{Element: &tn, Value: true},
		})
		if err != nil || res.Filled != 3 {
			t.Fatalf("fill: %+v, %v", res, err)
		}
		if _, err := b.Click(tctx(t), browser.Node(frameBackendID(t, b, "#pay", "#pay"))); err != nil {
			t.Fatal(err)
		}
		r, err := b.Evaluate(tctx(t), "el => el.textContent", &browser.Element{BackendNodeID: frameBackendID(t, b, "#pay", "#out")})
		if err != nil {
			t.Fatal(err)
		}
		if r.Value != "paid:Ada Lovelace:true" {
			t.Fatalf("the provider's frame got %q", r.Value)
		}
	})
}
