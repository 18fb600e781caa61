package session

import (
	"context"
	"sync"
)

// Queue admits calls one at a time in the order they entered (FIFO). Entering and
// waiting are separate steps, so a caller can take its place in line at once (in
// the order requests were read) and block later.
type Queue struct {
	mu      sync.Mutex
	waiting []*Ticket
}

// Ticket is one place in a Queue.
type Ticket struct {
	q     *Queue
	ready chan struct{}
	gone  bool // left before its turn (context cancelled)
}

// Enter takes the next place in line without blocking.
func (q *Queue) Enter() *Ticket {
	t := &Ticket{q: q, ready: make(chan struct{})}
	q.mu.Lock()
	q.waiting = append(q.waiting, t)
	if len(q.waiting) == 1 {
		close(t.ready)
	}
	q.mu.Unlock()
	return t
}

// Wait blocks until it is t's turn or ctx ends; on ctx's end t leaves the line.
func (t *Ticket) Wait(ctx context.Context) error {
	select {
	case <-t.ready:
		return nil
	case <-ctx.Done():
		t.q.mu.Lock()
		select {
		case <-t.ready:
			// Our turn came as we gave up: pass it on.
			t.q.mu.Unlock()
			t.Done()
			return ctx.Err()
		default:
		}
		t.gone = true
		t.q.mu.Unlock()
		return ctx.Err()
	}
}

// Done ends t's turn and admits the next ticket still waiting.
func (t *Ticket) Done() {
	q := t.q
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.waiting) == 0 || q.waiting[0] != t {
		return
	}
	q.waiting = q.waiting[1:]
	for len(q.waiting) > 0 && q.waiting[0].gone {
		q.waiting = q.waiting[1:]
	}
	if len(q.waiting) > 0 {
		close(q.waiting[0].ready)
	}
}

// Len is the number of tickets in line, the running one included.
func (q *Queue) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.waiting)
}
