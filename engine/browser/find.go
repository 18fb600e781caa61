package browser

import (
	"os"
	"os/exec"

	"github.com/w365/w365/engine/werr"
)

// Found is the browser binary Find picked and where it came from.
type Found struct {
	Path string `json:"path"`
	// Source says how it was found: "W365_BROWSER", "PATH", and on Windows
	// `App Paths (HKCU)`, `App Paths (HKLM)`, `%ProgramFiles%` and the like.
	Source string `json:"source"`
}

// Find picks the browser binary: W365_BROWSER (from env, then the process
// environment) when set, whatever else is installed; otherwise the first of
// Microsoft Edge, Google Chrome and Chromium this platform's candidates
// (platformCandidates) find. env nil means the process environment.
func Find(env []string) (Found, error) {
	if env == nil {
		env = os.Environ()
	}
	for _, v := range []string{lookupEnv(env, "W365_BROWSER"), os.Getenv("W365_BROWSER")} {
		if v != "" {
			p, err := exec.LookPath(v)
			if err != nil {
				return Found{}, werr.Wrap(err, werr.Unavailable, "W365_BROWSER=%q not found", v).
					WithHint("set W365_BROWSER / --browser to an installed browser, or unset it to use Edge, Chrome or Chromium").WithRetryable(false)
			}
			return Found{Path: p, Source: "W365_BROWSER"}, nil
		}
	}
	if f, ok := platformCandidates(env); ok {
		return f, nil
	}
	return Found{}, werr.New(werr.Unavailable, "no Chromium-family browser found (%s)", searched).
		WithHint("%s, or set W365_BROWSER / --browser", installHint).WithRetryable(false)
}
