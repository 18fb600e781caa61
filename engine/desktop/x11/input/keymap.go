//go:build linux

package input

import (
	"sync/atomic"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
)

// keymap is the display's core keyboard mapping plus the spare keycodes (those with
// no keysym at all) that typing borrows for keysyms the keyboard lacks, the way
// xdotool does. A borrowed keycode keeps its keysym until another keysym needs
// the slot or the Controller closes: restoring right after the key event would race
// with clients that translate keycodes lazily (GTK re-reads the map on use).
type keymap struct {
	conn  *xgb.Conn
	dirty atomic.Bool

	min, max byte
	perCode  int
	syms     []xproto.Keysym // (max-min+1)*perCode
	spares   []byte          // keycodes that had no keysym when first seen
	borrowed map[byte]xproto.Keysym
	lastUse  map[byte]uint64
	lastTime map[byte]time.Time // when a borrowed keycode was last planned for sending
	tick     uint64
	shiftKC  byte
}

func newKeymap(conn *xgb.Conn) *keymap {
	s := xproto.Setup(conn)
	return &keymap{conn: conn, min: byte(s.MinKeycode), max: byte(s.MaxKeycode),
		borrowed: map[byte]xproto.Keysym{}, lastUse: map[byte]uint64{}, lastTime: map[byte]time.Time{}}
}

func (k *keymap) markDirty() { k.dirty.Store(true) }

// load reads the mapping from the server. The spare set is fixed at the first load
// (plus keycodes we borrowed, which are no longer empty afterwards). A process
// that dies without Close leaves its borrowed keycodes mapped (as xdotool does
// when killed mid-type); the next Controller then has fewer spares.
func (k *keymap) load() error {
	k.dirty.Store(false)
	r, err := xproto.GetKeyboardMapping(k.conn, xproto.Keycode(k.min), k.max-k.min+1).Reply()
	if err != nil {
		return err
	}
	first := k.spares == nil
	k.perCode = int(r.KeysymsPerKeycode)
	k.syms = r.Keysyms
	if first {
		for code := int(k.min); code <= int(k.max); code++ {
			if code == 8 { // keycode 8 is special to some clients; xdotool skips it too
				continue
			}
			empty := true
			for _, s := range k.symsOf(byte(code)) {
				if s != 0 {
					empty = false
					break
				}
			}
			if empty {
				k.spares = append(k.spares, byte(code))
			}
		}
	}
	// Forget borrowings somebody else overwrote.
	for code, ks := range k.borrowed {
		s := k.symsOf(code)
		if len(s) == 0 || s[0] != ks {
			delete(k.borrowed, code)
		}
	}
	k.shiftKC, _ = k.find(xkShiftL)
	return nil
}

func (k *keymap) refreshIfDirty() error {
	if k.dirty.Load() {
		return k.load()
	}
	return nil
}

func (k *keymap) symsOf(code byte) []xproto.Keysym {
	if code < k.min || code > k.max || k.perCode == 0 {
		return nil
	}
	i := int(code-k.min) * k.perCode
	return k.syms[i : i+k.perCode]
}

// find returns a keycode producing ks and whether Shift is needed. Only the first
// group (columns 0 and 1) is used, so no group switching is ever needed.
func (k *keymap) find(ks xproto.Keysym) (code byte, shift bool) {
	for col := 0; col < 2 && col < k.perCode; col++ {
		for c := int(k.min); c <= int(k.max); c++ {
			s := k.symsOf(byte(c))
			if s[col] != ks {
				continue
			}
			// Column 1 empty with an alphabetic column 0 means "shift gives the upper case";
			// a keysym in column 0 is reached without shift.
			return byte(c), col == 1
		}
	}
	// Lower-case letters in column 0 also produce their upper case with Shift when
	// column 1 is NoSymbol (Xlib convention); core maps here list both, so no more.
	return 0, false
}

// stroke is one key to tap: keycode plus whether Shift must be held.
type stroke struct {
	code  byte
	shift bool
}

// planBatch maps keysyms to strokes, borrowing spare keycodes for missing
// keysyms, until a keysym needs a spare keycode that an earlier stroke of this
// batch still relies on. It returns the strokes and the keysyms left over: the
// caller sends the batch, gives clients time to translate those keycodes, and
// plans the rest (only texts with more distinct missing keysyms than there are
// spare keycodes need more than one batch).
//
// With synced false, a borrowed keycode planned less than recyclePause ago (by an
// earlier call) is not reassigned either: the batch ends there. The caller passes
// synced true after it has made sure clients caught up (clientSync or a pause).
func (k *keymap) planBatch(keysyms []xproto.Keysym, synced bool) ([]stroke, []xproto.Keysym, error) {
	var cur []stroke
	inBatch := map[byte]bool{} // spares whose keysym this batch relies on
	for i, ks := range keysyms {
		if code, shift := k.find(ks); code != 0 {
			if _, b := k.borrowed[code]; b {
				inBatch[code] = true
				k.touch(code)
			}
			cur = append(cur, stroke{code, shift})
			continue
		}
		if len(k.spares) == 0 {
			return nil, nil, errNoSpare
		}
		code := k.pickSpare(inBatch)
		if code == 0 {
			return cur, keysyms[i:], nil
		}
		if _, b := k.borrowed[code]; b && !synced && time.Since(k.lastTime[code]) < recyclePause {
			// Sent moments ago (maybe by the previous call): clients may not have
			// translated it yet. The caller waits before the rest.
			return cur, keysyms[i:], nil
		}
		if err := k.borrow(code, ks); err != nil {
			return nil, nil, err
		}
		inBatch[code] = true
		k.touch(code)
		cur = append(cur, stroke{code: code})
	}
	return cur, nil, nil
}

func (k *keymap) touch(code byte) {
	k.tick++
	k.lastUse[code] = k.tick
	k.lastTime[code] = time.Now()
}

// pickSpare chooses a spare keycode not used by the current batch: an unused one
// first, then the least recently used borrowed one.
func (k *keymap) pickSpare(inBatch map[byte]bool) byte {
	var best byte
	var bestUse uint64
	for _, c := range k.spares {
		if inBatch[c] {
			continue
		}
		if _, b := k.borrowed[c]; !b {
			if !allZero(k.symsOf(c)) {
				continue // taken meanwhile by another client (another Controller, xdotool)
			}
			return c
		}
		if best == 0 || k.lastUse[c] < bestUse {
			best, bestUse = c, k.lastUse[c]
		}
	}
	return best
}

func allZero(syms []xproto.Keysym) bool {
	for _, s := range syms {
		if s != 0 {
			return false
		}
	}
	return true
}

// borrow maps code to ks in both shift levels, so the Shift state does not matter.
func (k *keymap) borrow(code byte, ks xproto.Keysym) error {
	n := max(k.perCode, 2)
	syms := make([]xproto.Keysym, n)
	syms[0], syms[1] = ks, ks
	if err := xproto.ChangeKeyboardMappingChecked(k.conn, 1, xproto.Keycode(code), byte(n), syms).Check(); err != nil {
		return err
	}
	k.borrowed[code] = ks
	// Keep our copy in step without waiting for MappingNotify.
	s := k.symsOf(code)
	for i := range s {
		s[i] = 0
		if i < 2 {
			s[i] = ks
		}
	}
	return nil
}

// restore empties every borrowed keycode again.
func (k *keymap) restore() {
	for code := range k.borrowed {
		syms := make([]xproto.Keysym, max(k.perCode, 2))
		xproto.ChangeKeyboardMapping(k.conn, 1, xproto.Keycode(code), byte(len(syms)), syms)
		delete(k.borrowed, code)
	}
}

// recyclePause is how long typing waits before it reassigns spare keycodes that
// keys already sent still refer to, when the focused client cannot be pinged
// (see clientSync), so that clients have translated those keys first.
const recyclePause = 150 * time.Millisecond

type inputErr string

func (e inputErr) Error() string { return string(e) }

const errNoSpare = inputErr("the keyboard mapping has no spare keycode")
