package cli

import (
	"context"
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
If a w365 host already runs for this user, serve --mcp relays to it, so the agent and
CLI calls from other terminals (w365 --session default ...) drive the same session.
Otherwise serve becomes the host itself and also listens on the host socket.

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
	fs.BoolVar(&f.actsAsYou, "agent-acts-as-you", false, "let an agent that names no session drive your own desktop (policy agentActsAsYou), not a confined virtual session")
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
	// An agent and the CLI must share one engine: join a running host if any. Given a
	// policy, only a host running that policy will do; otherwise this process serves its
	// clients itself under its own policy.
	digest := ""
	if g.Policy != "" {
		digest = pol.Digest()
	}
	if joined, err := joinHost(ctx, g, f, so, httpOpts, digest, log); joined {
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

// joinHost hands serve's work to a running host: HTTP is served by the host itself for as
// long as this process runs, stdio is relayed to it. joined is false when no host runs.
func joinHost(ctx context.Context, g *Globals, f *serveFlags, so host.ServeOptions, ho host.HTTPOptions, digest string, log *slog.Logger) (joined bool, err error) {
	if !f.mcp && f.http == "" {
		return false, nil
	}
	co := host.ClientOptions{Session: g.Session, Serve: so, NoStart: true, Policy: digest}
	probe, err := host.DialHost(ctx, co)
	if err != nil {
		if werr.CodeOf(err) == werr.BlockedByPolicy {
			log.Warn("the running w365 host runs another policy; serving these clients with this one", "policy", digest, "err", err)
		}
		return false, nil
	}
	if f.http != "" {
		probe.Close()
		withHTTP := co
		withHTTP.HTTP = &ho
		conn, err := host.DialHost(ctx, withHTTP)
		if err != nil {
			return true, err
		}
		defer conn.Close()
		log.Info("the running w365 host serves HTTP", "addr", f.http)
		if !f.mcp {
			gone := make(chan struct{})
			go func() { io.Copy(io.Discard, conn); close(gone) }()
			select {
			case <-ctx.Done():
				return true, nil
			case <-gone:
				return true, werr.New(werr.Unavailable, "the w365 host serving HTTP stopped")
			}
		}
		if probe, err = host.DialHost(ctx, co); err != nil {
			return true, err
		}
	}
	log.Info("relaying stdio to the running w365 host")
	return true, host.Relay(ctx, probe, os.Stdin, os.Stdout)
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
