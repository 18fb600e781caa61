package browser

import "context"

// Callers: every caller of a session (an agent's MCP connection, the person's REPL, the
// person's shell commands; the host names them, commands/host/observe.go) has its own
// tab, the one its page operations act on: the tab it last acted on, selected or opened
// (a tab the page opened during its action included), else the browser's front tab.
// So one caller's tab switch never moves another; the pages themselves are shared
// (docs/sessions.md#watching-and-tracing-an-agent). engine/snapshot keys each caller's
// "latest" snapshot the same way.

type callerKey struct{}

// WithCaller marks ctx as a call of caller (the host sets it for every call).
func WithCaller(ctx context.Context, caller string) context.Context {
	return context.WithValue(ctx, callerKey{}, caller)
}

// CallerOf is the caller ctx was marked with ("" when none).
func CallerOf(ctx context.Context) string {
	c, _ := ctx.Value(callerKey{}).(string)
	return c
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
