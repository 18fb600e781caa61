package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/engine/session"
)

// Results as resources (docs/mcp.md#results-as-resources): every image a call returns
// (screenshots, zooms, browser screenshots) and every file it writes (saved PDFs) is also
// kept as a resource of the call's session, named in the result by a resource_link with its size, MIME type and sha256,
// and read back whole with resources/read. A result resource lives while its session does
// and at most resultTTL; the store holds at most resultBytes, the oldest going first.
const (
	resultTTL     = 15 * time.Minute
	resultBytes   = 64 << 20
	resultScheme  = "w365"
	resultURIHead = resultScheme + "://session/"
	// MetaSHA256 in a resource_link's _meta is the hex SHA-256 of the resource's bytes.
	MetaSHA256 = "w365/sha256"
)

// resultTemplate is the URI template of result resources.
var resultTemplate = &mcp.ResourceTemplate{
	Name:        "call-result",
	Title:       "Call result",
	Description: "An image or file a call returned or wrote, kept while its session lives (at most 15 minutes)",
	URITemplate: resultURIHead + "{session}/result/{name}",
}

type result struct {
	sess    *session.Session
	data    []byte
	mime    string
	expires time.Time
}

// resultStore keeps the results of calls, by URI.
type resultStore struct {
	mu    sync.Mutex
	seq   uint64
	order []string // oldest first
	byURI map[string]*result
	bytes int
}

// add keeps data as a result of s and returns its resource_link.
func (st *resultStore) add(s *session.Session, data []byte, mime, ext string) *mcp.ResourceLink {
	sum := sha256.Sum256(data)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.byURI == nil {
		st.byURI = map[string]*result{}
	}
	st.seq++
	name := fmt.Sprintf("%d-%s.%s", st.seq, hex.EncodeToString(sum[:4]), ext)
	uri := resultURIHead + url.PathEscape(s.ID) + "/result/" + name
	st.byURI[uri] = &result{sess: s, data: data, mime: mime, expires: time.Now().Add(resultTTL)}
	st.order = append(st.order, uri)
	st.bytes += len(data)
	st.pruneLocked(time.Now())
	size := int64(len(data))
	return &mcp.ResourceLink{URI: uri, Name: name, MIMEType: mime, Size: &size,
		Meta: mcp.Meta{MetaSHA256: hex.EncodeToString(sum[:])}}
}

// pruneLocked drops what expired and, over the byte cap, the oldest.
func (st *resultStore) pruneLocked(now time.Time) {
	for len(st.order) > 0 {
		r := st.byURI[st.order[0]]
		if r != nil && now.Before(r.expires) && st.bytes <= resultBytes {
			return
		}
		if r != nil {
			st.bytes -= len(r.data)
		}
		delete(st.byURI, st.order[0])
		st.order = st.order[1:]
	}
}

// get is the result at uri, if it is still there and its session is the one that made it.
func (st *resultStore) get(uri string, live func(*session.Session) bool) (*result, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.pruneLocked(time.Now())
	r, ok := st.byURI[uri]
	if !ok || !live(r.sess) {
		return nil, false
	}
	return r, true
}

// readResult answers resources/read of a result: only its session's owner (or the local
// user attaching) reads it; to anyone else, as after its session ended, it does not exist.
func (h *Host) readResult(remote bool) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		p := principal{name: session.LocalPrincipal, local: true}
		if remote {
			p = principal{name: anonymousPrincipal}
			if req.Extra != nil && req.Extra.TokenInfo != nil && req.Extra.TokenInfo.UserID != "" {
				p = principal{name: req.Extra.TokenInfo.UserID}
			}
		}
		r, ok := h.results.get(uri, func(s *session.Session) bool {
			cur, live := h.sessions.Lookup(s.ID)
			return live && cur == s && (s.Owner == p.name || h.anyOwner(p))
		})
		if !ok || !strings.HasPrefix(uri, resultURIHead) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: r.mime, Blob: r.data}}}, nil
	}
}

// imageExt is the file extension of an image MIME type.
func imageExt(mime string) string {
	_, ext, ok := strings.Cut(mime, "/")
	if !ok || ext == "" {
		return "bin"
	}
	return ext
}
