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
// Line breaks count anywhere. In the Windows dialect (win) a backslash escapes nothing and
// cmd.exe's ^ counts anywhere.
func unquotedMeta(s string, win bool) (byte, bool) {
	sq, dq := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\n' || c == '\r' || (win && c == '^') {
			return c, true
		}
		switch {
		case sq:
			if c == '\'' {
				sq = false
			}
		case dq:
			switch {
			case c == '\\' && !win:
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
				if !win {
					i++
				}
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

func FuzzCheck(f *testing.F)        { fuzzCheck(f, linuxDialect) }
func FuzzCheckWindows(f *testing.F) { fuzzCheck(f, windowsDialect) }

// fuzzCheck: whatever d accepts holds no metacharacter a shell would act on, and its
// program is a plain bare name; in the Windows dialect no argument is a UNC path and no
// program is a shell.
func fuzzCheck(f *testing.F, d dialect) {
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
		`python script.py '$(x)'`, "git\tstatus", `"" status`, `git '' status`, `git "st"'at'us`, `a\`, `"`, `'`, `\\`,
		`type C:\x\y.txt`, `dir "C:\Program Files\"`, `del /s /q *`, `type \\h\s`, `dir ^&x`, `dir %TEMP%`, `cmd /c dir`} {
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
		words, e := d.check(p, cmd, nil, []string{"HOME=/home/u", `USERPROFILE=C:\Users\u`})
		if e != nil {
			if words != nil {
				t.Fatalf("argv %q returned with error %v", values(words), e)
			}
			return
		}
		argv := values(words)
		if c, ok := unquotedMeta(cmd, d.windows); ok {
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
		if d.windows {
			if d.alwaysRefused(strings.ToLower(argv[0])) != nil {
				t.Fatalf("accepted the refused program %q", argv[0])
			}
			for _, a := range argv[1:] {
				if uncPath(a) {
					t.Fatalf("accepted the UNC argument %q in %q", a, cmd)
				}
			}
		}
	})
}
