package browser

import (
	"context"
	"os"
	"sync"

	"github.com/chromedp/chromedp"
)

// The browser is driven over --remote-debugging-pipe: two anonymous pipes that
// only this process holds, so no other local process can reach the DevTools
// protocol (a --remote-debugging-port on loopback accepts anyone, and with it
// the cookies and every page of the session).

// debugPipe is the parent's side of the two pipes, before and after the start.
type debugPipe struct {
	childR, childW   *os.File // the browser's ends: it reads commands from childR, writes to childW
	parentR, parentW *os.File
}

func newDebugPipe() (*debugPipe, error) {
	cr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	pr, cw, err := os.Pipe()
	if err != nil {
		cr.Close()
		pw.Close()
		return nil, err
	}
	return &debugPipe{childR: cr, childW: cw, parentR: pr, parentW: pw}, nil
}

// started closes the browser's ends in this process once the browser holds them.
func (p *debugPipe) started() {
	p.childR.Close()
	p.childW.Close()
}

// close closes every end (a start that failed).
func (p *debugPipe) close() {
	for _, f := range []*os.File{p.childR, p.childW, p.parentR, p.parentW} {
		f.Close()
	}
}

// pipeAllocator is a chromedp allocator over an already started browser's pipe.
// Like the remote allocator it attaches: chromedp does not own the process.
type pipeAllocator struct {
	conn *chromedp.PipeConn
	wg   sync.WaitGroup
}

func (a *pipeAllocator) Allocate(ctx context.Context, opts ...chromedp.BrowserOption) (*chromedp.Browser, error) {
	if chromedp.FromContext(ctx) == nil {
		return nil, chromedp.ErrInvalidContext
	}
	// The connection outlives ctx until the pages are closed, as in the remote allocator.
	wctx, cancel := context.WithCancel(context.Background())
	a.wg.Go(func() {
		<-ctx.Done()
		chromedp.Cancel(ctx)
		cancel()
	})
	return chromedp.NewBrowserTransport(wctx, a.conn, opts...)
}

func (a *pipeAllocator) Wait() { a.wg.Wait() }

// Attaches tells chromedp the allocator does not start the browser.
func (a *pipeAllocator) Attaches() bool { return true }

// newPipeAllocator makes the allocator context for a browser started with p,
// whose pipe m shares between chromedp and the run_code proxy.
func newPipeAllocator(m *cdpMux) (context.Context, context.CancelFunc) {
	r, w := m.chromedpConn()
	return chromedp.NewAllocatorContext(context.Background(), &pipeAllocator{conn: chromedp.NewPipeConn(r, w)})
}
