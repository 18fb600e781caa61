package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/w365/w365/engine/werr"
)

// environment lists every variable w365 reads, for `help environment`.
var environment = [][2]string{
	{"W365_SESSION", "the session commands act in (--session; default: default)"},
	{"W365_POLICY", "policy file for a host the CLI starts (--policy)"},
	{"W365_BROWSER", "browser executable for session browsers (--browser; default: Edge, Chrome, then Chromium)"},
	{"W365_CDP_ENDPOINT", "attach the default session to a running browser's DevTools endpoint (--cdp-endpoint)"},
	{"W365_API_KEY", "key serve --http requires as Authorization: Bearer KEY or x-api-key: KEY"},
	{"W365_API_KEY_FILE", "a file whose first line is that key (a systemd credential, a container secret)"},
	{"W365_KEYS_FILE", "serve --http's keys file: NAME KEY lines, one principal each (--keys-file)"},
	{"W365_ROUTE_NAME", "the name a router knows this serve --http by; HTTP sessions get ids NAME.s-... (--route-name)"},
	{"W365_PUBLIC_URL", "how clients reach serve --http, for the live-view URLs it hands out (--public-url)"},
	{"W365_RUNTIME_DIR", "directory of the host's socket, pid file and log (default: $XDG_RUNTIME_DIR/w365, else /run/user/UID/w365 when it is ours, else /tmp/w365-UID)"},
	{"XDG_RUNTIME_DIR", "see W365_RUNTIME_DIR"},
	{"XDG_STATE_HOME", "REPL history (w365/history) and session output such as traces (w365/sessions/ID); default ~/.local/state"},
	{"XDG_CONFIG_HOME", "where user-dirs.dirs names the Documents, Downloads and Desktop folders file uploads may come from"},
	{"DISPLAY", "the X display the default session uses; unset (or --virtual) for a virtual desktop"},
	{"DBUS_SESSION_BUS_ADDRESS", "the session bus of the DISPLAY desktop, for its accessibility tree"},
	{"W365_TRACE", "when set, a command prints how long connecting and the call took (to stderr)"},
	{"GOGC", "when set, overrides the garbage-collector settings w365 picks for one-shot commands and the host"},
}

// AddHelpTopics adds `w365 help exit-codes` and `w365 help environment`. The man pages
// come from docs/man (make man), so that the binary links no man-page generator. Their
// texts are written when their help is shown; eager writes them at once, for a tree that
// is read whole (docs, man pages).
func AddHelpTopics(root *cobra.Command, eager bool) {
	topic := func(use, short string, long func() string) {
		c := &cobra.Command{Use: use, Short: short}
		if eager {
			c.Long = long()
		} else {
			c.SetHelpFunc(func(c *cobra.Command, args []string) {
				c.Long = long()
				c.Parent().HelpFunc()(c, args)
			})
		}
		root.AddCommand(c)
	}
	topic("exit-codes", "Exit status by error code", exitCodesText)
	topic("environment", "Environment variables w365 reads", environmentText)
}

// exitCodesText is the text of `w365 help exit-codes`.
func exitCodesText() string {
	var b strings.Builder
	b.WriteString("Exit status of w365 commands:\n\n")
	byStatus := map[int][]string{}
	for code, st := range ExitCodes {
		byStatus[st] = append(byStatus[st], string(code))
	}
	var statuses []int
	for st := range byStatus {
		statuses = append(statuses, st)
	}
	slices.Sort(statuses)
	fmt.Fprintf(&b, "  %3d  success\n", 0)
	for _, st := range statuses {
		codes := byStatus[st]
		slices.Sort(codes)
		fmt.Fprintf(&b, "  %3d  %s\n", st, strings.Join(codes, ", "))
	}
	fmt.Fprintf(&b, "\n  exec and py (execute-shell-command, execute-python-code) end with the child's own status\n"+
		"  (stdout and stderr passed on apart); %d when it timed out and was killed.\n\n", ExitTimedOut)
	b.WriteString("An error prints one line to stderr: w365: CODE: message (hint). A usage mistake (unknown\n" +
		"command or flag, a bad value) is " + string(werr.InvalidArgument) + ", status 2. --json results never carry errors;\n" +
		"errors always go to stderr.")
	return b.String()
}

// environmentText is the text of `w365 help environment`.
func environmentText() string {
	var e strings.Builder
	e.WriteString("Environment variables w365 reads:\n\n")
	for _, kv := range environment {
		fmt.Fprintf(&e, "  %-25s %s\n", kv[0], kv[1])
	}
	e.WriteString("\nChild processes (sandboxed exec and py, launched applications) get an environment built from\n" +
		"an allowlist, never w365's own.")
	return strings.TrimRight(e.String(), "\n")
}
