// Package repl is w365's interactive shell: a bubbletea TUI whose every line runs
// through a freshly built copy of the CLI's command tree against the session host.
package repl

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/cli"
	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/engine/werr"
)

// Extra adds the commands of the w365 binary that are not tools: serve, doctor and
// version, repl (cli.RootDeps.Extra). The binary and the man pages (docs/man) share it.
func Extra(root *cobra.Command, g *cli.Globals) {
	cli.AddServe(root, g)
	cli.AddDoctor(root, g)
	AddCommand(root, g)
}

// AddCommand adds `w365 repl` to root; g holds the root flags, which become the
// defaults of every line.
func AddCommand(root *cobra.Command, g *cli.Globals) {
	cmd := &cobra.Command{
		Use:     "repl",
		GroupID: "other",
		Short:   "Interactive shell: every tool as a command, with history and tab completion",
		Long: `Open an interactive shell on the session host. Every w365 command works as a line,
without the "w365" in front: get-screen-size, click 100 200, browser snapshot.

Words are split like a shell's (quotes and backslashes work; no variables, globs or
pipes, so what you type is what the tool gets). Each line runs in a fresh command tree
against the same host connection, so it behaves exactly like the one-shot CLI, and a
line that fails prints its error without ending the shell.

Keys: Tab completes commands, subcommands, flags and values; Up/Down walk the
history (kept in $XDG_STATE_HOME/w365/history) and Ctrl+R searches it; PgUp/PgDown
scroll the output; Ctrl+C cancels a running command or clears the line; Ctrl+D on an
empty line, "exit" or "quit" leave. "use SESSION" switches the session of the lines
that follow; "watch" prints other clients' calls on it as they happen. Ref commands
without --snapshot-id use the session's last snapshot, and Tab offers its refs with
their role and name. Leaving the shell, closing its terminal, SIGHUP or SIGTERM leave
the host running. Running w365 with no arguments on a terminal opens this shell.

With standard input not a terminal, repl reads one command per line (blank lines and
lines starting with # are skipped) over one host connection, and stops at the first
line that fails, exiting with that error's status.`,
		Example: `  $ w365 repl
  $ w365 --session s-1a2b3c4d repl
  $ w365 --virtual repl
  $ printf 'move-mouse 10 10\nget-cursor-position\n' | w365 repl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o := Options{
				Globals:  *g,
				RootArgs: changedFlags(cmd.Root().PersistentFlags()),
				In:       cmd.InOrStdin(),
				Out:      cmd.OutOrStdout(),
				Extra: func(root *cobra.Command, g *cli.Globals) {
					cli.AddDoctor(root, g)
				},
			}
			if !isTerminal(o.In) {
				return RunLines(cmd.Context(), o)
			}
			return Run(cmd.Context(), o)
		},
	}
	root.AddCommand(cmd)
}

// Options configure a REPL.
type Options struct {
	// Globals are the REPL's root flags: its session, and how to start a host.
	Globals cli.Globals
	// RootArgs are the root flags given to the REPL itself (--session s1 --json);
	// every line starts from them, as if typed after "w365".
	RootArgs []string
	// In and Out are the terminal.
	In  io.Reader
	Out io.Writer
	// Extra adds non-tool commands to each line's tree (e.g. doctor).
	Extra func(root *cobra.Command, g *cli.Globals)
	// HistoryPath overrides HistoryPath().
	HistoryPath string
	// Caller overrides the host client (tests); nil uses one Client per session.
	Caller func(g *cli.Globals) host.Caller
}

// Run opens the TUI and returns when the user leaves it.
func Run(ctx context.Context, o Options) error {
	if o.Globals.Session == "" {
		o.Globals.Session = "default"
	}
	if o.HistoryPath == "" {
		o.HistoryPath = HistoryPath()
	}
	// The TUI owns the terminal: a stray write to stderr (cobra's completion
	// diagnostics, a library's log line) would tear the screen.
	if null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0); err == nil {
		saved := os.Stderr
		os.Stderr = null
		defer func() { os.Stderr = saved; null.Close() }()
	}
	r := newRunner(o)
	defer r.close()
	r.preview = cli.PreviewProtocol(os.Getenv)
	m := newModel(r, loadHistory(o.HistoryPath))
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go terminalWatch(ctx, o.In, stop)
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if o.In != nil {
		opts = append(opts, tea.WithInput(o.In))
	}
	if o.Out != nil {
		opts = append(opts, tea.WithOutput(o.Out))
	}
	p := tea.NewProgram(m, opts...)
	go r.watchLoop(ctx, func(ev host.CallEvent) { p.Send(watchMsg{ev}) })
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil
	}
	return err
}

// RunLines runs the lines of o.In without a TUI, as a script, printing each output
// to o.Out. It stops at the first failing line and returns its error.
func RunLines(ctx context.Context, o Options) error {
	if o.Globals.Session == "" {
		o.Globals.Session = "default"
	}
	r := newRunner(o)
	r.outIsTerminal = isTerminal(o.Out)
	defer r.close()
	sc := bufio.NewScanner(o.In)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words, err := splitWords(line)
		if err != nil {
			return werr.New(werr.InvalidArgument, "line %d: %v", n, err)
		}
		if words[0] == "w365" {
			words = words[1:]
		}
		if len(words) == 1 && (words[0] == "exit" || words[0] == "quit") {
			return nil
		}
		out, err := r.run(ctx, words)
		io.WriteString(o.Out, out)
		if err != nil {
			var st *cli.ExitStatus
			if errors.As(err, &st) {
				return err
			}
			e := *cli.ForCLI(cli.Normalize(err), "")
			e.Message = fmt.Sprintf("line %d: %s", n, e.Message)
			return &e
		}
	}
	return sc.Err()
}

func isTerminal(f any) bool {
	fd, ok := f.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(fd.Fd())
}

// runner executes lines. It owns the host connections, one per session, which
// outlive the per-line command trees.
type runner struct {
	opts Options
	// outIsTerminal is what commands are told about their output: in the TUI it is
	// the screen (no raw image bytes, indented JSON).
	outIsTerminal bool

	mu      sync.Mutex
	clients map[string]*host.Client
	session string // set by "use"; overrides the REPL's --session

	mem memory
	// preview is the terminal's inline image protocol ("" for none; the TUI only).
	preview string
	// clientID marks this REPL's calls, which watch lines and queue notices skip.
	clientID string
	// progress is the host's latest report on the running line's call (nil: none yet).
	progress atomic.Pointer[host.Progress]
}

func newRunner(o Options) *runner {
	return &runner{opts: o, outIsTerminal: true, clients: map[string]*host.Client{}, clientID: newClientID()}
}

// client returns the shared connection for a session, creating it on first use. The
// host options (--virtual, --policy) are the REPL's own: they only matter when a
// host has to be started.
func (r *runner) client(session string) *host.Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c, ok := r.clients[session]; ok {
		return c
	}
	g := r.opts.Globals
	g.Session = session
	o := cli.ClientOptionsFor(&g)
	o.ClientName, o.ClientID = "w365-repl", r.clientID
	o.OnProgress = func(p host.Progress) { r.progress.Store(&p) }
	c := &host.Client{Opts: o}
	r.clients[session] = c
	return c
}

func (r *runner) caller(g *cli.Globals) host.Caller {
	var c host.Caller
	if r.opts.Caller != nil {
		c = r.opts.Caller(g)
	} else {
		c = r.client(g.Session)
	}
	return remembering{next: c, mem: &r.mem, session: g.Session}
}

// close drops the connections; the host keeps running.
func (r *runner) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range r.clients {
		c.Close()
	}
}

// newRoot builds a fresh tree writing to out, with the REPL's globals as defaults.
func (r *runner) newRoot(out io.Writer) *cobra.Command {
	root, _ := cli.NewRoot(cli.RootDeps{
		IO:       cli.IO{In: strings.NewReader(""), Out: out, Err: out, OutIsTerminal: r.outIsTerminal},
		Caller:   r.caller,
		Extra:    r.opts.Extra,
		Complete: r.complete,
	})
	root.CompletionOptions.DisableDefaultCmd = true
	// Parsed into the tree now, they become the line's defaults; the line's own
	// flags still override them.
	pf := root.PersistentFlags()
	pf.Parse(r.rootArgs())
	pf.Visit(func(f *pflag.Flag) { f.Changed = false })
	return root
}

func (r *runner) rootArgs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	args := slices.Clone(r.opts.RootArgs)
	if r.session != "" {
		args = append(args, "--session="+r.session)
	}
	return args
}

// use makes session the default of the following lines.
func (r *runner) use(session string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.session = session
}

// changedFlags renders the flags the user set as arguments that set them again.
func changedFlags(fs *pflag.FlagSet) []string {
	var args []string
	// VisitAll, not Visit: cobra parses the root's flags through the subcommand's own
	// flag set, so the root's set never records them as set, but the flags do.
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Changed {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+f.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+f.Name+"="+f.Value.String())
	})
	return args
}

// newCompletionRoot is a tree for cobra's __complete; complete sets its output.
func (r *runner) newCompletionRoot() *cobra.Command { return r.newRoot(io.Discard) }

// run executes one line's words and returns what it printed. A panic in a command
// becomes an INTERNAL error: one bad line never ends the REPL.
func (r *runner) run(ctx context.Context, words []string) (out string, err error) {
	var buf bytes.Buffer
	defer func() {
		if p := recover(); p != nil {
			out, err = buf.String(), werr.New(werr.Internal, "command panicked: %v", p)
		}
	}()
	root := r.newRoot(&buf)
	root.SetArgs(r.fillSnapshot(root, words))
	err = root.ExecuteContext(ctx)
	return buf.String(), err
}

// errorLine is how a failed line reads in the scrollback: "error: CODE: message",
// with hints naming the commands one types here; a child's status reads "[exit N]".
func errorLine(err error) string {
	var st *cli.ExitStatus
	if errors.As(err, &st) {
		if st.Note != "" {
			return fmt.Sprintf("[exit %d: %s]", st.Code, st.Note)
		}
		return fmt.Sprintf("[exit %d]", st.Code)
	}
	return "error: " + cli.ForCLI(cli.Normalize(err), "").Error()
}

// detailsMsg carries the session's description for the status line.
type detailsMsg struct {
	session string
	display string
	err     error
}

// fetchDetails asks the host about the session (starting the host if needed).
func (r *runner) fetchDetails(ctx context.Context, session string) detailsMsg {
	t := commands.GetSessionDetails
	if t == nil {
		return detailsMsg{session: session, err: werr.New(werr.Unsupported, "no session details tool")}
	}
	o, err := r.caller(&cli.Globals{Session: session}).Call(ctx, t, map[string]any{"sessionId": session})
	if err != nil {
		return detailsMsg{session: session, err: err}
	}
	if s, ok := o.Out.(*commands.SessionOut); ok {
		return detailsMsg{session: session, display: s.Display}
	}
	return detailsMsg{session: session, err: fmt.Errorf("unexpected details %T", o.Out)}
}

// watchLoop follows the call events of the REPL's current session (for the queue
// notice and the watch command), resubscribing when "use" switches the session and
// retrying while no host runs. It never starts a host.
func (r *runner) watchLoop(ctx context.Context, send func(host.CallEvent)) {
	for ctx.Err() == nil {
		session := r.currentSession()
		wctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() {
			defer close(done)
			// The person at this shell answers the session's approvals (model.go).
			host.WatchAsApprover(wctx, session, nil, send)
		}()
		tick := time.NewTicker(250 * time.Millisecond)
	follow:
		for {
			select {
			case <-ctx.Done():
				break follow
			case <-done:
				// The host went away or is not there yet: try again shortly.
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
				break follow
			case <-tick.C:
				if r.currentSession() != session {
					break follow
				}
			}
		}
		tick.Stop()
		cancel()
		<-done
	}
}
