package cli

import "github.com/w365/w365/engine/werr"

// ExitCodes maps each error code to the CLI's exit status. The README's table is
// checked against this map by a test.
var ExitCodes = map[werr.Code]int{
	werr.Internal:          1,
	werr.InvalidArgument:   2,
	werr.NotFound:          3,
	werr.BlockedByPolicy:   4,
	werr.Failsafe:          4,
	werr.ProtectedProcess:  4,
	werr.StaleProcess:      4,
	werr.ApprovalRequired:  4,
	werr.Timeout:           5,
	werr.Cancelled:         5,
	werr.SnapshotExpired:   6,
	werr.SessionExpired:    6,
	werr.Obscured:          6,
	werr.DialogPending:     6,
	werr.Unavailable:       7,
	werr.BrowserCrashed:    7,
	werr.ResourceExhausted: 7,
	werr.Unsupported:       8,
}

// ExitUsage is the status of a command line cobra could not parse.
const ExitUsage = 2

// ExitCode is the process status for err (0 for nil).
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	if c, ok := ExitCodes[werr.As(err).Code]; ok {
		return c
	}
	return 1
}

// ExitTimedOut is the status of exec or py when the child ran out of time (timeout(1)'s).
const ExitTimedOut = 124
