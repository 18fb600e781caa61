package tool

import (
	"context"
	"fmt"
)

// A handler may say what it is doing now, for calls that report progress (MCP
// progress notifications, the REPL's status line): "starting the session's browser",
// "loading https://...". The host puts the reporter into the call's context.

type phaseKey struct{}

// WithPhase returns ctx whose calls to Phase report to set.
func WithPhase(ctx context.Context, set func(string)) context.Context {
	return context.WithValue(ctx, phaseKey{}, set)
}

// Phase names what the call of ctx is doing now; without a reporter it does nothing.
func Phase(ctx context.Context, format string, args ...any) {
	if set, ok := ctx.Value(phaseKey{}).(func(string)); ok {
		set(fmt.Sprintf(format, args...))
	}
}
