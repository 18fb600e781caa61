package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/engine/session"
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
		Short:   "Stop recording: print the trace file, and its calls and errors on stderr",
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
			// The path alone on stdout, for scripts; the counts beside it on stderr.
			fmt.Fprintf(iostr.Err, "trace of session %s: %d calls, %d errors\n", info.Session, info.Records, info.Errors)
			if info.Resource != nil {
				fmt.Fprintf(iostr.Err, "resource: %s\n", info.Resource.URI)
			}
			fmt.Fprintln(iostr.Out, info.Path)
			return nil
		},
	})
	traceCmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "List the trace files of every session, newest first, with their calls and errors",
		Long: "List the trace files in the sessions' output directories ($XDG_STATE_HOME/w365/sessions),\n" +
			"newest first: session, start, calls, errors and path. Traces written with --dir elsewhere\n" +
			"are not listed.",
		Example: "  $ w365 trace list\n  $ w365 trace list --jq '.traces[0].path'",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			list, err := ListTraces("")
			if err != nil {
				return err
			}
			out := struct {
				Traces []TraceFile `json:"traces"`
			}{list}
			if out.Traces == nil {
				out.Traces = []TraceFile{}
			}
			if g.JSON || g.JQ != "" {
				return PrintJSON(iostr, g, out)
			}
			if len(list) == 0 {
				fmt.Fprintln(iostr.Err, "no traces yet; w365 trace start begins one")
				return nil
			}
			Human(iostr.Out, &out, iostr.OutIsTerminal)
			return nil
		},
	})
	var out string
	show := &cobra.Command{
		Use:   "show [FILE]",
		Short: "Write a trace as a self-contained HTML report (timeline with screenshots)",
		Long: "Write FILE (a trace; without it, the newest trace of --session, or of any session when\n" +
			"no --session is given and the default session has none) as one HTML file that any browser opens offline: the calls numbered as\n" +
			"watch numbers them, with their queued and run times, arguments, refs, results or errors\n" +
			"(hint, details, correlation id), the images the calls returned and the screenshots after\n" +
			"them (click one for full size), and an \"errors only\" switch (or open it with #errors).\n" +
			"Prints its path.",
		Example: "  $ w365 trace show\n  $ w365 trace show ~/.local/state/w365/sessions/default/trace-default-20260101-120000.000.jsonl -o report.html",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var in string
			if len(args) == 1 {
				in = args[0]
			} else {
				list, err := ListTraces(g.Session)
				if err == nil && len(list) == 0 && g.Session == session.DefaultName {
					// No session named: the newest trace of any.
					list, err = ListTraces("")
				}
				if err != nil {
					return err
				}
				if len(list) == 0 {
					return werr.New(werr.NotFound, "no trace of session %q to show", g.Session).WithHint("w365 trace start begins one; w365 trace list lists them")
				}
				in = list[0].Path
			}
			if out == "" {
				out = strings.TrimSuffix(in, filepath.Ext(in)) + ".html"
			}
			if err := TraceHTML(in, out); err != nil {
				return err
			}
			fmt.Fprintln(iostr.Out, out)
			return nil
		},
	}
	show.Flags().StringVarP(&out, "output", "o", "", "HTML file to write (default: FILE with .html)")
	traceCmd.AddCommand(show)
	root.AddCommand(traceCmd)

	addApprovalCommands(root, iostr)
	root.AddCommand(&cobra.Command{
		Use:   "watch",
		Short: "Print the calls made on a session live, one line as each starts and ends",
		Long: "Print every call on the session (--session, default \"default\") as it starts and as it ends,\n" +
			"whoever makes it (an agent over MCP, another terminal), until interrupted. --json prints\n" +
			"each event as a JSON line. On a terminal, watch also answers the session's approvals\n" +
			"(docs/security.md#approvals): " + ApprovalKeysHelp + ".",
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
			watch, pending := host.Watch, &Pending{}
			if iostr.InIsTerminal {
				// A person at the terminal answers approvals: the host asks them.
				watch = host.WatchAsApprover
				ready = func() {
					fmt.Fprintf(iostr.Err, "watching session %s (Ctrl+C stops); approvals: %s\n", g.Session, ApprovalKeysHelp)
					go answerLines(ctx, iostr.In, iostr.Err, pending)
				}
			}
			return watch(ctx, g.Session, ready, func(ev host.CallEvent) {
				pending.See(ev)
				if g.JSON || g.JQ != "" {
					PrintJSON(IO{Out: w}, g, ev)
				} else {
					line := EventLine(ev, iostr.OutIsTerminal)
					if Colour(iostr.OutIsTerminal) {
						line = colourEvent(ev, line)
					}
					fmt.Fprintln(w, line)
				}
				w.Flush()
			})
		},
	})
	addPersonCommands(root, g, iostr)
}

// addPersonCommands adds `w365 pause`, `w365 resume` and `w365 handback`: the person's own
// controls of a session (docs/person.md), host controls that no agent reaches through a tool.
// In the REPL they act on the session in use.
func addPersonCommands(root *cobra.Command, g *Globals, iostr IO) {
	for _, c := range []struct {
		use, op, short, long, example, done string
	}{
		{"pause [NOTE...]", "pause", "Pause the agent's calls on the session until resume",
			"Hold the session (--session, default \"default\") for yourself: an agent's call on it waits\n" +
				"after its turn, its progress saying \"paused by local user: NOTE\", and runs after\n" +
				"w365 resume; none is lost or run twice. Act meanwhile in the live view or on the desktop.",
			"  $ w365 --session s-1 pause checking the order form", "paused session %s\n"},
		{"resume", "resume", "Let the agent's calls on a paused session go on",
			"End the pause of the session (--session): the agent's waiting calls run, in order.",
			"  $ w365 --session s-1 resume", "resumed session %s\n"},
		{"handback [NOTE...]", "hand-back", "Hand the session back to the agent that handed it over",
			"End the session's open hand-over (hand_over_to_person): the agent's call answers handedBack\n" +
				"with NOTE, and the hand-over's one-time live view link stops working.",
			"  $ w365 --session s-1 handback \"logged in; the second factor is done\"", "handed session %s back\n"},
	} {
		c := c
		root.AddCommand(&cobra.Command{
			Use: c.use, Short: c.short, Long: c.long, Example: c.example, GroupID: "other",
			Args: func(cmd *cobra.Command, args []string) error {
				if c.op == "resume" {
					return cobra.NoArgs(cmd, args)
				}
				return nil
			},
			RunE: func(cmd *cobra.Command, args []string) error {
				if err := host.PersonControl(cmd.Context(), c.op, g.Session, strings.Join(args, " ")); err != nil {
					return err
				}
				if g.JSON || g.JQ != "" {
					return PrintJSON(iostr, g, map[string]any{"session": g.Session, "op": c.op, "ok": true})
				}
				fmt.Fprintf(iostr.Out, c.done, g.Session)
				return nil
			},
		})
	}
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

// EventLine is one call event as watch prints it (and the trace's rows read the
// same: numbered calls, refs with their role and name, queued time apart):
//
//	12:00:01.234 start #7 browser_click_ref ref=e4 button "Submit" (claude-code, local)
//	12:00:05.780 end   #7 browser_click_ref 546ms queued 4.0s ok: clicked e4
//	12:00:06.010 end   #8 execute_shell_command 80ms exit 2: ls: cannot access 'x'
//	12:00:07.100 end   #9 browser_navigate 31ms NOT_FOUND: no tab (hint: …) [cid 3fa2b1c0d4e5]
func EventLine(ev host.CallEvent, terminal bool) string {
	ts := ev.Time.Local().Format("15:04:05.000")
	if ev.Phase == "person" {
		// 12:00:02.000 person paused by local user: checking the form
		line := fmt.Sprintf("%s person %s", ts, strings.ReplaceAll(ev.Person, "-", " "))
		if ev.By != "" {
			line += " by " + ev.By
		}
		if ev.Summary != "" {
			line += ": " + visible(strings.ReplaceAll(ev.Summary, "\n", " "))
		}
		if ev.Person == "handover-opened" {
			line += " (act, then: handback [NOTE])"
		}
		return line
	}
	if ev.Phase == "approval" && ev.Approval != nil {
		return approvalLine(ev, ts, terminal)
	}
	if ev.Phase == "start" {
		line := fmt.Sprintf("%s start #%d %s", ts, ev.ID, ev.Tool)
		args := ev.Args
		for _, k := range []string{"sessionId", "browserSessionId"} {
			if args[k] == ev.Session {
				// Watch is of one session: naming it on every line is noise.
				args = maps.Clone(args)
				delete(args, k)
			}
		}
		if a := argText(args, ev.Refs, terminal); a != "" {
			line += " " + a
		}
		return line + fmt.Sprintf(" (%s, %s)", ev.Frontend, ev.Principal)
	}
	line := fmt.Sprintf("%s end   #%d %s %dms", ts, ev.ID, ev.Tool, ev.DurationMs)
	if ev.QueuedMs >= queuedShownMs {
		line += " queued " + (time.Duration(ev.QueuedMs) * time.Millisecond).String()
	}
	if a := argText(ev.Shown, nil, terminal); a != "" {
		line += " " + a
	}
	if ev.Error != nil {
		return line + " " + ErrorSummary(ev.Error, ev.CorrelationID, terminal)
	}
	res := "ok"
	switch {
	case ev.TimedOut:
		res = "timed out"
	case ev.ExitCode != nil && *ev.ExitCode != 0:
		res = fmt.Sprintf("exit %d", *ev.ExitCode)
	}
	if ev.Summary != "" {
		s := visible(strings.ReplaceAll(ev.Summary, "\n", " "))
		if terminal {
			s = truncate(s, 100)
		}
		res += ": " + s
	}
	return line + " " + res
}

// queuedShownMs is the shortest wait for the session that watch and the trace report
// show: below it a call only passed through the queue.
const queuedShownMs = 10

// ErrorSummary is an error on one line: code, message, hint, details and the
// correlation id that finds it in host.log.
func ErrorSummary(e *werr.Error, cid string, terminal bool) string {
	s := string(e.Code) + ": " + e.Message
	if e.Hint != "" {
		s += " (hint: " + e.Hint + ")"
	}
	if len(e.Details) > 0 {
		b, _ := json.Marshal(e.Details)
		d := string(b)
		if terminal {
			d = truncate(d, 120)
		}
		s += " details=" + d
	}
	if cid != "" {
		s += " [cid " + cid + "]"
	}
	return visible(strings.ReplaceAll(s, "\n", " "))
}

// visible shows each control character of s (ESC, carriage return, backspace, a C1 code)
// and each bidirectional override as its escape (\x1b, \r, \u202e): what an agent or a
// page sends (an argument, an error, a file name) never moves the cursor, rewrites a line
// already shown, sets the terminal's title or clipboard, or reorders what a person reads
// before answering an approval.
func visible(s string) string { return escapeHidden(s, false) }

// terminalText is visible for text of several lines (a program's output, a result shown
// on a terminal): line feeds, tabs and a carriage return before a line feed stay as they
// are; every other control character and bidirectional override is shown as its escape,
// so a sandboxed program or a page cannot rewrite what the person sees.
func terminalText(s string) string { return escapeHidden(s, true) }

// escapeHidden is visible, keeping line ends and tabs when lines is set.
func escapeHidden(s string, lines bool) string {
	if utf8.ValidString(s) && !strings.ContainsFunc(s, func(r rune) bool { return hidden(r) && !(lines && layout(r)) }) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		keep := lines && (r == '\n' || r == '\t' || r == '\r' && strings.HasPrefix(s[i+1:], "\n"))
		if keep || !hidden(r) {
			b.WriteRune(r) // a byte that is no UTF-8 becomes U+FFFD
			continue
		}
		q := strconv.QuoteRune(r)
		b.WriteString(q[1 : len(q)-1])
	}
	return b.String()
}

// layout says whether r is a line feed, a tab or a carriage return: kept in several lines
// of text, a lone carriage return only when it ends a line.
func layout(r rune) bool { return r == '\n' || r == '\t' || r == '\r' }

// hidden says whether r would act on a terminal, or on the order of the text, instead of
// being shown.
func hidden(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)
}

// argText renders arguments as key=value, sorted; a ref is followed by what it names.
func argText(args map[string]any, refs map[string]string, terminal bool) string {
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []string
	named := map[string]bool{}
	for _, k := range keys {
		v := args[k]
		s, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			s = string(b)
		} else if d := refs[s]; d != "" {
			s += " " + d
			named[args[k].(string)] = true
		}
		if terminal {
			s = truncate(s, 80)
		}
		out = append(out, k+"="+visible(s))
	}
	// Refs inside lists (fill_form's fields, execute_batch's actions) are named after.
	var more []string
	for r, d := range refs {
		if !named[r] {
			more = append(more, r+" "+d)
		}
	}
	sort.Strings(more)
	if len(more) > 0 {
		out = append(out, "refs: "+strings.Join(more, ", "))
	}
	return strings.Join(out, " ")
}

// Terminal colours (SGR), used only on a terminal and never with NO_COLOR set.
const (
	sgrRed   = "31"
	sgrFaint = "2"
	sgrBold  = "1"
)

// Colour says whether output to a terminal may be coloured (https://no-color.org).
func Colour(terminal bool) bool {
	_, no := os.LookupEnv("NO_COLOR")
	return terminal && !no && os.Getenv("TERM") != "dumb"
}

func paint(on bool, sgr, s string) string {
	if !on {
		return s
	}
	return "\x1b[" + sgr + "m" + s + "\x1b[0m"
}

// colourEvent paints an event line: errors red, non-zero exits red, starts faint, an
// approval that waits for the person bold.
func colourEvent(ev host.CallEvent, line string) string {
	switch {
	case ev.Approval != nil && ev.Approval.Decision == host.ApprovalAsked:
		return paint(true, sgrBold, line)
	case ev.Phase == "start":
		return paint(true, sgrFaint, line)
	case ev.Error != nil || ev.TimedOut || ev.ExitCode != nil && *ev.ExitCode != 0:
		return paint(true, sgrRed, line)
	}
	return line
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
	width := termWidth(iostr.Out)
	for _, r := range rows {
		if iostr.OutIsTerminal {
			// Long values (the policy, the endpoints) wrap under themselves.
			lines := []string{r[1]}
			if width > 12+minWrap {
				lines = wrap(r[1], width-12)
			}
			fmt.Fprintf(iostr.Out, "%-11s %s\n", r[0]+":", lines[0])
			for _, l := range lines[1:] {
				fmt.Fprintf(iostr.Out, "%-11s %s\n", "", l)
			}
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
