package host

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// Relay copies MCP bytes between stdio and the host socket until either side ends.
func Relay(ctx context.Context, conn net.Conn, in io.Reader, out io.Writer) error {
	done := make(chan struct{}, 2)
	go func() {
		io.Copy(conn, in)
		if cw, ok := conn.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
		done <- struct{}{}
	}()
	go func() { io.Copy(out, conn); done <- struct{}{} }()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return conn.Close()
}

// HTTPOptions configure the streamable HTTP server.
type HTTPOptions struct {
	Addr  string       `json:"addr"`
	Serve ServeOptions `json:"serve"`
	// Session is the session a call naming none lands on ("default": the caller's own).
	Session string   `json:"session"`
	Auth    HTTPAuth `json:"auth"`
	// PublicURL is how clients reach this server (scheme://host[:port]), for the URLs it
	// hands out (live views); default: the OAuth resource, else the listening address.
	PublicURL string `json:"publicUrl,omitempty"`
	// RouteName is the name a router in front of several hosts knows this one by: the
	// sessions HTTP clients start get ids NAME.s-…, which the router sends here whatever
	// pod the request would otherwise hash to (docs/deployment.md).
	RouteName string `json:"routeName,omitempty"`
}

// MaxRouteNameLen keeps NAME.s-<32 hex> within a session name's length.
const MaxRouteNameLen = session.MaxNameLen - len(".s-") - 32

// ValidateRouteName checks a route name: a session name's characters, short enough to
// prefix a session id.
func ValidateRouteName(name string) error {
	if err := session.ValidateName(name); err != nil || len(name) > MaxRouteNameLen || strings.Contains(name, ".") {
		return werr.Invalid("route name %q: use letters, digits, '_' and '-', at most %d characters", name, MaxRouteNameLen)
	}
	return nil
}

// routedID is a fresh session id that names this host to a router, "" without a route name.
func (h *Host) routedID() string {
	if n := h.routeName.Load(); n != nil {
		return *n + "." + session.NewID()
	}
	return ""
}

// ListenAndServeHTTP serves MCP over streamable HTTP until ctx ends. Without
// authentication it refuses a non-loopback address.
func (h *Host) ListenAndServeHTTP(ctx context.Context, o HTTPOptions) error {
	hs, err := h.listenHTTP(o)
	if err != nil {
		return err
	}
	return hs.serve(ctx)
}

// httpServer is a bound HTTP server of the host.
type httpServer struct {
	h    *Host
	srv  *http.Server
	ln   net.Listener
	base *string
}

// listenHTTP binds o.Addr and builds the server: the MCP endpoint at "/" behind the
// origin check and authentication, the protected resource metadata, and the live view.
func (h *Host) listenHTTP(o HTTPOptions) (*httpServer, error) {
	host, _, err := net.SplitHostPort(o.Addr)
	if err != nil {
		return nil, werr.Invalid("--http wants host:port, got %q", o.Addr)
	}
	loopback := host == "localhost" || net.ParseIP(host) != nil && net.ParseIP(host).IsLoopback()
	if !loopback && !o.Auth.Enabled() {
		return nil, werr.New(werr.BlockedByPolicy, "refusing to serve on non-loopback %s without API keys or OAuth", o.Addr)
	}
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, werr.Wrap(err, werr.Unavailable, "cannot serve HTTP on %s: %v", o.Addr, err)
	}
	base := "http://" + ln.Addr().String()
	public := o.PublicURL
	if public == "" && o.Auth.OAuth != nil {
		public = o.Auth.OAuth.Resource
	}
	if public != "" {
		if u, err := url.Parse(public); err == nil && u.Host != "" {
			base = u.Scheme + "://" + u.Host
		}
	}
	if o.RouteName != "" {
		if err := ValidateRouteName(o.RouteName); err != nil {
			ln.Close()
			return nil, err
		}
		h.routeName.Store(&o.RouteName)
	}
	// The first server's address is the one live views name.
	h.httpBase.CompareAndSwap(nil, &base)
	session := o.Session
	if session == "" {
		session = "default"
	}
	mh := eraHandler(func(*http.Request) *mcp.Server { return h.mcpServer(o.Serve, true) })
	var api http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The ordering stamps are the socket's; an HTTP client must not forge them.
		r.Header.Del(hdrSeq)
		r.Header.Del(hdrConn)
		if r.Header.Get(hdrSession) == "" {
			r.Header.Set(hdrSession, session)
		}
		mh.ServeHTTP(w, r)
	})
	mux := http.NewServeMux()
	if o.Auth.Enabled() {
		au := newAuthenticator(o.Auth, base+"/")
		api = au.middleware(api)
		if au.oauth != nil {
			mux.Handle(metadataPath, auth.ProtectedResourceMetadataHandler(au.metadata()))
		}
	}
	mux.Handle(liveViewPrefix, liveAppCORS(h.liveViewHandler()))
	// Health probes (the container's, the chart's) ask without credentials.
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	own := serverOrigins(ln.Addr().String(), base)
	h.httpOriginsMu.Lock()
	if h.httpOrigins == nil {
		h.httpOrigins = map[string]bool{}
	}
	maps.Copy(h.httpOrigins, own)
	h.httpOriginsMu.Unlock()
	listed := map[string]bool{}
	for _, o := range h.policy.HTTPAllowedOrigins {
		listed[strings.TrimSuffix(strings.ToLower(o), "/")] = true
	}
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !hostAllowed(r) {
			http.Error(w, "the Host names an IPv4 address as IPv6", http.StatusForbidden)
			return
		}
		if !originAllowed(r, own, listed) {
			http.Error(w, "cross-origin request refused", http.StatusForbidden)
			return
		}
		api.ServeHTTP(w, r)
	}))
	h.log.Info("serving MCP over HTTP", "addr", ln.Addr().String(), "keys", len(o.Auth.Keys), "oauth", o.Auth.OAuth != nil)
	// Every document the listener answers with runs sandboxed, in an opaque origin, but the
	// live view's page for its token (livePage sets its own policy): a script in one, a
	// page's or an agent's in a session browser that opened it (one started before this
	// listener has no blocklist entry for it), calls the endpoint as origin "null", which
	// is refused (docs/security.md#transports).
	sandboxed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "sandbox")
		mux.ServeHTTP(w, r)
	})
	return &httpServer{h: h, srv: &http.Server{Handler: sandboxed, ReadHeaderTimeout: 10 * time.Second}, ln: ln, base: &base}, nil
}

// serve answers requests until ctx ends.
func (hs *httpServer) serve(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { hs.srv.Close() })
	defer stop()
	defer hs.h.httpBase.CompareAndSwap(hs.base, nil)
	hs.h.endpoints.add(*hs.base)
	defer hs.h.endpoints.remove(*hs.base)
	if err := hs.srv.Serve(hs.ln); err != nil && err != http.ErrServerClosed {
		return werr.Wrap(err, werr.Unavailable, "HTTP server stopped: %v", err)
	}
	return nil
}

// serverOrigins are the server's own origins: its listening address, by IP and, on
// loopback, as localhost, and its public URL (another port on the same host is another
// origin). A session's browser is started refusing them.
func serverOrigins(listen, base string) map[string]bool {
	own := map[string]bool{strings.ToLower(base): true}
	if host, port, err := net.SplitHostPort(listen); err == nil {
		own["http://"+net.JoinHostPort(host, port)] = true
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			own["http://"+net.JoinHostPort("localhost", port)] = true
			own["http://"+net.JoinHostPort("127.0.0.1", port)] = true
			own["http://"+net.JoinHostPort("::1", port)] = true
		}
	}
	return own
}

// originAllowed refuses browsers on other origins (DNS rebinding and CSRF against the
// server): a request with an Origin must come from one the policy lists, or name the
// server's own (own) and not be a browser's. A request without one is not a browser's.
// A browser calls the MCP endpoint only from an origin the policy lists, never from the
// listener's own: no page of its own calls it, and the one that runs script there (the
// live view's, for its token, which a session's own list_sessions gives) would call it
// as one more client. A browser tells its requests by their fetch metadata
// (Sec-Fetch-Site), which it sends to loopback and https origins and neither a page nor
// browser_run_code's routes can set or drop, with an Origin or without one (a navigation,
// which a route can make a POST of); a program may name the server's origin (MCP's
// conformance suite does) (docs/security.md#transports).
func originAllowed(r *http.Request, own, listed map[string]bool) bool {
	browser := r.Header.Get("Sec-Fetch-Site") != ""
	o := r.Header.Get("Origin")
	if o == "" {
		return !browser
	}
	u, err := url.Parse(strings.ToLower(o))
	if err != nil || u.Host == "" {
		return false
	}
	o = u.Scheme + "://" + u.Host
	return listed[o] || own[o] && !browser
}

// hostAllowed refuses a request whose Host names an IPv4 address written as IPv6
// ([::ffff:7f00:1]): it reaches a listener on 127.0.0.1 as the address itself does, but
// Chromium does not count it as loopback, so it sends no fetch metadata there, and a
// navigation browser_run_code routed to it passed for a program's request
// (originAllowed; docs/security.md#transports).
func hostAllowed(r *http.Request) bool {
	h := r.Host
	if hh, _, err := net.SplitHostPort(h); err == nil {
		h = hh
	}
	a, err := netip.ParseAddr(h)
	return err != nil || !a.Is4In6()
}

// eraHandler serves both eras of MCP on one endpoint. A client of 2026-07-28 (no
// initialize, no Mcp-Session-Id; every request names its version in the
// Mcp-Protocol-Version header and its _meta) is answered statelessly; any other request
// (initialize, a request of a 2025 session, its GET stream and DELETE) by the stateful
// handler. The go-sdk serves the new era only from a stateless handler, and only the
// old one from a stateful handler: each request goes to the one of its era. Both share
// one mcp.Server, so tools, errors, progress and sessions are the same for both.
func eraHandler(server func(*http.Request) *mcp.Server) http.Handler {
	events := mcp.NewMemoryEventStore(nil)
	events.SetMaxBytes(eventStoreBytes)
	legacy := mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{EventStore: events})
	modern := mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{
		Stateless: true,
		// A 2026 call lives as long as its POST: a client that drops it cancels the call.
		PropagateRequestCancellation: true,
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if modernRequest(r) {
			if err := fillSessionHeader(r); err != nil {
				http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
				return
			}
			modern.ServeHTTP(w, r)
			return
		}
		if sid := r.Header.Get("Mcp-Session-Id"); sid != "" && r.Method == http.MethodPost {
			// The session's version is the one negotiated at initialize; a request that
			// names an older one (the conformance suite's do) still gets that session's
			// stream features (the priming event).
			if v := negotiatedVersion(server(r), sid); v > r.Header.Get("Mcp-Protocol-Version") {
				r.Header.Set("Mcp-Protocol-Version", v)
			}
		}
		legacy.ServeHTTP(retryingWriter{ResponseWriter: w}, r)
	})
}

// negotiatedVersion is the protocol version the 2025-era session id agreed on, "" if
// no such session is open.
func negotiatedVersion(s *mcp.Server, id string) string {
	for ss := range s.Sessions() {
		if ss.ID() == id {
			if p := ss.InitializeParams(); p != nil {
				return p.ProtocolVersion
			}
		}
	}
	return ""
}

// eventStoreBytes bounds what the 2025 era keeps of its SSE streams for clients that
// resume one (Last-Event-ID); the oldest events go first.
const eventStoreBytes = 16 << 20

// modernEra is the first protocol revision without initialize and protocol sessions.
const modernEra = "2026-07-28"

// modernRequest says whether r belongs to the 2026-07-28 era (or a later one, which the
// stateless handler refuses with the versions it knows).
func modernRequest(r *http.Request) bool {
	return r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "" &&
		r.Header.Get("Mcp-Protocol-Version") >= modernEra
}

// sseRetryMs is the reconnection delay a 2025 client is told on each POST SSE stream, in
// its priming event (SEP-1699: the event that opens the stream has an id and a retry).
const sseRetryMs = "1000"

// retryingWriter adds the retry field to the go-sdk's priming event, which carries only
// the event id (fields of one SSE event may come in any order).
type retryingWriter struct{ http.ResponseWriter }

func (w retryingWriter) Write(b []byte) (int, error) {
	if bytes.HasPrefix(b, []byte("event: prime\n")) && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
		if _, err := io.WriteString(w.ResponseWriter, "retry: "+sseRetryMs+"\n"); err != nil {
			return 0, err
		}
	}
	return w.ResponseWriter.Write(b)
}

// Flush passes on to the connection (SSE events must not wait in a buffer).
func (w retryingWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

// Unwrap lets http.ResponseController reach the connection.
func (w retryingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// fillSessionHeader gives a 2026 tools/call that names its session in the arguments but
// not in SessionHeader the header its argument implies. A client sends the header only
// for tools it has listed (x-mcp-header is in tools/list); one that calls a tool it knows
// by name would otherwise be refused for the missing header. Only a request that carries
// the header can be routed by it; a header that contradicts the argument is still refused.
func fillSessionHeader(r *http.Request) error {
	if r.Header.Get(SessionHeader) != "" || r.Header.Get("Mcp-Method") != "tools/call" {
		return nil
	}
	t := commands.Lookup(r.Header.Get("Mcp-Name"))
	if t == nil {
		return nil
	}
	param := headerParam(t.InputSchema())
	if param == "" {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes+1))
	if err != nil {
		return err
	}
	if len(body) > mcp.DefaultMaxRequestBodyBytes {
		return werr.Invalid("request body exceeds %d bytes", mcp.DefaultMaxRequestBodyBytes)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Params struct {
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return nil // the SDK answers the malformed request
	}
	if v, ok := msg.Params.Arguments[param].(string); ok && v != "" && isHeaderSafe(v) {
		r.Header.Set(SessionHeader, v)
	}
	return nil
}

// isHeaderSafe says whether v travels in a header as it is (session ids do; anything
// else is left to the SDK, which refuses the call for the missing header).
func isHeaderSafe(v string) bool {
	for _, c := range v {
		if c < 0x21 || c > 0x7e {
			return false
		}
	}
	return true
}
