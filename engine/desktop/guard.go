package desktop

import (
	"strings"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

// Guard is what every platform's Input checks before it acts: a target inside the
// screen, and the corner fail-safe of the policy.
type Guard struct{ pol *policy.Policy }

// NewGuard checks against p's fail-safe settings.
func NewGuard(p *policy.Policy) Guard { return Guard{p} }

// InCorner reports whether (x, y) lies within margin pixels (Chebyshev distance) of
// one of the four corner pixels of a w x h screen. The corners are those of the
// whole virtual screen: screen pixels with (0, 0) at the top left, the one coordinate
// space that screenshots, OCR, windows and accessibility elements share.
func InCorner(x, y, w, h, margin int) bool {
	nearX := x <= margin || x >= w-1-margin
	nearY := y <= margin || y >= h-1-margin
	return nearX && nearY
}

// On says the fail-safe is enabled.
func (g Guard) On() bool { return g.pol.FailsafeEnabled && g.pol.FailsafeMarginPx >= 0 }

// Err is the FAILSAFE refusal of op because what (x, y) lies in a corner of a w x h screen.
func (g Guard) Err(op, what string, x, y, w, h int) *werr.Error {
	m := g.pol.FailsafeMarginPx
	return werr.New(werr.Failsafe, "%s refused by the corner fail-safe: %s (%d,%d) is within %d px of a screen corner",
		op, what, x, y, m).
		WithHint("move the cursor away from the corner first with move_mouse to a point more than %d px from every corner of the %dx%d screen (a move to a safe point is always allowed, even from a corner), and do not target the extreme corners; the fail-safe can be turned off in the policy (failsafeEnabled: false)", m, w, h).
		WithDetail("x", x).WithDetail("y", y).WithDetail("marginPx", m)
}

// CheckCursor refuses op when the cursor at (cx, cy) already sits in a corner zone.
func (g Guard) CheckCursor(op string, cx, cy, w, h int) error {
	if g.On() && InCorner(cx, cy, w, h, g.pol.FailsafeMarginPx) {
		return g.Err(op, "the cursor at", cx, cy, w, h)
	}
	return nil
}

// CheckTarget refuses a target outside the w x h screen or in a corner zone.
func (g Guard) CheckTarget(op string, x, y, w, h int) error {
	if x < 0 || y < 0 || x >= w || y >= h {
		return werr.Invalid("%s: point (%d,%d) is outside the %dx%d screen", op, x, y, w, h).
			WithHint("coordinates are screen pixels from (0,0) to (%d,%d); get_screen_size tells the size", w-1, h-1)
	}
	if g.On() && InCorner(x, y, w, h, g.pol.FailsafeMarginPx) {
		return g.Err(op, "the target", x, y, w, h)
	}
	return nil
}

// Mouse buttons by their contract names (lower case).
const (
	ButtonLeft     = "left"
	ButtonMiddle   = "middle"
	ButtonRight    = "right"
	ButtonBackward = "backward"
	ButtonForward  = "forward"
)

const clickButtonNames = "Left, Right, Middle, Forward, Backward"

// ParseButton is the Button* value a button name means (case-insensitive, "" is left);
// the side buttons only when allowSide.
func ParseButton(name string, allowSide bool) (string, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	switch n {
	case "":
		return ButtonLeft, nil
	case ButtonLeft, ButtonMiddle, ButtonRight:
		return n, nil
	case ButtonBackward, ButtonForward:
		if allowSide {
			return n, nil
		}
	}
	allowed := clickButtonNames
	if !allowSide {
		allowed = "Left, Right, Middle"
	}
	return "", werr.Invalid("unknown mouse button %q: allowed values are %s", name, allowed).
		WithDetail("allowed", strings.Split(allowed, ", "))
}

// ClickCount checks a click's count (0 means 1; a double click is 2) and its point (both
// coordinates or neither, for the cursor position), the same on every backend.
func ClickCount(count int, x, y *int) (int, error) {
	if count == 0 {
		count = 1
	}
	if count != 1 && count != 2 {
		return 0, werr.Invalid("clickCount must be 1 or 2, got %d", count)
	}
	if (x == nil) != (y == nil) {
		return 0, werr.Invalid("give both x and y, or neither to click at the cursor position")
	}
	return count, nil
}
