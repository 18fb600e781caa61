//go:build linux

package e2e_test

import (
	"bytes"
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// agentPages serves testdata/pages with the endpoints of an agent's tasks: a server
// that answers after 800 ms and a download.
func agentPages(t *testing.T) string {
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir(filepath.Join(testenv.Root(), "testdata", "pages"))))
	mux.HandleFunc("/slow-page", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(800 * time.Millisecond):
		case <-r.Context().Done():
		}
		fmt.Fprint(w, "<!doctype html><title>Slow page</title><p id=arrived>arrived</p>")
	})
	mux.HandleFunc("/download/invoice.txt", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Disposition", `attachment; filename="invoice.txt"`)
		fmt.Fprint(w, "invoice 42: 19.99 EUR")
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// An agent's browser tasks (issue 25.5), each as the agent meets it over MCP: refs
// from a snapshot and the tools that take them.
func TestBrowserAgentTasks(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	cs := h.MCP()
	base := agentPages(t)
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": base + "/agent_shop.html"})

	// The window fills the session's screen from the first page on.
	var size struct{ Width, Height int }
	e2e.Structured(t, e2e.Call(t, cs, "get_screen_size", nil), &size)
	var vp struct{ Value string }
	e2e.Structured(t, e2e.Call(t, cs, "browser_eval_js", map[string]any{"expression": "String(innerWidth)"}), &vp)
	if vp.Value != fmt.Sprint(size.Width) {
		t.Errorf("viewport %s px wide on a %dx%d screen", vp.Value, size.Width, size.Height)
	}

	// browser_select_option takes a ref, as every element tool does; the text of a ref
	// action's result names the element as the snapshot knows it.
	_, snap := snapshotOver(t, cs, nil)
	shipping := snapRef(t, snap, `combobox "Shipping"`)
	res, _ := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "browser_select_option", Arguments: map[string]any{"selector": shipping, "values": []string{"exp"}}})
	var got struct{ Value string }
	e2e.Structured(t, e2e.Call(t, cs, "browser_eval_js", map[string]any{"expression": "document.getElementById('shipped').textContent"}), &got)
	if txt := e2e.Text(res); !strings.HasPrefix(txt, `1 option(s) selected in `+shipping+` (combobox "Shipping")`) || got.Value != "shipping: exp" {
		t.Errorf("select by ref: %s; the page shows %q", txt, got.Value)
	}
	if txt := e2e.Text(e2e.Call(t, cs, "browser_hover_ref", map[string]any{"snapshotId": "latest", "ref": shipping})); !strings.HasPrefix(txt, `hovered `+shipping+` (combobox "Shipping") at (`) {
		t.Errorf("hover by ref: %s", txt)
	}

	// A download is named in the result of the click that caused it.
	res = e2e.Call(t, cs, "browser_click_ref", map[string]any{"snapshotId": "latest", "ref": snapRef(t, snap, `link "Download the invoice"`)})
	var click struct {
		Downloads []struct {
			SuggestedName, State, Path string
			ReceivedBytes              int64
		}
	}
	e2e.Structured(t, res, &click)
	if !strings.HasPrefix(e2e.Text(res), "clicked "+snapRef(t, snap, `link "Download the invoice"`)+` (link "Download the invoice") at (`) {
		t.Errorf("the click's text does not name the link: %s", e2e.Text(res))
	}
	if len(click.Downloads) != 1 || click.Downloads[0].State != "completed" || click.Downloads[0].SuggestedName != "invoice.txt" ||
		click.Downloads[0].ReceivedBytes != 21 || !strings.Contains(e2e.Text(res), click.Downloads[0].Path) {
		t.Errorf("click on a download: %+v\n%s", click, e2e.Text(res))
	} else if data, err := os.ReadFile(click.Downloads[0].Path); err != nil || string(data) != "invoice 42: 19.99 EUR" {
		t.Errorf("downloaded: %q, %v", data, err)
	}

	// A click on a link to a slow server returns after the navigation it started.
	e2e.Must(t, cs, "browser_click_ref", map[string]any{"snapshotId": "latest", "ref": snapRef(t, snap, `link "Next page"`)})
	var u struct{ URL string }
	e2e.Structured(t, e2e.Call(t, cs, "browser_get_url", nil), &u)
	var title struct{ Title string }
	e2e.Structured(t, e2e.Call(t, cs, "browser_get_title", nil), &title)
	if title.Title != "Slow page" || !strings.HasSuffix(u.URL, "/slow-page") {
		t.Fatalf("the calls after the click see %q at %s", title.Title, u.URL)
	}
}

// inCrossFrame opens the checkout page with page (of testdata/pages) in its frame, served
// from another origin (an out-of-process frame), and snapshots it once text shows there.
func inCrossFrame(t *testing.T, page, text string) (cs *mcp.ClientSession, snap string) {
	t.Helper()
	testenv.Require(t, "chromium")
	cs = e2e.New(t).MCP()
	same, cross := snapPages(t)
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/xframe.html?child=" + cross + "/" + page})
	waitFor(t, cs, text)
	_, snap = snapshotOver(t, cs, nil)
	return cs, snap
}

// waitFor waits up to 5 s for text to show in a frame of the page, or fails the test.
func waitFor(t *testing.T, cs *mcp.ClientSession, text string) {
	t.Helper()
	e2e.Must(t, cs, "browser_wait_for", map[string]any{"text": text, "timeoutMs": 5000})
}

// browser_fill_form fills fields of the page and of an out-of-process (cross-site)
// frame in one call, by refs, and what it reports holds: the provider's frame submits
// the text and the ticked box.
func TestBrowserFillFormAcrossFrames(t *testing.T) {
	t.Parallel()
	cs, snap := inCrossFrame(t, "xframe_child.html", "I accept the terms")
	res := e2e.Call(t, cs, "browser_fill_form", map[string]any{"fields": []map[string]any{
		{"target": snapRef(t, snap, `textbox "Order note"`), "value": "leave at the door"},
		{"target": snapRef(t, snap, `textbox "Card holder"`), "value": "Ada Lovelace"},
		{"target": snapRef(t, snap, `checkbox "I accept the terms"`), "value": true},
	}})
	var fill struct{ Filled int }
	e2e.Structured(t, res, &fill)
	if fill.Filled != 3 {
		t.Fatalf("fill: %s", e2e.Text(res))
	}
	e2e.Must(t, cs, "browser_click_ref", map[string]any{"snapshotId": "latest", "ref": snapRef(t, snap, `button "Pay"`)})
	waitFor(t, cs, "paid:Ada Lovelace:true")
	var note struct{ Value string }
	e2e.Structured(t, e2e.Call(t, cs, "browser_eval_js", map[string]any{"expression": "document.getElementById('note').value"}), &note)
	if note.Value != "leave at the door" {
		t.Fatalf("note = %q", note.Value)
	}
}

// browser_select_option takes a ref inside an out-of-process (cross-site) frame, as the
// other element tools do: the provider's frame sees the option chosen (a form in a
// sandboxed frame of opaque origin is such a frame too).
func TestBrowserSelectOptionInACrossOriginFrame(t *testing.T) {
	t.Parallel()
	cs, snap := inCrossFrame(t, "xframe_select.html", "Evening")
	slot := snapRef(t, snap, `combobox "Delivery slot"`)
	res := e2e.Call(t, cs, "browser_select_option", map[string]any{"selector": slot, "values": []string{"Evening"}})
	if txt := e2e.Text(res); !strings.HasPrefix(txt, `1 option(s) selected in `+slot+` (combobox "Delivery slot")`) {
		t.Errorf("select by ref: %s", txt)
	}
	waitFor(t, cs, "slot:evening")
}

// browser_evaluate's function gets an element inside an out-of-process frame by ref, and
// runs in that frame's page (its own globals), not in the tab's.
func TestBrowserEvaluateInACrossOriginFrame(t *testing.T) {
	t.Parallel()
	cs, snap := inCrossFrame(t, "xframe_receipt.html", "Waiting for a receipt")
	res := e2e.Call(t, cs, "browser_evaluate", map[string]any{"target": snapRef(t, snap, `img "Brand swatch"`),
		"function": "el => el.id + ':' + el.offsetWidth + ':' + window.provider + ':' + location.hostname"})
	var got struct{ Value string }
	e2e.Structured(t, res, &got)
	if got.Value != "swatch:120:acme:localhost" {
		t.Fatalf("evaluate on a ref in the frame: %q (%s)", got.Value, e2e.Text(res))
	}
}

// browser_take_screenshot of a ref inside an out-of-process frame is that element: its
// size, its colour.
func TestBrowserElementScreenshotInACrossOriginFrame(t *testing.T) {
	t.Parallel()
	cs, snap := inCrossFrame(t, "xframe_receipt.html", "Waiting for a receipt")
	swatchShot(t, cs, snapRef(t, snap, `img "Brand swatch"`))
}

// An element of an out-of-process frame that is sliding in is shot where it comes to rest,
// as one of the tab is: the whole shot is the swatch.
func TestBrowserElementScreenshotInACrossOriginFrameWaitsForItToSettle(t *testing.T) {
	t.Parallel()
	cs, snap := inCrossFrame(t, "xframe_slide.html", "Slides on request")
	e2e.Must(t, cs, "browser_click_ref", map[string]any{"snapshotId": "latest", "ref": snapRef(t, snap, `button "Slide in"`)})
	swatchShot(t, cs, snapRef(t, snap, `img "Brand swatch"`))
}

// swatchShot takes the element screenshot of ref and checks it is the 120x80 swatch of
// rgb(200, 40, 120), corners and centre.
func swatchShot(t *testing.T, cs *mcp.ClientSession, ref string) {
	t.Helper()
	res := e2e.Call(t, cs, "browser_take_screenshot", map[string]any{"target": ref})
	img, ok := res.Content[0].(*mcp.ImageContent)
	if !ok {
		t.Fatalf("no image: %s", e2e.Text(res))
	}
	pic, err := png.Decode(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatal(err)
	}
	if b := pic.Bounds(); b.Dx() != 120 || b.Dy() != 80 {
		t.Fatalf("the shot is %dx%d, want the swatch's 120x80", b.Dx(), b.Dy())
	}
	for _, p := range [][2]int{{2, 2}, {60, 40}, {117, 77}} {
		if r, g, b, _ := pic.At(p[0], p[1]).RGBA(); r>>8 != 200 || g>>8 != 40 || b>>8 != 120 {
			t.Errorf("pixel %v is (%d, %d, %d), want the swatch's (200, 40, 120)", p, r>>8, g>>8, b>>8)
		}
	}
}

// browser_file_upload sets inline files on a file input inside an out-of-process frame by
// ref: the frame's page reads the file's name and size.
func TestBrowserFileUploadInACrossOriginFrame(t *testing.T) {
	t.Parallel()
	cs, snap := inCrossFrame(t, "xframe_receipt.html", "Waiting for a receipt")
	var up struct{ Files, Bytes int }
	e2e.Structured(t, e2e.Call(t, cs, "browser_file_upload", map[string]any{"target": snapRef(t, snap, `button "Receipt"`),
		"files": []map[string]any{{"name": "march.txt", "data": "cmVjZWlwdCAxOQ=="}}}), &up)
	if up.Files != 1 || up.Bytes != 10 {
		t.Errorf("upload: %+v", up)
	}
	waitFor(t, cs, "got:march.txt:10")
}

// A file chooser the page of an out-of-process frame opens is the tab's pending one, as the
// tab's own are: the click says so, and browser_file_upload with no target answers it.
func TestBrowserFileChooserInACrossOriginFrame(t *testing.T) {
	t.Parallel()
	cs, snap := inCrossFrame(t, "xframe_receipt.html", "Waiting for a receipt")
	got := e2e.Text(e2e.Must(t, cs, "browser_click_ref", map[string]any{"snapshotId": "latest", "ref": snapRef(t, snap, `button "Receipt"`)}))
	if !strings.Contains(got, "file chooser opened") {
		t.Errorf("the click does not tell the chooser: %s", got)
	}
	var up struct{ Files, Bytes int }
	e2e.Structured(t, e2e.Must(t, cs, "browser_file_upload", map[string]any{"files": []map[string]any{{"name": "april.txt", "data": "cmVjZWlwdCAyMA=="}}}), &up)
	if up.Files != 1 || up.Bytes != 10 {
		t.Errorf("upload: %+v", up)
	}
	waitFor(t, cs, "got:april.txt:10")
	if code := e2e.ErrorCode(e2e.Call(t, cs, "browser_file_upload", map[string]any{"files": []map[string]any{{"name": "may.txt", "data": "bWF5"}}})); code != "NOT_FOUND" {
		t.Errorf("a second upload with the chooser answered: %q", code)
	}
	// The frame goes with the page: the browser still answers.
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": "about:blank"})
}

// A page's request for a permission (the location, notifications) is refused at once: the
// browser asked in a bubble of its own that no browser tool answers, and the page waited on
// it for ever.
func TestBrowserRefusesPermissionPrompts(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	cs := e2e.New(t).MCP()
	same, _ := snapPages(t)
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/permissions.html"})
	e2e.Must(t, cs, "browser_click", map[string]any{"selector": "#ask"})
	waitFor(t, cs, "geolocation:denied notifications:denied")
}

// browser_get_text reads the text of the frames too, out-of-process ones included, after
// the page's own, as browser_wait_for and browser_find see it.
func TestBrowserGetTextReadsACrossOriginFrame(t *testing.T) {
	t.Parallel()
	cs, _ := inCrossFrame(t, "xframe_receipt.html", "Waiting for a receipt")
	got := e2e.Text(e2e.Call(t, cs, "browser_get_text", nil))
	if i, j := strings.Index(got, "Order note"), strings.Index(got, "Waiting for a receipt"); i < 0 || j < i {
		t.Errorf("get_text: %q", got)
	}
	if txt := e2e.Text(e2e.Call(t, cs, "browser_find", map[string]any{"text": "Waiting for a receipt"})); !strings.Contains(txt, "paragraph [ref=") {
		t.Errorf("find: %s", txt)
	}
}
