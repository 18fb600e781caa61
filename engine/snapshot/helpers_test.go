//go:build linux

package snapshot_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/snapshot"
	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

var pagesDir = "../../testdata/pages"

// serve serves dir on 127.0.0.1; the same server answers as localhost, a
// second origin (and site) for cross-origin iframes.
func serve(t testing.TB, dir string) (same, cross string) {
	return serveHandler(t, http.FileServer(http.Dir(dir)))
}

// serveOffline serves dir with a Content-Security-Policy that keeps the page
// from reaching other hosts (real-world pages reference many; on a closed
// network those loads hang instead of failing, and hold the load event).
func serveOffline(t testing.TB, dir string) string {
	fs := http.FileServer(http.Dir(dir))
	same, _ := serveHandler(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self' data: blob: 'unsafe-inline' 'unsafe-eval'")
		fs.ServeHTTP(w, r)
	}))
	return same
}

func serveHandler(t testing.TB, h http.Handler) (same, cross string) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	srv.Listener = l
	srv.Start()
	t.Cleanup(srv.Close)
	port := l.Addr().(*net.TCPAddr).Port
	return fmt.Sprintf("http://127.0.0.1:%d", port), fmt.Sprintf("http://localhost:%d", port)
}

func launch(t testing.TB) *browser.Browser {
	t.Helper()
	return launchWith(t)
}

// launchWith launches with extra command-line arguments.
func launchWith(t testing.TB, extra ...string) *browser.Browser {
	t.Helper()
	testenv.Require(t, "chromium")
	d := x11test.Start(t)
	pol := policy.Default()
	pol.BrowserWaitDefaultMs = 2000
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	b, err := browser.Launch(ctx, browser.Options{Env: d.Environ(os.Environ()), Policy: pol, DownloadDir: t.TempDir(), ExtraArgs: extra})
	if err != nil {
		t.Fatalf("launch: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

func tctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func navigate(t testing.TB, b *browser.Browser, u string) {
	t.Helper()
	if _, err := b.Navigate(tctx(t), u, ""); err != nil {
		t.Fatalf("navigate %s: %v", u, err)
	}
}

// clickButton clicks the one button of that name that browser_find's search finds.
func clickButton(t testing.TB, st *snapshot.Store, b *browser.Browser, name string) {
	t.Helper()
	fr, err := st.Find(tctx(t), b, snapshot.FindQuery{Role: "button", Name: name})
	if err != nil || fr.Total != 1 {
		t.Fatalf("find button %q: %+v, %v", name, fr, err)
	}
	if _, err := st.Click(tctx(t), b, fr.SnapshotID, fr.Matches[0].Ref, snapshot.ClickOptions{}); err != nil {
		t.Fatalf("click %q: %v", name, err)
	}
}

// pageLog reads window.__log of the top document.
func pageLog(t testing.TB, b *browser.Browser) []string {
	t.Helper()
	r, err := b.EvalJS(tctx(t), "JSON.stringify(window.__log || [])")
	if err != nil {
		t.Fatalf("read log: %v", err)
	}
	var log []string
	if err := json.Unmarshal([]byte(r.Value), &log); err != nil {
		t.Fatalf("log %q: %v", r.Value, err)
	}
	return log
}

// waitLog polls the page log until it holds want.
func waitLog(t testing.TB, b *browser.Browser, want string) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		log := pageLog(t, b)
		for _, l := range log {
			if l == want {
				return log
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("page log %q lacks %q", log, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func take(t testing.TB, st *snapshot.Store, b *browser.Browser, o snapshot.Options) *snapshot.Result {
	t.Helper()
	if o.MaxDepth == 0 {
		o.MaxDepth = 10
	}
	r, err := st.Take(tctx(t), b, o)
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return r
}

// refOf finds the ref of the first line containing s.
func refOf(t testing.TB, text, s string) string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, s) {
			i := strings.Index(line, "[ref=")
			if i < 0 {
				t.Fatalf("line %q has no ref", line)
			}
			return line[i+5 : i+strings.Index(line[i:], "]")]
		}
	}
	t.Fatalf("no line with %q in:\n%s", s, text)
	return ""
}

func wantCode(t testing.TB, err error, code werr.Code) *werr.Error {
	t.Helper()
	if err == nil {
		t.Fatalf("want %s, got success", code)
	}
	we := werr.As(err)
	if we.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
	return we
}

var update = flag.Bool("update", os.Getenv("UPDATE_GOLDEN") == "true", "rewrite golden files")

// golden compares text with testdata/snapshots/name.txt.
func golden(t testing.TB, name, text string) {
	t.Helper()
	path := filepath.Join("../../testdata/snapshots", name+".txt")
	if *update {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run with UPDATE_GOLDEN=true)", path, err)
	}
	if string(want) != text {
		t.Fatalf("snapshot differs from %s:\n--- got\n%s\n--- want\n%s", path, text, want)
	}
}
