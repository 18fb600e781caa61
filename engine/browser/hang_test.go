//go:build linux

package browser_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/test/testenv"
)

// bounded runs f with a context that has no deadline (as an MCP call's) and
// fails when it does not return within d.
func bounded(t *testing.T, what string, d time.Duration, f func(ctx context.Context) error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f(context.Background()) }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("%s did not answer within %s", what, d)
		return nil
	}
}

// The browser_get_title hang: tab 0 holds a page whose timer opened an alert,
// tab 1 is the error page of a browser_new_tab that failed. No call may hang.
func TestNoCallHangsOnErrorPagesAndDialogs(t *testing.T) {
	b, s := launch(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/"
	l.Close()
	// A server that accepts, waits past the timer, and hangs up: the alert opens
	// while tab 0 navigates, and the navigation ends on an error page.
	slow := testenv.HangUpServer(t, 2*time.Second)
	navigate(t, b, s.URL+"/timer-alert.html")
	err = bounded(t, "navigate to a server that hangs up", 40*time.Second, func(ctx context.Context) error {
		_, err := b.Navigate(ctx, "http://"+slow.Addr().String()+"/", browser.WaitLoad)
		return err
	})
	t.Logf("navigate tab 0: %v", err)
	err = bounded(t, "new tab to a refused port", 40*time.Second, func(ctx context.Context) error {
		_, err := b.NewTab(ctx, refused)
		return err
	})
	t.Logf("new tab: %v", err)
	time.Sleep(1500 * time.Millisecond) // the alert of tab 0 is open by now
	for _, c := range []struct {
		name string
		f    func(ctx context.Context) error
	}{
		{"title", func(ctx context.Context) error { _, err := b.Title(ctx); return err }},
		{"url", func(ctx context.Context) error { _, err := b.URL(ctx); return err }},
		{"text", func(ctx context.Context) error { _, err := b.Text(ctx); return err }},
		{"tabs", func(ctx context.Context) error { _, err := b.ListTabs(ctx); return err }},
		{"switch to 0", func(ctx context.Context) error {
			i := 0
			_, err := b.SwitchTab(ctx, browser.TabRef{Index: &i})
			return err
		}},
		{"title of 0", func(ctx context.Context) error { _, err := b.Title(ctx); return err }},
		{"eval on 0", func(ctx context.Context) error { _, err := b.EvalJS(ctx, "1+1"); return err }},
	} {
		start := time.Now()
		err := bounded(t, c.name, 20*time.Second, c.f)
		t.Logf("%s: %v (%s)", c.name, err, time.Since(start).Round(time.Millisecond))
	}
}
