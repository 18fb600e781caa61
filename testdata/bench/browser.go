package main

// Browser benchmarks (issues 4 and 7): w365 over its MCP stdio server against
// @playwright/mcp and chrome-devtools-mcp (pinned in peers/package.json, installed
// by `make bench` with npm ci), in one run, on the same pages served from
// loopback, with the same browser build (/usr/bin/chromium), all three headful on
// the bench session's Xvfb display. Every sample is interleaved across the
// systems compared, so the load of a shared machine falls on all of them alike.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	browserN  = flag.Int("browser-n", 10, "samples per browser measurement (navigate+text, form flows)")
	snapN     = flag.Int("snap-n", 5, "warm snapshot samples per page and system")
	corpusDir = flag.String("corpus", "../shared/corpus/pages", "real-world pages for the snapshot benchmark (read in place)")
	peersDir  = flag.String("peers", "testdata/bench/peers/node_modules", "node_modules with @playwright/mcp and chrome-devtools-mcp")
	chromium  = flag.String("chromium", "/usr/bin/chromium", "browser executable given to the peers")
	budget    = flag.Duration("browser-budget", 45*time.Second, "most time one browser measurement may sample for (at least 3 rounds)")
	snapBudg  = flag.Duration("snap-budget", 15*time.Second, "most time the snapshots of one page may sample for (at least 3 rounds)")
)

// section says whether the browser section name is measured in this run (-browser-only).
func section(name string) bool {
	return *browserOnly == "" || slices.Contains(strings.Split(*browserOnly, ","), name)
}

// bsys is one system under test: an MCP client session, or why there is none.
type bsys struct {
	name   string
	cs     *mcp.ClientSession
	err    error
	stderr *capBuf
	pageID float64 // chrome-devtools-mcp's selected page
	wire   *wireMeter

	mu    sync.Mutex
	calls map[string][]time.Duration // per tool, while recording
	rec   bool
}

// perCall is the p50 of each tool's calls recorded so far.
func (s *bsys) perCall() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var names []string
	for k := range s.calls {
		names = append(names, k)
	}
	sort.Strings(names)
	var parts []string
	for _, k := range names {
		smp := &sample{ds: s.calls[k]}
		parts = append(parts, fmt.Sprintf("%s %s (%d)", k, ms(smp.stats().p50), len(s.calls[k])))
	}
	return strings.Join(parts, ", ")
}

func (s *bsys) ok() bool { return s.cs != nil && s.err == nil }

// fail records the first reason a system stopped working.
func (s *bsys) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}

// result is what a tool call returned: its text and its size on the wire.
type result struct {
	text      string
	textBytes int
	wireBytes int
	fieldText int // w365: length of the structured result's own "text" field
}

func (s *bsys) call(name string, args map[string]any) (result, error) {
	if s.cs == nil {
		return result{}, s.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	t0 := time.Now()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if d := time.Since(t0); s.rec {
		s.mu.Lock()
		if s.calls == nil {
			s.calls = map[string][]time.Duration{}
		}
		s.calls[name] = append(s.calls[name], d)
		s.mu.Unlock()
	}
	if err != nil {
		return result{}, fmt.Errorf("%s %s: %w%s", s.name, name, err, s.stderr.tail())
	}
	var r result
	var sb strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			sb.WriteString(t.Text)
		}
	}
	r.text = sb.String()
	r.textBytes = len(r.text)
	r.wireBytes = int(s.wire.last.Load())
	if m, ok := res.StructuredContent.(map[string]any); ok {
		if t, ok := m["text"].(string); ok {
			r.fieldText = len(t)
		}
	}
	if res.IsError {
		return r, fmt.Errorf("%s %s: tool error: %s", s.name, name, clip(r.text, 300))
	}
	return r, nil
}

// capBuf keeps the last few KB a peer wrote to stderr, for error messages.
type capBuf struct {
	mu sync.Mutex
	b  []byte
}

func (c *capBuf) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.b = append(c.b, p...)
	if len(c.b) > 8192 {
		c.b = append([]byte{}, c.b[len(c.b)-4096:]...)
	}
	return len(p), nil
}

func (c *capBuf) tail() string {
	if c == nil {
		return ""
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s := strings.TrimSpace(string(c.b))
	if s == "" {
		return ""
	}
	return " (stderr: " + clip(s, 400) + ")"
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// startPeer runs a node MCP server; a missing package or a failed start is
// reported, never fatal.
func startPeer(name string, env []string, dir string, script string, args ...string) *bsys {
	s := &bsys{name: name, stderr: &capBuf{}}
	if _, err := os.Stat(script); err != nil {
		s.err = fmt.Errorf("not installed (%v): run `cd testdata/bench/peers && npm ci`", err)
		return s
	}
	node, err := exec.LookPath("node")
	if err != nil {
		s.err = fmt.Errorf("node not found: %v", err)
		return s
	}
	os.MkdirAll(dir, 0o700)
	cmd := exec.Command(node, append([]string{script}, args...)...)
	cmd.Env = env
	cmd.Dir = dir
	cmd.Stderr = s.stderr
	c := mcp.NewClient(&mcp.Implementation{Name: "w365-bench", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s.wire = &wireMeter{Transport: &mcp.CommandTransport{Command: cmd}}
	cs, err := c.Connect(ctx, s.wire, nil)
	if err != nil {
		s.err = fmt.Errorf("start: %v%s", err, s.stderr.tail())
		return s
	}
	s.cs = cs
	return s
}

func peerVersion(dir, pkg string) string {
	b, err := os.ReadFile(filepath.Join(dir, pkg, "package.json"))
	if err != nil {
		return "not installed"
	}
	var p struct{ Version string }
	json.Unmarshal(b, &p)
	return p.Version
}

// pages served to every system from one loopback server.
type site struct {
	url  string
	mu   sync.Mutex
	form map[string]string // the last form submission
	subs int
}

const formFields = 10

func (st *site) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/text.html", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString("<!doctype html><html><head><meta charset=utf-8><title>Text</title></head><body><h1>Reading test</h1>")
		for i := 0; i < 40; i++ {
			fmt.Fprintf(&b, "<p>Paragraph %d. The quick brown fox jumps over the lazy dog; pack my box with five dozen liquor jugs.</p>", i)
		}
		b.WriteString("<p id=end>END-OF-TEXT</p></body></html>")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(b.String()))
	})
	mux.HandleFunc("/form.html", func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		b.WriteString("<!doctype html><html><head><meta charset=utf-8><title>Form</title></head><body><h1>Sign up</h1><form method=post action=/submit>")
		for i := 0; i < formFields; i++ {
			fmt.Fprintf(&b, "<p><label for=f%d>Field %d</label> <input type=text id=f%d name=f%d></p>", i, i, i, i)
		}
		b.WriteString("<button type=submit id=submit>Submit</button></form></body></html>")
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(b.String()))
	})
	mux.HandleFunc("/submit", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		got := map[string]string{}
		for k := range r.PostForm {
			got[k] = r.PostForm.Get(k)
		}
		st.mu.Lock()
		st.form, st.subs = got, st.subs+1
		st.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><title>Thanks</title><p id=done>received %d fields</p>", len(got))
	})
	mux.Handle("/pages/", http.StripPrefix("/pages/", http.FileServer(http.Dir("testdata/pages"))))
	mux.Handle("/corpus/", http.StripPrefix("/corpus/", http.FileServer(http.Dir(*corpusDir))))
	return mux
}

// submitted waits (outside the timed part) for the form the flow just sent.
func (st *site) submitted(before int, want map[string]string) error {
	for t0 := time.Now(); time.Since(t0) < 5*time.Second; time.Sleep(10 * time.Millisecond) {
		st.mu.Lock()
		subs, got := st.subs, st.form
		st.mu.Unlock()
		if subs > before {
			for k, v := range want {
				if got[k] != v {
					return fmt.Errorf("form field %s: server got %q, want %q", k, got[k], v)
				}
			}
			return nil
		}
	}
	return errors.New("the form was not submitted within 5 s")
}

func (st *site) count() int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.subs
}

// sample is one timed measurement and the size of its last output.
type sample struct {
	ds               []time.Duration
	textKB, wireKB   float64
	fieldKB          float64
	calls, snapCalls int
	err              error
}

func (s *sample) stats() stats {
	ds := append([]time.Duration{}, s.ds...)
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return stats{ds[len(ds)/2], ds[len(ds)*95/100]}
}

// interleave runs each f once per round, n rounds (fewer when the budget is
// spent, never fewer than 3); a system that fails is dropped with its error.
func interleave(n int, budget time.Duration, fs ...func(*sample) error) []*sample {
	out := make([]*sample, len(fs))
	for i := range out {
		out[i] = &sample{}
	}
	t0 := time.Now()
	for r := 0; r < n; r++ {
		if r >= 3 && time.Since(t0) > budget {
			break
		}
		for i, f := range fs {
			s := out[i]
			if s.err != nil || f == nil {
				continue
			}
			start := time.Now()
			err := f(s)
			d := time.Since(start)
			if err != nil {
				s.err = err
				continue
			}
			s.ds = append(s.ds, d)
		}
	}
	return out
}

func cell(s *sample) string {
	switch {
	case s.err != nil:
		return "error"
	case len(s.ds) == 0:
		return "n/a"
	}
	st := s.stats()
	return fmt.Sprintf("%9s %9s", ms(st.p50), ms(st.p95))
}

func ratio(a, b *sample) string {
	if a.err != nil || b.err != nil || len(a.ds) == 0 || len(b.ds) == 0 {
		return "  -"
	}
	return fmt.Sprintf("%.2fx", float64(a.stats().p50)/float64(b.stats().p50))
}

var refRe = regexp.MustCompile(`(\w+) "([^"]*)"[^\n]*?\[ref=([^\]\s]+)\]`)

// pwRefs maps `role "name"` to its ref in a playwright-mcp snapshot.
func pwRefs(snap string) map[string]string {
	m := map[string]string{}
	for _, g := range refRe.FindAllStringSubmatch(snap, -1) {
		k := g[1] + " " + strconv.Quote(g[2])
		if _, dup := m[k]; !dup {
			m[k] = g[3]
		}
	}
	return m
}

var pageIDRe = regexp.MustCompile(`(?m)^\s*(\d+):.*\[selected\]`)

// cdtSelectPage finds chrome-devtools-mcp's selected page id (its page tools need it).
func cdtSelectPage(s *bsys) error {
	r, err := s.call("list_pages", map[string]any{})
	if err != nil {
		return err
	}
	m := pageIDRe.FindStringSubmatch(r.text)
	if m == nil {
		if m = regexp.MustCompile(`(?m)^\s*(\d+):`).FindStringSubmatch(r.text); m == nil {
			return fmt.Errorf("no page id in list_pages: %s", clip(r.text, 200))
		}
	}
	id, _ := strconv.Atoi(m[1])
	s.pageID = float64(id)
	return nil
}

func benchBrowser(env []string, rt string) {
	fmt.Printf("\n== browser (issues 4, 7): w365 vs @playwright/mcp %s and chrome-devtools-mcp %s ==\n",
		peerVersion(*peersDir, "@playwright/mcp"), peerVersion(*peersDir, "chrome-devtools-mcp"))
	t0 := time.Now()

	// The bench session's display, for the peers' headful browsers.
	disp, xauth, err := sessionDesktop(env)
	if err != nil {
		fmt.Printf("browser benchmarks skipped: no session display (%v)\n", err)
		return
	}
	var penv []string
	for _, kv := range env {
		if !strings.HasPrefix(kv, "DISPLAY=") {
			penv = append(penv, kv)
		}
	}
	penv = append(penv, "DISPLAY="+disp, "XAUTHORITY="+xauth, "CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS=1", "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")

	// Loopback pages.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("browser benchmarks skipped:", err)
		return
	}
	st := &site{url: "http://" + ln.Addr().String()}
	srv := &http.Server{Handler: st.handler()}
	go srv.Serve(ln)
	defer srv.Close()

	// The three systems, all headful on the session display, same browser binary.
	w := &bsys{name: "w365", wire: &wireMeter{}}
	if cs, err := connectErr(env, w.wire); err != nil {
		w.err = err
	} else {
		w.cs = cs
		defer cs.Close()
	}
	peers, _ := filepath.Abs(*peersDir)
	// Like w365's own browser, the peers' run without Chromium's sandbox only as root.
	pwArgs := []string{"--executable-path", *chromium, "--isolated", "--output-dir", filepath.Join(rt, "pw", "out")}
	cdtArgs := []string{"--executablePath", *chromium, "--isolated", "--no-usage-statistics", "--no-performance-crux"}
	if os.Geteuid() == 0 {
		pwArgs = append(pwArgs, "--no-sandbox")
		cdtArgs = append(cdtArgs, "--chromeArg=--no-sandbox")
	}
	pw := startPeer("playwright-mcp", penv, filepath.Join(rt, "pw"), filepath.Join(peers, "@playwright/mcp/cli.js"), pwArgs...)
	cdt := &bsys{name: "chrome-devtools-mcp", err: errors.New("not measured (-browser-only)")}
	if section("nav") || section("snapshots") {
		cdt = startPeer("chrome-devtools-mcp", penv, filepath.Join(rt, "cdt"), filepath.Join(peers, "chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js"), cdtArgs...)
	}
	for _, p := range []*bsys{pw, cdt} {
		if p.cs != nil {
			defer p.cs.Close()
		}
	}

	// First navigation launches each browser; then confirm the build each one runs.
	textURL := st.url + "/text.html"
	nav := func(s *bsys, u string) (string, error) {
		if !s.ok() {
			return "", s.err
		}
		var r result
		var err error
		switch s.name {
		case "chrome-devtools-mcp":
			if s.pageID == 0 {
				if err = cdtSelectPage(s); err != nil {
					return "", err
				}
			}
			r, err = s.call("navigate_page", map[string]any{"pageId": s.pageID, "type": "url", "url": u})
		default:
			r, err = s.call("browser_navigate", map[string]any{"url": u})
		}
		return r.text, err
	}
	ua := func(s *bsys) (string, error) {
		var r result
		var err error
		switch s.name {
		case "chrome-devtools-mcp":
			r, err = s.call("evaluate_script", map[string]any{"pageId": s.pageID, "function": "() => navigator.userAgent"})
		default:
			r, err = s.call("browser_evaluate", map[string]any{"function": "() => navigator.userAgent"})
		}
		if m := regexp.MustCompile(`(Headless)?Chrome/[\d.]+`).FindString(r.text); m != "" {
			return m, err
		}
		return clip(r.text, 80), err
	}
	fmt.Printf("pages from %s (loopback), corpus %s, display %s, all headful\n", st.url, *corpusDir, disp)
	// w365's host picks the first of these on PATH (W365_BROWSER is cleared for the bench).
	wexe := "none"
	for _, name := range []string{"microsoft-edge", "microsoft-edge-stable", "google-chrome", "google-chrome-stable", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			wexe = p
			break
		}
	}
	ver, _ := exec.Command(*chromium, "--version").Output()
	fmt.Printf("browser binary: w365 %s, peers %s (%s)\n", wexe, *chromium, strings.TrimSpace(string(ver)))
	for _, s := range []*bsys{w, pw, cdt} {
		if s.ok() {
			if _, err := nav(s, textURL); err != nil {
				s.fail(err)
			}
		}
		if !s.ok() {
			fmt.Printf("  %-20s UNAVAILABLE: %v\n", s.name, s.err)
			continue
		}
		u, err := ua(s)
		if err != nil {
			u = "? (" + err.Error() + ")"
		}
		fmt.Printf("  %-20s browser %s\n", s.name, u)
	}

	listSizes(w, pw, cdt)

	hdr := func(title string) {
		fmt.Printf("\n%-44s %19s   %-22s %19s   %s\n", title, "w365 p50 / p95", "peer", "peer p50 / p95", "ratio")
	}
	line := func(name string, ours, theirs *sample, peer string) {
		fmt.Printf("%-44s %19s   %-22s %19s   %-6s n=%d/%d\n", name, cell(ours), peer, cell(theirs), ratio(ours, theirs), len(ours.ds), len(theirs.ds))
	}
	reportErrs := func(ss ...*sample) {
		for _, s := range ss {
			if s.err != nil {
				fmt.Printf("    error: %v\n", s.err)
			}
		}
	}

	var sec time.Time
	var res []*sample
	if section("nav") {
		// 1. Navigate + read the page text.
		sec = time.Now()
		hdr("navigate + page text")
		k := 0
		navText := func(s *bsys, tool string, args map[string]any) func(*sample) error {
			return func(smp *sample) error {
				k++
				if _, err := nav(s, fmt.Sprintf("%s?i=%d", textURL, k)); err != nil {
					return err
				}
				r, err := s.call(tool, args)
				if err != nil {
					return err
				}
				if !strings.Contains(r.text, "END-OF-TEXT") {
					return fmt.Errorf("%s: page text lacks its last paragraph: %s", s.name, clip(r.text, 200))
				}
				smp.textKB, smp.calls = float64(r.textBytes)/1024, 2
				return nil
			}
		}
		var fW, fP func(*sample) error
		if w.ok() {
			fW = navText(w, "browser_get_text", map[string]any{})
		}
		if pw.ok() {
			fP = navText(pw, "browser_evaluate", map[string]any{"function": "() => document.body.innerText"})
		}
		res = interleave(*browserN, *budget, fW, fP)
		line("navigate + get_text (2 calls each)", res[0], res[1], "playwright-mcp (+evaluate)")
		reportErrs(res...)
		fmt.Printf("  (%s)\n", time.Since(sec).Round(time.Second))
	}

	if section("runcode") {
		// 1b. browser_run_code, warm: Playwright code against the page (w365's in its
		// sandboxed sidecar; playwright-mcp's browser_run_code_unsafe in its own process).
		sec = time.Now()
		hdr("run_code: page.title() + locator text, warm")
		const code = "async (page) => (await page.title()) + ' ' + (await page.locator('#end').textContent())"
		runCode := func(s *bsys, tool string) func(*sample) error {
			if !s.ok() {
				return nil
			}
			return func(smp *sample) error {
				r, err := s.call(tool, map[string]any{"code": code})
				if err != nil {
					return err
				}
				if !strings.Contains(r.text, "Text END-OF-TEXT") {
					return fmt.Errorf("%s %s: unexpected result %s", s.name, tool, clip(r.text, 200))
				}
				smp.calls = 1
				return nil
			}
		}
		for _, s := range []*bsys{w, pw} {
			if s.ok() {
				_, _ = nav(s, textURL)
			}
		}
		if w.ok() {
			_, _ = w.call("browser_run_code", map[string]any{"code": code}) // the first call starts the sidecar
		}
		if pw.ok() {
			_, _ = pw.call("browser_run_code_unsafe", map[string]any{"code": code})
		}
		res = interleave(*browserN, *budget, runCode(w, "browser_run_code"), runCode(pw, "browser_run_code_unsafe"))
		line("browser_run_code (1 call each)", res[0], res[1], "playwright-mcp _unsafe")
		reportErrs(res...)
		fmt.Printf("  (%s)\n", time.Since(sec).Round(time.Second))
	}

	if section("form") {
		// 2. Form flow: 10 text fields, then submit; the server checks what arrived.
		sec = time.Now()
		hdr("form: 10 text fields + submit")
		round := 0
		values := func() map[string]string {
			m := map[string]string{}
			for i := 0; i < formFields; i++ {
				m[fmt.Sprintf("f%d", i)] = fmt.Sprintf("r%d-value-%d", round, i)
			}
			return m
		}
		formURL := st.url + "/form.html"
		flow := func(s *bsys, fill bool) func(*sample) error {
			return func(smp *sample) error {
				round++
				want := values()
				before := st.count()
				calls, snaps := 0, 0
				if _, err := nav(s, fmt.Sprintf("%s?r=%d", formURL, round)); err != nil {
					return err
				}
				calls++
				if s.name == "w365" {
					if fill {
						var fields []map[string]any
						for i := 0; i < formFields; i++ {
							fields = append(fields, map[string]any{"selector": fmt.Sprintf("#f%d", i), "value": want[fmt.Sprintf("f%d", i)]})
						}
						if _, err := s.call("browser_fill_form", map[string]any{"fields": fields}); err != nil {
							return err
						}
						calls++
					} else {
						for i := 0; i < formFields; i++ {
							if _, err := s.call("browser_type", map[string]any{"selector": fmt.Sprintf("#f%d", i), "text": want[fmt.Sprintf("f%d", i)]}); err != nil {
								return err
							}
							calls++
						}
					}
					if _, err := s.call("browser_click", map[string]any{"selector": "#submit"}); err != nil {
						return err
					}
					calls++
				} else {
					// As a user of ref tools does: a snapshot for the refs, then act on them.
					r, err := s.call("browser_snapshot", map[string]any{})
					if err != nil {
						return err
					}
					calls, snaps = calls+1, snaps+1
					refs := pwRefs(r.text)
					ref := func(role, name string) (string, error) {
						if v, ok := refs[role+" "+strconv.Quote(name)]; ok {
							return v, nil
						}
						return "", fmt.Errorf("no ref for %s %q in the snapshot: %s", role, name, clip(r.text, 300))
					}
					if fill {
						var fields []map[string]any
						for i := 0; i < formFields; i++ {
							name := fmt.Sprintf("Field %d", i)
							t, err := ref("textbox", name)
							if err != nil {
								return err
							}
							fields = append(fields, map[string]any{"target": t, "name": name, "type": "textbox", "value": want[fmt.Sprintf("f%d", i)]})
						}
						if _, err := s.call("browser_fill_form", map[string]any{"fields": fields}); err != nil {
							return err
						}
						calls++
					} else {
						for i := 0; i < formFields; i++ {
							name := fmt.Sprintf("Field %d", i)
							t, err := ref("textbox", name)
							if err != nil {
								return err
							}
							if _, err := s.call("browser_type", map[string]any{"target": t, "element": name, "text": want[fmt.Sprintf("f%d", i)]}); err != nil {
								return err
							}
							calls++
						}
					}
					t, err := ref("button", "Submit")
					if err != nil {
						return err
					}
					if _, err := s.call("browser_click", map[string]any{"target": t, "element": "Submit"}); err != nil {
						return err
					}
					calls++
				}
				smp.calls, smp.snapCalls = calls, snaps
				return st.submitted(before, want)
			}
		}
		var fWt, fPt, fWf, fPf func(*sample) error
		if w.ok() {
			fWt, fWf = flow(w, false), flow(w, true)
		}
		if pw.ok() {
			fPt, fPf = flow(pw, false), flow(pw, true)
		}
		w.rec, pw.rec = true, true
		res = interleave(*browserN, *budget, fWt, fPt, fWf, fPf)
		w.rec, pw.rec = false, false
		line(fmt.Sprintf("type x10 + click (%d calls vs %d, %d snapshot)", res[0].calls, res[1].calls, res[1].snapCalls), res[0], res[1], "playwright-mcp refs")
		line(fmt.Sprintf("fill_form + click (%d calls vs %d, %d snapshot)", res[2].calls, res[3].calls, res[3].snapCalls), res[2], res[3], "playwright-mcp refs")
		fmt.Printf("%-44s %19s   %-22s %19s   %s\n", "  w365 fill_form vs playwright type x10", "", "", "", ratio(res[2], res[1]))
		reportErrs(res...)
		for _, s := range []*bsys{w, pw} {
			if s.ok() {
				fmt.Printf("  %s per call p50 (calls): %s\n", s.name, s.perCall())
			}
		}
		fmt.Printf("  (%s)\n", time.Since(sec).Round(time.Second))
	}

	if section("snapshots") {
		// 3. Snapshots: warm p50 and output size per page.
		pages := []string{"/pages/snap_big.html"}
		if ents, err := os.ReadDir(*corpusDir); err != nil {
			fmt.Printf("\ncorpus unavailable: %v\n", err)
		} else {
			for _, e := range ents {
				if strings.HasSuffix(e.Name(), ".html") {
					pages = append(pages, "/corpus/"+e.Name())
				}
			}
		}
		sec = time.Now()
		fmt.Printf("\nsnapshots, warm, up to %d rounds (n); time p50/p95 ms, output KB = text content (wire = whole JSON result incl. structured content)\n", *snapN)
		fmt.Printf("w365 def = defaults (maxDepth 5, maxChars 40000); w365 full = maxDepth 10, maxChars 2000000\n")
		fmt.Printf("%-22s %-10s %17s %17s %3s   %s\n", "page", "system", "p50 / p95", "text / wire KB", "n", "vs faster peer p50, vs smaller peer text")
		snap := func(s *bsys, args map[string]any) func(*sample) error {
			if !s.ok() {
				return nil
			}
			return func(smp *sample) error {
				tool := "browser_snapshot"
				if s.name == "chrome-devtools-mcp" {
					tool, args = "take_snapshot", map[string]any{"pageId": s.pageID}
				}
				r, err := s.call(tool, args)
				if err != nil {
					return err
				}
				if r.textBytes < 2048 {
					return fmt.Errorf("%s: a %d-byte snapshot of a big page: %s", s.name, r.textBytes, clip(r.text, 300))
				}
				smp.textKB, smp.wireKB, smp.fieldKB = float64(r.textBytes)/1024, float64(r.wireBytes)/1024, float64(r.fieldText)/1024
				return nil
			}
		}
		for _, p := range pages {
			u := st.url + p
			// Some corpus pages never fire "load" here (their external requests hang
			// on a closed network): a navigation timeout is noted, and the snapshot
			// is taken of the page as it is, by every system alike.
			// The three navigate in parallel (not timed; it only bounds the run time).
			notes := map[*bsys]string{}
			var navd [3]time.Duration
			var wg sync.WaitGroup
			var mu sync.Mutex
			for i, s := range []*bsys{w, pw, cdt} {
				if !s.ok() {
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					t := time.Now()
					r, err := nav(s, u)
					navd[i] = time.Since(t)
					mu.Lock()
					defer mu.Unlock()
					switch {
					case err != nil:
						notes[s] = "navigate: " + clip(err.Error(), 120)
					case strings.Contains(clip(r, 200), "Unable to navigate") || strings.Contains(strings.ToLower(clip(r, 200)), "timeout"):
						notes[s] = "navigate: " + clip(r, 120)
					}
				}()
			}
			wg.Wait()
			full := map[string]any{"maxDepth": 10, "maxChars": 2000000}
			fs := []func(*sample) error{snap(w, map[string]any{}), snap(w, full), snap(pw, map[string]any{}), snap(cdt, nil)}
			interleave(1, 0, fs...) // warm-up, not counted
			res := interleave(*snapN, *snapBudg, fs...)
			names := []string{"w365 def", "w365 full", "playwright", "cdt-mcp"}
			// The faster and the smaller peer.
			var fast, small *sample
			for _, s := range res[2:] {
				if s.err != nil || len(s.ds) == 0 {
					continue
				}
				if fast == nil || s.stats().p50 < fast.stats().p50 {
					fast = s
				}
				if small == nil || s.textKB < small.textKB {
					small = s
				}
			}
			for i, s := range res {
				label := ""
				if i == 0 {
					label = strings.TrimSuffix(filepath.Base(p), ".html")
				}
				switch {
				case s.err != nil:
					fmt.Printf("%-22s %-10s error: %v\n", label, names[i], clip(s.err.Error(), 300))
				case len(s.ds) == 0:
					fmt.Printf("%-22s %-10s n/a\n", label, names[i])
				default:
					cmp := ""
					if i < 2 && fast != nil {
						cmp = fmt.Sprintf("time %s, bytes %.2fx (its text field %.1f KB)", ratio(s, fast), s.textKB/small.textKB, s.fieldKB)
					}
					st := s.stats()
					fmt.Printf("%-22s %-10s %8.0f /%6.0f %8.1f /%7.1f %3d   %s\n", label, names[i],
						float64(st.p50.Microseconds())/1000, float64(st.p95.Microseconds())/1000, s.textKB, s.wireKB, len(s.ds), cmp)
				}
			}
			fmt.Printf("%-22s %-10s (navigate, not in the figures: w365 %s, playwright %s, cdt-mcp %s)\n", "", "",
				navd[0].Round(time.Millisecond), navd[1].Round(time.Millisecond), navd[2].Round(time.Millisecond))
			for _, s := range []*bsys{w, pw, cdt} {
				if notes[s] != "" {
					fmt.Printf("%-22s %-10s (%s: %s)\n", "", "", s.name, notes[s])
				}
			}
		}
		fmt.Printf("  (%s)\n", time.Since(sec).Round(time.Second))
	}
	for _, s := range []*bsys{w, pw, cdt} {
		if s.err != nil {
			fmt.Printf("%s stopped: %v\n", s.name, clip(s.err.Error(), 400))
		}
	}
	fmt.Printf("browser benchmarks took %s\n", time.Since(t0).Round(time.Second))
}

// connectErr is connect without the exit: the browser part reports and goes on.
func connectErr(env []string, wire *wireMeter) (*mcp.ClientSession, error) {
	cmd := exec.Command(*bin, "serve", "--mcp")
	cmd.Env = env
	c := mcp.NewClient(&mcp.Implementation{Name: "bench-browser", Version: "1"}, nil)
	wire.Transport = &mcp.CommandTransport{Command: cmd}
	return c.Connect(context.Background(), wire, nil)
}

// listSizes prints what each system's tools/list costs: the results as the server wrote
// them (all pages), its tool count and bytes per tool (w365's own guard:
// TestToolsListFitsItsBudget).
func listSizes(ss ...*bsys) {
	fmt.Printf("\n%-44s %12s %6s %12s\n", "tools/list", "bytes", "tools", "bytes/tool")
	for _, s := range ss {
		if !s.ok() {
			continue
		}
		n, size := 0, 0
		var err error
		for p := (&mcp.ListToolsParams{}); ; {
			var res *mcp.ListToolsResult
			if res, err = s.cs.ListTools(context.Background(), p); err != nil {
				break
			}
			n, size = n+len(res.Tools), size+int(s.wire.last.Load())
			if res.NextCursor == "" {
				break
			}
			p = &mcp.ListToolsParams{Cursor: res.NextCursor}
		}
		if err != nil {
			fmt.Printf("%-44s error: %v\n", "  "+s.name, err)
			continue
		}
		fmt.Printf("%-44s %12d %6d %12d\n", "  "+s.name, size, n, size/max(n, 1))
	}
}
