package proc

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/sys/unix"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

const examplePath = "/usr/bin/mousepad"

// maxHintNames is how many applications a refusal's hint names (its details list all).
const maxHintNames = 40

// systemPath is where the program of a desktop entry's Exec (or TryExec) is looked up
// when it is a bare name: the system's program directories, never the host's PATH (which
// may name directories under HOME that a session can write).
var systemPath = []string{"/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin", "/usr/games",
	"/usr/local/games", "/snap/bin", "/var/lib/flatpak/exports/bin"}

// referenceNames are the reference's Windows programs, by the category of desktop entry
// that stands for each on Linux (PLATFORM.md: notepad is the first text editor...).
var referenceNames = map[string]string{
	"notepad": "TextEditor", "calc": "Calculator", "mspaint": "RasterGraphics", "paint": "RasterGraphics",
	"write": "WordProcessor", "wordpad": "WordProcessor", "explorer": "FileManager",
}

// app is one thing launch_application may start.
type app struct {
	entry   *entry // nil for a program the policy names
	program string // resolved, absolute
}

// entryDirs are the applications directories of the host's XDG data directories, most
// important first ($XDG_DATA_HOME, then $XDG_DATA_DIRS), leaving out any that a session
// could write (inside a workspace root below no dot-directory, or in the temporary
// directory: allowedArgPath).
func entryDirs(o LaunchOptions) []string {
	home, _ := os.UserHomeDir()
	dataHome := os.Getenv("XDG_DATA_HOME")
	if dataHome == "" && home != "" {
		dataHome = filepath.Join(home, ".local", "share")
	}
	dirs := os.Getenv("XDG_DATA_DIRS")
	if dirs == "" {
		dirs = "/usr/local/share:/usr/share"
	}
	var out []string
	for _, d := range append([]string{dataHome}, filepath.SplitList(dirs)...) {
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Join(d, "applications")
		if r, err := filepath.EvalSymlinks(d); err == nil && !sessionWritable(r, o) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}

// catalogue reads every desktop entry under the entry directories: by desktop file ID,
// the first directory's wins, and a Hidden one hides the ID. It keeps the application
// entries whose program exists; those with NoDisplay are left out (they are helpers, not
// applications a person picks). Terminal ones are kept, to be refused by name.
func catalogue(o LaunchOptions) []app {
	seen := map[string]bool{}
	var out []app
	for _, dir := range entryDirs(o) {
		var ids []string
		files := map[string]string{}
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() && strings.Count(p[len(dir):], "/") > 3 {
				return filepath.SkipDir // subdirectories (kde4/...) nest a level or two
			}
			if !d.IsDir() && strings.HasSuffix(p, ".desktop") {
				id := strings.ReplaceAll(strings.TrimPrefix(p[len(dir):], "/"), "/", "-")
				ids = append(ids, id)
				files[id] = p
			}
			return nil
		})
		slices.Sort(ids)
		for _, id := range ids {
			if seen[id] {
				continue
			}
			seen[id] = true
			e, ok := readEntry(files[id])
			if !ok || e.Hidden || e.NoDisplay || !e.App || len(e.Exec) == 0 {
				continue
			}
			e.ID = id
			if e.TryExec != "" && programOf(e.TryExec, o) == "" {
				continue
			}
			prog := programOf(e.Exec[0].text, o)
			if prog == "" {
				continue
			}
			out = append(out, app{entry: &e, program: prog})
		}
	}
	return out
}

// programOf resolves the program of an Exec or TryExec: an absolute path as it is, a
// bare name in systemPath; symbolic links resolved; a regular executable file that no
// session can write. "" when there is none.
func programOf(name string, o LaunchOptions) string {
	var cands []string
	switch {
	case filepath.IsAbs(name):
		cands = []string{name}
	case strings.ContainsRune(name, '/'):
		return ""
	default:
		for _, d := range systemPath {
			cands = append(cands, filepath.Join(d, name))
		}
	}
	for _, c := range cands {
		r, err := filepath.EvalSymlinks(c)
		if err != nil {
			continue
		}
		fi, err := os.Stat(r)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 || unix.Access(r, unix.X_OK) != nil || sessionWritable(r, o) {
			continue
		}
		return r
	}
	return ""
}

// name is how an application is named in hints: its desktop file ID without .desktop,
// or a program's path.
func (a app) name() string {
	if a.entry == nil {
		return a.program
	}
	return strings.TrimSuffix(a.entry.ID, ".desktop")
}

// findApp picks the application that path names: a .desktop file of the catalogue, a
// desktop file ID (with or without .desktop, or its last dotted part: org.xfce.mousepad
// is mousepad), a reference name (notepad, calc...: the first entry of its category), the
// program of an entry (given by path, symbolic links resolved, or by name), or a program
// the policy names (o.Apps). Among several entries of one program, the first that takes
// files or URLs is preferred (the application itself rather than its settings dialog).
func findApp(path string, o LaunchOptions) (app, error) {
	p := expandHome(strings.TrimSpace(path))
	if p == "" {
		return app{}, werr.Invalid("path must not be empty").WithHint("give an application's path or name, e.g. " + examplePath)
	}
	if strings.ContainsRune(p, 0) {
		return app{}, werr.Invalid("path contains a NUL byte")
	}
	apps := catalogue(o)
	real := ""
	if filepath.IsAbs(p) {
		if r, err := filepath.EvalSymlinks(filepath.Clean(p)); err == nil {
			real = r
		}
	}
	base := strings.ToLower(strings.TrimSuffix(filepath.Base(filepath.ToSlash(p)), ".exe"))
	category := referenceNames[strings.TrimSuffix(base, ".desktop")]
	var matches []app
	for _, a := range apps {
		e := a.entry
		id := strings.TrimSuffix(e.ID, ".desktop")
		short := id[strings.LastIndexByte(id, '.')+1:]
		switch {
		case filepath.IsAbs(p) && (e.File == p || e.File == real || a.program == real):
		case !filepath.IsAbs(p) && (p == e.ID || p == id || p == short || p == filepath.Base(a.program)):
		case category != "" && e.hasCategory(category) && !e.Terminal:
		default:
			continue
		}
		matches = append(matches, a)
	}
	if len(matches) > 0 {
		for _, m := range matches {
			if c, ok := m.entry.fieldCode(); ok && c != 0 {
				return m, nil
			}
		}
		return matches[0], nil
	}
	if filepath.IsAbs(p) {
		if r, err := Resolve(p, o.Apps); err == nil {
			return app{program: r}, nil
		}
	} else {
		for _, a := range o.Apps {
			if filepath.Base(a) == p {
				if r, err := Resolve(a, o.Apps); err == nil {
					return app{program: r}, nil
				}
			}
		}
	}
	names := make([]string, 0, len(apps)+len(o.Apps))
	for _, a := range apps {
		if !a.entry.Terminal && !a.entry.hasCategory("TerminalEmulator") {
			names = append(names, a.name())
		}
	}
	names = append(names, o.Apps...)
	listed := strings.Join(names, ", ")
	if len(names) > maxHintNames {
		listed = fmt.Sprintf("%s and %d more", strings.Join(names[:maxHintNames], ", "), len(names)-maxHintNames)
	}
	return app{}, werr.New(werr.BlockedByPolicy, "rule launch-allowlist: %q is not an application with a desktop entry, nor one the policy adds", path).
		WithDetail("rule", "launch-allowlist").WithDetail("applications", names).
		WithHint("launch_application starts the applications of the system's desktop entries (%s) and the policy's launchApplications; use execute_shell_command for command-line programs", listed)
}

// application is the program and arguments launch_application runs for path and args
// (see findApp), or why not.
func application(path string, args []string, o LaunchOptions) (string, []string, error) {
	a, err := findApp(path, o)
	if err != nil {
		return "", nil, err
	}
	code, placed := byte('*'), true
	if a.entry != nil {
		if a.entry.Terminal {
			return "", nil, werr.New(werr.Unsupported, "%s runs in a terminal; launch_application starts graphical applications", a.name()).
				WithDetail("rule", "launch-allowlist").WithHint("run command-line programs with execute_shell_command (sandboxed)")
		}
		if a.entry.hasCategory("TerminalEmulator") {
			if _, err := Resolve(a.program, o.Apps); err != nil {
				return "", nil, werr.New(werr.BlockedByPolicy, "rule launch-allowlist: %s is a terminal emulator: the shell it opens would take commands without execute_shell_command's rules and approvals", a.name()).
					WithDetail("rule", "launch-allowlist").
					WithHint("run commands with execute_shell_command (sandboxed); a deployment can allow it by naming %s in the policy's launchApplications", a.program)
			}
		}
		code, placed = a.entry.fieldCode()
	}
	if o.AnyArguments {
		if a.entry == nil {
			return a.program, args, nil
		}
		return a.program, a.entry.expand(args), nil
	}
	checked, err := fileArgs(a, code, placed, args, o)
	if err != nil {
		return "", nil, err
	}
	if a.entry == nil {
		return a.program, checked, nil
	}
	return a.program, a.entry.expand(checked), nil
}

// fileArgs checks args as what a person passes from a file manager: existing files and
// directories inside the roots (o.Roots, below no dot-directory, outside o.Private), or
// http/https URLs where the entry takes URLs (%u, %U; a policy program takes both); one
// of them for %f and %u, none for an entry without a field code. Files are passed as
// their absolute paths with symbolic links resolved.
func fileArgs(a app, code byte, placed bool, args []string, o LaunchOptions) ([]string, error) {
	if len(args) == 0 {
		return nil, nil
	}
	refuse := func(format string, v ...any) error {
		return werr.New(werr.BlockedByPolicy, "rule launch-arguments: "+format, v...).WithDetail("rule", "launch-arguments").
			WithHint("launch_application passes what a file manager would: existing files under %s, or http(s) URLs to applications that open them; the policy's launchArguments \"any\" allows more", strings.Join(o.Roots, ", "))
	}
	switch {
	case !placed:
		return nil, refuse("%s takes no files or URLs (its desktop entry's command line has none it can be given safely)", a.name())
	case code == 0:
		return nil, refuse("%s takes no files or URLs (its desktop entry's command line has no %%f, %%F, %%u or %%U)", a.name())
	case (code == 'f' || code == 'u') && len(args) > 1:
		return nil, refuse("%s takes one file or URL (%%%c), got %d", a.name(), code, len(args))
	}
	out := make([]string, 0, len(args))
	for _, s := range args {
		if u, ok := webURL(s); ok {
			if code == 'f' || code == 'F' {
				return nil, refuse("%s takes files, not URLs", a.name())
			}
			if o.NoNetwork {
				return nil, werr.New(werr.BlockedByPolicy, "rule launch-network: %s would open %s without a network: this session's applications have none", a.name(), u).
					WithDetail("rule", "launch-network").
					WithHint("open it in the session's browser (browser_navigate), or give the session's programs the network (policy allowNetwork)")
			}
			out = append(out, u)
			continue
		}
		f, err := argFile(s, o)
		if err != nil {
			return nil, refuse("%q: %s", s, err)
		}
		out = append(out, f)
	}
	return out, nil
}

// webURL accepts an absolute http or https URL with a host and nothing a program could
// read as an option or a second argument (no blanks or control characters).
func webURL(s string) (string, bool) {
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return "", false
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return "", false
	}
	return u.String(), true
}

type argErr string

func (e argErr) Error() string { return string(e) }

// argFile resolves a file argument: absolute (or ~/...), existing, a regular file or a
// directory, allowed by allowedArgPath once symbolic links are resolved. A path that does
// not resolve inside the roots gets one refusal whether or not it exists, naming nothing it
// resolves to: it told whether a file of the person's exists (~/.ssh/id_rsa) and where a link
// of the host's leads (/proc/self/cwd, the host's working directory; /proc/self/fd/N, the
// files the host holds open).
func argFile(s string, o LaunchOptions) (string, error) {
	p := expandHome(s)
	if !filepath.IsAbs(p) {
		return "", argErr("neither an absolute path nor an http(s) URL")
	}
	r, err := filepath.EvalSymlinks(filepath.Clean(p))
	if err != nil || !allowedArgPath(r, o) {
		return "", argErr("no such file or directory under the roots (links followed; hidden ones and the host's own left out)")
	}
	fi, err := os.Stat(r)
	if err != nil || !(fi.Mode().IsRegular() || fi.IsDir()) {
		return "", argErr("not a regular file or a directory")
	}
	return r, nil
}

// allowedArgPath says whether the resolved path lies inside one of o.Roots (resolved) with
// no element below that root starting with a dot, nor, where the root holds HOME, in what of
// HOME is programs' own (policy.ProgramsOwn: ~/snap), and inside none of o.Private; or is a
// root itself that holds no home (a file manager opened on Documents; a root of ~ itself
// would hand the application the person's whole home).
func allowedArgPath(p string, o LaunchOptions) bool {
	for _, d := range o.Private {
		if rd, err := filepath.EvalSymlinks(d); err == nil && (p == rd || within(p, rd, false)) {
			return false
		}
	}
	home, _ := os.UserHomeDir()
	if h, err := filepath.EvalSymlinks(home); err == nil {
		home = h
	}
	for _, root := range o.Roots {
		rr, err := filepath.EvalSymlinks(expandHome(root))
		if err == nil && p == rr && home != "" && home != rr && !within(home, rr, false) {
			return true
		}
		if err != nil || !within(p, rr, false) {
			continue
		}
		if home != "" && (home == rr || within(home, rr, false)) && within(p, home, false) {
			if first, _, _ := strings.Cut(p[len(home)+1:], "/"); policy.ProgramsOwn(first) {
				continue
			}
		}
		if !slices.ContainsFunc(strings.Split(p[len(rr)+1:], "/"), func(e string) bool { return strings.HasPrefix(e, ".") }) {
			return true
		}
	}
	return false
}

// sessionWritable says whether a session could write p (resolved): a place a file
// argument may come from (allowedArgPath), or the temporary directory. A program or a
// desktop entry there is never used.
func sessionWritable(p string, o LaunchOptions) bool {
	if t, err := filepath.EvalSymlinks(os.TempDir()); err == nil && (p == t || within(p, t, false)) {
		return true
	}
	return allowedArgPath(p, o)
}
