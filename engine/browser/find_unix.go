//go:build !windows

package browser

import "os/exec"

const (
	searched    = "microsoft-edge, google-chrome or chromium on PATH"
	installHint = "install chromium (apt-get install chromium)"
)

// platformCandidates is the first of Edge, Chrome and Chromium on PATH.
func platformCandidates([]string) (Found, bool) {
	for _, name := range []string{"microsoft-edge", "microsoft-edge-stable", "google-chrome", "google-chrome-stable", "chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return Found{Path: p, Source: "PATH"}, true
		}
	}
	return Found{}, false
}
