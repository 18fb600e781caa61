package cli

import (
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

type serveFlags struct {
	mcp, background bool
	http            string
	toolsets        []string
	readOnly        bool
	legacyNames     bool
	idle            time.Duration
	screen          string
	logLevel        string
	trace           string
	traceShots      bool
}

// AddServe adds `w365 serve`.
func AddServe(root *cobra.Command, g *Globals) {
	f := &serveFlags{}
	cmd := &cobra.Command{
		Use:     "serve",
		GroupID: "other",
		Short:   "Run the MCP server (stdio or streamable HTTP) and the session host",
		Long: `Run w365 as an MCP server.

--mcp serves MCP on stdin/stdout (stdout carries only protocol bytes; logs go to stderr).
If a w365 host already runs for this user, serve --mcp relays to it, so the agent and
CLI calls from other terminals (w365 --session default ...) drive the same session.
Otherwise serve becomes the host itself and also listens on the host socket.

--http ADDR serves streamable HTTP. Set W365_API_KEY (or W365_API_KEY_FILE, a file whose
first line is the key) to require "Authorization: Bearer KEY" (or x-api-key: KEY); a key is
mandatory on a non-loopback address. Requests whose Origin is not the server's own loopback
origin are refused. GET /healthz answers "ok" without a key, for health probes.

Without --mcp or --http, serve runs the host in the foreground on its socket only.`,
		Example: `  $ w365 serve --mcp
  $ w365 serve --mcp --toolsets desktop,screen --read-only
  $ W365_API_KEY=secret w365 serve --http 127.0.0.1:8365`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, g, f) },
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.mcp, "mcp", false, "serve MCP over stdio")
	fs.StringVar(&f.http, "http", "", "serve MCP over streamable HTTP on ADDR (host:port)")
	fs.StringSliceVar(&f.toolsets, "toolsets", nil, "expose only these toolsets ("+strings.Join(commands.ToolsetNames(), ",")+", or all; default: "+strings.Join(commands.DefaultToolsetNames(), ",")+")")
	fs.BoolVar(&f.readOnly, "read-only", false, "expose only read-only tools")
	fs.BoolVar(&f.legacyNames, "legacy-names", false, "also expose the V1/V2 prefixed tool names (mcp_desktop_click, ...)")
	fs.DurationVar(&f.idle, "idle-timeout", 30*time.Minute, "a background host exits after this long unused")
	fs.StringVar(&f.screen, "screen", "1920x1080x24", "size of embedded virtual desktops (WxHxDEPTH)")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error (logs go to stderr)")
	fs.StringVar(&f.trace, "trace", "", "record every call of every session into DIR (see w365 trace)")
	fs.BoolVar(&f.traceShots, "trace-screenshots", false, "with --trace: a thumbnail after each call that changes something")
	fs.BoolVar(&f.background, "background", false, "run as the background host the CLI starts")
	fs.MarkHidden("background")
	cmd.RegisterFlagCompletionFunc("toolsets", cobra.FixedCompletions(append(commands.ToolsetNames(), "all"), cobra.ShellCompDirectiveNoFileComp))
	root.AddCommand(cmd)
}

func parseScreen(s string) (desktop.Options, error) {
	o := desktop.DefaultOptions()
	parts := strings.Split(s, "x")
	if len(parts) < 2 || len(parts) > 3 {
		return o, werr.Invalid("--screen wants WxH or WxHxDEPTH, got %q", s)
	}
	var nums []int
	for _, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n <= 0 {
			return o, werr.Invalid("--screen wants positive numbers, got %q", s)
		}
		nums = append(nums, n)
	}
	o.Width, o.Height = nums[0], nums[1]
	if len(nums) == 3 {
		o.Depth = nums[2]
	}
	return o, nil
}

func runServe(cmd *cobra.Command, g *Globals, f *serveFlags) error {
	so := host.ServeOptions{Toolsets: f.toolsets, ReadOnly: f.readOnly, LegacyNames: f.legacyNames}
	if err := so.Validate(); err != nil {
		return err
	}
	screen, err := parseScreen(f.screen)
	if err != nil {
		return err
	}
	pol, err := policy.Load(g.Policy)
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return werr.Invalid("--log-level: %v", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	if os.Getenv("GOGC") == "" {
		// go-sdk decodes each message several times through a decoder that allocates
		// a 32 KB buffer each time (about 350 KB of garbage per call, all short-lived):
		// collecting less often halves a warm call's cost (BenchmarkWarmCallInProcess).
		debug.SetGCPercent(400)
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	if f.mcp && f.http == "" {
		// An agent and the CLI must share one engine: relay to a running host if any.
		// Given a policy, only a host running that policy will do; otherwise this process
		// serves the client itself under its own policy.
		co := host.ClientOptions{Session: g.Session, Serve: so, NoStart: true}
		if g.Policy != "" {
			co.Policy = pol.Digest()
		}
		conn, err := host.DialHost(ctx, co)
		if err == nil {
			log.Info("relaying stdio to the running w365 host")
			return host.Relay(ctx, conn, os.Stdin, os.Stdout)
		}
		if werr.CodeOf(err) == werr.BlockedByPolicy {
			log.Warn("the running w365 host runs another policy; serving this client with its own", "policy", pol.Digest(), "err", err)
		}
	}
	var traceOpts *host.TraceOptions
	if f.trace != "" {
		dir, err := filepath.Abs(f.trace)
		if err != nil {
			return werr.Invalid("--trace: %v", err)
		}
		traceOpts = &host.TraceOptions{Dir: dir, Screenshots: f.traceShots}
	}
	idle := time.Duration(0)
	if f.background {
		idle = f.idle
	}
	h := host.New(host.Options{
		Policy:     pol,
		Sessions:   session.Options{Virtual: g.Virtual, Display: os.Getenv("DISPLAY"), Screen: screen},
		IdleExit:   idle,
		Background: f.background,
		Log:        log,
		Browser:    tool.BrowserConfig{Headless: g.Headless, CDPEndpoint: g.CDPEndpoint},
		PolicyFile: g.Policy,
		Trace:      traceOpts,
	})
	if g.Browser != "" {
		// The browser engine reads W365_BROWSER; the flag wins over the environment.
		os.Setenv("W365_BROWSER", g.Browser)
	}
	defer h.Stop()
	if err := h.Listen(); err != nil {
		if f.background || (!f.mcp && f.http == "") {
			return err
		}
		log.Warn("not listening on the host socket; CLI calls will not reach this server", "err", err)
	} else {
		go h.Serve(ctx)
	}
	log.Info("w365 host started", "version", host.Version(), "pid", os.Getpid())
	errc := make(chan error, 2)
	if f.http != "" {
		go func() { errc <- h.ListenAndServeHTTP(ctx, so, f.http, g.Session) }()
	}
	if f.mcp {
		go func() { errc <- h.ServeStdio(ctx, so, g.Session) }()
	}
	select {
	case <-ctx.Done():
		return nil
	case <-h.Done():
		return nil
	case err := <-errc:
		return err
	}
}
