//go:build linux

package e2e_test

import (
	"encoding/json"
	"fmt"
	"image"
	"image/jpeg"
	"io"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// hostileSession starts session id in a new harness, its browser on about:blank, and
// returns the harness and a server of pages that each do what their query's do says once
// loaded and then title themselves "done" (hostilePage).
func hostileSession(t *testing.T, id string) (*e2e.Harness, *httptest.Server) {
	testenv.Require(t, "bwrap", "chromium")
	h := e2e.New(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<title>loading</title><script>setTimeout(() => {"+r.URL.Query().Get("do")+"; document.title = 'done'}, 200)</script>")
	}))
	t.Cleanup(srv.Close)
	h.MustRun("session", "start", id)
	t.Cleanup(func() { h.Run("session", "end", id) })
	h.MustRun("--session", id, "browser", "navigate", "about:blank")
	return h, srv
}

// hostilePage has session id's browser open srv's page running script, and waits until it ran.
func hostilePage(t *testing.T, h *e2e.Harness, srv *httptest.Server, id, script string) {
	t.Helper()
	h.MustRun("--session", id, "browser", "navigate", srv.URL+"/?do="+url.QueryEscape(script))
	waitTitle(t, h, id)
}

// waitTitle waits until the session's page is titled "done".
func waitTitle(t *testing.T, h *e2e.Harness, id string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if r := h.Run("--session", id, "browser", "get-title"); strings.TrimSpace(r.Stdout) == "done" {
			return
		}
		time.Sleep(500 * time.Millisecond)
	}
	t.Fatal("the page did not finish in 90 s")
}

// A page of the session's browser logs one string of 100 million control characters
// (U+0001, six bytes each in JSON): the browser sends the host a DevTools message of 600 MB,
// and with the binary before the host read it whole and decoded it in its own process,
// outside every limit of the session, so its resident peak grew by 4.1 GiB, from the page
// alone, with no call of the agent's; the agent's browser_eval_js of the same string grew it
// as much. A longer string would take the host's memory. The host now takes no DevTools
// message longer than 32 MiB (engine/browser/cdpmux.go, maxFrame): the event is dropped, the
// eval fails with RESOURCE_EXHAUSTED, the browser goes on working, and the host's peak may
// grow by 256 MiB at most.
func TestBrowserMessagesTheHostReadsAreBounded(t *testing.T) {
	h, srv := hostileSession(t, "bm1")
	grown := peakGrowth(t, h.HostPID())
	hostilePage(t, h, srv, "bm1", `console.log('\x01'.repeat(100e6))`)
	r := h.Run("--session", "bm1", "browser", "eval-js", `'\x01'.repeat(100e6)`)
	grew := grown()
	t.Logf("the host's resident peak grew by %d MiB; the eval: exit %d %.200s", grew, r.Code, r.Stderr)
	if grew > 256 {
		t.Errorf("the host's resident peak grew by %d MiB while a page logged, and an eval returned, 100 million characters, past 256 MiB", grew)
	}
	if r.Code == 0 || !strings.Contains(r.Stderr, "RESOURCE_EXHAUSTED") {
		t.Errorf("an eval of 100 million characters: exit %d %.200q %.200s, want RESOURCE_EXHAUSTED", r.Code, r.Stdout, r.Stderr)
	}
	if out := strings.TrimSpace(h.MustRun("--session", "bm1", "browser", "eval-js", "'still ' + 'here'")); out != "still here" {
		t.Errorf("the browser after: %q", out)
	}
}

// A page has 40 console messages logged from scripts it names with a sourceURL of a million
// characters each. The host keeps the last 2000 console messages of a session with their
// text cut to 8 KiB, but kept each message's URL whole: with the binary before,
// browser_console_messages returned 40 URLs of a million bytes, and 2000 such messages of 30
// MB (below the host's limit on one DevTools message) would have held 60 GB of the host's
// memory for as long as the session ran. Now every URL is cut at 2048 bytes, as the network
// requests' are.
func TestBrowserConsoleKeepsNoLongURL(t *testing.T) {
	h, srv := hostileSession(t, "bm2")
	hostilePage(t, h, srv, "bm2", `const x = 'x'.repeat(1e6); for (let i = 0; i < 40; i++) eval('console.log(' + i + ')\n//# sourceURL=http://a/' + i + x)`)
	var out struct {
		Messages []struct{ Text, URL string }
	}
	h.JSON(&out, "--session", "bm2", "browser", "console-messages")
	long := 0
	for _, m := range out.Messages {
		if len(m.URL) > 2048+len("...") {
			long++
		}
	}
	if len(out.Messages) < 40 || long > 0 {
		t.Errorf("%d console messages, %d of them with a URL longer than 2048 bytes", len(out.Messages), long)
	}
}

// browser_run_code's code sends 80 evaluations of a 30-million-character string (each answer a
// message just under the host's limit) and keeps its Node event loop busy for 40 s, so the
// sidecar reads none of the answers the host's DevTools proxy queues for it. With the binary
// before the proxy held up to 4096 messages for a client that did not read, whatever their
// size: the host's resident peak grew by 1,265 MiB with 60 of them. A client whose queue holds
// 64 MiB is now dropped (engine/browser/cdpmux.go, maxQueued); the host still reads each answer
// the browser sends, one at a time, and its peak may grow by 1 GiB at most.
func TestBrowserRunCodeClientThatDoesNotReadIsDropped(t *testing.T) {
	testenv.Require(t, "node")
	h, _ := hostileSession(t, "bm3")
	runCodeCache(h)
	grown := peakGrowth(t, h.HostPID())
	r := h.Run("--session", "bm3", "browser", "run-code", "--timeout-ms", "120000",
		`const s = await page.context().newCDPSession(page)
await s.send('Runtime.evaluate', {expression: "window.big = 'x'.repeat(30e6); 1"})
for (let i = 0; i < 80; i++) s.send('Runtime.evaluate', {expression: 'window.big', returnByValue: true}).catch(() => {})
await new Promise(r => setTimeout(r, 1000))
const t = Date.now()
while (Date.now() < t + 40000) {}
return 'blocked'`)
	grew := grown()
	t.Logf("the host's resident peak grew by %d MiB; run_code: exit %d %.100s %.200s", grew, r.Code, r.Stdout, r.Stderr)
	if grew > 1024 {
		t.Errorf("the host's resident peak grew by %d MiB while a run_code client read none of 80 answers of 30 MB, past 1 GiB", grew)
	}
}

// noisePages serves /pdf?n=N, a page of N images of random pixels (each about 6 MB that
// nothing compresses), one a page when printed: a PDF of about 6N MB.
func noisePages(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/noise.jpg" {
			img := image.NewRGBA(image.Rect(0, 0, 1600, 1600))
			rand.Read(img.Pix)
			w.Header().Set("Content-Type", "image/jpeg")
			jpeg.Encode(w, img, &jpeg.Options{Quality: 100})
			return
		}
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<title>noise</title>")
		for i := range n {
			fmt.Fprintf(w, `<img src="/noise.jpg?%d" style="display:block;width:100%%;break-after:page">`, i)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A page that prints to a PDF of more than 40 MiB. The browser used to hand the whole PDF
// over in one DevTools message, in base64, which the host read and decoded at once: past the
// host's limit on one message (32 MiB then) browser_pdf_save failed with RESOURCE_EXHAUSTED,
// and just below it the host's resident peak grew by hundreds of MiB. The PDF now comes as a
// stream the host reads 1 MiB at a time straight into the file (engine/browser/capture.go,
// PDFSave), so it is saved whole, and the host's peak grows by little.
func TestBrowserPDFLargerThanAMessageIsSaved(t *testing.T) {
	h, _ := hostileSession(t, "bm4")
	srv := noisePages(t)
	h.MustRun("--session", "bm4", "browser", "navigate", srv.URL+"/?n=10")
	grown := peakGrowth(t, h.HostPID())
	r := h.Run("--session", "bm4", "--json", "browser", "pdf-save", "big.pdf")
	grew := grown()
	var out struct {
		Path  string
		Bytes int64
	}
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &out) != nil {
		t.Fatalf("pdf-save of a page of 10 large images: exit %d %.300s %.300s", r.Code, r.Stdout, r.Stderr)
	}
	t.Logf("a PDF of %d MiB; the host's resident peak grew by %d MiB", out.Bytes>>20, grew)
	f, err := os.Open(out.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	head := make([]byte, 5)
	tail := make([]byte, 16)
	f.ReadAt(head, 0)
	f.ReadAt(tail, st.Size()-16)
	if st.Size() != out.Bytes || st.Size() < 40<<20 || string(head) != "%PDF-" || !strings.Contains(string(tail), "%%EOF") {
		t.Errorf("the PDF: %d bytes (reported %d), begins %q, ends %q; want more than 40 MiB of a whole PDF", st.Size(), out.Bytes, head, tail)
	}
	if grew > 128 {
		t.Errorf("the host's resident peak grew by %d MiB while it saved a PDF of %d MiB, past 128 MiB", grew, out.Bytes>>20)
	}
}
