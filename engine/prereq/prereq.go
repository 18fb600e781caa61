// Package prereq is what w365 needs of the machine it runs on: the system programs of
// this platform with the package that provides each (Debian packages on Linux, winget
// ids on Windows), how each is found, the checks beyond a program being installed
// (the display, tesseract's languages, bubblewrap's namespaces; on Windows the system
// and python.exe), and the command that installs what is missing. `w365 doctor` reports
// it; the list and the checks are per-OS files, the report's shape is one.
package prereq

import (
	"context"
	"os/exec"
	"strings"
	"time"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/werr"
)

// Component is one system program w365 relies on.
type Component struct {
	Name    string `json:"name"`
	For     string `json:"for"`
	Package string `json:"package"`
	Found   bool   `json:"found"`
	Path    string `json:"path,omitempty"`
	// Source says how Path was found when there is more than PATH to search (the
	// browser: W365_BROWSER, App Paths in the registry, an install directory).
	Source string `json:"source,omitempty"`
	// Detail says why a component is missing when that is more than absence.
	Detail string `json:"detail,omitempty"`
}

// Check is one test of the environment beyond a program being installed.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail"`
	// Package, when set, is what fixes a failed check.
	Package string `json:"package,omitempty"`
	// Fatal says a failure stops w365 from working (the others are warnings).
	Fatal bool `json:"fatal"`
}

// componentSpec is one program of platformComponents: the first of its candidates
// on PATH (or an existing absolute path) counts, unless find decides instead.
type componentSpec struct {
	name, purpose, pkg string
	candidates         []string
	find               func(*Component)
}

// findBrowser fills in the browser the engine would start (browser.Find).
func findBrowser(c *Component) {
	f, err := browser.Find(nil)
	if err != nil {
		c.Detail = werr.As(err).Message
		return
	}
	c.Found, c.Path, c.Source = true, f.Path, f.Source
}

// Components looks for each program of this platform, in the platform's order.
func Components() []Component {
	var out []Component
	for _, c := range platformComponents {
		comp := Component{Name: c.name, For: c.purpose, Package: c.pkg}
		if c.find != nil {
			c.find(&comp)
		}
		for _, cand := range c.candidates {
			if p, err := exec.LookPath(cand); err == nil {
				comp.Found, comp.Path = true, p
				break
			}
		}
		out = append(out, comp)
	}
	return out
}

// Checks runs this platform's own checks, on the programs of comps that were found.
func Checks(ctx context.Context, comps []Component) []Check {
	found := map[string]string{}
	for _, c := range comps {
		if c.Found {
			found[c.Name] = c.Path
		}
	}
	return platformChecks(ctx, found)
}

func tesseractCheck(ctx context.Context, path string) Check {
	c := Check{Name: "tesseract languages", Package: tesseractLangPkg}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--list-langs").CombinedOutput()
	if err != nil {
		c.Detail = "tesseract --list-langs failed: " + strings.TrimSpace(string(out))
		return c
	}
	var langs []string
	for _, l := range strings.Split(string(out), "\n") {
		l = strings.TrimSpace(l)
		if l != "" && !strings.Contains(l, " ") && !strings.HasSuffix(l, ":") {
			langs = append(langs, l)
		}
	}
	c.Detail = "installed: " + strings.Join(langs, ", ")
	for _, l := range langs {
		if l == "eng" {
			c.OK = true
			c.Package = ""
			return c
		}
	}
	c.Detail += " (analyze-screen needs eng)"
	return c
}
