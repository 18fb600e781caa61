package ocr

import "image"

// A glyph read alone (a key's label) is checked against its own pixels where tesseract's
// English model is known to mistake it: a bitmap font's "1" (a flag at the top, no foot
// serif, as xcalc's) is read as "]", whose top bar the flag resembles; a "]" has a bar
// at its foot as well (see footBar).

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
