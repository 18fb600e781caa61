//go:build linux

package e2e_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"io"
	"math"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
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
// message longer than 16 MiB (engine/browser/cdpmux.go, maxFrame): the event is dropped, the
// eval fails with RESOURCE_EXHAUSTED, the browser goes on working, and the host's peak may
// grow by 256 MiB at most.
func TestBrowserMessagesTheHostReadsAreBounded(t *testing.T) {
	// Not parallel (docs/development.md#tests): its page sends the host 600 MB within the host's time bounds.
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
	// Not parallel (docs/development.md#tests): its page logs 40 MB within the host's time bounds.
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

// runCodeSession starts session id as hostileSession does, ready for browser_run_code.
func runCodeSession(t *testing.T, id string) *e2e.Harness {
	testenv.Require(t, "node")
	h, _ := hostileSession(t, id)
	runCodeCache(h)
	return h
}

// browser_run_code's code sends 80 evaluations of a 16-million-character string (each answer a
// message just under the host's limit) and keeps its Node event loop busy for 40 s, so the
// sidecar reads none of the answers the host's DevTools proxy queues for it. With the binary
// before the proxy held up to 4096 messages for a client that did not read, whatever their
// size: the host's resident peak grew by 1,265 MiB with 60 of them (of 30 million then). A
// client whose queue holds 64 MiB is now dropped (engine/browser/cdpmux.go, maxQueued); the
// host still reads each answer the browser sends, one at a time, and its peak may grow by
// 1 GiB at most.
func TestBrowserRunCodeClientThatDoesNotReadIsDropped(t *testing.T) {
	// Not parallel (docs/development.md#tests): its browser answers 80 messages of 16 MB within the host's time bounds.
	h := runCodeSession(t, "bm3")
	grown := peakGrowth(t, h.HostPID())
	r := h.Run("--session", "bm3", "browser", "run-code", "--timeout-ms", "120000",
		`const s = await page.context().newCDPSession(page)
await s.send('Runtime.evaluate', {expression: "window.big = 'x'.repeat(16.7e6); 1"})
for (let i = 0; i < 80; i++) s.send('Runtime.evaluate', {expression: 'window.big', returnByValue: true}).catch(() => {})
await new Promise(r => setTimeout(r, 1000))
const t = Date.now()
while (Date.now() < t + 40000) {}
return 'blocked'`)
	grew := grown()
	t.Logf("the host's resident peak grew by %d MiB; run_code: exit %d %.100s %.200s", grew, r.Code, r.Stdout, r.Stderr)
	if grew > 1024 {
		t.Errorf("the host's resident peak grew by %d MiB while a run_code client read none of 80 answers of 16 MB, past 1 GiB", grew)
	}
}

// imagePages serves /?n=N, a page of N images one below the other, each of what img makes
// and styled as style says.
func imagePages(t *testing.T, img func() []byte, style string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/img.jpg" {
			w.Header().Set("Content-Type", "image/jpeg")
			w.Write(img())
			return
		}
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<title>images</title><body style='margin:0'>")
		for i := range n {
			fmt.Fprintf(w, `<img src="/img.jpg?%d" style="display:block;%s">`, i, style)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// noise is a new JPEG of 1600x1600 random pixels, about 6 MB that nothing compresses.
func noise() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1600, 1600))
	rand.Read(img.Pix)
	var b bytes.Buffer
	jpeg.Encode(&b, img, &jpeg.Options{Quality: 100})
	return b.Bytes()
}

// A page that prints to a PDF of more than 40 MiB. The browser used to hand the whole PDF
// over in one DevTools message, in base64, which the host read and decoded at once: past the
// host's limit on one message (32 MiB then) browser_pdf_save failed with RESOURCE_EXHAUSTED,
// and just below it the host's resident peak grew by hundreds of MiB. The PDF now comes as a
// stream the host reads 1 MiB at a time straight into the file (engine/browser/capture.go,
// PDFSave), so it is saved whole, and the host's peak grows by little.
func TestBrowserPDFLargerThanAMessageIsSaved(t *testing.T) {
	// Not parallel (docs/development.md#tests): its browser prints a PDF of 40 MiB within the host's time bounds.
	h, _ := hostileSession(t, "bm4")
	srv := imagePages(t, noise, "width:100%;break-after:page") // a PDF of about 6 MB an image
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

// A page logs 20 strings of 30 million characters, each a DevTools message just under the
// 32 MiB the host took before, and the agent evaluates one: the host read and decoded every
// one of them. The host now takes 16 MiB at most (engine/browser/cdpmux.go, maxFrame), so the
// events are dropped and the eval is RESOURCE_EXHAUSTED; only the answer to a screenshot may
// be 32 MiB long (maxShotFrame), and a full-page PNG of a long page of photographs, more than
// 16 MiB in base64, is still taken.
func TestBrowserMessagesJustUnderTheOldLimitAreRefused(t *testing.T) {
	// Not parallel (docs/development.md#tests): its page logs 600 MB within the host's time bounds.
	h, srv := hostileSession(t, "bm6")
	grown := peakGrowth(t, h.HostPID())
	hostilePage(t, h, srv, "bm6", `const s = 'x'.repeat(30e6); for (let i = 0; i < 20; i++) console.log(s + i)`)
	r := h.Run("--session", "bm6", "browser", "eval-js", `'x'.repeat(20e6)`)
	grew := grown()
	t.Logf("the host's resident peak grew by %d MiB; the eval: exit %d %.200s", grew, r.Code, r.Stderr)
	if r.Code == 0 || !strings.Contains(r.Stderr, "RESOURCE_EXHAUSTED") {
		t.Errorf("an eval of 20 million characters: exit %d %.100q %.200s, want RESOURCE_EXHAUSTED", r.Code, r.Stdout, r.Stderr)
	}
	if grew > 256 {
		t.Errorf("the host's resident peak grew by %d MiB while a page logged 20 strings, and an eval returned one, of 20 to 30 million characters, past 256 MiB", grew)
	}
	photos := imagePages(t, photo, "width:1920px;height:1080px")
	h.MustRun("--session", "bm6", "browser", "navigate", photos.URL+"/?n=10")
	shot := filepath.Join(t.TempDir(), "page.png")
	r = h.Run("--session", "bm6", "browser", "take-screenshot", "--full-page", "-o", shot)
	st, err := os.Stat(shot)
	if r.Code != 0 || err != nil || st.Size()*4/3 < maxFrameMiB<<20 {
		t.Fatalf("a full-page screenshot of 10 photographs: exit %d %.200s %v; want a PNG of more than %d MiB in base64", r.Code, r.Stderr, err, maxFrameMiB)
	}
	t.Logf("a full-page PNG of %.1f MiB, %.1f MiB in base64", float64(st.Size())/(1<<20), float64(st.Size())*4/3/(1<<20))
}

// maxFrameMiB is the host's limit on a DevTools message other than a screenshot's answer.
const maxFrameMiB = 16

// photo is a JPEG of 1920x1080 smooth, photograph-like pixels.
var photo = sync.OnceValue(func() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	for y := range 1080 {
		for x := range 1920 {
			v := math.Sin(float64(x)/97)*math.Cos(float64(y)/61)*60 + 128
			img.Set(x, y, color.RGBA{uint8(int(v) + rand.Intn(24)), uint8(x * 255 / 1920), uint8(y * 255 / 1080), 255})
		}
	}
	var b bytes.Buffer
	jpeg.Encode(&b, img, &jpeg.Options{Quality: 85})
	return b.Bytes()
})

// browser_run_code's code sends one evaluation whose expression is 40 million characters
// long. The DevTools proxy read messages of up to 256 MiB from it, and decoded and encoded
// each again in the host's own process: this one was answered, and the host's resident peak
// grew by hundreds of MiB; four connections sending 256 MiB each would take gigabytes. A
// message longer than 16 MiB now closes the connection (engine/browser/cdpmux.go,
// maxClientMessage), while one of 4 million '<' is answered as before (forwarded as it came,
// not grown sixfold by HTML escaping).
func TestBrowserRunCodeMessagesTheHostReadsAreBounded(t *testing.T) {
	// Not parallel (docs/development.md#tests): its code sends a message of 40 MB within the host's time bounds.
	h := runCodeSession(t, "bm7")
	grown := peakGrowth(t, h.HostPID())
	r := h.Run("--session", "bm7", "browser", "run-code", "--timeout-ms", "120000",
		`const s = await page.context().newCDPSession(page)
const small = await s.send('Runtime.evaluate', {expression: "'" + '<'.repeat(4e6) + "'.length"})
let big
try {
	big = await s.send('Runtime.evaluate', {expression: "'" + 'x'.repeat(40e6) + "'.length"})
	big = 'answered ' + big.result.value
} catch (e) {
	big = 'refused'
}
return small.result.value + ' ' + big`)
	grew := grown()
	t.Logf("the host's resident peak grew by %d MiB; run_code: exit %d %.100s %.200s", grew, r.Code, r.Stdout, r.Stderr)
	if strings.Contains(r.Stdout, "answered") || (r.Code == 0 && !strings.Contains(r.Stdout, "4000000 refused")) {
		t.Errorf("run_code that sent a message of 4 MB and one of 40 MB: exit %d %.200q %.200s, want the first answered and the second refused", r.Code, r.Stdout, r.Stderr)
	}
	if grew > 128 {
		t.Errorf("the host's resident peak grew by %d MiB while run_code sent a message of 40 MB, past 128 MiB", grew)
	}
}
