package repl

import (
	"errors"
	"strings"
	"unicode"
)

// The REPL splits a line the way a POSIX shell splits a simple command, and does
// nothing else: no variables, globs, pipes or redirections. What people type into
// `type-text` ("$5 > 3 * 2") must arrive as typed, and a real shell is one `!`
// away if they want expansion.
//
//   - blanks separate words;
//   - '...' keeps everything literally;
//   - "..." keeps everything literally except \" \\ \$ and \` (and \newline);
//   - outside quotes, a backslash makes the next character literal.

// errUnterminated is returned for a line that ends inside quotes or after a backslash.
var errUnterminated = errors.New("unterminated quote or trailing backslash")

// scan is the result of splitting a (possibly unfinished) line.
type scan struct {
	words []string
	// open reports that the line ended inside a word (no blank after it): the last
	// element of words is then the partial word being typed.
	open bool
	// quote is the quote the line ended inside (0, '\'' or '"'); escaped reports a
	// trailing backslash.
	quote   rune
	escaped bool
	// start is the byte offset in the line where the last (open) word begins.
	start int
}

func scanLine(line string) scan {
	var s scan
	var cur strings.Builder
	inWord := false
	for i, r := range line {
		switch {
		case s.escaped:
			s.escaped = false
			if s.quote == '"' && !strings.ContainsRune("\"\\$`\n", r) {
				cur.WriteRune('\\')
			}
			if r != '\n' {
				cur.WriteRune(r)
			}
		case s.quote == '\'':
			if r == '\'' {
				s.quote = 0
			} else {
				cur.WriteRune(r)
			}
		case s.quote == '"':
			switch r {
			case '"':
				s.quote = 0
			case '\\':
				s.escaped = true
			default:
				cur.WriteRune(r)
			}
		case r == ' ' || r == '\t' || r == '\n' || r == '\r':
			if inWord {
				s.words = append(s.words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			if !inWord {
				inWord = true
				s.start = i
			}
			switch r {
			case '\\':
				s.escaped = true
			case '\'', '"':
				s.quote = r
			default:
				cur.WriteRune(r)
			}
		}
	}
	if inWord {
		s.words = append(s.words, cur.String())
		s.open = true
	} else {
		s.start = len(line)
	}
	return s
}

// splitWords turns a command line into its literal words.
func splitWords(line string) ([]string, error) {
	s := scanLine(line)
	if s.quote != 0 || s.escaped {
		return nil, errUnterminated
	}
	return s.words, nil
}

// quoteWord returns w as the user would have to type it to get w back as one word.
func quoteWord(w string) string {
	if w == "" {
		return "''"
	}
	safe := true
	for _, r := range w {
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-_./:=,+@%^", r)) {
			safe = false
			break
		}
	}
	if safe {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
