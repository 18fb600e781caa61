package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"mime"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/engine/safefs"
	"github.com/w365/w365/engine/session"
)

// Results as resources (docs/mcp.md#results-as-resources): every image a call returns
// (screenshots, zooms, browser screenshots), every file it writes (saved PDFs, downloads)
// and a stopped trace is also
// kept as a resource of the call's session, named in the result by a resource_link with its size, MIME type and sha256,
// and read back whole with resources/read. A result resource lives while its session does
// and at most resultTTL; the store holds at most resultBytes, the oldest going first.
const (
	resultTTL   = 15 * time.Minute
	resultBytes = 64 << 20
	// resultFileMax bounds one file the session wrote (a download, a trace) kept as a
	// result; a larger one gets no resource.
	resultFileMax = 16 << 20
	resultScheme  = "w365"
	resultURIHead = resultScheme + "://session/"
	// MetaSHA256 in a resource_link's _meta is the hex SHA-256 of the resource's bytes.
	MetaSHA256 = "w365/sha256"
)

// resultTemplate is the URI template of result resources.
var resultTemplate = &mcp.ResourceTemplate{
	Name:        "call-result",
	Title:       "Call result",
	Description: "An image or file a call returned or wrote (a download, a trace), kept while its session lives (at most 15 minutes)",
	URITemplate: resultURIHead + "{session}/result/{name}",
}

type result struct {
	sess    *session.Session
	name    string
	sum     [sha256.Size]byte
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

// add keeps data as a result of s and returns its resource_link. The same bytes kept
// for s already (a second browser_downloads, an unchanged screen) keep their URI, and
// their time starts again.
func (st *resultStore) add(s *session.Session, data []byte, mime, ext string) *mcp.ResourceLink {
	sum := sha256.Sum256(data)
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.byURI == nil {
		st.byURI = map[string]*result{}
	}
	now := time.Now()
	for i, uri := range st.order {
		if r := st.byURI[uri]; r != nil && r.sess == s && r.sum == sum && r.mime == mime {
			r.expires = now.Add(resultTTL)
			st.order = append(append(st.order[:i:i], st.order[i+1:]...), uri)
			return r.link(uri)
		}
	}
	st.seq++
	name := fmt.Sprintf("%d-%s.%s", st.seq, hex.EncodeToString(sum[:4]), ext)
	uri := resultURIHead + url.PathEscape(s.ID) + "/result/" + name
	r := &result{sess: s, name: name, sum: sum, data: data, mime: mime, expires: now.Add(resultTTL)}
	st.byURI[uri] = r
	st.order = append(st.order, uri)
	st.bytes += len(data)
	st.pruneLocked(now)
	return r.link(uri)
}

// link is the resource_link of r, kept at uri.
func (r *result) link(uri string) *mcp.ResourceLink {
	size := int64(len(r.data))
	return &mcp.ResourceLink{URI: uri, Name: r.name, MIMEType: r.mime, Size: &size,
		Meta: mcp.Meta{MetaSHA256: hex.EncodeToString(r.sum[:])}}
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
		p := h.principalOf(req.Extra, remote)
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

// addSaved keeps the file at path, which s itself may have written (a download), as a
// result of s. It is read beneath its directory, never through a symbolic link nor from a
// FIFO or device (safefs); what cannot be read so, or is larger than resultFileMax, gets
// no resource (nil).
func (h *Host) addSaved(s *session.Session, path string) *mcp.ResourceLink {
	dir, err := safefs.Open(filepath.Dir(path))
	if err != nil {
		h.log.Info("result not kept", "session", s.ID, "err", err)
		return nil
	}
	defer dir.Close()
	return h.addFrom(s, dir, filepath.Base(path))
}

// addFrom keeps the regular file name beneath dir as a result of s (nil if it cannot).
func (h *Host) addFrom(s *session.Session, dir *safefs.Dir, name string) *mcp.ResourceLink {
	data, err := dir.ReadFile(name, resultFileMax)
	if err != nil {
		h.log.Info("result not kept", "session", s.ID, "err", err)
		return nil
	}
	ext := strings.TrimPrefix(filepath.Ext(name), ".")
	typ, _, _ := strings.Cut(mime.TypeByExtension(filepath.Ext(name)), ";")
	switch {
	case ext == "jsonl":
		typ = "application/jsonl"
	case typ == "":
		typ = "application/octet-stream"
	}
	if ext == "" {
		ext = "bin"
	}
	return h.results.add(s, data, typ, ext)
}

// ResultRef is a result resource's link where a reply other than a tool result names it
// (trace stop).
type ResultRef struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType"`
	Size     int64  `json:"size"`
	SHA256   string `json:"sha256"`
}

func refOf(l *mcp.ResourceLink) *ResultRef {
	if l == nil {
		return nil
	}
	sum, _ := l.Meta[MetaSHA256].(string)
	return &ResultRef{URI: l.URI, MIMEType: l.MIMEType, Size: *l.Size, SHA256: sum}
}

// imageExt is the file extension of an image MIME type.
func imageExt(mime string) string {
	_, ext, ok := strings.Cut(mime, "/")
	if !ok || ext == "" {
		return "bin"
	}
	return ext
}
