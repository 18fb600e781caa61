package ocr

import (
	"image"
	"math"
	"slices"
	"sync"
)

// Text is found in the pixels before anything is read: a pixel is ink when it stands out
// of its background (see background) by more than inkDepth, lighter or darker; long thin
// runs of ink (borders, separators, grids) are erased; the rest is cut into 8-connected
// components, each all lighter or all darker than its background: light ink never joins
// dark (xmessage's light "g" on dark green touched its button's black outline, the two
// were one component, taken for a frame with a letter in it, and "View log" read "View
// los"). Components of one polarity side by side on one baseline are grouped into lines.
// Each line is then cropped with a margin, normalised (its polarity turned to dark on
// white, its contrast stretched, upscaled) and read on its own.
const (
	inkDepth = 40
	// maxGlyphH is the tallest component (at 1x) taken for text: anything taller is a
	// picture, a panel edge or an icon, and reading it costs time for nothing.
	maxGlyphH = 72
	// minLineH is the shortest line that can be text.
	minLineH = 5
	// targetH is the height (ink extent, in pixels) a line is upscaled to, within
	// [1, maxScale]: tesseract reads best with capitals of 20 px or more.
	targetH  = 28
	maxScale = 3
)

// inkImage holds the screen after background analysis: the contrast of every pixel
// and which component (and line) its ink belongs to.
type inkImage struct {
	rect  image.Rectangle
	depth []int16 // per pixel, see background.contrast
	comp  []int32 // per pixel: component index, -1 for no (kept) ink
	comps []component
	// marks are the lines too small to be read alone ("." and "-" on keys): lines()
	// keeps them aside for units to place beside the glyphs of their row.
	marks []line
}

type component struct {
	r    image.Rectangle // relative to the image
	n    int             // ink pixels
	max  int             // strongest contrast on the component's side
	sum  int             // contrast summed: positive for light text
	line int
	// frame marks a component taken out of its line as not text: it is whitened in
	// crops like a border.
	frame bool
}

func (c *component) light() bool { return c.sum > 0 }

// bar says whether a component is a solid bar too thick for removeLines: a window's
// bottom border, a progress bar, a thick separator. Read as a line it yields nothing and
// costs tesseract as much as a long line of text.
func (c *component) bar() bool {
	w, h := c.r.Dx(), c.r.Dy()
	return w >= minLine && w >= 4*h && c.n*10 >= 9*w*h
}

// lettered says whether a bar (see bar) holds letters of another level than its own: a
// badge or a small button too small to seed a background of its own (Chromium's
// "Delayed 40 min", dark on amber, "Cancelled", light on purple), which openCell reads.
// At least minLetterInk of its pixels stand out of its level (see fillDepth) by more
// than inkDepth, at most half of them, and none in the middle of its top or bottom row:
// a bar shaded from top to bottom or from end to end (a title bar, a progress bar) has
// its other levels there.
func (m *inkImage) lettered(ci int) bool {
	c := &m.comps[ci]
	r, id, W := c.r, int32(ci), m.rect.Dx()
	fill := m.fillDepth(id, r)
	k := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			i := y*W + x
			if m.comp[i] != id || abs(int(m.depth[i])-fill) <= inkDepth {
				continue
			}
			if (y == r.Min.Y || y == r.Max.Y-1) && x >= r.Min.X+r.Dy()/2 && x < r.Max.X-r.Dy()/2 {
				return false
			}
			k++
		}
	}
	return k >= minLetterInk && 2*k <= c.n
}

// minLetterInk is the fewest pixels of letters lettered takes for text.
const minLetterInk = 12

// hairline says whether a component is one or two pixels wide and a row's height or
// more: a widget's side too short for removeLines (galculator's keys, between their
// rounded corners), or a thin stroke of text ("l", "(", "1").
func (c *component) hairline() bool {
	return c.r.Dx() <= 2 && c.r.Dy() >= minRowH
}

// faintSides marks as frames the faint hairlines: those fainter than half the
// strongest other ink near them (overlapping them vertically by half the smaller height,
// within sideReach of their heights sideways), or, with no other ink near, under
// faintInk. A key's side (contrast 43-44 beside labels of 101-190) is one: taken for
// text, such sides join the glyphs of neighbouring keys into one line across the gaps
// they bridge, and tesseract reads the glyphs among them worse ("/" not at all) than in
// a row of glyphs. A stroke of text is about as strong as the letters beside it, however
// faint the text (half as strong at worst, a one-pixel stem between two pixels).
func (m *inkImage) faintSides() {
	var hl, others []int
	widest := 0
	for i := range m.comps {
		c := &m.comps[i]
		switch {
		case c.hairline():
			hl = append(hl, i)
		case c.r.Dy() <= maxGlyphH:
			others = append(others, i)
			widest = max(widest, c.r.Dx())
		}
	}
	if len(hl) == 0 {
		return
	}
	slices.SortFunc(others, func(a, b int) int { return m.comps[a].r.Min.X - m.comps[b].r.Min.X })
	for _, i := range hl {
		c := &m.comps[i]
		h := c.r.Dy()
		// others is sorted by left edge: skip those starting too far left to reach c.
		reach := sideReach * h
		k, _ := slices.BinarySearchFunc(others, c.r.Min.X-reach-widest, func(o, x int) int { return m.comps[o].r.Min.X - x })
		strongest := 0
		for ; k < len(others) && m.comps[others[k]].r.Min.X <= c.r.Max.X+reach; k++ {
			o := m.comps[others[k]].r
			ov := min(o.Max.Y, c.r.Max.Y) - max(o.Min.Y, c.r.Min.Y)
			if 2*ov >= min(h, o.Dy()) && o.Max.X >= c.r.Min.X-reach {
				strongest = max(strongest, m.comps[others[k]].max)
			}
		}
		if c.max*2 < strongest || strongest == 0 && c.max < faintInk {
			c.frame = true
		}
	}
}

// sideReach (in the hairline's heights) is how far faintSides looks for ink beside a
// hairline: a key's label lies half a key's width from its side. faintInk is the
// contrast under which a hairline with nothing near is a widget's edge.
const (
	sideReach = 3
	faintInk  = inkDepth * 3 / 2
)

// line is one row of text to read.
type line struct {
	r     image.Rectangle // ink extent, relative to the image
	comps []int
	n     int // ink pixels
	max   int // strongest contrast
	light bool
	// gaps is the sum of the ngaps gaps between its components as they joined.
	gaps, ngaps int
	// left is the left edge of the component that joined last; steps are the steps
	// between the left edges of letters side by side in a word (see lines), and mono
	// the pitch they show (see monoPitch).
	left  int
	steps []int
	mono  int
	// trimmed: trim took components out of it (see apart).
	trimmed bool
}

// monoPitch is the pitch of a line whose letters stand in cells of one width (a
// terminal's, a monospace font's), 0 if they do not: at least minPitches steps between
// letters' left edges, each within pitchSpread of one or two cells of their median (two
// letters touching are one component two cells wide, and an oblique face's letters lean
// out of their cells by a pixel or two). The pitch is their mean cell.
func (l *line) monoPitch() int {
	if len(l.steps) < minPitches {
		return 0
	}
	s := slices.Clone(l.steps)
	slices.Sort(s)
	p := s[len(s)/2]
	sum, cells, tol := 0, 0, min(pitchSpread, p/4)
	for _, st := range l.steps {
		k := max(1, (st+p/2)/p)
		if k > 2 || abs(st-k*p) > tol {
			return 0
		}
		sum += st
		cells += k
	}
	return (sum + cells/2) / cells
}

const (
	minPitches  = 4
	pitchSpread = 2
	minCells    = 6
)

// cellPitch is the cell width of a line whose letters are centred in the cells of a
// monospace font, 0 if they are not. A monospace font centres a narrow glyph (a period,
// an i) in its cell, so the left edges monoPitch measures break their pitch there, and
// the centres show it: every step between the centres of letters side by side (less
// half a cell for each extra cell of letters touching, whose ink is as many cells wide)
// lies within a pixel of one or two cells, and there are at least minCells of them. The
// cell is the mean of the steps within a pixel of the one most of them are near. A line
// without a glyph at most half a cell wide among them is not known to be monospace:
// a proportional font's lower case at a small size steps almost evenly too, but its
// narrow glyphs (i, l, a period) step less than a cell.
func (m *inkImage) cellPitch(l line) int {
	type letter struct{ mid2, x0, x1, w int } // mid2: twice the centre
	var ls []letter
	for _, ci := range l.comps {
		r := m.comps[ci].r
		ls = append(ls, letter{r.Min.X + r.Max.X, r.Min.X, r.Max.X, r.Dx()})
	}
	slices.SortFunc(ls, func(a, b letter) int { return a.mid2 - b.mid2 })
	var pairs [][2]letter
	var steps []int // twice the steps
	for i := 1; i < len(ls); i++ {
		a, b := ls[i-1], ls[i]
		// beside, close (not a word gap), and not the dot of an i over its stem
		if b.mid2-a.mid2 > 2 && 2*(b.x0-a.x1) < l.r.Dy() {
			pairs = append(pairs, [2]letter{a, b})
			steps = append(steps, b.mid2-a.mid2)
		}
	}
	if len(steps) < minCells {
		return 0
	}
	near := func(c int) (n, sum int) {
		for _, s := range steps {
			if abs(s-c) <= 2 {
				n, sum = n+1, sum+s
			}
		}
		return n, sum
	}
	best, bc := 0, 0
	for _, c := range steps {
		if n, _ := near(c); n > best {
			best, bc = n, c
		}
	}
	n, sum := near(bc)
	p2 := (sum + n/2) / n // twice the cell
	if p2 < 6 {
		return 0
	}
	narrow := false
	for _, pr := range pairs {
		extra := 0 // extra cells of letters touching
		for _, c := range pr {
			extra += max(1, (2*c.w+p2/2)/p2) - 1
			narrow = narrow || 4*c.w <= p2
		}
		st := pr[1].mid2 - pr[0].mid2 - extra*p2/2
		k := max(1, (st+p2/2)/p2)
		if k > 2 || abs(st-k*p2) > 2 {
			return 0
		}
	}
	if !narrow {
		return 0
	}
	return (p2 + 1) / 2
}

func findInk(g *image.Gray, p *background, workers int) *inkImage {
	b := g.Rect
	W, H := b.Dx(), b.Dy()
	m := &inkImage{rect: b, depth: make([]int16, W*H), comp: make([]int32, W*H)}
	mask := image.NewGray(image.Rect(0, 0, W, H))
	var wg sync.WaitGroup
	for s := 0; s < workers; s++ {
		wg.Add(1)
		go func(y0, y1 int) {
			defer wg.Done()
			for y := y0; y < y1; y++ {
				row := g.Pix[y*g.Stride:][:W]
				for x, v := range row {
					i := y*W + x
					d := p.contrast(i, v)
					m.depth[i] = int16(d)
					if d > inkDepth || d < -inkDepth {
						mask.Pix[i] = 0
					} else {
						mask.Pix[i] = 255
					}
				}
			}
		}(H*s/workers, H*(s+1)/workers)
	}
	wg.Wait()
	removeLines(mask)
	for i := range m.comp {
		m.comp[i] = -1
	}
	var stack []int32
	for start := range mask.Pix {
		if mask.Pix[start] != 0 || m.comp[start] >= 0 {
			continue
		}
		id := int32(len(m.comps))
		c := component{r: image.Rectangle{Min: image.Pt(W, H)}}
		stack = append(stack[:0], int32(start))
		m.comp[start] = id
		for len(stack) > 0 {
			i := int(stack[len(stack)-1])
			stack = stack[:len(stack)-1]
			x, y := i%W, i/W
			c.n++
			d := int(m.depth[i])
			c.sum += d
			c.max = max(c.max, abs(d))
			c.r.Min.X, c.r.Min.Y = min(c.r.Min.X, x), min(c.r.Min.Y, y)
			c.r.Max.X, c.r.Max.Y = max(c.r.Max.X, x+1), max(c.r.Max.Y, y+1)
			for dy := -1; dy <= 1; dy++ {
				yy := y + dy
				if yy < 0 || yy >= H {
					continue
				}
				for dx := -1; dx <= 1; dx++ {
					xx := x + dx
					if xx < 0 || xx >= W {
						continue
					}
					j := yy*W + xx
					if mask.Pix[j] == 0 && m.comp[j] < 0 && (m.depth[j] > 0) == (d > 0) {
						m.comp[j] = id
						stack = append(stack, int32(j))
					}
				}
			}
		}
		c.line = -1
		m.comps = append(m.comps, c)
	}
	return m
}

// lines groups the components into lines of text: a component joins the line it
// overlaps vertically by at least half the smaller height, when the gap to the line's
// right end is under a line height, or under twice the mean gap between the line's
// components (letter-spaced text: a proportional font in a terminal's cells, whose
// x-height letters stand further apart than their height); components are visited
// left to right.
func (m *inkImage) lines() []line {
	m.faintSides()
	order := make([]int, 0, len(m.comps))
	for i := range m.comps {
		c := &m.comps[i]
		if c.bar() && !m.lettered(i) || c.frame {
			c.frame = true
			continue
		}
		if c.r.Dy() <= maxGlyphH {
			order = append(order, i)
		}
	}
	ls := m.group(order)
	out := ls[:0]
	m.marks = m.marks[:0]
	var parts []line
	for _, l := range ls {
		parts = append(parts, m.split(l)...)
	}
	for _, l := range parts {
		sign := len(l.comps) == 2 && stacked(m.comps[l.comps[0]].r, m.comps[l.comps[1]].r)
		if (l.r.Dy() < minLineH && !sign) || l.n < 12 || l.r.Dx() < 3 {
			if l.n >= minMarkInk && len(l.comps) <= 2 && l.r.Dx()*6 >= l.r.Dy() {
				m.marks = append(m.marks, l)
			}
			continue
		}
		out = append(out, l)
	}
	out = m.pieces(out)
	for li, l := range out {
		for _, ci := range l.comps {
			m.comps[ci].line = li
		}
	}
	m.marks = columns(m.marks)
	return out
}

// pieces joins the pieces of a row of monospace text that group left apart: in a
// monospace font whose word gap (a blank cell and the letters' side bearings) is wider
// than its letters are tall, a short word shows too few letters for its pitch, and each
// word was a line of its own, read by a tesseract call of its own (xman's help page: 116
// lines, often five to seven a row). A line of at least pieceSeed components whose
// letters show a pitch p (monoPitch or cellPitch) takes in the line next to it in its row, left or right, and the joined line
// keeps p: the next line overlaps it vertically by half the smaller height, lies within
// half a cell of its band, shows no other pitch, and stands less than pieceCells cells
// from it with nothing between but marks (a comma, a period): no frame (a panel's or a
// button's side) and no taller ink.
func (m *inkImage) pieces(ls []line) []line {
	pitch := make([]int, len(ls))
	for i := range ls {
		if len(ls[i].comps) < pieceSeed {
			continue
		}
		if pitch[i] = ls[i].mono; pitch[i] == 0 {
			pitch[i] = m.cellPitch(ls[i])
		}
	}
	dead := make([]bool, len(ls))
	fits := func(a, b, p int) bool { // b can join a, whose pitch is p
		la, lb := ls[a].r, ls[b].r
		if dead[b] || b == a || ls[a].light != ls[b].light || pitch[b] != 0 && abs(pitch[b]-p) > 1 {
			return false
		}
		if la.Dy() > 2*p || lb.Min.Y < la.Min.Y-p/2 || lb.Max.Y > la.Max.Y+p/2 {
			return false
		}
		ov := min(la.Max.Y, lb.Max.Y) - max(la.Min.Y, lb.Min.Y)
		gap := max(lb.Min.X-la.Max.X, la.Min.X-lb.Max.X)
		return 2*ov >= min(la.Dy(), lb.Dy()) && gap > 0 && gap < pieceCells*p
	}
	clear := func(a, b image.Rectangle) bool { // nothing but marks between a and b
		band := a.Union(b)
		g := image.Rect(min(a.Max.X, b.Max.X), band.Min.Y, max(a.Min.X, b.Min.X), band.Max.Y)
		for i := range m.comps {
			c := &m.comps[i]
			if c.r.Overlaps(g) && (c.frame || 2*c.r.Dy() > band.Dy()) {
				return false
			}
		}
		return true
	}
	for a := range ls {
		p := pitch[a]
		for p > 0 && !dead[a] {
			best, bestGap := -1, 0
			for b := range ls {
				if fits(a, b, p) {
					gap := max(ls[b].r.Min.X-ls[a].r.Max.X, ls[a].r.Min.X-ls[b].r.Max.X)
					if best < 0 || gap < bestGap {
						best, bestGap = b, gap
					}
				}
			}
			if best < 0 || !clear(ls[a].r, ls[best].r) {
				break
			}
			l, o := &ls[a], ls[best]
			l.r, l.comps, l.n, l.max = l.r.Union(o.r), append(l.comps, o.comps...), l.n+o.n, max(l.max, o.max)
			dead[best] = true
		}
	}
	out := ls[:0]
	for i, l := range ls {
		if !dead[i] {
			out = append(out, l)
		}
	}
	return out
}

const (
	// pieceCells (in cells) is the widest gap pieces joins: a blank cell and the side
	// bearings, or a comma or period and a blank cell.
	pieceCells = 3
	// pieceSeed is the fewest components of a line whose pitch pieces trusts: a short
	// word of a proportional font can step evenly (Fluid's menu bar's "Layout", 8 px).
	pieceSeed = 12
)

// group makes lines of components: each joins the line beside it, left to right, that it
// overlaps most vertically (see lines).
func (m *inkImage) group(order []int) []line {
	slices.SortFunc(order, func(a, b int) int { return m.comps[a].r.Min.X - m.comps[b].r.Min.X })
	var ls []line
	for _, ci := range order {
		c := &m.comps[ci]
		best, bestOv := -1, 0
		for li := range ls {
			l := &ls[li]
			h := max(l.r.Dy(), c.r.Dy())
			if l.ngaps > 0 {
				h = max(h, 2*l.gaps/l.ngaps) // a letter-spaced line reaches its pitch
			}
			if p := l.mono; p > 0 {
				h = max(h, 2*p-1) // a monospace line reaches over one blank cell
			}
			if c.r.Min.X-l.r.Max.X > h {
				continue
			}
			ov := min(l.r.Max.Y, c.r.Max.Y) - max(l.r.Min.Y, c.r.Min.Y)
			if l.light == c.light() && 2*ov >= min(l.r.Dy(), c.r.Dy()) && ov > bestOv {
				best, bestOv = li, ov
			} else if l.light == c.light() && best < 0 && len(l.comps) == 1 && stacked(l.r, c.r) {
				best = li
			}
		}
		if best < 0 {
			ls = append(ls, line{r: c.r, light: c.light()})
			best = len(ls) - 1
		}
		l := &ls[best]
		if gap := c.r.Min.X - l.r.Max.X; gap > 0 && len(l.comps) > 0 {
			l.gaps += gap
			l.ngaps++
		}
		// A step to a letter close beside the last (not the dot of an i over its stem) is
		// one of the line's pitches.
		if step := c.r.Min.X - l.left; len(l.comps) > 0 && step > 1 && 2*(c.r.Min.X-l.r.Max.X) < l.r.Dy() {
			l.steps = append(l.steps, step)
			l.mono = l.monoPitch()
		}
		l.left = c.r.Min.X
		l.r = l.r.Union(c.r)
		l.comps = append(l.comps, ci)
		l.n += c.n
		l.max = max(l.max, c.max)
	}
	return ls
}

// split is what a grouped line holds: its selections opened (see selected), its frames
// taken out (see trim) and its parts apart (see apart). What trim leaves wholly above or
// below the text's band, held in the line only by a frame around both (rxvt-unicode's
// cursor under the first letter of the last line, both inside the outline of the text
// area, was read with the letter, and "pager:" came out as junk), is grouped again into
// lines of its own.
func (m *inkImage) split(l line) []line {
	t, rest := m.trim(m.selected(l))
	var out []line
	for _, r := range m.rows(t) {
		out = append(out, m.apart(r)...)
	}
	if len(rest) > 0 {
		for _, r := range m.group(rest) {
			out = append(out, m.split(r)...)
		}
	}
	return out
}

// rows is a line that trim took frames out of, grouped again when its components stand
// in two rows or more: a frame as tall as two rows held them in one line (Xfe's splitter
// grip, 45 px tall between its folder tree and its file list, joined a tree row and the
// two file rows beside it, each overlapping it by half its height, into one line read as
// junk). Rows are lines of text (minLineH tall, 12 pixels of ink) that overlap each
// other vertically by less than half the smaller height; a mark (an i's dot, a dash) is
// no row.
func (m *inkImage) rows(t line) []line {
	if !t.trimmed || len(t.comps) < 2 {
		return []line{t}
	}
	ls := m.group(slices.Clone(t.comps))
	var text []image.Rectangle
	for _, l := range ls {
		if l.r.Dy() >= minLineH && l.n >= 12 {
			text = append(text, l.r)
		}
	}
	for i, a := range text {
		for _, b := range text[i+1:] {
			if ov := min(a.Max.Y, b.Max.Y) - max(a.Min.Y, b.Min.Y); 2*ov < min(a.Dy(), b.Dy()) {
				for k := range ls {
					ls[k].trimmed = true
				}
				return ls
			}
		}
	}
	return []line{t}
}

// apart cuts a line that trim took frames out of where its components stand more than
// apartGap times its height apart: the frames held it together (a row of bevelled keys,
// their shadows reaching from one label to the next), and what is left is a row of
// labels, each a line of its own (a key's glyph goes into a strip, see units).
func (m *inkImage) apart(l line) []line {
	if !l.trimmed || len(l.comps) < 2 {
		return []line{l}
	}
	cs := slices.Clone(l.comps)
	slices.SortFunc(cs, func(a, b int) int { return m.comps[a].r.Min.X - m.comps[b].r.Min.X })
	var out []line
	for _, ci := range cs {
		c := &m.comps[ci]
		if k := len(out) - 1; k >= 0 && c.r.Min.X-out[k].r.Max.X <= apartGap*l.r.Dy() {
			p := &out[k]
			p.r, p.comps, p.n, p.max = p.r.Union(c.r), append(p.comps, ci), p.n+c.n, max(p.max, c.max)
			continue
		}
		out = append(out, line{r: c.r, comps: []int{ci}, n: c.n, max: c.max, light: l.light})
	}
	return out
}

// apartGap (in line heights) is the widest gap within a line that trim took frames out of.
const apartGap = 2

// columns joins the marks that stand one above the other, close, into one: the bar and
// the two dots of a "÷" are three marks, and read apart (the bar and the dot in the
// row's band side by side in a strip) they are a "-" and a ".". Close is a gap of at
// most half the wider one's width and twice the narrower one's size, the narrower one's
// centre over the wider one: a key's "." stood 10 px over a window's bottom grip, under
// half the grip's width, and was joined to it and lost.
func columns(ms []line) []line {
	for i := 0; i < len(ms); i++ {
		for j := i + 1; j < len(ms); j++ {
			a, b := ms[i].r, ms[j].r
			if a.Dx() < b.Dx() {
				a, b = b, a
			}
			cx := (b.Min.X + b.Max.X) / 2
			gap := max(a.Min.Y-b.Max.Y, b.Min.Y-a.Max.Y)
			if cx < a.Min.X || cx >= a.Max.X || gap < 0 || gap*2 > a.Dx() || gap > 2*max(b.Dx(), b.Dy()) {
				continue
			}
			l := &ms[i]
			l.r = l.r.Union(ms[j].r)
			l.comps = append(l.comps, ms[j].comps...)
			l.n += ms[j].n
			l.max = max(l.max, ms[j].max)
			ms = slices.Delete(ms, j, j+1)
			j = i // look again with the joined extent
		}
	}
	return ms
}

// stacked says whether two thin marks lie one above the other, close, as the two bars of
// an "=" on a key: too thin to be a line alone, they are one glyph (a line of its own
// however short).
func stacked(a, b image.Rectangle) bool {
	if a.Dy() > thinMark || b.Dy() > thinMark {
		return false
	}
	ox := min(a.Max.X, b.Max.X) - max(a.Min.X, b.Min.X)
	gap := max(a.Min.Y, b.Min.Y) - min(a.Max.Y, b.Max.Y)
	return 2*ox >= min(a.Dx(), b.Dx()) && gap >= 0 && gap <= 2*thinMark
}

// thinMark is the tallest mark stacked joins.
const thinMark = 3

// trim takes out of a line of three or more components those more than tallRatio times
// as tall as its median component, and those that stand out of the text's band both above
// and below: box sides, button outlines, stipples and bullets beside the text, not
// letters (capitals and ascenders stand about 1.4 times as tall as lower case). It returns
// the line left, and apart from it the components wholly above or below its text's band
// (see split).
func (m *inkImage) trim(l line) (line, []int) {
	if len(l.comps) < 3 {
		return l, nil
	}
	// The median is of the components a letter's height could be: faint text (grey on a
	// dark theme) breaks into fragments of its strokes, a pixel or two high, and a median
	// among them made its whole letters frames. Nor is a component that encloses another
	// of the line a letter: a bevelled button's shadow (its right and bottom sides, one
	// L-shaped component around the label) is as tall as the button, and in a row of
	// one-glyph keys there are as many of them as letters, so that the median was a
	// shadow's and no shadow stood out of the band (see encloses).
	// Nor, while the line has letters of another shape, is a hairline (see hairline): the
	// sides of a focus rectangle around a key's glyph, whose top and bottom removeLines
	// erased, are two of a line's four components, and the median was theirs, four times
	// the glyphs' height, so that they stayed and joined the glyphs of the keys beside into
	// one line read too small ("7" and "8" of a Java AWT keypad read ";" and "°").
	var hs, thin []int
	for _, ci := range l.comps {
		c := &m.comps[ci]
		if h := c.r.Dy(); h >= minLineH && !m.encloses(ci, l.comps) {
			if c.hairline() {
				thin = append(thin, h)
			} else {
				hs = append(hs, h)
			}
		}
	}
	if len(hs) == 0 {
		hs = thin
	}
	if len(hs) == 0 {
		return l, nil
	}
	slices.Sort(hs)
	med := hs[len(hs)/2]
	limit := med * tallRatio / 10
	// The text's band: from the highest top to the lowest bottom of the components of
	// about the median's height (letters, ascenders, descenders), not under 0.7 of it:
	// the dots of a stippled outline (an insensitive Xaw button's) and the short pieces
	// of its sides are no letters, and with them the band reached as high and low as the
	// arcs of the sensitive button beside it, which were read as "(" and ")".
	top, bottom := math.MaxInt, math.MinInt
	for _, ci := range l.comps {
		if r := m.comps[ci].r; r.Dy()*10 >= med*bandLow && r.Dy()*10 <= med*bandRatio {
			top, bottom = min(top, r.Min.Y), max(bottom, r.Max.Y)
		}
	}
	margin := max(2, med/4)
	// The line's rightmost component may be a drop-down mark (see chevron).
	last, prev := l.comps[len(l.comps)-1], l.comps[len(l.comps)-2]
	for _, ci := range l.comps[:len(l.comps)-1] {
		if m.comps[ci].r.Max.X > m.comps[prev].r.Max.X {
			prev = ci
		}
	}
	if m.chevron(last, m.comps[prev].r.Max.X) {
		m.comps[last].frame = true
	}
	var keep []int
	opened := false
	for _, ci := range l.comps {
		if m.comps[ci].frame {
			continue
		}
		r := m.comps[ci].r
		// Standing out of the band both above and below, a component encloses the text
		// (a button's rounded side, a box's side too short for removeLines, a stipple or
		// an icon beside the label): it is no letter. A text cursor's cell is one too,
		// but with a letter in it, which stays (see openCell).
		// So is a mnemonic's underline, with the letters on it (see underlined), and an
		// editor's caret touching a letter (see caret).
		out := func(r image.Rectangle) bool {
			return r.Dy() > limit || r.Min.Y <= top-margin && r.Max.Y >= bottom+margin
		}
		open := func(kids []int) {
			m.comps[ci].frame = true
			for _, k := range kids {
				if m.comps[k].frame = out(m.comps[k].r); !m.comps[k].frame {
					keep, opened = append(keep, k), true
				}
			}
		}
		if out(r) {
			kids := m.openCell(ci, l.light)
			if kids == nil {
				kids = m.underlined(ci, med)
			}
			if kids == nil {
				kids = m.caret(ci, top, bottom)
			}
			if kids == nil {
				kids = m.arcSide(ci, top, bottom, med)
			}
			open(kids)
			continue
		}
		// Taller than the band's letters and out of it on one side only by half a letter
		// or more (deeper than a descender: a "J" that descends stays), a component may be
		// a letter with the caret beside it reaching out of the text (AbiWord's caret from
		// the top of a capital to under the baseline: "Dear" read "Pear").
		if over := max(margin, med/2); r.Dy()*10 > med*bandRatio && (r.Min.Y <= top-over || r.Max.Y >= bottom+over) {
			if kids := m.caret(ci, top, bottom); kids != nil {
				open(kids)
				continue
			}
		}
		keep = append(keep, ci)
	}
	if !opened && len(keep) == len(l.comps) {
		return l, nil
	}
	// Wholly above or below the band is another line's ink the frames held in this one.
	var in, rest []int
	for _, ci := range keep {
		if r := m.comps[ci].r; r.Max.Y <= top || r.Min.Y >= bottom {
			rest = append(rest, ci)
		} else {
			in = append(in, ci)
		}
	}
	if len(in) == 0 {
		in, rest = keep, nil
	}
	t := m.lineOf(l.light, in)
	t.trimmed = true
	return t, rest
}

// lineOf is the line of components comps (at least one).
func (m *inkImage) lineOf(light bool, comps []int) line {
	t := line{light: light, comps: comps, r: m.comps[comps[0]].r}
	for _, ci := range comps {
		c := &m.comps[ci]
		t.r = t.r.Union(c.r)
		t.n += c.n
		t.max = max(t.max, c.max)
	}
	return t
}

// selected reads the text of a selection: a filled box at least twice as wide as tall
// with the letters cut out of it (a text entry's selected text, white on the theme's
// blue) was one component, the line's, and the crop showed the box as ink with the
// letters as holes. The box is opened as a filled cursor's cell is (see openCell): the
// letters become the line's components in its place. Every such box of the line is
// opened: badges side by side (Chromium's "On time", "Delayed 40 min", "Cancelled") are
// one line, and only the first was read.
func (m *inkImage) selected(l line) line {
	var comps []int
	opened := false
	for _, ci := range l.comps {
		if r := m.comps[ci].r; r.Dx() >= 2*r.Dy() {
			if kids := m.openCell(ci, l.light); len(kids) > 0 {
				m.comps[ci].frame = true
				comps, opened = append(comps, kids...), true
				continue
			}
		}
		comps = append(comps, ci)
	}
	if !opened {
		return l
	}
	slices.SortFunc(comps, func(a, b int) int { return m.comps[a].r.Min.X - m.comps[b].r.Min.X })
	return m.lineOf(l.light, comps)
}

// encloses says whether component ci's box holds the whole box of another component of
// comps.
func (m *inkImage) encloses(ci int, comps []int) bool {
	r := m.comps[ci].r
	for _, k := range comps {
		if k != ci && m.comps[k].r.In(r) {
			return true
		}
	}
	return false
}

// openCell reads the letter in a text cursor's cell, component ci of a line of the
// given polarity: a terminal's or a text widget's cursor on a letter is a box one
// character wide and a line tall, drawn hollow around the letter (xmore, an unfocused
// xterm) or filled with the letter cut out of it (xedit, a focused xterm), and the letter,
// joined to the box or a hole in it, was lost with it. A cell is taller than wide (a
// check box is square), its top and bottom rows inked; hollow, its sides are too and its
// inside is mostly clear; filled, its inside is mostly ink, the counters of the letter
// cut out of it counted (they are cleared with it). A filled box at least twice as wide
// as tall is opened the same way: a selection, the letters cut out of it (see
// selected); a hollow one is a text field's or a button's outline, and stays. The cell's ink is cleared and
// the letter becomes ink of the line's polarity; openCell returns the components it
// makes of it (none when ci is no cell, or an empty one).
func (m *inkImage) openCell(ci int, light bool) []int {
	c := m.comps[ci]
	r := c.r
	w, h := r.Dx(), r.Dy()
	cell := 4*w >= h && 5*w <= 4*h
	if h < minRowH || !cell && w < 2*h {
		return nil
	}
	W := m.rect.Dx()
	id := int32(ci)
	inked := func(x0, y0, dx, dy, n int) bool {
		k := 0
		for i := 0; i < n; i++ {
			if m.comp[(y0+i*dy)*W+x0+i*dx] == id {
				k++
			}
		}
		return k*10 >= n*9
	}
	if !inked(r.Min.X, r.Min.Y, 1, 0, w) || !inked(r.Min.X, r.Max.Y-1, 1, 0, w) {
		return nil
	}
	in := r.Inset(1)
	// An island is ink of the cell's polarity wholly inside it: in a filled cell, the
	// counter of the letter cut out of it (the D of xedit's "Dear" in a serif font).
	island := func(k int32) bool {
		return k >= 0 && k != id && m.comps[k].r.In(in) && m.comps[k].light() == c.light()
	}
	ink, islands := 0, 0
	for y := in.Min.Y; y < in.Max.Y; y++ {
		for x := in.Min.X; x < in.Max.X; x++ {
			if k := m.comp[y*W+x]; k == id {
				ink++
			} else if island(k) {
				islands++
			}
		}
	}
	area := in.Dx() * in.Dy()
	hollow := inked(r.Min.X, r.Min.Y, 0, 1, h) && inked(r.Max.X-1, r.Min.Y, 0, 1, h) && ink*2 < area
	if !hollow && (ink+islands)*2 < area || hollow && !cell {
		return nil
	}
	// The letter's pixels are marked -2, the cell's cleared.
	sign := -1
	if light {
		sign = 1
	}
	fill := 0
	if !hollow {
		fill = m.fillDepth(id, in)
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			i := y*W + x
			mine := m.comp[i] == id
			switch {
			case hollow && mine && image.Pt(x, y).In(in):
				m.comp[i] = -2
			case !hollow && mine && image.Pt(x, y).In(in) && abs(int(m.depth[i])-fill) > inkDepth:
				m.comp[i], m.depth[i] = -2, int16(sign*c.max)
			case mine:
				m.comp[i], m.depth[i] = -1, 0
			case !hollow && m.comp[i] < 0 && image.Pt(x, y).In(in):
				m.comp[i], m.depth[i] = -2, int16(sign*c.max)
			case !hollow && island(m.comp[i]):
				m.comps[m.comp[i]].frame = true
				m.comp[i], m.depth[i] = -1, 0
			}
		}
	}
	return m.label(r)
}

// fillDepth is the depth of a filled box's own level, component id's median depth
// inside in. Its letters stand out of it by more than inkDepth: cut out of it when they
// are the colour of the page around it, or of its polarity, darker than a light box or
// lighter than a dark one. A badge or a small button too small to seed a background of
// its own (engine/ocr/preprocess.go) is ink on the page's background, and its letters,
// dark on amber, were part of it and lost with it (Chromium's "Delayed 40 min").
func (m *inkImage) fillDepth(id int32, in image.Rectangle) int {
	W := m.rect.Dx()
	var hist [511]int
	n := 0
	for y := in.Min.Y; y < in.Max.Y; y++ {
		for x := in.Min.X; x < in.Max.X; x++ {
			if i := y*W + x; m.comp[i] == id {
				hist[int(m.depth[i])+255]++
				n++
			}
		}
	}
	for d, k := range hist {
		if n -= 2 * k; n <= 0 {
			return d - 255
		}
	}
	return 0
}

// underlined reads the letters over a mnemonic's underline (GTK's "_View", Tk's
// -underline), component ci: the bar, a pixel or two below the baseline and about a
// letter wide, touches the letter above it and its neighbour's foot, and the letters and
// the bar, one component standing out of the line's band below (and, with a taller
// letter, above), were all taken for a frame: PCManFM's menu bar read "ew" for "View".
// The bar is the component's bottom one or two rows, each inked over at least half its
// width and over one and a half times as many pixels as the row above it, and about a
// letter wide: no more than twice the line's median height med (an oval button's ring
// around its label, whose bottom is as wide as the label, is no underline); they are
// cleared and what stands on them is labelled again.
func (m *inkImage) underlined(ci, med int) []int {
	r := m.comps[ci].r
	W := m.rect.Dx()
	id := int32(ci)
	count := func(y int) int {
		k := 0
		for x := r.Min.X; x < r.Max.X; x++ {
			if m.comp[y*W+x] == id {
				k++
			}
		}
		return k
	}
	bar := 0
	for bar < 2 && r.Dy()-bar > minLineH && 2*count(r.Max.Y-1-bar) >= r.Dx() {
		bar++
	}
	if bar == 0 || r.Dx() < 4 || count(r.Max.Y-1) > 2*med || count(r.Max.Y-1-bar)*3 >= count(r.Max.Y-bar)*2 {
		return nil
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if i := y*W + x; m.comp[i] != id {
				continue
			} else if y >= r.Max.Y-bar {
				m.comp[i], m.depth[i] = -1, 0
			} else {
				m.comp[i] = -2
			}
		}
	}
	return m.label(r)
}

// caret reads the letters an editor's caret touches, component ci of a line whose text
// lies in rows [top, bottom): the caret, a line one or two pixels wide and taller than the
// text (Geany's, GTK's), joined the letter beside it into one component standing out of
// the band above and below, taken for a frame with the letter: "Meeting" read "eting"
// with the caret at its start. When all of the component's ink outside the band lies in
// one or two columns, above it, below it or both (AbiWord's caret runs from a capital's
// top to under the baseline), those columns are cleared over its whole height and what is
// left labelled again.
func (m *inkImage) caret(ci, top, bottom int) []int {
	r := m.comps[ci].r
	W := m.rect.Dx()
	id := int32(ci)
	x0, x1, above, below := r.Max.X, r.Min.X, false, false
	for y := r.Min.Y; y < r.Max.Y; y++ {
		if y >= top && y < bottom {
			continue
		}
		for x := r.Min.X; x < r.Max.X; x++ {
			if m.comp[y*W+x] == id {
				x0, x1 = min(x0, x), max(x1, x+1)
				above, below = above || y < top, below || y >= bottom
			}
		}
	}
	if !above && !below || x1-x0 > 2 || x1-x0 == r.Dx() {
		return nil
	}
	// Out of the band on one side only, the caret is a bar through the band to its other
	// edge: a "p" whose descender's column is all its ink outside the band, joined to the
	// "d" beside it, starts at the x-height ("invoice-118.pdf").
	if above != below {
		reach := false
		for y := max(top, r.Min.Y); y < min(top+2, r.Max.Y) && below; y++ {
			reach = reach || slices.Contains(m.comp[y*W+x0:y*W+x1], id)
		}
		for y := max(bottom-2, r.Min.Y); y < min(bottom, r.Max.Y) && above; y++ {
			reach = reach || slices.Contains(m.comp[y*W+x0:y*W+x1], id)
		}
		if !reach {
			return nil
		}
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if i := y*W + x; m.comp[i] != id {
				continue
			} else if x >= x0 && x < x1 {
				m.comp[i], m.depth[i] = -1, 0
			} else {
				m.comp[i] = -2
			}
		}
	}
	return m.label(r)
}

// arcSide reads the letter an outline's side touches, component ci of a line whose text
// lies in rows [top, bottom) and whose median letter is med high: an oval button's arc,
// left once removeLines took the outline's straight edges, is thin and stands out of the
// band above and below; a letter leaning into it (the d of xmessage's "Extend" in an
// italic Times) joined it into one component, taken for a frame with the letter. On the
// side the arc lies, the outermost run of each band row is at most arcWidth pixels;
// those runs and all the component's ink outside the band are cleared, and what is left
// is labelled again, when it holds a piece at least bandLow tenths of med high and wider
// than arcWidth (a box's other side is no letter: xcalc's focus box). Of the two sides,
// the one leaving the most ink in such pieces is taken.
func (m *inkImage) arcSide(ci, top, bottom, med int) []int {
	r := m.comps[ci].r
	if r.Min.Y >= top || r.Max.Y <= bottom {
		return nil
	}
	W := m.rect.Dx()
	id := int32(ci)
	w, h := r.Dx(), r.Dy()
	// peel marks, in a grid over r, the pixels the arc on one side would take: 1 the
	// arc's, 2 what is left; nil when a band row's outermost run is too wide.
	peel := func(right bool) []byte {
		grid := make([]byte, w*h)
		for y := r.Min.Y; y < r.Max.Y; y++ {
			row := grid[(y-r.Min.Y)*w:][:w]
			for x := r.Min.X; x < r.Max.X; x++ {
				if m.comp[y*W+x] == id {
					row[x-r.Min.X] = 2
				}
			}
			if y < top || y >= bottom {
				for x, v := range row {
					if v == 2 {
						row[x] = 1
					}
				}
				continue
			}
			x, step := 0, 1
			if right {
				x, step = w-1, -1
			}
			for x >= 0 && x < w && row[x] == 0 {
				x += step
			}
			for n := 0; x >= 0 && x < w && row[x] == 2; n, x = n+1, x+step {
				if n == arcWidth {
					return nil
				}
				row[x] = 1
			}
		}
		return grid
	}
	// kept is the ink of the pieces left at least bandLow tenths of med high.
	kept := func(grid []byte) int {
		total := 0
		seen := make([]bool, len(grid))
		var stack []int
		for s := range grid {
			if grid[s] != 2 || seen[s] {
				continue
			}
			n, x0, x1, y0, y1 := 0, w, 0, h, 0
			stack = append(stack[:0], s)
			seen[s] = true
			for len(stack) > 0 {
				i := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				n++
				x0, x1 = min(x0, i%w), max(x1, i%w+1)
				y0, y1 = min(y0, i/w), max(y1, i/w+1)
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						x, y := i%w+dx, i/w+dy
						if j := y*w + x; x >= 0 && y >= 0 && x < w && y < h && grid[j] == 2 && !seen[j] {
							seen[j] = true
							stack = append(stack, j)
						}
					}
				}
			}
			if (y1-y0)*10 >= med*bandLow && x1-x0 > arcWidth {
				total += n
			}
		}
		return total
	}
	var best []byte
	most := 0
	for _, right := range []bool{false, true} {
		if g := peel(right); g != nil {
			if k := kept(g); k > most {
				best, most = g, k
			}
		}
	}
	if best == nil {
		return nil
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			switch i := y*W + x; best[(y-r.Min.Y)*w+x-r.Min.X] {
			case 1:
				m.comp[i], m.depth[i] = -1, 0
			case 2:
				m.comp[i] = -2
			}
		}
	}
	return m.label(r)
}

// arcWidth is the widest run of an outline's side in a band row (see arcSide).
const arcWidth = 3

// label makes components of the pixels marked -2 in r (8-connected, within r) and
// returns them.
func (m *inkImage) label(r image.Rectangle) []int {
	W := m.rect.Dx()
	var kids []int
	var stack []int
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if m.comp[y*W+x] != -2 {
				continue
			}
			k := component{r: image.Rect(x, y, x+1, y+1), line: -1}
			kid := int32(len(m.comps))
			stack = append(stack[:0], y*W+x)
			m.comp[y*W+x] = kid
			for len(stack) > 0 {
				i := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				px, py := i%W, i/W
				d := int(m.depth[i])
				k.n++
				k.sum += d
				k.max = max(k.max, abs(d))
				k.r = k.r.Union(image.Rect(px, py, px+1, py+1))
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						q := image.Pt(px+dx, py+dy)
						if j := q.Y*W + q.X; q.In(r) && m.comp[j] == -2 {
							m.comp[j] = kid
							stack = append(stack, j)
						}
					}
				}
			}
			m.comps = append(m.comps, k)
			kids = append(kids, int(kid))
		}
	}
	return kids
}

// chevron says whether component ci, whose line's ink before it ends at x, is the
// drop-down mark after a menu button's label ("MS⌄", galculator's memory keys), which
// tesseract reads as a letter ("MSv"): a V wider than a letter v (w >= 1.25 h), apart
// from the label by half its height or more, its top row inked only in its outer thirds
// (its arms, however thick) and its bottom row only in its middle half.
func (m *inkImage) chevron(ci, x int) bool {
	r := m.comps[ci].r
	w, h := r.Dx(), r.Dy()
	if h < 4 || 4*w < 5*h || w > 3*h || r.Min.X-x < max(2, h/2) {
		return false
	}
	W := m.rect.Dx()
	for px := r.Min.X; px < r.Max.X; px++ {
		k := px - r.Min.X
		if m.comp[r.Min.Y*W+px] == int32(ci) && k >= w/3 && k < w-w/3 ||
			m.comp[(r.Max.Y-1)*W+px] == int32(ci) && (k < w/4 || k >= w-w/4) {
			return false
		}
	}
	return true
}

// tallRatio (in tenths) is how much taller than a line's median component a component
// may be and still be text; bandLow and bandRatio (in tenths) bound the components that
// set the text's band (see trim).
const (
	tallRatio = 24
	bandLow   = 7
	bandRatio = 16
)

// A key of a calculator or a toolbar holds one glyph ("1", "C", "(", "=", "."), and
// tesseract, which reads a line with the language model's context, misreads a glyph
// read alone ("1" as "]", "C" as "Cc") and reads nothing of a mark with no height of
// its own to measure it by ("." and "-"). The glyphs of one row are therefore read
// together, as one line: each cropped over the row's whole height (so that a "." sits on
// the row's baseline and a "-" at its middle), side by side with wide gaps between them,
// so that tesseract sees a line of separate words of one size and baseline.
const (
	// minMarkInk is the least ink a mark has (a bitmap font's 1x2 dot).
	minMarkInk = 2
	// minRowH is the least height of a glyph that founds a row.
	minRowH = 8
	// rowReach (in row heights) is how far apart two glyphs of one row may stand.
	rowReach = 8
	// stripGap (in row heights) is the white added between the glyphs of a strip, on top
	// of their margins: narrower, tesseract joins neighbours into one word ("123").
	stripGap = 2
)

// unit is what one tile holds: one line, or the glyphs of one row (a strip), left to
// right, over the row's band.
type unit struct {
	idx  []int
	band image.Rectangle
}

// glyph says whether a line is one glyph, not much wider than tall and not a hairline
// (the side of a button, too short for removeLines): one component, or the two bars of a
// stacked sign such as "=" (two other components are more often the corners left of a
// rounded button's outline than a glyph).
func (m *inkImage) glyph(l line) bool {
	one := len(l.comps) == 1 || len(l.comps) == 2 && stacked(m.comps[l.comps[0]].r, m.comps[l.comps[1]].r)
	return one && l.r.Dx() <= 2*max(l.r.Dy(), minLineH) && l.r.Dx()*6 >= l.r.Dy()
}

// units groups the lines into tiles: the glyphs of one row, and the marks that lie in
// that row near them, become one strip; every other line is a unit of its own. Marks are
// appended to the lines they return (with their components' line set); a mark near no
// row of glyphs, or at the edge of a line of text (the dot of an i), is left out.
func (m *inkImage) units(ls []line) ([]line, []unit) {
	type row struct {
		band    image.Rectangle
		h       int // the tallest glyph's height
		members []int
	}
	var gl []int
	for i, l := range ls {
		if m.glyph(l) {
			gl = append(gl, i)
		}
	}
	slices.SortStableFunc(gl, func(a, b int) int { return ls[b].r.Dy() - ls[a].r.Dy() })
	var rows []*row
	near := func(r *row, x image.Rectangle) bool {
		for _, i := range r.members {
			o := ls[i].r
			if max(o.Min.X-x.Max.X, x.Min.X-o.Max.X) <= rowReach*r.h {
				return true
			}
		}
		return false
	}
	find := func(x image.Rectangle) *row {
		cy := (x.Min.Y + x.Max.Y) / 2
		for _, r := range rows {
			if cy >= r.band.Min.Y && cy < r.band.Max.Y && near(r, x) {
				return r
			}
		}
		return nil
	}
	inRow := make([]bool, len(ls))
	// Glyphs of a row's height found rows; smaller ones ("=", "*", "-") and marks join
	// the row they lie in, near one of its members, a join bringing others near.
	var small []int
	for _, i := range gl {
		l := ls[i]
		r := find(l.r)
		if r != nil && l.r.Dy()*10 < r.h*6 {
			r = nil // much smaller than the row's glyphs: text of another size
		}
		if r == nil {
			if l.r.Dy() < minRowH {
				small = append(small, i)
				continue
			}
			rows = append(rows, &row{band: l.r, h: l.r.Dy()})
			r = rows[len(rows)-1]
		}
		r.band.Min.Y, r.band.Max.Y = min(r.band.Min.Y, l.r.Min.Y), max(r.band.Max.Y, l.r.Max.Y)
		r.members = append(r.members, i)
		inRow[i] = true
	}
	n := len(ls)
	for _, mk := range m.marks {
		edge := false
		for _, l := range ls[:n] {
			if !m.glyph(l) && mk.r.Overlaps(l.r.Inset(-max(2, l.r.Dy()/2))) {
				edge = true
				break
			}
		}
		if !edge {
			small = append(small, len(ls))
			ls = append(ls, mk)
			inRow = append(inRow, false)
		}
	}
	for joined := true; joined; {
		joined = false
		for _, i := range small {
			if inRow[i] {
				continue
			}
			if r := find(ls[i].r); r != nil {
				r.members = append(r.members, i)
				inRow[i], joined = true, true
			}
		}
	}
	for i := n; i < len(ls); i++ {
		if inRow[i] {
			for _, ci := range ls[i].comps {
				m.comps[ci].line = i
			}
		}
	}
	var us []unit
	for _, r := range rows {
		if len(r.members) == 1 {
			inRow[r.members[0]] = false
			continue
		}
		slices.SortFunc(r.members, func(a, b int) int { return ls[a].r.Min.X - ls[b].r.Min.X })
		us = append(us, unit{idx: r.members, band: r.band})
	}
	for i, l := range ls[:n] {
		if !inRow[i] {
			us = append(us, unit{idx: []int{i}, band: l.r})
		}
	}
	return ls, us
}

// segment is one glyph's place in a strip: strip x from x0 to x1 (unscaled) maps to
// the screen by adding off; a word read there is the glyph's if its centre lies in core.
type segment struct {
	x0, x1 int
	off    image.Point
	core   image.Rectangle
}

// strip crops the glyphs of a row unit over its band and sets them side by side.
func (m *inkImage) strip(ls []line, u unit) (*image.Gray, []segment) {
	gap := stripGap * u.band.Dy()
	type part struct {
		r    image.Rectangle
		g    *image.Gray
		core image.Rectangle
	}
	var parts []part
	W, top, bottom := 0, math.MaxInt, 0
	for k, li := range u.idx {
		l := ls[li]
		ext := image.Rect(l.r.Min.X, u.band.Min.Y, l.r.Max.X, u.band.Max.Y)
		r, g := m.crop(li, l, ext)
		parts = append(parts, part{r, g, ext.Inset(-2)})
		if k > 0 {
			W += gap
		}
		W += r.Dx()
		top, bottom = min(top, r.Min.Y), max(bottom, r.Max.Y)
	}
	out := image.NewGray(image.Rect(0, 0, W, bottom-top))
	for i := range out.Pix {
		out.Pix[i] = 255
	}
	var segs []segment
	x := 0
	for k, p := range parts {
		for y := 0; y < p.r.Dy(); y++ {
			copy(out.Pix[(y+p.r.Min.Y-top)*out.Stride+x:], p.g.Pix[y*p.g.Stride:][:p.r.Dx()])
		}
		x0, x1 := x, x+p.r.Dx()
		if k > 0 {
			x0 -= gap / 2
		}
		if k < len(parts)-1 {
			x1 += gap / 2
		}
		segs = append(segs, segment{x0: x0, x1: x1, off: image.Pt(p.r.Min.X-x, top), core: p.core})
		x += p.r.Dx() + gap
	}
	return out, segs
}

// crop cuts line li out of the image with a margin around ext (the line's ink extent, or
// a strip's band over it) and normalises it: every background white, the line's text
// from grey to black whatever its colour or contrast, ink of other lines and erased
// borders white. It returns the crop's rectangle (in image coordinates, relative to the
// image) and its pixels.
func (m *inkImage) crop(li int, l line, ext image.Rectangle) (image.Rectangle, *image.Gray) {
	h := ext.Dy()
	r := image.Rect(ext.Min.X-h/2-3, ext.Min.Y-h/3-3, ext.Max.X+h/2+3, ext.Max.Y+h/3+3).
		Intersect(image.Rect(0, 0, m.rect.Dx(), m.rect.Dy()))
	// The text's own contrast maps to full black, so grey helper text reads like black.
	full := max(inkDepth*3/2, l.max*4/5)
	out := image.NewGray(image.Rect(0, 0, r.Dx(), r.Dy()))
	W := m.rect.Dx()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		dst := out.Pix[(y-r.Min.Y)*out.Stride:][:r.Dx()]
		for x := r.Min.X; x < r.Max.X; x++ {
			i := y*W + x
			d := int(m.depth[i])
			if l.light {
				d = max(0, d)
			} else {
				d = max(0, -d)
			}
			if d > inkDepth {
				// Only this line's ink stays, and small marks no line owns (the dot of an
				// i above a short line): borders, pictures and other lines go white.
				switch c := m.comp[i]; {
				case c < 0:
					d = 0
				case m.comps[c].line == li:
				case m.comps[c].line >= 0 || m.comps[c].frame || m.comps[c].r.Dy() > maxGlyphH:
					d = 0
				}
			}
			dst[x-r.Min.X] = byte(255 - min(255, d*255/full))
		}
	}
	// A flat period is drawn square: each row above it takes the ink of its top row.
	for _, c := range m.flatDots(l) {
		top := out.Pix[(c.Min.Y-r.Min.Y)*out.Stride:]
		for y := c.Max.Y - c.Dx(); y < c.Min.Y; y++ {
			copy(out.Pix[(y-r.Min.Y)*out.Stride+c.Min.X-r.Min.X:][:c.Dx()], top[c.Min.X-r.Min.X:][:c.Dx()])
		}
	}
	if m.hairBars(li, l) {
		// Each row takes the ink of the row above it: bars two pixels thick.
		for y := out.Rect.Dy() - 1; y > 0; y-- {
			row, above := out.Pix[y*out.Stride:][:out.Rect.Dx()], out.Pix[(y-1)*out.Stride:]
			for x := range row {
				row[x] = min(row[x], above[x])
			}
		}
	}
	return r, out
}

// flatDots returns a line's flat periods: in a small antialiased font (DejaVu Sans at 8
// pt) a period's grey upper row falls under the ink threshold and leaves a dot two or three
// pixels wide and one high, which tesseract passed over between figures: zenity's "16.4"
// read "164", "7.2.5" "7.25". Such a dot is lower than wide, at most three pixels wide, in
// the line's lowest third, with taller ink wholly left and wholly right of it and no other
// ink over or under it (a colon's lower dot, a "÷"'s, a faint stroke's fragment under its
// letter are not periods); crop draws it as tall as wide.
func (m *inkImage) flatDots(l line) []image.Rectangle {
	var dots []image.Rectangle
	for _, ci := range l.comps {
		c := m.comps[ci].r
		if c.Dy() >= c.Dx() || c.Dx() > 3 || 3*c.Max.Y < l.r.Min.Y+2*l.r.Max.Y {
			continue
		}
		left, right, over := false, false, false
		for _, cj := range l.comps {
			o := m.comps[cj].r
			left = left || o.Max.X <= c.Min.X && o.Dy() > c.Dx()
			right = right || o.Min.X >= c.Max.X && o.Dy() > c.Dx()
			over = over || cj != ci && o.Min.X < c.Max.X && o.Max.X > c.Min.X
		}
		if left && right && !over {
			dots = append(dots, c)
		}
	}
	return dots
}

// hairBars says whether line li is large text of a light face: three or more letters, all
// of them (every component a letter's height could be) at least lightFaceH tall, as
// figures and capitals are, and its horizontal strokes one pixel thick (most vertical runs
// of its ink one pixel long), where a regular face of that size has bars of two pixels or
// more. Tesseract reads the glyphs such bars make wrong at most scales: xcalc's display
// (figures 13 px tall) read "A08" for 408 at the default 2.15x, "A08" at 2x, "ADS" at 3x,
// its closed 4 an A; with bars two pixels thick it reads 408 at every scale from 1x to 4x.
// crop thickens them. Lines of lower-case letters (whose x-height is under lightFaceH)
// and single glyphs, which read well, are left alone: thickened, xedit's "L1" read "L]".
func (m *inkImage) hairBars(li int, l line) bool {
	tall := 0
	for _, ci := range l.comps {
		switch h := m.comps[ci].r.Dy(); {
		case h >= lightFaceH:
			tall++
		case h >= minLineH:
			return false
		}
	}
	if tall < 3 {
		return false
	}
	W := m.rect.Dx()
	ones, runs := 0, 0
	for x := l.r.Min.X; x < l.r.Max.X; x++ {
		r, o := oneRuns(l.r.Dy(), func(k int) bool {
			c := m.comp[(l.r.Min.Y+k)*W+x]
			return c >= 0 && m.comps[c].line == li
		})
		runs, ones = runs+r, ones+o
	}
	return ones*2 > runs
}

// oneRuns counts the runs of consecutive cells among n for which in holds, and those of
// them one cell long.
func oneRuns(n int, in func(k int) bool) (runs, ones int) {
	run := 0
	for k := 0; k <= n; k++ {
		if k < n && in(k) {
			run++
			continue
		}
		if run > 0 {
			runs++
			if run == 1 {
				ones++
			}
		}
		run = 0
	}
	return runs, ones
}

// lightFaceH is the least letter height at which a face with one-pixel bars is light:
// below it, one pixel is a regular face's stroke.
const lightFaceH = 12

// lineScale is the upscale factor for a line of ink height h.
func lineScale(h int, fine bool) float64 {
	if fine {
		return math.Max(1, math.Min(maxFineScale, 2*float64(targetH)/float64(max(1, h))))
	}
	return math.Max(1, math.Min(maxScale, float64(targetH)/float64(max(1, h))))
}

// maxFineScale caps the upscale of Options.Fine.
const maxFineScale = 4
