package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/engine/werr"
)

// addApprovalCommands adds `w365 approve` and `w365 deny`: a person's answers to the
// approvals that wait (docs/security.md#approvals). They are host controls, never
// tools: an agent has no tool that answers its own approval.
func addApprovalCommands(root *cobra.Command, iostr IO) {
	var forSession bool
	approve := &cobra.Command{
		Use:   "approve ID",
		Short: "Approve a call that waits for a person's yes (its id is in watch and the REPL)",
		Long: "Approve the call whose approval waits under ID (the call's number, shown by w365 watch and\n" +
			"the REPL). --for-session approves the same rule's later calls in that session too, until\n" +
			"the session ends. Fails with NOT_FOUND when no approval waits under ID.",
		Example: "  $ w365 approve 7\n  $ w365 approve 7 --for-session",
		GroupID: "other",
		Args:    exactArgs(1, "the approval's id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			d := host.AnswerApprove
			if forSession {
				d = host.AnswerApproveSession
			}
			return answerApproval(cmd.Context(), iostr, host.Answer{ID: args[0], Decision: d, Via: host.ByCLI})
		},
	}
	approve.Flags().BoolVar(&forSession, "for-session", false, "approve the rule's later calls in the session too")
	root.AddCommand(approve)
	root.AddCommand(&cobra.Command{
		Use:     "deny ID",
		Short:   "Deny a call that waits for a person's yes: it fails with BLOCKED_BY_POLICY",
		Example: "  $ w365 deny 7",
		GroupID: "other",
		Args:    exactArgs(1, "the approval's id"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return answerApproval(cmd.Context(), iostr, host.Answer{ID: args[0], Decision: host.AnswerDeny, Via: host.ByCLI})
		},
	})
}

func answerApproval(ctx context.Context, iostr IO, a host.Answer) error {
	if err := host.Approve(ctx, a); err != nil {
		return err
	}
	fmt.Fprintf(iostr.Out, "%s: %s\n", a.ID, a.Decision)
	return nil
}

// ApprovalKeys is what a person types at watch (then Enter) to answer the oldest
// approval that waits, or the one whose id follows: "a 7".
var ApprovalKeys = map[string]string{"a": host.AnswerApprove, "d": host.AnswerDeny, "s": host.AnswerApproveSession}

// ApprovalKeysHelp says how to answer at watch.
const ApprovalKeysHelp = "a approve, s approve for this session, d deny (then Enter; add an id for another than the oldest)"

// Pending tracks the approvals a watcher has seen ask and not yet end, oldest first.
type Pending struct {
	mu  sync.Mutex
	ids []string
}

// See follows an event.
func (p *Pending) See(ev host.CallEvent) {
	if ev.Phase != "approval" || ev.Approval == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	id := ev.Approval.ID
	p.ids = slices.DeleteFunc(p.ids, func(s string) bool { return s == id })
	if ev.Approval.Decision == host.ApprovalAsked {
		p.ids = append(p.ids, id)
	}
}

// Reset forgets them all (the watcher follows another session).
func (p *Pending) Reset() {
	p.mu.Lock()
	p.ids = nil
	p.mu.Unlock()
}

// Oldest is the approval waiting longest ("" for none).
func (p *Pending) Oldest() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.ids) == 0 {
		return ""
	}
	return p.ids[0]
}

// ParseAnswer reads a person's line: a key of ApprovalKeys or a decision's name, then
// an optional id (default: the oldest pending). ok is false for a line that is none.
func ParseAnswer(line string, p *Pending, via string) (a host.Answer, ok bool, err error) {
	f := strings.Fields(line)
	if len(f) == 0 || len(f) > 2 {
		return a, false, nil
	}
	d, known := ApprovalKeys[f[0]]
	if !known && slices.Contains([]string{host.AnswerApprove, host.AnswerDeny, host.AnswerApproveSession}, f[0]) {
		d, known = f[0], true
	}
	if !known {
		return a, false, nil
	}
	a = host.Answer{Decision: d, Via: via}
	if len(f) == 2 {
		a.ID = strings.TrimPrefix(f[1], "#")
	} else if a.ID = p.Oldest(); a.ID == "" {
		return a, true, werr.New(werr.NotFound, "no approval waits")
	}
	return a, true, nil
}

// answerLines answers approvals from the lines a person types at watch.
func answerLines(ctx context.Context, in io.Reader, errOut io.Writer, p *Pending) {
	sc := bufio.NewScanner(in)
	for sc.Scan() && ctx.Err() == nil {
		a, ok, err := ParseAnswer(sc.Text(), p, host.ByWatch)
		switch {
		case !ok:
			fmt.Fprintln(errOut, "to answer an approval: "+ApprovalKeysHelp)
			continue
		case err == nil:
			err = host.Approve(ctx, a)
		}
		if err != nil {
			fmt.Fprintln(errOut, "w365: "+werr.As(err).Error())
		}
	}
}

// ApprovalWord is a decision as watch and the trace report say it.
func ApprovalWord(decision string) string {
	return map[string]string{
		host.ApprovalAsked:    "approval asked",
		host.ApprovalApproved: "approved", host.ApprovalForSession: "approved for the session", host.ApprovalDenied: "denied",
		host.ApprovalTimedOut: "approval timed out", host.ApprovalNobody: "approval refused, nobody to ask", host.ApprovalCancelled: "approval cancelled",
	}[decision]
}

// approvalLine is an approval's step as watch prints it:
//
//	12:00:01.234 approval #7 browser_navigate url=https://bank.example waits for a yes (rule "bank"; asks client, person; until 12:03:01)
//	12:00:04.010 approved #7 browser_navigate (rule "bank") by watch (local)
func approvalLine(ev host.CallEvent, ts string, terminal bool) string {
	a := ev.Approval
	if a.Decision == host.ApprovalAsked {
		line := fmt.Sprintf("%s approval #%s %s", ts, a.ID, ev.Tool)
		if s := argText(ev.Args, nil, terminal); s != "" {
			line += " " + s
		}
		return line + fmt.Sprintf(" waits for a yes (rule %q; asks %s; until %s)", a.Rule, strings.Join(a.Asked, ", "),
			a.Deadline.Local().Format("15:04:05"))
	}
	line := fmt.Sprintf("%s %s #%s %s (rule %q)", ts, ApprovalWord(a.Decision), a.ID, ev.Tool, a.Rule)
	if a.By != "" {
		line += " by " + a.By
		if a.ByPrincipal != "" {
			line += " (" + a.ByPrincipal + ")"
		}
	}
	return line
}
