package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/url"
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
	"github.com/w365/w365/engine/tmpdir"
	"github.com/w365/w365/engine/werr"
)

type serveFlags struct {
	mcp, background bool
	http            string
	toolsets        []string
	readOnly        bool
	legacyNames     bool
	actsAsYou       bool
	idle            time.Duration
	screen          string
	logLevel        string
	trace           string
	traceShots      bool
	keysFile        string
	publicURL       string
	routeName       string
	oauth           host.OAuthConfig
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
It relays to the w365 host running for this user, and starts that host in the background
when none runs (as the CLI does, with this command's --policy, --agent-acts-as-you, --trace,
--screen, --log-level and --idle-timeout), so the agent and CLI calls from other terminals
(w365 --session default ...) drive the same session, and each MCP client's serve ending
(its stdin closed, SIGTERM) ends only its own connection and its agent's sessions. That
host logs to host.log in its runtime directory. A running host with other host-wide settings
(--agent-acts-as-you or the policy, a given --trace, --screen, --virtual, --headless or
--cdp-endpoint) is not joined: serve says which differ on stderr and serves its client in
this process, as it does when no host can be started.

--http ADDR serves streamable HTTP. If a host already runs, it serves HTTP itself for as long
as this command runs, so HTTP agents, the CLI, the REPL and stdio agents share its sessions.
Callers are principals: --keys-file FILE holds "NAME KEY" lines (mode 600), each key sent as
"Authorization: Bearer KEY" or "x-api-key: KEY" and naming its principal; W365_API_KEY (or
W365_API_KEY_FILE, a file whose first line is the key) adds one key named "env".
--oauth-issuer, --oauth-jwks (URL or file), --oauth-audience and --oauth-scope accept OAuth 2.1
bearer JWTs, with RFC 9728 metadata at /.well-known/oauth-protected-resource. Authentication is
mandatory on a non-loopback address. Each principal has its own sessions and its own default
session. Requests whose Origin is not a loopback origin are refused. GET /healthz answers "ok"
without credentials, for health probes.

Without --mcp or --http, serve runs the host in the foreground on its socket only.`,
		Example: `  $ w365 serve --mcp
  $ w365 serve --mcp --toolsets desktop,screen --read-only
  $ W365_API_KEY=secret w365 serve --http 127.0.0.1:8365
  $ w365 serve --http 0.0.0.0:8365 --keys-file ~/.config/w365/keys
  $ w365 serve --http 127.0.0.1:8365 --oauth-issuer https://login.example.com/ --oauth-jwks https://login.example.com/jwks.json --oauth-scope w365.tools`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd, g, f) },
	}
	fs := cmd.Flags()
	fs.BoolVar(&f.mcp, "mcp", false, "serve MCP over stdio")
	fs.StringVar(&f.http, "http", "", "serve MCP over streamable HTTP on ADDR (host:port)")
	fs.StringSliceVar(&f.toolsets, "toolsets", nil, "expose only these toolsets ("+strings.Join(commands.ToolsetNames(), ",")+", or all; default: "+strings.Join(commands.DefaultToolsetNames(), ",")+")")
	fs.BoolVar(&f.readOnly, "read-only", false, "expose only read-only tools")
	fs.BoolVar(&f.legacyNames, "legacy-names", false, "also expose the V1/V2 prefixed tool names (mcp_desktop_click, ...)")
	fs.BoolVar(&f.actsAsYou, "agent-acts-as-you", false, "let an agent that names no session act in the default session (your own desktop; on a host with no DISPLAY or with --virtual, its virtual one) as you (policy agentActsAsYou), not in a confined session of its own")
	fs.DurationVar(&f.idle, "idle-timeout", 30*time.Minute, "a background host exits after this long unused")
	fs.StringVar(&f.screen, "screen", "1920x1080x24", "size of embedded virtual desktops (WxHxDEPTH)")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error (logs go to stderr)")
	fs.StringVar(&f.trace, "trace", "", "record every call of every session into DIR (see w365 trace)")
	fs.BoolVar(&f.traceShots, "trace-screenshots", false, "with --trace: a thumbnail after each call that changes something")
	fs.StringVar(&f.publicURL, "public-url", envOr("W365_PUBLIC_URL", ""), "how clients reach --http (scheme://host:port), for live-view URLs (env W365_PUBLIC_URL)")
	fs.StringVar(&f.routeName, "route-name", envOr("W365_ROUTE_NAME", ""), "the name a router in front of several hosts knows this one by; HTTP sessions get ids NAME.s-... (env W365_ROUTE_NAME)")
	fs.StringVar(&f.keysFile, "keys-file", envOr("W365_KEYS_FILE", ""), "API keys for --http: lines of NAME KEY (env W365_KEYS_FILE)")
	fs.StringVar(&f.oauth.Issuer, "oauth-issuer", "", "accept OAuth bearer JWTs from this issuer (needs --oauth-jwks)")
	fs.StringVar(&f.oauth.JWKS, "oauth-jwks", "", "the issuer's JSON Web Key Set: an http(s) URL or a file")
	fs.StringVar(&f.oauth.Audience, "oauth-audience", "", "the audience tokens must name (default: --oauth-resource)")
	fs.StringVar(&f.oauth.Scope, "oauth-scope", "", "a scope tokens must carry")
	fs.StringVar(&f.oauth.Resource, "oauth-resource", "", "this server's resource URL in its metadata (default: http://ADDR/)")
	fs.StringSliceVar(&f.oauth.AuthorizationServers, "oauth-authorization-server", nil, "authorization servers named in the metadata (default: the issuer)")
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
	if err := host.CheckApprovals(pol); err != nil {
		return err
	}
	if f.actsAsYou {
		pol.AgentActsAsYou = true
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

	var httpOpts host.HTTPOptions
	if f.http != "" {
		if httpOpts, err = httpOptions(f, so, g.Session); err != nil {
			return err
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
	// An agent and the CLI must share one engine: join a running host if any, or start one
	// in the background for an MCP client (joinHost).
	want := host.Settings{AgentActsAsYou: pol.AgentActsAsYou, Screen: host.ScreenString(screen.Width, screen.Height, screen.Depth),
		Virtual: g.Virtual, Headless: g.Headless, CDPEndpoint: g.CDPEndpoint, LogLevel: level.String(), IdleExit: f.idle}
	if traceOpts != nil {
		want.Trace, want.TraceScreenshots = traceOpts.Dir, traceOpts.Screenshots
	}
	if joined, err := joinHost(ctx, cmd, g, f, so, httpOpts, want, log); joined {
		return err
	}
	idle := time.Duration(0)
	if f.background {
		idle = f.idle
	}
	h := host.New(host.Options{
		Policy:     pol,
		Sessions:   session.Options{Virtual: g.Virtual, Display: session.UserDisplay(), Screen: screen},
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
	if gone := tmpdir.Sweep(tmpdir.Bases()...); len(gone) > 0 {
		log.Info("removed the temporary directories of hosts that are gone", "count", len(gone))
	}
	if ended := session.SweepStates(""); len(ended) > 0 {
		log.Info("ended the state directories of sessions whose host is gone (their saved files stay)", "dirs", ended)
	}
	errc := make(chan error, 2)
	if f.http != "" {
		go func() { errc <- h.ListenAndServeHTTP(ctx, httpOpts) }()
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

// httpOptions gathers --http's principals: the keys file, W365_API_KEY, and OAuth.
func httpOptions(f *serveFlags, so host.ServeOptions, sessionName string) (host.HTTPOptions, error) {
	o := host.HTTPOptions{Addr: f.http, Serve: so, Session: sessionName, PublicURL: f.publicURL, RouteName: f.routeName}
	if f.routeName != "" {
		if err := host.ValidateRouteName(f.routeName); err != nil {
			return o, err
		}
	}
	if f.publicURL != "" {
		if u, err := url.Parse(f.publicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return o, werr.Invalid("--public-url %q: want http(s)://host[:port]", f.publicURL)
		}
	}
	if f.keysFile != "" {
		keys, err := host.LoadKeysFile(f.keysFile)
		if err != nil {
			return o, err
		}
		o.Auth.Keys = keys
	}
	k, err := apiKey()
	if err != nil {
		return o, err
	}
	if k != "" {
		o.Auth.Keys = append(o.Auth.Keys, host.APIKey{Name: "env", Key: k})
	}
	if f.oauth.Issuer != "" || f.oauth.JWKS != "" {
		if f.oauth.Issuer == "" || f.oauth.JWKS == "" {
			return o, werr.Invalid("OAuth needs both --oauth-issuer and --oauth-jwks")
		}
		oc := f.oauth
		if !strings.Contains(oc.JWKS, "://") {
			// The host that serves may run in another directory: name the file absolutely.
			abs, err := filepath.Abs(oc.JWKS)
			if err != nil {
				return o, werr.Invalid("--oauth-jwks: %v", err)
			}
			oc.JWKS = abs
		}
		o.Auth.OAuth = &oc
	}
	return o, nil
}

// joinHost hands serve's work to a host in its own process: HTTP is served by the host
// itself for as long as this process runs, stdio is relayed to it. For stdio, when no host
// runs, it starts the background host the CLI starts (serve --background, detached), given
// this serve's host-wide settings: each MCP client's serve is then only a relay, and the
// first one's leaving ends only its own connection. joined is false when this process must
// serve its clients itself: no host runs for --http alone, none could be started, or the
// running one has another policy or other settings than this serve asks for (mismatch).
func joinHost(ctx context.Context, cmd *cobra.Command, g *Globals, f *serveFlags, so host.ServeOptions, ho host.HTTPOptions, want host.Settings, log *slog.Logger) (joined bool, err error) {
	if f.background || (!f.mcp && f.http == "") {
		return false, nil
	}
	co := ClientOptionsFor(g)
	co.Serve, co.NoStart = so, true
	conn, got, err := host.DialHostSettings(ctx, co)
	if err != nil && f.mcp && werr.CodeOf(err) != werr.BlockedByPolicy {
		co.NoStart = false
		co.HostArgs = append(co.HostArgs, hostArgs(f, want)...)
		if conn, got, err = host.DialHostSettings(ctx, co); err != nil && werr.CodeOf(err) != werr.BlockedByPolicy {
			log.Warn("cannot start a background w365 host; serving this client in this process", "err", err)
			return false, nil
		}
		log.Info("started a background w365 host", "log", hostLog())
	}
	if err != nil {
		if werr.CodeOf(err) == werr.BlockedByPolicy {
			log.Warn("the running w365 host runs another policy; serving these clients with this one", "policy", co.Policy, "err", err)
		}
		return false, nil
	}
	refuse, differ := compareSettings(cmd, want, got)
	if len(refuse) > 0 && f.mcp {
		conn.Close()
		log.Warn("the running w365 host has other settings than this serve asks for; serving these clients in this process with this serve's", "differ", strings.Join(refuse, "; "))
		return false, nil
	}
	if differ = append(refuse, differ...); len(differ) > 0 {
		log.Warn("the running w365 host keeps its own settings, not this serve's", "differ", strings.Join(differ, "; "))
	}
	if !f.mcp {
		conn.Close()
	}
	if f.http != "" {
		withHTTP := co
		withHTTP.NoStart, withHTTP.HTTP = true, &ho
		hc, err := host.DialHost(ctx, withHTTP)
		if err != nil {
			conn.Close()
			return true, err
		}
		defer hc.Close()
		log.Info("the running w365 host serves HTTP", "addr", f.http)
		if !f.mcp {
			gone := make(chan struct{})
			go func() { io.Copy(io.Discard, hc); close(gone) }()
			select {
			case <-ctx.Done():
				return true, nil
			case <-gone:
				return true, werr.New(werr.Unavailable, "the w365 host serving HTTP stopped")
			}
		}
	}
	log.Info("relaying stdio to the running w365 host")
	return true, host.Relay(ctx, conn, os.Stdin, os.Stdout)
}

// hostArgs are serve's flags for the background host it starts: its host-wide settings
// (the policy, --virtual and the browser's come from ClientOptionsFor).
func hostArgs(f *serveFlags, want host.Settings) []string {
	args := []string{"--screen", f.screen, "--log-level", f.logLevel, "--idle-timeout", f.idle.String()}
	if f.actsAsYou {
		args = append(args, "--agent-acts-as-you")
	}
	if want.Trace != "" {
		args = append(args, "--trace", want.Trace)
		if want.TraceScreenshots {
			args = append(args, "--trace-screenshots")
		}
	}
	return args
}

// compareSettings says where a running host's settings (got) are not what this serve asks
// for (want). refuse are those that change what an agent may do or where its calls are
// recorded: --agent-acts-as-you always (an agent must neither gain nor lose it unasked),
// the others when given; differ are those of the host process only (its log, its idle exit).
func compareSettings(cmd *cobra.Command, want, got host.Settings) (refuse, differ []string) {
	given := func(name string) bool { return cmd.Flags().Changed(name) }
	add := func(list *[]string, name string, w, h any) {
		*list = append(*list, fmt.Sprintf("%s: the host's %v, this serve's %v", name, h, w))
	}
	if want.AgentActsAsYou != got.AgentActsAsYou {
		add(&refuse, "agent acts as you (--agent-acts-as-you, policy agentActsAsYou)", want.AgentActsAsYou, got.AgentActsAsYou)
	}
	if (given("trace") || given("trace-screenshots")) && (want.Trace != got.Trace || want.TraceScreenshots != got.TraceScreenshots) {
		add(&refuse, "--trace", traceSetting(want), traceSetting(got))
	}
	if given("screen") && want.Screen != got.Screen {
		add(&refuse, "--screen", want.Screen, got.Screen)
	}
	if want.Virtual && !got.Virtual {
		add(&refuse, "--virtual", want.Virtual, got.Virtual)
	}
	if want.Headless && !got.Headless {
		add(&refuse, "--headless", want.Headless, got.Headless)
	}
	if want.CDPEndpoint != "" && want.CDPEndpoint != got.CDPEndpoint {
		add(&refuse, "--cdp-endpoint", want.CDPEndpoint, got.CDPEndpoint)
	}
	if given("log-level") && want.LogLevel != got.LogLevel {
		add(&differ, "--log-level", want.LogLevel, got.LogLevel)
	}
	if given("idle-timeout") && want.IdleExit != got.IdleExit {
		add(&differ, "--idle-timeout", want.IdleExit, got.IdleExit)
	}
	return refuse, differ
}

func traceSetting(s host.Settings) string {
	switch {
	case s.Trace == "":
		return "none"
	case s.TraceScreenshots:
		return s.Trace + " with screenshots"
	}
	return s.Trace
}

// hostLog is where a background host logs.
func hostLog() string {
	dir, _ := host.RuntimeDir()
	return filepath.Join(dir, "host.log")
}

// apiKey is W365_API_KEY, else the first line of the file W365_API_KEY_FILE names (a
// systemd credential or a container secret, which keeps the key out of the environment).
func apiKey() (string, error) {
	if k := os.Getenv("W365_API_KEY"); k != "" {
		return k, nil
	}
	path := os.Getenv("W365_API_KEY_FILE")
	if path == "" {
		return "", nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", werr.Wrap(err, werr.InvalidArgument, "cannot read W365_API_KEY_FILE: %v", err)
	}
	key, _, _ := strings.Cut(string(b), "\n")
	key = strings.TrimSpace(key)
	if key == "" {
		return "", werr.Invalid("W365_API_KEY_FILE %s holds no key", path)
	}
	return key, nil
}
