package ocr

import (
	"bytes"
	"container/list"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

func TestGroupLines(t *testing.T) {
	ws := []Box{
		{Text: "world", X: 60, Y: 11, Width: 40, Height: 12},
		{Text: "second", X: 10, Y: 40, Width: 50, Height: 12},
		{Text: "hello", X: 10, Y: 10, Width: 40, Height: 12},
		{Text: "far", X: 600, Y: 12, Width: 30, Height: 12}, // another column
	}
	lines := groupLines(ws)
	var got []string
	for _, l := range lines {
		s := ""
		for i, w := range l {
			if i > 0 {
				s += " "
			}
			s += w.Text
		}
		got = append(got, s)
	}
	want := []string{"hello world", "far", "second"}
	if len(got) != len(want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("lines %q, want %q", got, want)
		}
	}
}

func TestParseTSVMapsAndDedupes(t *testing.T) {
	// A tile whose region starts at (100, 50) with a core from (196, 82); scale 2.
	tl := &tile{core: image.Rect(196, 82, 500, 300), r: image.Rect(100, 50, 600, 332), scale: 2}
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"5\t1\t1\t1\t1\t1\t400\t100\t80\t24\t96.5\tinside\n" + // centre (320, 106): in the core
		"5\t1\t1\t1\t1\t2\t10\t10\t80\t24\t91\tmargin\n" + // centre (125, 61): the neighbour's
		"5\t1\t1\t1\t1\t3\t600\t100\t2\t24\t10\t|\n" + // noise
		"4\t1\t1\t1\t1\t0\t400\t100\t80\t24\t-1\t\n"
	got := parseTSV([]byte(tsv), []*tile{tl}, 0)
	if len(got) != 1 {
		t.Fatalf("got %+v", got)
	}
	want := Box{Text: "inside", Confidence: 96.5, X: 300, Y: 100, Width: 40, Height: 12}
	if got[0] != want {
		t.Fatalf("got %+v, want %+v", got[0], want)
	}
}

func TestOutlinesSideBySideCutAReading(t *testing.T) {
	// Two stippled oval buttons side by side (xclipboard's insensitive Next and Prev):
	// their outlines between the labels read as ")(", and the two labels as one word.
	// They are two words, without the outlines' brackets, each over its part of the box.
	tl := &tile{core: image.Rect(0, 0, 500, 300), r: image.Rect(0, 0, 600, 332), scale: 1}
	tsv := "5\t1\t1\t1\t1\t1\t100\t10\t100\t20\t80\tNext)(Prev\n"
	got := parseTSV([]byte(tsv), []*tile{tl}, 0)
	want := []Box{{Text: "Next", Confidence: 80, X: 100, Y: 10, Width: 40, Height: 20},
		{Text: "Prev", Confidence: 80, X: 160, Y: 10, Width: 40, Height: 20}}
	if !slices.Equal(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

func TestPolarityAndLines(t *testing.T) {
	// Left half dark with a light "glyph", right half light with a dark one and a long
	// thin line; a mid-blue band (luminance 150) at the bottom with a white glyph.
	const W, H = 200, 100
	g := image.NewGray(image.Rect(0, 0, W, H))
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			v := byte(30)
			if x >= 100 {
				v = 240
			}
			if y >= 85 {
				v = 150
			}
			g.Pix[y*W+x] = v
		}
	}
	for y := 40; y < 50; y++ {
		for x := 40; x < 44; x++ {
			g.Pix[y*W+x] = 220 // light stroke on dark
			g.Pix[y*W+x+100] = 20
		}
	}
	for y := 90; y < 97; y++ {
		for x := 60; x < 63; x++ {
			g.Pix[y*W+x] = 255 // white stroke on mid-blue
		}
	}
	for x := 110; x < 190; x++ {
		g.Pix[75*W+x] = 0 // a separator line
	}
	m := findInk(g, newBackground(g, 2), 2)
	at := func(x, y int) int { return abs(int(m.depth[y*W+x])) }
	if d := at(10, 10); d > 5 {
		t.Errorf("dark background has depth %d", d)
	}
	if d := at(41, 45); d < 150 {
		t.Errorf("light stroke on dark has depth %d", d)
	}
	if d := at(141, 45); d < 150 {
		t.Errorf("dark stroke on light has depth %d", d)
	}
	if d := at(61, 93); d < 80 {
		t.Errorf("white stroke on mid-blue has depth %d", d)
	}
	if c := m.comp[75*W+150]; c >= 0 {
		t.Errorf("thin line kept as component %d", c)
	}
	if m.comp[45*W+41] < 0 || m.comp[45*W+141] < 0 || m.comp[93*W+61] < 0 {
		t.Error("a stroke is not a component")
	}
}

func TestLinesAndCrop(t *testing.T) {
	// A mid-blue bar (luminance 110) holding five white "glyphs" 6 px wide, 10 px tall,
	// 3 px apart, with a 30 px tall stipple-like bar (a box side) 4 px before them; below
	// it on white, a second line of dark glyphs.
	const W, H = 300, 120
	g := image.NewGray(image.Rect(0, 0, W, H))
	for i := range g.Pix {
		g.Pix[i] = 250
	}
	fill := func(x0, y0, x1, y1 int, v byte) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				g.Pix[y*W+x] = v
			}
		}
	}
	fill(0, 0, W, 60, 110)
	fill(36, 15, 38, 45, 255) // the tall bar
	for k := 0; k < 5; k++ {
		fill(42+9*k, 25, 48+9*k, 35, 255)
		fill(42+9*k, 80, 48+9*k, 90, 30)
	}
	m := findInk(g, newBackground(g, 2), 2)
	ls := m.lines()
	if len(ls) != 2 {
		t.Fatalf("%d lines, want 2: %+v", len(ls), ls)
	}
	top := ls[0]
	if top.r.Min.Y > ls[1].r.Min.Y {
		top = ls[1]
	}
	if want := image.Rect(42, 25, 84, 35); top.r != want || !top.light {
		t.Fatalf("top line %v light %v, want %v light", top.r, top.light, want)
	}
	li := 0
	if top.r != ls[0].r {
		li = 1
	}
	r, c := m.crop(li, top, top.r)
	at := func(x, y int) byte { return c.Pix[(y-r.Min.Y)*c.Stride+x-r.Min.X] }
	if v := at(44, 30); v > 40 {
		t.Errorf("white glyph on blue not made dark: %d", v)
	}
	if v := at(50, 30); v < 230 {
		t.Errorf("blue between glyphs not made white: %d", v)
	}
	if v := at(37, 30); v < 230 { // the crop's margin reaches the bar
		t.Errorf("the tall bar is not whitened: %d", v)
	}
	if lineScale(10, false) != 2.8 || lineScale(5, false) != maxScale || lineScale(40, false) != 1 {
		t.Errorf("scales %v %v %v", lineScale(10, false), lineScale(5, false), lineScale(40, false))
	}
	if lineScale(28, true) != 2 || lineScale(5, true) != maxFineScale || lineScale(80, true) != 1 {
		t.Errorf("fine scales %v %v %v", lineScale(28, true), lineScale(5, true), lineScale(80, true))
	}
}

func TestSolidBarIsNoLine(t *testing.T) {
	// Dark glyphs on white above a solid bar 5 px thick (a window's bottom border, a
	// progress bar): too thick for removeLines, it must not be read as a line of text.
	const W, H = 300, 60
	g, fill := canvas(W, H, 250, 20)
	for k := 0; k < 5; k++ {
		fill(42+9*k, 10, 48+9*k, 20)
	}
	fill(20, 40, 280, 45)
	m := findInk(g, newBackground(g, 2), 2)
	ls := m.lines()
	if len(ls) != 1 || ls[0].r != image.Rect(42, 10, 84, 20) {
		t.Fatalf("lines %+v, want the glyphs' only", ls)
	}
	if c := m.comp[42*W+100]; c < 0 || !m.comps[c].frame {
		t.Errorf("the bar is not a frame: component %d", c)
	}
}

func TestEqualsSignIsALine(t *testing.T) {
	// A lone "=" on a calculator key: two bars 9 px wide and 1 px high, 2 px apart (as
	// galculator draws it). Each is too thin for a line; together they are one glyph.
	const W, H = 60, 40
	g := image.NewGray(image.Rect(0, 0, W, H))
	for i := range g.Pix {
		g.Pix[i] = 245
	}
	for _, y := range []int{18, 21} {
		for x := 25; x < 34; x++ {
			g.Pix[y*W+x] = 30
		}
	}
	ls := findInk(g, newBackground(g, 2), 2).lines()
	if len(ls) != 1 || ls[0].r != image.Rect(25, 18, 34, 22) {
		t.Fatalf("lines %+v, want the two bars as one", ls)
	}
}

func TestKeyGlyphsFormAStrip(t *testing.T) {
	// A row of keys as xcalc draws them: "1" (a 3x13 bar), two wider glyphs, a "." of 1x2
	// pixels on the row's baseline and, on the next row, a word of text. The glyphs and
	// the dot are one strip over the row's band; the word is a line of its own.
	const W, H = 300, 80
	g := image.NewGray(image.Rect(0, 0, W, H))
	for i := range g.Pix {
		g.Pix[i] = 250
	}
	fill := func(x0, y0, x1, y1 int) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				g.Pix[y*W+x] = 10
			}
		}
	}
	fill(20, 10, 23, 23)
	fill(60, 10, 68, 23)
	fill(100, 10, 108, 23)
	fill(140, 21, 141, 23)
	for k := 0; k < 4; k++ { // a word: four letters close together
		fill(20+9*k, 50, 26+9*k, 60)
	}
	m := findInk(g, newBackground(g, 2), 2)
	ls, us := m.units(m.lines())
	var strip, word *unit
	for i := range us {
		switch len(us[i].idx) {
		case 4:
			strip = &us[i]
		case 1:
			word = &us[i]
		}
	}
	if len(us) != 2 || strip == nil || word == nil {
		t.Fatalf("units %+v, want a strip of 4 and the word", us)
	}
	if strip.band.Min.Y != 10 || strip.band.Max.Y != 23 || ls[strip.idx[3]].r != image.Rect(140, 21, 141, 23) {
		t.Fatalf("strip band %v, last member %v; want the keys' band and the dot", strip.band, ls[strip.idx[3]].r)
	}
	img, segs := m.strip(ls, *strip)
	if len(segs) != 4 || img.Rect.Dy() != 13+2*(13/3+3) {
		t.Fatalf("strip %v with %d segments", img.Rect, len(segs))
	}
	// A word read over the dot's segment maps back onto the dot on the screen.
	tl := &tile{segs: segs, scale: 1}
	dot := segs[3]
	x := dot.x1 - (13/2 + 3) - 1 // the last segment ends with the crop: its margin, then the dot
	off, core := tl.place(x)
	if p := image.Pt(x, 13/3+3+12).Add(off); !p.In(core) || p.X != 140 {
		t.Fatalf("strip x %d maps to %v (core %v), want the dot at x 140", x, p, core)
	}
}

func TestBoldStrokeIsNoBackground(t *testing.T) {
	// A large bold glyph (galculator's display digits): an "L" whose stem is 9 px wide and
	// 30 px tall, so that a column of three 8x8 blocks lies wholly in its ink. Seeded as
	// a background, the stem would turn to background and the glyph fall apart; it must
	// stay one dark component.
	const W, H = 80, 60
	g, fill := canvas(W, H, 250, 10)
	fill(15, 12, 24, 42)
	fill(24, 37, 36, 42)
	m := findInk(g, newBackground(g, 2), 2)
	c := m.comp[20*W+19]
	if c < 0 || m.comps[c].light() || m.comps[c].r != image.Rect(15, 12, 36, 42) {
		t.Fatalf("the glyph is not one dark component: %d %+v", c, m.comps)
	}
}

func TestButtonOutlineIsNoText(t *testing.T) {
	// A label in a rounded button (xmessage's): once removeLines erased the straight top
	// and bottom, the rounded sides are two arcs, 2 px wide, standing 4 px above and below
	// the letters; they must leave the line, the letters stay.
	const W, H = 140, 50
	g, fill := canvas(W, H, 250, 20)
	fill(30, 11, 32, 31) // left arc
	sixLetters(fill, 36)
	fill(86, 11, 88, 31) // right arc
	m := findInk(g, newBackground(g, 2), 2)
	ls := m.lines()
	if len(ls) != 1 || ls[0].r != image.Rect(36, 15, 81, 27) {
		t.Fatalf("lines %+v, want the letters' only", ls)
	}
	if c := m.comp[20*W+30]; c < 0 || !m.comps[c].frame {
		t.Errorf("the left arc is not a frame: component %d", c)
	}
}

// sixLetters draws six letters 5 px wide, 8 apart from x0, 12 and 10 px tall by turns on
// a baseline at y 27.
func sixLetters(fill func(x0, y0, x1, y1 int), x0 int) {
	for k := 0; k < 6; k++ {
		fill(x0+8*k, 15+k%2*2, x0+5+8*k, 27)
	}
}

func TestLetterTouchingAnOutlineStays(t *testing.T) {
	// An oval button's arcs (removeLines took its straight edges), 1 px wide and 4 px
	// above and below the letters; the last letter leans into the right arc (the d of
	// xmessage's "Extend" in an italic Times) and was lost with it. The arc leaves the
	// line, the letter stays in it; a box's side beside letters is no letter either.
	const W, H = 140, 50
	g, fill := canvas(W, H, 250, 20)
	fill(30, 11, 31, 31) // left arc
	sixLetters(fill, 34)
	fill(79, 11, 80, 12) // right arc, curving in above and below the letters
	fill(80, 12, 81, 13)
	fill(81, 13, 82, 15)
	fill(82, 15, 83, 27)
	fill(81, 27, 82, 29)
	fill(80, 29, 81, 30)
	fill(79, 30, 80, 31)
	fill(79, 17, 81, 18) // the last letter's top reaches it
	fill(81, 16, 82, 17)
	m := findInk(g, newBackground(g, 2), 2)
	ls := m.lines()
	c := m.comp[20*W+76]
	if len(ls) != 1 || c < 0 || m.comps[c].frame || m.comps[c].line != 0 || m.comps[c].r != image.Rect(74, 17, 81, 27) {
		t.Fatalf("lines %+v; the last letter: component %d %+v, want a letter at (74,17)-(81,27) in the line", ls, c, m.comps[max(c, 0)])
	}
	if a := m.comp[25*W+82]; a >= 0 && !m.comps[a].frame {
		t.Errorf("the right arc is text: component %d", a)
	}
}

func TestStippleSetsNoTextBand(t *testing.T) {
	// Xaw's oval buttons side by side (xclipboard's): a sensitive button's arcs stand 4
	// px above and below its letters, and the insensitive neighbour's outline is stippled,
	// its top and bottom rows a dotted line level with the arcs' ends. The dots and the
	// stippled sides' short pieces are no letters: the text's band is the letters', the
	// arcs stand out of it and leave the line.
	const W, H = 170, 50
	g, fill := canvas(W, H, 250, 20)
	fill(30, 11, 32, 31) // left arc
	sixLetters(fill, 36)
	fill(86, 11, 88, 31) // right arc
	for x := 92; x < 150; x += 2 {
		fill(x, 11, x+1, 12) // the stippled outline's top and bottom
		fill(x, 30, x+1, 31)
	}
	fill(150, 12, 152, 18) // pieces of its stippled side, shorter than a letter
	fill(150, 23, 152, 29)
	for k := 0; k < 5; k++ {
		fill(96+8*k, 15+k%2*2, 101+8*k, 27)
	}
	m := findInk(g, newBackground(g, 2), 2)
	m.lines()
	for _, x := range []int{30, 86} {
		if c := m.comp[20*W+x]; c < 0 || !m.comps[c].frame {
			t.Errorf("the arc at x=%d is not a frame: component %d", x, c)
		}
	}
	if c := m.comp[20*W+37]; c < 0 || m.comps[c].frame {
		t.Errorf("a letter is a frame: component %d", c)
	}
}

func TestFlatPeriodIsDrawnSquare(t *testing.T) {
	// "16.4" in an 8 pt antialiased font: figures 8 px tall, the period a dot 2 px wide
	// and 1 high on the baseline (zenity's list), which tesseract passed over. The dot is
	// cropped 2x2; a colon's lower dot, with its upper one over it, is left as it is.
	const W, H = 120, 30
	g, fill := canvas(W, H, 250, 20)
	fill(20, 10, 22, 18) // 1
	fill(25, 10, 31, 18) // 6
	fill(33, 17, 35, 18) // .
	fill(37, 10, 43, 18) // 4
	fill(60, 10, 66, 18) // 2
	fill(68, 12, 70, 13) // :
	fill(68, 17, 70, 18)
	fill(72, 10, 78, 18) // 5
	m := findInk(g, newBackground(g, 2), 2)
	ls := m.lines()
	if len(ls) != 2 {
		t.Fatalf("lines %+v, want two", ls)
	}
	r, out := m.crop(0, ls[0], ls[0].r)
	if at := func(x, y int) byte { return out.GrayAt(x-r.Min.X, y-r.Min.Y).Y }; at(33, 16) > 128 || at(34, 16) > 128 || at(33, 15) < 128 {
		t.Errorf("the period is not drawn 2x2: %d %d above it, %d above that", at(33, 16), at(34, 16), at(33, 15))
	}
	r, out = m.crop(1, ls[1], ls[1].r)
	if at := out.GrayAt(68-r.Min.X, 16-r.Min.Y).Y; at < 128 {
		t.Errorf("the colon's lower dot is drawn taller: %d above it", at)
	}
}

func TestMonospaceLineReachesOverABlankCell(t *testing.T) {
	// xmore's font: cells 7 px wide, letters 5 wide and 5 to 7 tall, so a word gap of
	// one blank cell (9 px) is wider than the line is tall, and "Faster start" was read
	// as two lines, "Paster" alone. The words one blank cell apart are one line; a column
	// two blank cells away is not.
	const W, H = 200, 30
	g, fill := canvas(W, H, 250, 20)
	letters := func(x0, n int) {
		for k := 0; k < n; k++ {
			fill(x0+7*k, 10+k%2*2, x0+7*k+5, 17)
		}
	}
	letters(20, 6)  // 20..62
	letters(69, 5)  // one blank cell: 62 to 69 is 9 px
	letters(120, 3) // two blank cells and more away
	m := findInk(g, newBackground(g, 2), 2)
	ls := m.lines()
	if len(ls) != 2 || ls[0].r != image.Rect(20, 10, 102, 17) {
		t.Fatalf("lines %+v, want the first two words as one", ls)
	}
}

func TestGlyphReadsAsOneCharacter(t *testing.T) {
	// A lone "C" on a key comes back from tesseract as "Cc": a glyph's tile keeps one
	// character; a line of text keeps what it read ("Cc" may be a word there), and so
	// does a glyph read as two different letters.
	tsv := "5\t1\t1\t1\t1\t1\t10\t10\t20\t24\t80\tCc\n"
	for _, c := range []struct {
		glyph      bool
		read, want string
	}{{true, "Cc", "C"}, {false, "Cc", "Cc"}, {true, "Tl", "Tl"}} {
		tl := &tile{core: image.Rect(0, 0, 100, 100), r: image.Rect(0, 0, 100, 100), scale: 1, glyph: c.glyph}
		got := parseTSV([]byte(strings.Replace(tsv, "Cc", c.read, 1)), []*tile{tl}, 0)
		if len(got) != 1 || got[0].Text != c.want {
			t.Errorf("glyph %v, read %q: got %+v, want %q", c.glyph, c.read, got, c.want)
		}
	}
}

// canvas is a w x h image of level bg and a function that fills a rectangle with ink.
func canvas(w, h int, bg, ink byte) (*image.Gray, func(x0, y0, x1, y1 int)) {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = bg
	}
	return g, func(x0, y0, x1, y1 int) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				g.Pix[y*w+x] = ink
			}
		}
	}
}

func TestBracketWithoutFootIsOne(t *testing.T) {
	// xcalc's bitmap "1" (a flag left of the stem at the top, no foot) comes back from
	// tesseract as "]": read alone on a key it is a "1"; a "]" (bars at top and foot)
	// stays, and so does a "]" read in a line of text.
	one, fill1 := canvas(40, 40, 255, 0)
	fill1(20, 8, 23, 32) // stem
	fill1(15, 8, 20, 11) // flag
	bracket, fillB := canvas(40, 40, 255, 0)
	fillB(20, 8, 23, 32)
	fillB(14, 8, 20, 11)
	fillB(14, 29, 20, 32) // foot bar
	tsv := "5\t1\t1\t1\t1\t1\t12\t6\t14\t28\t90\t]\n"
	for _, c := range []struct {
		name  string
		img   *image.Gray
		glyph bool
		want  string
	}{{"1 on a key", one, true, "1"}, {"] on a key", bracket, true, "]"}, {"1 in text", one, false, "]"}} {
		tl := &tile{core: image.Rect(0, 0, 40, 40), r: image.Rect(0, 0, 40, 40), scale: 1, glyph: c.glyph}
		if c.glyph {
			tl.pix, tl.pw = c.img.Pix, 40
		}
		readAs(t, c.name, tl, tsv, c.want)
	}
}

func TestFaintKeySidesAreNoText(t *testing.T) {
	// Two keys side by side (galculator's): faint 1 px sides (contrast 44) between
	// rounded corners, a glyph in each. Taken for text, the sides, as tall as the key,
	// would join both glyphs and the sides into one line; each glyph must be a line of
	// its own, the sides frames.
	const W, H = 100, 40
	g, fill := canvas(W, H, 245, 40)
	for _, x := range []int{10, 40, 50, 80} {
		for y := 10; y < 30; y++ {
			g.Pix[y*W+x] = 201
		}
	}
	fill(22, 15, 28, 25)
	fill(62, 15, 68, 25)
	m := findInk(g, newBackground(g, 2), 2)
	ls := m.lines()
	if len(ls) != 2 || ls[0].r != image.Rect(22, 15, 28, 25) || ls[1].r != image.Rect(62, 15, 68, 25) {
		t.Fatalf("lines %+v, want the two glyphs", ls)
	}
	if c := m.comp[20*W+40]; c < 0 || !m.comps[c].frame {
		t.Errorf("a key's side is not a frame: component %d", c)
	}
}

func TestDropDownMarkIsNoText(t *testing.T) {
	// A menu button's label and its drop-down mark (galculator's "MS⌄"): a V 11 px wide
	// and 6 tall, 6 px after the label, leaves the line; a letter v (7 wide) stays.
	for _, c := range []struct {
		w     int
		frame bool
	}{{11, true}, {7, false}} {
		const W, H = 120, 40
		g, fill := canvas(W, H, 250, 20)
		fill(30, 15, 38, 24) // two letters
		fill(40, 15, 48, 24)
		x0 := 54
		for y := 0; y < 6; y++ {
			l := y * (c.w - 2) / 10
			fill(x0+l, 18+y, x0+l+2, 19+y)
			fill(x0+c.w-l-2, 18+y, x0+c.w-l, 19+y)
		}
		m := findInk(g, newBackground(g, 2), 2)
		ls := m.lines()
		v := m.comp[18*W+x0]
		if len(ls) != 1 || v < 0 || m.comps[v].frame != c.frame {
			t.Errorf("V %d wide: lines %+v, mark %d frame %v, want frame %v", c.w, ls, v, v >= 0 && m.comps[v].frame, c.frame)
		}
	}
}

func TestFaintTextKeepsItsThinStrokes(t *testing.T) {
	// Low-contrast text (grey on light grey, contrast 80): a one-pixel stem (an "l",
	// contrast 50) between two letters is as faint as a key's side, but not under half
	// the letters beside it: it stays text.
	const W, H = 100, 40
	g, fill := canvas(W, H, 220, 140)
	fill(30, 15, 36, 25)
	for y := 13; y < 25; y++ {
		g.Pix[y*W+39] = 170
	}
	fill(42, 15, 48, 25)
	m := findInk(g, newBackground(g, 2), 2)
	ls := m.lines()
	if len(ls) != 1 || ls[0].r != image.Rect(30, 13, 48, 25) || len(ls[0].comps) != 3 {
		t.Fatalf("lines %+v, want the three strokes in one", ls)
	}
}

func TestStackedSignsFromInk(t *testing.T) {
	// tesseract's English model has no "±" or "÷": it reads them "+" (its box round the
	// cross only) or "-". A glyph's ink of stacked parts tells them; a "+" and an "="
	// stay, and so does a "+" read in a line of text.
	draw := func(parts ...[4]int) []byte {
		g, fill := canvas(40, 40, 255, 0)
		for _, p := range parts {
			fill(p[0], p[1], p[2], p[3])
		}
		return g.Pix
	}
	plus := [][4]int{{19, 8, 21, 24}, {12, 15, 28, 17}}
	plusMinus := draw(append(plus, [4]int{12, 28, 28, 30})...)
	divide := draw([4]int{19, 9, 22, 12}, [4]int{12, 18, 28, 20}, [4]int{19, 26, 22, 29})
	for _, c := range []struct {
		name       string
		pix        []byte
		glyph      bool
		read, want string
	}{
		{"plus-minus", plusMinus, true, "+", "±"},
		{"divide", divide, true, "-", "÷"},
		{"plus", draw(plus...), true, "+", "+"},
		{"equals", draw([4]int{12, 14, 28, 16}, [4]int{12, 22, 28, 24}), true, "=", "="},
		{"plus-minus in text", plusMinus, false, "+", "+"},
	} {
		tsv := "5\t1\t1\t1\t1\t1\t12\t8\t16\t16\t90\t" + c.read + "\n"
		tl := &tile{core: image.Rect(0, 0, 40, 40), r: image.Rect(0, 0, 40, 40), scale: 1, glyph: c.glyph}
		if c.glyph {
			tl.pix, tl.pw = c.pix, 40
		}
		readAs(t, c.name, tl, tsv, c.want)
	}
}

func TestPiFromInk(t *testing.T) {
	// tesseract's English model has no "π": it reads one alone as "T" or "Tl", often with
	// no confidence. A bar over two legs is a "π", kept whatever the confidence; a "T"
	// stays a "T" (and a lone one read with no confidence is still noise).
	piG, fillP := canvas(40, 40, 255, 0)
	fillP(8, 8, 32, 11)   // bar
	fillP(13, 11, 16, 32) // legs
	fillP(24, 11, 27, 32)
	tG, fillT := canvas(40, 40, 255, 0)
	fillT(8, 8, 32, 11)
	fillT(18, 11, 21, 32)
	for _, c := range []struct {
		name string
		pix  []byte
		read string
		conf int
		want []string
	}{
		{"pi read T", piG.Pix, "T", 0, []string{"π"}},
		{"pi read Tl", piG.Pix, "Tl", 56, []string{"π"}},
		{"T", tG.Pix, "T", 95, []string{"T"}},
		{"T with no confidence", tG.Pix, "T", 0, nil},
	} {
		tsv := fmt.Sprintf("5\t1\t1\t1\t1\t1\t8\t8\t24\t24\t%d\t%s\n", c.conf, c.read)
		tl := &tile{core: image.Rect(0, 0, 40, 40), r: image.Rect(0, 0, 40, 40), scale: 1, glyph: true, pix: c.pix, pw: 40}
		var got []string
		for _, b := range parseTSV([]byte(tsv), []*tile{tl}, 0) {
			got = append(got, b.Text)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

func TestRootFromInk(t *testing.T) {
	// tesseract's English model has no "√": it reads one alone as "v". A low tick left of
	// a stroke rising to the top is a "√"; a "v", which reaches the top on both sides,
	// stays.
	rootG, fillR := canvas(40, 40, 255, 0)
	fillR(6, 20, 10, 24)  // tick
	fillR(10, 22, 14, 32) // down to the foot
	fillR(15, 6, 18, 32)  // up to the top
	vG, fillV := canvas(40, 40, 255, 0)
	fillV(8, 8, 11, 20)
	fillV(11, 20, 14, 32)
	fillV(22, 8, 25, 20)
	fillV(19, 20, 22, 32)
	for _, c := range []struct {
		name       string
		pix        []byte
		read, want string
	}{{"root", rootG.Pix, "v", "√"}, {"v", vG.Pix, "v", "v"}, {"V", vG.Pix, "V", "V"}} {
		tsv := "5\t1\t1\t1\t1\t1\t6\t6\t20\t26\t70\t" + c.read + "\n"
		tl := &tile{core: image.Rect(0, 0, 40, 40), r: image.Rect(0, 0, 40, 40), scale: 1, glyph: true, pix: c.pix, pw: 40}
		readAs(t, c.name, tl, tsv, c.want)
	}
}

func TestDivideSignIsOneMark(t *testing.T) {
	// A row of keys as xcalc draws them, its last a "÷": a 7x1 bar with a 2x2 dot two
	// pixels above and below it, each a mark too small to be read alone. The three are
	// one member of the row's strip, whose segment shows all three, not a bar and a dot
	// side by side ("+" and "." read, the dot above left in the bar's crop).
	const W, H = 300, 50
	g, fill := canvas(W, H, 250, 10)
	threeKeys(fill)
	fill(140, 16, 147, 17) // bar
	fill(142, 12, 144, 14) // dots
	fill(142, 19, 144, 21)
	m := findInk(g, newBackground(g, 2), 2)
	ls, us := m.units(m.lines())
	if len(us) != 1 || len(us[0].idx) != 4 {
		t.Fatalf("units %+v, want one strip of 4", us)
	}
	div := ls[us[0].idx[3]]
	if div.r != image.Rect(140, 12, 147, 21) {
		t.Fatalf("last member %v, want the whole sign (140,12)-(147,21)", div.r)
	}
	img, segs := m.strip(ls, us[0])
	s := segs[3]
	if got := signOf(inkOf(img.Pix, img.Stride, image.Rect(s.x0, 0, s.x1, img.Rect.Dy()))); got != "÷" {
		t.Fatalf("the sign's segment reads %q from its ink, want ÷", got)
	}
}

func TestUnreadDivideSign(t *testing.T) {
	// tesseract reads nothing of a "÷" alone in a tile (a list's cell): its ink is the
	// sign. A tile read as something, or whose ink is no sign, adds nothing.
	div, fill := canvas(40, 40, 255, 0)
	fill(19, 9, 22, 12)
	fill(12, 18, 28, 20)
	fill(19, 26, 22, 29)
	plus, fillP := canvas(40, 40, 255, 0)
	fillP(19, 8, 21, 24)
	fillP(12, 15, 28, 17)
	tl := func(pix []byte) *tile {
		return &tile{core: image.Rect(100, 200, 140, 240), r: image.Rect(100, 200, 140, 240), scale: 1, glyph: true, pix: pix, pw: 40}
	}
	read := "5\t2\t1\t1\t1\t1\t12\t8\t16\t16\t90\t-\n" // page 2 only
	tiles := []*tile{tl(div.Pix), tl(div.Pix), tl(plus.Pix)}
	parseTSV([]byte(read), tiles, 0)
	got := unread(tiles)
	if len(got) != 1 || got[0].Text != "÷" || got[0].X != 102 || got[0].Y != 202 {
		t.Fatalf("got %+v, want one ÷ at the first tile's core", got)
	}
}

func TestRaisedFigureIsASuperscript(t *testing.T) {
	// The English model has no "²": tesseract reads "x²" as "x2" or "x?". A last figure
	// whose ink ends above the middle of the word's other ink is raised; a "2" on the
	// baseline stays, and so does a "?" (its dot on the baseline).
	raised, fillR := canvas(40, 40, 255, 0)
	fillR(8, 16, 18, 30) // x
	fillR(21, 8, 27, 18) // small 2, raised
	level, fillL := canvas(40, 40, 255, 0)
	fillL(8, 16, 18, 30)
	fillL(21, 14, 30, 30) // 2 on the baseline
	for _, c := range []struct {
		name       string
		pix        []byte
		read, want string
	}{{"x² read x2", raised.Pix, "x2", "x²"}, {"x² read x?", raised.Pix, "x?", "x²"}, {"x2", level.Pix, "x2", "x2"}, {"a?", level.Pix, "a?", "a?"}} {
		tsv := "5\t1\t1\t1\t1\t1\t6\t6\t28\t28\t90\t" + c.read + "\n"
		tl := &tile{core: image.Rect(0, 0, 40, 40), r: image.Rect(0, 0, 40, 40), scale: 1, pix: c.pix, pw: 40}
		readAs(t, c.name, tl, tsv, c.want)
	}
}

func TestUnderscoreJoinsAName(t *testing.T) {
	// tesseract cuts "courtyard_final" at its underscore into two words a few pixels
	// apart: they are one. Words a space apart stay two, underscore or not.
	ws := []Box{
		{Text: "courtyard", X: 10, Y: 10, Width: 60, Height: 16, Confidence: 40},
		{Text: "_final", X: 72, Y: 10, Width: 36, Height: 16, Confidence: 30},
		{Text: "and", X: 114, Y: 10, Width: 24, Height: 16},
		{Text: "_x", X: 146, Y: 10, Width: 14, Height: 16},
	}
	var got []string
	for _, l := range groupLines(ws) {
		for _, w := range l {
			got = append(got, w.Text)
		}
	}
	if !slices.Equal(got, []string{"courtyard_final", "and", "_x"}) {
		t.Fatalf("words %q", got)
	}
	if b := groupLines(ws)[0][0]; b.X != 10 || b.Width != 98 || b.Confidence != 30 {
		t.Fatalf("joined box %+v, want x 10 width 98 confidence 30", b)
	}
}

func TestUnderscoreInTheGapJoinsTheWords(t *testing.T) {
	// A bold underscore two pixels below the baseline, between two words of a line's
	// tile, that tesseract read as a space (FLUID's "order_window" read "order" and
	// "window"): the words are one, joined by it. The same words a space apart, or
	// underlined from end to end (a link), stay two; so do words of a glyph's tile.
	words := []Box{{Text: "order", X: 110, Y: 58, Width: 40, Height: 12, Confidence: 91},
		{Text: "window", X: 161, Y: 58, Width: 48, Height: 12, Confidence: 90}}
	draw := func(line func(fill func(x0, y0, x1, y1 int))) *tile {
		g, fill := canvas(140, 40, 255, 0)
		for _, w := range words {
			for x := w.X - 100; x+4 <= w.X-100+w.Width; x += 6 {
				fill(x, 8, x+4, 20) // the letters, at 100,50 on the screen
			}
		}
		line(fill)
		return &tile{crop: g, r: image.Rect(100, 50, 240, 90)}
	}
	texts := func(ws []Box) []string {
		var out []string
		for _, w := range ws {
			out = append(out, w.Text)
		}
		return out
	}
	under := draw(func(fill func(x0, y0, x1, y1 int)) { fill(50, 22, 60, 23) })
	got := under.underscores(words)
	if !slices.Equal(texts(got), []string{"order_window"}) {
		t.Fatalf("underscore: words %q, want one", texts(got))
	}
	if b := got[0]; b.X != 110 || b.Width != 99 || b.Confidence != 90 {
		t.Errorf("joined box %+v, want x 110 width 99 confidence 90", b)
	}
	for name, tl := range map[string]*tile{
		"space":     draw(func(func(x0, y0, x1, y1 int)) {}),
		"underline": draw(func(fill func(x0, y0, x1, y1 int)) { fill(10, 22, 110, 23) }),
		"glyph": func() *tile {
			t := draw(func(fill func(x0, y0, x1, y1 int)) { fill(50, 22, 60, 23) })
			t.glyph = true
			return t
		}(),
	} {
		if got := texts(tl.underscores(words)); !slices.Equal(got, []string{"order", "window"}) {
			t.Errorf("%s: words %q, want two", name, got)
		}
	}
}

func TestBitmapPeriodIsNoComma(t *testing.T) {
	// A bitmap font's period (a dot as tall as wide on the baseline, a pixel below it),
	// upscaled, comes back from tesseract as ",": "1,84" is "1.84"; a comma's tail makes
	// it taller than wide and it stays, and a reading whose points do not match the ink
	// is kept.
	word := func(point [4]int) []byte {
		g, fill := canvas(60, 40, 255, 0)
		fill(6, 10, 10, 30) // 1
		fill(22, 10, 30, 30)
		fill(34, 10, 42, 30) // 8 4
		fill(point[0], point[1], point[2], point[3])
		return g.Pix
	}
	period := word([4]int{14, 26, 19, 31})
	comma := word([4]int{14, 26, 18, 34})
	// A bold oblique Courier's comma (xterm's "tags,"): a wedge as wide as tall, leaning
	// down to the left.
	wedge := word([4]int{16, 26, 20, 28})
	for y, x := 28, 15; y < 32; y, x = y+1, x-1 {
		wedge[y*60+x], wedge[y*60+x+1], wedge[y*60+x+2] = 0, 0, 0
	}
	readInk(t, 60, 40, image.Rect(4, 8, 46, 36), []inkCase{{"period", period, "1,84", "1.84"}, {"comma", comma, "1,84", "1,84"}, {"two points read", period, "1,8,4", "1,8,4"},
		{"wedge comma", wedge, "1,84", "1,84"}})
}

func TestUnsmoothedHyphenIsNoAsterisk(t *testing.T) {
	// Java's Metal look draws DejaVu Sans unsmoothed; its 12 px hyphen is a 3 px square,
	// upscaled a solid block in the middle of the letters' height, and tesseract reads
	// "BP-3107" as "BP*3107". An asterisk's spokes at the top of the band stay a "*", and
	// a reading whose dashes do not match the ink is kept.
	word := func(mark func(fill func(x0, y0, x1, y1 int))) []byte {
		g, fill := canvas(80, 40, 255, 0)
		fill(6, 10, 18, 28) // B
		fill(40, 10, 52, 28)
		fill(56, 10, 68, 28) // 3 1
		mark(fill)
		return g.Pix
	}
	hyphen := word(func(fill func(x0, y0, x1, y1 int)) { fill(26, 16, 32, 22) })
	star := word(func(fill func(x0, y0, x1, y1 int)) {
		fill(28, 10, 30, 16) // spokes: a cross with the diagonals' ends
		fill(25, 12, 33, 14)
		fill(25, 10, 27, 11)
		fill(31, 10, 33, 11)
		fill(25, 15, 27, 16)
		fill(31, 15, 33, 16)
	})
	readInk(t, 80, 40, image.Rect(4, 8, 72, 32), []inkCase{{"hyphen", hyphen, "B*31", "B-31"}, {"asterisk", star, "B*31", "B*31"}, {"two dashes read", hyphen, "B*3*1", "B*3*1"}})
}

func TestFiguresFromInk(t *testing.T) {
	// Two parts: a block (a capital B, or a figure 1) and a glyph drawn by mark. A "1"
	// with a foot bar read "l" beside a capital is a "1"; a bare stem, or an l among
	// lower-case letters, stays. A zero (closed on its right side, a dot inside) read
	// "6" is a "0"; a 6, open on the right between its hook and its bowl, stays. A "4"
	// (standing on its stem's foot) read "d" is a "4"; a d, its bowl on the baseline,
	// stays.
	word := func(mark func(fill func(x0, y0, x1, y1 int))) []byte {
		g, fill := canvas(60, 40, 255, 0)
		fill(6, 10, 18, 30)
		mark(fill)
		return g.Pix
	}
	one := word(func(fill func(x0, y0, x1, y1 int)) {
		fill(28, 10, 32, 30) // stem
		fill(24, 27, 36, 30) // foot
		fill(25, 10, 28, 13) // flag
	})
	stem := word(func(fill func(x0, y0, x1, y1 int)) { fill(28, 10, 32, 30) })
	box := func(fill func(x0, y0, x1, y1 int)) {
		fill(24, 10, 38, 13) // top
		fill(24, 27, 38, 30) // bottom
		fill(24, 10, 27, 30) // left
		fill(29, 18, 33, 22) // dot
	}
	zero := word(func(fill func(x0, y0, x1, y1 int)) { box(fill); fill(35, 10, 38, 30) })
	six := word(func(fill func(x0, y0, x1, y1 int)) { box(fill); fill(35, 19, 38, 30); fill(27, 18, 38, 20) })
	four := word(func(fill func(x0, y0, x1, y1 int)) {
		fill(32, 10, 35, 30) // stem
		fill(24, 22, 38, 24) // bar, from the diagonal's foot
		fill(24, 16, 27, 22)
		fill(27, 13, 30, 16) // the diagonal
		fill(30, 28, 38, 30) // the stem's foot
	})
	d := word(func(fill func(x0, y0, x1, y1 int)) {
		fill(34, 10, 37, 30) // stem
		fill(24, 18, 34, 20) // the bowl
		fill(24, 28, 34, 30)
		fill(24, 18, 27, 30)
	})
	readInk(t, 60, 40, image.Rect(4, 8, 44, 34), []inkCase{{"one", one, "Bl", "B1"}, {"stem", stem, "Bl", "Bl"}, {"lower case", one, "al", "al"},
		{"zero", zero, "16", "10"}, {"six", six, "16", "16"}, {"four", four, "Ad", "A4"}, {"d", d, "Ad", "Ad"}})
}

func TestLetterSpacedLineIsOneLine(t *testing.T) {
	// A proportional font in a terminal's cells spreads its letters: x-height letters 7
	// pixels tall, 5 apart, one pair 8 apart (a narrow "r" before an "n"). The line
	// reaches twice its letters' mean gap, not only its height: one line. Letters a
	// pixel apart and a gap of 9 are two lines.
	g, fill := canvas(300, 60, 250, 20)
	for _, x := range []int{10, 20, 30, 43, 53} {
		fill(x, 10, x+5, 17)
	}
	for _, x := range []int{10, 16, 22, 37, 43} {
		fill(x, 40, x+5, 47)
	}
	m := findInk(g, newBackground(g, 2), 2)
	var got []image.Rectangle
	for _, l := range m.lines() {
		got = append(got, l.r)
	}
	want := []image.Rectangle{image.Rect(10, 10, 58, 17), image.Rect(10, 40, 27, 47), image.Rect(37, 40, 48, 47)}
	slices.SortFunc(got, func(a, b image.Rectangle) int { return (a.Min.Y-b.Min.Y)*1000 + a.Min.X - b.Min.X })
	if !slices.Equal(got, want) {
		t.Fatalf("lines %v, want %v", got, want)
	}
}

// readAs checks that tile tl reads as want from tesseract's TSV.
func readAs(t *testing.T, name string, tl *tile, tsv, want string) {
	t.Helper()
	got := parseTSV([]byte(tsv), []*tile{tl}, 0)
	if len(got) != 1 || got[0].Text != want {
		t.Errorf("%s: got %+v, want %q", name, got, want)
	}
}

// inkCase is a word's ink (a w-wide tile's pixels), tesseract's reading of it and the
// reading parseTSV should give.
type inkCase struct {
	name       string
	pix        []byte
	read, want string
}

// readInk parses each case's reading, boxed at box, of a tile of w by h pixels at scale 1.
func readInk(t *testing.T, w, h int, box image.Rectangle, cases []inkCase) {
	t.Helper()
	for _, c := range cases {
		tsv := fmt.Sprintf("5\t1\t1\t1\t1\t1\t%d\t%d\t%d\t%d\t80\t%s\n", box.Min.X, box.Min.Y, box.Dx(), box.Dy(), c.read)
		tl := &tile{core: image.Rect(0, 0, w, h), r: image.Rect(0, 0, w, h), scale: 1, pix: c.pix, pw: w}
		readAs(t, c.name, tl, tsv, c.want)
	}
}

func TestInklessBoxKeepsItsReading(t *testing.T) {
	// A word whose box holds no ink (tesseract's box over white) keeps its reading.
	g, _ := canvas(40, 40, 255, 0)
	tl := &tile{core: image.Rect(0, 0, 40, 40), r: image.Rect(0, 0, 40, 40), scale: 1, pix: g.Pix, pw: 40}
	readAs(t, "blank", tl, "5\t1\t1\t1\t1\t1\t4\t8\t30\t20\t80\t1,84\n", "1,84")
}

func TestLetterInACursorCellStays(t *testing.T) {
	// A text cursor on a letter: a box one character wide and taller than the letters,
	// hollow around the letter with its sides touching it (xmore), or filled with the
	// letter cut out of it (xedit). The box stands out of the line's band and is no text;
	// the letter in it is, in the line's polarity.
	const W, H = 200, 80
	g, fill := canvas(W, H, 250, 20)
	letters := func(y int) {
		for _, x := range []int{20, 30, 50, 60, 70} {
			fill(x, y, x+6, y+9)
		}
	}
	letters(12)
	fill(39, 8, 47, 9) // the hollow cell: top, bottom, sides
	fill(39, 23, 47, 24)
	fill(39, 8, 40, 24)
	fill(46, 8, 47, 24)
	fill(40, 12, 41, 21) // a U touching its sides
	fill(45, 12, 46, 21)
	fill(40, 20, 46, 21)
	letters(52)
	fill(39, 48, 47, 64) // the filled cell, a U cut out of it
	for y := 52; y < 61; y++ {
		g.Pix[y*W+41], g.Pix[y*W+44] = 250, 250
	}
	for x := 41; x < 45; x++ {
		g.Pix[60*W+x] = 250
	}
	m := findInk(g, newBackground(g, 2), 2)
	ls := m.lines()
	if len(ls) != 2 {
		t.Fatalf("lines %+v, want 2", ls)
	}
	for _, c := range []struct {
		at   image.Point
		want image.Rectangle
	}{{image.Pt(40, 15), image.Rect(40, 12, 46, 21)}, {image.Pt(41, 55), image.Rect(41, 52, 45, 61)}} {
		ci := m.comp[c.at.Y*W+c.at.X]
		if ci < 0 || m.comps[ci].frame || m.comps[ci].line < 0 || m.comps[ci].r != c.want || m.comps[ci].light() {
			t.Errorf("the letter at %v: component %d %+v, want a dark letter at %v in a line", c.at, ci, m.comps[max(0, ci)], c.want)
		}
	}
	for _, l := range ls {
		if l.r.Dy() != 9 {
			t.Errorf("line %v: the cell is in it", l.r)
		}
	}
}

func TestLetterCutOutOfACursorWithItsCounter(t *testing.T) {
	// xedit's cursor on the D of "Dear" in a serif font: a filled cell with the letter
	// cut out of it, its bowl touching the cell's side, and its counter an island of the
	// cell's ink, so that the cell's own ink is under half its inside. The counter is the
	// letter's hole: the letter stays.
	const W, H = 200, 40
	g, fill := canvas(W, H, 250, 20)
	for _, x := range []int{20, 30, 50, 60, 70} {
		fill(x, 12, x+6, 21)
	}
	fill(39, 8, 47, 25) // the cell
	for x := 40; x < 46; x++ {
		g.Pix[11*W+x], g.Pix[21*W+x] = 250, 250 // an O cut out of it
	}
	for y := 11; y < 22; y++ {
		g.Pix[y*W+40], g.Pix[y*W+45] = 250, 250
	}
	for y := 14; y < 19; y++ {
		g.Pix[y*W+46] = 250 // the bowl touches the side
	}
	m := findInk(g, newBackground(g, 2), 2)
	ls := m.lines()
	ci := m.comp[15*W+40]
	if len(ls) != 1 || ci < 0 || m.comps[ci].frame || m.comps[ci].line != 0 || m.comps[ci].r != image.Rect(40, 11, 46, 22) {
		t.Fatalf("lines %+v; the letter: component %d, want a letter at (40,11)-(46,22) in the line", ls, ci)
	}
	if c := m.comp[15*W+42]; c >= 0 {
		t.Errorf("the counter is ink: component %d", c)
	}
}

func TestFaintTextFragmentsKeepItsLetters(t *testing.T) {
	// Grey text on a dark theme breaks at the ink threshold into whole letters and
	// fragments of strokes a pixel or two high; the letters are no frames for standing
	// out of the fragments' band (qt-dark's "Estimated time left: 42" lost its "E", "l"
	// and "4").
	const W, H = 160, 40
	g, fill := canvas(W, H, 60, 120)
	for _, x := range []int{20, 50, 80} {
		fill(x, 12, x+5, 20) // letters
	}
	for _, x := range []int{28, 34, 40, 58, 64, 70, 88} {
		fill(x, 17, x+3, 19) // fragments on the baseline
	}
	lineKeeps(t, g, image.Rect(20, 12, 91, 20), image.Pt(20, 15), image.Pt(50, 15), image.Pt(80, 15))
}

// lineKeeps finds the lines of g and checks that there is one, at want, holding the
// letters at the points given.
func lineKeeps(t *testing.T, g *image.Gray, want image.Rectangle, letters ...image.Point) {
	t.Helper()
	m := findInk(g, newBackground(g, 2), 2)
	ls := m.lines()
	if len(ls) != 1 || ls[0].r != want {
		t.Fatalf("lines %+v, want one at %v", ls, want)
	}
	for _, p := range letters {
		if c := m.comp[p.Y*g.Rect.Dx()+p.X]; c < 0 || m.comps[c].frame || m.comps[c].line != 0 {
			t.Errorf("the letter at %v is not in the line", p)
		}
	}
}

func TestUnderlinedMnemonicKeepsItsLetters(t *testing.T) {
	// A mnemonic's underline (GTK's "_View") touches the letter above it: the letters and
	// the bar, one component standing out of the line's band above and below, were a
	// frame. The bar goes; the letters stay in the line.
	const W, H = 140, 40
	g, fill := canvas(W, H, 250, 20)
	fill(30, 10, 32, 21) // two tall letters on the bar
	fill(36, 10, 38, 21)
	fill(29, 21, 39, 23) // the underline
	for _, x := range []int{45, 55, 65, 75} {
		fill(x, 14, x+6, 21)
	}
	lineKeeps(t, g, image.Rect(30, 10, 81, 21), image.Pt(30, 15), image.Pt(36, 15))

	// An oval button's ring around its label (xclipboard's) has a bottom as wide as the
	// label, far wider than a letter: no underline, it stays whole.
	g, fill = canvas(W, H, 250, 20)
	fill(20, 5, 46, 6) // a ring 26 wide, too short for removeLines
	fill(20, 5, 21, 30)
	fill(45, 5, 46, 30)
	fill(20, 29, 46, 30)
	m := findInk(g, newBackground(g, 2), 2)
	if kids := m.underlined(int(m.comp[29*W+30]), 9); kids != nil {
		t.Errorf("a ring's bottom taken for an underline: %d components left", len(kids))
	}
}

func TestBitmapColonIsNoFigure(t *testing.T) {
	// xterm's 6x13 colon, upscaled, comes back from tesseract as a "3": "23:16" read
	// "23316". A figure inside a word whose ink is two dots one above the other is a
	// colon; a letter read there, a reading whose characters do not match the ink's
	// parts, and dots joined into a stroke are kept.
	word := func(joined bool) []byte {
		g, fill := canvas(80, 40, 255, 0)
		for _, x := range []int{4, 16, 44, 56} {
			fill(x, 10, x+8, 30) // 2 3 1 6
		}
		fill(32, 14, 36, 18) // the colon's dots
		fill(32, 24, 36, 28)
		if joined {
			fill(33, 18, 35, 24)
		}
		return g.Pix
	}
	for _, c := range []struct {
		name       string
		joined     bool
		read, want string
	}{{"colon", false, "23316", "23:16"}, {"letter", false, "23a16", "23a16"}, {"parts", false, "2316", "2316"},
		{"joined", true, "23316", "23316"}} {
		tsv := "5\t1\t1\t1\t1\t1\t2\t8\t66\t24\t80\t" + c.read + "\n"
		tl := &tile{core: image.Rect(0, 0, 80, 40), r: image.Rect(0, 0, 80, 40), scale: 1, pix: word(c.joined), pw: 80}
		readAs(t, c.name, tl, tsv, c.want)
	}
}

func TestCaretTouchingALetterKeepsIt(t *testing.T) {
	// An editor's caret at the start of a word (Geany's, one pixel wide and taller than
	// the text) touches its first letter: the two were one component standing out of the
	// band, a frame, and "Meeting" read "eting". The caret goes, the letter stays.
	const W, H = 120, 40
	g, fill := canvas(W, H, 250, 20)
	fill(29, 6, 30, 28) // the caret
	for _, x := range []int{30, 40, 50, 60} {
		fill(x, 12, x+6, 21)
	}
	lineKeeps(t, g, image.Rect(30, 12, 66, 21), image.Pt(31, 15))
}

func TestOnlyLargeLightBarsThicken(t *testing.T) {
	// Three lines of "E"s: 13 px tall with bars of one pixel (a light face at a large
	// size: its bars are thickened), 13 px tall with bars of two (a regular face), and
	// 9 px tall with bars of one (small text, whose strokes are a pixel in any face).
	g, fill := canvas(200, 120, 250, 20)
	e := func(x, y, h, bar int) {
		fill(x, y, x+2, y+h)
		for _, by := range []int{y, y + (h-bar)/2, y + h - bar} {
			fill(x, by, x+8, by+bar)
		}
	}
	for k := 0; k < 4; k++ {
		e(20+12*k, 10, 13, 1)
		e(20+12*k, 50, 13, 2)
		e(20+12*k, 90, 9, 1)
	}
	m := findInk(g, newBackground(g, 2), 2)
	ls := m.lines()
	if len(ls) != 3 {
		t.Fatalf("%d lines, want 3: %+v", len(ls), ls)
	}
	for li, l := range ls {
		r, c := m.crop(li, l, l.r)
		// The row under the top bar of the first E, clear of its stem: inked only when
		// the bar was thickened.
		bar := map[int]int{10: 1, 50: 2, 90: 1}[l.r.Min.Y]
		v := c.Pix[(l.r.Min.Y+bar-r.Min.Y)*c.Stride+l.r.Min.X+5-r.Min.X]
		want := l.r.Min.Y == 10
		if got := v < 128; got != want {
			t.Errorf("line at y %d: the row under its bars inked %v, want %v", l.r.Min.Y, got, want)
		}
	}
}

// TestOnlyThickHardEdgesSmooth: only two-level ink with strokes 2 px or wider counts as
// hard-edged (docs/development.md, OCR): 1 px strokes and antialiased ink do not.
func TestOnlyThickHardEdgesSmooth(t *testing.T) {
	bars := func(width int, edge byte) *image.Gray {
		g := image.NewGray(image.Rect(0, 0, 40, 12))
		for i := range g.Pix {
			g.Pix[i] = 255
		}
		for y := 2; y < 10; y++ {
			for x0 := 4; x0+width < 36; x0 += 6 {
				for x := x0; x < x0+width; x++ {
					g.Pix[y*g.Stride+x] = 0
				}
				g.Pix[y*g.Stride+x0+width] = edge
			}
		}
		return g
	}
	for _, c := range []struct {
		width int
		edge  byte
		want  bool
	}{{2, 255, true}, {3, 255, true}, {1, 255, false}, {2, 128, false}} {
		if got := hardEdged(bars(c.width, c.edge)); got != c.want {
			t.Errorf("bars %d px wide, edge %d: hardEdged %v, want %v", c.width, c.edge, got, c.want)
		}
	}
	// Smoothing keeps a 2 px stroke's core dark and greys its edges.
	s := smooth(bars(2, 255))
	if core, edge := s.GrayAt(4, 5).Y, s.GrayAt(3, 5).Y; core > 64 || edge < 128 || edge == 255 {
		t.Errorf("smoothed stroke: core %d, edge %d", core, edge)
	}
}

// TestLightInkNeverJoinsDark: a light stroke touching a dark one (a light letter leaning
// on a button's black outline, on a mid-dark ground) is two components, each of its
// own polarity.
func TestLightInkNeverJoinsDark(t *testing.T) {
	const W, H = 80, 50
	g := image.NewGray(image.Rect(0, 0, W, H))
	for i := range g.Pix {
		g.Pix[i] = 60
	}
	for y := 15; y < 30; y++ {
		for x := 30; x < 34; x++ {
			g.Pix[y*W+x] = 230 // a light letter's stem
		}
		g.Pix[y*W+34] = 0 // the outline it touches
	}
	m := findInk(g, newBackground(g, 2), 2)
	light, dark := m.comp[20*W+31], m.comp[20*W+34]
	if light < 0 || dark < 0 {
		t.Fatalf("components %d and %d: a stroke is not ink", light, dark)
	}
	if light == dark {
		t.Fatalf("the light stroke and the dark one are one component (%d)", light)
	}
	if c := m.comps[light]; !c.light() || c.r != image.Rect(30, 15, 34, 30) {
		t.Errorf("light stroke: component %+v", c)
	}
	if c := m.comps[dark]; c.light() || c.r != image.Rect(34, 15, 35, 30) {
		t.Errorf("dark stroke: component %+v", c)
	}
}

// TestSurerReadingIsKept: a second reading replaces the first only when its least
// confident word is againGain more confident and it has no fewer words read with some
// confidence (see againConf).
func TestSurerReadingIsKept(t *testing.T) {
	read := func(cs ...float64) *tile {
		t := &tile{read: true}
		for _, c := range cs {
			t.boxes = append(t.boxes, Box{Text: "w", Confidence: c})
		}
		return t
	}
	for _, c := range []struct {
		name          string
		first, second *tile
		want          bool
	}{
		{"surer", read(96, 58), read(96, 89), true},
		{"a little surer", read(66, 97), read(69, 97), false},
		{"two words read as one", read(60, 70), read(81), false},
		{"a noise word gone", read(0, 96, 88), read(95, 96), true},
		{"nothing read first", read(), read(32), true},
		{"nothing read second", read(40), read(), false},
		{"less sure", read(89, 97), read(82, 97), false},
	} {
		if got := surer(c.first, c.second); got != c.want {
			t.Errorf("%s: surer = %v, want %v", c.name, got, c.want)
		}
	}
	low := read(96, 89)
	low.scale = 3
	if !low.again() {
		t.Error("a line read at 3x with a word under againConf is not read again")
	}
	for name, tl := range map[string]*tile{"sure": read(96, 92), "at againScale": read(96, 50), "a glyph": read(50)} {
		tl.scale = 3
		switch name {
		case "at againScale":
			tl.scale = againScale
		case "a glyph":
			tl.glyph = true
		}
		if tl.again() {
			t.Errorf("%s: read again", name)
		}
	}
}

// TestDoubtfulWordAloneIsReadAgain: of a line read with one doubtful word among sure
// ones, only that word (to halfway to its neighbours, with a white margin) is read a
// second time, and a surer second reading replaces that word alone; a line with nothing
// kept is read again whole.
func TestDoubtfulWordAloneIsReadAgain(t *testing.T) {
	crop := image.NewGray(image.Rect(0, 0, 300, 20))
	for i := range crop.Pix {
		crop.Pix[i] = byte(i % 251)
	}
	at := image.Pt(1000, 500)
	line := &tile{read: true, crop: crop, r: crop.Rect.Add(at), core: crop.Rect.Add(at).Inset(2), scale: 3}
	word := func(x int, text string, conf float64) Box {
		return Box{Text: text, Confidence: conf, X: at.X + x, Y: at.Y + 4, Width: 80, Height: 12}
	}
	line.boxes = []Box{word(10, "one", 96), word(110, "tvvo", 60), word(210, "three", 97)}
	if !line.again() {
		t.Fatal("the line is not read again")
	}
	twin := line.doubt()
	pad := crop.Rect.Dy() / 4
	// Halfway to the neighbours: 90..110 and 190..210.
	if want := image.Rect(at.X+100-pad, at.Y, at.X+200+pad, at.Y+20); twin.r != want {
		t.Errorf("read again: %v, want %v", twin.r, want)
	}
	if w := twin.crop.Rect.Dx(); w != 100+2*pad {
		t.Errorf("read again %d px wide, want %d", w, 100+2*pad)
	}
	for y := range 20 {
		if twin.crop.Pix[y*twin.crop.Stride] != 255 || twin.crop.Pix[y*twin.crop.Stride+pad] != crop.Pix[y*crop.Stride+100] {
			t.Fatalf("row %d: the margin is not white or the word's pixels are not the line's", y)
		}
	}
	twin.boxes = []Box{word(112, "two", 93)}
	got := reread(line.boxes, twin)
	var texts []string
	for _, b := range got {
		texts = append(texts, b.Text)
	}
	if want := []string{"one", "two", "three"}; !slices.Equal(texts, want) {
		t.Errorf("after the second reading: %q, want %q", texts, want)
	}
	twin.boxes = []Box{word(112, "tw0", 62)}
	if got := reread(line.boxes, twin); got[1].Text != "tvvo" {
		t.Errorf("a second reading not surer replaced the first: %q", got[1].Text)
	}
	line.boxes = nil
	if whole := line.doubt(); whole.r != line.r || whole.crop != crop {
		t.Errorf("a line with nothing kept is read again as %v, want the whole line %v", whole.r, line.r)
	}
}

// TestMonoPitch: a line is monospace when every step between its letters' left edges is
// one or two cells of their median, within two pixels (a quarter cell for small ones).
func TestMonoPitch(t *testing.T) {
	for _, c := range []struct {
		steps []int
		want  int
	}{
		{[]int{6, 6, 7, 6, 6}, 6},                // an upright terminal font
		{[]int{7, 9, 8, 7, 10}, 8},               // Courier oblique: letters lean out of their cells
		{[]int{15, 8, 9, 16, 7, 8, 8, 8, 16}, 8}, // two letters touching: a step of two cells
		{[]int{8, 8, 9}, 0},                      // too few steps to tell
		{[]int{3, 6, 9, 4, 6, 7}, 0},             // a proportional font's i, m, r
		{[]int{8, 8, 24, 8, 8}, 0},               // three cells is a gap, not a step
		{[]int{2, 6, 3, 4, 3, 5, 3}, 0},          // a pitch of 3 allows no spread
	} {
		l := line{steps: c.steps}
		if got := l.monoPitch(); got != c.want {
			t.Errorf("steps %v: pitch %d, want %d", c.steps, got, c.want)
		}
	}
}

func TestFigureHighOIsAZero(t *testing.T) {
	// A serif face's zero read "o" ("eth0" read "etho"): a last (or first) o whose ink
	// reaches from the baseline nearly to the ascenders' height is a zero; an x-height o
	// stays, and so does an o inside a word or in a word with no ascender, capital or
	// figure to tell the height by.
	word := func(tall bool, glyphs ...int) *image.Gray {
		g, fill := canvas(60, 40, 255, 0)
		for i, kind := range glyphs {
			x := 4 + 10*i
			switch {
			case kind == 'h':
				fill(x, 10, x+6, 30)
			case kind == 'o' && tall:
				fill(x, 11, x+7, 30)
			default:
				fill(x, 16, x+7, 30)
			}
		}
		return g
	}
	for _, c := range []struct {
		name       string
		g          *image.Gray
		read, want string
	}{
		{"tall last", word(true, 'e', 'h', 'o'), "eho", "eh0"},
		{"x-height last", word(false, 'e', 'h', 'o'), "eho", "eho"},
		{"tall first", word(true, 'o', 'h', 'e'), "ohe", "0he"},
		{"tall inside", word(true, 'h', 'o', 'e'), "hoe", "hoe"},
		{"no ascender", word(true, 'e', 'o'), "eo", "eo"},
	} {
		tsv := "5\t1\t1\t1\t1\t1\t2\t8\t36\t26\t90\t" + c.read + "\n"
		tl := &tile{core: image.Rect(0, 0, 60, 40), r: image.Rect(0, 0, 60, 40), scale: 1, pix: c.g.Pix, pw: 60, crop: c.g}
		readAs(t, c.name, tl, tsv, c.want)
	}
}

func TestXHeightZeroIsAnO(t *testing.T) {
	// An x-height o read "0" beside lower-case letters (PCManFM's "boreal-2026.ods" read
	// "boreal-2026.0ds"): its ink stays under four fifths of the word's tallest part, and
	// it is an o, also where two letters touch and the word has a part fewer than
	// characters. A figure-high zero stays, and so does a short zero among figures
	// (old-style figures).
	word := func(glyphs string) *image.Gray {
		g, fill := canvas(120, 40, 255, 0)
		x := 4
		for _, k := range glyphs {
			switch k {
			case 'T': // a figure or an ascender
				fill(x, 10, x+6, 30)
			case 'o': // x-height
				fill(x, 16, x+7, 30)
			case 'W': // two x-height letters touching
				fill(x, 16, x+15, 30)
				x += 8
			case '.':
				fill(x, 27, x+3, 30)
			}
			x += 10
		}
		return g
	}
	for _, c := range []struct {
		name, glyphs, read, want string
	}{
		{"extension", "o.oTo", "a.0ds", "a.ods"},
		{"letters touching before", "W.oTo", "re.0ds", "re.ods"},
		{"figure-high zero", "o.TTo", "a.0ds", "a.0ds"},
		{"among figures", "ToTT", "2026", "2026"},
	} {
		g := word(c.glyphs)
		tsv := "5\t1\t1\t1\t1\t1\t2\t8\t110\t26\t90\t" + c.read + "\n"
		tl := &tile{core: image.Rect(0, 0, 120, 40), r: image.Rect(0, 0, 120, 40), scale: 1, pix: g.Pix, pw: 120, crop: g}
		readAs(t, c.name, tl, tsv, c.want)
	}
}

func TestBevelledKeysAreNoText(t *testing.T) {
	// A row of four one-glyph keys drawn raised (Tk's bevelled buttons): each key's
	// shadow, its right and bottom sides 4 px thick, is one L-shaped component around the
	// glyph, as tall as the key. There are as many shadows as glyphs, so that the line's
	// median height was a shadow's, and the whole row was read as one 36 px line at 1x
	// ("7) 8) 9) ¢]"). The shadows are frames; the glyphs, far apart once they are gone,
	// are one strip.
	const W, H = 220, 50
	g, fill := canvas(W, H, 220, 20)
	for k := 0; k < 4; k++ {
		x := 10 + 48*k
		fill(x+36, 4, x+40, 40) // right side
		fill(x, 36, x+40, 40)   // bottom side
		fill(x+14, 16, x+22, 28)
	}
	m := findInk(g, newBackground(g, 2), 2)
	ls, us := m.units(m.lines())
	if len(us) != 1 || len(us[0].idx) != 4 || us[0].band.Min.Y != 16 || us[0].band.Max.Y != 28 {
		t.Fatalf("units %+v (lines %+v), want one strip of the 4 glyphs over rows 16 to 28", us, ls)
	}
	if c := m.comp[30*W+47]; c < 0 || !m.comps[c].frame {
		t.Errorf("the first key's shadow is not a frame: component %d", c)
	}
}

func TestPeriodKeyKeepsApartFromMarksBelow(t *testing.T) {
	// A row of keys whose last is a "." on the baseline, and 10 px under it a short
	// dash (a window's bottom grip, Tk's keypad drawn close above it): each a mark. The
	// dot's centre lies over the dash and the gap was under half the dash's width, so the
	// two were joined as a "÷"'s parts are and the key was lost. Parts of one sign stand
	// closer than twice the smaller's size.
	const W, H = 300, 50
	g, fill := canvas(W, H, 250, 10)
	threeKeys(fill)
	fill(140, 21, 142, 23) // the period
	fill(128, 33, 154, 34) // the dash
	m := findInk(g, newBackground(g, 2), 2)
	ls, us := m.units(m.lines())
	if len(us) != 1 || len(us[0].idx) != 4 {
		t.Fatalf("units %+v, want one strip of 4", us)
	}
	if dot := ls[us[0].idx[3]]; dot.r != image.Rect(140, 21, 142, 23) {
		t.Fatalf("last member %v, want the period alone (140,21)-(142,23)", dot.r)
	}
}

// threeKeys draws the glyphs of three keys in a row as xcalc draws them: a "1" (a 3x13
// bar) and two wider glyphs, on rows 10 to 23.
func threeKeys(fill func(x0, y0, x1, y1 int)) {
	fill(20, 10, 23, 23)
	fill(60, 10, 68, 23)
	fill(100, 10, 108, 23)
}

// TestCelled: on a monospace line two words meeting at a period closer than three
// quarters of a cell are one; a word space (a blank cell) keeps them apart, and so does
// any gap on another line or between words without a period.
func TestCelled(t *testing.T) {
	word := func(text string, x, w int) Box {
		return Box{Text: text, Confidence: 90, X: x, Y: 10, Width: w, Height: 12}
	}
	ws := []Box{word("latest", 639, 48), word("README", 551, 48), word(".md", 601, 22)}
	var got []string
	for _, b := range celled(ws, 8) {
		got = append(got, fmt.Sprintf("%s@%d+%d", b.Text, b.X, b.Width))
	}
	if want := []string{"README.md@551+72", "latest@639+48"}; !slices.Equal(got, want) {
		t.Errorf("pitch 8: %q, want %q", got, want)
	}
	if got := celled(ws, 0); len(got) != 3 {
		t.Errorf("no pitch: %d words, want 3", len(got))
	}
	// A gap of 6 is three quarters of 8: a blank cell less an oblique face's lean.
	if got := celled([]Box{word("db-2.", 100, 30), word("(port", 136, 40)}, 8); len(got) != 2 {
		t.Errorf("a word space joined: %v", got)
	}
	// Only words meeting at a period are joined.
	if got := celled([]Box{word("tray", 540, 28), word("was", 573, 22)}, 8); len(got) != 2 {
		t.Errorf("words without a period joined: %v", got)
	}
}

// TestCellPitch: a line is known to be monospace by its letters' centres when a narrow
// glyph (a period) takes a whole cell; evenly stepping letters with none are not, nor
// are letters whose narrow one steps less than a cell (a proportional font's l).
func TestCellPitch(t *testing.T) {
	for _, c := range []struct {
		name  string
		cells []int // glyph widths, one a cell of 8; 0 a period
		step  int   // a narrow glyph's step to the next, 0 for a cell
		want  int
	}{
		{"monospace with a period", []int{5, 5, 5, 5, 0, 5, 5, 5}, 0, 8},
		{"no narrow glyph", []int{5, 5, 5, 5, 5, 5, 5, 5}, 0, 0},
		{"a proportional l", []int{5, 5, 5, 5, 2, 5, 5, 5}, 5, 0},
	} {
		g, fill := canvas(120, 40, 255, 0)
		x := 4
		for _, w := range c.cells {
			switch {
			case w == 0:
				fill(x+3, 23, x+5, 26) // a period, centred, on the baseline
			case w == 2 && c.step > 0:
				fill(x, 14, x+2, 26)
				x += c.step - 8
			default:
				fill(x+(8-w)/2, 14, x+(8-w)/2+w, 26)
			}
			x += 8
		}
		m := findInk(g, newBackground(g, 2), 2)
		ls := m.lines()
		if len(ls) != 1 {
			t.Fatalf("%s: %d lines, want 1", c.name, len(ls))
		}
		if got := m.cellPitch(ls[0]); got != c.want {
			t.Errorf("%s: cell %d, want %d", c.name, got, c.want)
		}
	}
}

func TestLettersTouchingABorderKeepTheirRows(t *testing.T) {
	// A list's 1 px border, 66 px tall, with each row's first letter touching it from
	// inside (Tk's listbox in P052 italic): the border was not thin (letters stand within
	// two pixels of it), border and letters were one component, and the four rows one
	// line ("rect,"). It goes, and each row is a line of its own.
	const W, H = 160, 100
	g, fill := canvas(W, H, 255, 20)
	fill(20, 10, 21, 76) // the border
	for y := 16; y < 70; y += 16 {
		fill(21, y, 24, y+9) // a first letter touching it
		for x := 28; x < 100; x += 8 {
			fill(x, y, x+5, y+9)
		}
	}
	m := findInk(g, newBackground(g, 2), 2)
	ls := m.lines()
	if len(ls) != 4 {
		t.Fatalf("%d lines %+v, want one per row", len(ls), ls)
	}
	rows := map[image.Rectangle]bool{}
	for _, l := range ls {
		rows[l.r] = true
	}
	for y := 16; y < 70; y += 16 {
		if want := image.Rect(21, y, 97, y+9); !rows[want] {
			t.Errorf("no line at %v: %+v", want, ls)
		}
	}

	// A text view's frame, a light band 4 px wide on a dark view, that the rows' first
	// letters touch with a serif (yad's text-info, gold on purple): band and letters were
	// one component, a frame, and each row lost its first letter ("Reminder:" was not
	// read). The band goes, and the letters stay in their rows.
	g, fill = canvas(W, H, 60, 230)
	fill(16, 5, 20, 95) // the band
	for y := 16; y < 70; y += 16 {
		fill(20, y+7, 23, y+9) // a serif touching it
		for x := 22; x < 100; x += 8 {
			fill(x, y, x+5, y+9)
		}
	}
	m = findInk(g, newBackground(g, 2), 2)
	if ls := m.lines(); len(ls) != 4 {
		t.Fatalf("%d lines %+v, want one per row", len(ls), ls)
	}
	for y := 16; y < 70; y += 16 {
		if c := m.comp[(y+3)*W+24]; c < 0 || m.comps[c].frame || m.comps[c].line < 0 {
			t.Errorf("the first letter of the row at %d is not in it", y)
		}
	}
}

func TestBevelTouchedByLettersKeepsThem(t *testing.T) {
	// A Motif pane's bevel, three 1 px lines a pixel apart, 90 px tall, with each row's
	// first letter touching the inner line from inside (mgdiff's text, Courier bold): no
	// line of it was thin or an edge (the next line lies two pixels out), bevel and first
	// letters were one component, and every row lost its first letter ("Quarterly" read
	// "rterly"). The bevel goes, and each row is a line of its own with its first letter.
	const W, H = 160, 110
	g, fill := canvas(W, H, 190, 0)
	for x := 16; x <= 20; x += 2 {
		fill(x, 5, x+1, 95) // the bevel's lines
	}
	for y := 16; y < 80; y += 16 {
		fill(21, y, 24, y+9) // a first letter touching the inner line
		for x := 28; x < 100; x += 8 {
			fill(x, y, x+5, y+9)
		}
	}
	m := findInk(g, newBackground(g, 2), 2)
	if ls := m.lines(); len(ls) != 4 {
		t.Fatalf("%d lines %+v, want one per row", len(ls), ls)
	}
	for y := 16; y < 80; y += 16 {
		if c := m.comp[(y+3)*W+22]; c < 0 || m.comps[c].frame || m.comps[c].line < 0 || m.comps[c].r.Min.X != 21 {
			t.Errorf("the first letter of the row at %d is not in it", y)
		}
	}
}

func TestBadgesReadTheirLetters(t *testing.T) {
	// Three badges side by side, 16 px tall, too small to seed a background of their own:
	// light letters on dark green, dark letters on amber, light letters on purple
	// (Chromium's "On time", "Delayed 40 min", "Cancelled"). The amber one, its letters of
	// its own polarity, was one solid bar and no text; of the others, one line, only the
	// first was opened. Every badge's letters are in a line.
	const W, H = 280, 40
	g, _ := canvas(W, H, 245, 0)
	fill := func(x0, y0, x1, y1 int, v byte) {
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				g.Pix[y*W+x] = v
			}
		}
	}
	badges := []struct {
		x0, x1   int
		bg, text byte
	}{{10, 68, 100, 245}, {74, 173, 170, 40}, {179, 248, 60, 240}}
	for _, b := range badges {
		fill(b.x0, 12, b.x1, 28, b.bg)
		for x := b.x0 + 4; x+3 <= b.x1-4; x += 5 {
			fill(x, 15, x+3, 24, b.text)
		}
	}
	m := findInk(g, newBackground(g, 2), 2)
	m.lines()
	for _, b := range badges {
		if c := m.comp[18*W+b.x0+4]; c < 0 || m.comps[c].frame || m.comps[c].line < 0 {
			t.Errorf("the letters of the badge at x %d (%d on %d) are in no line", b.x0, b.text, b.bg)
		}
	}
}

func TestDottedFocusRectangleIsNoInk(t *testing.T) {
	// A focused row's dotted rectangle (GTK 2's, one pixel of ink, one clear) two pixels
	// around its text: its dots were marks the crop kept along the text's top and side,
	// and tesseract read nothing of PCManFM's "acme-march.pdf". They go, as a solid
	// line does; the letters stay.
	const W, H = 160, 60
	g, fill := canvas(W, H, 250, 30)
	for x := 10; x < 140; x += 2 {
		fill(x, 8, x+1, 9)
		fill(x, 48, x+1, 49)
	}
	for y := 8; y < 49; y += 2 {
		fill(10, y, 11, y+1)
	}
	for x := 16; x < 120; x += 8 {
		fill(x, 22, x+5, 34)
	}
	m := findInk(g, newBackground(g, 2), 2)
	for _, p := range []image.Point{{40, 8}, {40, 48}, {10, 30}} {
		if c := m.comp[p.Y*W+p.X]; c >= 0 {
			t.Errorf("the dot at %v is ink (component %d)", p, c)
		}
	}
	if m.comp[28*W+16] < 0 {
		t.Error("a letter was erased")
	}
}

// TestTileWriteAllocatesItsSize checks that writing a line's image allocates about its own
// size: a dense screen writes 60 of them a call, and a 1 MB buffer for each cost w365
// more CPU than the rest of its work on the lines (memory cleared for each).
func TestTileWriteAllocatesItsSize(t *testing.T) {
	pix := bytes.Repeat([]byte{255}, 400*40)
	path := filepath.Join(t.TempDir(), "l.pgm")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		if err := writePGM(path, pix, 400, 40); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / 10; per > 4*uint64(len(pix)) {
		t.Errorf("writing a %d-byte tile allocated %d bytes", len(pix), per)
	}
	data, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(data, append([]byte("P5\n400 40\n255\n"), pix...)) {
		t.Errorf("the tile file is %d bytes, %v", len(data), err)
	}
}

// The readings kept for reuse are bounded in bytes, not only in lines: a session whose
// screens make tesseract write long rows (a line of tiny marks across the screen) keeps
// the latest within reuseBytes, and a line's rows past a 64th of it are not kept at all.
func TestReadingsKeptAreBoundedInBytes(t *testing.T) {
	c := &reuseCache{order: list.New(), at: map[reuseKey]*list.Element{}}
	key := func(i int) reuseKey { return reuseOf("session", "tesseract", "eng", []byte(fmt.Sprint(i)), 1) }
	row := strings.Repeat("x", reuseBytes/64)
	for i := range 200 {
		c.put(key(i), row)
	}
	kept := 0
	for e := c.order.Front(); e != nil; e = e.Next() {
		kept += len(e.Value.(*reuseEntry).rows)
	}
	if kept > reuseBytes {
		t.Errorf("%d bytes of rows kept, more than %d", kept, reuseBytes)
	}
	if _, ok := c.get(key(199)); !ok {
		t.Error("the latest line read is not kept")
	}
	if _, ok := c.get(key(0)); ok {
		t.Error("the first of 200 long lines is still kept")
	}
	c.put(key(500), row+"x")
	if _, ok := c.get(key(500)); ok {
		t.Error("a line whose rows are past a 64th of the bound is kept")
	}
}

// TestMonospaceRowIsOneLine checks that the words of a row of monospace text are one line
// however short, where the font's word gap is wider than its letters are tall (xman's
// help page, 10 px cells: "It", "is", "also" were lines of their own), and that a
// proportional font's menu bar, whose short words step almost evenly, stays a line a
// word.
func TestMonospaceRowIsOneLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		lines int
	}{
		{"xman-rows.png", 3},
		{"fluid-menu.png", 12}, // its menu bar's six words, a title, buttons
	} {
		f, err := os.Open(filepath.Join("..", "..", "testdata", "ocr", tc.name))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		g := toGray(img)
		ink := findInk(g, newBackground(g, 2), 2)
		var got []image.Rectangle
		for _, l := range ink.lines() {
			got = append(got, l.r)
		}
		if len(got) != tc.lines {
			t.Errorf("%s: %d lines %v, want %d", tc.name, len(got), got, tc.lines)
		}
	}
}

func TestStemShortOfTheAscendersIsAT(t *testing.T) {
	// The X server's Times at 10 to 11 px draws a t without its crossbar, a stem a pixel
	// or two over the x-height, read "l" ("quota" read "quola", "at" "al"). An l rises to
	// the ascenders: a stem nearer the x-height than the ascenders is a t, also where it
	// touches the letter beside it; a full l stays, and so does any l of a line with no
	// ascenders to tell the heights by.
	line := func(glyphs string) *image.Gray {
		g, fill := canvas(160, 40, 255, 0)
		x := 4
		for _, k := range glyphs {
			switch k {
			case 'T': // an ascender or a capital
				fill(x, 10, x+6, 30)
			case 'o': // x-height
				fill(x, 16, x+6, 30)
			case 't': // a t without its crossbar
				fill(x, 14, x+2, 30)
			case 'l':
				fill(x, 10, x+2, 30)
			case '=': // an x-height letter touching the t after it
				fill(x, 16, x+6, 30)
				fill(x+6, 14, x+8, 30)
				x += 6
			case ' ':
				x += 6
			}
			x += 10
		}
		return g
	}
	for _, c := range []struct {
		name, glyphs, read, want string
	}{
		{"short stem", "TTo ot", "al", "at"},
		{"full l", "TTo ol", "al", "al"},
		{"no ascenders", "ooo ot", "al", "al"},
		{"stem touching", "TTo oo=o", "quola", "quota"},
	} {
		g := line(c.glyphs)
		x0 := 4 + 10*(strings.IndexByte(c.glyphs, ' ')+1) + 6
		tsv := fmt.Sprintf("5\t1\t1\t1\t1\t1\t%d\t8\t%d\t26\t90\t%s\n", x0-1, 160-x0, c.read)
		tl := &tile{core: image.Rect(0, 0, 160, 40), r: image.Rect(0, 0, 160, 40), scale: 1, pix: g.Pix, pw: 160, crop: g}
		readAs(t, c.name, tl, tsv, c.want)
	}
}
