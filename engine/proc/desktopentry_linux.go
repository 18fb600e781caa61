package proc

import (
	"bufio"
	"io"
	"os"
	"strings"
	"syscall"
)

// entry is the part of an XDG desktop entry (the Desktop Entry Specification 1.5) that
// launch_application reads: its [Desktop Entry] group, unlocalized.
type entry struct {
	ID   string // the desktop file ID: its path below applications/, "/" as "-"
	File string // the .desktop file
	Name string
	Icon string
	// Exec is the command line, split into words (quoting undone); a word of a quoted
	// argument is marked so that field codes are never substituted inside it.
	Exec       []execWord
	TryExec    string
	Categories []string
	Hidden     bool // "deleted": it also hides entries of the same ID in later directories
	NoDisplay  bool
	Terminal   bool
	App        bool // Type=Application
}

type execWord struct {
	text   string
	quoted bool
}

// maxEntryBytes bounds how much of a desktop file is read.
const maxEntryBytes = 64 << 10

// parseEntry reads the [Desktop Entry] group of a desktop file.
func parseEntry(r io.Reader) (entry, bool) {
	var e entry
	group := ""
	sc := bufio.NewScanner(io.LimitReader(r, maxEntryBytes))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '[' {
			group = strings.Trim(line, "[]")
			continue
		}
		if group != "Desktop Entry" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), unescapeValue(strings.TrimSpace(v))
		switch k {
		case "Type":
			e.App = v == "Application"
		case "Name":
			e.Name = v
		case "Icon":
			e.Icon = v
		case "Exec":
			words, ok := splitExec(v)
			if !ok {
				return entry{}, false
			}
			e.Exec = words
		case "TryExec":
			e.TryExec = v
		case "Categories":
			e.Categories = strings.FieldsFunc(v, func(r rune) bool { return r == ';' })
		case "Hidden":
			e.Hidden = v == "true"
		case "NoDisplay":
			e.NoDisplay = v == "true"
		case "Terminal":
			e.Terminal = v == "true"
		}
	}
	return e, sc.Err() == nil
}

// unescapeValue undoes the escapes of a string value: \s \n \t \r \\.
func unescapeValue(v string) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 == len(v) {
			b.WriteByte(v[i])
			continue
		}
		i++
		switch v[i] {
		case 's':
			b.WriteByte(' ')
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		default:
			b.WriteByte('\\')
			b.WriteByte(v[i])
		}
	}
	return b.String()
}

// splitExec splits an Exec value into words: blanks separate them, a double-quoted
// argument is one word in which \" \` \$ \\ stand for the character. An unterminated
// quote makes the whole entry invalid.
func splitExec(v string) ([]execWord, bool) {
	var words []execWord
	var cur strings.Builder
	in, quoted, inQuote := false, false, false
	flush := func() {
		if in {
			words = append(words, execWord{cur.String(), quoted})
		}
		cur.Reset()
		in, quoted = false, false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case inQuote && c == '\\' && i+1 < len(v) && strings.IndexByte("\"`$\\", v[i+1]) >= 0:
			i++
			cur.WriteByte(v[i])
		case c == '"':
			inQuote = !inQuote
			in, quoted = true, true
		case !inQuote && (c == ' ' || c == '\t' || c == '\n'):
			flush()
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if inQuote {
		return nil, false
	}
	flush()
	return words, len(words) > 0
}

// fieldCode is the file or URL field code of an Exec (%f, %F, %u, %U), or 0 when it has
// none; ok is false when one stands inside a larger or quoted word (where a file name
// would be pasted into another program's text, a shell's for instance), or there are
// several.
func (e *entry) fieldCode() (code byte, ok bool) {
	for _, w := range e.Exec[1:] {
		for _, c := range []string{"%f", "%F", "%u", "%U"} {
			if !strings.Contains(w.text, c) {
				continue
			}
			if w.quoted || w.text != c || code != 0 {
				return 0, false
			}
			code = c[1]
		}
	}
	return code, true
}

// expand is the Exec's argument list with the field codes replaced: the file or URL code
// by args, %i by --icon ICON, %c by the name, %k by the entry's file, %% by %; the
// deprecated codes are dropped. With no file or URL code, args are appended.
func (e *entry) expand(args []string) []string {
	var out []string
	placed := false
	for _, w := range e.Exec[1:] {
		switch w.text {
		case "%f", "%F", "%u", "%U":
			if !w.quoted {
				out = append(out, args...)
				placed = true
				continue
			}
		case "%i":
			if e.Icon != "" {
				out = append(out, "--icon", e.Icon)
			}
			continue
		case "%c":
			out = append(out, e.Name)
			continue
		case "%k":
			out = append(out, e.File)
			continue
		case "%d", "%D", "%n", "%N", "%v", "%m":
			continue
		}
		out = append(out, strings.ReplaceAll(w.text, "%%", "%"))
	}
	if !placed {
		out = append(out, args...)
	}
	return out
}

func (e *entry) hasCategory(c string) bool {
	for _, x := range e.Categories {
		if strings.EqualFold(x, c) {
			return true
		}
	}
	return false
}

// readEntry parses the desktop file at path (a regular file, not larger than
// maxEntryBytes; opened without blocking, so that a FIFO there cannot hang the host).
func readEntry(path string) (entry, bool) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return entry{}, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return entry{}, false
	}
	e, ok := parseEntry(f)
	e.File = path
	return e, ok
}
