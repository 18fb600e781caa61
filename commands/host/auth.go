package host

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/w365/w365/engine/werr"
)

// HTTPAuth is who may call the HTTP server: API keys, each naming a principal, and
// OAuth 2.1 bearer tokens (JWTs) checked as a resource server checks them.
type HTTPAuth struct {
	Keys  []APIKey     `json:"keys,omitempty"`
	OAuth *OAuthConfig `json:"oauth,omitempty"`
}

// APIKey is one key of the keys file.
type APIKey struct {
	Name string `json:"name"`
	Key  string `json:"key"`
}

// OAuthConfig says which JWTs the server accepts.
type OAuthConfig struct {
	// Issuer is the token's required "iss".
	Issuer string `json:"issuer"`
	// Audience is the token's required "aud" (default: Resource).
	Audience string `json:"audience,omitempty"`
	// JWKS is the issuer's key set: an http(s) URL or a file.
	JWKS string `json:"jwks"`
	// Scope, when set, must be among the token's scopes ("scope" or "scp").
	Scope string `json:"scope,omitempty"`
	// Resource is this server's resource identifier (default: http://ADDR/).
	Resource string `json:"resource,omitempty"`
	// AuthorizationServers are named in the protected resource metadata (default: Issuer).
	AuthorizationServers []string `json:"authorizationServers,omitempty"`
}

// Enabled says whether any authentication is configured.
func (a HTTPAuth) Enabled() bool { return len(a.Keys) > 0 || a.OAuth != nil }

// keyName is the rule for a key's name: a letter or digit, then letters, digits, '.',
// '_', '-', at most 64 in all. (Not a regexp: compiling `{0,63}` at package init cost
// every one-shot command about 0.2 ms.)
func keyName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i, c := range []byte(s) {
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || c != '.' && c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// minKeyLen is the shortest API key accepted: 16 bytes of a random key are 96+ bits.
const minKeyLen = 16

// LoadKeysFile reads a keys file: one "NAME KEY" per line, '#' starts a comment. The
// file must be readable by its owner only, names unique, keys at least 16 bytes.
func LoadKeysFile(path string) ([]APIKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, werr.Wrap(err, werr.InvalidArgument, "cannot read the keys file %s", path)
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().Perm()&0o077 != 0 {
		return nil, werr.New(werr.BlockedByPolicy, "the keys file %s is readable by others (mode %o)", path, st.Mode().Perm()).
			WithHint("chmod 600 %s", path)
	}
	var keys []APIKey
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		// The message never repeats the line: it holds a key.
		switch {
		case len(fields) != 2:
			return nil, werr.Invalid("keys file %s line %d: want NAME KEY", path, n)
		case !keyName(fields[0]):
			return nil, werr.Invalid("keys file %s line %d: a name is letters, digits, '.', '_', '-' (at most 64)", path, n)
		case len(fields[1]) < minKeyLen:
			return nil, werr.Invalid("keys file %s line %d: the key of %s is shorter than %d bytes", path, n, fields[0], minKeyLen)
		case seen[fields[0]]:
			return nil, werr.Invalid("keys file %s line %d: %s is named twice", path, n, fields[0])
		}
		seen[fields[0]] = true
		keys = append(keys, APIKey{Name: fields[0], Key: fields[1]})
	}
	if err := sc.Err(); err != nil {
		return nil, werr.Wrap(err, werr.InvalidArgument, "cannot read the keys file %s", path)
	}
	if len(keys) == 0 {
		return nil, werr.Invalid("the keys file %s has no keys", path)
	}
	return keys, nil
}

// metadataPath is where the RFC 9728 protected resource metadata is served.
const metadataPath = "/.well-known/oauth-protected-resource"

// authenticator verifies the bearer credential of an HTTP request.
type authenticator struct {
	keys  []APIKey
	oauth *OAuthConfig
	jwks  *jwksCache
	// scopes are required of every token; an API key grants them all.
	scopes []string
}

func newAuthenticator(a HTTPAuth, resource string) *authenticator {
	au := &authenticator{keys: a.Keys}
	if o := a.OAuth; o != nil {
		c := *o
		if c.Resource == "" {
			c.Resource = resource
		}
		if c.Audience == "" {
			c.Audience = c.Resource
		}
		if len(c.AuthorizationServers) == 0 {
			c.AuthorizationServers = []string{c.Issuer}
		}
		au.oauth = &c
		au.jwks = &jwksCache{source: c.JWKS}
		if c.Scope != "" {
			au.scopes = []string{c.Scope}
		}
	}
	return au
}

// middleware requires a valid credential: "Authorization: Bearer X" or "x-api-key: X"
// (the raw key, no Bearer prefix). A failure is 401 (403 for a missing scope) with a
// WWW-Authenticate header naming the protected resource metadata.
func (au *authenticator) middleware(next http.Handler) http.Handler {
	opts := &auth.RequireBearerTokenOptions{Scopes: au.scopes, AllowMissingExpiration: true, ClockSkew: 30 * time.Second}
	if au.oauth != nil {
		opts.ResourceMetadataURL = strings.TrimSuffix(au.oauth.Resource, "/") + metadataPath
	}
	bearer := auth.RequireBearerToken(au.verify, opts)(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if k := r.Header.Get("x-api-key"); k != "" && r.Header.Get("Authorization") == "" {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+k)
		}
		r.Header.Del("x-api-key")
		bearer.ServeHTTP(&challengeWriter{ResponseWriter: w}, r)
	})
}

// challengeWriter adds a plain Bearer challenge to a 401 that carries none (keys only).
type challengeWriter struct{ http.ResponseWriter }

func (c *challengeWriter) WriteHeader(code int) {
	if code == http.StatusUnauthorized && c.Header().Get("WWW-Authenticate") == "" {
		c.Header().Set("WWW-Authenticate", `Bearer realm="w365"`)
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *challengeWriter) Flush() {
	if f, ok := c.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (c *challengeWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }

// verify is the auth.TokenVerifier: an API key (compared in constant time against
// every key, by digest so that lengths leak nothing), else a JWT.
func (au *authenticator) verify(ctx context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	got := sha256.Sum256([]byte(token))
	var match *APIKey
	for i := range au.keys {
		want := sha256.Sum256([]byte(au.keys[i].Key))
		if subtle.ConstantTimeCompare(got[:], want[:]) == 1 {
			match = &au.keys[i]
		}
	}
	if match != nil {
		return &auth.TokenInfo{UserID: "key:" + match.Name, Scopes: au.scopes}, nil
	}
	if au.oauth == nil || strings.Count(token, ".") != 2 {
		return nil, fmt.Errorf("%w: unknown API key", auth.ErrInvalidToken)
	}
	return au.verifyJWT(ctx, token)
}

// jwtAlgorithms are the signature algorithms accepted (never "none", never HMAC: the
// server holds only public keys).
var jwtAlgorithms = []jose.SignatureAlgorithm{jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA}

func (au *authenticator) verifyJWT(ctx context.Context, token string) (*auth.TokenInfo, error) {
	invalid := func(why string) error { return fmt.Errorf("%w: %s", auth.ErrInvalidToken, why) }
	tok, err := jwt.ParseSigned(token, jwtAlgorithms)
	if err != nil || len(tok.Headers) != 1 {
		return nil, invalid("not a signed JWT")
	}
	keys, err := au.jwks.get(ctx, tok.Headers[0].KeyID)
	if err != nil {
		return nil, fmt.Errorf("cannot load the issuer's keys: %w", err)
	}
	var claims jwt.Claims
	var extra struct {
		Scope string `json:"scope"`
		Scp   any    `json:"scp"`
	}
	if err := tok.Claims(keys, &claims, &extra); err != nil {
		return nil, invalid("bad signature")
	}
	if claims.Expiry == nil {
		return nil, invalid("no expiry")
	}
	if claims.Subject == "" {
		return nil, invalid("no subject")
	}
	err = claims.ValidateWithLeeway(jwt.Expected{Issuer: au.oauth.Issuer, AnyAudience: jwt.Audience{au.oauth.Audience}, Time: time.Now()}, 30*time.Second)
	switch {
	case errors.Is(err, jwt.ErrExpired):
		return nil, invalid("token expired")
	case errors.Is(err, jwt.ErrInvalidAudience):
		return nil, invalid("token is for another audience")
	case err != nil:
		return nil, invalid("token claims do not match: " + err.Error())
	}
	scopes := strings.Fields(extra.Scope)
	switch s := extra.Scp.(type) {
	case string:
		scopes = append(scopes, strings.Fields(s)...)
	case []any:
		for _, v := range s {
			if str, ok := v.(string); ok {
				scopes = append(scopes, str)
			}
		}
	}
	return &auth.TokenInfo{UserID: "oauth:" + claims.Subject, Scopes: scopes, Expiration: claims.Expiry.Time()}, nil
}

// metadata is the RFC 9728 protected resource metadata of the server.
func (au *authenticator) metadata() *oauthex.ProtectedResourceMetadata {
	m := &oauthex.ProtectedResourceMetadata{
		Resource:               au.oauth.Resource,
		AuthorizationServers:   au.oauth.AuthorizationServers,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "w365",
	}
	if au.oauth.Scope != "" {
		m.ScopesSupported = []string{au.oauth.Scope}
	}
	return m
}

// jwksCache holds the issuer's key set, from a URL (fetched on first use, again when a
// token names an unknown key, at most every 30 s) or a file (read once).
type jwksCache struct {
	source string
	mu     sync.Mutex
	set    *jose.JSONWebKeySet
	last   time.Time
}

func (c *jwksCache) get(ctx context.Context, kid string) (*jose.JSONWebKeySet, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	remote := strings.HasPrefix(c.source, "http://") || strings.HasPrefix(c.source, "https://")
	stale := c.set == nil || (remote && kid != "" && len(c.set.Key(kid)) == 0 && time.Since(c.last) > 30*time.Second)
	if !stale {
		return c.set, nil
	}
	var b []byte
	var err error
	if remote {
		b, err = fetchJWKS(ctx, c.source)
	} else {
		b, err = os.ReadFile(c.source)
	}
	c.last = time.Now()
	if err != nil {
		if c.set != nil {
			return c.set, nil
		}
		return nil, err
	}
	var set jose.JSONWebKeySet
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("the JWKS at %s is not a key set: %w", c.source, err)
	}
	c.set = &set
	return c.set, nil
}

func fetchJWKS(ctx context.Context, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return io.ReadAll(io.LimitReader(resp.Body, 1<<20))
}
