package tool

import (
	"context"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/session"
)

// Env is what a handler gets besides its input: the session it runs in, the policy,
// and the few host services a tool needs. Handlers never see the host itself.
type Env struct {
	// Session is the session the call runs in; nil for Sessionless tools.
	Session *session.Session
	Policy  *policy.Policy
	Host    Host
}

// Host is what tools may ask of the host that runs them. A test can fake it.
type Host interface {
	// Sessions describes the host's sessions, oldest first.
	Sessions() []session.Info
	// StartSession starts a new session with a fresh id and its own desktop.
	StartSession(ctx context.Context) (*session.Session, error)
	// Session returns a running session; NOT_FOUND when there is none of that id.
	Session(ctx context.Context, id string) (*session.Session, error)
	// EndSession stops a session and everything it opened.
	EndSession(id string) error
	// ProtectedPIDs are processes no tool may kill or close: every session's desktop
	// and the host with its parents.
	ProtectedPIDs() []int
	// Browser says how session browsers start.
	Browser() BrowserConfig
}

// BrowserConfig is the host's browser settings.
type BrowserConfig struct {
	// Headless launches session browsers without a window.
	Headless bool
	// CDPEndpoint attaches the default session to a running browser instead of launching one.
	CDPEndpoint string
	// StateDir is the host's private directory (0700): session browser profiles live in
	// it, and no upload, PDF or download may read or write inside it.
	StateDir string
}
