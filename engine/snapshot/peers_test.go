//go:build linux

package snapshot_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/engine/desktop/x11/x11test"
	"github.com/w365/w365/engine/snapshot"
	"github.com/w365/w365/test/testenv"
)

// peer is an MCP server whose snapshot tool we compare with ours.
type peer struct {
	name     string
	args     []string
	navigate func(url string) (string, map[string]any)
	snapshot string
}

func peers(bin string) []peer {
	return []peer{
		{name: "playwright-mcp", args: []string{filepath.Join(bin, "playwright-mcp"), "--executable-path", "/usr/bin/chromium", "--no-sandbox", "--isolated"},
			navigate: func(u string) (string, map[string]any) { return "browser_navigate", map[string]any{"url": u} },
			snapshot: "browser_snapshot"},
		{name: "chrome-devtools-mcp", args: []string{filepath.Join(bin, "chrome-devtools-mcp"), "--executablePath", "/usr/bin/chromium", "--isolated", "--chromeArg=--no-sandbox", "--no-page-id-routing"},
			navigate: func(u string) (string, map[string]any) {
				return "navigate_page", map[string]any{"type": "url", "url": u}
			},
			snapshot: "take_snapshot"},
	}
}

func textBytes(r *mcp.CallToolResult) int {
	n := 0
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			n += len(tc.Text)
		}
	}
	return n
}

func p50(d []time.Duration) float64 {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return float64(d[len(d)/2].Microseconds()) / 1000
}

// BenchmarkPeers runs, in one process and on the same Chromium build and
// display, w365's snapshot and the peers' (@playwright/mcp browser_snapshot,
// chrome-devtools-mcp take_snapshot) over the 5,000-element page and the
// corpus pages: cold (first snapshot after navigation) and warm p50, and the
// text bytes each returns. W365_PEERS_BIN names the node_modules/.bin that
// holds playwright-mcp and chrome-devtools-mcp (npm install @playwright/mcp
// chrome-devtools-mcp).
func BenchmarkPeers(b *testing.B) {
	bin := os.Getenv("W365_PEERS_BIN")
	if bin == "" {
		b.Skip("set W365_PEERS_BIN to a node_modules/.bin with playwright-mcp and chrome-devtools-mcp")
	}
	testenv.Require(b, "chromium")
	d := x11test.Start(b)
	br := launch(b)
	pages, _ := serve(b, pagesDir)
	urls := map[string]string{"5000": pages + "/snap_big.html"}
	if entries, err := os.ReadDir(corpusDir); err == nil {
		corpus := serveOffline(b, corpusDir)
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".html") {
				urls[strings.TrimSuffix(e.Name(), ".html")] = corpus + "/" + e.Name()
			}
		}
	}
	names := make([]string, 0, len(urls))
	for k := range urls {
		names = append(names, k)
	}
	sort.Strings(names)

	b.Run("w365", func(b *testing.B) {
		for _, name := range names {
			b.Run(name, func(b *testing.B) {
				st := snapshot.NewStore()
				var cold, warm []time.Duration
				var bytes int
				for range b.N {
					navigate(b, br, urls[name])
					s := time.Now()
					take(b, st, br, full)
					cold = append(cold, time.Since(s))
					s = time.Now()
					r := take(b, st, br, full)
					warm = append(warm, time.Since(s))
					bytes = len(r.Text)
				}
				b.ReportMetric(p50(cold), "cold-ms")
				b.ReportMetric(p50(warm), "warm-ms")
				b.ReportMetric(float64(bytes), "text-bytes")
			})
		}
	})
	for _, p := range peers(bin) {
		b.Run(p.name, func(b *testing.B) {
			args := p.args
			tmp := b.TempDir()
			if p.name == "playwright-mcp" {
				args = append(args, "--output-dir", tmp)
			}
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Dir = tmp // peers write logs and snapshots into their working directory
			cmd.Env = append(d.Environ(os.Environ()), "HOME="+tmp)
			c := mcp.NewClient(&mcp.Implementation{Name: "w365-bench", Version: "1"}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				b.Fatalf("start %s: %v", p.name, err)
			}
			defer cs.Close()
			call := func(name string, args map[string]any) *mcp.CallToolResult {
				r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
				if err != nil {
					b.Fatalf("%s %s: %v", p.name, name, err)
				}
				if r.IsError {
					var msg strings.Builder
					for _, c := range r.Content {
						if tc, ok := c.(*mcp.TextContent); ok {
							msg.WriteString(tc.Text)
						}
					}
					b.Fatalf("%s %s: %s", p.name, name, msg.String())
				}
				return r
			}
			for _, name := range names {
				b.Run(name, func(b *testing.B) {
					var cold, warm []time.Duration
					var bytes int
					for range b.N {
						call(p.navigate(urls[name]))
						s := time.Now()
						call(p.snapshot, map[string]any{})
						cold = append(cold, time.Since(s))
						s = time.Now()
						r := call(p.snapshot, map[string]any{})
						warm = append(warm, time.Since(s))
						bytes = textBytes(r)
					}
					b.ReportMetric(p50(cold), "cold-ms")
					b.ReportMetric(p50(warm), "warm-ms")
					b.ReportMetric(float64(bytes), "text-bytes")
				})
			}
		})
	}
}
