package tool

import (
	"context"
	"time"

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

// Host is what tools may ask of the host that runs them, on behalf of the principal
// that called (each call gets its own view). A test can fake it.
type Host interface {
	// Sessions describes the sessions the caller may see, oldest first.
	Sessions() []session.Info
	// StartSession starts a new session of the caller with its own desktop: named name
	// (validated), or with a fresh random id when name is empty. idle overrides the
	// policy's idle timeout (0: keep it).
	StartSession(ctx context.Context, name string, idle time.Duration) (*session.Session, error)
	// Session returns a running session of the caller; NOT_FOUND for an unknown id or
	// another principal's, SESSION_EXPIRED for an ended one.
	Session(ctx context.Context, id string) (*session.Session, error)
	// EndSession stops a session and everything it opened, and returns the files its end
	// kept (session.Session.Kept).
	EndSession(id string) ([]string, error)
	// LiveViewURL is the address of the session's live view, "" when the host serves no HTTP.
	LiveViewURL(s *session.Session) string
	// ProtectedPIDs are processes no tool may kill or close: every session's desktop
	// and the host with its parents.
	ProtectedPIDs() []int
	// Browser says how session browsers start.
	Browser() BrowserConfig
	// PrivateDirs are the host's own directories (runtime directory: socket, sessions,
	// browser profiles): sandboxed code never sees them nor works in them.
	PrivateDirs() []string
	// HandOver asks a person to act in s (hand_over_to_person): it opens a hand-over, or
	// waits on the open one, and says how it ended or that it still waits (docs/person.md).
	HandOver(ctx context.Context, s *session.Session, req HandOverRequest) (HandOverResult, error)
}

// HandOverRequest is what an agent asks of a person.
type HandOverRequest struct {
	Reason, Instructions string
	Timeout              time.Duration
	// ID waits again on an open hand-over instead of opening one.
	ID string
}

// HandOverResult is how a hand-over stands when the call answers.
type HandOverResult struct {
	ID string
	// Status is handedBack, timedOut, waiting or declined.
	Status string
	// URL is the one-time link to the live view with control, set only while it is alive.
	URL      string
	Note     string
	Waited   time.Duration
	Deadline time.Time
	// Asked says how the person was asked: "url elicitation" or "" (the link in the text only).
	Asked string
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
	// HostOrigins are the origins of the host's own HTTP listener, which a session's
	// browser must not open: a page of that origin passes the listener's origin check.
	HostOrigins []string
}
