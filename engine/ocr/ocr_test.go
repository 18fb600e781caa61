//go:build linux

package ocr_test

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/desktop/x11/display"
	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/ocr"
	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

// capture reads the whole screen of d with GetImage (24/32-bit TrueColor, BGRX).
func capture(t testing.TB, d *display.Desktop) *image.RGBA {
	t.Helper()
	c, err := xconn.Connect(d.Name)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := xproto.Setup(c).DefaultScreen(c)
	w, h := int(s.WidthInPixels), int(s.HeightInPixels)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	// GetImage replies are limited in size: read bands.
	band := 128
	for y := 0; y < h; y += band {
		bh := min(band, h-y)
		r, err := xproto.GetImage(c, xproto.ImageFormatZPixmap, xproto.Drawable(s.Root), 0, int16(y), uint16(w), uint16(bh), 0xffffffff).Reply()
		if err != nil {
			t.Fatalf("GetImage: %v", err)
		}
		for i := 0; i < w*bh; i++ {
			o := (y*w + i) * 4
			img.Pix[o], img.Pix[o+1], img.Pix[o+2], img.Pix[o+3] = r.Data[4*i+2], r.Data[4*i+1], r.Data[4*i], 255
		}
	}
	return img
}

// screen is a test screen with known words.
type screen struct {
	name  string
	img   *image.RGBA
	words []string
}

var nonWord = regexp.MustCompile(`^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$`)

func norm(w string) string { return strings.ToLower(nonWord.ReplaceAllString(w, "")) }

// normSymbols is norm, but a word of symbols only ("=", "+/-") is kept as it is: the real
// application screens count the symbols on calculator keys too.
func normSymbols(w string) string {
	if n := norm(w); n != "" {
		return n
	}
	return strings.TrimSpace(w)
}

// keyOf is how a set's words are compared.
func keyOf(set string) func(string) string {
	if set == "real" || set == "real-held" || set == "real-new" || strings.HasPrefix(set, "real-blind") {
		return normSymbols
	}
	return norm
}

// recall is the share of the known words found (as a multiset), compared by norm.
func recall(known []string, found []string, norm func(string) string) float64 {
	want := map[string]int{}
	total := 0
	for _, w := range known {
		if n := norm(w); n != "" {
			want[n]++
			total++
		}
	}
	hit := 0
	for _, w := range found {
		n := norm(w)
		if want[n] > 0 {
			want[n]--
			hit++
		}
	}
	return float64(hit) / float64(max(1, total))
}

func repoFile(parts ...string) string {
	p, _ := filepath.Abs(filepath.Join(append([]string{"..", ".."}, parts...)...))
	return p
}

func startProc(t testing.TB, d *display.Desktop, env []string, name string, args ...string) *exec.Cmd {
	t.Helper()
	c := d.Command(name, args...)
	c.Env = append(c.Env, env...)
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	return c
}

var (
	tagRE    = regexp.MustCompile(`(?s)<head>.*?</head>|<[^>]*>`)
	entityRE = regexp.MustCompile(`&[a-z]+;`)
	titleRE  = regexp.MustCompile(`<title>(.*?)</title>`)
)

// pngFile writes img as a PNG file for the raw CLI to read.
func pngFile(t testing.TB, img image.Image) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "screen.png")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
	f.Close()
	return path
}

// rawTesseract runs the plain CLI on a PNG of the screen, as a user would:
// `tesseract img.png - tsv` (extra env such as OMP_THREAD_LIMIT=1 optional).
func rawTesseract(t testing.TB, path string, env ...string) ([]string, time.Duration) {
	t.Helper()
	cmd := exec.Command("tesseract", path, "-", "tsv")
	cmd.Env = append(os.Environ(), env...)
	start := time.Now()
	out, err := cmd.Output()
	el := time.Since(start)
	if err != nil {
		t.Fatalf("tesseract: %v", err)
	}
	var words []string
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Split(l, "\t")
		if len(f) >= 12 && f[0] == "5" && strings.TrimSpace(f[11]) != "" {
			words = append(words, f[11])
		}
	}
	return words, el
}

// TestRecall is the benchmark (make bench): word recall and time of Analyze and of the
// raw tesseract CLI (`tesseract img.png - tsv` at OMP_THREAD_LIMIT=1) on every screen of
// scenes(). It requires what the design promises
// in recall, never in time (the machine is shared): at least 0.95 on the dense screens
// and 0.85 on every other screen, the real applications' (symbols counted) included,
// but for the third to sixteenth held-out sets ("real-blind" to "real-blind14"), reported
// against 0.85 and not held to it until they reach it.
// W365_OCR_ONLY=NAME,... runs only those screens. W365_OCR_RUNS=N (make bench: 5) reads
// each screen N times and reports the median times; make test reads it once, as its job is
// the recall, and five readings of 132 screens were most of the package's 17 minutes in CI.
func TestRecall(t *testing.T) {
	testenv.Require(t, "tesseract")
	only := os.Getenv("W365_OCR_ONLY")
	runs := 1
	if v := os.Getenv("W365_OCR_RUNS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("W365_OCR_RUNS=%q: want a count of 1 or more", v)
		}
		runs = n
	}
	type sum struct {
		n                 int
		ours, raw, worst  float64
		ratios, cpuRatios []float64
	}
	sums := map[string]*sum{}
	var order []string
	// The machine may be shared: its load says how far wall times can be trusted.
	loadavg := func() string {
		data, _ := os.ReadFile("/proc/loadavg")
		return strings.Join(strings.Fields(string(data))[:3], " ")
	}
	t.Logf("load average at start: %s", loadavg())
	for _, sc := range scenes() {
		if only != "" && !slices.Contains(strings.Split(only, ","), sc.name) {
			continue
		}
		t.Run(sc.name, func(t *testing.T) {
			s := render(t, sc)
			// Ours and the raw CLI alternate, so that load from other work on the machine
			// falls on both alike; each figure is the median of the runs.
			var res ocr.Result
			var rawWords []string
			var ours, oursCPU, raw, rawCPU []time.Duration
			var ratios []float64
			path := pngFile(t, s.img)
			for range runs {
				start, c0 := time.Now(), cpuTime()
				r, err := ocr.Analyze(context.Background(), s.img, ocr.Options{})
				if err != nil {
					t.Fatalf("%s: %v", s.name, err)
				}
				el := time.Since(start)
				ours, oursCPU, res = append(ours, el), append(oursCPU, cpuTime()-c0), r
				c0 = cpuTime()
				w, rel := rawTesseract(t, path, "OMP_THREAD_LIMIT=1")
				rawWords, raw, rawCPU = w, append(raw, rel), append(rawCPU, cpuTime()-c0)
				ratios = append(ratios, float64(el)/float64(rel))
			}
			slices.Sort(ratios)
			var found []string
			for _, b := range res.Boxes {
				found = append(found, b.Text)
			}
			key := keyOf(sc.set)
			rOurs, rRaw := recall(s.words, found, key), recall(s.words, rawWords, key)
			ratio := ratios[len(ratios)/2]
			cpuRatio := float64(median(oursCPU)) / float64(median(rawCPU))
			t.Logf("%-14s %-8s words=%-3d ours: recall %.3f wall %v cpu %v (%d boxes)  raw CLI: recall %.3f wall %v cpu %v  wall ratio %.2fx cpu ratio %.2fx  load %s",
				s.name, sc.set, len(s.words), rOurs, median(ours).Round(time.Millisecond), median(oursCPU).Round(time.Millisecond),
				len(res.Boxes), rRaw, median(raw).Round(time.Millisecond), median(rawCPU).Round(time.Millisecond), ratio, cpuRatio, loadavg())
			if testing.Verbose() && rOurs < 1 {
				t.Logf("%s missed: %q", s.name, missed(s.words, found, key))
			}
			floor := 0.85
			if sc.set == "dense" {
				floor = 0.95
			}
			switch {
			case strings.HasPrefix(sc.set, "real-blind") && rOurs < floor:
				// The third to sixteenth held-out sets are measured, not held to the floor:
				// the method does not reach it there yet (docs/development.md, Benchmarks).
				t.Logf("%s: recall %.3f, below the %.2f every screen should reach", s.name, rOurs, floor)
			case rOurs < floor:
				t.Errorf("%s: recall %.3f < %.2f", s.name, rOurs, floor)
			}
			m := sums[sc.set]
			if m == nil {
				m = &sum{worst: 1}
				sums[sc.set] = m
				order = append(order, sc.set)
			}
			m.n++
			m.ours += rOurs
			m.raw += rRaw
			m.worst = min(m.worst, rOurs)
			m.ratios = append(m.ratios, ratio)
			m.cpuRatios = append(m.cpuRatios, cpuRatio)
		})
	}
	for _, set := range order {
		m := sums[set]
		slices.Sort(m.ratios)
		slices.Sort(m.cpuRatios)
		t.Logf("set %-8s screens=%d  mean recall: ours %.3f (lowest %.3f), raw CLI %.3f; wall ratio to raw CLI: median %.2fx, highest %.2fx; cpu ratio: median %.2fx, highest %.2fx",
			set, m.n, m.ours/float64(m.n), m.worst, m.raw/float64(m.n), m.ratios[len(m.ratios)/2], m.ratios[len(m.ratios)-1],
			m.cpuRatios[len(m.cpuRatios)/2], m.cpuRatios[len(m.cpuRatios)-1])
	}
	t.Logf("load average at end: %s", loadavg())
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func missed(known, found []string, norm func(string) string) []string {
	have := map[string]int{}
	for _, w := range found {
		have[norm(w)]++
	}
	var out []string
	for _, w := range known {
		n := norm(w)
		if n == "" {
			continue
		}
		if have[n] > 0 {
			have[n]--
			continue
		}
		out = append(out, w)
	}
	return out
}

// TestBoxesOnScreen checks that boxes are screen coordinates: the box of a known word
// covers dark-on-light (or light-on-dark) ink where the word was drawn, and fullText
// keeps a label's words on one line in order.
func TestBoxesOnScreen(t *testing.T) {
	testenv.Require(t, "tesseract")
	s := render(t, scenes()[0])
	res, err := ocr.Analyze(context.Background(), s.img, ocr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Width != 1920 || res.Height != 1080 || res.ElapsedMs <= 0 {
		t.Errorf("size %dx%d elapsed %d", res.Width, res.Height, res.ElapsedMs)
	}
	// The first label of words.txt is drawn at the top left (24 px border).
	words, _ := os.ReadFile(repoFile("testdata", "ocr", "words.txt"))
	first := strings.Fields(string(words))[:5]
	line := strings.Join(first, " ")
	if !strings.Contains(res.FullText, line) {
		t.Errorf("fullText has no line %q:\n%s", line, res.FullText)
	}
	var b *ocr.Box
	for i := range res.Boxes {
		if res.Boxes[i].Text == first[0] {
			b = &res.Boxes[i]
			break
		}
	}
	if b == nil {
		t.Fatalf("no box for %q", first[0])
	}
	if b.X < 20 || b.X > 40 || b.Y < 15 || b.Y > 45 || b.Width < 20 || b.Height < 6 || b.Height > 20 {
		t.Errorf("box of %q at %+v, want near (24,24)", first[0], *b)
	}
	ink := 0
	for y := b.Y; y < b.Y+b.Height; y++ {
		for x := b.X; x < b.X+b.Width; x++ {
			if s.img.RGBAAt(x, y).R < 128 {
				ink++
			}
		}
	}
	if ink < b.Width*b.Height/20 {
		t.Errorf("box %+v covers almost no ink (%d px)", *b, ink)
	}

	// A region cut with SubImage keeps screen coordinates.
	sub := s.img.SubImage(image.Rect(b.X-10, b.Y-10, b.X+400, b.Y+40))
	res, err = ocr.Analyze(context.Background(), sub, ocr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Boxes) == 0 || res.Boxes[0].Text != b.Text || abs(res.Boxes[0].X-b.X) > 2 || abs(res.Boxes[0].Y-b.Y) > 2 {
		t.Errorf("region: %+v, want %q at (%d,%d)", res.Boxes, b.Text, b.X, b.Y)
	}
	if res.Width != 410 || res.Height != 50 {
		t.Errorf("region size %dx%d", res.Width, res.Height)
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// TestTilesAreWrittenInMemory: a call's tiles are written in /dev/shm, not in a temporary
// directory on disk, where creating them cost three times the CPU (see tilesBase in
// ocr.go).
func TestTilesAreWrittenInMemory(t *testing.T) {
	testenv.Require(t, "tesseract")
	img := testenv.PNG(t, repoFile("testdata", "ocr", "mono-period.png"))
	held := func() []string {
		ds, _ := filepath.Glob("/dev/shm/w365-ocr-*")
		return ds
	}
	before := held()
	seen := make(chan bool, 1)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				seen <- false
				return
			default:
			}
			if len(held()) > len(before) {
				seen <- true
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	_, err := ocr.Analyze(context.Background(), img, ocr.Options{})
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	if !<-seen {
		t.Error("no tile directory in /dev/shm while the call ran")
	}
}

func TestEmptyAndBlank(t *testing.T) {
	testenv.Require(t, "tesseract")
	if _, err := ocr.Analyze(context.Background(), image.NewRGBA(image.Rect(0, 0, 0, 0)), ocr.Options{}); err == nil {
		t.Error("empty image accepted")
	}
	blank := image.NewRGBA(image.Rect(0, 0, 800, 600))
	for i := range blank.Pix {
		blank.Pix[i] = 240
	}
	res, err := ocr.Analyze(context.Background(), blank, ocr.Options{})
	if err != nil || len(res.Boxes) != 0 || res.FullText != "" || res.Width != 800 {
		t.Errorf("blank: %+v %v", res, err)
	}
}

// BenchmarkAnalyze times Analyze beside the raw CLI on the same screens.
func BenchmarkAnalyze(b *testing.B) {
	testenv.Require(b, "tesseract")
	for _, sc := range scenes() {
		if sc.name != "gtk-mixed" && sc.name != "form" && sc.name != "chromium-app" {
			continue
		}
		s := render(b, sc)
		b.Run(s.name+"/ours", func(b *testing.B) {
			for b.Loop() {
				if _, err := ocr.Analyze(context.Background(), s.img, ocr.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		path := pngFile(b, s.img)
		b.Run(s.name+"/raw-cli", func(b *testing.B) {
			for b.Loop() {
				rawTesseract(b, path)
			}
		})
		b.Run(s.name+"/raw-cli-omp1", func(b *testing.B) {
			for b.Loop() {
				rawTesseract(b, path, "OMP_THREAD_LIMIT=1")
			}
		})
	}
}

// cpuTime is the CPU time used so far by this process and its children, running (the
// tesseract readers kept between calls) or waited for.
func cpuTime() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	tv := func(t syscall.Timeval) time.Duration { return time.Duration(t.Nano()) }
	d := tv(self.Utime) + tv(self.Stime) + tv(kids.Utime) + tv(kids.Stime)
	for _, c := range running() {
		d += c.cpu
	}
	return d
}

// BenchmarkGrowth shows how Analyze's time grows with the amount of text: the dense
// light screen (297 words in 60 lines) with all but its top 0, 1/8, 1/4, 1/2 or all of
// it painted over with the background, so that the screen size stays 1920x1080.
func BenchmarkGrowth(b *testing.B) {
	testenv.Require(b, "tesseract")
	s := render(b, scenes()[0])
	bg := s.img.RGBAAt(s.img.Rect.Max.X-1, s.img.Rect.Max.Y-1)
	for _, eighths := range []int{0, 1, 2, 4, 8} {
		img := image.NewRGBA(s.img.Rect)
		copy(img.Pix, s.img.Pix)
		for y := img.Rect.Dy() * eighths / 8; y < img.Rect.Dy(); y++ {
			for x := 0; x < img.Rect.Dx(); x++ {
				img.SetRGBA(x, y, bg)
			}
		}
		b.Run(fmt.Sprintf("text=%d-of-8", eighths), func(b *testing.B) {
			words, c0 := 0, cpuTime()
			for b.Loop() {
				r, err := ocr.Analyze(context.Background(), img, ocr.Options{})
				if err != nil {
					b.Fatal(err)
				}
				words = len(r.Boxes)
			}
			// CPU time (this process and tesseract's) says more than wall time on a busy
			// machine.
			b.ReportMetric(float64((cpuTime()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(words), "words")
		})
	}
}

// BenchmarkBusy times Analyze on the dense screens with two busy loops beside it, each in
// a session of its own as other users' programs are (docs/development.md, OCR time under
// load); the readers are warm, as from a session's second call on. NAME/reused is the
// call after the first on the unchanged screen in one scope, as analyze_screen reads it
// again (Options.Reuse).
func BenchmarkBusy(b *testing.B) {
	testenv.Require(b, "tesseract")
	for _, sc := range scenes() {
		if sc.set != "dense" {
			continue
		}
		s := render(b, sc)
		for _, c := range []struct {
			name string
			opts ocr.Options
		}{{s.name, ocr.Options{}}, {s.name + "/reused", ocr.Options{Reuse: "bench " + s.name}}} {
			b.Run(c.name, func(b *testing.B) { busy(b, s.img, c.opts) })
		}
	}
}

// busy times Analyze of img with opts, two busy loops beside it (see BenchmarkBusy).
func busy(b *testing.B, img *image.RGBA, opts ocr.Options) {
	if _, err := ocr.Analyze(context.Background(), img, opts); err != nil {
		b.Fatal(err)
	}
	// The loops are the shell's children, so that cpuTime counts none of their CPU.
	loops := exec.Command("sh", "-c", "(while :; do :; done) & (while :; do :; done) & wait")
	loops.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := loops.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { syscall.Kill(-loops.Process.Pid, syscall.SIGKILL); loops.Wait() })
	c0 := cpuTime()
	for b.Loop() {
		if _, err := ocr.Analyze(context.Background(), img, opts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-c0).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// TestReaderFailures checks that tesseract failing (missing language data, a cancelled
// call) comes back as a coded error and leaves no process behind to wait on.
func TestReaderFailures(t *testing.T) {
	testenv.Require(t, "tesseract")
	img := image.NewRGBA(image.Rect(0, 0, 400, 100))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for y := 40; y < 52; y++ { // a few dark strokes: something to read
		for x := 20; x < 200; x += 6 {
			img.Pix[(y*400+x)*4], img.Pix[(y*400+x)*4+1], img.Pix[(y*400+x)*4+2] = 0, 0, 0
		}
	}
	_, err := ocr.Analyze(context.Background(), img, ocr.Options{Language: "zzz"})
	if werr.CodeOf(err) != werr.Unavailable {
		t.Errorf("missing language: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ocr.Analyze(ctx, img, ocr.Options{}); werr.CodeOf(err) != werr.Cancelled {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := ocr.Analyze(context.Background(), img, ocr.Options{Scale: 9}); werr.CodeOf(err) != werr.InvalidArgument {
		t.Errorf("scale 9: %v", err)
	}
}

// countingTesseract is a tesseract that logs "start" when it starts.
func countingTesseract(t *testing.T) (script, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "starts")
	script = filepath.Join(dir, "tesseract")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho start >> '"+log+"'\nexec tesseract \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ocr.EndReaders)
	return script, log
}

// TestReaderEnvironmentIsAnAllowlist checks that a tesseract process gets none of the
// host's secrets: its environment is an allowlist, with one thread.
func TestReaderEnvironmentIsAnAllowlist(t *testing.T) {
	testenv.Require(t, "tesseract")
	ocr.EndReaders()
	t.Cleanup(ocr.EndReaders)
	t.Setenv("W365_API_KEY", "w365-canary-key")
	t.Setenv("GITHUB_TOKEN", "w365-canary-token")
	dir := t.TempDir()
	dump, script := filepath.Join(dir, "env"), filepath.Join(dir, "tesseract")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nenv > '"+dump+"'\nexec tesseract \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ocr.Analyze(context.Background(), strokes(3), ocr.Options{Tesseract: script, Workers: 1}); err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), "w365-canary") || !strings.Contains(string(env), "OMP_THREAD_LIMIT=1") {
		t.Errorf("a tesseract process's environment:\n%s", env)
	}
}

// starts is the number of tesseract processes countingTesseract started so far.
func starts(log string) int {
	data, _ := os.ReadFile(log)
	return strings.Count(string(data), "start")
}

// strokes is a 1920x1080 screen of rows of dark strokes 12 px tall on white, each row one
// line to read.
func strokes(rows int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, 1920, 1080))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for r := 0; r < rows; r++ {
		for y := 40 + 40*r; y < 52+40*r; y++ {
			for x := 20; x < 1900; x += 6 {
				img.Pix[(y*1920+x)*4], img.Pix[(y*1920+x)*4+1], img.Pix[(y*1920+x)*4+2] = 0, 0, 0
			}
		}
	}
	return img
}

// TestProcessesFollowText checks that a screen with little text is read by one
// tesseract process (a second would cost a model load for nothing) and a screen full of
// text by one per core, here two: the first is kept from the call before.
func TestProcessesFollowText(t *testing.T) {
	testenv.Require(t, "tesseract")
	script, log := countingTesseract(t)
	for _, c := range []struct {
		rows, want int
	}{{3, 1}, {12, 2}} {
		if _, err := ocr.Analyze(context.Background(), strokes(c.rows), ocr.Options{Tesseract: script, Workers: 2}); err != nil {
			t.Fatal(err)
		}
		if n := starts(log); n != c.want {
			t.Errorf("after %d rows of text: %d tesseract processes started, want %d", c.rows, n, c.want)
		}
	}
}

// TestReadersServeManyCalls checks that a call's tesseract processes are kept for the
// next calls, which so spend no time loading a model: three screens full of text are
// read by the two processes the first started.
func TestReadersServeManyCalls(t *testing.T) {
	testenv.Require(t, "tesseract")
	script, log := countingTesseract(t)
	img := strokes(12)
	for range 3 {
		if _, err := ocr.Analyze(context.Background(), img, ocr.Options{Tesseract: script, Workers: 2}); err != nil {
			t.Fatal(err)
		}
	}
	if n := starts(log); n != 2 {
		t.Errorf("three calls started %d tesseract processes, want 2", n)
	}
}

// TestEndedReaderIsPassedOver checks that an idle reader ended between calls (by a user,
// by the system for memory) is not handed lines: the next call reads with others.
func TestEndedReaderIsPassedOver(t *testing.T) {
	testenv.Require(t, "tesseract")
	t.Cleanup(ocr.EndReaders)
	img := strokes(12)
	if _, err := ocr.Analyze(context.Background(), img, ocr.Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	idle := children(t, "tesseract")
	if len(idle) == 0 {
		t.Fatal("no idle reader after a call")
	}
	for _, pid := range idle {
		n, _ := strconv.Atoi(pid)
		syscall.Kill(n, syscall.SIGKILL)
	}
	// Once reaped, an ended process is no child any more.
	for i := 0; len(children(t, "tesseract")) > 0; i++ {
		if i == 100 {
			t.Fatalf("readers %v still running after SIGKILL", idle)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := ocr.Analyze(context.Background(), img, ocr.Options{Workers: 2}); err != nil {
		t.Errorf("after its readers were ended: %v", err)
	}
}

// TestReadersRunInSessionsOfTheirOwn checks that every tesseract process leads a
// session of its own: Linux shares the CPU between sessions before threads, and readers
// in the caller's session share one session's CPU with it on a busy machine (see
// ownSession).
func TestReadersRunInSessionsOfTheirOwn(t *testing.T) {
	testenv.Require(t, "tesseract")
	ocr.EndReaders()
	t.Cleanup(ocr.EndReaders)
	if _, err := ocr.Analyze(context.Background(), strokes(12), ocr.Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	readers := children(t, "tesseract")
	if len(readers) != 2 {
		t.Fatalf("%d idle readers after a call, want 2", len(readers))
	}
	for _, pid := range readers {
		data, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil {
			t.Fatal(err)
		}
		// pid (comm) state ppid pgrp session ...
		s := string(data)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) < 4 || f[3] != pid {
			t.Errorf("reader %s is in session %v, want its own", pid, f[3:4])
		}
	}
}

// TestSlowReaderReadsLess checks that the lines go to the readers as they free up, not in
// shares fixed before reading: of two readers, one handed each path 1 s late (as a
// process on a busy core falls behind) reads fewer than half of 24 lines, and the call
// still reads every line. The delay is well above what a line costs tesseract at a load
// of 30 on two cores, where 0.3 s was not.
func TestSlowReaderReadsLess(t *testing.T) {
	testenv.Require(t, "tesseract")
	ocr.EndReaders()
	t.Cleanup(ocr.EndReaders)
	img := strokes(24)
	want, err := ocr.Analyze(context.Background(), img, ocr.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	ocr.EndReaders()
	dir := t.TempDir()
	script := filepath.Join(dir, "tesseract")
	// The first process started is the slow one; each logs the paths it is handed.
	pass := func(delay, log string) string {
		return "while IFS= read -r l; do " + delay + "echo \"$l\" >> '" + filepath.Join(dir, log) + "'; echo \"$l\"; done | tesseract \"$@\""
	}
	body := "#!/bin/sh\nif mkdir '" + filepath.Join(dir, "first") + "' 2>/dev/null; then\n" + pass("sleep 1; ", "slow") +
		"\nelse\n" + pass("", "fast") + "\nfi\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	got, err := ocr.Analyze(context.Background(), img, ocr.Options{Tesseract: script, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got.FullText != want.FullText {
		t.Errorf("read with a slow reader:\n%s\nwant:\n%s", got.FullText, want.FullText)
	}
	lines := func(log string) int {
		data, _ := os.ReadFile(filepath.Join(dir, log))
		n := 0
		for _, l := range strings.Fields(string(data)) {
			if filepath.Base(l) != "end.pgm" {
				n++
			}
		}
		return n
	}
	slow, fast := lines("slow"), lines("fast")
	t.Logf("lines read: %d by the slow reader, %d by the other", slow, fast)
	if slow+fast != 24 || slow >= 12 {
		t.Errorf("the slow reader read %d lines and the other %d, want fewer than half of 24 for the slow one", slow, fast)
	}
}

// children are the PIDs of this process's running children named comm.
func children(t *testing.T, comm string) []string {
	t.Helper()
	var pids []string
	for _, c := range running() {
		if c.comm == comm {
			pids = append(pids, c.pid)
		}
	}
	return pids
}

type child struct {
	pid, comm string
	cpu       time.Duration
}

// running are this process's children that have not been waited for, from /proc.
func running() []child {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []child
	for _, p := range stats {
		data, err := os.ReadFile(p)
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid ... utime stime (fields 14 and 15, in clock ticks of 10 ms)
		s := string(data)
		open, close := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || close < open {
			continue
		}
		f := strings.Fields(s[close+1:])
		if len(f) < 13 || f[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		ut, _ := strconv.Atoi(f[11])
		st, _ := strconv.Atoi(f[12])
		out = append(out, child{strings.TrimSpace(s[:open]), s[open+1 : close], time.Duration(ut+st) * 10 * time.Millisecond})
	}
	return out
}

// xcalcFigures is xcalc's display after 12*34=, as it shows it: "408" in a light face,
// figures 13 px tall with bars one pixel thick ("#" ink).
var xcalcFigures = []string{
	".......##...#####.....###....",
	"......###..##...##...#...#...",
	"......###..#.....#..##....#..",
	".....#.##..#.....##.##....#..",
	"....##.##..#......#..#...##..",
	"....#..##..#......#...###....",
	"...##..##..#......#..#...##..",
	"...#...##..#......#.#.....#..",
	"..#....##..#......#.#.....##.",
	".##....##..#.....##.#.....##.",
	".#########.#.....#..#.....#..",
	".......##..##...##..##...##..",
	".......##...#####.....####...",
}

// TestLightFaceFiguresRead checks that large figures of a light face read as the figures
// they are at every scale: tesseract read xcalc's 408 as "A08" at the default scale
// (2.15x here), "A08" at 2x, "ADS" at 3x and "AQ0S" with Fine (4x here, what a region's
// read uses), its closed 4 an A (see hairBars).
func TestLightFaceFiguresRead(t *testing.T) {
	testenv.Require(t, "tesseract")
	img := image.NewGray(image.Rect(0, 0, 200, 60))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for y, row := range xcalcFigures {
		for x, c := range row {
			if c == '#' {
				img.Pix[(20+y)*200+60+x] = 0
			}
		}
	}
	for _, opts := range []ocr.Options{{}, {Scale: 1}, {Scale: 2}, {Scale: 3}, {Fine: true}} {
		res, err := ocr.Analyze(context.Background(), img, opts)
		if err != nil {
			t.Fatal(err)
		}
		if res.FullText != "408" {
			t.Errorf("%+v: read %q, want 408", opts, res.FullText)
		}
	}
}

// TestHardEdgedTextReads: a line of hard-edged bold ink is smoothed before it is upscaled
// (docs/development.md, OCR). testdata/ocr/hard-edged.png is xmessage (real-blind4's
// xmessage-helvetica-bold) in the scaled 12 px Helvetica Bold core font, which the X
// server draws unsmoothed; upscaled alone its "97%" reads "979%".
func TestHardEdgedTextReads(t *testing.T) {
	readsAll(t, "hard-edged.png", "97%")
}

// TestCrosslessTReads: a t the X server draws without its crossbar, a stem a pixel over
// the x-height, is a t, not the l tesseract reads at every scale (docs/development.md,
// OCR, twenty-first round). testdata/ocr/crossless-t.png is xmessage (real-blind7's
// xmessage-roman-small) in the scaled 11 px Times core font: "quota" read "quola".
func TestCrosslessTReads(t *testing.T) {
	readsAll(t, "crossless-t.png", "quota")
}

// readsAll checks that Analyze reads every one of want in testdata/ocr/NAME.
func readsAll(t *testing.T, name string, want ...string) {
	t.Helper()
	words := wordsOf(t, name)
	for _, w := range want {
		if !slices.Contains(words, w) {
			t.Errorf("%s: read %q, want %s", name, words, w)
		}
	}
}

// wordsOf is what Analyze reads in testdata/ocr/NAME, a window saved from a test screen.
func wordsOf(t *testing.T, name string) []string {
	t.Helper()
	testenv.Require(t, "tesseract")
	res, err := ocr.Analyze(context.Background(), testenv.PNG(t, repoFile("testdata", "ocr", name)), ocr.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var words []string
	for _, b := range res.Boxes {
		words = append(words, b.Text)
	}
	return words
}

// TestLightLetterOnDarkOutlineReads: light ink never joins dark (see findInk).
// testdata/ocr/light-on-outline.png is xmessage (real-blind6's
// xmessage-bookman-demi-green): light Bookman Demi on dark green, the g of its "View
// log" button touching the button's black outline; one component with it, the g was
// cleared with the outline ("View los").
func TestLightLetterOnDarkOutlineReads(t *testing.T) {
	readsAll(t, "light-on-outline.png", "log")
}

// TestDoubtfulLineReadAgain: a line read with a word of low confidence is read a second
// time at 2x, and the surer reading kept (see againConf in ocr.go).
// testdata/ocr/bold-quiz.png is xmessage (real-blind6's xmessage-times-bold-large) in a
// 26 px Times Bold core font, Xaw's stippled scroll thumb just before its text: read at
// the line's scale (1.22x), "PQuiz" at confidence 9; at 2x "§ Quiz", 92 and 97.
func TestDoubtfulLineReadAgain(t *testing.T) {
	words := wordsOf(t, "bold-quiz.png")
	quiz := 0
	for _, w := range words {
		if w == "Quiz" {
			quiz++
		}
	}
	if quiz != 2 {
		t.Errorf("read %q, want the word Quiz twice (the title and the text)", words)
	}
}

// TestObliqueMonospaceLineReadWhole: a monospace line whose letters lean out of their
// cells is one line (see monoPitch in regions.go). testdata/ocr/oblique-mono.png is xterm
// (real-blind6's xterm-courier-oblique) in a 14 px Courier oblique core font: the steps
// between its letters' left edges are 7 to 10 px on a pitch of 8, and two letters
// touching make a step of two cells, so the line was cut at its word gaps into three
// tiles; the last, "(v2.8.1)" alone, read "(v2.8.2)" at every scale from 1x to 4x.
func TestObliqueMonospaceLineReadWhole(t *testing.T) {
	readsAll(t, "oblique-mono.png", "(v2.8.1)")
}

// TestMonospacePeriodStaysInItsWord: tesseract sets a space beside a monospace period,
// whose cell is mostly blank; the words of a line whose letters are centred in a
// monospace font's cells that stand closer than a blank cell are one (see celled in
// ocr.go, cellPitch in regions.go). testdata/ocr/mono-period.png is xterm (real-blind8's
// xterm-ls-colour) in DejaVu Sans Mono 10 showing coloured ls output: "README.md" and
// "release.tar.gz" were read "README .md" and "release. tar.gz".
func TestMonospacePeriodStaysInItsWord(t *testing.T) {
	readsAll(t, "mono-period.png", "README.md", "release.tar.gz", "build.sh", "Makefile")
}

// TestSelectedTextReads: a text entry's selected text, white on the theme's blue, is a
// filled box with the letters cut out of it, opened as a filled cursor's cell is (see
// selected in regions.go). testdata/ocr/selection.png is yad's form (real-blind8's
// yad-form) on Adwaita, its first field's "Dana Reyes" selected: it was read "EE mae) ae".
func TestSelectedTextReads(t *testing.T) {
	readsAll(t, "selection.png", "Dana", "Reyes", "/bin/bash")
}

// TestFocusRectangleLeavesTheKeysGlyphs: the sides of a focus rectangle are no letters
// (see trim in regions.go). testdata/ocr/focus-keys.png is a Java AWT window (real-blind12's
// awt-till) whose focused "7" key has a 1 px black rectangle around its glyph; its sides,
// four times the glyphs' height, set the median of the line they joined with the "8"
// beside, which was read too small: ";" and "°".
func TestFocusRectangleLeavesTheKeysGlyphs(t *testing.T) {
	readsAll(t, "focus-keys.png", "7", "8", "9", "4", "5", "6")
}

// TestCursorBelowALineStaysOutOfIt: what a frame held in a line but lies wholly below its
// text is another line (see split in regions.go). testdata/ocr/terminal-cursor.png is
// rxvt-unicode (real-blind12's urxvt-nimbus-bold-italic): its cursor under the "p" of the
// line above, both inside the light outline of the text area, was read with "pager:" as
// junk.
func TestCursorBelowALineStaysOutOfIt(t *testing.T) {
	readsAll(t, "terminal-cursor.png", "pager:", "ticket", "r.diaz)")
}

// TestCaretBelowALetterLeavesIt: an editor's caret touching a letter and reaching out of
// the text's band on one side only is cleared, the letter kept (see caret in regions.go).
// testdata/ocr/abiword-caret.png is AbiWord (real-blind14's abiword-letter): its caret,
// from the top of the "D" of "Dear" to well under the baseline, joined the D's stem into
// one component read "Pear".
func TestCaretBelowALetterLeavesIt(t *testing.T) {
	readsAll(t, "abiword-caret.png", "Dear", "Mr", "Vogel")
}

// TestSplitterGripKeepsRowsApart: a frame as tall as two rows (see rows in regions.go)
// holds no lines together. testdata/ocr/xfe-splitter.png is Xfe (real-blind10's
// xfe-files): its splitter grip between the folder tree and the file list joined a tree
// row and the two file rows beside it into one line, read as junk.
func TestSplitterGripKeepsRowsApart(t *testing.T) {
	readsAll(t, "xfe-splitter.png", "alder-roof.pdf", "birch_deck.odt", "cedar-fence.txt")
}

// TestUnchangedLinesAreNotReadAgain checks that a call with Options.Reuse reads only the
// lines whose images changed since an earlier call of the same scope, and reads the same
// words as a call that reads every line; another scope reads every line.
func TestUnchangedLinesAreNotReadAgain(t *testing.T) {
	testenv.Require(t, "tesseract")
	dir := t.TempDir()
	log, script := filepath.Join(dir, "pages"), filepath.Join(dir, "tesseract")
	// The pages a process is handed come on its stdin, one path a line.
	if err := os.WriteFile(script, []byte("#!/bin/sh\ntee -a '"+log+"' | exec tesseract \"$@\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ocr.EndReaders)
	seen := 0
	pages := func() int { // since the last look
		data, _ := os.ReadFile(log)
		n := 0
		for _, p := range strings.Fields(string(data)) {
			if filepath.Base(p) != "end.pgm" {
				n++
			}
		}
		n, seen = n-seen, n
		return n
	}
	before, after := strokes(12), strokes(12)
	// One line of the second screen changes: its strokes stand 4 px apart, not 6.
	for y := 40 + 40*5; y < 52+40*5; y++ {
		for x := 20; x < 1900; x++ {
			v := byte(255)
			if (x-20)%4 == 0 {
				v = 0
			}
			o := (y*1920 + x) * 4
			after.Pix[o], after.Pix[o+1], after.Pix[o+2] = v, v, v
		}
	}
	analyze := func(img image.Image, reuse string) ocr.Result {
		t.Helper()
		r, err := ocr.Analyze(context.Background(), img, ocr.Options{Tesseract: script, Workers: 1, Reuse: reuse})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	analyze(before, "a")
	if n := pages(); n < 12 {
		t.Fatalf("the first call read %d lines, want at least 12", n)
	}
	got := analyze(after, "a")
	if n := pages(); n != 1 {
		t.Errorf("the call after a change of one line read %d lines, want 1", n)
	}
	want := analyze(after, "")
	all := pages()
	if all < 12 || !slices.Equal(got.Boxes, want.Boxes) || got.FullText != want.FullText {
		t.Errorf("reusing readings: %q (%d boxes), reading all %d lines: %q (%d boxes)", got.FullText, len(got.Boxes), all, want.FullText, len(want.Boxes))
	}
	analyze(after, "b")
	if n := pages(); n != all {
		t.Errorf("another scope read %d lines, want all %d", n, all)
	}
}

// TestBlankCellSeparatesWords: in a line of monospace text, a blank as wide as a cell
// between two letters is a word space (see spaced in glyphs.go). testdata/ocr/mono-blank-cell.png
// is xterm (real-blind11's xterm-hack-7) in DejaVu Sans Mono 7, a crontab line: its
// "0 3", one blank cell apart, was read as one word "63".
func TestBlankCellSeparatesWords(t *testing.T) {
	readsAll(t, "mono-blank-cell.png", "3", "*", "1-5")
}

// TestDottedZeroBarredAcrossIsAZero: a "6" closed on its right is a "0" (see closedRight
// in glyphs.go), also when its dot is a bar across its middle rows.
// testdata/ocr/mono-blank-cell.png is xterm (real-blind11's xterm-hack-7) in DejaVu Sans
// Mono 7, whose dotted zero at that size is a ring with a bar across: "0" was read "6".
func TestDottedZeroBarredAcrossIsAZero(t *testing.T) {
	readsAll(t, "mono-blank-cell.png", "0")
}

// TestDottedZerosReadAsTwoFigures: a word of figures read with more characters than it
// has figures, where some are rings with a bar across, has zeros there (see dottedZeros in
// glyphs.go). testdata/ocr/dotted-zeros.png is rxvt-unicode (real-blind11's
// urxvt-dejavu-10px-dark) in a 10 px DejaVu Sans Mono: "200" was read "2608", "401" "4861".
func TestDottedZerosReadAsTwoFigures(t *testing.T) {
	readsAll(t, "dotted-zeros.png", "200", "401", "18ms;")
}
