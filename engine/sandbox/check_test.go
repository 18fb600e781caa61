package sandbox

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

var uEscape = regexp.MustCompile(`\{U\+([0-9A-Fa-f]{4,6})\}`)

// decodeLine turns {U+XXXX} into the rune, so that the corpus can hold invisible and
// control characters while staying readable.
func decodeLine(s string) string {
	return uEscape.ReplaceAllStringFunc(s, func(m string) string {
		n, _ := strconv.ParseInt(uEscape.FindStringSubmatch(m)[1], 16, 32)
		return string(rune(n))
	})
}

type adversarial struct {
	line    int
	command string
	rule    string
}

func loadAdversarial(t *testing.T) []adversarial {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "..", "testdata", "exec", "adversarial.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []adversarial
	rule := ""
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# rule: "):
			rule = strings.TrimSpace(strings.TrimPrefix(line, "# rule: "))
		case strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "":
		default:
			if rule == "" {
				t.Fatalf("line %d: command before any # rule: header", n)
			}
			out = append(out, adversarial{n, decodeLine(line), rule})
		}
	}
	return out
}

// TestAdversarialCorpus: every adversarial command is refused by Check with its rule, and
// by Runner.Shell before any process starts (counter unchanged, no marker file).
func TestAdversarialCorpus(t *testing.T) {
	cases := loadAdversarial(t)
	if len(cases) < 100 {
		t.Fatalf("corpus has %d commands, want at least 100", len(cases))
	}
	rules := map[string]int{}
	p := policy.Default()
	r := NewRunner(p, nil)
	defer r.Close()
	dir, err := r.WorkDir()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		rules[c.rule]++
		argv, err := Check(p, c.command)
		if err == nil {
			t.Errorf("line %d: %q accepted as %q, want refusal %s", c.line, c.command, argv, c.rule)
			continue
		}
		if got := RuleOf(err); got != c.rule {
			t.Errorf("line %d: %q refused by rule %q (%v), want %q", c.line, c.command, got, err, c.rule)
		}
		e := werr.As(err)
		if e.Code == werr.BlockedByPolicy && (e.Hint == "" || !strings.Contains(e.Message, c.rule)) {
			t.Errorf("line %d: refusal %v lacks the rule name or a hint", c.line, e)
		}
		before := r.started.Load()
		res, err := r.Shell(context.Background(), c.command, dir, 0)
		if err == nil || res != nil {
			t.Errorf("line %d: Shell ran %q: %+v", c.line, c.command, res)
		}
		if r.started.Load() != before {
			t.Errorf("line %d: a process was started for %q", c.line, c.command)
		}
		if _, err := os.Stat(filepath.Join(dir, "PWNED")); err == nil {
			t.Fatalf("line %d: marker file created by %q", c.line, c.command)
		}
	}
	if n, _ := os.ReadDir(dir); len(n) != 0 {
		t.Errorf("the scratch directory is not empty: %v", n)
	}
	t.Logf("%d adversarial commands over %d rules refused", len(cases), len(rules))
}

func TestCheckArgv(t *testing.T) {
	p := policy.Default()
	noPython := func(name string) (string, error) {
		if name == "python" {
			return "", os.ErrNotExist
		}
		return "/usr/bin/" + name, nil
	}
	cases := []struct {
		cmd  string
		want []string
	}{
		{`git commit -m "a message; with | specials & more"`, []string{"git", "commit", "-m", "a message; with | specials & more"}},
		{`git log --format='%H %s' -n 3`, []string{"git", "log", "--format=%H %s", "-n", "3"}},
		{`grep -n a\|b hello.txt`, []string{"grep", "-n", "a|b", "hello.txt"}},
		{`grep -n "a\"b\\c\x" f`, []string{"grep", "-n", `a"b\c\x`, "f"}},
		{`dir -la`, []string{"ls", "-la"}},
		{`type a.txt`, []string{"cat", "a.txt"}},
		{`where git`, []string{"which", "git"}},
		{`findstr -n x f`, []string{"grep", "-n", "x", "f"}},
		{`copy a b`, []string{"cp", "a", "b"}},
		{`move a b`, []string{"mv", "a", "b"}},
		{`del a`, []string{"rm", "a"}},
		{`robocopy -a src dst`, []string{"rsync", "-a", "src", "dst"}},
		{`Git.EXE status`, []string{"git", "status"}},
		{`python script.py`, []string{"python3", "script.py"}},
		{`git stash show stash@{0}`, []string{"git", "stash", "show", "stash@{0}"}},
		{`git log HEAD~1 -n 1`, []string{"git", "log", "HEAD~1", "-n", "1"}},
		{`git log --format=%an%n`, []string{"git", "log", "--format=%an%n"}},
		{`grep -n 'foo$' f`, []string{"grep", "-n", "foo$", "f"}},
		{`git commit -m "100%"`, []string{"git", "commit", "-m", "100%"}},
		{`rm -r dir`, []string{"rm", "-r", "dir"}},
		{`rm -f file`, []string{"rm", "-f", "file"}},
		{`rm -- -rf`, []string{"rm", "--", "-rf"}},
		{`node script.js -e x`, []string{"node", "script.js", "-e", "x"}},
		{`python script.py -c x`, []string{"python3", "script.py", "-c", "x"}},
		{`npm install lodash@4.17.21`, []string{"npm", "install", "lodash@4.17.21"}},
		{`npm install @types/node`, []string{"npm", "install", "@types/node"}},
		{`pip install requests==2.31.0`, []string{"pip", "install", "requests==2.31.0"}},
		{`git config --get user.name`, []string{"git", "config", "--get", "user.name"}},
		{`git config --unset core.hooksPath`, []string{"git", "config", "--unset", "core.hooksPath"}},
		{`cargo run -- --config x`, []string{"cargo", "run", "--", "--config", "x"}},
		{"git\tstatus", []string{"git", "status"}},
		{`git commit -m ""`, []string{"git", "commit", "-m", ""}},
		{`mkdir "名前"`, []string{"mkdir", "名前"}},
		{`ls src/*.py`, []string{"ls", "src/*.py"}},
		{`ls ~/project ~`, []string{"ls", "/home/u/project", "/home/u"}},
		{`ls '~'/x`, []string{"ls", "~/x"}},
		{`git log a{b}c`, []string{"git", "log", "a{b}c"}},
	}
	for _, c := range cases {
		words, err := linuxDialect.check(p, c.cmd, noPython, []string{"HOME=/home/u"})
		if err != nil {
			t.Errorf("%q refused: %v", c.cmd, err)
			continue
		}
		if argv := values(words); !reflect.DeepEqual(argv, c.want) {
			t.Errorf("%q = %q, want %q", c.cmd, argv, c.want)
		}
	}
}

func TestCheckPolicy(t *testing.T) {
	p := policy.Default()
	p.AllowedCommands = []string{"git", "sudo", "bash"}
	p.ExtraBlockedPatterns = []string{`(?i)\bpush\b`}
	for cmd, rule := range map[string]string{
		"ls":              "program-not-allowed",
		"sudo ls":         "privilege-escalation",
		"bash x.sh":       "shell-program",
		"git push origin": "extra-blocked-pattern",
		"":                "empty-command",
		"   ":             "empty-command",
	} {
		_, err := Check(p, cmd)
		if RuleOf(err) != rule {
			t.Errorf("%q: rule %q (%v), want %q", cmd, RuleOf(err), err, rule)
		}
	}
	if _, err := Check(p, "git status"); err != nil {
		t.Errorf("git status refused: %v", err)
	}
	if _, err := Check(p, strings.Repeat("a", MaxCommandBytes+1)); werr.CodeOf(err) != werr.InvalidArgument {
		t.Errorf("overlong command: %v", err)
	}
	if _, err := Check(nil, "notepad x"); werr.CodeOf(err) != werr.Unsupported {
		t.Errorf("notepad: %v", err)
	}
}

// TestAllowlistAliases: an entry allows its program under the Linux name and every
// Windows name that runs it, in either direction.
func TestAllowlistAliases(t *testing.T) {
	for _, c := range []struct {
		allow []string
		cmd   string
		ok    bool
	}{
		{[]string{"ls"}, "dir", true},
		{[]string{"dir"}, "ls", true},
		{[]string{"RM"}, "del x", true},
		{[]string{"del"}, "rm x", true},
		{[]string{"mkdir"}, "md x", false},
		{[]string{"python"}, "python3 x.py", true},
		{[]string{"dir"}, "cat x", false},
		{[]string{"python3"}, "pip x", false},
		{[]string{""}, "cat x", false},
	} {
		p := policy.Default()
		p.AllowedCommands = c.allow
		_, err := linuxDialect.check(p, c.cmd, nil, nil)
		if got := err == nil; got != c.ok {
			t.Errorf("allow %q, %q: %v, want allowed=%v", c.allow, c.cmd, err, c.ok)
		}
	}
}

// TestAllowedPrograms: the rendered list names every spelling Check accepts for the
// default policy, and no program it refuses whatever the policy says.
func TestAllowedPrograms(t *testing.T) {
	p := policy.Default()
	got := linuxDialect.allowedPrograms(p)
	want := "git, npm, dotnet, python, cargo, node, pip, ls/dir, mkdir, rm/del, cp/copy, mv/move, rsync/robocopy, grep/findstr, which/where, cat/type, find, wc, head, tail, sort, uniq, go"
	if got != want {
		t.Errorf("AllowedPrograms = %q, want %q", got, want)
	}
	for _, group := range strings.Split(got, ", ") {
		for _, name := range strings.Split(group, "/") {
			if e := linuxDialect.alwaysRefused(name); e != nil || !linuxDialect.allowed(p, name) {
				t.Errorf("%s is listed but refused: %v", name, e)
			}
		}
	}
	p.AllowedCommands = []string{"git", "sudo", "notepad", "Git", ""}
	if got := linuxDialect.allowedPrograms(p); got != "git" {
		t.Errorf("AllowedPrograms = %q, want only git", got)
	}
}

func TestScrubEnv(t *testing.T) {
	in := []string{"PATH=/usr/bin", "HOME=/root", "NODE_OPTIONS=--require /x.js", "PYTHONSTARTUP=/x.py", "PYTHONPATH=/x",
		"npm_config_script_shell=/x", "NPM_CONFIG_PREFIX=/x", "GIT_DIR=/x", "GIT_SSH_COMMAND=x", "LD_PRELOAD=/x.so",
		"LD_LIBRARY_PATH=/x", "BASH_ENV=/x", "ENV=/x", "LANG=C.UTF-8", "DISPLAY=:5", "PIP_INDEX_URL=http://x",
		"RUSTC_WRAPPER=/x", "BASH_FUNC_x%%=() { id; }", "EDITOR=vi", "TMPDIR=/var/x"}
	out := ScrubEnv(in)
	got := map[string]string{}
	for _, kv := range out {
		k, v, _ := strings.Cut(kv, "=")
		got[k] = v
	}
	for _, k := range []string{"NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONPATH", "npm_config_script_shell", "NPM_CONFIG_PREFIX",
		"GIT_DIR", "GIT_SSH_COMMAND", "LD_PRELOAD", "LD_LIBRARY_PATH", "BASH_ENV", "ENV", "PIP_INDEX_URL", "RUSTC_WRAPPER",
		"BASH_FUNC_x%%", "EDITOR"} {
		if _, ok := got[k]; ok {
			t.Errorf("%s survived scrubbing", k)
		}
	}
	for k, v := range map[string]string{"PATH": "/usr/bin", "HOME": "/root", "LANG": "C.UTF-8", "DISPLAY": ":5", "TMPDIR": "/tmp", "GIT_EDITOR": ":"} {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
