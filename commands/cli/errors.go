package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/engine/werr"
)

// ExitStatus is a command that ran and wants the process to end with Code without an
// error line: exec and py pass on their child's status. Note, when set, goes to stderr.
type ExitStatus struct {
	Code int
	Note string
}

func (e *ExitStatus) Error() string {
	if e.Note != "" {
		return e.Note
	}
	return fmt.Sprintf("exit status %d", e.Code)
}

// Report prints err the way the CLI does (one line, "w365: CODE: message (hint)", hint
// in CLI words) and returns the process status for it.
func Report(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var st *ExitStatus
	if errors.As(err, &st) {
		if st.Note != "" {
			fmt.Fprintln(stderr, "w365:", st.Note)
		}
		return st.Code
	}
	e := ForCLI(Normalize(err), "w365 ")
	msg := "w365: " + e.Error()
	if isTerminal(stderr) {
		msg = terminalText(msg)
	}
	fmt.Fprintln(stderr, paint(Colour(isTerminal(stderr)), sgrRed, msg))
	return ExitCode(e)
}

// isTerminal says whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// Normalize returns err's *werr.Error; anything else is cobra or pflag rejecting the
// command line, which is a usage error (INVALID_ARGUMENT).
func Normalize(err error) *werr.Error {
	var e *werr.Error
	if errors.As(err, &e) {
		return e
	}
	msg := strings.TrimSpace(err.Error())
	msg = strings.TrimSpace(strings.TrimSuffix(msg, "Run 'w365 --help' for usage."))
	return werr.Wrap(err, werr.InvalidArgument, "%s", msg)
}

var toolNameRE = sync.OnceValue(func() *regexp.Regexp {
	var names []string
	for _, t := range commands.All() {
		// One-word names (click, scroll) read the same either way, and matching them
		// would rewrite ordinary words.
		if strings.Contains(t.Name, "_") {
			names = append(names, regexp.QuoteMeta(t.Name))
		}
	}
	// Longest first, so browser_click_ref is not read as browser_click + _ref.
	slices.SortFunc(names, func(a, b string) int { return len(b) - len(a) })
	return regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
})

// ForCLI returns a copy of e in the words of the command line: the commands a person
// types (prefix + "list-windows") instead of the MCP tools (list_windows), flags
// (--snapshot-id) instead of parameters ("snapshotId"), and, in the REPL (prefix ""),
// hints without the "w365 " one does not type there. MCP keeps its own words; only
// the CLI and the REPL print through this.
func ForCLI(e *werr.Error, prefix string) *werr.Error {
	c := *e
	re := toolNameRE()
	repl := func(name string) string {
		if t := commands.Lookup(name); t != nil {
			return prefix + strings.Join(t.Path, " ")
		}
		return name
	}
	c.Message = re.ReplaceAllStringFunc(c.Message, repl)
	c.Hint = re.ReplaceAllStringFunc(c.Hint, repl)
	c.Message = parameterRE().ReplaceAllStringFunc(c.Message, func(m string) string {
		return "flag --" + flagName(parameterRE().FindStringSubmatch(m)[1])
	})
	if prefix == "" {
		c.Hint = cliCommandRE().ReplaceAllString(c.Hint, "$1")
	}
	return &c
}

// parameterRE is how the tools name a parameter in a message: parameter "snapshotId".
// Like every regexp and template of the CLI it is compiled on first use, never at start.
var parameterRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`parameter "([A-Za-z][A-Za-z0-9]*)"`) })

// cliCommandRE matches "w365 COMMAND" in a hint, for every top-level command.
var cliCommandRE = sync.OnceValue(func() *regexp.Regexp {
	seen := map[string]bool{}
	names := []string{"host", "trace", "watch", "serve", "doctor", "repl", "help", "version"}
	for _, t := range commands.All() {
		if len(t.Path) > 0 && !seen[t.Path[0]] {
			seen[t.Path[0]] = true
			names = append(names, regexp.QuoteMeta(t.Path[0]))
		}
	}
	return regexp.MustCompile(`\bw365 ((?:` + strings.Join(names, "|") + `)\b)`)
})

// nearFlags are the flags of cmd (its own and inherited) within two edits of name.
func nearFlags(cmd *cobra.Command, name string) []string {
	var out []string
	visit := func(f *pflag.Flag) {
		if d := editDistance(name, f.Name); d <= 2 && d < len(f.Name) && !slices.Contains(out, "--"+f.Name) {
			out = append(out, "--"+f.Name)
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return out
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// unknownFlagRE is pflag's message for an unknown long flag.
var unknownFlagRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^unknown flag: --([^\s=]+)`) })

// flagError turns pflag's messages into ours: a number flag given a word says what it
// wants instead of quoting strconv.
func flagError(cmd *cobra.Command, err error) error {
	// A group parses the flags of a line whose command it does not know: the unknown
	// command is the mistake to report.
	if cmd.HasSubCommands() && len(cmd.Flags().Args()) > 0 {
		return unknownCommand(cmd, cmd.Flags().Args()[0])
	}
	var inv *pflag.InvalidValueError
	if errors.As(err, &inv) {
		f := inv.GetFlag()
		want := "a valid value"
		switch f.Value.Type() {
		case "int", "int64", "int32", "uint", "uint64", "uint32":
			want = "an integer"
		case "float64", "float32":
			want = "a number"
		case "bool":
			want = "true or false"
		case "duration":
			want = "a duration such as 500ms or 2m"
		}
		return werr.Invalid("--%s wants %s, got %q", f.Name, want, inv.GetValue()).
			WithHint("%s --help lists its flags", cmd.CommandPath())
	}
	if m := unknownFlagRE().FindStringSubmatch(err.Error()); m != nil {
		if near := nearFlags(cmd, m[1]); len(near) > 0 {
			return werr.Wrap(err, werr.InvalidArgument, "%s", err.Error()).
				WithHint("Did you mean %s? %s --help lists its flags", strings.Join(near, " or "), cmd.CommandPath())
		}
	}
	return werr.Wrap(err, werr.InvalidArgument, "%s", err.Error()).
		WithHint("%s --help lists its flags", cmd.CommandPath())
}

// groupArgs makes a command with subcommands refuse an unknown one, with suggestions:
// cobra does so only for the root, and a nested typo would print help and exit 0.
func groupArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return unknownCommand(cmd, args[0])
}

func unknownCommand(cmd *cobra.Command, name string) error {
	e := werr.Invalid("unknown command %q for %q", name, cmd.CommandPath())
	s := cmd.SuggestionsFor(name)
	for _, c := range cmd.Commands() {
		// Help topics (exit-codes) are no commands to cobra, but one may mistype them.
		if c.IsAdditionalHelpTopicCommand() && len(name) >= 3 && (strings.HasPrefix(c.Name(), name) || strings.HasPrefix(name, c.Name()[:len(c.Name())-1])) {
			s = append(s, c.Name())
		}
	}
	if len(s) > 0 {
		for i := range s {
			s[i] = cmd.CommandPath() + " " + s[i]
		}
		return e.WithHint("Did you mean %s? %s --help lists the commands", strings.Join(s, " or "), cmd.CommandPath())
	}
	return e.WithHint("%s --help lists the commands", cmd.CommandPath())
}

// strictGroups gives every command that has subcommands (the root included) the
// unknown-command check above, and help when run bare.
func strictGroups(cmd *cobra.Command) {
	if cmd.HasSubCommands() {
		cmd.SuggestionsMinimumDistance = 2
		cmd.Args = groupArgs
		if cmd.Run == nil && cmd.RunE == nil {
			cmd.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
		}
	}
	for _, c := range cmd.Commands() {
		strictGroups(c)
	}
}

// strictHelp makes `help TOPIC` refuse an unknown topic (with suggestions) instead of
// printing the root's help and succeeding.
func strictHelp(root *cobra.Command) {
	for _, h := range root.Commands() {
		if h.Name() != "help" || h.Run == nil {
			continue
		}
		show := h.Run
		h.Run = nil
		h.RunE = func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				target, rest, err := root.Find(args)
				if err != nil {
					return err
				}
				if len(rest) > 0 {
					return unknownCommand(target, rest[0])
				}
			}
			show(c, args)
			return nil
		}
	}
}
