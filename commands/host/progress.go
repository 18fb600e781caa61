package host

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands/tool"
)

// progressEvery is how often a call that gave a progress token hears about itself,
// starting once it has taken that long.
const progressEvery = time.Second

// progress reports, for a call whose client gave a progress token, what the call is
// doing: MCP notifications/progress with the seconds elapsed as progress, the call's
// own bound (its timeoutMs) as total where it has one, and the phase as message
// ("starting session", "queued behind 1 call on session default", "running").
type progress struct {
	mu    sync.Mutex
	phase string
	stop  func()
	// task is the phase sink of the task the call runs as, if it does (tasks.go).
	task func(string)
}

// startProgress begins reporting on a call of t with input in; the caller must call
// done. Without a progress token it reports nothing.
func startProgress(ctx context.Context, req *mcp.CallToolRequest, t *tool.Tool, in any) *progress {
	p := &progress{phase: "running", stop: func() {}, task: taskPhase(ctx)}
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil {
		return p
	}
	total := callBound(in).Seconds()
	start := time.Now()
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(progressEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			elapsed := time.Since(start)
			p.mu.Lock()
			msg := fmt.Sprintf("%s: %s, %.0f s elapsed", t.Name, p.phase, elapsed.Seconds())
			p.mu.Unlock()
			req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
				ProgressToken: token, Progress: elapsed.Seconds(), Total: total, Message: msg})
		}
	}()
	p.stop = func() { cancel(); wg.Wait() }
	return p
}

// setPhase names what the call is doing now.
func (p *progress) setPhase(format string, args ...any) {
	p.mu.Lock()
	p.phase = fmt.Sprintf(format, args...)
	phase := p.phase
	p.mu.Unlock()
	if p.task != nil {
		p.task(phase)
	}
}

// done stops the reports; none is sent after it returns.
func (p *progress) done() { p.stop() }

// callBound is the longest a call may run by its own input: a timeoutMs field (the
// exec tools, browser_wait_for) or wait_milliseconds' ms, 0 when it has none.
func callBound(in any) time.Duration {
	v := reflect.ValueOf(in)
	if v.Kind() != reflect.Struct {
		return 0
	}
	for i := 0; i < v.NumField(); i++ {
		f := v.Type().Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if (name == "timeoutMs" || name == "ms") && f.Type.Kind() == reflect.Int {
			return time.Duration(v.Field(i).Int()) * time.Millisecond
		}
	}
	return 0
}

// Progress is one progress report as a client of the host sees it.
type Progress struct {
	// Elapsed is how long the call has taken so far.
	Elapsed time.Duration
	// Total is the call's bound, 0 when it has none.
	Total time.Duration
	// Message names the tool and its phase, e.g. "browser_wait_for: queued behind 1 call on session default, 2 s elapsed".
	Message string
}

// Queued says whether the call is still waiting behind another call on its session.
func (p Progress) Queued() bool { return strings.Contains(p.Message, ": queued behind ") }
