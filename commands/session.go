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
	HandOverToPerson,
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
	// the agent acts as you (your own display); in session details, for a virtual session,
	// also what limits all its programs together (docs/security.md#confinement).
	Confinement string `json:"confinement"`
	// LiveViewURL is set when the host serves HTTP.
	LiveViewURL string `json:"liveViewUrl,omitempty" jsonschema:"live view; the URL is a credential"`
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
	if o.Policy != nil {
		s += "\nconfinement: " + o.Confinement
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
	// Kept are the files the session saved (downloads, PDFs, screenshots written to files),
	// or past 100 files the directories holding them (paths ending in a separator): they
	// stay in its state directory, everything else of it is removed.
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
	if s.Desktop.Virtual() {
		if r, err := runnerOf(&tool.Env{Session: s, Policy: env.Policy, Host: env.Host}); err == nil {
			out.Confinement += "; limits: " + r.LimitsNote()
		}
	}
	sum := env.Policy.Summarize()
	out.Policy = &sum
	return out, nil
})

// CreateBrowserSession is the tool create_browser_session (w365 session browser).
var CreateBrowserSession = tool.Define(tool.Tool{
	Name: "create_browser_session", Path: []string{"session", "browser"},
	Summary: "Start a browser session (own desktop and browser); ends after 15 idle minutes",
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
	LiveViewURL      string `json:"liveViewUrl,omitempty" jsonschema:"live view; the URL is a credential"`
}

// A person in the loop (docs/person.md): an agent hands its session to a person, who acts in
// the live view and hands it back. The person's own controls (hand back, pause, resume) are
// host controls, never tools: no agent can reach them.

// HandOverIn is what the agent asks of the person.
type HandOverIn struct {
	Reason       string `json:"reason" jsonschema:"what you are stuck on" w365:"minLength=1,maxLength=2000"`
	Instructions string `json:"instructions,omitempty" jsonschema:"what they should do"`
	// TimeoutSeconds bounds the whole hand-over, not one call.
	TimeoutSeconds int    `json:"timeoutSeconds,omitempty" w365:"min=10,max=3600,default=300"`
	HandoverID     string `json:"handoverId,omitempty" jsonschema:"wait on this open hand-over"`
}

// HandOverOut is how the hand-over stands.
type HandOverOut struct {
	HandoverID string `json:"handoverId"`
	Status     string `json:"status" jsonschema:"handedBack, timedOut, waiting or declined"`
	// LiveViewURL is the one-time link: the live view with control, alive until the hand-back.
	LiveViewURL string `json:"liveViewUrl,omitempty"`
	// Note is what the person wrote when handing back.
	Note     string     `json:"note,omitempty"`
	WaitedMs int64      `json:"waitedMs"`
	Deadline *time.Time `json:"deadline,omitempty"`
	session  string
}

func (o HandOverOut) Text() string {
	var b strings.Builder
	switch o.Status {
	case "handedBack":
		fmt.Fprintf(&b, "The person handed the session back after %s.", time.Duration(o.WaitedMs)*time.Millisecond/time.Second*time.Second)
		if o.Note != "" {
			fmt.Fprintf(&b, " Their note: %s", o.Note)
		}
		b.WriteString("\nLook again (screenshot or snapshot) before you go on: the screen is as they left it.")
		return b.String()
	case "timedOut":
		return "Nobody handed the session back in time; the link is closed. Go on without the person, or hand over again."
	case "declined":
		b.WriteString("The client declined to show the link to the person.")
	default:
		b.WriteString("A person must act in this session.")
	}
	until := ""
	if o.Deadline != nil {
		until = " until " + o.Deadline.UTC().Format(time.RFC3339)
	}
	if o.LiveViewURL != "" {
		fmt.Fprintf(&b, " Give the person this one-time link (the session's live view with control, open%s):\n%s\n", until, o.LiveViewURL)
	} else {
		fmt.Fprintf(&b, " The host serves no HTTP, so there is no link: the person acts on the session's desktop and hands back with `w365 handback --session %s` (or `handback` in the REPL), open%s.\n", o.session, until)
	}
	fmt.Fprintf(&b, "Call hand_over_to_person with handoverId %s to wait for the hand-back; until then your other calls on this session wait too.", o.HandoverID)
	return b.String()
}

// maxInstructions bounds what an agent may ask of a person.
const maxInstructions = 4000

// HandOverToPerson is the tool hand_over_to_person (w365 session hand-over).
var HandOverToPerson = tool.Define(tool.Tool{
	Name: "hand_over_to_person", Path: []string{"session", "hand-over"}, Args: []string{"reason"},
	UI:      LiveViewApp,
	Summary: "Ask a person to act (login, CAPTCHA, decision) and wait for their hand-back",
	Long: "Opens a hand-over: a one-time link to the session's live view that gives the person control\n" +
		"until they hand the session back (or timeoutSeconds pass). Where the client supports URL\n" +
		"elicitation the link is shown to the person and the call waits; otherwise it returns at once\n" +
		"with status waiting and the link in its text: give it to the person and call again with\n" +
		"handoverId to wait. The agent's other calls on the session wait while it is open. One\n" +
		"hand-over is open per session: a second call waits on it. instructions: at most 4000\n" +
		"characters. The person hands back on the page, at the REPL (handback) or with w365 handback.",
	Example:     "  $ w365 session hand-over \"log in with your second factor\" --instructions \"sign in, then hand back\"",
	Annotations: tool.Act,
}, func(ctx context.Context, env *tool.Env, in HandOverIn) (HandOverOut, error) {
	if env.Session == nil {
		return HandOverOut{}, werr.New(werr.Internal, "hand_over_to_person runs in a session")
	}
	// Bounded here, not in the schema, which every conversation pays for.
	if n := len([]rune(in.Instructions)); n > maxInstructions {
		return HandOverOut{}, werr.Invalid("instructions are %d characters, at most %d", n, maxInstructions).WithDetail("parameter", "instructions")
	}
	r, err := env.Host.HandOver(ctx, env.Session, tool.HandOverRequest{Reason: in.Reason, Instructions: in.Instructions,
		Timeout: time.Duration(in.TimeoutSeconds) * time.Second, ID: in.HandoverID})
	if err != nil {
		return HandOverOut{}, err
	}
	out := HandOverOut{HandoverID: r.ID, Status: r.Status, LiveViewURL: r.URL, Note: r.Note, WaitedMs: r.Waited.Milliseconds(), session: env.Session.ID}
	if r.Status == "waiting" || r.Status == "declined" {
		d := r.Deadline
		out.Deadline = &d
	}
	return out, nil
})
