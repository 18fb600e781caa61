// Package policy holds every limit and allow/deny list a deployment may tighten or
// loosen. The defaults are the documented limits and lists (docs/tools.md lists every key
// with its default); a JSON file (--policy FILE) overrides any subset of them.
package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/w365/w365/engine/werr"
)

// Policy is the whole configurable surface. Field names are the policy file's keys.
type Policy struct {
	// Source is the file the policy was loaded from ("" for the defaults); not a key.
	Source string `json:"-"`

	// Output and size caps.
	OutputBytesPerStream int `json:"outputBytesPerStream"` // shell/Python stdout and stderr, each
	PageTextBytes        int `json:"pageTextBytes"`        // browser_get_text / browser_get_html
	PythonCodeChars      int `json:"pythonCodeChars"`
	PythonMemoryBytes    int `json:"pythonMemoryBytes"` // execute_python_code, all its processes together
	ShellMemoryBytes     int `json:"shellMemoryBytes"`  // execute_shell_command, all its processes together

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
	// MaxSessionsPerPrincipal caps the sessions one principal runs besides its default one (0: no cap).
	MaxSessionsPerPrincipal int `json:"maxSessionsPerPrincipal"`
	// LocalAttachAny lets the local user (CLI, REPL, stdio) use any principal's session by id.
	LocalAttachAny bool `json:"localAttachAny"`
	// AgentActsAsYou lets an agent over MCP that names no session drive the person's default
	// session (their own desktop on DISPLAY, else the host's virtual one) and reach their
	// sessions; without it the agent gets a confined virtual session of its own
	// (session.AgentPrincipal), whether or not the host has a DISPLAY.
	AgentActsAsYou bool `json:"agentActsAsYou"`
	// LiveViewFPS caps the frames per second of a session's live view.
	LiveViewFPS int `json:"liveViewFps"`
	// LiveViewControl lets whoever holds a live view's URL click, scroll and type on the desktop.
	LiveViewControl bool `json:"liveViewControl"`

	// Lists.
	AllowedCommands      []string `json:"allowedCommands"`      // execute_shell_command programs; a Windows name (dir) and its Linux program (ls) allow each other
	ExtraBlockedPatterns []string `json:"extraBlockedPatterns"` // regular expressions refused in a command line
	AllowNetwork         bool     `json:"allowNetwork"`         // sandboxed programs may use the network
	AllowUnsandboxed     bool     `json:"allowUnsandboxed"`     // without bubblewrap, run with rlimits only instead of refusing
	WorkspaceRoots       []string `json:"workspaceRoots"`       // where a sandbox cwd may be (besides the session scratch directory); ~ is HOME
	SandboxReadPaths     []string `json:"sandboxReadPaths"`     // shown read-only inside the sandbox although under a hidden tree (HOME); missing ones are skipped
	LaunchApplications   []string `json:"launchApplications"`   // programs (absolute paths) launch_application starts besides the desktop entries' applications
	LaunchArguments      string   `json:"launchArguments"`      // "files" (existing files under the roots, http(s) URLs) or "any"; Linux (Windows passes any)
	LaunchDirs           []string `json:"launchDirs"`           // Windows: launch_application roots (Linux starts desktop entries' applications only)
	LaunchPrograms       []string `json:"launchPrograms"`       // Windows: shells, interpreters and wrappers launch_application may start anyway (base names)
	ProtectedProcesses   []string `json:"protectedProcesses"`   // process names never closed or killed
	ToolAllowlist        []string `json:"toolAllowlist"`        // empty: every tool; else only these MCP names (or aliases, or legacy names)
	ToolDenylist         []string `json:"toolDenylist"`         // never these tools, whatever the allowlist says
	HTTPAllowedOrigins   []string `json:"httpAllowedOrigins"`   // browser origins (scheme://host[:port]) that may call serve --http besides its own

	// ProcessScope is what list_processes and kill_process act on: "session" (the session's
	// desktop, browser and launched programs with their descendants) or "machine".
	ProcessScope string `json:"processScope"`

	// BrowserRunCode lets browser_run_code run Playwright code (in its sandbox).
	BrowserRunCode bool `json:"browserRunCode"`

	// RecordTypedText lets watch and the trace show typed text that went into no
	// password field; false records all typed text by its length only.
	RecordTypedText bool `json:"recordTypedText"`

	// Approvals name the calls that wait for a person's yes before they run
	// (approvals.go, docs/security.md#approvals); none by default.
	Approvals []ApprovalRule `json:"approvals"`
	// ApprovalTimeoutSeconds is how long such a call waits for an answer before it is refused.
	ApprovalTimeoutSeconds int `json:"approvalTimeoutSeconds"`
	// ApprovalAskClient lets the host ask the MCP client too (form elicitation), besides a
	// person at the REPL or watch of the session.
	ApprovalAskClient bool `json:"approvalAskClient"`
}

// The values of LaunchArguments.
const (
	LaunchArgumentsFiles = "files"
	LaunchArgumentsAny   = "any"
)

// Process scopes.
const (
	ProcessScopeSession = "session"
	ProcessScopeMachine = "machine"
)

// Default returns the policy in force when no file is given: the documented defaults.
func Default() *Policy {
	return &Policy{
		OutputBytesPerStream: 32 * 1024,
		PageTextBytes:        512 * 1024,
		PythonCodeChars:      262144,
		PythonMemoryBytes:    512 << 20,
		ShellMemoryBytes:     1 << 30,

		ExecTimeoutDefaultMs: 30000,
		ExecTimeoutMaxMs:     120000,
		WaitMaxMs:            5000,
		BrowserWaitDefaultMs: 5000,
		BrowserWaitMaxMs:     30000,

		BrowserRunCode:  true,
		RecordTypedText: true,

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
		MaxSessionsPerPrincipal:   8,
		LocalAttachAny:            true,
		LiveViewFPS:               10,

		AllowedCommands: []string{
			"git", "npm", "dotnet", "python", "cargo", "node", "pip",
			"dir", "mkdir", "del", "copy", "move", "robocopy", "findstr", "where", "type", "notepad",
			"find", "wc", "head", "tail", "sort", "uniq", "go",
		},
		WorkspaceRoots: []string{"~"},
		// Toolchains people install under HOME (pyenv, rustup, go, nvm...) and git's user
		// configuration (identity): read-only, so python3, cargo, go and git commit keep
		// working while the rest of HOME is hidden.
		SandboxReadPaths: []string{"~/.pyenv", "~/.cargo/bin", "~/.rustup", "~/go/bin", "~/.nvm", "~/.volta",
			"~/.local/bin", "~/.deno/bin", "~/.dotnet", "~/.bun/bin", "~/.gitconfig", "~/.config/git/config"},
		LaunchDirs:      defaultLaunchDirs(),
		LaunchArguments: LaunchArgumentsFiles,

		ProcessScope: ProcessScopeSession,

		ApprovalTimeoutSeconds: 120,
		ApprovalAskClient:      true,
	}
}

// ToolAllowed says whether the tool known by these names (its MCP name first, then its
// aliases) may be listed and called: not in ToolDenylist under any name, and, when
// ToolAllowlist is set, in it under one of them.
func (p *Policy) ToolAllowed(names ...string) bool {
	for _, n := range names {
		if slices.Contains(p.ToolDenylist, n) {
			return false
		}
	}
	if len(p.ToolAllowlist) == 0 {
		return true
	}
	for _, n := range names {
		if slices.Contains(p.ToolAllowlist, n) {
			return true
		}
	}
	return false
}

// Digest identifies the policy's content: the first 12 hex digits of the SHA-256 of its
// JSON. Two hosts, or a client and a host, run the same policy exactly when the digests
// agree.
func (p *Policy) Digest() string {
	b, _ := json.Marshal(p)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:6])
}

// Summary is a short description of the policy for doctor and session details: its
// digest, where it came from, and what differs from the defaults.
type Summary struct {
	Digest string `json:"digest"`
	Source string `json:"source" jsonschema:"the policy file, or \"defaults\""`
	// Changed names the keys whose values differ from the defaults.
	Changed []string `json:"changed,omitempty"`
}

// Summarize describes p, loaded from source ("" for the defaults).
func (p *Policy) Summarize() Summary {
	s := Summary{Digest: p.Digest(), Source: p.Source}
	if s.Source == "" {
		s.Source = "defaults"
	}
	var mine, def map[string]json.RawMessage
	b, _ := json.Marshal(p)
	json.Unmarshal(b, &mine)
	b, _ = json.Marshal(Default())
	json.Unmarshal(b, &def)
	for k, v := range mine {
		if !bytes.Equal(v, def[k]) {
			s.Changed = append(s.Changed, k)
		}
	}
	slices.Sort(s.Changed)
	return s
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
	// encoding/json matches keys case-insensitively: check them exactly first, so that a
	// misspelt key is an error rather than a near miss.
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return nil, werr.Wrap(err, werr.InvalidArgument, "policy file %s: %v", path, err)
	}
	known := map[string]bool{}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[Policy]()) {
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name != "" && name != "-" {
			known[name] = true
		}
	}
	for k := range keys {
		if !known[k] {
			return nil, werr.Invalid("policy file %s: unknown key %q", path, k).WithHint("the keys are the JSON names in engine/policy/policy.go (case matters)")
		}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, werr.Wrap(err, werr.InvalidArgument, "policy file %s: %v", path, err)
	}
	if dec.More() {
		return nil, werr.Invalid("policy file %s: more than one JSON value", path)
	}
	if p.LaunchArguments != LaunchArgumentsFiles && p.LaunchArguments != LaunchArgumentsAny {
		return nil, werr.Invalid("policy file %s: launchArguments is %q; it must be %q or %q", path, p.LaunchArguments, LaunchArgumentsFiles, LaunchArgumentsAny)
	}
	if p.ProcessScope != ProcessScopeSession && p.ProcessScope != ProcessScopeMachine {
		return nil, werr.Invalid("policy file %s: processScope is %q; it must be %q or %q", path, p.ProcessScope, ProcessScopeSession, ProcessScopeMachine)
	}
	for _, o := range p.HTTPAllowedOrigins {
		if u, err := url.Parse(o); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.TrimSuffix(u.Path, "/") != "" || u.RawQuery != "" {
			return nil, werr.Invalid("policy file %s: httpAllowedOrigins has %q; an origin is scheme://host[:port]", path, o)
		}
	}
	if err := p.checkApprovals(path, keys); err != nil {
		return nil, err
	}
	if abs, err := filepath.Abs(path); err == nil {
		p.Source = abs
	}
	if root := p.rewritableIn(path); root != "" {
		return nil, werr.Invalid("policy file %s lies inside the workspace root %s, where the sessions it governs may write: a session could rewrite the next host's policy", path, root).
			WithHint("keep it where no session writes, e.g. ~/.config/w365/policy.json (docs/security.md#policy)")
	}
	return p, nil
}

// rewritableIn names the workspace root through which a session could rewrite the policy
// file at path, or "". A session writes below any directory of a workspace root that may
// be its working directory or that an application is handed: anything there but HOME
// itself and what of HOME is programs' own (ProgramsOwn).
func (p *Policy) rewritableIn(path string) string {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return ""
	}
	home, _ := os.UserHomeDir()
	if h, err := filepath.EvalSymlinks(home); err == nil {
		home = h
	}
	if home != "" && below(real, home) {
		rel, _ := filepath.Rel(home, real)
		first, rest, _ := strings.Cut(rel, string(filepath.Separator))
		if rest == "" || ProgramsOwn(first) {
			return ""
		}
	}
	for _, w := range p.WorkspaceRoots {
		if w == "~" || strings.HasPrefix(w, "~/") {
			w = home + w[1:]
		}
		if r, err := filepath.EvalSymlinks(w); err == nil && filepath.IsAbs(r) && below(real, r) {
			return w
		}
	}
	return ""
}

// ProgramsOwn says whether name, an entry of HOME, holds programs' own configuration, keys
// and profiles rather than the person's files (docs/security.md, the working directory): a
// dot-entry, or snap, where snapd keeps the HOME of each snap application
// (~/snap/NAME/REVISION: Ubuntu's Firefox keeps its profile, cookies and saved passwords in
// ~/snap/firefox/common/.mozilla, which a Python call there read and wrote).
func ProgramsOwn(name string) bool { return strings.HasPrefix(name, ".") || name == "snap" }

// below says whether path lies strictly inside dir (both clean and absolute).
func below(path, dir string) bool {
	return strings.HasPrefix(path, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}

// IdleTimeout is the session idle eviction delay.
func (p *Policy) IdleTimeout() time.Duration {
	return time.Duration(p.IdleTimeoutMinutes) * time.Minute
}
