package host

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// Approvals (docs/security.md#approvals): a call that a rule of the policy's
// approvals matches waits, after its turn in the session's queue (the calls behind it
// keep waiting in order), until someone answers: the MCP client, asked by form
// elicitation when it declares it, or a person at the REPL or `w365 watch` of the
// session, who answers with the host control "approve" (on the host socket only: no
// tool answers an approval, so the agent cannot approve itself). The first answer
// wins. Nobody to ask refuses the call at once (APPROVAL_REQUIRED); nobody answering
// in time refuses it too (TIMEOUT). "approve-session" approves the rule's later calls
// in the session until the session ends. Every step is an event for watch and the
// trace.

// The decisions of an approval, as events and the trace name them.
const (
	ApprovalAsked      = "asked"
	ApprovalApproved   = "approved"
	ApprovalForSession = "approvedForSession"
	ApprovalDenied     = "denied"
	ApprovalTimedOut   = "timedOut"
	ApprovalNobody     = "nobodyToAsk"
	ApprovalCancelled  = "cancelled"
)

// The answers of the host control "approve" and of the client's form.
const (
	AnswerApprove        = "approve"
	AnswerDeny           = "deny"
	AnswerApproveSession = "approve-session"
)

// Who answered: the MCP client, or a person at one of these front-ends.
const (
	ByClient = "client"
	ByREPL   = "repl"
	ByWatch  = "watch"
	ByCLI    = "cli"
)

// ApprovalEvent is an approval's step in a CallEvent (phase "approval") and in the trace.
type ApprovalEvent struct {
	// ID is what `w365 approve ID` names: the call's number.
	ID       string `json:"id"`
	Rule     string `json:"rule"`
	Decision string `json:"decision"`
	// Asked says who was asked: "client" and/or "person".
	Asked []string `json:"asked,omitempty"`
	// By and ByPrincipal say who decided ("client", "repl", "watch", "cli").
	By          string    `json:"by,omitempty"`
	ByPrincipal string    `json:"byPrincipal,omitempty"`
	Deadline    time.Time `json:"deadline,omitzero"`
}

type approvalAnswer struct {
	answer, by, principal string
}

type pendingApproval struct {
	ev     CallEvent // the "asked" event, shown again to a person who attaches later
	answer chan approvalAnswer
}

type approvalSet struct {
	mu      sync.Mutex
	pending map[string]*pendingApproval
	// session holds the rules approved for a session (approve-session), by the
	// session's identity: a new session of the same name starts with none.
	session map[*session.Session]map[string]bool
}

// CheckApprovals refuses approval rules that name a tool or toolset w365 does not have:
// such a rule would never ask, silently.
func CheckApprovals(p *policy.Policy) error {
	known := map[string]bool{}
	for _, t := range commands.All() {
		for _, n := range approvalNames(t) {
			known[n] = true
		}
	}
	for i, r := range p.Approvals {
		for _, n := range r.Tools {
			if !known[n] {
				return werr.Invalid("policy: approvals[%d] names no tool %q", i, n).WithHint("docs/tools.md lists the tools")
			}
		}
		for _, ts := range r.Toolsets {
			if commands.FindToolset(ts) == nil {
				return werr.Invalid("policy: approvals[%d] names no toolset %q; known: %s", i, ts, strings.Join(commands.ToolsetNames(), ", "))
			}
		}
	}
	return nil
}

func approvalNames(t *tool.Tool) []string {
	return slices.Concat([]string{t.Name}, t.Legacy, t.Aliases)
}

// approval makes the call of t in session s with args wait for a person's yes when a
// rule asks for one; nil when it may run.
func (h *Host) approval(ctx context.Context, req *mcp.CallToolRequest, prog *progress, t *tool.Tool, args map[string]any, s *session.Session, p principal) error {
	var calls []policy.ApprovalCall
	for _, c := range commands.Calls(t, args) {
		calls = append(calls, policy.ApprovalCall{
			Names: approvalNames(c.Tool), Toolset: c.Tool.Toolset, ReadOnly: c.Tool.Annotations.ReadOnly == tool.Yes,
			// MCP's defaults: a tool not marked read-only is destructive and open-world unless it says otherwise.
			Destructive: c.Tool.Annotations.ReadOnly != tool.Yes && c.Tool.Annotations.Destructive != tool.No,
			OpenWorld:   c.Tool.Annotations.OpenWorld != tool.No,
			Args:        c.Args,
		})
	}
	rule := h.policy.ApprovalFor(calls...)
	if rule == nil {
		return nil
	}
	label := rule.Label()
	as := &h.approvals
	as.mu.Lock()
	remembered := as.session[s][label]
	as.mu.Unlock()
	if remembered {
		return nil
	}
	id, _ := ctx.Value(callIDKey{}).(uint64)
	if id == 0 {
		id = h.calls.nextID.Add(1)
	}
	ev := CallEvent{Phase: "approval", ID: id, Time: time.Now(), Session: s.ID, Tool: t.Name, Principal: p.name,
		Frontend: frontendOf(req), Client: clientOf(req), ReadOnly: t.Annotations.ReadOnly == tool.Yes}
	ev.Args, _ = redact(t, args, nil, !h.policy.RecordTypedText)
	timeout := time.Duration(h.policy.ApprovalTimeoutSeconds) * time.Second
	a := &ApprovalEvent{ID: strconv.FormatUint(id, 10), Rule: label, Decision: ApprovalAsked, Deadline: ev.Time.Add(timeout)}
	client, notClient := formElicitation(req)
	if !h.policy.ApprovalAskClient {
		client, notClient = false, "the policy does not let the client be asked (approvalAskClient)"
	}
	if client {
		a.Asked = append(a.Asked, ByClient)
	}
	if h.calls.approvers(s.ID) {
		a.Asked = append(a.Asked, "person")
	}
	ev.Approval = a
	decide := func(d string, ans approvalAnswer) {
		e := ev
		e.Time = time.Now()
		da := *a
		da.Decision, da.By, da.ByPrincipal, da.Deadline = d, ans.by, ans.principal, time.Time{}
		e.Approval = &da
		h.approvalEvent(e)
	}
	if len(a.Asked) == 0 {
		decide(ApprovalNobody, approvalAnswer{})
		return werr.New(werr.ApprovalRequired, "%s needs a person's approval (rule %q) and nobody can be asked: %s, and no person runs w365 repl or w365 watch on session %s",
			t.Name, label, notClient, s.ID).
			WithHint("a person starts w365 repl or w365 --session %s watch on a terminal; then call again", s.ID).
			WithDetail("rule", label)
	}
	pa := &pendingApproval{ev: ev, answer: make(chan approvalAnswer, 1)}
	as.mu.Lock()
	if as.pending == nil {
		as.pending = map[string]*pendingApproval{}
	}
	as.pending[a.ID] = pa
	as.mu.Unlock()
	defer func() {
		as.mu.Lock()
		delete(as.pending, a.ID)
		as.mu.Unlock()
	}()
	prog.setPhase("%s%s (asked: %s)", approvalPhase, label, strings.Join(a.Asked, ", "))
	h.approvalEvent(ev)

	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	clientGone := make(chan error, 1)
	if client {
		go func() {
			ans, err := askClient(wctx, req, t, ev, label)
			if err != nil {
				clientGone <- err
				return
			}
			pa.offer(ans)
		}()
	}
	for {
		select {
		case ans := <-pa.answer:
			switch ans.answer {
			case AnswerApprove:
				decide(ApprovalApproved, ans)
				return nil
			case AnswerApproveSession:
				h.rememberApproval(s, label)
				decide(ApprovalForSession, ans)
				return nil
			}
			decide(ApprovalDenied, ans)
			who := ans.by
			if ans.principal != "" {
				who += " (" + ans.principal + ")"
			}
			return werr.New(werr.BlockedByPolicy, "%s denied by %s (rule %q)", t.Name, who, label).WithDetail("rule", label)
		case err := <-clientGone:
			if slices.Contains(a.Asked, "person") || wctx.Err() != nil {
				continue // the person may still answer (or the time is up: the next case says so)
			}
			decide(ApprovalNobody, approvalAnswer{})
			return werr.New(werr.ApprovalRequired, "%s needs a person's approval (rule %q) and the client could not be asked: %v", t.Name, label, err).
				WithHint("answer from w365 repl or w365 watch --session %s", s.ID).WithDetail("rule", label)
		case <-wctx.Done():
			if ctx.Err() != nil {
				decide(ApprovalCancelled, approvalAnswer{})
				return werr.Wrap(ctx.Err(), werr.Cancelled, "call cancelled while waiting for approval (rule %q)", label)
			}
			decide(ApprovalTimedOut, approvalAnswer{})
			return werr.New(werr.Timeout, "nobody approved %s within %s (rule %q)", t.Name, timeout, label).
				WithDetail("rule", label)
		}
	}
}

// offer hands over an answer unless one was given already: the first one wins.
func (pa *pendingApproval) offer(a approvalAnswer) bool {
	select {
	case pa.answer <- a:
		return true
	default:
		return false
	}
}

// formElicitation says whether the client of req can be asked with a form: it declares
// elicitation (form, or no mode, which means form) and speaks an era that has
// server-to-client requests (2026-07-28 has none); if not, why not.
func formElicitation(req *mcp.CallToolRequest) (bool, string) {
	var ip *mcp.InitializeParams
	if req.Session != nil {
		ip = req.Session.InitializeParams()
	}
	switch {
	case ip == nil || ip.ProtocolVersion >= modernEra:
		return false, "the client speaks MCP " + modernEra + ", which has no requests from server to client"
	case ip.Capabilities == nil || ip.Capabilities.Elicitation == nil:
		return false, "the client declares no elicitation"
	case ip.Capabilities.Elicitation.Form == nil && ip.Capabilities.Elicitation.URL != nil:
		return false, "the client declares URL elicitation only"
	}
	return true, ""
}

// askClient asks the MCP client with a form: approve, approve for this session, deny.
// Declining or cancelling the form denies.
func askClient(ctx context.Context, req *mcp.CallToolRequest, t *tool.Tool, ev CallEvent, rule string) (approvalAnswer, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "w365: %s on session %s needs your approval (rule %q).", t.Name, ev.Session, rule)
	if len(ev.Args) > 0 {
		b.WriteString("\nArguments: " + argsText(ev.Args))
	}
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{
		Mode:    "form",
		Message: b.String(),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"decision": map[string]any{
					"type": "string", "title": "Decision",
					"oneOf": []any{
						map[string]any{"const": AnswerApprove, "title": "Approve"},
						map[string]any{"const": AnswerApproveSession, "title": "Approve for this session"},
						map[string]any{"const": AnswerDeny, "title": "Deny"},
					},
				},
			},
			"required": []string{"decision"},
		},
	})
	if err != nil {
		return approvalAnswer{}, err
	}
	ans := approvalAnswer{answer: AnswerDeny, by: ByClient, principal: ev.Principal}
	if res.Action == "accept" {
		switch d, _ := res.Content["decision"].(string); d {
		case AnswerApprove, AnswerApproveSession:
			ans.answer = d
		case AnswerDeny:
		default:
			return approvalAnswer{}, errors.New("the form came back without a decision")
		}
	}
	return ans, nil
}

// argsText is redacted arguments on one line, key=value sorted.
func argsText(args map[string]any) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(args)) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, args[k]))
	}
	return strings.Join(parts, " ")
}

// rememberApproval approves label for the rest of session s, forgetting the sessions that ended.
func (h *Host) rememberApproval(s *session.Session, label string) {
	as := &h.approvals
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.session == nil {
		as.session = map[*session.Session]map[string]bool{}
	}
	for old := range as.session {
		if cur, ok := h.sessions.Lookup(old.ID); !ok || cur != old {
			delete(as.session, old)
		}
	}
	if as.session[s] == nil {
		as.session[s] = map[string]bool{}
	}
	as.session[s][label] = true
}

// approvalEvent publishes an approval's step and records it in the session's trace.
func (h *Host) approvalEvent(ev CallEvent) {
	h.calls.publish(ev)
	if tr := h.traces.get(ev.Session); tr != nil {
		tr.recordApproval(ev)
	}
	h.log.Info("approval", "session", ev.Session, "tool", ev.Tool, "id", ev.Approval.ID, "rule", ev.Approval.Rule,
		"decision", ev.Approval.Decision, "by", ev.Approval.By)
}

// Answer is a person's answer to a pending approval (the host control "approve").
type Answer struct {
	ID string `json:"id"`
	// Decision is approve, deny or approve-session.
	Decision string `json:"decision"`
	// Via is the front-end the person answered from: repl, watch or cli.
	Via string `json:"via"`
}

// answer gives a person's answer to the pending approval a.ID.
func (h *Host) answer(a Answer) error {
	switch a.Decision {
	case AnswerApprove, AnswerDeny, AnswerApproveSession:
	default:
		return werr.Invalid("decision %q; want %s, %s or %s", a.Decision, AnswerApprove, AnswerDeny, AnswerApproveSession)
	}
	switch a.Via {
	case ByREPL, ByWatch, ByCLI:
	default:
		return werr.Invalid("via %q; want %s, %s or %s", a.Via, ByREPL, ByWatch, ByCLI)
	}
	h.approvals.mu.Lock()
	pa := h.approvals.pending[a.ID]
	h.approvals.mu.Unlock()
	if pa == nil {
		return werr.New(werr.NotFound, "no approval %q is waiting", a.ID).WithHint("w365 watch shows the approvals that wait, with their ids")
	}
	if !pa.offer(approvalAnswer{answer: a.Decision, by: a.Via, principal: session.LocalPrincipal}) {
		return werr.New(werr.NotFound, "approval %q was answered already", a.ID)
	}
	return nil
}

// pendingFor are the "asked" events of the approvals waiting in session ("" for all),
// oldest first: what a person who attaches now must see.
func (h *Host) pendingFor(sessionID string) []CallEvent {
	h.approvals.mu.Lock()
	defer h.approvals.mu.Unlock()
	var out []CallEvent
	for _, pa := range h.approvals.pending {
		if sessionID == "" || pa.ev.Session == sessionID {
			out = append(out, pa.ev)
		}
	}
	slices.SortFunc(out, func(a, b CallEvent) int { return a.Time.Compare(b.Time) })
	return out
}

// WaitsForApproval says whether the call of this report waits for a person's yes.
func (p Progress) WaitsForApproval() bool { return strings.Contains(p.Message, ": "+approvalPhase) }

// approvalPhase begins the progress message of a call that waits for approval.
const approvalPhase = "waiting for approval: "

// Approve answers a pending approval on the running host.
func Approve(ctx context.Context, a Answer) error {
	_, err := control(ctx, controlRequest{Op: "approve", Answer: &a})
	return err
}
