//go:build linux

package browser_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/test/testenv"
)

func benchBrowser(b *testing.B) (*browser.Browser, string) {
	b.Helper()
	testenv.Require(b, "chromium")
	d := x11test.Start(b)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	br, err := browser.Launch(ctx, browser.Options{Env: d.Environ(os.Environ()), DownloadDir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { br.Close() })
	mux := http.NewServeMux()
	mux.Handle("/", http.FileServer(http.Dir("../../testdata/pages")))
	mux.HandleFunc("/submit", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		w.Write([]byte("<!doctype html><title>Submitted</title><p id=done>ok " + r.PostForm.Get("text") + "</p>"))
	})
	srv := httptest.NewServer(mux)
	b.Cleanup(srv.Close)
	return br, srv.URL
}

// BenchmarkNavigateGetText is browser_navigate plus browser_get_text on a local page.
func BenchmarkNavigateGetText(b *testing.B) {
	br, base := benchBrowser(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := br.Navigate(ctx, base+"/form.html", browser.WaitLoad); err != nil {
			b.Fatal(err)
		}
		txt, err := br.Text(ctx)
		if err != nil || !strings.Contains(txt.Text, "Every input kind") {
			b.Fatal(txt, err)
		}
	}
}

// BenchmarkFormFlow20 is a 20-step form flow: navigate, 17 field actions,
// submit, read the result.
func BenchmarkFormFlow20(b *testing.B) {
	br, base := benchBrowser(b)
	ctx := context.Background()
	css := browser.CSS
	b.ResetTimer()
	for b.Loop() {
		steps := []func() error{
			func() error { _, err := br.Navigate(ctx, base+"/form.html", browser.WaitLoad); return err },
			func() error { _, err := br.Type(ctx, css("#text"), "Ada Lovelace", browser.TypeOptions{}); return err },
			func() error {
				_, err := br.Type(ctx, css("#email"), "ada@example.com", browser.TypeOptions{})
				return err
			},
			func() error { _, err := br.Type(ctx, css("#password"), "secret", browser.TypeOptions{}); return err },
			func() error { _, err := br.Type(ctx, css("#number"), "42", browser.TypeOptions{}); return err },
			func() error { _, err := br.Type(ctx, css("#search"), "engines", browser.TypeOptions{}); return err },
			func() error { _, err := br.Type(ctx, css("#tel"), "555", browser.TypeOptions{}); return err },
			func() error {
				_, err := br.Type(ctx, css("#url"), "https://a.example", browser.TypeOptions{})
				return err
			},
			func() error { _, err := br.Type(ctx, css("#notes"), "notes here", browser.TypeOptions{}); return err },
			func() error { _, err := br.Click(ctx, css("#agree")); return err },
			func() error { _, err := br.Click(ctx, css("#news")); return err },
			func() error { _, err := br.Click(ctx, css("#size-s")); return err },
			func() error { _, err := br.Click(ctx, css("#size-m")); return err },
			func() error { _, err := br.SelectOption(ctx, css("#fruit"), []string{"pear"}); return err },
			func() error { _, err := br.SelectOption(ctx, css("#colors"), []string{"red", "blue"}); return err },
			func() error {
				_, err := br.FillForm(ctx, []browser.FormField{{Selector: "#date", Value: "2026-01-02"}, {Selector: "#time", Value: "10:00"}})
				return err
			},
			func() error { _, err := br.Type(ctx, css("#editor"), "rich", browser.TypeOptions{}); return err },
			func() error { _, err := br.Click(ctx, css("#submit")); return err },
			func() error { _, err := br.WaitFor(ctx, browser.WaitOptions{Selector: "#done"}); return err },
			func() error {
				r, err := br.QueryText(ctx, css("#done"))
				if err == nil && r.Text != "ok Ada Lovelace" {
					b.Fatalf("submitted %q", r.Text)
				}
				return err
			},
		}
		for i, s := range steps {
			if err := s(); err != nil {
				b.Fatalf("step %d: %v", i, err)
			}
		}
	}
}

// BenchmarkType is one browser_type into a text field of a loaded page.
func BenchmarkType(b *testing.B) {
	br, base := benchBrowser(b)
	ctx := context.Background()
	if _, err := br.Navigate(ctx, base+"/form.html", browser.WaitLoad); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := br.Type(ctx, browser.CSS("#email"), "r0-value-0", browser.TypeOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}
