//go:build linux

package input

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jezek/xgb/xproto"

	"github.com/w365/w365/engine/werr"
)

// X keysyms used by name.
const (
	xkShiftL   = 0xffe1
	xkShiftR   = 0xffe2
	xkControlL = 0xffe3
	xkControlR = 0xffe4
	xkCapsLock = 0xffe5
	xkAltL     = 0xffe9
	xkAltR     = 0xffea
	xkSuperL   = 0xffeb
	xkSuperR   = 0xffec
	xkLevel3   = 0xfe03
	xkBack     = 0xff08
	xkTab      = 0xff09
	xkReturn   = 0xff0d
	xkPause    = 0xff13
	xkScroll   = 0xff14
	xkEscape   = 0xff1b
	xkHome     = 0xff50
	xkLeft     = 0xff51
	xkUp       = 0xff52
	xkRight    = 0xff53
	xkDown     = 0xff54
	xkPrior    = 0xff55
	xkNext     = 0xff56
	xkEnd      = 0xff57
	xkPrint    = 0xff61
	xkInsert   = 0xff63
	xkMenu     = 0xff67
	xkNumLock  = 0xff7f
	xkKPEnter  = 0xff8d
	xkF1       = 0xffbe
	xkDelete   = 0xffff
)

// keyNames maps every accepted key name (lower case) to its keysym.
var keyNames = sync.OnceValue(func() map[string]xproto.Keysym {
	m := map[string]xproto.Keysym{
		"ctrl": xkControlL, "control": xkControlL, "lctrl": xkControlL, "rctrl": xkControlR,
		"leftctrl": xkControlL, "rightctrl": xkControlR,
		"shift": xkShiftL, "lshift": xkShiftL, "rshift": xkShiftR, "leftshift": xkShiftL, "rightshift": xkShiftR,
		"alt": xkAltL, "lalt": xkAltL, "ralt": xkAltR, "leftalt": xkAltL, "rightalt": xkAltR,
		"option": xkAltL, "altgr": xkLevel3,
		"meta": xkSuperL, "win": xkSuperL, "windows": xkSuperL, "super": xkSuperL, "cmd": xkSuperL,
		"command": xkSuperL, "lwin": xkSuperL, "rwin": xkSuperR,

		"up": xkUp, "down": xkDown, "left": xkLeft, "right": xkRight,
		"arrowup": xkUp, "arrowdown": xkDown, "arrowleft": xkLeft, "arrowright": xkRight,
		"enter": xkReturn, "return": xkReturn, "kpenter": xkKPEnter,
		"escape": xkEscape, "esc": xkEscape, "tab": xkTab, "backspace": xkBack,
		"delete": xkDelete, "del": xkDelete, "home": xkHome, "end": xkEnd,
		"pageup": xkPrior, "pgup": xkPrior, "pagedown": xkNext, "pgdn": xkNext,
		"space": ' ', "spacebar": ' ', "insert": xkInsert, "ins": xkInsert,
		"printscreen": xkPrint, "print": xkPrint, "prtsc": xkPrint,
		"capslock": xkCapsLock, "numlock": xkNumLock, "scrolllock": xkScroll,
		"pause": xkPause, "menu": xkMenu, "apps": xkMenu,
		"volumemute": 0x1008ff12, "volumedown": 0x1008ff11, "volumeup": 0x1008ff13,
		"mediaplaypause": 0x1008ff14, "mediastop": 0x1008ff15,
		"mediaprevious": 0x1008ff16, "medianext": 0x1008ff17,

		"minus": '-', "equal": '=', "equals": '=', "plus": '+', "comma": ',', "period": '.',
		"dot": '.', "slash": '/', "backslash": '\\', "semicolon": ';', "colon": ':',
		"quote": '\'', "apostrophe": '\'', "doublequote": '"', "bracketleft": '[',
		"bracketright": ']', "leftbracket": '[', "rightbracket": ']', "braceleft": '{',
		"braceright": '}', "grave": '`', "backquote": '`', "backtick": '`', "tilde": '~',
		"exclam": '!', "at": '@', "hash": '#', "numbersign": '#', "dollar": '$',
		"percent": '%', "caret": '^', "ampersand": '&', "asterisk": '*', "star": '*',
		"parenleft": '(', "parenright": ')', "underscore": '_', "pipe": '|', "bar": '|',
		"less": '<', "greater": '>', "question": '?',
	}
	for i := 1; i <= 24; i++ {
		m[fmt.Sprintf("f%d", i)] = xproto.Keysym(xkF1 + i - 1)
	}
	for c := 'a'; c <= 'z'; c++ {
		m[string(c)] = xproto.Keysym(c)
	}
	for c := '0'; c <= '9'; c++ {
		m[string(c)] = xproto.Keysym(c)
	}
	for _, c := range "-=[]\\;',./`~!@#$%^&*()_+{}|:\"<>?" {
		m[string(c)] = xproto.Keysym(c)
	}
	return m
})

var sortedKeyNames = sync.OnceValue(func() []string {
	out := make([]string, 0, len(keyNames()))
	for n := range keyNames() {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
})

// KeyNames lists every key name PressKeys accepts (lower case; matching is
// case-insensitive).
func KeyNames() []string { return slices.Clone(sortedKeyNames()) }

// KeyNames is KeyNames, for callers that hold a Controller.
func (c *Controller) KeyNames() []string { return KeyNames() }

// lookupKey resolves a key name, or returns INVALID_ARGUMENT with the nearest names.
func lookupKey(name string) (xproto.Keysym, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if ks, ok := keyNames()[n]; ok {
		return ks, nil
	}
	if strings.TrimSpace(name) == "" && name != "" { // " " itself
		return ' ', nil
	}
	sug := suggestKeys(n, 3)
	e := werr.Invalid("unknown key name %q", name).WithDetail("suggestions", sug)
	if len(sug) > 0 {
		e.Message += fmt.Sprintf("; did you mean %s?", quoteJoin(sug))
	}
	return 0, e.WithHint("key names are like ctrl, shift, alt, meta, enter, escape, tab, f5, pageup, arrowleft, a, 1, comma")
}

func quoteJoin(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = fmt.Sprintf("%q", s)
	}
	return strings.Join(q, " or ")
}

// suggestKeys returns up to n known names nearest to s by edit distance.
func suggestKeys(s string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	for _, k := range sortedKeyNames() {
		if len(k) == 1 && len(s) > 2 {
			continue // single characters are poor suggestions for words
		}
		cs = append(cs, cand{k, editDistance(s, k)})
	}
	// Nearest first; among equals, the longer shared prefix ("pgdown": "pgdn").
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return commonPrefix(s, cs[i].name) > commonPrefix(s, cs[j].name)
	})
	limit := max(2, utf8.RuneCountInString(s)/2)
	var out []string
	for _, c := range cs {
		if len(out) == n || c.d > limit {
			break
		}
		out = append(out, c.name)
	}
	return out
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// editDistance is the optimal string alignment distance: insertions, deletions,
// substitutions and transpositions of neighbours ("escpae") cost 1.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

// runeKeysym is the keysym that types r: Latin-1 keysyms equal their code point,
// everything else uses the Unicode keysym range 0x01000000+cp.
func runeKeysym(r rune) xproto.Keysym {
	if (r >= 0x20 && r <= 0x7e) || (r >= 0xa0 && r <= 0xff) {
		return xproto.Keysym(r)
	}
	return xproto.Keysym(0x01000000 + r)
}

// textKeysyms converts text to the keysyms to tap: \n (and \r\n, \r) as Return,
// \t as Tab, \b as BackSpace, ESC as Escape. Other control characters are refused.
func textKeysyms(text string) ([]xproto.Keysym, error) {
	if !utf8.ValidString(text) {
		return nil, werr.Invalid("text is not valid UTF-8")
	}
	out := make([]xproto.Keysym, 0, len(text))
	rs := []rune(text)
	for i, r := range rs {
		switch {
		case r == '\r':
			if i+1 < len(rs) && rs[i+1] == '\n' {
				continue
			}
			out = append(out, xkReturn)
		case r == '\n':
			out = append(out, xkReturn)
		case r == '\t':
			out = append(out, xkTab)
		case r == '\b':
			out = append(out, xkBack)
		case r == 0x1b:
			out = append(out, xkEscape)
		case r < 0x20 || (r >= 0x7f && r < 0xa0):
			return nil, werr.Invalid("text contains the control character U+%04X at position %d, which cannot be typed", r, i).
				WithHint("use press_keys for special keys")
		default:
			out = append(out, runeKeysym(r))
		}
	}
	return out, nil
}

// TypeText types text as key events. Any Unicode text arrives intact: characters
// that are not on the keyboard are typed through a spare keycode temporarily
// mapped to their keysym. "\n" is Return and "\t" is Tab.
func (c *Controller) TypeText(ctx context.Context, text string) error {
	keysyms, err := textKeysyms(text)
	if err != nil {
		return err
	}
	if err := c.beginKeys(ctx); err != nil {
		return err
	}
	defer c.end()
	// With Caps Lock on, letters come out in the other case: switch it off while
	// typing and on again afterwards (as xdotool --clearmodifiers does).
	if q, err := xproto.QueryPointer(c.conn, c.root).Reply(); err == nil && q.Mask&xproto.KeyButMaskLock != 0 {
		if caps, _ := c.km.find(xkCapsLock); caps != 0 {
			c.keyDown(caps)
			c.keyUp(caps)
			defer func() {
				c.keyDown(caps)
				c.keyUp(caps)
				c.sync()
			}()
		}
	}
	rest := keysyms
	first, synced, reuse := true, false, false
	for len(rest) > 0 {
		switch {
		case first:
		case reuse:
			// The next batch reassigns spare keycodes that keys already sent use.
			if err := c.catchUp(ctx); err != nil {
				return err
			}
			synced = true
		default:
			if err := c.pace(ctx); err != nil {
				return err
			}
		}
		first = false
		n := min(len(rest), typeChunk)
		batch, left, err := c.km.planBatch(rest[:n], synced)
		if err != nil {
			return werr.Wrap(err, werr.Unavailable, "cannot map a keycode for typing on %s", c.display)
		}
		reuse = len(left) > 0
		rest = rest[n-len(left):]
		for _, s := range batch {
			shift := s.shift
			if shift {
				c.keyDown(c.km.shiftKC)
			}
			c.keyDown(s.code)
			c.keyUp(s.code)
			if shift {
				c.keyUp(c.km.shiftKC)
			}
		}
		if err := werr.Done(ctx, "input"); err != nil {
			c.sync()
			return err
		}
	}
	return c.handled(ctx)
}

// handled waits until the X server has the keys sent and the focused application has
// handled them, as far as a ping tells (clientSync; an application that cannot be pinged
// is not waited for): a call that reads the application next finds what the keys did.
func (c *Controller) handled(ctx context.Context) error {
	if err := c.sync(); err != nil {
		return err
	}
	c.clientSync(ctx)
	return nil
}

// typeChunk is the most keys TypeText sends before it waits for the application (pace):
// sent at once, a long text's keys all lay in the X server's queue for the application
// before the first was handled, so that a cancelled call went on typing (20,000 keys into
// an application taking 1 ms over each: 20 s after the cancel) and the session's next keys
// came after them.
const typeChunk = 128

// pace waits until the focused application has handled the keys sent so far, where a ping
// tells (clientSync); otherwise until the X server has them. It ends early when ctx does.
func (c *Controller) pace(ctx context.Context) error {
	if !c.clientSync(ctx) {
		if err := c.sync(); err != nil {
			return err
		}
	}
	return werr.Done(ctx, "input")
}

// catchUp waits until the focused application has processed the keys sent so
// far: a ping round trip, or a fixed pause when it cannot be pinged.
func (c *Controller) catchUp(ctx context.Context) error {
	if err := c.sync(); err != nil {
		return err
	}
	if c.clientSync(ctx) {
		return nil
	}
	select {
	case <-ctx.Done():
		return werr.Done(ctx, "input")
	case <-time.After(recyclePause):
		return nil
	}
}

// PressKeys presses keys together in the order given and releases them in reverse
// order; every key pressed is released, also when something fails. Names are
// case-insensitive (see KeyNames). A key that needs Shift (like "?") gets it.
func (c *Controller) PressKeys(ctx context.Context, keys []string) (err error) {
	if len(keys) == 0 {
		return werr.Invalid("keys must name at least one key")
	}
	syms := make([]xproto.Keysym, 0, len(keys))
	for _, k := range keys {
		ks, err := lookupKey(k)
		if err != nil {
			return err
		}
		syms = append(syms, ks)
	}
	if err := c.beginKeys(ctx); err != nil {
		return err
	}
	defer c.end()
	return c.pressLocked(ctx, syms)
}

// pressLocked presses syms together and releases them in reverse order. The
// caller holds the lock.
func (c *Controller) pressLocked(ctx context.Context, syms []xproto.Keysym) (err error) {
	strokes, rest, err := c.km.planBatch(syms, false)
	if err == nil && len(rest) > 0 {
		// A spare keycode this chord needs was used moments ago: let clients
		// translate it first, then plan again (borrowed keycodes are found as is).
		if err := c.catchUp(ctx); err != nil {
			return err
		}
		strokes, rest, err = c.km.planBatch(syms, true)
	}
	if err != nil || len(rest) > 0 {
		return werr.New(werr.Unavailable, "cannot map keycodes for these keys on %s", c.display)
	}
	var down []byte
	isDown := func(k byte) bool { return slices.Contains(down, k) }
	defer func() {
		for i := len(down) - 1; i >= 0; i-- {
			c.keyUp(down[i])
		}
		if e := c.handled(ctx); err == nil {
			err = e
		}
	}()
	for _, s := range strokes {
		if s.shift && c.km.shiftKC != 0 && !isDown(c.km.shiftKC) {
			c.keyDown(c.km.shiftKC)
			down = append(down, c.km.shiftKC)
		}
		if !isDown(s.code) {
			c.keyDown(s.code)
			down = append(down, s.code)
		}
	}
	return nil
}
