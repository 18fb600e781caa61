package repl

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/charmbracelet/x/term"
)

// terminalWatch ends the REPL when its terminal goes away or it is told to stop.
//
// A closed terminal (tmux kill-session, a closed window) sends SIGHUP only to the
// session leader: under `make run` that is make, which lives on, and the REPL, whose
// reads now fail with EIO, would run forever. So besides SIGHUP and SIGTERM the watch
// asks the terminal for its state a few times a second; a hung-up terminal answers
// with an error. Leaving the REPL leaves the host running (it is in its own session).
func terminalWatch(ctx context.Context, in any, stop context.CancelFunc) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGTERM)
	defer signal.Stop(sigs)
	var fd uintptr
	f, hasFd := in.(interface{ Fd() uintptr })
	if hasFd {
		fd = f.Fd()
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-sigs:
		case <-tick.C:
			if !hasFd {
				continue
			}
			if _, err := term.GetState(fd); err == nil {
				continue
			}
		}
		stop()
		// Restoring a terminal that is gone can block on some systems: never let the
		// REPL outlive its terminal by more than a moment.
		time.AfterFunc(time.Second, func() { os.Exit(1) })
		return
	}
}
