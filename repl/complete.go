package repl

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// candidate is one completion choice as cobra's __complete reports it.
type candidate struct {
	Value, Desc string
}

// completion is what Tab does to the line before the cursor.
type completion struct {
	// line is the new text before the cursor (unchanged when there is nothing to add).
	line string
	// cands are shown when more than one choice remains.
	cands []candidate
}

// complete asks a freshly built tree, through cobra's hidden __complete command (the
// same code that serves bash and zsh completion), what may follow line, and completes
// the word being typed as far as the choices agree.
func complete(newRoot func() *cobra.Command, line string) completion {
	out := completion{line: line}
	sc := scanLine(line)
	words := sc.words
	partial := ""
	if sc.open {
		partial = words[len(words)-1]
		words = words[:len(words)-1]
	} else if sc.quote != 0 || sc.escaped {
		// An empty quoted word ("" or ''): complete from nothing.
		sc.start = len(line)
		if sc.quote != 0 {
			sc.start--
		}
	}
	if len(words) > 0 && words[0] == "w365" {
		words = words[1:]
	}

	root := newRoot()
	// __complete reports an unknown command on the process's stderr, under the TUI.
	root.InitDefaultHelpCmd() // Execute adds it, but Find runs first
	if _, _, err := root.Find(words); err != nil {
		return out
	}
	var buf bytes.Buffer
	root.SetOut(&buf)
	root.SetErr(&bytes.Buffer{})
	root.SetArgs(append(append([]string{cobra.ShellCompRequestCmd}, words...), partial))
	if err := root.ExecuteContext(context.Background()); err != nil {
		return out
	}
	cands, directive := parseCompletions(buf.String())
	if len(words) == 0 {
		for _, b := range builtins {
			cands = append(cands, candidate{Value: b.name, Desc: b.desc})
		}
		sort.SliceStable(cands, func(i, j int) bool { return cands[i].Value < cands[j].Value })
	}
	if directive&cobra.ShellCompDirectiveError != 0 {
		return out
	}
	// Cobra filters commands and flags but hands fixed value lists over whole.
	var keep []candidate
	for _, c := range cands {
		// Enum values are matched case-insensitively, as the tools accept them.
		if strings.HasPrefix(strings.ToLower(c.Value), strings.ToLower(partial)) {
			keep = append(keep, c)
		}
	}
	if len(keep) == 0 && directive&(cobra.ShellCompDirectiveNoFileComp|cobra.ShellCompDirectiveFilterFileExt|cobra.ShellCompDirectiveFilterDirs) == 0 && !strings.HasPrefix(partial, "-") {
		// What a shell does when the command has no opinion (e.g. -o FILE): files.
		keep = fileCandidates(partial)
	}
	if len(keep) == 0 {
		return out
	}
	// The command's own flags first, the global ones (--session, --json, ...) after.
	global := func(c candidate) bool {
		name, ok := strings.CutPrefix(c.Value, "--")
		return ok && root.PersistentFlags().Lookup(name) != nil
	}
	sort.SliceStable(keep, func(i, j int) bool { return !global(keep[i]) && global(keep[j]) })
	head := line[:sc.start]
	if len(keep) == 1 {
		w := quoteWord(keep[0].Value)
		if directive&cobra.ShellCompDirectiveNoSpace == 0 && !strings.HasSuffix(w, "/") {
			w += " "
		}
		out.line = head + w
		return out
	}
	out.cands = keep
	common := keep[0].Value
	for _, c := range keep[1:] {
		common = commonPrefix(common, c.Value)
	}
	if len(common) > len(partial) && quoteWord(common) == common {
		out.line = head + common
	}
	return out
}

// completeValues completes partial, after head, from "value\tdescription" choices.
func completeValues(head, partial string, values []string) completion {
	out := completion{line: head + partial}
	cands, _ := parseCompletions(strings.Join(values, "\n"))
	var keep []candidate
	for _, c := range cands {
		if strings.HasPrefix(c.Value, partial) {
			keep = append(keep, c)
		}
	}
	switch len(keep) {
	case 0:
	case 1:
		out.line = head + quoteWord(keep[0].Value) + " "
	default:
		out.cands = keep
		common := keep[0].Value
		for _, c := range keep[1:] {
			common = commonPrefix(common, c.Value)
		}
		if quoteWord(common) == common {
			out.line = head + common
		}
	}
	return out
}

// builtins are the shell's own words, handled before the command tree.
var builtins = []struct{ name, desc string }{
	{"clear", "Empty the screen"},
	{"exit", "Leave the shell (the host keeps running)"},
	{"quit", "Leave the shell (the host keeps running)"},
	{"use", "Act in another session from now on: use SESSION"},
	{"watch", "Print other clients' calls on this session as they happen: watch [on|off]"},
}

// fileCandidates lists the paths that start with partial; directories end in "/".
func fileCandidates(partial string) []candidate {
	dir, base := filepath.Split(partial)
	d := dir
	if d == "" {
		d = "."
	}
	entries, err := os.ReadDir(d)
	if err != nil {
		return nil
	}
	var out []candidate
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) {
			continue
		}
		if e.IsDir() {
			name += "/"
		}
		out = append(out, candidate{Value: dir + name})
	}
	return out
}

// parseCompletions reads __complete's output: one "value\tdescription" per line, then
// ":DIRECTIVE".
func parseCompletions(s string) ([]candidate, cobra.ShellCompDirective) {
	var cands []candidate
	directive := cobra.ShellCompDirectiveDefault
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if l == "" {
			continue
		}
		if strings.HasPrefix(l, ":") {
			if n, err := strconv.Atoi(l[1:]); err == nil {
				directive = cobra.ShellCompDirective(n)
			}
			continue
		}
		v, d, _ := strings.Cut(l, "\t")
		cands = append(cands, candidate{Value: v, Desc: d})
	}
	return cands, directive
}

func commonPrefix(a, b string) string {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	// Never cut a UTF-8 sequence in half.
	for n > 0 && n < len(a) && a[n]&0xC0 == 0x80 {
		n--
	}
	return a[:n]
}
