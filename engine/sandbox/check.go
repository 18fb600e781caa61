package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

// MaxCommandBytes is the longest command line Check accepts.
const MaxCommandBytes = 32 * 1024

// Hints reused by several rules.
const (
	hintPipe   = "run one command per call, capture the output and process it with execute_python_code"
	hintChain  = "run one command per call; to combine commands or transform output, use execute_python_code"
	hintRedir  = "redirection is not available: read files with type/cat, write them with execute_python_code (open(...).write(...)), or use the program's own output-file option"
	hintExpand = "nothing is expanded here: write the literal value (an absolute path, a name), or compute it in execute_python_code"
	hintQuote  = "put the word in single quotes if the character is meant literally"
)

// block returns a BLOCKED_BY_POLICY error that names its rule in the message and in
// Details["rule"], with the way forward as the hint.
func block(rule, hint, format string, args ...any) *werr.Error {
	e := werr.New(werr.BlockedByPolicy, "rule "+rule+": "+format, args...).WithDetail("rule", rule)
	if hint != "" {
		e = e.WithHint("%s", hint)
	}
	return e
}

// RuleOf returns the policy rule a refusal from Check, Shell or Python names, or "".
func RuleOf(err error) string {
	if err == nil {
		return ""
	}
	e := werr.As(err)
	if r, ok := e.Details["rule"].(string); ok {
		return r
	}
	return ""
}

// Check validates command against the policy alone (layer 1) and returns the argv that
// would run: argv[0] is the canonical bare program name after alias mapping (dir -> ls,
// ...), the rest are the literal arguments after quote removal. Nothing is executed.
// Program lookups (python -> python3 when python is absent) use this process's PATH.
func Check(p *policy.Policy, command string) ([]string, error) {
	words, err := check(p, command, exec.LookPath, os.Environ())
	if err != nil {
		return nil, err
	}
	return values(words), nil
}

// values are the words' texts (glob patterns as written, unexpanded).
func values(words []word) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w.value
	}
	return out
}

// check is Check with the program lookup and the environment (for %VAR% detection)
// injected, in the dialect of this system.
func check(p *policy.Policy, command string, lookPath func(string) (string, error), env []string) ([]word, *werr.Error) {
	return host().check(p, command, lookPath, env)
}

// check is the policy check in dialect d.
func (d dialect) check(p *policy.Policy, command string, lookPath func(string) (string, error), env []string) ([]word, *werr.Error) {
	if p == nil {
		p = policy.Default()
	}
	if strings.TrimSpace(command) == "" {
		return nil, werr.Invalid("command is empty").WithDetail("rule", "empty-command").
			WithHint("give one program and its arguments, e.g. git status")
	}
	if len(command) > MaxCommandBytes {
		return nil, werr.Invalid("command is %d bytes; the limit is %d", len(command), MaxCommandBytes).
			WithDetail("rule", "too-long").WithHint("put long input in a file with execute_python_code and pass the file name")
	}
	if e := scanChars(command); e != nil {
		return nil, e
	}
	if e := scanEnvRefs(command, env); e != nil {
		return nil, e
	}
	for _, pat := range p.ExtraBlockedPatterns {
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil, werr.New(werr.Internal, "policy extraBlockedPatterns entry %q is not a valid regular expression", pat)
		}
		if re.MatchString(command) {
			return nil, block("extra-blocked-pattern", "this deployment's policy forbids it; rephrase the command or use execute_python_code",
				"the command matches the blocked pattern %q of the policy", pat)
		}
	}
	if d.windows {
		if i := strings.IndexByte(command, '^'); i >= 0 {
			return nil, block("caret-escape", hintQuote+"; for git revisions write HEAD~1 instead of HEAD^",
				"^ (cmd.exe's escape character) at byte %d", i)
		}
	}
	if e := scanShell(command, d.windows); e != nil {
		return nil, e
	}
	line := command
	if d.windows {
		line = literalBackslashes(command)
	}
	words, e := parseWords(line, homeOf(env), d.windows)
	if e != nil {
		return nil, e
	}
	return d.resolveProgram(p, words, lookPath)
}

// literalBackslashes doubles every backslash outside single quotes, so that the bash
// parser reads C:\Users\me as the Windows path it is: in the Windows dialect a backslash
// is an ordinary byte, never an escape.
func literalBackslashes(s string) string {
	var b strings.Builder
	single, double := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' && !double:
			single = !single
		case c == '"' && !single:
			double = !double
		case c == '\\' && !single:
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	return b.String()
}

// scanChars refuses bytes and runes that have no business in a command line.
func scanChars(s string) *werr.Error {
	if !utf8.ValidString(s) {
		return block("invalid-utf8", "send the command as UTF-8 text", "the command is not valid UTF-8")
	}
	for i, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' || r == '\u0085':
			return block("newline", hintChain, "a line break at byte %d would start a second command; only one command per call is run", i)
		case r == '\t':
			// ordinary white space
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return block("control-char", "remove the control character; write binary data with execute_python_code", "control character U+%04X at byte %d", r, i)
		case isBidi(r):
			return block("bidi-char", "remove the bidirectional-override character; it makes the command display differently from what runs", "bidirectional control character U+%04X at byte %d", r, i)
		case isInvisible(r):
			return block("zero-width-char", "remove the invisible character; it makes the command display differently from what runs", "invisible (zero-width) character U+%04X at byte %d", r, i)
		}
	}
	return nil
}

func isBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

func isInvisible(r rune) bool {
	switch r {
	case 0x00ad, 0x034f, 0x115f, 0x1160, 0x17b4, 0x17b5, 0x180e, 0x200b, 0x200c, 0x200d, 0x2060,
		0x2061, 0x2062, 0x2063, 0x2064, 0x3164, 0xfeff, 0xffa0:
		return true
	}
	return (r >= 0xfe00 && r <= 0xfe0f) || (r >= 0xfff9 && r <= 0xfffb) || (r >= 0xe0000 && r <= 0xe0fff) ||
		unicode.Is(unicode.Cf, r)
}

// The variable patterns are compiled on first use: a one-shot CLI call, which links this
// package, runs no command.
var (
	dollarVarRe  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{|\$[A-Za-z_]`) })
	percentVarRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`%([A-Za-z_][A-Za-z0-9_()~:,=.-]*)%`) })
)

// windowsVars are the cmd.exe variables people write, matched case-insensitively.
var windowsVars = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"userprofile": true, "temp": true, "tmp": true, "appdata": true, "localappdata": true, "path": true,
		"homepath": true, "homedrive": true, "username": true, "userdomain": true, "computername": true,
		"cd": true, "date": true, "time": true, "random": true, "errorlevel": true, "programfiles": true,
		"programdata": true, "systemroot": true, "windir": true, "systemdrive": true, "public": true,
		"comspec": true, "pathext": true, "onedrive": true, "home": true, "user": true, "pwd": true, "shell": true,
		"cmdcmdline": true, "os": true, "processor_architecture": true, "number_of_processors": true,
	}
})

// scanEnvRefs refuses $VAR, ${VAR} and %VAR% anywhere, quoted or not: nothing is expanded,
// so a variable reference would reach the program as literal text the caller did not mean.
// %X% is treated as a variable when X has at least two characters and is upper case, a
// known cmd.exe variable, or set in the session environment (so git's --format=%an%n passes).
func scanEnvRefs(s string, env []string) *werr.Error {
	if loc := dollarVarRe().FindStringIndex(s); loc != nil {
		end := loc[1]
		for end < len(s) && (isNameByte(s[end]) || (s[loc[0]+1] == '{' && s[end] != '}')) {
			end++
		}
		if end < len(s) && s[end] == '}' {
			end++
		}
		return block("env-var", hintExpand, "environment variable reference %s is not expanded", s[loc[0]:end])
	}
	envNames := map[string]bool{}
	for _, kv := range env {
		if i := strings.IndexByte(kv, '='); i > 0 {
			envNames[strings.ToLower(kv[:i])] = true
		}
	}
	for _, m := range percentVarRe().FindAllStringSubmatchIndex(s, -1) {
		name := s[m[2]:m[3]]
		base := name
		if i := strings.IndexByte(base, ':'); i >= 0 { // %PATH:~0,5% and %X:a=b%
			base = base[:i]
		}
		lower := strings.ToLower(base)
		if len(base) >= 2 && (strings.ToUpper(base) == base || windowsVars()[lower] || envNames[lower]) {
			return block("env-var-percent", hintExpand, "environment variable reference %s is not expanded", s[m[0]:m[1]])
		}
	}
	return nil
}

func isNameByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// scanShell walks the command like a POSIX/bash lexer, tracking quotes, and refuses the
// first operator or expansion with a rule of its own. It runs before the parser so that
// incomplete input ("git status |") still gets a precise refusal. In the Windows dialect
// (win) a backslash is an ordinary byte.
func scanShell(s string, win bool) *werr.Error {
	const (
		plain = iota
		single
		double
	)
	first := strings.TrimLeft(s, " \t")
	if i := strings.IndexAny(first, " \t"); i >= 0 {
		first = first[:i]
	}
	switch first {
	case "{":
		return block("block", hintChain, "{ ...; } groups commands")
	case "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "select",
		"function", "time", "coproc", "[[", "]]", "((", "}":
		return block("compound-command", hintChain, "shell control structures (if, for, while, case, [[ ]], (( )), functions, time) are not available")
	}
	state := plain
	wordStart := true
	prevPlain := byte(0) // previous unquoted, unescaped byte in the current word
	for i := 0; i < len(s); i++ {
		c := s[i]
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		switch state {
		case single:
			if c == '\'' {
				state = plain
			}
			continue
		case double:
			switch c {
			case '\\':
				if !win {
					i++
				}
			case '"':
				state = plain
			case '`':
				return block("command-substitution", hintExpand, "backquote command substitution at byte %d", i)
			case '$':
				if e := dollar(s, i, true); e != nil {
					return e
				}
			}
			continue
		}
		// Unquoted.
		atStart := wordStart
		wordStart = false
		switch c {
		case ' ', '\t':
			wordStart = true
			prevPlain = 0
			continue
		case '\\':
			if win {
				break
			}
			if i+1 >= len(s) {
				return werr.Invalid("the command ends with a lone backslash").WithDetail("rule", "syntax").WithHint(hintQuote)
			}
			i++
			prevPlain = 0
			continue
		case '\'':
			state = single
			prevPlain = 0
			continue
		case '"':
			state = double
			prevPlain = 0
			continue
		case '|':
			if next == '|' {
				return block("or-list", hintChain, "|| (run the next command if this one fails) at byte %d", i)
			}
			return block("pipe", hintPipe, "pipe | at byte %d", i)
		case '&':
			switch next {
			case '&':
				return block("and-list", hintChain, "&& (run the next command if this one succeeds) at byte %d", i)
			case '>':
				return block("redirection", hintRedir, "redirection &> at byte %d", i)
			}
			return block("background", "background jobs are not available; start long-running work from execute_python_code (subprocess.Popen) and poll it", "& (run in the background or chain commands) at byte %d", i)
		case ';':
			return block("semicolon", hintChain, "; (command separator) at byte %d", i)
		case '<':
			switch next {
			case '<':
				return block("heredoc", hintRedir, "here-document or here-string << at byte %d", i)
			case '(':
				return block("process-substitution", hintExpand, "process substitution <( at byte %d", i)
			}
			return block("redirection", hintRedir, "input redirection < at byte %d", i)
		case '>':
			if next == '(' {
				return block("process-substitution", hintExpand, "process substitution >( at byte %d", i)
			}
			return block("redirection", hintRedir, "output redirection > at byte %d", i)
		case '(':
			if strings.IndexByte("?*+@!", prevPlain) >= 0 && prevPlain != 0 {
				return block("glob", hintQuote, "extended glob pattern %c( at byte %d", prevPlain, i-1)
			}
			return block("subshell", hintChain, "( starts a subshell at byte %d", i)
		case ')':
			return block("subshell", hintChain, ") ends a subshell at byte %d", i)
		case '`':
			return block("command-substitution", hintExpand, "backquote command substitution at byte %d", i)
		case '$':
			if e := dollar(s, i, false); e != nil {
				return e
			}
		case '*', '?', '[':
			// A plain wildcard is expanded by the Runner inside the working directory.
			if (c == '?' || c == '*') && next == '(' {
				return block("glob", hintQuote, "extended glob pattern %c( at byte %d", c, i)
			}
		case '~':
			// ~ and ~/x at a word start are expanded (to the session HOME); ~user and a
			// ~ after = or : (which bash expands in some places only) are refused.
			if atStart && (next == 0 || next == '/' || next == ' ' || next == '\t') {
				break
			}
			if atStart || prevPlain == '=' || prevPlain == ':' {
				return block("tilde", "write ~/PATH or the absolute path (for example "+homeHint()+")", "~ (home directory expansion) at byte %d", i)
			}
		case '#':
			if atStart {
				return block("comment", hintQuote, "# starts a comment at byte %d; everything after it would be ignored", i)
			}
		case '!':
			if next == '(' {
				return block("glob", hintQuote, "extended glob pattern !( at byte %d", i)
			}
			if atStart && (next == 0 || next == ' ' || next == '\t') {
				return block("negation", "run the command plainly and read exitCode", "! (negate the exit status) at byte %d", i)
			}
		case '{', '}':
			// Braces are literal unless they form a brace expansion or a group: the
			// parser decides (stash@{0} is fine, {a,b} is not).
		}
		prevPlain = c
	}
	if state != plain {
		return werr.Invalid("the command has an unterminated quote").WithDetail("rule", "syntax").
			WithHint("close every ' and \" you open")
	}
	return nil
}

// dollar classifies a $ at s[i]. Inside double quotes a $ that starts nothing is literal.
func dollar(s string, i int, quoted bool) *werr.Error {
	n := byte(0)
	if i+1 < len(s) {
		n = s[i+1]
	}
	switch {
	case n == '(' && i+2 < len(s) && s[i+2] == '(':
		return block("arithmetic-expansion", hintExpand, "arithmetic expansion $(( at byte %d", i)
	case n == '(':
		return block("command-substitution", hintExpand, "command substitution $( at byte %d", i)
	case n == '[':
		return block("arithmetic-expansion", hintExpand, "arithmetic expansion $[ at byte %d", i)
	case n == '{' || n == '_' || (n >= 'a' && n <= 'z') || (n >= 'A' && n <= 'Z'):
		return block("env-var", hintExpand, "variable expansion at byte %d", i)
	case (n >= '0' && n <= '9') || strings.IndexByte("@*#?-$!", n) >= 0 && n != 0:
		return block("parameter-expansion", hintExpand, "special parameter $%c at byte %d", n, i)
	case quoted:
		return nil
	case n == '\'':
		return block("ansi-c-quote", "use plain single quotes; for special bytes use execute_python_code", "$'...' (ANSI-C quoting) at byte %d", i)
	case n == '"':
		return block("ansi-c-quote", "use plain double quotes", "$\"...\" (locale translation) at byte %d", i)
	}
	return block("parameter-expansion", hintQuote, "unquoted $ at byte %d", i)
}

func homeHint() string {
	if h, err := os.UserHomeDir(); err == nil {
		return h
	}
	return "/home/NAME"
}

// parseWords parses the command with mvdan.cc/sh and returns its words after quote removal,
// refusing anything that is not one simple command made of literal words. In the Windows
// dialect (win) no word is a wildcard for w365: the program expands its own.
func parseWords(command, home string, win bool) ([]word, *werr.Error) {
	f, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return nil, werr.Invalid("the command is not valid shell syntax: %s", err.Error()).WithDetail("rule", "syntax").
			WithHint("give one program followed by literal arguments; quote arguments that contain special characters")
	}
	if len(f.Last) > 0 {
		return nil, block("comment", hintQuote, "the command contains a comment")
	}
	if len(f.Stmts) != 1 {
		return nil, block("semicolon", hintChain, "the command holds %d commands; only one is run per call", len(f.Stmts))
	}
	st := f.Stmts[0]
	switch {
	case len(st.Comments) > 0:
		return nil, block("comment", hintQuote, "the command contains a comment")
	case st.Negated:
		return nil, block("negation", "run the command plainly and read exitCode", "! negates the exit status")
	case st.Background || st.Disown:
		return nil, block("background", "start long-running work from execute_python_code and poll it", "& runs the command in the background")
	case st.Coprocess:
		return nil, block("pipe", hintPipe, "|& coprocess")
	case len(st.Redirs) > 0:
		op := st.Redirs[0].Op
		if op == syntax.Hdoc || op == syntax.DashHdoc || op == syntax.WordHdoc {
			return nil, block("heredoc", hintRedir, "here-document %s", op)
		}
		return nil, block("redirection", hintRedir, "redirection %s", op)
	}
	var call *syntax.CallExpr
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		call = c
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt:
			return nil, block("and-list", hintChain, "&& chains commands")
		case syntax.OrStmt:
			return nil, block("or-list", hintChain, "|| chains commands")
		}
		return nil, block("pipe", hintPipe, "pipe %s", c.Op)
	case *syntax.Subshell:
		return nil, block("subshell", hintChain, "( ... ) runs a subshell")
	case *syntax.Block:
		return nil, block("block", hintChain, "{ ...; } groups commands")
	case *syntax.DeclClause, *syntax.LetClause:
		return nil, block("assignment", hintExpand, "shell variable declarations are not available")
	default:
		return nil, block("compound-command", hintChain, "shell control structures (if, for, while, case, [[ ]], (( )), functions, time) are not available")
	}
	if call == nil || len(call.Assigns) > 0 {
		return nil, block("assignment", "environment variables cannot be set for a command; use execute_python_code with subprocess.run(..., env=...) if you need that", "leading variable assignment")
	}
	words := make([]word, 0, len(call.Args))
	for _, w := range call.Args {
		s, e := literal(w, home)
		if e != nil {
			return nil, e
		}
		if e := homeDotPath(w, s.value, home); e != nil {
			return nil, e
		}
		if win && len(words) > 0 {
			s.glob = false
		}
		if s.glob && (filepath.IsAbs(s.pattern) || slices.Contains(strings.Split(s.pattern, "/"), "..")) {
			return nil, block("glob", "wildcards are expanded inside the working directory only: set cwd to the directory and use a relative pattern",
				"the pattern %q reaches outside the working directory", s.value)
		}
		words = append(words, s)
	}
	return words, nil
}

// homeDotPath refuses a ~/ path into a dot entry of HOME (~/.ssh, ~/.bashrc) or ~/snap
// (policy.ProgramsOwn): the sandbox never shows them, and naming them is how an injected
// prompt goes looking for secrets.
func homeDotPath(w *syntax.Word, value, home string) *werr.Error {
	if len(w.Parts) == 0 || home == "" {
		return nil
	}
	if lit, ok := w.Parts[0].(*syntax.Lit); !ok || !strings.HasPrefix(lit.Value, "~") {
		return nil
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(value, strings.TrimRight(home, "/")), "/")
	first, _, _ := strings.Cut(rel, "/")
	if policy.ProgramsOwn(first) {
		return block("tilde", "work in a project directory under HOME; dot-files and dot-directories of HOME and ~/snap are not visible in the sandbox",
			"%s is programs' own configuration in the home directory (a dot-entry, or ~/snap)", value)
	}
	return nil
}

// word is one command-line word after quote removal. A word with an unquoted wildcard
// (* ? [) is a glob: pattern is its filepath.Match form (quoted and escaped wildcards
// escaped), expanded by the Runner inside the working directory (expandGlobs).
type word struct {
	value   string
	pattern string
	glob    bool
}

// literal returns a word's value after quote removal (a leading unquoted ~ or ~/ becomes
// home), or a refusal if any part of it would be expanded by a shell in a way we do not
// reproduce.
func literal(w *syntax.Word, home string) (word, *werr.Error) {
	var b, pat, unq strings.Builder // value, glob pattern, unquoted shape (quoted bytes as 'x')
	quoted := func(s string) {
		b.WriteString(s)
		for i := 0; i < len(s); i++ {
			if strings.IndexByte("*?[\\", s[i]) >= 0 {
				pat.WriteByte('\\')
			}
			pat.WriteByte(s[i])
		}
		unq.WriteString(strings.Repeat("x", len(s)))
	}
	glob := false
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && (v == "~" || strings.HasPrefix(v, "~/")) {
				if home == "" {
					return word{}, block("tilde", "write the absolute path instead of ~", "~ cannot be expanded: the session has no home directory")
				}
				quoted(home)
				v = v[1:]
			}
			for j := 0; j < len(v); j++ {
				c := v[j]
				if c == '\\' && j+1 < len(v) {
					quoted(v[j+1 : j+2])
					j++
					continue
				}
				if c == '*' || c == '?' || c == '[' {
					glob = true
				}
				b.WriteByte(c)
				pat.WriteByte(c)
				unq.WriteByte(c)
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return word{}, block("ansi-c-quote", "use plain single quotes", "$'...' (ANSI-C quoting)")
			}
			quoted(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return word{}, block("ansi-c-quote", "use plain double quotes", "$\"...\" (locale translation)")
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return word{}, block("parameter-expansion", hintExpand, "expansion inside double quotes")
				}
				quoted(unescape(lit.Value, true))
			}
		case *syntax.ParamExp:
			return word{}, block("parameter-expansion", hintExpand, "parameter expansion")
		case *syntax.CmdSubst:
			return word{}, block("command-substitution", hintExpand, "command substitution")
		case *syntax.ArithmExp:
			return word{}, block("arithmetic-expansion", hintExpand, "arithmetic expansion")
		case *syntax.ProcSubst:
			return word{}, block("process-substitution", hintExpand, "process substitution")
		case *syntax.ExtGlob:
			return word{}, block("glob", hintQuote, "extended glob pattern")
		case *syntax.BraceExp:
			return word{}, block("brace-expansion", hintQuote, "brace expansion")
		default:
			return word{}, block("syntax", hintQuote, "unsupported word part %T", part)
		}
	}
	if braceExpands(unq.String()) {
		return word{}, block("brace-expansion", hintQuote+"; braces with a comma or .. are expanded by shells, write each word out", "brace expansion in %q", b.String())
	}
	return word{value: b.String(), pattern: pat.String(), glob: glob}, nil
}

// braceExpands reports whether the unquoted shape of a word (quoted bytes replaced by a
// neutral byte) holds a brace pair with a comma or a .. inside, which a shell would
// expand; {0} and {} stay literal. It is one linear pass, so a long run of unbalanced
// braces costs no more than any other byte (mvdan's SplitBraces is quadratic there, and
// stalled the fuzzer on 2 KB of "{a,").
func braceExpands(s string) bool {
	var open []bool // per open brace: a separator seen inside it
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			open = append(open, false)
		case ',':
			if len(open) > 0 {
				open[len(open)-1] = true
			}
		case '.':
			if len(open) > 0 && i+1 < len(s) && s[i+1] == '.' {
				open[len(open)-1] = true
			}
		case '}':
			if len(open) > 0 {
				if open[len(open)-1] {
					return true
				}
				open = open[:len(open)-1]
			}
		}
	}
	return false
}

// unescape removes backslash quoting: unquoted, \x is x; inside double quotes only
// \$ \` \" \\ lose their backslash.
func unescape(v string, dq bool) string {
	if !strings.Contains(v, "\\") {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			n := v[i+1]
			if !dq || strings.IndexByte("$`\"\\", n) >= 0 {
				b.WriteByte(n)
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}
