package sandbox

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

// The Windows dialect of the policy parser, on any system: the reference's Windows
// blocked patterns are refused with their rule, and Windows command lines (backslash
// paths, switches, wildcards for the program to expand) come out as the argv that runs.

func TestWindowsDialectRefuses(t *testing.T) {
	p := policy.Default()
	env := []string{`USERPROFILE=C:\Users\me`, `TEMP=C:\Users\me\AppData\Local\Temp`, "MYTOKEN=x"}
	for _, c := range []struct{ cmd, rule string }{
		{`dir & del x`, "background"},
		{`dir && del x`, "and-list"},
		{`dir || del x`, "or-list"},
		{`dir | findstr x`, "pipe"},
		{`dir ; del x`, "semicolon"},
		{`dir > out.txt`, "redirection"},
		{`dir >> out.txt`, "redirection"},
		{`type < in.txt`, "redirection"},
		{`dir 2>&1`, "redirection"},
		{`dir %USERPROFILE%`, "env-var-percent"},
		{`dir "%TEMP%"`, "env-var-percent"},
		{`type '%userprofile%\x'`, "env-var-percent"},
		{`type %MyToken%`, "env-var-percent"},
		{`dir %PATH:~0,5%`, "env-var-percent"},
		{`dir $HOME`, "env-var"},
		{`dir ^& del x`, "caret-escape"},
		{`git show HEAD^`, "caret-escape"},
		{`findstr "a^b" x`, "caret-escape"},
		{`cmd /c dir`, "shell-program"},
		{`CMD.EXE /d /c dir`, "shell-program"},
		{`powershell -c Get-ChildItem`, "shell-program"},
		{`powershell.exe -Command "Remove-Item x"`, "shell-program"},
		{`pwsh -c ls`, "shell-program"},
		{`wscript evil.vbs`, "shell-program"},
		{`rundll32 x.dll,Entry`, "shell-program"},
		{`py -c "print(1)"`, "shell-program"},
		{`C:\Windows\System32\cmd.exe /c dir`, "program-path"},
		{`.\git.exe status`, "program-path"},
		{`C:git status`, "program-path"},
		{`python -c "print(1)"`, "python-eval"},
		{`python.exe -c "print(1)"`, "python-eval"},
		{`node -e "1"`, "node-eval"},
		{`git config --global user.name x`, "git-config-global"},
		{`npm install -g left-pad`, "npm-global"},
		{`del /s /q *`, "rm-recursive-force"},
		{`del /S/F C:\x`, "rm-recursive-force"},
		{`DEL /Q /S *.txt`, "rm-recursive-force"},
		{`rm -rf x`, "program-not-allowed"},
		{`runas /user:admin cmd`, "privilege-escalation"},
		{`sudo dir`, "privilege-escalation"},
		{`reg add HKCU\x`, "system-command"},
		{`schtasks /create /tn x`, "system-command"},
		{`taskkill /f /im x.exe`, "system-command"},
		{`format C:`, "system-command"},
		{`diskpart`, "system-command"},
		{`type \\server\share\x.txt`, "unc-path"},
		{`copy x //server/share/`, "unc-path"},
		{`dir \\.\pipe\`, "unc-path"},
		{`dir *.txt *`, ""}, // allowed: the program expands wildcards
		{"dir\r\ndel x", "newline"},
		{`(dir)`, "subshell"},
		{"dir `x`", "command-substitution"},
		{`dir $(x)`, "command-substitution"},
		{`notepad x.txt`, "gui-program"},
	} {
		_, e := windowsDialect.check(p, c.cmd, nil, env)
		got := ""
		if e != nil {
			got = RuleOf(e)
			if got == "gui-program" && e.Code != werr.Unsupported || got != "gui-program" && got != "" && e.Code != werr.BlockedByPolicy {
				t.Errorf("%s: code %s, want BLOCKED_BY_POLICY", c.cmd, e.Code)
			}
		}
		if got != c.rule {
			t.Errorf("%s: rule %q (%v), want %q", c.cmd, got, e, c.rule)
		}
	}
}

func TestWindowsDialectArgv(t *testing.T) {
	p := policy.Default()
	env := []string{`USERPROFILE=C:\Users\me`}
	for _, c := range []struct {
		cmd  string
		argv []string
	}{
		{`type C:\path\to\file.txt`, []string{"type", `C:\path\to\file.txt`}},
		{`dir /b "C:\Program Files (x86)\"`, []string{"dir", "/b", `C:\Program Files (x86)\`}},
		{`copy 'a b.txt' C:/Users/me/proj`, []string{"copy", "a b.txt", "C:/Users/me/proj"}},
		{`findstr /r "^x" a.txt`, nil}, // ^ is refused even quoted
		{`findstr /i "x\.y" a.txt`, []string{"findstr", "/i", `x\.y`, "a.txt"}},
		{`del *.log`, []string{"del", "*.log"}},
		{`git.exe log --format=%an%n`, []string{"git", "log", "--format=%an%n"}},
		{`robocopy src dst /E`, []string{"robocopy", "src", "dst", "/E"}},
		{`where git`, []string{"where", "git"}},
		{`Dir`, []string{"dir"}},
		{`python3 script.py`, []string{"python3", "script.py"}},
		{`del sub\`, []string{"del", `sub\`}},
	} {
		words, e := windowsDialect.check(p, c.cmd, nil, env)
		if c.argv == nil {
			if e == nil {
				t.Errorf("%s: allowed as %q, want a refusal", c.cmd, values(words))
			}
			continue
		}
		if e != nil {
			t.Errorf("%s: %v", c.cmd, e)
			continue
		}
		if got := values(words); !slices.Equal(got, c.argv) {
			t.Errorf("%s: argv %q, want %q", c.cmd, got, c.argv)
		}
		for _, w := range words {
			if w.glob {
				t.Errorf("%s: %q is a glob for w365; on Windows the program expands it", c.cmd, w.value)
			}
		}
	}
	// The Windows names are the programs themselves, not aliases of Linux ones.
	if got := windowsDialect.allowedPrograms(p); !strings.HasPrefix(got, "git, npm, dotnet, python, cargo, node, pip, dir, mkdir, del, copy, move, robocopy, findstr, where, type") {
		t.Errorf("allowed programs on Windows: %q", got)
	}
}

func TestWindowsEnv(t *testing.T) {
	got := WindowsEnv([]string{`Path=C:\Windows\system32;relative;\\server\bin;C:/Tools`, `SystemRoot=C:\Windows`,
		`=C:=C:\x`, "GITHUB_TOKEN=secret", "NODE_OPTIONS=--require x", "PYTHONPATH=x", `userprofile=C:\Users\me`, "HTTPS_PROXY=x"})
	for _, want := range []string{`Path=C:\Windows\system32;C:/Tools`, `SystemRoot=C:\Windows`, `userprofile=C:\Users\me`, "PYTHONIOENCODING=utf-8", "GIT_TERMINAL_PROMPT=0"} {
		if !slices.Contains(got, want) {
			t.Errorf("WindowsEnv lacks %q: %q", want, got)
		}
	}
	for _, kv := range got {
		for _, bad := range []string{"GITHUB_TOKEN", "NODE_OPTIONS", "PYTHONPATH=", "HTTPS_PROXY", "=C:", "TMPDIR", "TERM="} {
			if strings.HasPrefix(kv, bad) {
				t.Errorf("WindowsEnv keeps %q", kv)
			}
		}
	}
}

// TestBuiltins runs the cmd.exe built-ins (w365's own code) in a temporary directory.
func TestBuiltins(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	run := func(name string, args ...string) (int, string, string) {
		var out, errb bytes.Buffer
		code, ok := RunBuiltin(name, args, &out, &errb)
		if !ok {
			t.Fatalf("%s is not a built-in", name)
		}
		return code, out.String(), errb.String()
	}
	must := func(name string, args ...string) string {
		t.Helper()
		code, out, errs := run(name, args...)
		if code != 0 {
			t.Fatalf("%s %q: exit %d, %s", name, args, code, errs)
		}
		return out
	}
	os.WriteFile("a.txt", []byte("alpha"), 0o644)
	os.WriteFile("B.TXT", []byte("beta"), 0o644)
	must("mkdir", "sub/deep", "other")
	if code, _, errs := run("mkdir", "sub"); code != 1 || !strings.Contains(errs, "already exists") {
		t.Errorf("mkdir sub again: exit %d, %q", code, errs)
	}
	if out := must("copy", "/Y", "*.txt", "sub"); !strings.Contains(out, "2 file(s) copied.") {
		t.Errorf("copy *.txt sub: %q", out)
	}
	if out := must("dir", "/B", "sub"); out != "B.TXT\na.txt\ndeep\n" {
		t.Errorf("dir /B sub: %q", out)
	}
	if out := must("dir", "sub"); !strings.Contains(out, " Directory of "+filepath.Join(dir, "sub")) ||
		!strings.Contains(out, "<DIR>          deep") || !strings.Contains(out, "2 File(s)              9 bytes") {
		t.Errorf("dir sub:\n%s", out)
	}
	if out := must("dir", "/b", "/s", "*.txt"); !strings.Contains(out, filepath.Join(dir, "sub", "a.txt")) {
		t.Errorf("dir /b /s *.txt: %q", out)
	}
	if out := must("type", "sub/a.txt"); out != "alpha" {
		t.Errorf("type: %q", out)
	}
	if code, _, errs := run("type", "sub"); code != 1 || !strings.Contains(errs, "Access is denied.") {
		t.Errorf("type of a directory: exit %d, %q", code, errs)
	}
	if code, _, errs := run("copy", "a.txt+B.TXT", "c.txt"); code != 1 || !strings.Contains(errs, "execute_python_code") {
		t.Errorf("copy a+b: exit %d, %q", code, errs)
	}
	if code, _, errs := run("copy", "a.txt", "a.txt"); code != 1 || !strings.Contains(errs, "onto itself") {
		t.Errorf("copy onto itself: exit %d, %q", code, errs)
	}
	must("move", "sub/a.txt", "other/moved.txt")
	must("move", "/y", "sub/B.TXT", "other/moved.txt") // replaces
	if b, _ := os.ReadFile("other/moved.txt"); string(b) != "beta" {
		t.Errorf("move /y over a file: %q", b)
	}
	must("move", "other", "sub/deep")
	if _, err := os.Stat("sub/deep/other/moved.txt"); err != nil {
		t.Errorf("move of a directory: %v", err)
	}
	os.WriteFile("sub/deep/ro.txt", []byte("x"), 0o444)
	if code, _, errs := run("del", "sub/deep/*.txt"); code != 0 || !strings.Contains(errs, "Access is denied.") {
		t.Errorf("del of a read-only file without /F: exit %d, %q", code, errs)
	}
	must("del", "/f", "sub/deep/ro.txt")
	if out := must("del", "/s", "*.txt"); !strings.Contains(out, "Deleted file - "+filepath.Join(dir, "sub", "deep", "other", "moved.txt")) {
		t.Errorf("del /s *.txt: %q", out)
	}
	if code, _, errs := run("del", "nothing.txt"); code != 1 || !strings.Contains(errs, "Could Not Find") {
		t.Errorf("del of a missing file: exit %d, %q", code, errs)
	}
	if code, _, errs := run("dir", "/q/zz"); code != 1 || !strings.Contains(errs, `Invalid switch - "zz".`) {
		t.Errorf("dir /zz: exit %d, %q", code, errs)
	}
	if code, _, errs := run("dir", "missing*"); code != 1 || !strings.Contains(errs, "File Not Found") {
		t.Errorf("dir missing*: exit %d, %q", code, errs)
	}
	if _, ok := RunBuiltin("cls", nil, &bytes.Buffer{}, &bytes.Buffer{}); ok {
		t.Error("cls is not a w365 built-in")
	}
}
