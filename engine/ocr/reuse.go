package ocr

import (
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"sync"
)

// Readings of line images are kept for the next calls of the same scope (Options.Reuse):
// an agent reads a screen, acts, and reads it again, and most of its lines come back as
// the very same images. Tesseract's reading of an image depends on that image alone (its
// LSTM engine keeps nothing from one page to the next), so a line whose image is the same
// byte for byte, read by the same program in the same language, is given the rows it was
// read as before, and only the lines that changed are read. The rows are tesseract's;
// the checks against the ink (glyphs.go) run on every call as before. Entries are
// per scope, so that no call can tell by its time what another session's screen showed.
const reuseEntries = 8192 // about 3 MB: a dense screen has 60 lines, an application's 10-40

// reuseBytes bounds the rows kept, whatever a session's screens make tesseract write: a
// line of tiny marks across a whole screen reads as hundreds of rows.
const reuseBytes = 16 << 20

type reuseKey [sha256.Size]byte

// reuseCache holds the rows of the latest reuseEntries line images read, least recently
// used first out.
type reuseCache struct {
	mu    sync.Mutex
	order *list.List // of *reuseEntry, most recently used in front
	at    map[reuseKey]*list.Element
	bytes int // of the rows kept
}

type reuseEntry struct {
	key  reuseKey
	rows string
}

var readings = &reuseCache{order: list.New(), at: map[reuseKey]*list.Element{}}

// reuseOf is the key of a line image read by program bin in language lang for scope.
func reuseOf(scope, bin, lang string, pix []byte, w int) reuseKey {
	h := sha256.New()
	for _, s := range []string{scope, bin, lang} {
		binary.Write(h, binary.LittleEndian, uint32(len(s)))
		h.Write([]byte(s))
	}
	binary.Write(h, binary.LittleEndian, uint32(w))
	h.Write(pix)
	var k reuseKey
	h.Sum(k[:0])
	return k
}

func (c *reuseCache) get(k reuseKey) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.at[k]
	if !ok {
		return "", false
	}
	c.order.MoveToFront(e)
	return e.Value.(*reuseEntry).rows, true
}

func (c *reuseCache) put(k reuseKey, rows string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.at[k]; ok {
		c.order.MoveToFront(e)
		return
	}
	if len(rows) > reuseBytes/64 {
		return // one line's rows may take no more than a 64th of the whole
	}
	c.at[k] = c.order.PushFront(&reuseEntry{k, rows})
	c.bytes += len(rows)
	for c.order.Len() > reuseEntries || c.bytes > reuseBytes {
		e := c.order.Back()
		old := e.Value.(*reuseEntry)
		delete(c.at, old.key)
		c.bytes -= len(old.rows)
		c.order.Remove(e)
	}
}
