package host

import (
	"context"
	"crypto/subtle"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

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

// ListenAndServeHTTP serves MCP over streamable HTTP on addr until ctx ends. With an API key
// (see apiKey) it requires the key; without one, it refuses a non-loopback address.
// GET /healthz answers without a key, for probes.
func (h *Host) ListenAndServeHTTP(ctx context.Context, so ServeOptions, addr, sessionName string) error {
	log := h.log
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return werr.Invalid("--http wants host:port, got %q", addr)
	}
	key, err := apiKey()
	if err != nil {
		return err
	}
	loopback := host == "localhost" || net.ParseIP(host) != nil && net.ParseIP(host).IsLoopback()
	if !loopback && key == "" {
		return werr.New(werr.BlockedByPolicy, "refusing to serve on non-loopback %s without W365_API_KEY", addr)
	}
	mh := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return h.mcpServer(so) }, nil)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" && r.Method == http.MethodGet {
			io.WriteString(w, "ok\n")
			return
		}
		if !originAllowed(r) {
			http.Error(w, "cross-origin request refused", http.StatusForbidden)
			return
		}
		if key != "" && !keyMatches(r, key) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="w365"`)
			http.Error(w, "missing or wrong API key", http.StatusUnauthorized)
			return
		}
		if r.Header.Get(hdrSession) == "" {
			r.Header.Set(hdrSession, sessionName)
		}
		mh.ServeHTTP(w, r)
	})
	srv := &http.Server{Addr: addr, Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	var once sync.Once
	go func() { <-ctx.Done(); once.Do(func() { srv.Close() }) }()
	log.Info("serving MCP over HTTP", "addr", addr, "auth", key != "")
	h.endpoints.add("http://" + addr)
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		return werr.Wrap(err, werr.Unavailable, "cannot serve HTTP on %s: %v", addr, err)
	}
	return nil
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

func keyMatches(r *http.Request, key string) bool {
	got := r.Header.Get("x-api-key")
	if a := r.Header.Get("Authorization"); strings.HasPrefix(a, "Bearer ") {
		got = strings.TrimPrefix(a, "Bearer ")
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(key)) == 1
}
