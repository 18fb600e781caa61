package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/engine/policy"
)

// unquotedMeta is an independent oracle: the first shell metacharacter that a POSIX shell
// would act on (outside quotes and backslash escapes), or an expansion inside double quotes.
// Line breaks count anywhere.
func unquotedMeta(s string) (byte, bool) {
	sq, dq := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' || c == '\r' {
			return c, true
		}
		switch {
		case sq:
			if c == '\'' {
				sq = false
			}
		case dq:
			switch {
			case c == '\\':
				i++
			case c == '"':
				dq = false
			case c == '`':
				return c, true
			case c == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{' || s[i+1] == '_' ||
				(s[i+1]|0x20 >= 'a' && s[i+1]|0x20 <= 'z') || (s[i+1] >= '0' && s[i+1] <= '9')):
				return c, true
			}
		default:
			switch c {
			case '\\':
				i++
			case '\'':
				sq = true
			case '"':
				dq = true
			case '|', '&', ';', '<', '>', '(', ')', '$', '`':
				// Plain wildcards (* ? [) are expanded by the Runner inside the working
				// directory; extended globs need a '(' and are caught by it.
				return c, true
			}
		}
	}
	return 0, false
}

func FuzzCheck(f *testing.F) {
	for _, name := range []string{"adversarial.txt", "everyday.txt"} {
		fh, err := os.Open(filepath.Join("..", "..", "testdata", "exec", name))
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "#") || line == "" {
				continue
			}
			cmd, _, _ := strings.Cut(line, " => ")
			f.Add(decodeLine(cmd))
		}
		fh.Close()
	}
	for _, s := range []string{"git status", `git commit -m "a;b"`, `grep -n a\|b f`, "rm -r\\f x", `git log "$"`,
		`python script.py '$(x)'`, "git\tstatus", `"" status`, `git '' status`, `git "st"'at'us`, `a\`, `"`, `'`, `\\`} {
		f.Add(s)
	}
	// Inputs that once took seconds: unbalanced braces at the size cap (quadratic in
	// mvdan's SplitBraces; now one linear pass).
	for _, unit := range []string{"{", "{,", "{a,", "{..", "{{,}", "{\\,"} {
		s := "git "
		for len(s)+len(unit) <= MaxCommandBytes {
			s += unit
		}
		f.Add(s)
	}
	p := policy.Default()
	f.Fuzz(func(t *testing.T, cmd string) {
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				panic(fmt.Sprintf("Check hangs on %q", cmd))
			}
		}()
		argv, err := Check(p, cmd)
		if err != nil {
			if argv != nil {
				t.Fatalf("argv %q returned with error %v", argv, err)
			}
			return
		}
		if c, ok := unquotedMeta(cmd); ok {
			t.Fatalf("accepted %q (argv %q) with unquoted metacharacter %q", cmd, argv, c)
		}
		if len(argv) == 0 || argv[0] == "" || strings.ContainsAny(argv[0], "/\\") {
			t.Fatalf("accepted %q with program %q", cmd, argv)
		}
		for _, r := range argv[0] {
			if r > 0x7e || r <= 0x20 {
				t.Fatalf("accepted non-ASCII program %q", argv[0])
			}
		}
		if strings.ContainsAny(cmd, "\x00\n\r") {
			t.Fatalf("accepted control characters in %q", cmd)
		}
	})
}
