package browser

import (
	"context"
	"time"
)

// Callers: every caller of a session (an agent's MCP connection, the person's REPL, the
// person's shell commands; the host names them, commands/host/observe.go) has its own
// tab, the one its page operations act on: the tab it last acted on, selected or opened
// (a tab the page opened during its action included), else the browser's front tab.
// So one caller's tab switch never moves another; the pages themselves are shared
// (docs/sessions.md#watching-and-tracing-an-agent). engine/snapshot keys each caller's
// "latest" snapshot the same way.

type callerKey struct{}

// call is a caller's call: who, and when it came (before any queue).
type call struct {
	caller string
	came   time.Time
}

// WithCaller marks ctx as a call of caller that comes now (the host sets it for every
// call as it arrives).
func WithCaller(ctx context.Context, caller string) context.Context {
	return context.WithValue(ctx, callerKey{}, call{caller, time.Now()})
}

// CallerOf is the caller ctx was marked with ("" when none).
func CallerOf(ctx context.Context) string {
	c, _ := ctx.Value(callerKey{}).(call)
	return c.caller
}

// maxCallerTabs bounds the callers whose tab an instance remembers; past it the callers
// on closed tabs are forgotten, then all of them (each then acts on the front tab).
const maxCallerTabs = 64

// tabOfLocked is the tab the caller of ctx acts on (nil when the browser has none).
func (inst *instance) tabOfLocked(ctx context.Context) *tab {
	if t := inst.callerTabs[CallerOf(ctx)]; t != nil && !t.gone {
		return t
	}
	return inst.active
}

// setTabLocked makes t the tab of the caller of ctx.
func (inst *instance) setTabLocked(ctx context.Context, t *tab) {
	c := CallerOf(ctx)
	if inst.callerTabs == nil {
		inst.callerTabs = map[string]*tab{}
	}
	if _, ok := inst.callerTabs[c]; !ok && len(inst.callerTabs) >= maxCallerTabs {
		for k, x := range inst.callerTabs {
			if x.gone {
				delete(inst.callerTabs, k)
			}
		}
		if len(inst.callerTabs) >= maxCallerTabs {
			clear(inst.callerTabs)
		}
	}
	inst.callerTabs[c] = t
}

// showLocked makes t the front tab and the tab of the caller of ctx.
func (inst *instance) showLocked(ctx context.Context, t *tab) {
	inst.active = t
	inst.setTabLocked(ctx, t)
}

// Dialog notices: every caller hears of every JavaScript dialog once, from its first
// call on (the time it came), whoever's call (or the page alone) opened it: in the result of the
// action during which it opened, in a DIALOG_PENDING refusal, or else in the result of
// the caller's next action (ActionResult.Dialog), with whether it is still open. So a
// dialog a person opened and answered in the REPL is not lost for the agent.

// keepDialogs is how many dialogs a browser remembers for the callers not yet told.
const keepDialogs = 16

// openedLocked records a dialog that opened.
func (b *Browser) openedLocked(d *Dialog) {
	b.dialogLog = append(b.dialogLog, d)
	if len(b.dialogLog) > keepDialogs {
		b.dialogLog = b.dialogLog[1:]
	}
}

// closedLocked records how the dialog of t closed.
func (b *Browser) closedLocked(t *tab, accepted bool) {
	if t.dialog == nil {
		return
	}
	t.dialog.closed = "dismissed"
	if accepted {
		t.dialog.closed = "accepted"
	}
}

// firstLocked is what a caller first seen has heard of: every dialog that opened
// before its call came (a dialog that opened while the call waited in a queue is news).
func (b *Browser) firstLocked(ctx context.Context) {
	seq := b.dialogSeq
	c, _ := ctx.Value(callerKey{}).(call)
	for i := len(b.dialogLog) - 1; i >= 0 && !c.came.IsZero() && b.dialogLog[i].OpenedAt.After(c.came); i-- {
		seq = b.dialogLog[i].seq - 1
	}
	b.toldLocked(ctx, seq)
}

// toldLocked says the caller of ctx has heard of every dialog up to seq. Past
// maxCallerTabs callers all are forgotten (and hear of none before their next call).
func (b *Browser) toldLocked(ctx context.Context, seq int64) {
	c := CallerOf(ctx)
	if b.dialogTold == nil {
		b.dialogTold = map[string]int64{}
	}
	old, ok := b.dialogTold[c]
	if !ok && len(b.dialogTold) >= maxCallerTabs {
		clear(b.dialogTold)
	}
	b.dialogTold[c] = max(old, seq)
}

// noticeLocked gives res the newest dialog the caller of ctx has not heard of, unless
// res has the dialog its action opened; either way the caller has heard of all.
func (b *Browser) noticeLocked(ctx context.Context, res *ActionResult) {
	if told, seen := b.dialogTold[CallerOf(ctx)]; res.Dialog == nil && seen {
		if n := len(b.dialogLog); n > 0 && b.dialogLog[n-1].seq > told {
			d := *b.dialogLog[n-1]
			d.elsewhere = true
			res.Dialog = &d
		}
	}
	b.toldLocked(ctx, b.dialogSeq)
}

// Elsewhere says the call whose result tells of the dialog did not open it: another
// caller's call did, or the page alone, or the page of another tab.
func (d Dialog) Elsewhere() bool { return d.elsewhere }

// Closed is how the dialog was answered ("accepted", "dismissed", or "closed" when its page
// went) by the time the result told of it; "" while it is open.
func (d Dialog) Closed() string { return d.closed }
