package browser

import (
	"context"
	"time"

	"github.com/w365/w365/engine/werr"
)

// opLock serialises page operations like a mutex whose wait a context ends: a
// call never waits forever behind another one.
type opLock chan struct{}

func newOpLock() opLock { return make(opLock, 1) }

func (l opLock) lock(ctx context.Context) error {
	select {
	case l <- struct{}{}:
		return nil
	case <-ctx.Done():
		return werr.New(werr.Timeout, "the browser is still busy with an earlier call").WithRetryable(true).
			WithHint("wait for it, or cancel it; then retry")
	}
}

func (l opLock) tryLock() bool {
	select {
	case l <- struct{}{}:
		return true
	default:
		return false
	}
}

func (l opLock) unlock() { <-l }

// bound gives a call without a deadline one: every browser call ends.
func (b *Browser) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, b.opTimeout())
}

// opTimeout bounds one operation: the longest wait plus room to settle.
func (b *Browser) opTimeout() time.Duration {
	return time.Duration(b.pol.BrowserWaitMaxMs)*time.Millisecond + 30*time.Second
}
