// Package policy holds every limit and allow/deny list a deployment may tighten or
// loosen. The defaults equal TOOLS.md and PLATFORM.md; a JSON file (--policy FILE)
// overrides any subset of them.
package policy

import (
	"bytes"
	"encoding/json"
	"os"
	"time"

	"github.com/w365/w365/engine/werr"
)

// Policy is the whole configurable surface. Field names are the policy file's keys.
type Policy struct {
	// Output and size caps.
	OutputBytesPerStream int `json:"outputBytesPerStream"` // shell/Python stdout and stderr, each
	PageTextBytes        int `json:"pageTextBytes"`        // browser_get_text / browser_get_html
	PythonCodeChars      int `json:"pythonCodeChars"`
	PythonMemoryBytes    int `json:"pythonMemoryBytes"`

	// Timeouts in milliseconds.
	ExecTimeoutDefaultMs int `json:"execTimeoutDefaultMs"`
	ExecTimeoutMaxMs     int `json:"execTimeoutMaxMs"`
	WaitMaxMs            int `json:"waitMaxMs"`
	BrowserWaitDefaultMs int `json:"browserWaitDefaultMs"`
	BrowserWaitMaxMs     int `json:"browserWaitMaxMs"`

	// Input.
	ScrollNotchesMax int  `json:"scrollNotchesMax"`
	FailsafeEnabled  bool `json:"failsafeEnabled"`
	FailsafeMarginPx int  `json:"failsafeMarginPx"`
	ZoomMaxWidth     int  `json:"zoomMaxWidth"`
	ZoomMaxHeight    int  `json:"zoomMaxHeight"`

	// Trees.
	SnapshotDepthDefault int `json:"snapshotDepthDefault"`
	SnapshotDepthMax     int `json:"snapshotDepthMax"`
	A11yDepthDefault     int `json:"a11yDepthDefault"`
	A11yDepthMax         int `json:"a11yDepthMax"`
	A11yElementsDefault  int `json:"a11yElementsDefault"`
	A11yElementsMax      int `json:"a11yElementsMax"`
	ProcessesDefault     int `json:"processesDefault"`

	// Sessions.
	IdleTimeoutMinutes        int `json:"idleTimeoutMinutes"`
	BrowserIdleTimeoutMinutes int `json:"browserIdleTimeoutMinutes"`

	// Lists.
	AllowedCommands      []string `json:"allowedCommands"`      // execute_shell_command programs; a Windows name (dir) and its Linux program (ls) allow each other
	ExtraBlockedPatterns []string `json:"extraBlockedPatterns"` // regular expressions refused in a command line
	AllowNetwork         bool     `json:"allowNetwork"`         // sandboxed programs may use the network
	AllowUnsandboxed     bool     `json:"allowUnsandboxed"`     // without bubblewrap, run with rlimits only instead of refusing
	LaunchDirs           []string `json:"launchDirs"`           // launch_application roots
	ProtectedProcesses   []string `json:"protectedProcesses"`   // process names never closed or killed
	ToolAllowlist        []string `json:"toolAllowlist"`        // empty: every tool

	// BrowserRunCode lets browser_run_code run Playwright code (in its sandbox).
	BrowserRunCode bool `json:"browserRunCode"`
}

// Default returns the policy of TOOLS.md and PLATFORM.md.
func Default() *Policy {
	return &Policy{
		OutputBytesPerStream: 32 * 1024,
		PageTextBytes:        512 * 1024,
		PythonCodeChars:      262144,
		PythonMemoryBytes:    512 << 20,

		ExecTimeoutDefaultMs: 30000,
		ExecTimeoutMaxMs:     120000,
		WaitMaxMs:            5000,
		BrowserWaitDefaultMs: 5000,
		BrowserWaitMaxMs:     30000,

		BrowserRunCode: true,

		ScrollNotchesMax: 20,
		FailsafeEnabled:  true,
		FailsafeMarginPx: 5,
		ZoomMaxWidth:     1920,
		ZoomMaxHeight:    1080,

		SnapshotDepthDefault: 5,
		SnapshotDepthMax:     10,
		A11yDepthDefault:     3,
		A11yDepthMax:         10,
		A11yElementsDefault:  500,
		A11yElementsMax:      2000,
		ProcessesDefault:     200,

		IdleTimeoutMinutes:        30,
		BrowserIdleTimeoutMinutes: 15,

		AllowedCommands: []string{
			"git", "npm", "dotnet", "python", "cargo", "node", "pip",
			"dir", "mkdir", "del", "copy", "move", "robocopy", "findstr", "where", "type", "notepad",
		},
		LaunchDirs: []string{"/usr/bin", "/usr/local/bin", "/opt", "/snap/bin",
			"/var/lib/flatpak/exports/bin", "~/.local/share/flatpak/exports/bin"},
	}
}

// Load reads a policy file over the defaults: keys absent from the file keep their default.
// Unknown keys are an error, so a typo never silently loosens nothing.
func Load(path string) (*Policy, error) {
	p := Default()
	if path == "" {
		return p, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, werr.Wrap(err, werr.InvalidArgument, "cannot read policy file %s", path)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, werr.Wrap(err, werr.InvalidArgument, "policy file %s: %v", path, err)
	}
	return p, nil
}

// IdleTimeout is the session idle eviction delay.
func (p *Policy) IdleTimeout() time.Duration {
	return time.Duration(p.IdleTimeoutMinutes) * time.Minute
}
