package sandbox

import (
	"path/filepath"
	"slices"
	"strings"

	"github.com/w365/w365/engine/safefs"
	"github.com/w365/w365/engine/werr"
)

// MaxGlobMatches is the most words one command's wildcards may expand to.
const MaxGlobMatches = 10000

// expandGlobs expands the wildcard words of argv (from check) inside dir, the working
// directory, the way bash does by default: matches sorted, dot-names only for a pattern
// component that starts with a dot, the pattern itself kept when nothing matches. Only
// relative patterns without .. reach here (check refuses the others), and the walk is made
// through directory handles following no symbolic link (safefs), from dir opened so too: a
// wildcard never passes through a link (ls link/* keeps its pattern), so neither a link a
// session made nor a directory it swaps for one while the host lists it shows a name
// outside dir, not even whether one exists. A match that starts with - is given as ./NAME, so a file named -rf never
// becomes an option.
func expandGlobs(argv []word, dir string) ([]string, bool, *werr.Error) {
	out := make([]string, 0, len(argv))
	expanded := false
	for _, w := range argv {
		if !w.glob {
			out = append(out, w.value)
			continue
		}
		matches, err := globIn(dir, w.pattern, MaxGlobMatches-len(out))
		if err != nil {
			return nil, false, err
		}
		if len(matches) == 0 {
			out = append(out, w.value)
			continue
		}
		expanded = true
		for _, m := range matches {
			if strings.HasPrefix(m, "-") {
				m = "./" + m
			}
			out = append(out, m)
		}
	}
	return out, expanded, nil
}

// globIn returns the relative paths under root that match pattern, at most limit.
func globIn(root, pattern string, limit int) ([]string, *werr.Error) {
	top, err := safefs.OpenNoLinks(root)
	if err != nil {
		return nil, nil
	}
	defer top.Close()
	comps := strings.Split(pattern, "/")
	paths := []string{""}
	for i, c := range comps {
		last := i == len(comps)-1
		if c == "" {
			continue // a // or a trailing /
		}
		var next []string
		for _, p := range paths {
			d, err := top.OpenDir(p)
			if err != nil {
				continue // p is no directory, or a link now
			}
			if !hasMeta(c) {
				lit := unescapeGlob(c)
				if k, err := d.Kind(lit); lit == "." || (err == nil && k != safefs.Missing) {
					next = append(next, filepath.Join(p, lit))
				}
				d.Close()
				continue
			}
			ents, err := d.ReadDir()
			d.Close()
			if err != nil {
				continue
			}
			for _, e := range ents {
				name := e.Name()
				if strings.HasPrefix(name, ".") && !strings.HasPrefix(c, ".") {
					continue
				}
				ok, err := filepath.Match(c, name)
				if err != nil {
					return nil, block("glob", hintQuote, "the pattern %q is malformed", pattern)
				}
				if ok && (last || e.IsDir()) {
					next = append(next, filepath.Join(p, name))
				}
			}
		}
		if len(next) > limit {
			return nil, werr.Invalid("the pattern %q matches more than %d names", pattern, MaxGlobMatches).
				WithDetail("rule", "glob").WithHint("narrow the pattern, or list the files with execute_python_code")
		}
		paths = next
	}
	if strings.HasSuffix(pattern, "/") {
		for i := range paths {
			paths[i] += "/"
		}
	}
	slices.Sort(paths)
	return paths, nil
}

// hasMeta reports an unescaped wildcard in one pattern component.
func hasMeta(c string) bool {
	for i := 0; i < len(c); i++ {
		switch c[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// unescapeGlob removes the pattern escapes literal() added.
func unescapeGlob(c string) string {
	if !strings.Contains(c, "\\") {
		return c
	}
	var b strings.Builder
	for i := 0; i < len(c); i++ {
		if c[i] == '\\' && i+1 < len(c) {
			i++
		}
		b.WriteByte(c[i])
	}
	return b.String()
}
