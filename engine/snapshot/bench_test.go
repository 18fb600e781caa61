//go:build linux

package snapshot_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/snapshot"
)

// corpusDir holds real-world pages; they are read in place, never copied.
const corpusDir = "/work/shared/corpus/pages"

// benchSnapshot measures snapshots of url: cold (a fresh document each time,
// so Chrome builds its accessibility tree for the first snapshot) and warm
// (the same document again). It reports the text and JSON sizes.
func benchSnapshot(b *testing.B, br *browser.Browser, url string, o snapshot.Options) {
	st := snapshot.NewStore()
	run := func(b *testing.B, cold bool) {
		var r *snapshot.Result
		if !cold {
			navigate(b, br, url)
			r = take(b, st, br, o) // warm up
		}
		times := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for range b.N {
			if cold {
				b.StopTimer()
				if _, err := br.Navigate(tctx(b), url, browser.WaitDOMContentLoaded); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			start := time.Now()
			var err error
			if r, err = st.Take(tctx(b), br, o); err != nil {
				b.Fatal(err)
			}
			times = append(times, time.Since(start))
		}
		b.StopTimer()
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		js, _ := json.Marshal(r)
		b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(len(r.Text)), "text-bytes")
		b.ReportMetric(float64(len(js)), "json-bytes")
		b.ReportMetric(float64(r.Refs), "refs")
	}
	b.Run("cold", func(b *testing.B) { run(b, true) })
	b.Run("warm", func(b *testing.B) { run(b, false) })
}

// full is the whole tree, for a like-for-like comparison with peers that
// print everything; def is what browser_snapshot does by default.
var (
	full = snapshot.Options{MaxDepth: snapshot.MaxMaxDepth, IncludeIframes: true, MaxChars: 1 << 30}
	def  = snapshot.Options{IncludeIframes: true}
)

// BenchmarkSnapshot5000 snapshots testdata/pages/snap_big.html (5,000 elements).
func BenchmarkSnapshot5000(b *testing.B) {
	br := launch(b)
	same, _ := serve(b, pagesDir)
	b.Run("full", func(b *testing.B) { benchSnapshot(b, br, same+"/snap_big.html", full) })
	b.Run("default", func(b *testing.B) { benchSnapshot(b, br, same+"/snap_big.html", def) })
}

// BenchmarkSnapshotCorpus snapshots each real-world page of the shared corpus.
func BenchmarkSnapshotCorpus(b *testing.B) {
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		b.Skipf("no corpus: %v", err)
	}
	br := launch(b)
	same := serveOffline(b, corpusDir)
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".html") {
			continue
		}
		name := strings.TrimSuffix(filepath.Base(e.Name()), ".html")
		b.Run(name, func(b *testing.B) {
			b.Run("full", func(b *testing.B) { benchSnapshot(b, br, same+"/"+e.Name(), full) })
			b.Run("default", func(b *testing.B) { benchSnapshot(b, br, same+"/"+e.Name(), def) })
		})
	}
}
