package host

import (
	"bytes"
	"context"
	"crypto/subtle"
	"fmt"
	"hash/maphash"
	"html"
	"image"
	"image/jpeg"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/w365/w365/engine/session"
)

// The live view shows a session's desktop in a web page, view-only: the host's HTTP
// server serves a page whose image is a motion-JPEG stream (multipart/x-mixed-replace,
// which every browser plays in an <img>) of frames from the session's own screen
// capture (MIT-SHM on X11). Its URL carries the session's live token, 256 random bits
// made with the session and dead with it; API keys and OAuth tokens play no part, so a
// person can open the URL in any browser.

// liveViewPrefix is the path under which live views are served: /live/ID/ is the page,
// /live/ID/stream the frames.
const liveViewPrefix = "/live/"

// liveViewQuality is the JPEG quality of a frame: text stays readable at about a third
// of the size of quality 90.
const liveViewQuality = 70

// liveViewKeepAlive is the longest the stream goes without a frame when nothing changes.
const liveViewKeepAlive = 2 * time.Second

// liveViewURL is the address of s's live view, "" when the host serves no HTTP.
func (h *Host) liveViewURL(s *session.Session) string {
	base := h.httpBase.Load()
	if base == nil || s == nil {
		return ""
	}
	return *base + liveViewPrefix + url.PathEscape(s.ID) + "/?token=" + s.LiveToken
}

func (h *Host) liveViewHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "the live view is read-only", http.StatusMethodNotAllowed)
			return
		}
		rest := strings.TrimPrefix(r.URL.Path, liveViewPrefix)
		id, sub, _ := strings.Cut(rest, "/")
		token := r.URL.Query().Get("token")
		if token == "" {
			http.Error(w, "the live view needs its token", http.StatusUnauthorized)
			return
		}
		s, ok := h.sessions.Lookup(id)
		// An ended session's token is refused like a wrong one: it died with the session.
		if !ok || subtle.ConstantTimeCompare([]byte(token), []byte(s.LiveToken)) != 1 {
			http.Error(w, "wrong or expired live view token", http.StatusForbidden)
			return
		}
		switch sub {
		case "":
			h.livePage(w, s)
		case "stream":
			h.liveStream(r.Context(), w, s)
		default:
			http.NotFound(w, r)
		}
	})
}

func (h *Host) livePage(w http.ResponseWriter, s *session.Session) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'")
	id := html.EscapeString(s.ID)
	src := html.EscapeString(liveViewPrefix + url.PathEscape(s.ID) + "/stream?token=" + s.LiveToken)
	fmt.Fprintf(w, `<!doctype html>
<html><head><meta charset="utf-8"><title>w365 live: %s</title>
<style>html,body{margin:0;height:100%%;background:#111}img{display:block;width:100%%;height:100%%;object-fit:contain}</style>
</head><body><img alt="session %s" src="%s"></body></html>
`, id, id, src)
}

// liveStream sends frames of s's desktop until the client goes or the session ends, at
// most the policy's liveViewFps per second, and only when the picture changed (or every
// liveViewKeepAlive), so an idle desktop costs a capture and a hash per frame.
func (h *Host) liveStream(ctx context.Context, w http.ResponseWriter, s *session.Session) {
	scr, err := s.Desktop.OpenScreen()
	if err != nil {
		http.Error(w, "cannot capture the session's screen", http.StatusServiceUnavailable)
		return
	}
	defer scr.Close()
	const boundary = "w365frame"
	w.Header().Set("Content-Type", "multipart/x-mixed-replace; boundary="+boundary)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	flusher, _ := w.(http.Flusher)
	fps := max(1, h.policy.LiveViewFPS)
	interval := time.Second / time.Duration(fps)
	seed := maphash.MakeSeed()
	var last uint64
	var sent time.Time
	var buf bytes.Buffer
	for !s.Ended() {
		began := time.Now()
		img, err := scr.Capture(ctx, image.Rectangle{})
		if err != nil {
			return
		}
		if sum := maphash.Bytes(seed, img.Pix); sum != last || time.Since(sent) > liveViewKeepAlive {
			last, sent = sum, time.Now()
			buf.Reset()
			if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: liveViewQuality}); err != nil {
				return
			}
			if _, err := fmt.Fprintf(w, "--%s\r\nContent-Type: image/jpeg\r\nContent-Length: %d\r\n\r\n", boundary, buf.Len()); err != nil {
				return
			}
			if _, err := w.Write(append(buf.Bytes(), '\r', '\n')); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval - time.Since(began)):
		}
	}
}
