package browser

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"golang.org/x/net/netutil"
)

// The DevTools pipe has one client, chromedp. browser_run_code's Playwright
// needs a second one: cdpMux shares the pipe. Each proxy client gets a session of
// its own on the browser target (Target.attachToBrowserTarget), its message ids
// are moved into a range chromedp never uses, and it reaches only its own
// sessions. What it may send is an allowlist, checked on a strict decoding and
// forwarded re-encoded (cdpcheck.go); what comes back has cookie values taken
// out (scrubCookies). The proxy listens on a Unix socket in the host's private
// directory, reachable only from the run_code sandbox.

// proxyIDBase is where proxy message ids start; chromedp counts from 1, and
// Chromium takes only ids that fit in 32 bits.
const proxyIDBase = int64(1) << 30

// cdpMux owns both ends of the browser's pipe.
type cdpMux struct {
	from io.ReadCloser // the browser writes here
	to   io.WriteCloser

	wmu sync.Mutex // one frame per Write on to

	cdpR *io.PipeReader // what chromedp reads
	cdpW *io.PipeWriter

	mu      sync.Mutex
	clients map[*proxyClient]bool
	nextID  atomic.Int64

	shots sync.Map // int64 id -> true: screenshot calls waiting for their answer (maxShotFrame)
}

func newCDPMux(from io.ReadCloser, to io.WriteCloser) *cdpMux {
	r, w := io.Pipe()
	m := &cdpMux{from: from, to: to, cdpR: r, cdpW: w, clients: map[*proxyClient]bool{}}
	m.nextID.Store(proxyIDBase)
	go m.demux()
	return m
}

// chromedpConn is the pipe as chromedp sees it.
func (m *cdpMux) chromedpConn() (io.ReadCloser, io.WriteCloser) { return m.cdpR, muxWriter{m} }

type muxWriter struct{ m *cdpMux }

func (w muxWriter) Write(p []byte) (int, error) { return w.m.write(p) }
func (w muxWriter) Close() error {
	w.m.cdpR.Close()
	return errors.Join(w.m.to.Close(), w.m.from.Close())
}

// write sends one zero-terminated frame to the browser, chromedp's or a proxy client's
// checked one, and remembers the id of a screenshot call (maxShotFrame).
func (m *cdpMux) write(frame []byte) (int, error) {
	if bytes.Contains(frame, []byte(`"Page.captureScreenshot"`)) {
		var c struct {
			ID     int64  `json:"id"`
			Method string `json:"method"`
		}
		if json.Unmarshal(bytes.TrimSuffix(frame, []byte{0}), &c) == nil && c.Method == "Page.captureScreenshot" {
			m.shots.Store(c.ID, true)
		}
	}
	m.wmu.Lock()
	defer m.wmu.Unlock()
	return m.to.Write(frame)
}

// peek is what routing needs of a message.
type peek struct {
	ID        int64           `json:"id"`
	SessionID string          `json:"sessionId"`
	Method    string          `json:"method"`
	Params    json.RawMessage `json:"params"`
	Result    json.RawMessage `json:"result"`
}

// demux reads the browser's frames and hands each to chromedp or to the proxy
// client it belongs to.
func (m *cdpMux) demux() {
	br := bufio.NewReaderSize(m.from, 1<<16)
	for {
		frame, err := readFrame(br, func(id int64) bool { _, ok := m.shots.Load(id); return ok })
		if err != nil {
			m.cdpW.CloseWithError(err)
			m.mu.Lock()
			for c := range m.clients {
				c.close()
			}
			m.mu.Unlock()
			return
		}
		if frame == nil {
			continue // an event too long to take
		}
		body := bytes.TrimSuffix(frame, []byte{0})
		var p peek
		err = json.Unmarshal(body, &p)
		if err == nil && p.ID != 0 && p.Method == "" {
			m.shots.Delete(p.ID)
		}
		if err == nil && m.route(p, body) {
			continue
		}
		if _, err := m.cdpW.Write(frame); err != nil {
			return
		}
	}
}

// maxFrame bounds one DevTools message the host takes from the browser. A page makes the
// browser's messages as large as it likes (a string it returns or logs), and the host reads
// them in its own process, outside every limit of the session: one console.log of a string
// of 100 million control characters grew the host by 4.5 GiB (docs/security.md, "What the
// host reads from a session"). The largest answer the host asks for otherwise is a PDF, which
// comes in chunks (PDFSave); a screenshot cannot, and a full page of 1920x16384 pixels of
// photographs is a PNG of 24 MiB, 32 MiB in base64: the answer to a Page.captureScreenshot
// call may be maxShotFrame long.
const (
	maxFrame     = 16 << 20
	maxShotFrame = 32 << 20
)

// frameTooLong is the error answer in place of a frame longer than the host takes.
var frameTooLong = fmt.Sprintf("the browser's answer is longer than the host takes (%d MiB, %d MiB for a screenshot)", maxFrame>>20, maxShotFrame>>20)

// frameEnds is how much of each end of a frame too long is kept: enough for its id, which
// Chromium writes first, and its sessionId, which it writes last.
const frameEnds = 256

// readFrame returns the browser's next frame, its terminating zero included. A frame longer
// than maxFrame (maxShotFrame for the answer to a call shot says is a screenshot) is read to
// its end and kept nowhere: in its place comes an error answer with its id and sessionId, so
// that whoever called gets an error instead of waiting, or nil for an event.
func readFrame(br *bufio.Reader, shot func(id int64) bool) ([]byte, error) {
	var frame, tail []byte
	long := false
	limit := maxFrame
	for {
		chunk, err := br.ReadSlice(0)
		if err != nil && err != bufio.ErrBufferFull {
			return nil, err
		}
		if !long && limit == maxFrame && len(frame)+len(chunk) > limit+1 {
			if id, ok := frameID(frame); ok && shot(id) {
				limit = maxShotFrame
			}
		}
		if !long && len(frame)+len(chunk) > limit+1 {
			long = true
			frame = frame[:min(len(frame), frameEnds)]
		}
		if long {
			tail = append(tail, chunk...)
			if len(tail) > frameEnds {
				tail = append(tail[:0], tail[len(tail)-frameEnds:]...)
			}
		} else {
			if len(frame)+len(chunk) > cap(frame) {
				// Doubling, not append's quarter for large slices: a frame of 16 MiB left
				// about 80 MiB of garbage behind that way.
				frame = append(make([]byte, 0, min(max(2*cap(frame), len(frame)+len(chunk)), limit+1)), frame...)
			}
			frame = append(frame, chunk...)
		}
		if err == nil {
			break
		}
	}
	if !long {
		return frame, nil
	}
	id, ok := frameID(frame)
	if !ok {
		return nil, nil
	}
	answer := map[string]any{"id": id, "error": map[string]any{"code": -32000, "message": frameTooLong}}
	// The last sessionId key: a page's value may hold one too, never after Chromium's.
	if i := bytes.LastIndex(tail, []byte(`"sessionId":"`)); i >= 0 {
		if s, _, ok := bytes.Cut(tail[i+len(`"sessionId":"`):], []byte(`"`)); ok {
			answer["sessionId"] = string(s)
		}
	}
	b, err := json.Marshal(answer)
	return append(b, 0), err
}

// frameID is the id an answer begins with (Chromium writes it first); false for an event.
func frameID(frame []byte) (int64, bool) {
	digits, ok := bytes.CutPrefix(frame, []byte(`{"id":`))
	if !ok {
		return 0, false
	}
	end := bytes.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' })
	if end <= 0 {
		return 0, false
	}
	id, err := strconv.ParseInt(string(digits[:end]), 10, 64)
	return id, err == nil
}

// route delivers a message to a proxy client; false leaves it to chromedp.
func (m *cdpMux) route(p peek, body []byte) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.clients) == 0 {
		return false
	}
	for c := range m.clients {
		if p.ID >= proxyIDBase {
			if c.ownsID(p.ID) {
				c.fromBrowser(p, body)
				return true
			}
			continue
		}
		if p.SessionID != "" && c.ownsSession(p.SessionID) {
			c.fromBrowser(p, body)
			return true
		}
		if p.SessionID == "" && (p.Method == "Target.attachedToTarget" || p.Method == "Target.detachedFromTarget") && c.isOwnAttach(p.Params) {
			return true // the attach of a client's own session: nobody else's business
		}
		if p.SessionID == "" && c.downloadEvents && (p.Method == "Browser.downloadWillBegin" || p.Method == "Browser.downloadProgress") {
			c.fromBrowser(p, body) // a copy; chromedp records the download too
		}
	}
	return p.ID >= proxyIDBase // a late answer of a client that left
}

// proxyClient is one WebSocket connection of the run_code sidecar.
type proxyClient struct {
	m     *cdpMux
	b     *Browser
	ws    *websocket.Conn
	ctx   context.Context
	stop  context.CancelFunc
	root  string // its session on the browser target
	ready chan struct{}

	// guarded by m.mu
	ids             map[int64]pending
	sessions        map[string]bool
	browserSessions map[string]bool // the sessions of sessions that are on the browser target
	downloadEvents  bool            // it asked for download events (Browser.setDownloadBehavior)
	out             chan []byte
	queued          atomic.Int64 // bytes in out
}

type pending struct {
	id     json.Number // the client's own id
	root   bool        // sent without a session: answer without one
	method string
}

func (c *proxyClient) ownsID(id int64) bool { _, ok := c.ids[id]; return ok }
func (c *proxyClient) ownsSession(s string) bool {
	return s == c.root || c.sessions[s]
}

// isOwnAttach says whether a root attach or detach event is about one of the
// client's sessions (its browser-target session is the only browser-type one).
func (c *proxyClient) isOwnAttach(params json.RawMessage) bool {
	var a struct {
		SessionID  string `json:"sessionId"`
		TargetInfo struct {
			Type string `json:"type"`
		} `json:"targetInfo"`
	}
	if json.Unmarshal(params, &a) != nil {
		return false
	}
	return a.TargetInfo.Type == "browser" || (a.SessionID != "" && c.ownsSession(a.SessionID))
}

func (c *proxyClient) close() { c.stop() }

// fromBrowser rewrites a message for the client; m.mu is held.
func (c *proxyClient) fromBrowser(p peek, body []byte) {
	var msg map[string]json.RawMessage
	if json.Unmarshal(body, &msg) != nil {
		return
	}
	if p.ID >= proxyIDBase {
		pd := c.ids[p.ID]
		delete(c.ids, p.ID)
		if pd.method == "" { // the client's attach to the browser target
			var r struct {
				SessionID string `json:"sessionId"`
			}
			if json.Unmarshal(p.Result, &r) == nil && r.SessionID != "" {
				c.root = r.SessionID
			}
			close(c.ready)
			return
		}
		msg["id"], _ = json.Marshal(pd.id)
		if pd.root {
			delete(msg, "sessionId")
		}
		if cookieBearing(pd.method) {
			msg["result"] = scrubCookies(msg["result"])
		}
		if pd.method == "Target.attachToTarget" || pd.method == "Target.attachToBrowserTarget" {
			var r struct {
				SessionID string `json:"sessionId"`
			}
			if json.Unmarshal(p.Result, &r) == nil && r.SessionID != "" {
				c.sessions[r.SessionID] = true
				if pd.method == "Target.attachToBrowserTarget" {
					c.browserSessions[r.SessionID] = true
				}
			}
		}
	} else {
		switch p.Method {
		case "Target.attachedToTarget", "Target.detachedFromTarget":
			var a struct {
				SessionID  string `json:"sessionId"`
				TargetInfo struct {
					Type string `json:"type"`
				} `json:"targetInfo"`
			}
			if json.Unmarshal(p.Params, &a) == nil && a.SessionID != "" {
				if p.Method == "Target.attachedToTarget" {
					c.sessions[a.SessionID] = true
					if a.TargetInfo.Type == "browser" {
						c.browserSessions[a.SessionID] = true
					}
				} else {
					delete(c.sessions, a.SessionID)
					delete(c.browserSessions, a.SessionID)
				}
			}
		}
		if p.SessionID == c.root {
			delete(msg, "sessionId")
		}
		if p.Method == "Target.receivedMessageFromTarget" {
			return // a non-flat session's traffic: never the client's (no such attach passes)
		}
		if cookieBearing(p.Method) {
			msg["params"] = scrubCookies(msg["params"])
		}
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return
	}
	c.send(out)
}

// maxQueued bounds what the host holds for one proxy client that has not read it yet: room
// for a screenshot's answer and more.
const maxQueued = 2 * maxShotFrame

// send queues a message for the client. A client that does not read is dropped, never
// waited for, once its queue holds 4096 messages or maxQueued bytes.
func (c *proxyClient) send(b []byte) {
	if c.queued.Add(int64(len(b))) > maxQueued {
		c.stop()
		return
	}
	select {
	case c.out <- b:
	default:
		c.stop()
	}
}

// fromClient checks one client message and forwards its checked re-encoding
// (cdpcheck.go).
func (c *proxyClient) fromClient(data []byte) {
	v, err := strictJSON(data)
	msg, _ := v.(map[string]any)
	id, _ := msg["id"].(json.Number)
	method, _ := msg["method"].(string)
	session, _ := msg["sessionId"].(string)
	if err != nil {
		// Refused; the lenient reading only addresses the answer.
		var env struct {
			ID        json.Number `json:"id"`
			Method    string      `json:"method"`
			SessionID string      `json:"sessionId"`
		}
		_ = json.Unmarshal(data, &env)
		id, method, session = env.ID, env.Method, env.SessionID
		err = fmt.Errorf("the message is not strict JSON: %w", err)
	} else if msg == nil || id == "" {
		err = errors.New("a message is an object with a numeric id")
	}
	if id == "" {
		return // nothing to answer
	}
	reply := func(result any, errMsg string) {
		r := map[string]any{"id": id}
		if session != "" {
			r["sessionId"] = session
		}
		if errMsg != "" {
			r["error"] = map[string]any{"code": -32000, "message": errMsg}
		} else {
			r["result"] = result
		}
		if b, err := json.Marshal(r); err == nil {
			c.send(b)
		}
	}
	if err != nil {
		reply(nil, refusal(method, err.Error()))
		return
	}
	for k := range msg {
		switch k {
		case "id", "method", "params", "sessionId":
		default:
			reply(nil, refusal(method, fmt.Sprintf("unknown message field %q", k)))
			return
		}
	}
	if _, ok := msg["sessionId"]; ok && session == "" {
		reply(nil, refusal(method, "sessionId must be a non-empty string"))
		return
	}
	if answeredMethods()[method] {
		// Playwright's download event: the host's download events, copied to
		// the client (route) when it asked for them on its browser session.
		if p, _ := msg["params"].(map[string]any); p != nil && p["eventsEnabled"] == true && session == "" {
			c.m.mu.Lock()
			c.downloadEvents = true
			c.m.mu.Unlock()
		}
		reply(map[string]any{}, "")
		return
	}
	c.m.mu.Lock()
	if session != "" && !c.ownsSession(session) {
		c.m.mu.Unlock()
		reply(nil, "w365: unknown session")
		return
	}
	if method == "Target.detachFromTarget" {
		if p, _ := msg["params"].(map[string]any); p != nil {
			if s, _ := p["sessionId"].(string); !c.ownsSession(s) {
				c.m.mu.Unlock()
				reply(nil, refusal(method, "not a session of browser_run_code"))
				return
			}
		}
	}
	if why := c.b.checkCall(method, msg["params"], session == "" || session == c.root || c.browserSessions[session]); why != "" {
		c.m.mu.Unlock()
		reply(nil, why)
		return
	}
	pid := c.m.nextID.Add(1)
	c.ids[pid] = pending{id: id, root: session == "", method: method}
	if session == "" {
		msg["sessionId"] = c.root
	}
	c.m.mu.Unlock()
	msg["id"] = pid
	// Not HTML-escaped: json.Marshal writes each <, > and & as six bytes, and a message of
	// them would grow sixfold on its way to the browser.
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(msg) != nil {
		return
	}
	_, _ = c.m.write(append(bytes.TrimSuffix(b.Bytes(), []byte("\n")), 0))
}

// cookieBearing says whether messages of a method can carry cookie values:
// request and response headers (Cookie, Set-Cookie), the cookies a request
// was sent with or blocked by, intercepted responses.
func cookieBearing(method string) bool {
	for _, d := range []string{"Network.", "Fetch.", "Audits.", "Storage."} {
		if strings.HasPrefix(method, d) {
			return true
		}
	}
	return false
}

// cookieKeys are the fields scrubCookies removes wherever they appear.
var cookieKeys = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"cookie": true, "set-cookie": true, "cookies": true, "associatedcookies": true,
		"blockedcookies": true, "exemptedcookies": true, "headerstext": true, "requestheaderstext": true, "rawcookieline": true}
})

// scrubCookies removes cookie values from a message's params or result: any
// field named as in cookieKeys, and {name, value} header entries named Cookie or
// Set-Cookie (Fetch's arrays).
func scrubCookies(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return json.RawMessage(`{}`)
	}
	var walk func(any) any
	walk = func(x any) any {
		switch t := x.(type) {
		case map[string]any:
			for k, val := range t {
				if cookieKeys()[strings.ToLower(k)] {
					delete(t, k)
					continue
				}
				t[k] = walk(val)
			}
		case []any:
			out := t[:0]
			for _, e := range t {
				if m, ok := e.(map[string]any); ok {
					if n, ok := m["name"].(string); ok && cookieKeys()[strings.ToLower(n)] {
						if _, hasValue := m["value"]; hasValue {
							continue
						}
					}
				}
				out = append(out, walk(e))
			}
			return out
		}
		return x
	}
	b, err := json.Marshal(walk(v))
	if err != nil {
		return json.RawMessage(`{}`)
	}
	return b
}

// maxClientMessage bounds one message of a proxy client: the host reads it whole, decodes
// it and encodes it again. Playwright's page APIs send nothing near it but the files
// setInputFiles hands over as buffers, in base64 (browser_file_upload takes a large one); a
// longer message closes the connection (docs/security.md, "What the host reads from a
// session").
const maxClientMessage = maxFrame

// maxProxyConns is how many connections the proxy serves at once; the next waits to be
// accepted until one closes. The sidecar's Playwright holds one (and a second while it
// reconnects). Each may hold a message of maxClientMessage being read and maxQueued for it,
// and the code can open sockets: 48 connections each sending 14 MiB of a message grew the
// host's resident peak by 1,104 MiB (docs/security.md, "What the host reads from a session").
const maxProxyConns = 2

// serveProxy answers WebSocket clients on l until ctx ends.
func (m *cdpMux) serveProxy(ctx context.Context, b *Browser, l net.Listener) {
	srv := &http.Server{
		ReadHeaderTimeout: 10 * time.Second,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasPrefix(r.URL.Path, "/devtools/browser/") {
				http.NotFound(w, r)
				return
			}
			ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: true})
			if err != nil {
				return
			}
			ws.SetReadLimit(maxClientMessage)
			m.runClient(r.Context(), b, ws)
		}),
	}
	go func() { <-ctx.Done(); srv.Close() }()
	_ = srv.Serve(netutil.LimitListener(l, maxProxyConns))
}

func (m *cdpMux) runClient(ctx context.Context, b *Browser, ws *websocket.Conn) {
	ctx, stop := context.WithCancel(ctx)
	c := &proxyClient{m: m, b: b, ws: ws, ctx: ctx, stop: stop, ready: make(chan struct{}),
		ids: map[int64]pending{}, sessions: map[string]bool{}, browserSessions: map[string]bool{}, out: make(chan []byte, 4096)}
	defer func() {
		stop()
		m.mu.Lock()
		delete(m.clients, c)
		root := c.root
		m.mu.Unlock()
		if root != "" {
			id := m.nextID.Add(1)
			msg, _ := json.Marshal(map[string]any{"id": id, "method": "Target.detachFromTarget", "params": map[string]any{"sessionId": root}})
			_, _ = m.write(append(msg, 0))
		}
		ws.CloseNow()
	}()
	m.mu.Lock()
	m.clients[c] = true
	id := m.nextID.Add(1)
	c.ids[id] = pending{} // method "": the attach
	m.mu.Unlock()
	attach, _ := json.Marshal(map[string]any{"id": id, "method": "Target.attachToBrowserTarget"})
	if _, err := m.write(append(attach, 0)); err != nil {
		return
	}
	select {
	case <-c.ready:
	case <-time.After(10 * time.Second):
		return
	case <-ctx.Done():
		return
	}
	if c.root == "" {
		return
	}
	go func() {
		defer stop()
		for {
			select {
			case b := <-c.out:
				if ws.Write(ctx, websocket.MessageText, b) != nil {
					return
				}
				c.queued.Add(-int64(len(b)))
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		c.fromClient(data)
	}
}

// proxySocket makes a private directory with a Unix socket the proxy serves on.
func (m *cdpMux) proxySocket(ctx context.Context, b *Browser, dir string) (string, error) {
	sock := filepath.Join(dir, "cdp.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		return "", err
	}
	go m.serveProxy(ctx, b, l)
	return sock, nil
}
