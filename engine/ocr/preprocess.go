package ocr

import (
	"encoding/binary"
	"fmt"
	"image"
	"image/draw"
	"math"
	"os"
	"sync"
)

// toGray converts img to 8-bit luminance (BT.601 weights), with fast paths for the
// formats screen captures come in.
func toGray(img image.Image) *image.Gray {
	b := img.Bounds()
	if src, ok := img.(*image.Gray); ok {
		return src
	}
	g := image.NewGray(b)
	switch src := img.(type) {
	case *image.RGBA:
		grayRows(g, src.Pix, src.Stride, b)
	case *image.NRGBA:
		grayRows(g, src.Pix, src.Stride, b)
	default:
		rgba := image.NewRGBA(b)
		draw.Draw(rgba, b, img, b.Min, draw.Src)
		grayRows(g, rgba.Pix, rgba.Stride, b)
	}
	return g
}

func grayRows(g *image.Gray, pix []byte, stride int, b image.Rectangle) {
	w := b.Dx()
	for y := 0; y < b.Dy(); y++ {
		s := pix[y*stride : y*stride+4*w]
		d := g.Pix[y*g.Stride : y*g.Stride+w]
		for x := range d {
			r, gg, bb := uint32(s[4*x]), uint32(s[4*x+1]), uint32(s[4*x+2])
			d[x] = uint8((299*r + 587*gg + 114*bb + 500) / 1000)
		}
	}
}

// blockSize is the side of the square blocks (at 1x) that seed backgrounds. Small
// enough that a button inside a dark panel gets its own seeds, large enough that glyph
// strokes rarely outnumber the background in a block.
const blockSize = 8

// background knows, for every pixel, the level of the background it lies on.
//
// Backgrounds are found by colour and connectivity, not by fixed blocks, because UI text
// is often the colour of a neighbouring region's background: white text on a blue button
// on a white page, dark text on a light button in a dark panel. Blocks whose pixels are
// mostly one level seed a background; each grows over connected pixels of about its
// level (so it cannot leak into a button through its border); the remaining pixels
// (text, borders, icons) take the level of the nearest seed. The nearest seed's level,
// not a whole region's, is the reference, so gradients (title bars) flatten out.
type background struct {
	rect  image.Rectangle
	label []int32 // per pixel: index of the nearest seed block, -1 for none
	bg    []int16 // per block: background level
}

// seedTolerance is how close (in luminance) a pixel must be to a seed's background
// level to be part of that background.
const seedTolerance = 20

// minSeedRun is the fewest blocks in a row (or column) one block across that seed a
// background: a bold glyph's stroke spans fewer.
const minSeedRun = 5

// newBackground analyses g in horizontal strips of whole block rows, one per worker, in
// parallel; a pixel takes the nearest seed of its own strip.
func newBackground(g *image.Gray, workers int) *background {
	b := g.Rect
	W, H := b.Dx(), b.Dy()
	bw, bh := (W+blockSize-1)/blockSize, (H+blockSize-1)/blockSize
	n := bw * bh
	p := &background{rect: b, bg: make([]int16, n), label: make([]int32, W*H)}
	pix := g.Pix
	if g.Stride != W {
		pix = make([]byte, W*H)
		for y := 0; y < H; y++ {
			copy(pix[y*W:(y+1)*W], g.Pix[y*g.Stride:])
		}
	}
	strips := max(1, min(workers, bh/8))
	var wg sync.WaitGroup
	for s := 0; s < strips; s++ {
		wg.Add(1)
		go func(by0, by1 int) {
			defer wg.Done()
			p.grow(pix, W, H, bw, by0, by1)
		}(bh*s/strips, bh*(s+1)/strips)
	}
	wg.Wait()
	return p
}

// grow seeds and grows the backgrounds of block rows [by0, by1).
func (p *background) grow(pix []byte, W, H, bw, by0, by1 int) {
	pure := make([]bool, (by1-by0)*bw)
	for by := by0; by < by1; by++ {
		for bx := 0; bx < bw; bx++ {
			x0, y0 := bx*blockSize, by*blockSize
			x1, y1 := min(x0+blockSize, W), min(y0+blockSize, H)
			if v, ok := flatBlock(pix, W, x0, y0, x1, y1); ok {
				p.bg[by*bw+bx] = int16(v) // what the histogram gives, found faster
				pure[(by-by0)*bw+bx] = true
				continue
			}
			var coarse, sums [16]int
			for y := y0; y < y1; y++ {
				for _, v := range pix[y*W+x0 : y*W+x1] {
					coarse[v>>4]++
					sums[v>>4] += int(v)
				}
			}
			m := 0
			for i := range coarse {
				if coarse[i] > coarse[m] {
					m = i
				}
			}
			// A neighbouring level belongs to the mode (a level straddling a bin edge).
			cnt := coarse[m]
			if m > 0 {
				cnt += coarse[m-1]
			}
			if m < 15 {
				cnt += coarse[m+1]
			}
			p.bg[by*bw+bx] = int16(sums[m] / max(1, coarse[m]))
			pure[(by-by0)*bw+bx] = cnt*4 >= 3*(x1-x0)*(y1-y0)
		}
	}
	// A few blocks of one level are no background: they may lie inside a bold glyph's
	// stroke (large bold digits have strokes as wide as a block), and seeded there they
	// would make the glyph's ink background and cut the glyph into fragments. Pure blocks
	// of one level that touch form an area; an area seeds only when it spans two blocks
	// both ways, or minSeedRun blocks one way (a stroke spans one block across).
	rows := by1 - by0
	root := make([]int32, len(pure))
	for k := range root {
		root[k] = int32(k)
	}
	find := func(k int32) int32 {
		for root[k] != k {
			root[k] = root[root[k]]
			k = root[k]
		}
		return k
	}
	same := func(a, b int) bool {
		d := p.bg[by0*bw+a] - p.bg[by0*bw+b]
		return pure[a] && pure[b] && d <= seedTolerance && d >= -seedTolerance
	}
	for y := 0; y < rows; y++ {
		for x := 0; x < bw; x++ {
			k := y*bw + x
			if x+1 < bw && same(k, k+1) {
				root[find(int32(k))] = find(int32(k + 1))
			}
			if y+1 < rows && same(k, k+bw) {
				root[find(int32(k))] = find(int32(k + bw))
			}
		}
	}
	span := make([]image.Rectangle, len(pure)) // per area root, its blocks' extent
	for k := range pure {
		if pure[k] {
			r, b := find(int32(k)), image.Rect(k%bw, k/bw, k%bw+1, k/bw+1)
			if span[r].Empty() {
				span[r] = b
			} else {
				span[r] = span[r].Union(b)
			}
		}
	}
	for k := range pure {
		if pure[k] {
			a := span[find(int32(k))]
			pure[k] = a.Dx() >= 2 && a.Dy() >= 2 || max(a.Dx(), a.Dy()) >= minSeedRun
		}
	}
	rowMin, rowMax := by0*blockSize, min(by1*blockSize, H) // pixel rows of the strip
	label := p.label
	for i := rowMin * W; i < rowMax*W; i++ {
		label[i] = -1
	}
	first, last := rowMin*W, (rowMax-1)*W
	// neighbours lists the 4-neighbours of pixel i within the strip.
	neighbours := func(i int, nb *[4]int) int {
		x, k := i%W, 0
		if x > 0 {
			nb[k] = i - 1
			k++
		}
		if x < W-1 {
			nb[k] = i + 1
			k++
		}
		if i >= first+W {
			nb[k] = i - W
			k++
		}
		if i < last {
			nb[k] = i + W
			k++
		}
		return k
	}
	full := make([]bool, len(pure)) // every pixel of the block is seeded
	for by := by0; by < by1; by++ {
		for bx := 0; bx < bw; bx++ {
			if !pure[(by-by0)*bw+bx] {
				continue
			}
			bi := by*bw + bx
			bg := int(p.bg[bi])
			n, seeded := 0, 0
			for y := by * blockSize; y < min((by+1)*blockSize, H); y++ {
				for x := bx * blockSize; x < min((bx+1)*blockSize, W); x++ {
					i := y*W + x
					n++
					if d := int(pix[i]) - bg; d <= seedTolerance && d >= -seedTolerance {
						label[i] = int32(bi)
						seeded++
					}
				}
			}
			full[(by-by0)*bw+bx] = seeded == n
		}
	}
	// Only seeded pixels with an unlabelled neighbour can grow anything: on a flat screen
	// that is a small share of them (the inside of a fully seeded block never is), and
	// leaving the others out of the queue changes nothing but the time.
	queue := make([]int32, 0, (rowMax-rowMin)*W/8)
	var nb [4]int
	for by := by0; by < by1; by++ {
		for bx := 0; bx < bw; bx++ {
			if !pure[(by-by0)*bw+bx] {
				continue
			}
			inner := full[(by-by0)*bw+bx]
			// A fully seeded block among fully seeded blocks (or the strip's edge) has
			// no unlabelled neighbour at all: most of a flat screen.
			isFull := func(bx, by int) bool {
				return bx < 0 || bx >= bw || by < by0 || by >= by1 || full[(by-by0)*bw+bx]
			}
			if inner && isFull(bx-1, by) && isFull(bx+1, by) && isFull(bx, by-1) && isFull(bx, by+1) {
				continue
			}
			x0, y0 := bx*blockSize, by*blockSize
			x1, y1 := min(x0+blockSize, W), min(y0+blockSize, H)
			for y := y0; y < y1; y++ {
				for x := x0; x < x1; x++ {
					if inner && x > x0 && x < x1-1 && y > y0 && y < y1-1 {
						continue
					}
					i := y*W + x
					if label[i] < 0 {
						continue
					}
					k := neighbours(i, &nb)
					for _, j := range nb[:k] {
						if label[j] < 0 {
							queue = append(queue, int32(i))
							break
						}
					}
				}
			}
		}
	}
	// Pass 1 grows backgrounds over pixels of their level and notes the pixels at their
	// edge; pass 2 grows from those edges over every remaining pixel, which so takes the
	// nearest seed.
	var edge []int32
	for pass := 1; pass <= 2; pass++ {
		if pass == 2 {
			queue = edge
		}
		for h := 0; h < len(queue); h++ {
			i := int(queue[h])
			l := label[i]
			bg := int(p.bg[l])
			k := neighbours(i, &nb)
			atEdge := false
			for _, j := range nb[:k] {
				if label[j] >= 0 {
					continue
				}
				if d := int(pix[j]) - bg; pass == 1 && (d > seedTolerance || d < -seedTolerance) {
					atEdge = true
					continue
				}
				label[j] = l
				queue = append(queue, int32(j))
			}
			if atEdge {
				edge = append(edge, int32(i))
			}
		}
	}
}

// flatBlock says whether the whole block [x0, x1) x [y0, y1) is one level, and which: a
// full block's rows are compared 8 pixels at a time.
func flatBlock(pix []byte, W, x0, y0, x1, y1 int) (byte, bool) {
	if blockSize != 8 || x1-x0 != blockSize {
		return 0, false
	}
	v := pix[y0*W+x0]
	want := uint64(v) * 0x0101010101010101
	for y := y0; y < y1; y++ {
		if binary.LittleEndian.Uint64(pix[y*W+x0:]) != want {
			return 0, false
		}
	}
	return v, true
}

// contrast returns how far the pixel at index i (row-major, relative to the image) with
// level v stands out of its background: negative where it is darker.
func (p *background) contrast(i int, v byte) int {
	if l := p.label[i]; l >= 0 {
		return int(v) - int(p.bg[l])
	}
	return int(v) - 255 // no flat background in the strip: take text as dark on white
}

// Thin straight lines (button outlines, table grids, separators) longer than minLine
// pixels are erased, dotted ones (see dotted) and long borders that text touches from
// one side (see edge) too: tesseract's sparse-text mode reads nothing inside a box.
const (
	minLine   = 28
	lineInk   = 160 // darker than this (after normalisation) is ink
	lineClear = 2   // a line is thin: the pixels this far to each side are mostly clear
)

// removeLines erases thin horizontal and vertical lines from a normalised image.
func removeLines(g *image.Gray) {
	b := g.Rect
	W, H := b.Dx(), b.Dy()
	ink := func(x, y int) bool {
		return x >= 0 && y >= 0 && x < W && y < H && g.Pix[y*g.Stride+x] < lineInk
	}
	var erase [][4]int // x, y, length, vertical
	for y := 0; y < H; y++ {
		for x := 0; x < W; {
			if !ink(x, y) {
				x++
				continue
			}
			x0 := x
			for x < W && ink(x, y) {
				x++
			}
			if x-x0 >= minLine && (thin(ink, x0, y, x-x0, false) || edge(ink, x0, y, x-x0, false)) {
				erase = append(erase, [4]int{x0, y, x - x0, 0})
			}
			// A dotted line (a focus rectangle) is a line too: see dotted.
			if x-x0 > 1 {
				continue
			}
			if n := dotted(ink, x0, y, false); n >= minLine && thin(ink, x0, y, n, false) {
				for i := 0; i < n; i += 2 {
					erase = append(erase, [4]int{x0 + i, y, 1, 0})
				}
				x = x0 + n
			}
		}
	}
	for x := 0; x < W; x++ {
		for y := 0; y < H; {
			if !ink(x, y) {
				y++
				continue
			}
			y0 := y
			for y < H && ink(x, y) {
				y++
			}
			if y-y0 >= minLine && (thin(ink, x, y0, y-y0, true) || edge(ink, x, y0, y-y0, true)) {
				erase = append(erase, [4]int{x, y0, y - y0, 1})
			}
			if y-y0 > 1 {
				continue
			}
			if n := dotted(ink, x, y0, true); n >= minLine && thin(ink, x, y0, n, true) {
				for i := 0; i < n; i += 2 {
					erase = append(erase, [4]int{x, y0 + i, 1, 1})
				}
				y = y0 + n
			}
		}
	}
	for _, e := range erase {
		for i := 0; i < e[2]; i++ {
			x, y := e[0]+i, e[1]
			if e[3] == 1 {
				x, y = e[0], e[1]+i
			}
			g.Pix[y*g.Stride+x] = 255
		}
	}
}

// dotted is the length of the dotted run from x, y: pixels of ink one apart with a clear
// pixel between each two (0 when x, y is clear). GTK 2's and Xaw's focus rectangles are
// dotted; left in, their dots were marks beside a focused row's text and the crop held
// them, along its top and side, and tesseract read nothing of PCManFM's focused
// "acme-march.pdf".
func dotted(ink func(x, y int) bool, x, y int, vertical bool) int {
	at := func(i int) bool {
		if vertical {
			return ink(x, y+i)
		}
		return ink(x+i, y)
	}
	if !at(0) {
		return 0
	}
	n := 1
	for !at(n) && at(n+1) {
		n += 2
	}
	return n
}

// thin says whether a run has clear pixels lineClear away on both sides for at least
// 80% of its length.
func thin(ink func(x, y int) bool, x, y, n int, vertical bool) bool {
	clear := 0
	for i := 0; i < n; i++ {
		var a, b bool
		if vertical {
			a, b = ink(x-lineClear, y+i), ink(x+lineClear, y+i)
		} else {
			a, b = ink(x+i, y-lineClear), ink(x+i, y+lineClear)
		}
		if !a && !b {
			clear++
		}
	}
	return clear*5 >= n*4
}

// edge says whether a run is a long border with text beside it: at least edgeLine long,
// clear lineClear away on one side for at least 80% of its length (or, there, the next
// line of a bevel of parallel lines a pixel apart: clear a pixel away and inked lineClear
// away for 80% of it) and bandReach away on the other side for at least half of it.
// Motif's pane bevel is three such lines, and mgdiff's text starts a pixel inside it:
// joined to the bevel, the first letter of every row was lost ("Quarterly" read
// "rterly"). A list's or a text view's border that its
// text comes within a pixel of (a Tk listbox's italic capitals, a GTK text view's serifs
// touching its frame) is not thin by thin's rule, where the letters stand on one side,
// and joined to the letters it made one component of all the rows beside it (Tk's
// listbox rows read "rect,"). A letter's stroke is shorter than edgeLine; a filled box's
// edge (a selection, a button) has ink bandReach inside it all along.
func edge(ink func(x, y int) bool, x, y, n int, vertical bool) bool {
	if n < edgeLine {
		return false
	}
	clear := func(d int) int {
		c := 0
		for i := 0; i < n; i++ {
			px, py := x+i, y+d
			if vertical {
				px, py = x+d, y+i
			}
			if !ink(px, py) {
				c++
			}
		}
		return c
	}
	for _, s := range []int{-1, 1} {
		// The outer side is clear, or holds the next line of a bevel: a gap of a pixel,
		// then ink all along.
		outer := clear(s*lineClear)*5 >= n*4 || clear(s)*5 >= n*4 && clear(s*lineClear)*5 <= n
		if outer && clear(-s*bandReach)*2 >= n {
			return true
		}
	}
	return false
}

// edgeLine is the least length of a border edge finds; bandReach is how far inside
// it edge looks for a filled box's ink.
const (
	edgeLine  = 2 * minLine
	bandReach = 4
)

// prepare crops r from the normalised image g and upscales it by scale with bilinear
// interpolation. It returns the pixels and their size.
func prepare(g *image.Gray, r image.Rectangle, scale float64) ([]byte, int, int) {
	scale = max(1, scale)
	w, h := r.Dx(), r.Dy()
	W, H := int(math.Round(float64(w)*scale)), int(math.Round(float64(h)*scale))
	out := make([]byte, W*H)
	x0 := make([]int, W)
	fx := make([]int, W)
	for X := 0; X < W; X++ {
		x0[X], fx[X] = srcCoord(X, scale, w)
	}
	for Y := 0; Y < H; Y++ {
		y0, fy := srcCoord(Y, scale, h)
		y1 := min(y0+1, h-1)
		r0 := g.Pix[g.PixOffset(r.Min.X, r.Min.Y+y0):]
		r1 := g.Pix[g.PixOffset(r.Min.X, r.Min.Y+y1):]
		dst := out[Y*W : (Y+1)*W]
		for X := range dst {
			a := x0[X]
			b := min(a+1, w-1)
			f := fx[X]
			top := int(r0[a])*(256-f) + int(r0[b])*f
			bot := int(r1[a])*(256-f) + int(r1[b])*f
			dst[X] = byte((top*(256-fy) + bot*fy + 32768) >> 16)
		}
	}
	return out, W, H
}

// srcCoord maps output coordinate X of an upscaled axis to the source pixel and the
// 1/256 fraction towards the next one.
func srcCoord(X int, scale float64, n int) (int, int) {
	s := int((float64(X)+0.5)/scale*256) - 128
	if s < 0 {
		s = 0
	}
	i, f := s>>8, s&255
	if i >= n-1 {
		i, f = n-1, 0
	}
	return i, f
}

// writePGM writes 8-bit gray pixels as a binary PGM (P5), which tesseract reads without
// decompression, in one write of the file's own size (a line is tens of KB; a buffer of a
// fixed larger size cost more to clear than the write).
func writePGM(path string, pix []byte, w, h int) error {
	data := fmt.Appendf(make([]byte, 0, 32+len(pix)), "P5\n%d %d\n255\n", w, h)
	return os.WriteFile(path, append(data, pix...), 0o666)
}

// Hard-edged ink (docs/development.md, OCR, seventh round): a line whose ink is almost
// all full black on white and whose strokes are mostly 2 px or wider (a bold core font
// scaled without antialiasing) is smoothed before it is upscaled, each pixel taking 4/6
// of itself and 1/6 of each neighbour, across and then down. Tesseract's model is trained
// on antialiased text: xmessage's hard-edged 12 px Helvetica Bold read "97%" as "979%"
// upscaled alone, "97%" smoothed. Strokes 1 px wide (bitmap fonts, light faces) are left
// alone: smoothed they lose their core, and xmore's and xterm's bitmap fonts lost words.
const (
	edgeLight = 224 // darker than this is ink
	edgeDark  = 32  // ink lighter than this is an edge's grey
	edgeShare = 10  // percent: ink with fewer edge greys than this is hard-edged
)

// hardEdged says whether g's ink is two-level (under edgeShare percent of its ink pixels
// grey) and its strokes at least 2 px wide (under half its horizontal ink runs 1 px).
func hardEdged(g *image.Gray) bool {
	ink, grey, runs, ones := 0, 0, 0, 0
	b := g.Rect
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := g.Pix[g.PixOffset(b.Min.X, y):][:b.Dx()]
		for _, v := range row {
			if v < edgeLight {
				ink++
				if v > edgeDark {
					grey++
				}
			}
		}
		r, o := oneRuns(len(row), func(k int) bool { return row[k] < 128 })
		runs, ones = runs+r, ones+o
	}
	return ink > 0 && grey*100 < edgeShare*ink && 2*ones < runs
}

// smooth returns g blurred by the kernel [1 4 1]/6 both ways (edges repeated).
func smooth(g *image.Gray) *image.Gray {
	b := g.Rect
	w, h := b.Dx(), b.Dy()
	at := func(x, y int) int {
		x, y = min(max(x, 0), w-1), min(max(y, 0), h-1)
		return int(g.Pix[g.PixOffset(b.Min.X+x, b.Min.Y+y)])
	}
	out := image.NewGray(b)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			row := func(y int) int { return 4*at(x, y) + at(x-1, y) + at(x+1, y) }
			out.Pix[y*out.Stride+x] = byte((4*row(y) + row(y-1) + row(y+1) + 18) / 36)
		}
	}
	return out
}
