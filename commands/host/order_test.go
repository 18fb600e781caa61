package host

import (
	"context"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/engine/session"
)

// A call whose predecessor on its connection never reached the handler (the SDK or the
// checks before the session refused it) waits for it only orderWait, however late the
// scheduler runs the waiting goroutine. The wait used to be a sync.Cond woken by a 10 ms
// timer's broadcast: a goroutine that lost its core between arming the timer and waiting
// missed the broadcast and slept until the connection's next call, which a client that
// waits for each answer never sends (a sweep's drag_mouse call hung 60 s on a loaded
// machine, until the client gave up and sent the next call). Here the goroutine loses its
// core for 50 ms at that point, every time it waits.
func TestCallsWaitForAMissingPredecessorOnlyTheirBound(t *testing.T) {
	orderWaitHook = func() { time.Sleep(50 * time.Millisecond) }
	defer func() { orderWaitHook = nil }()
	pr, pw := io.Pipe()
	c, err := orderedTransport{Transport: lineTransport{r: pr, w: pw}}.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	call := func(seq int) *mcp.RequestExtra {
		hdr := http.Header{}
		hdr.Set(hdrSeq, strconv.Itoa(seq))
		hdr.Set(hdrConn, strconv.FormatUint(c.(*orderedConn).id, 10))
		return &mcp.RequestExtra{Header: hdr}
	}
	const calls = 3
	entered := make(chan int)
	go func() {
		var q session.Queue
		for seq := 2; seq <= 2*calls; seq += 2 { // calls 1, 3, 5 never enter
			enterInOrder(call(seq), &q).Done()
			entered <- seq
		}
	}()
	for seq := 2; seq <= 2*calls; seq += 2 {
		select {
		case <-entered:
		case <-time.After(20 * orderWait): // a call that missed its wakeup waits for good
			t.Fatalf("call %d has not entered within %s: it waits for a predecessor that never comes", seq, 20*orderWait)
		}
	}
}
