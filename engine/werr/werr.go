// Package werr is the one error type of w365: a stable code, a message that is
// safe to show, and whether retrying the same call may succeed.
package werr

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"
)

// Code is a stable, documented error class. Callers switch on codes, never on messages.
type Code string

// The stable codes. The README documents each with its CLI exit status.
const (
	InvalidArgument   Code = "INVALID_ARGUMENT"
	NotFound          Code = "NOT_FOUND"
	Timeout           Code = "TIMEOUT"
	SnapshotExpired   Code = "SNAPSHOT_EXPIRED"
	BlockedByPolicy   Code = "BLOCKED_BY_POLICY"
	Failsafe          Code = "FAILSAFE"
	SessionExpired    Code = "SESSION_EXPIRED"
	Unavailable       Code = "UNAVAILABLE"
	Unsupported       Code = "UNSUPPORTED"
	Internal          Code = "INTERNAL"
	ProtectedProcess  Code = "PROTECTED_PROCESS"
	StaleProcess      Code = "STALE_PROCESS"
	BrowserCrashed    Code = "BROWSER_CRASHED"
	Obscured          Code = "OBSCURED"
	DialogPending     Code = "DIALOG_PENDING"
	Cancelled         Code = "CANCELLED"
	ResourceExhausted Code = "RESOURCE_EXHAUSTED"
	// ApprovalRequired: the policy wants a person's yes for the call and nobody can be
	// asked (docs/security.md#approvals).
	ApprovalRequired Code = "APPROVAL_REQUIRED"
)

// retryableByDefault says which codes mean "the same call may work later".
var retryableByDefault = map[Code]bool{
	Timeout:         true,
	SnapshotExpired: true,
	Unavailable:     true,
	BrowserCrashed:  true,
}

// Error is the error every engine and command returns across a package boundary.
type Error struct {
	Code      Code   `json:"code"`
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
	// Hint tells the caller how to get unstuck ("take a new snapshot").
	Hint string `json:"hint,omitempty"`
	// Details carries machine-readable context (allowed values, nearest matches).
	Details map[string]any `json:"details,omitempty"`
	cause   error
}

func (e *Error) Error() string {
	s := string(e.Code) + ": " + e.Message
	if e.Hint != "" {
		s += " (" + e.Hint + ")"
	}
	return s
}

// Unwrap exposes the underlying cause to errors.Is/As; it is never shown to users.
func (e *Error) Unwrap() error { return e.cause }

// New makes an error with a formatted message and the code's default retryability.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, clipped(args)...), Retryable: retryableByDefault[code]}
}

// MaxQuoted is how much of one value a message, hint or detail shows: messages name what
// they were given, and a caller may give megabytes (a 10 MB title to match, an unknown
// parameter's name), which an error must not send back whole, let alone twice.
const MaxQuoted = 1000

// clipped is args with each text longer than MaxQuoted bytes cut to it (clip).
func clipped(args []any) []any {
	var out []any
	for i, a := range args {
		var s string
		switch v := a.(type) {
		case string:
			s = v
		case []byte:
			s = string(v)
		case error:
			s = v.Error()
		case fmt.Stringer:
			s = v.String()
		default:
			continue
		}
		if len(s) <= MaxQuoted {
			continue
		}
		if out == nil {
			out = slices.Clone(args)
		}
		out[i] = clip(s)
	}
	if out == nil {
		return args
	}
	return out
}

// clip is s cut to at most MaxQuoted bytes at a character boundary, with how long it was.
func clip(s string) string {
	if len(s) <= MaxQuoted {
		return s
	}
	cut := MaxQuoted
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s…(%d bytes in all)", s[:cut], len(s))
}

// Wrap makes an error that keeps cause for logs and errors.Is while showing only message.
func Wrap(cause error, code Code, format string, args ...any) *Error {
	e := New(code, format, args...)
	e.cause = cause
	return e
}

// WithHint returns e with a way forward attached.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, clipped(args)...)
	return e
}

// WithDetail returns e with one machine-readable detail attached.
func (e *Error) WithDetail(key string, value any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	switch v := value.(type) {
	case string:
		value = clip(v)
	case []string:
		cut := make([]string, len(v))
		for i, s := range v {
			cut[i] = clip(s)
		}
		value = cut
	}
	e.Details[key] = value
	return e
}

// WithRetryable overrides the code's default retryability.
func (e *Error) WithRetryable(r bool) *Error {
	e.Retryable = r
	return e
}

// Invalid is shorthand for an INVALID_ARGUMENT error.
func Invalid(format string, args ...any) *Error { return New(InvalidArgument, format, args...) }

// As finds the *Error in err's chain; any other error becomes INTERNAL with a generic message,
// so that internal details (paths, addresses, secrets) never leak to callers.
func As(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return Wrap(err, Internal, "internal error")
}

// CodeOf returns the code of err, or "" for nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	return As(err).Code
}

// Done is the error of a call whose context has ended, nil while ctx is live: TIMEOUT once
// its deadline passed, CANCELLED when it was cancelled. what names the call ("capture").
func Done(ctx context.Context, what string) error {
	switch err := ctx.Err(); {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return Wrap(err, Timeout, "%s: deadline exceeded", what)
	default:
		return Wrap(err, Cancelled, "%s cancelled", what)
	}
}
