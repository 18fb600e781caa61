package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/engine/werr"
)

// AddHostCommands adds `w365 host`, `w365 trace` and `w365 watch`: the commands about
// the host and the calls it runs, which are not tools.
func AddHostCommands(root *cobra.Command, g *Globals, iostr IO) {
	hostCmd := &cobra.Command{Use: "host", GroupID: "other", Short: "See or stop the background host"}
	hostCmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "Show the running host: pid, version, uptime, sessions, policy, endpoints",
		Long: "Show the running host: its pid, build, uptime, sessions, the policy in force and where it\n" +
			"listens. Never starts a host: with none running it fails with UNAVAILABLE (exit 7).",
		Example: "  $ w365 host status\n  $ w365 host status --jq .pid",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := host.HostStatus(cmd.Context())
			if err != nil {
				return err
			}
			if g.JSON || g.JQ != "" {
				return PrintJSON(iostr, g, st)
			}
			printStatus(iostr, st)
			return nil
		},
	})
	hostCmd.AddCommand(&cobra.Command{
		Use:     "stop",
		Short:   "End the host's sessions cleanly and stop it",
		Long:    "Ask the running host to end every session (desktops, browsers, their processes) and exit,\nand wait until it has. The next command starts a new host.",
		Example: "  $ w365 host stop",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			pid, err := host.StopHost(cmd.Context())
			if err != nil {
				return err
			}
			if g.JSON || g.JQ != "" {
				return PrintJSON(iostr, g, map[string]any{"stopped": true, "pid": pid})
			}
			fmt.Fprintf(iostr.Out, "stopped the host (pid %d)\n", pid)
			return nil
		},
	})
	root.AddCommand(hostCmd)

	traceCmd := &cobra.Command{
		Use: "trace", GroupID: "other", Short: "Record the calls of a session, and show a recording as HTML",
		Long: `An action trace records every call of a session, from any front-end (this CLI, the REPL,
an MCP agent): when, who (principal and front-end), which tool, its arguments with secrets
redacted (text typed into password fields, cookie values, API keys), the result's summary or
the error, and how long it took; with --screenshots also a thumbnail of the screen (or the
page, for browser tools) after each call that changed something. Traces are JSON Lines files
in the session's output directory ($XDG_STATE_HOME/w365/sessions/SESSION), bounded to 5000
calls or 64 MB. serve --trace DIR traces every session of that host from the start.`,
	}
	var shots bool
	var dir string
	start := &cobra.Command{
		Use:     "start",
		Short:   "Start recording the session's calls",
		Example: "  $ w365 trace start --screenshots\n  $ w365 --session s-1 trace start --dir ./traces",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir != "" {
				abs, err := filepath.Abs(dir)
				if err != nil {
					return werr.Invalid("--dir: %v", err)
				}
				dir = abs
			}
			info, err := host.TraceStart(cmd.Context(), host.TraceOptions{Session: g.Session, Screenshots: shots, Dir: dir})
			if err != nil {
				return err
			}
			if g.JSON || g.JQ != "" {
				return PrintJSON(iostr, g, info)
			}
			fmt.Fprintf(iostr.Out, "tracing session %s into %s\n", info.Session, info.Path)
			return nil
		},
	}
	start.Flags().BoolVar(&shots, "screenshots", false, "a thumbnail after each call that changes something")
	start.Flags().StringVar(&dir, "dir", "", "directory for the trace (default: the session's output directory)")
	traceCmd.AddCommand(start)
	traceCmd.AddCommand(&cobra.Command{
		Use:     "stop",
		Short:   "Stop recording and print the trace file",
		Example: "  $ w365 trace stop",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			info, err := host.TraceStop(cmd.Context(), g.Session)
			if err != nil {
				return err
			}
			if g.JSON || g.JQ != "" {
				return PrintJSON(iostr, g, info)
			}
			fmt.Fprintln(iostr.Out, info.Path)
			return nil
		},
	})
	var out string
	show := &cobra.Command{
		Use:   "show FILE",
		Short: "Write a trace as a self-contained HTML report (timeline with thumbnails)",
		Long: "Write FILE (a trace) as one HTML file that any browser opens offline: a timeline of the calls\n" +
			"with their durations, arguments, results or errors, and the thumbnails inline. Prints its path.",
		Example: "  $ w365 trace show ~/.local/state/w365/sessions/default/trace-default-20260101-120000.000.jsonl",
		Args:    exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				out = strings.TrimSuffix(args[0], filepath.Ext(args[0])) + ".html"
			}
			if err := TraceHTML(args[0], out); err != nil {
				return err
			}
			fmt.Fprintln(iostr.Out, out)
			return nil
		},
	}
	show.Flags().StringVarP(&out, "output", "o", "", "HTML file to write (default: FILE with .html)")
	traceCmd.AddCommand(show)
	root.AddCommand(traceCmd)

	root.AddCommand(&cobra.Command{
		Use:   "watch",
		Short: "Print the calls made on a session live, one line as each starts and ends",
		Long: "Print every call on the session (--session, default \"default\") as it starts and as it ends,\n" +
			"whoever makes it (an agent over MCP, another terminal), until interrupted. --json prints\n" +
			"each event as a JSON line.",
		Example: "  $ w365 watch\n  $ w365 --session s-1a2b watch --json",
		GroupID: "other",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			w := bufio.NewWriter(iostr.Out)
			ready := func() {
				// On stderr, so that scripts know when watching began.
				fmt.Fprintf(iostr.Err, "watching session %s (Ctrl+C stops)\n", g.Session)
			}
			return host.Watch(ctx, g.Session, ready, func(ev host.CallEvent) {
				if g.JSON || g.JQ != "" {
					PrintJSON(IO{Out: w}, g, ev)
				} else {
					fmt.Fprintln(w, EventLine(ev, iostr.OutIsTerminal))
				}
				w.Flush()
			})
		},
	})
}

// exactArgs wants n positional arguments, named in the message.
func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return werr.Invalid("%s wants %s, got %d argument(s)", cmd.CommandPath(), names, len(args)).
				WithHint("%s --help shows an example", cmd.CommandPath())
		}
		return nil
	}
}

// EventLine is one call event as watch prints it:
//
//	12:00:01.234 start #7 browser_navigate url=https://example.com (claude-code, local)
//	12:00:01.780 end   #7 browser_navigate 546ms ok: Example Domain
func EventLine(ev host.CallEvent, terminal bool) string {
	ts := ev.Time.Local().Format("15:04:05.000")
	if ev.Phase == "start" {
		var args []string
		keys := make([]string, 0, len(ev.Args))
		for k := range ev.Args {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v := ev.Args[k]
			s, ok := v.(string)
			if !ok {
				b, _ := json.Marshal(v)
				s = string(b)
			}
			if terminal {
				s = truncate(s, 80)
			}
			args = append(args, k+"="+strings.ReplaceAll(s, "\n", `\n`))
		}
		line := fmt.Sprintf("%s start #%d %s", ts, ev.ID, ev.Tool)
		if len(args) > 0 {
			line += " " + strings.Join(args, " ")
		}
		return line + fmt.Sprintf(" (%s, %s)", ev.Frontend, ev.Principal)
	}
	res := "ok"
	if ev.Error != nil {
		res = string(ev.Error.Code) + ": " + ev.Error.Message
	} else if ev.Summary != "" {
		s := strings.ReplaceAll(ev.Summary, "\n", " ")
		if terminal {
			s = truncate(s, 100)
		}
		res += ": " + s
	}
	return fmt.Sprintf("%s end   #%d %s %dms %s", ts, ev.ID, ev.Tool, ev.DurationMs, res)
}

func printStatus(iostr IO, st *host.Status) {
	b := st.Build
	version := b.Version
	if b.Commit != "" {
		version += " (" + shortCommit(b.Commit) + ")"
	}
	rows := [][2]string{
		{"pid", fmt.Sprint(st.PID)},
		{"version", version},
		{"started", st.Started.Local().Format(time.DateTime)},
		{"uptime", (time.Duration(st.UptimeSec) * time.Second).String()},
		{"background", fmt.Sprint(st.Background)},
		{"policy", policyLine(st.Policy)},
		{"endpoints", strings.Join(st.Endpoints, " ")},
	}
	for _, t := range st.Traces {
		rows = append(rows, [2]string{"trace", t.Session + " → " + t.Path})
	}
	for _, r := range rows {
		if iostr.OutIsTerminal {
			fmt.Fprintf(iostr.Out, "%-11s %s\n", r[0]+":", r[1])
		} else {
			fmt.Fprintf(iostr.Out, "%s\t%s\n", r[0], r[1])
		}
	}
	if iostr.OutIsTerminal {
		fmt.Fprintf(iostr.Out, "sessions:   %d\n", len(st.Sessions))
	}
	type row struct {
		ID       string    `json:"id"`
		Display  string    `json:"display"`
		Virtual  bool      `json:"virtual"`
		Started  time.Time `json:"started"`
		LastUsed time.Time `json:"lastUsed"`
		Queued   int       `json:"queued"`
	}
	var list struct {
		Sessions []row `json:"sessions"`
	}
	for _, s := range st.Sessions {
		list.Sessions = append(list.Sessions, row{s.ID, s.Display, s.Virtual, s.Started, s.LastUsed, s.Busy})
	}
	if len(list.Sessions) > 0 {
		Human(iostr.Out, &list, iostr.OutIsTerminal)
	}
}

func policyLine(p host.PolicySummary) string {
	src := "built-in defaults"
	if p.File != "" {
		src = p.File
	}
	return fmt.Sprintf("%s (failsafe %v, sandbox network %v, idle sessions end after %s)", src, p.Failsafe, p.AllowNetwork, time.Duration(p.IdleTimeoutSec)*time.Second)
}

func shortCommit(c string) string {
	if len(c) > 12 {
		return c[:12]
	}
	return c
}
