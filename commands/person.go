package commands

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/werr"
)

// A person in the loop (docs/person.md): an agent hands its session to a person, who acts in
// the live view and hands it back. The person's own controls (hand back, pause, resume) are
// host controls, never tools: no agent can reach them.

// HandOverIn is what the agent asks of the person.
type HandOverIn struct {
	Reason       string `json:"reason" jsonschema:"what you are stuck on, shown to the person" w365:"minLength=1,maxLength=2000"`
	Instructions string `json:"instructions,omitempty" jsonschema:"what the person should do before handing back" w365:"maxLength=4000"`
	// TimeoutSeconds bounds the whole hand-over, not one call.
	TimeoutSeconds int    `json:"timeoutSeconds,omitempty" jsonschema:"how long the person has" w365:"min=10,max=3600,default=300"`
	HandoverID     string `json:"handoverId,omitempty" jsonschema:"wait again on the open hand-over of this id"`
}

// HandOverOut is how the hand-over stands.
type HandOverOut struct {
	HandoverID string `json:"handoverId"`
	Status     string `json:"status" jsonschema:"handedBack, timedOut, waiting or declined"`
	// LiveViewURL is the one-time link: the live view with control, alive until the hand-back.
	LiveViewURL string     `json:"liveViewUrl,omitempty" jsonschema:"one-time link for the person; only while the hand-over is open"`
	Note        string     `json:"note,omitempty" jsonschema:"what the person wrote on handing back"`
	WaitedMs    int64      `json:"waitedMs"`
	Deadline    *time.Time `json:"deadline,omitempty" jsonschema:"when an open hand-over times out"`
	session     string
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

// HandOverToPerson is the tool hand_over_to_person (w365 session hand-over).
var HandOverToPerson = tool.Define(tool.Tool{
	Name: "hand_over_to_person", Path: []string{"session", "hand-over"}, Args: []string{"reason"},
	Summary: "Ask a person to act in this session (a login, a CAPTCHA, a decision) and wait for the hand-back",
	Long: "Opens a hand-over: a one-time link to the session's live view that gives the person control\n" +
		"until they hand the session back (or timeoutSeconds pass). Where the client supports URL\n" +
		"elicitation the link is shown to the person and the call waits; otherwise it returns at once\n" +
		"with status waiting and the link in its text: give it to the person and call again with\n" +
		"handoverId to wait. The agent's other calls on the session wait while it is open. One\n" +
		"hand-over is open per session: a second call waits on it.",
	Example:     "  $ w365 session hand-over \"log in with your second factor\" --instructions \"sign in, then hand back\"",
	Annotations: tool.Act,
}, func(ctx context.Context, env *tool.Env, in HandOverIn) (HandOverOut, error) {
	if env.Session == nil {
		return HandOverOut{}, werr.New(werr.Internal, "hand_over_to_person runs in a session")
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
