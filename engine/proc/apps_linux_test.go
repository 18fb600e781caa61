package proc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/w365/w365/engine/werr"
)

// entries makes a system data directory and a home with the given desktop files
// (relative to share/applications or home/.local/share/applications), points the XDG
// variables at them, and returns the options a session in that home would get.
func entries(t *testing.T, system, user map[string]string) (LaunchOptions, string) {
	tmp := t.TempDir()
	home := filepath.Join(tmp, "home")
	share := filepath.Join(tmp, "share")
	write := func(dir string, files map[string]string) {
		for name, body := range files {
			p := filepath.Join(dir, "applications", name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("[Desktop Entry]\nType=Application\n"+body+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	write(share, system)
	write(filepath.Join(home, ".local", "share"), user)
	for _, d := range []string{"Documents", ".ssh", "proj"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	// The temporary directory is a place a session writes (sessionWritable): here it is
	// one beside the tree, so that the tree stands for the system's directories.
	if err := os.Mkdir(filepath.Join(tmp, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", filepath.Join(tmp, "tmp"))
	t.Setenv("XDG_DATA_HOME", "")
	t.Setenv("XDG_DATA_DIRS", share)
	return LaunchOptions{Roots: []string{"~"}, Private: []string{filepath.Join(home, "Documents", "private")}}, home
}

func TestDesktopEntriesAreTheApplications(t *testing.T) {
	o, _ := entries(t, map[string]string{
		"viewer.desktop":             "Name=Viewer\nExec=xmessage -title viewer %F\nCategories=Utility;TextEditor;",
		"vendor/web.desktop":         "Name=Web\nExec=/usr/bin/xmessage --url %u",
		"term.desktop":               "Name=Term app\nExec=xmessage\nTerminal=true",
		"emulator.desktop":           "Name=Emulator\nExec=xmessage\nCategories=System;TerminalEmulator;",
		"gone.desktop":               "Name=Gone\nExec=xmessage",
		"helper.desktop":             "Name=Helper\nExec=xmessage\nNoDisplay=true",
		"missing.desktop":            "Name=Missing\nExec=no-such-program-w365 %f",
		"tryexec.desktop":            "Name=Try\nExec=xmessage\nTryExec=no-such-program-w365",
		"link.desktop":               "Name=Link\nType=Link\nURL=https://example.com",
		"org.example.Calc.desktop":   "Name=Calc\nExec=xmessage calc\nCategories=Utility;Calculator;",
		"settings.desktop":           "Name=Settings\nExec=xmessage --preferences",
		"org.example.Editor.desktop": "Name=Editor\nExec=xmessage %f",
	}, map[string]string{"gone.desktop": "Name=Gone\nExec=xmessage\nHidden=true"})
	var ids []string
	for _, a := range catalogue(o) {
		ids = append(ids, a.entry.ID)
		if a.program != mustReal(t, "/usr/bin/xmessage") {
			t.Errorf("%s: program %q", a.entry.ID, a.program)
		}
	}
	want := []string{"emulator.desktop", "org.example.Calc.desktop", "org.example.Editor.desktop", "settings.desktop", "term.desktop", "vendor-web.desktop", "viewer.desktop"}
	if !slices.Equal(ids, want) {
		t.Errorf("catalogue %v, want %v (Hidden, NoDisplay, missing programs, failed TryExec and links left out)", ids, want)
	}
	for _, c := range []struct {
		path, id string
	}{
		{"viewer", "viewer.desktop"},
		{"viewer.desktop", "viewer.desktop"},
		{"vendor-web", "vendor-web.desktop"},
		{"Editor", "org.example.Editor.desktop"},
		{"calc", "org.example.Calc.desktop"},
		{"calc.exe", "org.example.Calc.desktop"},
		{"C:/Windows/System32/notepad.exe", "viewer.desktop"},
		{"notepad", "viewer.desktop"},
		// By program: the first entry that takes files, not a settings dialog.
		{"/usr/bin/xmessage", "org.example.Editor.desktop"},
		{"/bin/xmessage", "org.example.Editor.desktop"},
	} {
		a, err := findApp(c.path, o)
		if err != nil || a.entry == nil || a.entry.ID != c.id {
			t.Errorf("findApp(%q) = %+v, %v; want %s", c.path, a.entry, err, c.id)
		}
	}
	if _, _, err := application("term", nil, o); werr.CodeOf(err) != werr.Unsupported {
		t.Errorf("a Terminal=true entry: %v, want UNSUPPORTED", err)
	}
	// A terminal emulator opens a shell: only when the policy names its program.
	if _, _, err := application("emulator", nil, o); werr.CodeOf(err) != werr.BlockedByPolicy {
		t.Errorf("a terminal emulator: %v, want BLOCKED_BY_POLICY", err)
	}
	withTerm := o
	withTerm.Apps = []string{"/usr/bin/xmessage"}
	if _, _, err := application("emulator", nil, withTerm); err != nil {
		t.Errorf("a terminal emulator the policy names: %v", err)
	}
	for _, p := range []string{"gone", "helper", "/usr/bin/xdotool", "sqlite3", "/usr/bin/cp", "/bin/kill", "/usr/bin/vim", "/tmp", ""} {
		_, _, err := application(p, nil, o)
		if p == "" {
			if werr.CodeOf(err) != werr.InvalidArgument {
				t.Errorf("empty path: %v", err)
			}
			continue
		}
		e := werr.As(err)
		if e.Code != werr.BlockedByPolicy || e.Details["rule"] != "launch-allowlist" || !strings.Contains(e.Hint, "viewer") {
			t.Errorf("application(%q) = %v, want BLOCKED_BY_POLICY by launch-allowlist with a hint listing the applications", p, err)
		}
	}
}

func mustReal(t *testing.T, p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Arguments are what a file manager passes: existing files under the roots, outside
// hidden directories and the host's own, and http(s) URLs where the entry takes URLs.
func TestArgumentsAreFilesAndURLs(t *testing.T) {
	o, home := entries(t, map[string]string{
		"files.desktop": "Exec=xmessage -title files %F",
		"one.desktop":   "Exec=xmessage %f",
		"urls.desktop":  "Exec=xmessage %U",
		"none.desktop":  "Exec=xmessage -title none",
		"shell.desktop": "Exec=sh -c \"xmessage %f\"",
		"embed.desktop": "Exec=xmessage --file=%f",
	}, nil)
	note := filepath.Join(home, "proj", "notes.txt")
	other := filepath.Join(home, "Documents", "b.txt")
	key := filepath.Join(home, ".ssh", "id_ed25519")
	// A snap application's HOME: Ubuntu's Chromium keeps the person's saved passwords there.
	snapLogins := filepath.Join(home, "snap", "chromium", "common", "chromium", "Default", "Login Data")
	os.MkdirAll(filepath.Dir(snapLogins), 0o700)
	for _, f := range []string{note, other, key, snapLogins} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(key, filepath.Join(home, "proj", "innocent.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, "Documents", "private"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "Documents", "private", "s"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	// A session's Documents lies below a dot-directory of the home, a workspace elsewhere.
	sessionDocs, ws := filepath.Join(home, ".local", "state", "s1", "Documents"), mustReal(t, t.TempDir())
	os.MkdirAll(sessionDocs, 0o700)
	o.Roots = append(o.Roots, sessionDocs, ws)
	for _, c := range []struct {
		app  string
		args []string
		want []string // nil: refused
	}{
		{"files", []string{note, "~/Documents/b.txt"}, []string{"-title", "files", note, other}},
		// A root itself, as a file manager is opened on Documents; not one that holds a home.
		{"files", []string{sessionDocs}, []string{"-title", "files", sessionDocs}},
		{"files", []string{ws}, []string{"-title", "files", ws}},
		{"files", []string{filepath.Join(home, ".local", "state")}, nil},
		{"files", []string{home}, nil},
		{"files", []string{"~"}, nil},
		{"files", []string{"/"}, nil},
		{"files", []string{filepath.Join(home, "proj")}, []string{"-title", "files", filepath.Join(home, "proj")}},
		{"one", []string{note}, []string{note}},
		{"urls", []string{"https://example.com/a?b=c", note}, []string{"https://example.com/a?b=c", note}},
		{"none", nil, []string{"-title", "none"}},
		{"one", []string{note, other}, nil},
		{"files", []string{"https://example.com"}, nil},
		{"files", []string{key}, nil},
		{"files", []string{snapLogins}, nil},
		{"files", []string{filepath.Join(home, "snap")}, nil},
		{"files", []string{filepath.Join(home, "proj", "innocent.txt")}, nil},
		{"files", []string{filepath.Join(home, "Documents", "private", "s")}, nil},
		{"files", []string{"/etc/passwd"}, nil},
		{"files", []string{"-c"}, nil},
		{"files", []string{"+!id"}, nil},
		{"files", []string{"notes.txt"}, nil},
		{"files", []string{filepath.Join(home, "proj", "missing.txt")}, nil},
		{"urls", []string{"file:///etc/passwd"}, nil},
		{"urls", []string{"javascript:alert(1)"}, nil},
		{"urls", []string{"https://example.com/ --remote-debugging-port=9222"}, nil},
		{"none", []string{note}, nil},
		{"shell", []string{note}, nil},
		{"embed", []string{note}, nil},
	} {
		_, argv, err := application(c.app, c.args, o)
		if c.want == nil {
			if e := werr.As(err); e == nil || e.Code != werr.BlockedByPolicy || e.Details["rule"] != "launch-arguments" {
				t.Errorf("%s %q = %q, %v; want refused by launch-arguments", c.app, c.args, argv, err)
			}
			continue
		}
		if err != nil || !slices.Equal(argv, c.want) {
			t.Errorf("%s %q = %q, %v; want %q", c.app, c.args, argv, err, c.want)
		}
	}
	// Without a network a URL is refused (it would open an error page), files still go.
	o.NoNetwork = true
	if _, _, err := application("urls", []string{"https://example.com/a"}, o); werr.As(err).Details["rule"] != "launch-network" {
		t.Errorf("a URL without a network: %v, want refused by launch-network", err)
	}
	if _, argv, err := application("urls", []string{note}, o); err != nil || !slices.Equal(argv, []string{note}) {
		t.Errorf("a file without a network: %q, %v", argv, err)
	}
	o.NoNetwork = false
	// The policy's launchArguments "any" passes them as they are, where the entry puts them.
	o.AnyArguments = true
	if _, argv, err := application("files", []string{"-e", "x"}, o); err != nil || !slices.Equal(argv, []string{"-title", "files", "-e", "x"}) {
		t.Errorf("any arguments: %q, %v", argv, err)
	}
}

// Nothing a session could write names an application: a data directory or a program
// inside a workspace root (below no dot-directory) or the temporary directory is skipped.
func TestSessionWritablePlacesNameNoApplication(t *testing.T) {
	o, home := entries(t, nil, map[string]string{"mine.desktop": "Exec=xmessage %f"})
	proj := filepath.Join(home, "proj", "share")
	if err := os.MkdirAll(filepath.Join(proj, "applications"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(proj, "applications", "evil.desktop"), []byte("[Desktop Entry]\nType=Application\nExec=xmessage evil\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := filepath.Join(home, "proj", "tool")
	writeExe(t, prog)
	if err := os.WriteFile(filepath.Join(home, ".local", "share", "applications", "tool.desktop"), []byte("[Desktop Entry]\nType=Application\nExec="+prog+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tmpShare := filepath.Join(os.TempDir(), "share")
	if err := os.MkdirAll(filepath.Join(tmpShare, "applications"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tmpShare, "applications", "temp.desktop"), []byte("[Desktop Entry]\nType=Application\nExec=xmessage temp\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_DATA_DIRS", proj+":"+tmpShare)
	var ids []string
	for _, a := range catalogue(o) {
		ids = append(ids, a.entry.ID)
	}
	if !slices.Equal(ids, []string{"mine.desktop"}) {
		t.Errorf("catalogue %v, want only mine.desktop (the person's own, in a dot-directory)", ids)
	}
}

func TestExecIsSplitAsTheSpecificationSays(t *testing.T) {
	for _, c := range []struct {
		exec string
		want []string
		ok   bool
	}{
		{`app %U`, []string{"app", "%U"}, true},
		{`"/opt/My App/app" --x "a \"q\" \$b \\ c" %f`, []string{"/opt/My App/app", "--x", `a "q" $b \ c`, "%f"}, true},
		{`app\s--flag`, []string{"app", "--flag"}, true},
		{`app "unterminated`, nil, false},
		{``, nil, false},
	} {
		words, ok := splitExec(unescapeValue(c.exec))
		var got []string
		for _, w := range words {
			got = append(got, w.text)
		}
		if ok != c.ok || !slices.Equal(got, c.want) {
			t.Errorf("splitExec(%q) = %q, %v; want %q, %v", c.exec, got, ok, c.want, c.ok)
		}
	}
	e := entry{Name: "N", Icon: "ic", File: "/x.desktop"}
	e.Exec, _ = splitExec(`app %i %c %k 100%% %d %F`)
	if got := e.expand([]string{"/a", "/b"}); !slices.Equal(got, []string{"--icon", "ic", "N", "/x.desktop", "100%", "/a", "/b"}) {
		t.Errorf("expand = %q", got)
	}
}
