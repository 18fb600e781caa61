package host

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	// The first server's address is the one live views name.
	h.httpBase.CompareAndSwap(nil, &base)
	session := o.Session
	if session == "" {
		session = "default"
	}
	mh := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return h.mcpServer(o.Serve, true) }, nil)
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
	mux.Handle(liveViewPrefix, h.liveViewHandler())
	// Health probes (the container's, the chart's) ask without credentials.
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !originAllowed(r) {
			http.Error(w, "cross-origin request refused", http.StatusForbidden)
			return
		}
		api.ServeHTTP(w, r)
	}))
	h.log.Info("serving MCP over HTTP", "addr", ln.Addr().String(), "keys", len(o.Auth.Keys), "oauth", o.Auth.OAuth != nil)
	return &httpServer{h: h, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, ln: ln, base: &base}, nil
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

// originAllowed refuses browsers on other sites (DNS rebinding and CSRF against the
// local server): a request with an Origin must come from a loopback origin.
func originAllowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return h == "localhost" || (net.ParseIP(h) != nil && net.ParseIP(h).IsLoopback())
}
