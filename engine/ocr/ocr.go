// Package ocr reads the text on a screen image with the tesseract CLI.
//
// Screens are not pages: a few short labels, buttons, title bars and menus spread over
// large flat areas, small grey helper text, light text on dark panels and coloured
// buttons, text in boxes. Handed a whole screen, tesseract's page layout analysis finds
// little of it. Analyze therefore finds the text lines in the pixels first (see
// regions.go: contrast against the local background, borders erased, connected
// components grouped into lines), crops each line with a margin, normalises it (dark on
// white, contrast stretched, upscaled up to 3x when small) and reads it as one line
// (--psm 7); the single glyphs of one row (calculator keys) and the marks beside them
// are read together as one line, a strip (see units in regions.go). The lines go to
// single-threaded tesseract processes (OMP_THREAD_LIMIT=1), each in a session of its own
// (see ownSession), which take them from one queue as they free up (see serve), so that
// the model loads once per process whatever the number of lines: one process, taken
// before the screen is analysed, and one more per core only when there is enough text
// for it to pay for its model load. The processes outlive the call: they read paths
// streamed on their stdin, so that a process kept idle between calls loads its model
// once for all of them (see reader). A call may reuse its scope's earlier readings of
// identical line images (see reuse.go). Word boxes are mapped back to screen coordinates
// and grouped into lines in reading order.
package ocr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/w365/w365/engine/child"
	"github.com/w365/w365/engine/tmpdir"
	"github.com/w365/w365/engine/werr"
)

// Box is one recognised word in screen coordinates.
type Box struct {
	Text string `json:"text"`
	// Confidence is tesseract's word confidence, 0-100.
	Confidence float64 `json:"confidence"`
	X          int     `json:"x"`
	Y          int     `json:"y"`
	Width      int     `json:"width"`
	Height     int     `json:"height"`
}

// Result is the text of one image. Boxes are words, in reading order (line by line, top
// to bottom, left to right); FullText is the lines joined with "\n", the words of a
// line with spaces.
type Result struct {
	FullText          string  `json:"fullText"`
	AverageConfidence float64 `json:"averageConfidence"`
	Boxes             []Box   `json:"boxes"`
	// Width and Height are the size of the analysed image.
	Width     int `json:"width"`
	Height    int `json:"height"`
	ElapsedMs int `json:"elapsedMs"`
}

// Options tune Analyze; the zero value is the tuned default.
type Options struct {
	// Workers is the most tesseract processes run in parallel; 0 means runtime.NumCPU().
	// Fewer run when there is little to read: each costs a model load.
	Workers int
	// Scale is the upscale factor applied to every line before recognition (1 to 4):
	// 0 picks one per line, up to 3x for small text; 1 disables it.
	Scale float64
	// Language is the tesseract language; "" means eng.
	Language string
	// Tesseract is the program to run; "" means tesseract from PATH.
	Tesseract string
	// MinConfidence drops words below it (0-100); 0 keeps everything tesseract reports as a
	// word except empty ones and lone noise characters with confidence under 30.
	MinConfidence float64
	// Fine reads at higher resolution: when Scale is 0, each line is upscaled toward twice
	// the usual height (up to 4x). Slower; for a region an agent wants to confirm.
	Fine bool
	// Reuse, when not empty, names the scope (a session) whose earlier readings of
	// identical line images are taken instead of reading them again (see reuse.go).
	Reuse string
}

// tile is one line of text handed to tesseract.
type tile struct {
	// core is the line's ink extent (screen coordinates): a word read from the tile is
	// the line's only if its centre lies in it. r is the crop around it.
	core, r image.Rectangle
	// segs, for a strip of glyphs (see unit), replace core and r: each glyph's place.
	segs []segment
	// glyph: every word read from the tile is one glyph's (a strip, or a line that is
	// one glyph).
	glyph bool
	// pitch is the line's cell width at 1x when its letters are centred in the cells of
	// a monospace font (see cellPitch), 0 otherwise.
	pitch int
	// read: tesseract reported a word in the tile.
	read bool
	// pix (pw wide) is the tile's image as tesseract reads it, to check a reading
	// against its ink (see glyphs.go).
	pix   []byte
	pw    int
	scale float64
	path  string
	// crop is the tile's image at 1x, normalised (see write); lines its shape, once
	// known (see shape).
	crop  *image.Gray
	lines *lineShape
	cost  int // scaled width: recognition time grows with it
	// boxes are the words read from the tile (see parseTSV).
	boxes []Box
}

// Analyze recognises the text in img. Box coordinates are in img's own coordinate
// space: screen coordinates for a full-screen capture, and still screen coordinates for
// a region cut from it with SubImage (whose bounds keep the screen offset).
func Analyze(ctx context.Context, img image.Image, opts Options) (Result, error) {
	start := time.Now()
	if img == nil || img.Bounds().Empty() {
		return Result{}, werr.Invalid("empty image")
	}
	bin := opts.Tesseract
	if bin == "" {
		bin = "tesseract"
	}
	bin, err := exec.LookPath(bin)
	if err != nil {
		return Result{}, werr.New(werr.Unavailable, "tesseract is not installed").
			WithHint("install tesseract-ocr and tesseract-ocr-eng")
	}
	scale := opts.Scale
	if scale != 0 && (scale < 1 || scale > 4) {
		return Result{}, werr.Invalid("scale must be between 1 and 4, got %g", scale)
	}
	lang := opts.Language
	if lang == "" {
		lang = "eng"
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.NumCPU()
	}

	// One reader is taken now: an idle one left by an earlier call, whose model is
	// loaded, or one started now that loads it while the screen is analysed. Others are
	// taken once the lines are known: every idle one there is work for, and new ones
	// only when there is enough to read to pay for their model load (see minShare). A
	// reader is ended when the call's context ends, and kept for the next call when the
	// call succeeds.
	var readers []*reader
	var unhook []func() bool // per reader: ends its tie to ctx, false once ctx ended it
	addReader := func(r *reader) {
		readers = append(readers, r)
		unhook = append(unhook, context.AfterFunc(ctx, r.kill))
	}
	startReaders := func(n int) error {
		for len(readers) < n {
			if err := ctx.Err(); err != nil {
				return werr.Wrap(err, werr.Cancelled, "OCR cancelled")
			}
			r := pool.take(bin, lang)
			if r == nil {
				var err error
				if r, err = startReader(bin, lang); err != nil {
					return werr.Wrap(err, werr.Internal, "cannot start tesseract")
				}
			}
			addReader(r)
		}
		return nil
	}
	ok := false
	defer func() {
		for i, r := range readers {
			if live := unhook[i](); live && ok {
				pool.put(bin, lang, r)
			} else {
				r.stop()
			}
		}
	}()
	if err := startReaders(1); err != nil {
		return Result{}, err
	}

	g := toGray(img)
	b := g.Rect
	res := Result{Width: b.Dx(), Height: b.Dy()}
	// The tiles' directory is held while the call runs: one a killed host left, the next
	// host removes (tmpdir.Sweep). It is made in memory where the system has a place for
	// it (tilesBase), else in the temporary directory.
	scratch, err := tmpdir.Make(tilesBase, tmpdir.OCR)
	if err != nil {
		scratch, err = tmpdir.Make("", tmpdir.OCR)
	}
	if err != nil {
		return Result{}, werr.Wrap(err, werr.Internal, "cannot create a temporary directory")
	}
	defer scratch.Remove()
	dir := scratch.Path

	ink := findInk(g, newBackground(g, workers), workers)
	lines, units := ink.units(ink.lines())
	tiles := make([]tile, len(units))
	// Crop, normalise, upscale and write the lines in parallel.
	var wg sync.WaitGroup
	errs := make([]error, max(len(tiles), workers))
	sem := make(chan struct{}, workers)
	for i := range tiles {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			u := units[i]
			sc := scale
			if sc == 0 {
				sc = lineScale(u.band.Dy(), opts.Fine)
			}
			t := &tiles[i]
			var crop *image.Gray
			if len(u.idx) == 1 {
				l := lines[u.idx[0]]
				var r image.Rectangle
				r, crop = ink.crop(u.idx[0], l, l.r)
				t.core = l.r.Inset(-2).Add(b.Min)
				t.r = r.Add(b.Min)
				t.glyph = ink.glyph(l)
				if !t.glyph {
					t.pitch = ink.cellPitch(l)
				}
			} else {
				crop, t.segs = ink.strip(lines, u)
				t.glyph = true
				for k := range t.segs {
					t.segs[k].off = t.segs[k].off.Add(b.Min)
					t.segs[k].core = t.segs[k].core.Add(b.Min)
				}
			}
			if hardEdged(crop) {
				crop = smooth(crop)
			}
			t.crop = crop
			errs[i] = t.write(filepath.Join(dir, fmt.Sprintf("l%04d.pgm", i)), sc)
		}(i)
	}
	wg.Wait()
	// A blank page after a reader's last tile marks the end of its words (see serve).
	end := filepath.Join(dir, "end.pgm")
	if err := errors.Join(append(errs, writePGM(end, bytes.Repeat([]byte{255}, 64), 8, 8))...); err != nil {
		return Result{}, werr.Wrap(err, werr.Internal, "cannot write OCR tiles")
	}

	// The readers take the tiles from one queue, longest first, each the next as soon as
	// it has room for it (see serve): a reader on a busier core, or one started now and
	// behind the others by a model load, takes fewer, and none waits for another.
	q := &queue{work: make(chan *tile, 2*len(tiles)), left: len(tiles), again: scale == 0 && !opts.Fine, minConf: opts.MinConfidence}
	if opts.Reuse != "" {
		q.key = func(t *tile) reuseKey { return reuseOf(opts.Reuse, bin, lang, t.pix, t.pw) }
	}
	// Lines read before in the scope take their rows from then (see reuse.go); the others
	// are read.
	todo := make([]*tile, len(tiles))
	var fresh []*tile
	known := map[*tile]string{}
	total := 0
	for i := range tiles {
		t := &tiles[i]
		todo[i] = t
		if rows, ok := q.known(t); ok {
			known[t] = rows
			continue
		}
		fresh = append(fresh, t)
		total += t.cost
	}
	sort.SliceStable(fresh, func(i, j int) bool { return fresh[i].cost > fresh[j].cost })
	workers = max(1, min(workers, len(fresh)))
	for len(readers) < workers {
		r := pool.take(bin, lang)
		if r == nil {
			break
		}
		addReader(r)
	}
	if err := startReaders(min(workers, max(len(readers), total/minShare))); err != nil {
		return Result{}, err
	}
	for _, t := range fresh {
		q.work <- t
	}
	if len(todo) == 0 {
		close(q.work)
	}
	for _, t := range todo {
		if rows, ok := known[t]; ok {
			if err := q.done(t, rows); err != nil {
				return Result{}, werr.Wrap(err, werr.Internal, "cannot write OCR tiles")
			}
		}
	}
	// A reader that fails ends the others' waiting for work.
	serving, stop := context.WithCancel(ctx)
	defer stop()
	for w, r := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if errs[w] = r.serve(serving, lang, q.work, len(readers), end, q.done); errs[w] != nil {
				if ctx.Err() == nil && errors.Is(errs[w], context.Canceled) {
					errs[w] = nil // stopped for another's failure, which is reported
				}
				stop()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs[:len(readers)]...); err != nil {
		if ctx.Err() != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return Result{}, werr.Wrap(err, werr.Timeout, "OCR did not finish in time")
			}
			return Result{}, werr.Wrap(err, werr.Cancelled, "OCR cancelled")
		}
		var we *werr.Error
		if errors.As(err, &we) {
			return Result{}, we
		}
		return Result{}, werr.Wrap(err, werr.Internal, "tesseract failed")
	}
	for _, tw := range q.twins {
		tw[0].boxes = reread(tw[0].boxes, tw[1])
	}
	all := unread(todo)
	for _, t := range todo {
		all = append(all, celled(t.underscores(t.boxes), t.pitch)...)
	}
	rows := groupLines(all)
	var sb strings.Builder
	sum := 0.0
	for li, row := range rows {
		if li > 0 {
			sb.WriteByte('\n')
		}
		for wi, w := range row {
			if wi > 0 {
				sb.WriteByte(' ')
			}
			sb.WriteString(w.Text)
			res.Boxes = append(res.Boxes, w)
			sum += w.Confidence
		}
	}
	res.FullText = sb.String()
	if res.Boxes == nil {
		res.Boxes = []Box{}
	}
	if len(res.Boxes) > 0 {
		res.AverageConfidence = sum / float64(len(res.Boxes))
	}
	res.ElapsedMs = int(time.Since(start).Milliseconds())
	ok = true
	return res, nil
}

// tilesBase is where a call's tiles are written: Linux's shared memory, not a disk. A
// dense screen's 60 tiles cost 18 to 21 ms of CPU and 35 to 52 ms of wall to create,
// write, read and remove in a /tmp on disk (ext4, under load) and 6 to 7 ms in /dev/shm
// (docs/development.md, OCR); tesseract reads them back at once and they are gone when the
// call ends. Where it does not exist (other systems) the temporary directory is used.
const tilesBase = "/dev/shm"

// write upscales the tile's crop by sc and writes it to path, where a reader reads it.
func (t *tile) write(path string, sc float64) error {
	pix, w, h := prepare(t.crop, t.crop.Rect, sc)
	t.pix, t.pw = pix, w
	t.scale = sc
	t.cost = w + tileOverhead
	t.path = path
	return writePGM(path, pix, w, h)
}

// Tesseract's reading of small text is no monotone function of its scale (see
// docs/development.md, OCR): a line may read right at one scale and wrong at the next,
// and a word read wrong tends to be read with lower confidence ("soon." 96 at 2x,
// "scon." 89 at 1.75x; "97%" 89 at 2x, "979." 58 at 3x). A line of text (not a glyph or
// a strip of them) that tesseract read, at another scale than againScale, with a word
// under againConf (or nothing kept) has those words (or the whole line) read a second
// time at againScale (see doubt). The second reading replaces them when it is surer:
// its least confident word at least againGain more confident than theirs (nothing kept
// counts as 0), and no fewer words read with some confidence (noise's 30: two words
// read as one, "0 MB" as "OMB", lose one).
const (
	againConf  = 90
	againScale = 2
	againGain  = 5
)

// again says whether a tile is to be read a second time (see againConf).
func (t *tile) again() bool {
	low, _ := t.sure()
	return t.read && !t.glyph && t.segs == nil && low < againConf && t.scale != againScale
}

// doubt is the part of a doubtful line read a second time: its words under againConf,
// from halfway to the word before the first of them to halfway to the word after the
// last, the line's whole height, with a white margin of a quarter of that height each
// side; the whole line when no word was kept or that part is over half the line's
// width. The words read with confidence are not read again: on a long line with one
// doubtful word, the second reading was most of the line's cost again for one word
// (xman's help page, docs/development.md). Over half the line, little is saved, and
// the words around count: a badge row's "Delayed 40min Cancelled" read alone was read
// "40min" again, the whole row "40 min" (Chromium's, real-blind9).
func (t *tile) doubt() *tile {
	ws := slices.Clone(t.boxes)
	slices.SortStableFunc(ws, func(a, b Box) int { return a.X - b.X })
	first, last := -1, -1
	for i, w := range ws {
		if w.Confidence < againConf {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	lo, hi := t.r.Min.X, t.r.Max.X
	if first > 0 {
		lo = (ws[first-1].X + ws[first-1].Width + ws[first].X) / 2
	}
	if last >= 0 && last < len(ws)-1 {
		hi = (ws[last].X + ws[last].Width + ws[last+1].X) / 2
	}
	lo, hi = max(lo, t.r.Min.X), min(hi, t.r.Max.X)
	if 2*(hi-lo) > t.r.Dx() || hi <= lo {
		return &tile{core: t.core, r: t.r, crop: t.crop, pitch: t.pitch}
	}
	h := t.crop.Rect.Dy()
	pad := h / 4
	crop := image.NewGray(image.Rect(0, 0, hi-lo+2*pad, h))
	for i := range crop.Pix {
		crop.Pix[i] = 255
	}
	for y := range h {
		src := t.crop.Pix[y*t.crop.Stride+lo-t.r.Min.X:]
		copy(crop.Pix[y*crop.Stride+pad:], src[:hi-lo])
	}
	return &tile{
		core:  image.Rect(max(lo, t.core.Min.X), t.core.Min.Y, min(hi, t.core.Max.X), t.core.Max.Y),
		r:     image.Rect(lo-pad, t.r.Min.Y, hi+pad, t.r.Max.Y),
		crop:  crop,
		pitch: t.pitch,
	}
}

// reread is a line's words after its doubtful part was read again (see doubt): the
// second reading replaces the words of the first whose centre lies in that part when
// it is surer than they are.
func reread(ws []Box, twin *tile) []Box {
	var in, out []Box
	for _, w := range ws {
		if cx := w.X + w.Width/2; cx >= twin.core.Min.X && cx < twin.core.Max.X {
			in = append(in, w)
		} else {
			out = append(out, w)
		}
	}
	if !surer(&tile{boxes: in}, twin) {
		return ws
	}
	out = append(out, twin.boxes...)
	slices.SortStableFunc(out, func(a, b Box) int { return a.X - b.X })
	return out
}

// sure is the confidence of the least confident word read from the tile (0 for none)
// and the number of its words read with confidence 30 or more.
func (t *tile) sure() (float64, int) {
	low, n := 100.0, 0
	if len(t.boxes) == 0 {
		low = 0
	}
	for _, b := range t.boxes {
		low = min(low, b.Confidence)
		if b.Confidence >= 30 {
			n++
		}
	}
	return low, n
}

// surer says whether a second reading is surer than the first (see againConf).
func surer(first, second *tile) bool {
	l1, n1 := first.sure()
	l2, n2 := second.sure()
	return n2 >= max(1, n1) && l2 >= l1+againGain
}

// queue hands a call's tiles to its readers (see serve) and takes in their readings.
type queue struct {
	// work holds the tiles not yet handed to a reader, with room for every tile's second
	// reading; it is closed once every tile queued has been read.
	work chan *tile
	mu   sync.Mutex
	left int // tiles queued whose reading has not come
	// again: a doubtful line is read a second time (see againConf); twins are the lines
	// read again, each with its second reading.
	again   bool
	twins   [][2]*tile
	minConf float64
	// key, when the call reuses readings (Options.Reuse), is a tile's key in readings.
	key func(*tile) reuseKey
}

// known are the rows a tile's image was read as before in the call's scope, if it was.
func (q *queue) known(t *tile) (string, bool) {
	if q.key == nil {
		return "", false
	}
	return readings.get(q.key(t))
}

// done takes in the rows of tile t's page (its page numbered 1): its words go to its
// boxes, and a doubtful line is queued to be read again at once.
func (q *queue) done(t *tile, rows string) error {
	if q.key != nil {
		readings.put(q.key(t), rows)
	}
	parseTSV([]byte(rows), []*tile{t}, q.minConf)
	var twin *tile
	if q.again && t.again() {
		twin = t.doubt()
		if err := twin.write(strings.TrimSuffix(t.path, ".pgm")+"b.pgm", againScale); err != nil {
			return err
		}
	}
	if twin != nil {
		q.mu.Lock()
		q.twins = append(q.twins, [2]*tile{t, twin})
		q.left++
		q.mu.Unlock()
		if rows, ok := q.known(twin); ok {
			if err := q.done(twin, rows); err != nil {
				return err
			}
		} else {
			q.work <- twin
		}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.left--; q.left == 0 {
		close(q.work)
	}
	return nil
}

// Costs are in scaled pixels of tile width; tesseract reads about 60 of them a
// millisecond on this machine's cores (measured on the benchmark screens: 50 on dense
// text, 70 on sparse screens).
const (
	// tileOverhead is the fixed cost of a tile.
	tileOverhead = 200
	// minShare is the least work a reader process is started for, about 300 ms of
	// reading. A second process halves the reading time when a core is free but adds a
	// model load of CPU; below this the load would be a large share of the CPU spent,
	// and on a busy machine (where time follows CPU) a net loss.
	minShare = 18000
)

// reader is one single-threaded tesseract process that reads the line images named on
// its stdin as they come (stream_filelist), one page each, and writes each page's TSV as
// soon as it has read it. It outlives the call that started it: kept idle between calls
// (see readerPool), it loads its model once for all of them, where a process per call
// spent about 75 ms of CPU on it each time, on a busy machine as wall time.
type reader struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	// rows are its stdout's lines, closed when it has ended; pages is the number of
	// pages handed to it so far (TSV numbers a process's pages from 1).
	rows  chan string
	pages int
	// exited is closed once the process has ended, with err its exit and stderr the end
	// of what it printed there.
	exited chan struct{}
	err    error
	stderr child.Tail
}

// readerEnvNames are the host's variables a tesseract process gets: where it finds its
// models, programs and libraries, its locale and temporary directory; nothing else of the
// host's environment (API keys, tokens) reaches it.
var readerEnvNames = []string{"PATH", "TESSDATA_PREFIX", "LANG", "LC_ALL", "LC_CTYPE", "SystemRoot", "TEMP", "TMP", "TMPDIR"}

// readerEnv is a tesseract process's environment: readerEnvNames, one thread.
func readerEnv() []string {
	env := []string{"OMP_THREAD_LIMIT=1"}
	for _, k := range readerEnvNames {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func startReader(bin, lang string) (*reader, error) {
	// Polarity is already normalised: tesseract need not retry lines inverted.
	r := &reader{cmd: exec.Command(bin, "-", "stdout", "-l", lang, "--psm", "7",
		"-c", "tessedit_do_invert=0", "-c", "stream_filelist=1", "tsv")}
	r.cmd.Env = readerEnv()
	ownSession(r.cmd)
	r.cmd.Stderr = &r.stderr
	stdout, err := r.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if r.stdin, err = r.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := r.cmd.Start(); err != nil {
		return nil, err
	}
	r.rows, r.exited = make(chan string, 256), make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			r.rows <- sc.Text()
		}
		close(r.rows)
		r.err = r.cmd.Wait()
		close(r.exited)
	}()
	return r, nil
}

// kill ends a reader's process.
func (r *reader) kill() {
	r.cmd.Process.Kill()
	r.stdin.Close()
}

// stop ends a reader and waits for its end.
func (r *reader) stop() {
	r.kill()
	for range r.rows {
	}
	<-r.exited
}

// live says whether the reader's process is still running: an idle one may have been
// ended meanwhile (by a user, or by the system for memory).
func (r *reader) live() bool {
	select {
	case <-r.exited:
		return false
	default:
		return true
	}
}

// readerPool keeps the readers of finished calls idle for the next call, per tesseract
// program and language; those unused for readerIdle are ended. An idle reader also
// ends with this process (its stdin closes).
type readerPool struct {
	mu    sync.Mutex
	idle  map[string][]*reader
	timer map[string]*time.Timer
}

const readerIdle = 2 * time.Minute

var pool = &readerPool{idle: map[string][]*reader{}, timer: map[string]*time.Timer{}}

// take returns a running idle reader for the program and language, or nil.
func (p *readerPool) take(bin, lang string) *reader {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := bin + "\x00" + lang
	for rs := p.idle[k]; len(rs) > 0; rs = p.idle[k] {
		r := rs[len(rs)-1]
		p.idle[k] = rs[:len(rs)-1]
		if r.live() {
			return r
		}
		r.stop()
	}
	return nil
}

// put keeps a reader idle and (re)starts its key's idle clock.
func (p *readerPool) put(bin, lang string, r *reader) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := bin + "\x00" + lang
	p.idle[k] = append(p.idle[k], r)
	if t := p.timer[k]; t != nil {
		t.Stop()
	}
	p.timer[k] = time.AfterFunc(readerIdle, func() {
		p.mu.Lock()
		rs := p.idle[k]
		delete(p.idle, k)
		p.mu.Unlock()
		for _, r := range rs {
			r.stop()
		}
	})
}

// serve hands the reader the tiles of work until it is closed, and done each tile's rows
// (its page numbered 1); readers is the number of readers taking from work. It keeps in
// the process's hands its share of the tiles queued, and at least two pages, the one it
// reads and the next waiting on its stdin: the process then never waits for a path from
// this one, which on a busy machine may be slow to come back to it (one tile in hand at a
// time made application screens slower under load), and the shares shrink as the queue
// empties, so that the readers still end together. A page's rows have all come when a row
// of a later page comes: a tile with none queued behind it is followed by end, a blank
// page.
func (r *reader) serve(ctx context.Context, lang string, work <-chan *tile, readers int, end string, done func(*tile, string) error) error {
	type page struct {
		n    int
		t    *tile // nil for end
		rows strings.Builder
	}
	var held []*page
	hand := func(t *tile, path string) {
		r.pages++
		held = append(held, &page{n: r.pages, t: t})
		// A write to a process that has ended fails; its rows end too, and that is reported.
		io.WriteString(r.stdin, path+"\n")
	}
	open := true
	for {
	fill:
		for open && len(held) < max(2, len(work)/readers+1) {
			select {
			case t, ok := <-work:
				if !ok {
					open = false
					break fill
				}
				hand(t, t.path)
			default:
				break fill
			}
		}
		if len(held) == 0 {
			if !open {
				return nil
			}
			select {
			case t, ok := <-work:
				if ok {
					hand(t, t.path)
				}
				open = ok
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		if len(held) == 1 && held[0].t != nil {
			hand(nil, end)
		}
		row, ok := <-r.rows
		if !ok {
			break
		}
		f := strings.SplitN(row, "\t", 3)
		n, err := strconv.Atoi(f[min(1, len(f)-1)])
		if err != nil || len(f) < 3 {
			continue // the header
		}
		for len(held) > 0 && held[0].n < n {
			if p := held[0]; p.t != nil {
				if err := done(p.t, p.rows.String()); err != nil {
					return err
				}
			}
			held = held[1:]
		}
		if len(held) > 0 && held[0].n == n {
			if p := held[0]; p.t == nil {
				held = held[1:] // end's row: what came before it is all there
			} else {
				fmt.Fprintf(&p.rows, "%s\t1\t%s\n", f[0], f[2])
			}
		}
	}
	<-r.exited
	if ctx.Err() != nil {
		return ctx.Err()
	}
	msg := strings.TrimSpace(r.stderr.String())
	if strings.Contains(msg, "Failed loading language") {
		return werr.New(werr.Unavailable, "tesseract has no %q language data", lang).
			WithHint("install tesseract-ocr-%s", lang)
	}
	return fmt.Errorf("tesseract ended: %v: %s", r.err, msg)
}

// parseTSV reads level-5 (word) rows of tesseract's TSV and maps them to screen
// coordinates, keeping the words whose centre lies in their tile's core; each is also
// added to its tile's boxes.
func parseTSV(data []byte, tiles []*tile, minConf float64) []Box {
	var out []Box
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		page, _ := strconv.Atoi(f[1])
		if page < 1 || page > len(tiles) {
			continue
		}
		left, _ := strconv.Atoi(f[6])
		top, _ := strconv.Atoi(f[7])
		wd, _ := strconv.Atoi(f[8])
		ht, _ := strconv.Atoi(f[9])
		conf, _ := strconv.ParseFloat(f[10], 64)
		text := strings.TrimSpace(strings.Join(f[11:], "\t"))
		t := tiles[page-1]
		t.read = true
		if text == "" || conf < minConf {
			continue
		}
		// A glyph's reading is checked against its ink (see glyphs.go); a symbol its ink
		// shows is kept whatever tesseract's confidence in what it read.
		raw, shape := text, false
		box := image.Rect(left, top, left+wd, top+ht)
		switch {
		case t.glyph:
			text = oneGlyph(text)
			if t.pix != nil {
				text, shape = t.symbol(text, box)
			}
		case t.pix != nil:
			b := inkOf(t.pix, t.pw, box)
			text = figures(dashes(colons(periods(superscript(text, b), b), b), b), b)
			if strings.ContainsRune(text, 'o') {
				text = zeros(text, t.inkAt1x(box))
			}
			if strings.ContainsRune(text, '0') && t.crop != nil {
				text = ohs(text, t.inkAt1x(box))
			}
			if t.crop != nil {
				text = dottedZeros(text, t.inkAt1x(box))
			}
			if strings.ContainsRune(text, 'l') && t.crop != nil {
				x0, x1 := int(float64(box.Min.X)/t.scale), int(math.Ceil(float64(box.Max.X)/t.scale))
				text = tees(text, t.shape(), x0, x1)
			}
			if t.pitch > 0 && t.crop != nil {
				text = spaced(text, t.inkAt1x(box), t.pitch)
			}
		}
		// A strip holds glyph-shaped ink in a row of glyphs: a lone symbol read there is
		// a key's label, whatever tesseract's confidence in it.
		if t.segs == nil && !shape && noise(raw, conf) {
			continue
		}
		scale := t.scale
		x0 := int(float64(left) / scale)
		y0 := int(float64(top) / scale)
		x1 := int(math.Ceil(float64(left+wd) / scale))
		y1 := int(math.Ceil(float64(top+ht) / scale))
		off, core := t.r.Min, t.core
		if t.segs != nil {
			off, core = t.place((x0 + x1) / 2)
		}
		x0, x1, y0, y1 = x0+off.X, x1+off.X, y0+off.Y, y1+off.Y
		cx, cy := (x0+x1)/2, (y0+y1)/2
		if !image.Pt(cx, cy).In(core) {
			continue // the neighbour whose core holds it reports it
		}
		// Words run together at ")(" are as many words, each given its share of the box
		// by its place in the reading, in characters.
		n := utf8.RuneCountInString(text)
		for _, p := range outlined(text) {
			a, b := x0+(x1-x0)*p.from/n, x0+(x1-x0)*p.to/n
			box := Box{Text: p.text, Confidence: conf, X: a, Y: y0, Width: b - a, Height: y1 - y0}
			out, t.boxes = append(out, box), append(t.boxes, box)
		}
	}
	return out
}

// outlined cuts a reading where a closing bracket meets an opening one, and at a space
// (see spaced): the outlines of two buttons side by side (Xaw's oval ones; stippled, an
// insensitive button's, are not taken out of the line, see trim) read as ")(" between
// their labels, and xclipboard's "Next" and "Prev" came back as one word "‘Next)(Prev’";
// text has a space there. The brackets, the outlines' reading, are left out; each part
// says where it lies in the reading, in characters from..to.
func outlined(text string) []part {
	var parts []part
	at := 0
	for _, w := range strings.Split(text, " ") {
		for _, s := range strings.Split(w, ")(") {
			n := utf8.RuneCountInString(s)
			if s != "" {
				parts = append(parts, part{s, at, at + n})
			}
			at += n + 2
		}
		at-- // the space is one character, not two
	}
	return parts
}

// part is a piece of a reading, from..to in characters.
type part struct {
	text     string
	from, to int
}

// place is the offset to the screen and the core of the strip glyph at strip x.
func (t *tile) place(x int) (image.Point, image.Rectangle) {
	for _, s := range t.segs {
		if x < s.x1 {
			return s.off, s.core
		}
	}
	s := t.segs[len(t.segs)-1]
	return s.off, s.core
}

// oneGlyph is the reading of one glyph: read alone, a letter whose two cases
// differ only in size (C, O, S, V, W, X, Z) comes back as both ("Cc"), and a glyph is
// one character: the first is kept.
func oneGlyph(text string) string {
	r := []rune(text)
	if len(r) == 2 && r[0] != r[1] && unicode.ToLower(r[0]) == unicode.ToLower(r[1]) {
		return string(r[:1])
	}
	return text
}

// noise says whether a word is a likely artefact: a lone symbol or letter read with low
// confidence (icons, borders, separators).
func noise(text string, conf float64) bool {
	if conf >= 30 {
		return false
	}
	alnum := 0
	for _, r := range text {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 {
			alnum++
		}
	}
	return alnum == 0 || len([]rune(text)) <= 1
}

// Lines groups the boxes of a Result into its lines as groupLines does (FullText's reading);
// boxes is left as it is.
func Lines(boxes []Box) [][]Box { return groupLines(slices.Clone(boxes)) }

// groupLines groups words into lines in reading order: words whose vertical centres
// fall within one another's extent form a row; a row splits where the horizontal gap
// is wider than three line heights (separate columns or widgets); lines are ordered top
// to bottom, then left to right.
func groupLines(ws []Box) [][]Box {
	sort.SliceStable(ws, func(i, j int) bool {
		ci, cj := ws[i].Y*2+ws[i].Height, ws[j].Y*2+ws[j].Height
		if ci != cj {
			return ci < cj
		}
		return ws[i].X < ws[j].X
	})
	type row struct {
		words       []Box
		top, bottom int
	}
	var rows []*row
	for _, w := range ws {
		cy := w.Y + w.Height/2
		var best *row
		for i := len(rows) - 1; i >= 0 && i >= len(rows)-8; i-- {
			r := rows[i]
			if cy >= r.top && cy < r.bottom {
				rc := (r.top + r.bottom) / 2
				if best == nil || abs(rc-cy) < abs((best.top+best.bottom)/2-cy) {
					best = r
				}
			}
		}
		if best == nil {
			rows = append(rows, &row{words: []Box{w}, top: w.Y, bottom: w.Y + w.Height})
			continue
		}
		best.words = append(best.words, w)
	}
	var lines [][]Box
	for _, r := range rows {
		sort.SliceStable(r.words, func(i, j int) bool { return r.words[i].X < r.words[j].X })
		h := max(1, r.bottom-r.top)
		cur := []Box{r.words[0]}
		for _, w := range r.words[1:] {
			p := &cur[len(cur)-1]
			gap := w.X - (p.X + p.Width)
			if gap > 3*h {
				lines = append(lines, cur)
				cur = nil
			} else if underscored(*p, w, gap) {
				*p = joined(*p, w)
				continue
			}
			cur = append(cur, w)
		}
		lines = append(lines, cur)
	}
	// Rows are already top to bottom (by first word); keep that order, lines of one row
	// left to right.
	return lines
}

// underscored says whether two neighbouring words of a line are one name tesseract cut
// at an underscore ("courtyard _final"): the underscore lies below the baseline, and
// tesseract sets a space beside it. They are one word when the one ends or the other
// begins with "_" and the gap between them is under a quarter of their height.
func underscored(a, b Box, gap int) bool {
	return (strings.HasSuffix(a.Text, "_") || strings.HasPrefix(b.Text, "_")) && gap*4 < max(a.Height, b.Height)
}

// celled joins two words of a monospace line (pitch its cell width, 0 for another line)
// that meet at a period and stand closer than three quarters of a cell: tesseract sets a
// space beside a period in its mostly blank cell ("README .md", "release. tar.gz"), but a
// word space there is a whole blank cell besides the period's own blank (less a pixel
// or two an oblique face's letters lean into it). Words meeting elsewhere stay apart: a
// bitmap font's letters fill their cells, and one blank cell between them was read
// closer than that (xmore's "tray was").
func celled(ws []Box, pitch int) []Box {
	if pitch == 0 || len(ws) < 2 {
		return ws
	}
	ws = append([]Box(nil), ws...)
	sort.SliceStable(ws, func(i, j int) bool { return ws[i].X < ws[j].X })
	out := ws[:1]
	for _, w := range ws[1:] {
		p := &out[len(out)-1]
		dot := strings.HasSuffix(p.Text, ".") || strings.HasPrefix(w.Text, ".")
		if gap := w.X - (p.X + p.Width); dot && 4*gap < 3*pitch {
			*p = joined(*p, w)
			continue
		}
		out = append(out, w)
	}
	return out
}

// joined is two words read as one: their texts run together, their boxes are united,
// and the confidence is the lower.
func joined(a, b Box) Box {
	x0, y0 := min(a.X, b.X), min(a.Y, b.Y)
	x1, y1 := max(a.X+a.Width, b.X+b.Width), max(a.Y+a.Height, b.Y+b.Height)
	return Box{Text: a.Text + b.Text, Confidence: min(a.Confidence, b.Confidence), X: x0, Y: y0, Width: x1 - x0, Height: y1 - y0}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
