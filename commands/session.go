package commands

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// sessionTools are the tools of the session toolset, in the order help lists them.
var sessionTools = []*tool.Tool{
	ListSessions,
	StartSession,
	EndSession,
	GetSessionDetails,
	CreateBrowserSession,
	CloseBrowserSession,
}

// SessionIDIn names a session.
type SessionIDIn struct {
	SessionID string `json:"sessionId" w365:"minLength=1"`
}

// SessionOut describes one session.
type SessionOut struct {
	SessionID string    `json:"sessionId"`
	Owner     string    `json:"owner"`
	Display   string    `json:"display"`
	Virtual   bool      `json:"virtual"`
	HostPID   int       `json:"hostPid"`
	Started   time.Time `json:"started"`
	LastUsed  time.Time `json:"lastUsed"`
	Queued    int       `json:"queued"`
	// Env lets a user run their own programs on the session's desktop.
	Env map[string]string `json:"env" jsonschema:"DISPLAY, XAUTHORITY, D-Bus"`
	// Policy is the host's policy in force (session details only).
	Policy *policy.Summary `json:"policy,omitempty"`
	// Confinement says whether the session's programs are confined (a virtual session) or
	// the agent acts as you (your own display).
	Confinement string `json:"confinement"`
	// LiveViewURL is set when the host serves HTTP.
	LiveViewURL string `json:"liveViewUrl,omitempty" jsonschema:"view-only live desktop; the URL is its credential"`
}

func sessionOut(i session.Info) SessionOut {
	conf := "confined"
	if !i.Virtual {
		conf = "the agent acts as you"
	}
	return SessionOut{SessionID: i.ID, Owner: i.Owner, Display: i.Display, Virtual: i.Virtual, HostPID: i.HostPID,
		Started: i.Started, LastUsed: i.LastUsed, Queued: i.Busy, Env: i.Env, LiveViewURL: i.LiveViewURL, Confinement: conf}
}

func (o SessionOut) Text() string {
	s := fmt.Sprintf("%s display=%s host=%d started=%s", o.SessionID, o.Display, o.HostPID, o.Started.Format(time.RFC3339))
	if o.Policy != nil {
		s += fmt.Sprintf(" policy=%s (%s)", o.Policy.Digest, o.Policy.Source)
	}
	if o.LiveViewURL != "" {
		s += "\nlive view: " + o.LiveViewURL
	}
	return s
}

// SessionListOut lists sessions.
type SessionListOut struct {
	Sessions []SessionOut `json:"sessions"`
}

func (o SessionListOut) Text() string {
	if len(o.Sessions) == 0 {
		return "no sessions"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-34s %-14s %-8s %-8s %-20s %-20s %s\n", "ID", "OWNER", "DISPLAY", "HOST", "STARTED", "LAST USED", "QUEUED")
	for _, s := range o.Sessions {
		fmt.Fprintf(&b, "%-34s %-14s %-8s %-8d %-20s %-20s %d\n", s.SessionID, s.Owner, s.Display, s.HostPID,
			s.Started.Format("2006-01-02 15:04:05"), s.LastUsed.Format("2006-01-02 15:04:05"), s.Queued)
	}
	return strings.TrimRight(b.String(), "\n")
}

// EndOut confirms an ended session.
type EndOut struct {
	SessionID string `json:"sessionId"`
	Ended     bool   `json:"ended"`
	// Kept are the files the session saved (downloads, PDFs, screenshots written to files):
	// they stay in its state directory, everything else of it is removed.
	Kept []string `json:"kept,omitempty"`
}

// ListSessions is the tool list_sessions (w365 session list).
var ListSessions = tool.Define(tool.Tool{
	Name: "list_sessions", Path: []string{"session", "list"}, Aliases: []string{"ls"},
	Summary: "List your sessions",
	Long: "The caller's sessions on the running host, oldest first: over HTTP only the principal's own;\n" +
		"the local user (CLI, REPL, stdio) sees every principal's unless the policy's localAttachAny is off.\n" +
		"Starts a host if none runs.",
	Example:     "  $ w365 session list\n  $ w365 session list --json",
	Sessionless: true, Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, _ None) (SessionListOut, error) {
	out := SessionListOut{Sessions: []SessionOut{}}
	for _, i := range env.Host.Sessions() {
		out.Sessions = append(out.Sessions, sessionOut(i))
	}
	return out, nil
})

// LiveViewApp is the URI of the MCP App that shows a session's live view in the chat,
// from the liveViewUrl of the result of a tool that names it as its UI.
const LiveViewApp = "ui://w365/live-view"

// StartSession is the tool mcp_W365ComputerUse_StartSession (w365 session start).
var StartSession = tool.Define(tool.Tool{
	Name: "mcp_W365ComputerUse_StartSession", Legacy: []string{"start_session"},
	UI:   LiveViewApp,
	Path: []string{"session", "start"}, Aliases: []string{"new"},
	Summary: "Start a session with its own virtual desktop and browser profile",
	Long: "Starts an isolated virtual desktop (Xvfb, window manager, accessibility bus) and returns its\n" +
		"sessionId (128 random bits, or the name given: letters, digits, '.', '_', '-', at most 64).\n" +
		"Pass it to other tools as sessionId (MCP) or --session (CLI). Only 'default' exists without\n" +
		"being started; an ended or expired id is refused with SESSION_EXPIRED. Idle sessions end\n" +
		"after 30 minutes; any call keeps a session alive. With the host serving HTTP the result has a\n" +
		"liveViewUrl.",
	Example:     "  $ w365 session start work\n  $ w365 --session work screenshot\n  $ w365 --session $(w365 session start --json | jq -r .sessionId) screenshot",
	Args:        []string{"name"},
	Sessionless: true,
	Annotations: tool.Act,
}, func(ctx context.Context, env *tool.Env, in StartIn) (SessionOut, error) {
	s, err := env.Host.StartSession(ctx, in.Name, 0)
	if err != nil {
		return SessionOut{}, err
	}
	return describeSession(env, s), nil
})

// StartIn names a session to start.
type StartIn struct {
	Name string `json:"name,omitempty" jsonschema:"a name instead of a random id (local user only)"`
}

// describeSession is s with its live view.
func describeSession(env *tool.Env, s *session.Session) SessionOut {
	o := sessionOut(s.Info())
	o.LiveViewURL = env.Host.LiveViewURL(s)
	return o
}

// EndSession is the tool mcp_W365ComputerUse_EndSession (w365 session end).
var EndSession = tool.Define(tool.Tool{
	Name: "mcp_W365ComputerUse_EndSession", Legacy: []string{"end_session"},
	Path: []string{"session", "end"}, Aliases: []string{"stop", "rm"}, Args: []string{"sessionId"},
	Summary:     "End a session: its desktop, browser and processes",
	Long:        "Stops the session's virtual desktop and everything started on it.",
	Example:     "  $ w365 session end s-1a2b3c4d",
	Sessionless: true,
	Annotations: tool.Destructive,
}, func(ctx context.Context, env *tool.Env, in SessionIDIn) (EndOut, error) {
	kept, err := env.Host.EndSession(in.SessionID)
	if err != nil {
		return EndOut{}, err
	}
	return EndOut{SessionID: in.SessionID, Ended: true, Kept: kept}, nil
})

// GetSessionDetails is the tool mcp_W365ComputerUse_GetSessionDetails (w365 session details).
var GetSessionDetails = tool.Define(tool.Tool{
	Name: "mcp_W365ComputerUse_GetSessionDetails", Legacy: []string{"get_session_details"},
	Path: []string{"session", "details"}, Aliases: []string{"show"}, Args: []string{"sessionId"},
	Summary:     "Describe one session",
	Long:        "Metadata of one session: display, host pid, start and last-use times, and the host's policy in\nforce (digest, source, keys changed from the defaults). Does not list sessions.",
	Example:     "  $ w365 session details default",
	Sessionless: true, Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, in SessionIDIn) (SessionOut, error) {
	s, err := env.Host.Session(ctx, in.SessionID)
	if err != nil {
		return SessionOut{}, werr.As(err)
	}
	out := describeSession(env, s)
	sum := env.Policy.Summarize()
	out.Policy = &sum
	return out, nil
})

// CreateBrowserSession is the tool create_browser_session (w365 session browser).
var CreateBrowserSession = tool.Define(tool.Tool{
	Name: "create_browser_session", Path: []string{"session", "browser"},
	Summary: "Start a browser session with its own desktop and browser; ends after 15 idle minutes",
	Long: "Starts a fresh session, launches its browser and returns browserSessionId. Pass it to browser\n" +
		"tools as browserSessionId (MCP) or --session (CLI), and close it with close_browser_session.",
	Example:     "  $ w365 session browser --json",
	Sessionless: true,
	Annotations: WebAct,
}, func(ctx context.Context, env *tool.Env, _ None) (BrowserSessionOut, error) {
	s, err := env.Host.StartSession(ctx, "", time.Duration(env.Policy.BrowserIdleTimeoutMinutes)*time.Minute)
	if err != nil {
		return BrowserSessionOut{}, err
	}
	// The session's queue is empty: nobody else can know its id yet.
	if _, err := browserOf(ctx, &tool.Env{Session: s, Policy: env.Policy, Host: env.Host}); err != nil {
		env.Host.EndSession(s.ID)
		return BrowserSessionOut{}, err
	}
	return BrowserSessionOut{BrowserSessionID: s.ID, LiveViewURL: env.Host.LiveViewURL(s)}, nil
})

// CloseBrowserSession is the tool close_browser_session (w365 session close-browser).
var CloseBrowserSession = tool.Define(tool.Tool{
	Name: "close_browser_session", Path: []string{"session", "close-browser"}, Args: []string{"browserSessionId"},
	Summary:     "End a browser session made by create_browser_session",
	Long:        "Closes the session's browser and desktop. A closed session cannot be reopened.",
	Example:     "  $ w365 session close-browser s-1a2b3c4d",
	Sessionless: true,
	Annotations: tool.Destructive,
}, func(ctx context.Context, env *tool.Env, in BrowserSessionIn) (EndOut, error) {
	kept, err := env.Host.EndSession(in.BrowserSessionID)
	if err != nil {
		return EndOut{}, err
	}
	return EndOut{SessionID: in.BrowserSessionID, Ended: true, Kept: kept}, nil
})

// BrowserSessionIn names a browser session.
type BrowserSessionIn struct {
	BrowserSessionID string `json:"browserSessionId" w365:"minLength=1"`
}

// BrowserSessionOut is a new browser session.
type BrowserSessionOut struct {
	BrowserSessionID string `json:"browserSessionId"`
	LiveViewURL      string `json:"liveViewUrl,omitempty" jsonschema:"view-only live desktop; the URL is its credential"`
}
