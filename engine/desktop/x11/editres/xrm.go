//go:build linux

package editres

import (
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/jezek/xgb/xproto"
)

// DB is an X resource database: what an Xt program was configured with, read the way Xt
// reads it (the X Toolkit Intrinsics and Xlib's Xrm rules), for the widgets Editres does not
// reach (Widget.Reached): their labels as configured. Only the application's app-defaults
// file and the display's RESOURCE_MANAGER are read; command-line -xrm options and the
// program's compiled-in fallbacks are not known.
type DB struct {
	entries []entry
	bySpec  map[string]int // an entry's index by its specification
	work    int            // the steps its lookups took (maxDBWork)
}

type entry struct {
	comps []comp
	value string
}

// comp is one component of a resource specification: a name, a class or "?", and whether a
// loose binding ("*") comes before it.
type comp struct {
	s     string
	loose bool
}

// Bounds on what is read: an app-defaults file, the display's RESOURCE_MANAGER (a program of
// the session sets it), and entries.
const (
	maxDBBytes   = 1 << 20
	maxDBEntries = 10000
)

// appDefaults are the directories Xt's default XFILESEARCHPATH looks in for a class's file.
var appDefaults = []string{"/etc/X11/app-defaults", "/usr/share/X11/app-defaults"}

var className = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// validClass says whether class looks like an application class, at most 64 characters, and
// so names a file to read in the app-defaults directories. The length is checked apart: a
// counted repetition compiles into one state per count, 963 allocations at every start.
func validClass(class string) bool {
	return len(class) <= 64 && className.MatchString(class)
}

// LoadDB reads the resources of application class class: its app-defaults file, then the
// display's RESOURCE_MANAGER, which overrides it.
func (cl *Client) LoadDB(class string) *DB {
	db := &DB{}
	if validClass(class) {
		for _, dir := range appDefaults {
			if b, err := readBounded(filepath.Join(dir, class)); err == nil {
				db.Parse(string(b))
				break
			}
		}
	}
	root := xproto.Setup(cl.c).DefaultScreen(cl.c).Root
	if p, err := xproto.GetProperty(cl.c, false, root, xproto.AtomResourceManager, xproto.AtomString, 0, maxDBBytes/4).Reply(); err == nil {
		db.Parse(string(p.Value))
	}
	return db
}

func readBounded(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxDBBytes))
}

// Parse adds the entries of a resource file's text; an entry of the same specification as an
// earlier one replaces it.
func (db *DB) Parse(text string) {
	// A backslash at a line's end continues it.
	text = strings.ReplaceAll(text, "\\\n", "")
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimLeft(line, " \t")
		if line == "" || line[0] == '!' || line[0] == '#' {
			continue
		}
		spec, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		comps := parseSpec(strings.TrimSpace(spec))
		if comps == nil {
			continue
		}
		e := entry{comps: comps, value: unescape(strings.TrimLeft(value, " \t"))}
		key := specKey(comps)
		if i, ok := db.bySpec[key]; ok {
			db.entries[i] = e
		} else if len(db.entries) < maxDBEntries {
			if db.bySpec == nil {
				db.bySpec = map[string]int{}
			}
			db.bySpec[key] = len(db.entries)
			db.entries = append(db.entries, e)
		}
	}
}

func parseSpec(s string) []comp {
	var out []comp
	loose := false
	start := 0
	for i := 0; i <= len(s); i++ {
		if i < len(s) && s[i] != '.' && s[i] != '*' {
			continue
		}
		if i > start {
			out = append(out, comp{s: s[start:i], loose: loose})
			loose = false
		}
		if i < len(s) && s[i] == '*' {
			loose = true
		}
		start = i + 1
	}
	if len(out) == 0 || loose {
		return nil
	}
	return out
}

// specKey is a specification as one string, its bindings written as Xrm writes them.
func specKey(comps []comp) string {
	var b strings.Builder
	for _, c := range comps {
		if c.loose {
			b.WriteByte('*')
		} else {
			b.WriteByte('.')
		}
		b.WriteString(c.s)
	}
	return b.String()
}

// unescape decodes a value's escapes: \n, \\, and \ooo (three octal digits, a byte).
func unescape(v string) string {
	if !strings.Contains(v, "\\") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 >= len(v) {
			b.WriteByte(v[i])
			continue
		}
		switch c := v[i+1]; {
		case c == 'n':
			b.WriteByte('\n')
			i++
		case c == '\\':
			b.WriteByte('\\')
			i++
		case i+3 < len(v) && isOctal(c) && isOctal(v[i+2]) && isOctal(v[i+3]):
			b.WriteByte((c-'0')<<6 | (v[i+2]-'0')<<3 | (v[i+3] - '0'))
			i += 3
		default:
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// maxDBWork bounds the steps (a component matched at a level, a level of two matches
// compared) of all lookups in one DB: a program of the session sets RESOURCE_MANAGER, and a
// database of many loose specifications looked up for deep widgets took the host minutes of
// CPU per lookup (docs/accessibility.md#xt-and-motif). A database of real programs takes a
// few thousand steps for a window.
const maxDBWork = 1 << 22

// Lookup is the value of the resource whose full name and class are names and classes (the
// widget path's, then the resource's), by Xrm's precedence: level by level from the left, an
// entry that names the level beats one that skips it, a name beats a class, which beats "?",
// and a tight binding beats a loose one; of entries equal in all, the later one. Once db's
// lookups have taken maxDBWork steps, nothing more is found in it.
func (db *DB) Lookup(names, classes []string) (string, bool) {
	if len(names) == 0 || len(names) != len(classes) || db.work >= maxDBWork {
		return "", false
	}
	var best *way
	value := ""
	last := len(names) - 1
	m := &matcher{names: names, classes: classes, work: &db.work}
	for _, e := range db.entries {
		if r := e.comps[len(e.comps)-1].s; r != names[last] && r != classes[last] && r != "?" {
			continue
		}
		w := m.match(e.comps)
		if db.work >= maxDBWork {
			return "", false
		}
		if w != nil && (best == nil || compareWays(w, best, &db.work) >= 0) {
			best, value = w, e.value
		}
	}
	return value, best != nil
}

// way is the precedence of a match at one level (4 name, 3 class, 2 "?", doubled and plus one
// for a tight binding; 0 skipped by a loose binding) and the way it goes on from the next;
// matched ends every way.
type way struct {
	v    int
	next *way
}

var matched = &way{}

// matcher matches specifications against one query's levels (names and classes), counting
// its steps in work.
type matcher struct {
	names, classes []string
	work           *int
	// The best way from component ci and level li on, of the specification of generation
	// gen, at ci*(len(names)+1)+li: worked out when stamp there is gen.
	ways  []*way
	stamp []uint32
	gen   uint32
}

// match matches comps against the query's levels: the best of the ways it matches, nil
// when none. The best way from a component and a level on does not depend on how they were
// reached, so each is worked out once, and ways share what follows them (a hostile
// specification of many loose components against a deep widget takes a step per component
// and level).
func (m *matcher) match(comps []comp) *way {
	n := len(m.names)
	if size := (len(comps) + 1) * (n + 1); len(m.ways) < size {
		m.ways, m.stamp = make([]*way, size), make([]uint32, size)
	}
	m.gen++
	var best func(ci, li int) *way
	best = func(ci, li int) *way {
		if ci == len(comps) {
			if li == n {
				return matched
			}
			return nil
		}
		if li == n || len(comps)-ci > n-li {
			return nil
		}
		k := ci*(n+1) + li
		if m.stamp[k] == m.gen {
			return m.ways[k]
		}
		*m.work++
		var out *way
		c := comps[ci]
		kind := 0
		switch c.s {
		case m.names[li]:
			kind = 4
		case m.classes[li]:
			kind = 3
		case "?":
			kind = 2
		}
		if kind > 0 {
			if rest := best(ci+1, li+1); rest != nil {
				v := 2 * kind
				if !c.loose {
					v++
				}
				out = &way{v, rest}
			}
		}
		// A loose binding may skip this level; a way that names it comes first.
		if out == nil && c.loose && li+1 < n {
			if rest := best(ci, li+1); rest != nil {
				out = &way{0, rest}
			}
		}
		m.ways[k], m.stamp[k] = out, m.gen
		return out
	}
	return best(0, 0)
}

// compareWays compares two ways over the same levels, level by level from the left.
func compareWays(a, b *way, work *int) int {
	for ; a != matched && b != matched; a, b = a.next, b.next {
		*work++
		if a.v != b.v {
			return a.v - b.v
		}
	}
	return 0
}

// symbolChars are the characters Adobe's Symbol font draws at the bytes xcalc and other Xt
// programs put in labels of that font, where ISO 8859-1 has others.
var symbolChars = map[byte]rune{
	'p': 'π', 0xB8: '÷', 0xB4: '×', 0xD6: '√', 0xB1: '±', 0xA3: '≤', 0xB3: '≥', 0xB9: '≠',
	0xAE: '→', 0xAC: '←', 0xB0: '°', 0xE5: '∑', 0xF2: '∫', 0x60: '‾',
}

// SymbolText is s drawn in Adobe's Symbol font: the characters it shows (xcalc's √ key is
// labelled "\326`", a root sign and its bar, and ÷ "\270"); other bytes read as ISO 8859-1.
func SymbolText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch r, ok := symbolChars[s[i]]; {
		case ok && s[i] == 0x60 && i > 0 && s[i-1] == 0xD6:
			// the bar of a root sign
		case ok:
			b.WriteRune(r)
		default:
			b.WriteRune(rune(s[i]))
		}
	}
	return b.String()
}
