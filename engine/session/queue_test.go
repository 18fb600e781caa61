package session

import (
	"context"
	"sync"
	"testing"
	"time"
)

func TestQueueAdmitsInEntryOrder(t *testing.T) {
	var q Queue
	const n = 50
	tickets := make([]*Ticket, n)
	for i := range tickets {
		tickets[i] = q.Enter()
	}
	var mu sync.Mutex
	var order []int
	var wg sync.WaitGroup
	// Start waiters in reverse to show that entry order, not wait order, decides.
	for i := n - 1; i >= 0; i-- {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if err := tickets[i].Wait(context.Background()); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			tickets[i].Done()
		}(i)
	}
	wg.Wait()
	for i, v := range order {
		if v != i {
			t.Fatalf("admitted %v, want 0..%d in order", order, n-1)
		}
	}
}

func TestQueueCancelledTicketIsSkipped(t *testing.T) {
	var q Queue
	a, b, c := q.Enter(), q.Enter(), q.Enter()
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- b.Wait(ctx) }()
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("cancelled wait returned nil")
	}
	a.Done()
	done := make(chan struct{})
	go func() { c.Wait(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("third ticket never admitted after the second left the line")
	}
	c.Done()
	if q.Len() != 0 {
		t.Fatalf("queue not empty: %d", q.Len())
	}
}
