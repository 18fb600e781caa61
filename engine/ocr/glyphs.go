package ocr

import (
	"image"
	"math"
	"slices"
	"strings"
	"unicode"
)

// A glyph read alone (a key's label) is checked against its own pixels where tesseract's
// English model is known to mistake it: a bitmap font's "1" (a flag at the top, no foot
// serif, as xcalc's) is read as "]", whose top bar the flag resembles; a "]" has a bar
// at its foot as well (see footBar). The model has no letters for the calculator's
// symbols: a glyph read "+" or "-" that is stacked parts is a "÷" or a "±" (signOf, also
// for a one-glyph tile read as nothing), one read "T" with two legs a "π" (pi), one read
// "v" with a low tick a "√" (root). A word's reading is checked too: a raised last figure
// read "2" or "?" is a superscript (superscript), a bitmap font's period read "," is a
// "." (periods), its colon read as a figure a ":" (colons), an unsmoothed hyphen read
// "*" a "-" (dashes), an x-height o read "0" an "o" (ohs), and a t drawn without its
// crossbar read "l" a "t" (tees).

// bitmap is a glyph's ink: true where the tile is dark.
type bitmap struct {
	w, h int
	ink  []bool
}

func (b bitmap) at(x, y int) bool { return b.ink[y*b.w+x] }

// inkOf cuts rectangle r out of a tile's pixels (w wide) and trims it to its ink.
func inkOf(pix []byte, w int, r image.Rectangle) bitmap {
	r = r.Intersect(image.Rect(0, 0, w, len(pix)/max(1, w)))
	x0, y0, x1, y1 := r.Max.X, r.Max.Y, r.Min.X, r.Min.Y
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if pix[y*w+x] < 128 {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x+1), max(y1, y+1)
			}
		}
	}
	if x1 <= x0 {
		return bitmap{}
	}
	b := bitmap{w: x1 - x0, h: y1 - y0, ink: make([]bool, (x1-x0)*(y1-y0))}
	for y := y0; y < y1; y++ {
		for x := x0; x < x1; x++ {
			b.ink[(y-y0)*b.w+x-x0] = pix[y*w+x] < 128
		}
	}
	return b
}

// footBar says whether a glyph's bottom rows hold a bar reaching left from its stem (the
// rightmost column inked over most of the height) by a third of its width, as a "]" has
// and a "1" does not.
func footBar(b bitmap) bool {
	stem := -1
	for x := b.w - 1; x >= 0 && stem < 0; x-- {
		n := 0
		for y := 0; y < b.h; y++ {
			if b.at(x, y) {
				n++
			}
		}
		if n*10 >= b.h*7 {
			stem = x
		}
	}
	if stem < 0 {
		return true // no stem: not the shape this rule knows
	}
	rows := max(1, b.h/8)
	for y := b.h - rows; y < b.h; y++ {
		left := 0
		for x := 0; x < stem; x++ {
			if b.at(x, y) {
				left = max(left, stem-x)
			}
		}
		if left*3 >= b.w {
			return true
		}
	}
	return false
}

// symbol is a glyph's reading checked against its ink (box is tesseract's box of it in
// the tile's pixels), and whether its ink showed a symbol that tesseract's English model
// does not know and reads as a letter or another sign.
func (t *tile) symbol(text string, box image.Rectangle) (string, bool) {
	if text == "]" && !footBar(inkOf(t.pix, t.pw, box)) {
		return "1", false
	}
	if text == "+" || text == "-" || text == "=" || text == ":" {
		// tesseract's box may hold part of the sign only (the "+" of a "±"): the ink is
		// the glyph's whole place.
		if s := signOf(t.placeInk(box)); s != "" {
			return s, true
		}
	}
	if r := []rune(text); len(r) <= 2 && r[0] == 'T' && pi(t.placeInk(box)) {
		return "π", true
	}
	if (text == "v" || text == "V") && root(t.placeInk(box)) {
		return "√", true
	}
	return text, false
}

// root says whether a glyph read as a "v" is a "√": its left part, the tick, is low (no
// ink in its left two fifths over the top quarter of its height) and its right stroke
// rises to the top, where a "v" reaches the top on both sides.
func root(b bitmap) bool {
	if b.h < 5 {
		return false
	}
	low := false
	for y := 0; y < b.h; y++ {
		for x := 0; x < b.w*2/5; x++ {
			if b.at(x, y) {
				if y < b.h/4 {
					return false
				}
				low = true
			}
		}
	}
	return low
}

// pi says whether a glyph read as a "T" is a "π": a bar across its top over two legs.
// Every row of its lower part (from half to four fifths of its height) crosses two runs
// of ink or more (a leg's curl), where a "T" crosses one.
func pi(b bitmap) bool {
	if b.h < 5 {
		return false
	}
	top := 0
	for y := 0; y < b.h/3; y++ {
		n := 0
		for x := 0; x < b.w; x++ {
			if b.at(x, y) {
				n++
			}
		}
		top = max(top, n)
	}
	if top*4 < b.w*3 {
		return false
	}
	for y := b.h / 2; y < b.h*4/5; y++ {
		if b.runs(y) < 2 {
			return false
		}
	}
	return true
}

// runs counts the runs of ink in row y.
func (b bitmap) runs(y int) int {
	n := 0
	for x := 0; x < b.w; x++ {
		if b.at(x, y) && (x == 0 || !b.at(x-1, y)) {
			n++
		}
	}
	return n
}

// superscript is a word's reading whose last character, read "2", "3" or "?" (the
// English model has no "²" or "³"), is a raised figure: the last of the word's ink
// parts (split at blank columns) ends above the middle of the others' height. "x²" was
// read "x2" and "x?".
func superscript(text string, b bitmap) string {
	r := []rune(text)
	if len(r) < 2 || !strings.ContainsRune("23?", r[len(r)-1]) {
		return text
	}
	ps := b.spans(true)
	if len(ps) < 2 {
		return text
	}
	others := ps[0]
	for _, p := range ps[1 : len(ps)-1] {
		others = others.Union(p)
	}
	if ps[len(ps)-1].Max.Y*2 > others.Min.Y+others.Max.Y {
		return text
	}
	sup := map[rune]rune{'2': '²', '3': '³', '?': '²'}
	return string(r[:len(r)-1]) + string(sup[r[len(r)-1]])
}

// periods is a word's reading with each "," whose ink is a period's made ".": a
// bitmap font's period, a dot as high as it is wide centred on the baseline, reaches a
// pixel below it and, upscaled, tesseract reads it as a comma ("VERSION=2,4,1",
// "collector,go"). The word's points ("." and ",", in order) are its parts (split at
// blank columns) at most half as tall and as wide as its tallest, below the middle of
// its tall parts' band and reaching within a fifth of the tallest's height of its
// baseline (the median foot of its tall parts); a point less than 1.25 times as tall
// as wide is a period, a comma's tail making it taller (1.33 to 2 on the benchmark's
// screens, a bitmap period 1 to 1.14). A reading whose points do not match its parts
// one to one is kept.
func periods(text string, b bitmap) string {
	if !strings.Contains(text, ",") {
		return text
	}
	ps := b.spans(true)
	if len(ps) == 0 {
		return text
	}
	tall := 0
	for _, p := range ps {
		tall = max(tall, p.Dy())
	}
	var tops, feet []int
	for _, p := range ps {
		if p.Dy()*2 >= tall {
			tops, feet = append(tops, p.Min.Y), append(feet, p.Max.Y)
		}
	}
	slices.Sort(tops)
	slices.Sort(feet)
	top, base := tops[len(tops)/2], feet[len(feet)/2]
	var points []image.Rectangle
	for _, p := range ps {
		if p.Dy()*2 <= tall && p.Dx()*2 <= tall && p.Min.Y*2 >= top+base && p.Max.Y*5 >= base*5-tall {
			points = append(points, p)
		}
	}
	r := []rune(text)
	k := 0
	for _, c := range r {
		if c == '.' || c == ',' {
			k++
		}
	}
	if k != len(points) {
		return text
	}
	k = 0
	for i, c := range r {
		if c != '.' && c != ',' {
			continue
		}
		p := points[k]
		k++
		if c == ',' && p.Dy()*4 < p.Dx()*5 && !b.tail(p) {
			r[i] = '.'
		}
	}
	return string(r)
}

// tail says whether a point's ink leans down to the left, as a comma's tail does: its
// bottom row's ink is centred at least a pixel left of its top row's. A bold or oblique
// Courier's comma is a slanted wedge as wide as it is tall ("tags," was made "tags."); a
// bitmap period, a square dot upscaled, is centred alike in every row.
func (b bitmap) tail(p image.Rectangle) bool {
	tlo, thi := b.extent(p, p.Min.Y)
	blo, bhi := b.extent(p, p.Max.Y-1)
	return tlo+thi-blo-bhi >= 2 // the centres, doubled
}

// extent is the first and last inked column of row y within p's columns, -1 and -1 if
// the row is blank there.
func (b bitmap) extent(p image.Rectangle, y int) (int, int) {
	lo, hi := -1, -1
	for x := p.Min.X; x < p.Max.X; x++ {
		if b.at(x, y) {
			hi = x
			if lo < 0 {
				lo = x
			}
		}
	}
	return lo, hi
}

// colons is a word's reading with each figure inside it whose ink is a colon's made ":":
// a bitmap font's colon, upscaled, is read as a "3" ("23:16" read "23316" in the times
// of `ls -l` in xterm's 6x13). A colon is a part of the word (split at blank columns) at
// most half as wide as the word's tallest part and at least half as tall, made of two
// dots one above the other: two runs of inked rows, each under half the part's height
// and at least half as tall as the part is wide (a "=" has bars). The word's parts must
// match its characters one to one, as a monospaced font's do; otherwise the reading is
// kept.
func colons(text string, b bitmap) string {
	r := []rune(text)
	ps := b.spans(true)
	if len(ps) != len(r) || len(r) < 2 {
		return text
	}
	tall := 0
	for _, p := range ps {
		tall = max(tall, p.Dy())
	}
	for i, p := range ps {
		if i == 0 || i == len(r)-1 || !unicode.IsDigit(r[i]) || p.Dx()*2 > tall || p.Dy()*2 < tall {
			continue
		}
		var dots []int // heights of the runs of inked rows
		for y := p.Min.Y; y < p.Max.Y; y++ {
			if !b.rowInked(p, y) {
				continue
			}
			if y == p.Min.Y || !b.rowInked(p, y-1) {
				dots = append(dots, 0)
			}
			dots[len(dots)-1]++
		}
		if len(dots) == 2 && slices.IndexFunc(dots, func(h int) bool { return h*2 >= p.Dy() || h*2 < p.Dx() }) < 0 {
			r[i] = ':'
		}
	}
	return string(r)
}

// dashes is a word's reading with each "*" whose ink is a hyphen's made "-": a hyphen
// of an unsmoothed sans font, upscaled, is read as an asterisk ("BP-3107" read "BP*3107"
// in Java's Metal look, whose text is not antialiased). The word's dashes ("-" and "*",
// in order) are its parts (split at blank columns) that are solid bars: at least as
// wide as tall (Java's 12 px DejaVu Sans draws its hyphen as a 3 px square), at most a
// third of the tallest part's height, every row inked over at least four fifths of the
// width, below the top third of the word's height and clear of its bottom fifth (a
// period). An asterisk is spokes, at the top of the band. A reading whose dashes do not
// match its bars one to one is kept.
func dashes(text string, b bitmap) string {
	if !strings.Contains(text, "*") {
		return text
	}
	ps := b.spans(true)
	tall, top := 0, b.h
	for _, p := range ps {
		tall, top = max(tall, p.Dy()), min(top, p.Min.Y)
	}
	var bars int
	for _, p := range ps {
		if p.Dx() < p.Dy() || p.Dy()*3 > tall || (p.Min.Y-top)*3 < tall || (top+tall-p.Max.Y)*5 < tall {
			continue
		}
		solid := true
		for y := p.Min.Y; y < p.Max.Y && solid; y++ {
			n := 0
			for x := p.Min.X; x < p.Max.X; x++ {
				if b.at(x, y) {
					n++
				}
			}
			solid = n*5 >= p.Dx()*4
		}
		if solid {
			bars++
		}
	}
	if bars != strings.Count(text, "*")+strings.Count(text, "-") {
		return text
	}
	return strings.ReplaceAll(text, "*", "-")
}

// figures is a word's reading with the figures tesseract took for letters or other
// figures made right by their ink, where the word's parts (split at blank columns) match
// its characters one to one:
//   - an "l" with a foot bar reaching past its stem on both sides, in a word whose other
//     letters are capitals, is a "1" ("B1" read "Bl", "Q1" "Ql" in DejaVu Sans: its l is
//     a bare stem, its 1 has a foot); a serif font's l has a foot too, so the word may
//     hold no other lower-case letter;
//   - a "d" whose left third is blank over its bottom fifth, in such a word, is a "4":
//     a d's bowl reaches the baseline there, a 4 stands on its stem's foot (Courier's
//     "A4" read "Ad");
//   - a "6" that is hollow and closed on its right (closedRight) is a "0": a 6 is open
//     there, between its hook and its bowl, and a dotted zero (Terminus's, DejaVu Sans
//     Mono's) was read "6" ("10.8.3.44" read "16.8.3.44", "08:30" "68:30").
func figures(text string, b bitmap) string {
	r := []rune(text)
	if !strings.ContainsAny(text, "ld6") {
		return text
	}
	ps := b.spans(true)
	if len(ps) != len(r) {
		return text
	}
	capitals := !slices.ContainsFunc(r, func(c rune) bool { return unicode.IsLower(c) && c != 'l' && c != 'd' }) &&
		slices.ContainsFunc(r, func(c rune) bool { return unicode.IsUpper(c) || unicode.IsDigit(c) })
	for i, p := range ps {
		switch {
		case r[i] == 'l' && capitals && b.footed(p):
			r[i] = '1'
		case r[i] == 'd' && capitals && b.openFoot(p):
			r[i] = '4'
		case r[i] == '6' && b.closedRight(p):
			r[i] = '0'
		}
	}
	return string(r)
}

// footed says whether a part's bottom row reaches past its stem (its ink in the middle
// row) by a pixel or more on both sides.
func (b bitmap) footed(p image.Rectangle) bool {
	slo, shi := b.extent(p, (p.Min.Y+p.Max.Y)/2)
	flo, fhi := b.extent(p, p.Max.Y-1)
	return slo >= 0 && flo >= 0 && flo < slo && fhi > shi
}

// openFoot says whether a part's left third is blank over its bottom fifth.
func (b bitmap) openFoot(p image.Rectangle) bool {
	left := image.Rect(p.Min.X, p.Min.Y, p.Min.X+max(1, p.Dx()/3), p.Max.Y)
	for y := p.Max.Y - max(1, p.Dy()/5); y < p.Max.Y; y++ {
		if b.rowInked(left, y) {
			return false
		}
	}
	return true
}

// closedRight says whether a part is a hollow figure closed on its right: its right
// fifth holds ink in every row from a fifth to half of its height, and one of those rows
// is two runs of ink or more, from its left fifth to its right. One row is enough: a
// dotted zero's dot, at 7 px, is a bar across its middle rows (DejaVu Sans Mono 7's "0"
// read "6").
func (b bitmap) closedRight(p image.Rectangle) bool {
	edge := max(1, p.Dx()/5)
	right := image.Rect(p.Max.X-edge, p.Min.Y, p.Max.X, p.Max.Y)
	y0, y1 := p.Min.Y+p.Dy()/5, p.Min.Y+p.Dy()/2
	for y := y0; y < y1; y++ {
		if !b.rowInked(right, y) {
			return false
		}
	}
	for y := y0; y < y1; y++ {
		first, last := b.extent(p, y)
		if first < 0 || first >= p.Min.X+edge || last < p.Max.X-edge {
			continue
		}
		for x := first + 1; x < last; x++ {
			if !b.at(x, y) {
				return true // a blank between the sides: two runs or more
			}
		}
	}
	return false
}

// inkAt1x is the ink of the tile's crop at 1x under box, a box of the tile as tesseract
// read it (upscaled): upscaled, letters a pixel apart touch.
func (t *tile) inkAt1x(box image.Rectangle) bitmap {
	r := image.Rect(int(float64(box.Min.X)/t.scale), int(float64(box.Min.Y)/t.scale),
		int(math.Ceil(float64(box.Max.X)/t.scale)), int(math.Ceil(float64(box.Max.Y)/t.scale)))
	return inkOf(t.crop.Pix, t.crop.Stride, r)
}

// zeros is a word's reading with a first or last "o" whose ink is a figure's height made
// "0": a letter o stands at the x-height, a zero as tall as the figures and the
// ascenders, and tesseract reads a serif face's zero as an o ("eth0" read "etho" in
// DejaVu Serif 9). The word must have a letter with an ascender (b d f h k l), a capital
// or a figure besides the o, to tell the height; the o's ink is the word's first or last
// part (split at blank columns), no wider than tall, and reaches from its foot (the
// baseline) to within zeroReach of the word's top, where an x-height o reaches about two
// thirds of the way. An o inside a word is kept: its part is not told by the reading.
func zeros(text string, b bitmap) string {
	r := []rune(text)
	if len(r) < 2 || !slices.ContainsFunc(r, func(c rune) bool {
		return strings.ContainsRune("bdfhkl", c) || unicode.IsUpper(c) || unicode.IsDigit(c)
	}) {
		return text
	}
	ps := b.spans(true)
	if len(ps) < 2 {
		return text
	}
	top := b.h
	for _, p := range ps {
		top = min(top, p.Min.Y)
	}
	zero := func(p image.Rectangle) bool {
		return p.Dx() <= p.Dy() && p.Dy()*zeroReach[1] >= (p.Max.Y-top)*zeroReach[0]
	}
	if n := len(r) - 1; r[n] == 'o' && zero(ps[len(ps)-1]) {
		r[n] = '0'
	}
	if r[0] == 'o' && zero(ps[0]) {
		r[0] = '0'
	}
	return string(r)
}

// zeroReach is the share of the word's height above its foot (17/20) a zero reaches: in
// DejaVu Serif a zero is 0.96 of the ascenders' height and an o 0.68.
var zeroReach = [2]int{17, 20}

// rowInked says whether row y of b has ink within the columns of p.
func (b bitmap) rowInked(p image.Rectangle, y int) bool {
	for x := p.Min.X; x < p.Max.X; x++ {
		if b.at(x, y) {
			return true
		}
	}
	return false
}

// unread are the signs shown by the one-glyph tiles tesseract read nothing in (a "÷"
// alone in a list's cell), with no confidence: see signOf.
func unread(tiles []*tile) []Box {
	var out []Box
	for _, t := range tiles {
		if t.read || !t.glyph || t.pix == nil || t.segs != nil {
			continue
		}
		if s := signOf(inkOf(t.pix, t.pw, image.Rect(0, 0, t.pw, len(t.pix)/max(1, t.pw)))); s != "" {
			r := t.core.Inset(2)
			out = append(out, Box{Text: s, X: r.Min.X, Y: r.Min.Y, Width: r.Dx(), Height: r.Dy()})
		}
	}
	return out
}

// placeInk is the ink of the glyph whose reading lies in box: the strip segment that
// holds the box's centre, or the whole tile.
func (t *tile) placeInk(box image.Rectangle) bitmap {
	r := image.Rect(0, 0, t.pw, len(t.pix)/max(1, t.pw))
	if t.segs != nil {
		x := float64(box.Min.X+box.Max.X) / 2 / t.scale
		for k, s := range t.segs {
			if x < float64(s.x1) || k == len(t.segs)-1 {
				r.Min.X, r.Max.X = int(float64(s.x0)*t.scale), int(math.Ceil(float64(s.x1)*t.scale))
				break
			}
		}
	}
	return inkOf(t.pix, t.pw, r)
}

// spans are a glyph's runs of inked rows (split at blank rows), top to bottom, or with
// cols its runs of inked columns, left to right: each the rectangle of its ink.
func (b bitmap) spans(cols bool) []image.Rectangle {
	n, m := b.h, b.w
	if cols {
		n, m = b.w, b.h
	}
	var out []image.Rectangle
	for i := 0; i < n; i++ {
		lo, hi := m, -1
		for j := 0; j < m; j++ {
			if cols && b.at(i, j) || !cols && b.at(j, i) {
				lo, hi = min(lo, j), max(hi, j+1)
			}
		}
		if hi < 0 {
			continue
		}
		r := image.Rect(lo, i, hi, i+1)
		if cols {
			r = image.Rect(i, lo, i+1, hi)
		}
		if k := len(out) - 1; k >= 0 && (cols && out[k].Max.X == i || !cols && out[k].Max.Y == i) {
			out[k] = out[k].Union(r)
		} else {
			out = append(out, r)
		}
	}
	return out
}

// signOf is the sign a glyph of stacked parts shows, which tesseract reads as "+", "-"
// or "=": a bar with a dot above and below it is a "÷"; a cross above a bar as wide as
// it, the bar thinner than a third of the cross, is a "±". Otherwise "".
func signOf(b bitmap) string {
	bs := b.spans(false)
	wide := func(k image.Rectangle) bool { return k.Dx()*10 >= b.w*6 }
	thin := func(k image.Rectangle) bool { return k.Dy()*3 <= k.Dx() }
	dot := func(k image.Rectangle) bool { return k.Dx()*2 <= b.w && k.Dy() <= 2*k.Dx() }
	switch {
	case len(bs) == 3 && dot(bs[0]) && wide(bs[1]) && thin(bs[1]) && dot(bs[2]):
		return "÷"
	case len(bs) == 2 && wide(bs[0]) && wide(bs[1]) && thin(bs[1]) && bs[1].Dy()*3 <= bs[0].Dy():
		return "±"
	}
	return ""
}

// underscores joins the neighbouring words of a line's tile whose gap holds an
// underscore tesseract passed over: a bold face's underscore stands two pixels below the
// baseline, and tesseract read FLUID's "order_window" as "order" and "window". The gap
// between the words (see under), narrower than their height, holds ink in one band of
// rows only, at most underBand thick, over three quarters of the gap's columns, in the
// bottom quarter of the words' height or below it; the band's ink reaches at most half
// the height beyond the gap on either side, where a link's underline runs on under the
// words. The words are kept as they are elsewhere (a strip, a glyph, a line with no crop).
func (t *tile) underscores(ws []Box) []Box {
	if len(ws) < 2 || t.glyph || t.segs != nil || t.crop == nil {
		return ws
	}
	c := t.crop
	ink := func(x, y int) bool {
		x, y = x-t.r.Min.X, y-t.r.Min.Y
		return x >= 0 && y >= 0 && x < c.Rect.Dx() && y < c.Rect.Dy() && c.Pix[y*c.Stride+x] < 128
	}
	ws = slices.Clone(ws)
	slices.SortStableFunc(ws, func(a, b Box) int { return a.X - b.X })
	out := ws[:1]
	for _, w := range ws[1:] {
		p := &out[len(out)-1]
		if under(ink, *p, w) {
			text := p.Text + "_" + w.Text
			*p = joined(*p, w)
			p.Text = text
			continue
		}
		out = append(out, w)
	}
	return out
}

// underBand is the thickest underscore (in pixels at 1x) underscores takes.
const underBand = 3

// under says whether the gap between words a and b (a left of b) holds an underscore
// (see underscores); ink reports the tile's ink at a screen point. tesseract's boxes are
// no exact bounds of the ink: the gap is the widest run of columns, within a quarter of
// the height of the boxes' gap, blank above the bottom quarter of their height (an
// underscore inside a word, further from its end, is not looked at); an underscore may
// stop a pixel short of a letter, hence three quarters of its columns.
func under(ink func(x, y int) bool, a, b Box) bool {
	top, bottom := min(a.Y, b.Y), max(a.Y+a.Height, b.Y+b.Height)
	h := max(a.Height, b.Height)
	low := top + h*3/4
	if min(a.Y+a.Height, b.Y+b.Height) <= max(a.Y, b.Y) {
		return false
	}
	x0, x1, start := 0, 0, -1
	lo, hi := a.X+a.Width-h/4, b.X+h/4
	for x := lo; x <= hi; x++ {
		blank := x < hi
		for y := top; y < low && blank; y++ {
			blank = !ink(x, y)
		}
		switch {
		case blank && start < 0:
			start = x
		case !blank && start >= 0:
			if x-start > x1-x0 {
				x0, x1 = start, x
			}
			start = -1
		}
	}
	if x1-x0 < 2 || x1-x0 >= h {
		return false
	}
	var rows []int
	for y := low; y < bottom+h/2; y++ {
		n := 0
		for x := x0; x < x1; x++ {
			if ink(x, y) {
				n++
			}
		}
		if n > 0 {
			if n*4 < (x1-x0)*3 || len(rows) > 0 && rows[len(rows)-1] != y-1 {
				return false
			}
			rows = append(rows, y)
		}
	}
	if len(rows) == 0 || len(rows) > underBand {
		return false
	}
	left, right := x0, x1
	for left > x0-h && ink(left-1, rows[0]) {
		left--
	}
	for right < x1+h && ink(right, rows[0]) {
		right++
	}
	return (x0-left)*2 <= h && (right-x1)*2 <= h
}

// ohs is a word's reading with each "0" whose ink is an x-height letter made "o":
// tesseract read PCManFM's "boreal-2026.ods" (DejaVu Sans 10) as "boreal-2026.0ds". The
// "0" must stand beside a lower-case letter and beside no figure (old-style figures, a
// serif face's "2026" whose 0 is as short as its x-height, stand among figures), and its
// part (split at blank columns) stay under xReach of the word's tallest part. Letters
// touching make fewer parts than characters: the word's parts are matched to its
// characters from its start, or from its end, whichever way the parts beside the "0"
// (two each side) have the heights their characters have (see heightFits); a reading no
// way fits is kept.
func ohs(text string, b bitmap) string {
	r := []rune(text)
	ps := b.spans(true)
	if len(ps) == 0 || len(ps) > len(r) {
		return text
	}
	tall := 0
	for _, p := range ps {
		tall = max(tall, p.Dy())
	}
	for i, c := range r {
		if c != '0' || !beside(r, i) {
			continue
		}
		for _, k := range []int{i, i - (len(r) - len(ps))} {
			if k < 0 || k >= len(ps) || ps[k].Dy()*xReach[1] >= tall*xReach[0] {
				continue
			}
			fits := true
			for d := -2; d <= 2 && fits; d++ {
				if d != 0 && i+d >= 0 && i+d < len(r) && k+d >= 0 && k+d < len(ps) {
					fits = heightFits(r[i+d], ps[k+d].Dy(), tall)
				}
			}
			if fits {
				r[i] = 'o'
				break
			}
		}
	}
	return string(r)
}

// beside says whether r[i] stands beside a lower-case letter and beside no figure.
func beside(r []rune, i int) bool {
	at := func(j int) rune {
		if j < 0 || j >= len(r) {
			return ' '
		}
		return r[j]
	}
	a, b := at(i-1), at(i+1)
	return !unicode.IsDigit(a) && !unicode.IsDigit(b) && (unicode.IsLower(a) || unicode.IsLower(b))
}

// heightFits says whether a part h tall (the word's tallest part tall) can be character
// c: a figure, a capital or an ascender reaches xReach of the tallest at least, an
// x-height letter stays under it and over half of it, a period or comma is a third of it
// at most; other characters (descenders, signs) fit any part.
func heightFits(c rune, h, tall int) bool {
	high := h*xReach[1] >= tall*xReach[0]
	switch {
	case unicode.IsDigit(c) || unicode.IsUpper(c) || strings.ContainsRune("bdfhkl", c):
		return high
	case strings.ContainsRune("acemnorsuvwxz", c):
		return !high && h*2 > tall
	case c == '.' || c == ',':
		return h*3 <= tall
	}
	return true
}

// xReach is the share of a word's tallest part (4/5) an x-height letter stays under: in
// DejaVu Sans an o is 0.75 of a figure's height.
var xReach = [2]int{4, 5}

// spaced is a word's reading with a space where its ink at 1x, b, has a blank at least
// as wide as a cell of the line's monospace font (pitch): tesseract read two short words
// one blank cell apart as one ("0 3" as "63" in DejaVu Sans Mono 7), but the letters of a
// word stand closer, even two narrow ones centred in their cells (a period's blank and an
// l's add up to less than a cell). The space goes between the characters the blank's
// middle falls between, counted in proportion to the ink's width.
func spaced(text string, b bitmap, pitch int) string {
	r := []rune(text)
	ps := b.spans(true)
	var out []rune
	from := 0
	for i := 1; i < len(ps); i++ {
		if ps[i].Min.X-ps[i-1].Max.X < pitch {
			continue
		}
		at := (len(r)*(ps[i].Min.X+ps[i-1].Max.X) + b.w) / (2 * b.w) // rounded
		if at <= from || at >= len(r) {
			continue
		}
		out = append(append(out, r[from:at]...), ' ')
		from = at
	}
	if from == 0 {
		return text
	}
	return string(append(out, r[from:]...))
}

// dottedZeros is a word of figures read with more characters than its ink at 1x, b, has
// parts (split at blank columns), each part one figure (taller than wide), made right
// where parts are barred rings: a dotted zero, whose dot at 10 px is a bar across its
// middle, was read as two figures ("200" read "2608", "401" "4861" in DejaVu Sans Mono
// 10). Each barred ring is a "0"; the parts before the first and after the last take the
// reading's first and last characters, one each. With other parts between the rings,
// which characters are theirs is not known, and the reading is kept.
func dottedZeros(text string, b bitmap) string {
	r := []rune(text)
	if slices.ContainsFunc(r, func(c rune) bool { return c < '0' || c > '9' }) {
		return text
	}
	ps := b.spans(true)
	if len(r) <= len(ps) || slices.ContainsFunc(ps, func(p image.Rectangle) bool { return p.Dx() >= p.Dy() }) {
		return text
	}
	first, last := -1, -1
	for i, p := range ps {
		if b.barredRing(p) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return text
	}
	out := slices.Clone(r[:first])
	for _, p := range ps[first : last+1] {
		if !b.barredRing(p) {
			return text
		}
		out = append(out, '0')
	}
	return string(append(out, r[len(r)-(len(ps)-1-last):]...))
}

// barredRing says whether a part is a ring with a bar across its middle: a row in its
// middle third is one run of ink across the part's whole width (an 8's waist is
// narrower than its loops), with a row of two runs, its sides, above it and below it.
func (b bitmap) barredRing(p image.Rectangle) bool {
	if p.Dy() < 5 {
		return false
	}
	sides := func(y int) bool {
		first, last := b.extent(p, y)
		for x := first + 1; first >= 0 && x < last; x++ {
			if !b.at(x, y) {
				return true
			}
		}
		return false
	}
	for y := p.Min.Y + p.Dy()/3; y < p.Min.Y+(2*p.Dy()+2)/3; y++ {
		first, last := b.extent(p, y)
		if first != p.Min.X || last != p.Max.X-1 || sides(y) {
			continue
		}
		above, below := false, false
		for k := p.Min.Y; k < y; k++ {
			above = above || sides(k)
		}
		for k := y + 1; k < p.Max.Y; k++ {
			below = below || sides(k)
		}
		if above && below {
			return true
		}
	}
	return false
}

// tees is a word's reading with an "l" made "t" where its ink is no l's: the X server's
// rasteriser draws a small t of a Type 1 face without its crossbar (Times at 10 to 11 px,
// docs/development.md, twenty-first round), a stem tesseract reads as an l at every scale
// ("quota" read "quola", "at" "al"). An l rises to the ascenders; that t rises over the
// x-height by less than half as much. The word's parts (split at blank columns over the
// line's height at 1x; the word is the line's columns x0 to x1) are matched to its
// characters from its start and from its end: letters touching make fewer parts, and
// the l's part is one of those the two matchings give it. When one of them rises over
// the x-height and none reaches nearer the ascenders than the x-height (see shape), the
// l is a t.
func tees(text string, l lineShape, x0, x1 int) string {
	r := []rune(text)
	if !l.ok || !slices.Contains(r, 'l') {
		return text
	}
	var ps []image.Rectangle
	for _, p := range l.parts {
		if c := (p.Min.X + p.Max.X) / 2; c >= x0 && c < x1 {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 || len(ps) > len(r) {
		return text
	}
	for i, c := range r {
		if c != 'l' {
			continue
		}
		rises, tall := false, false
		for k := max(0, i-(len(r)-len(ps))); k <= min(i, len(ps)-1); k++ {
			p := ps[k]
			rises = rises || p.Min.Y < l.xh && abs(p.Max.Y-l.base) <= 1
			tall = tall || 2*p.Min.Y <= l.xh+l.asc
		}
		if rises && !tall {
			r[i] = 't'
		}
	}
	return string(r)
}

// lineShape is a line's parts at 1x (split at blank columns, each the rectangle of its
// ink over the line's height) and its heights: its baseline (the parts' most common
// foot), its x-height's top and its ascenders' top (the median top of the parts standing
// on the baseline that rise two pixels or more over the x-height, two or more of them).
// The x-height's top is the lower of two lines that ascenders and capitals can only
// raise: the first row from the top inked at least a third as much as the most inked
// row above the baseline (the x-height letters ink every row from there down, the
// ascenders few; a short line of capitals and figures inks their rows as much), and the
// most common top of the parts standing on the baseline (letters touching make parts as
// tall as their tallest letter). ok is false where the x-height and the ascenders are
// under three pixels apart, too close to tell a t from an l.
type lineShape struct {
	parts         []image.Rectangle
	base, xh, asc int
	ok            bool
}

// shape is the lineShape of the tile's crop, found once.
func (t *tile) shape() lineShape {
	if t.lines != nil {
		return *t.lines
	}
	g := t.crop
	b := bitmap{w: g.Rect.Dx(), h: g.Rect.Dy(), ink: make([]bool, g.Rect.Dx()*g.Rect.Dy())}
	counts := make([]int, b.h)
	for y := range b.h {
		for x := range b.w {
			if g.Pix[y*g.Stride+x] < 128 {
				b.ink[y*b.w+x] = true
				counts[y]++
			}
		}
	}
	l := lineShape{parts: b.spans(true)}
	t.lines = &l
	if len(l.parts) == 0 {
		return l
	}
	feet := map[int]int{}
	for _, p := range l.parts {
		feet[p.Max.Y]++
		if feet[p.Max.Y] > feet[l.base] || feet[p.Max.Y] == feet[l.base] && p.Max.Y > l.base {
			l.base = p.Max.Y
		}
	}
	peak := 0
	for y := range l.base {
		peak = max(peak, counts[y])
	}
	for l.xh = 0; l.xh < l.base && 3*counts[l.xh] < peak; l.xh++ {
	}
	tops := map[int]int{}
	top := 0
	for _, p := range l.parts {
		if abs(p.Max.Y-l.base) <= 1 {
			tops[p.Min.Y]++
			if tops[p.Min.Y] > tops[top] || tops[p.Min.Y] == tops[top] && p.Min.Y > top {
				top = p.Min.Y
			}
		}
	}
	l.xh = max(l.xh, top)
	var high []int
	for _, p := range l.parts {
		if abs(p.Max.Y-l.base) <= 1 && p.Min.Y <= l.xh-2 {
			high = append(high, p.Min.Y)
		}
	}
	if len(high) >= 2 {
		slices.Sort(high)
		l.asc = high[len(high)/2]
		l.ok = l.xh-l.asc >= 3
	}
	return l
}
