//go:build windows

package browser

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows/registry"
)

const (
	searched    = `App Paths msedge.exe and chrome.exe in HKCU and HKLM, Microsoft\Edge, Google\Chrome and Chromium under %ProgramFiles%, %ProgramFiles(x86)% and %LOCALAPPDATA%, and PATH`
	installHint = "install Microsoft Edge (winget install -e --id Microsoft.Edge) or Google Chrome (winget install -e --id Google.Chrome)"
)

// windowsBrowsers are the browsers in the order they are preferred: the App Paths key
// each registers (none for Chromium, whose builds register as chrome.exe when at all)
// and its directory under the install roots.
var windowsBrowsers = []struct{ appPath, dir, exe string }{
	{"msedge.exe", `Microsoft\Edge\Application`, "msedge.exe"},
	{"chrome.exe", `Google\Chrome\Application`, "chrome.exe"},
	{"", `Chromium\Application`, "chrome.exe"},
}

// installRoots are where installers put browsers: machine-wide (both Program Files)
// and per user (LOCALAPPDATA).
var installRoots = []string{"ProgramFiles", "ProgramFiles(x86)", "LOCALAPPDATA"}

// appPathKeys are the registry views App Paths are read from: the user's own key
// first (per-user installs), then the machine's 64-bit and 32-bit views (a 32-bit
// installer writes under WOW6432Node).
var appPathKeys = []struct {
	root   registry.Key
	access uint32
	source string
}{
	{registry.CURRENT_USER, 0, "App Paths (HKCU)"},
	{registry.LOCAL_MACHINE, registry.WOW64_64KEY, "App Paths (HKLM)"},
	{registry.LOCAL_MACHINE, registry.WOW64_32KEY, "App Paths (HKLM, 32-bit)"},
}

// platformCandidates is, for Edge, then Chrome, then Chromium: the App Paths entry
// (HKCU, then HKLM) naming an existing file, then the browser's directory under each
// install root; failing all, msedge, chrome or chromium on PATH.
func platformCandidates(env []string) (Found, bool) {
	for _, b := range windowsBrowsers {
		if b.appPath != "" {
			for _, k := range appPathKeys {
				if p, ok := appPath(k.root, k.access, b.appPath); ok {
					return Found{Path: p, Source: k.source}, true
				}
			}
		}
		for _, root := range installRoots {
			dir := lookupEnv(env, root)
			if dir == "" {
				dir = os.Getenv(root)
			}
			if dir == "" {
				continue
			}
			if p := filepath.Join(dir, b.dir, b.exe); isFile(p) {
				return Found{Path: p, Source: "%" + root + "%"}, true
			}
		}
	}
	for _, name := range []string{"msedge", "chrome", "chromium"} {
		if p, err := exec.LookPath(name); err == nil {
			return Found{Path: p, Source: "PATH"}, true
		}
	}
	return Found{}, false
}

// appPath reads the default value of SOFTWARE\Microsoft\Windows\CurrentVersion\App
// Paths\exe under root: the program's full path, quoted or not, with %VARIABLES%
// when it is REG_EXPAND_SZ. An entry naming a file that no longer exists (an
// uninstalled browser) does not count.
func appPath(root registry.Key, access uint32, exe string) (string, bool) {
	k, err := registry.OpenKey(root, `SOFTWARE\Microsoft\Windows\CurrentVersion\App Paths\`+exe, registry.QUERY_VALUE|access)
	if err != nil {
		return "", false
	}
	defer k.Close()
	v, typ, err := k.GetStringValue("")
	if err != nil {
		return "", false
	}
	if typ == registry.EXPAND_SZ {
		if v, err = registry.ExpandString(v); err != nil {
			return "", false
		}
	}
	p := strings.Trim(strings.TrimSpace(v), `"`)
	if !filepath.IsAbs(p) || !isFile(p) {
		return "", false
	}
	return filepath.Clean(p), true
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}
