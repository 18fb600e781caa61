//go:build linux

package browser

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

// A PDF longer than maxPDF is refused with RESOURCE_EXHAUSTED, and nothing of it stays:
// neither a new file, nor a temporary one beside a file it was to replace, which keeps what
// it held. The cap is lowered to 1 MiB here so that a page of one canvas of noise passes it.
func TestPDFPastTheCapLeavesNothing(t *testing.T) {
	testenv.Require(t, "chromium")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `<title>noise</title><canvas id=c width=1200 height=1200></canvas><script>
const x = c.getContext('2d'), d = x.createImageData(1200, 1200), u = new Uint32Array(d.data.buffer)
for (let i = 0; i < u.length; i += 16384) crypto.getRandomValues(u.subarray(i, i + 16384))
for (let i = 3; i < d.data.length; i += 4) d.data[i] = 255
x.putImageData(d, 0, 0)</script>`)
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	b, err := Launch(ctx, Options{Headless: true, DownloadDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Navigate(ctx, srv.URL, WaitLoad); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, "old.pdf")
	if err := os.WriteFile(old, []byte("the old PDF"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(m int64) { maxPDF = m }(maxPDF)
	maxPDF = 1 << 20
	for _, c := range []struct {
		name      string
		overwrite bool
	}{{"new.pdf", false}, {"old.pdf", true}} {
		_, err := b.PDFSave(ctx, c.name, c.overwrite)
		if werr.CodeOf(err) != werr.ResourceExhausted {
			t.Errorf("a PDF past %d bytes as %s: %v, want RESOURCE_EXHAUSTED", maxPDF, c.name, err)
		}
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if data, _ := os.ReadFile(old); len(names) != 1 || string(data) != "the old PDF" {
		t.Errorf("after two PDFs refused the directory holds %q, old.pdf %q", names, data)
	}
	maxPDF = 64 << 20
	r, err := b.PDFSave(ctx, "new.pdf", false)
	if err != nil || r.Bytes < 1<<20 {
		t.Errorf("the PDF under a cap of 64 MiB: %+v, %v", r, err)
	}
}
