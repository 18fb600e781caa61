package host

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"html"
	"image"
	"image/jpeg"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// The live view shows a session's desktop in a web page, view-only unless the policy's
// liveViewControl lets it click, scroll and type (through the desktop input tools): the host's HTTP
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
	if s == nil {
		return ""
	}
	return h.liveViewURLWith(s, s.LiveToken)
}

// liveViewURLWith is the address of s's live view with token (a hand-over's own).
func (h *Host) liveViewURLWith(s *session.Session, token string) string {
	base := h.httpBase.Load()
	if base == nil {
		return ""
	}
	return *base + liveViewPrefix + url.PathEscape(s.ID) + "/?token=" + token
}

func (h *Host) liveViewHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("Referrer-Policy", "no-referrer")
		rest := strings.TrimPrefix(r.URL.Path, liveViewPrefix)
		id, sub, _ := strings.Cut(rest, "/")
		token := r.URL.Query().Get("token")
		if token == "" {
			http.Error(w, "the live view needs its token", http.StatusUnauthorized)
			return
		}
		s, ok := h.sessions.Lookup(id)
		// An ended session's token is refused like a wrong one: it died with the session, as
		// a hand-over's one-time token dies with the hand-over.
		var held bool
		var ho *handover
		if ok {
			held, ho = h.heldFor(s, token)
		}
		if !ok || (ho == nil && subtle.ConstantTimeCompare([]byte(token), []byte(s.LiveToken)) != 1) {
			http.Error(w, "wrong or expired live view token", http.StatusForbidden)
			return
		}
		// A hand-over's token grants control for the length of the hand-over.
		control := h.policy.LiveViewControl || ho != nil
		post := r.Method == http.MethodPost && control
		switch {
		case post && sub == "input":
			h.liveInput(w, r, s, held)
		case post && (sub == "handback" || sub == "pause" || sub == "resume"):
			h.livePerson(w, r, s, sub)
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			http.Error(w, "the live view is view-only (policy liveViewControl)", http.StatusMethodNotAllowed)
		case sub == "":
			h.livePage(w, s, token, control)
		case sub == "stream":
			h.liveStream(r.Context(), w, s)
		case sub == "status":
			h.liveStatus(w, s, control)
		case sub == "view.js":
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			io.WriteString(w, liveViewJS)
		case sub == "control.js" && control:
			w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
			io.WriteString(w, liveControlJS)
		default:
			http.NotFound(w, r)
		}
	})
}

// livePage is the page of s for a viewer with token; with control it has the person's
// buttons (hand back, pause, resume).
func (h *Host) livePage(w http.ResponseWriter, s *session.Session, token string, control bool) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'")
	id := html.EscapeString(s.ID)
	base := liveViewPrefix + url.PathEscape(s.ID) + "/"
	q := "?token=" + url.QueryEscape(token)
	script := fmt.Sprintf(`<script src="%s"></script>`, html.EscapeString(base+"view.js"+q))
	person := ""
	if control {
		script += fmt.Sprintf(`<script src="%s"></script>`, html.EscapeString(base+"control.js"+q))
		person = `<span id="person"><input id="note" maxlength="2000" placeholder="note for the agent">` +
			`<button id="handback" hidden>Hand back</button><button id="pause">Pause</button><button id="resume" hidden>Resume</button></span>`
	}
	fmt.Fprintf(w, `<!doctype html>
<html><head><meta charset="utf-8"><title>w365 live: %s</title>
<style>html,body{margin:0;height:100%%;background:#111;color:#ddd;font:13px system-ui,sans-serif}
#bar{height:24px;line-height:24px;padding:0 8px;background:#222;display:flex;gap:16px;white-space:nowrap;overflow:hidden}
#bar b{color:#fff} #state.lost{color:#f66;font-weight:600} #hold{color:#fc6;overflow:hidden;text-overflow:ellipsis}
#person{margin-left:auto;display:flex;gap:6px} #person input{width:16em}
img{display:block;width:100%%;height:calc(100%% - 24px);object-fit:contain}</style>
</head><body><div id="bar"><span>w365 live · session <b id="session">%s</b></span><span id="frame">waiting for the first frame</span><span id="state">live</span><span id="hold"></span>%s</div>
<img alt="session %s" src="%s">%s</body></html>
`, id, id, person, id, html.EscapeString(base+"stream"+q), script)
}

// liveStatus tells the page when the session's stream last sent a frame, whether the viewer
// has control, and what a person holds of the session (paused, an open hand-over).
func (h *Host) liveStatus(w http.ResponseWriter, s *session.Session, control bool) {
	w.Header().Set("Content-Type", "application/json")
	var st struct {
		Session   string     `json:"session"`
		LastFrame *time.Time `json:"lastFrame,omitempty"`
		// AgeMs is the frame's age by the host's clock, which the viewer's may not share.
		AgeMs   int64 `json:"ageMs,omitempty"`
		Control bool  `json:"control"`
		personStatus
	}
	st.Session, st.Control, st.personStatus = s.ID, control, h.personStatus(s)
	if t, ok := h.liveFrames.Load(s.ID); ok {
		tt := t.(time.Time)
		st.LastFrame, st.AgeMs = &tt, time.Since(tt).Milliseconds()
	}
	json.NewEncoder(w).Encode(st)
}

// liveViewJS keeps the page's bar true: the time of the last frame (asked of the host
// every second), and when the stream or the host was lost, in red.
const liveViewJS = `(() => {
  const img = document.querySelector('img');
  const frame = document.getElementById('frame'), state = document.getElementById('state');
  const status = location.pathname + 'status' + location.search;
  let lost = null, handedOver = false;
  const hold = document.getElementById('hold');
  const lose = () => { if (document.body.dataset.closed) return; if (!lost) { lost = new Date(); state.textContent = 'lost the stream at ' + lost.toLocaleTimeString(); state.className = 'lost'; } };
  img.addEventListener('error', lose);
  const poll = async () => {
    try {
      const r = await fetch(status, {cache: 'no-store'});
      if (r.status === 403 && handedOver && !document.body.dataset.closed) {
        // A hand-over's one-time link dies with it (handed back elsewhere, or timed out).
        document.body.dataset.closed = '1';
        state.textContent = 'the hand-over ended: this link is closed'; state.className = '';
        hold.textContent = '';
        img.remove();
        document.getElementById('person')?.remove();
        return;
      }
      if (!r.ok) { lose(); return; }
      const s = await r.json();
      if (s.lastFrame) {
        const t = new Date(s.lastFrame);
        frame.textContent = 'last frame ' + t.toLocaleTimeString();
        if (s.ageMs > 10000) lose();
      }
      const ho = s.handover;
      handedOver = handedOver || Boolean(ho && s.control);
      hold.textContent = s.paused ? 'paused by ' + s.pausedBy + (s.note ? ': ' + s.note : '')
        : ho ? 'handed over to you: ' + ho.reason + (ho.instructions ? ' · ' + ho.instructions : '') + ' · until ' + new Date(ho.deadline).toLocaleTimeString() : '';
      document.dispatchEvent(new CustomEvent('w365status', {detail: s}));
    } catch (e) { lose(); }
  };
  poll();
  setInterval(poll, 1000);
})();
`

// liveInputTools are the tools the live view's control may run, all desktop input.
var liveInputTools = map[string]*tool.Tool{
	"click": commands.Click, "scroll": commands.Scroll, "type_text": commands.TypeText,
	"press_keys": commands.PressKeys, "move_mouse": commands.MoveMouse,
}

// sameOrigin refuses a request another page sent (cross-site request forgery): the live
// view's own page sends the same origin, or none.
func sameOrigin(w http.ResponseWriter, r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return false
	}
	return true
}

// livePerson is a person's control from the live view page: hand back (with a note), pause
// (with a note) or resume.
//
// A hand back is taken from any origin: the MCP App (docs/mcp.md) sends it from its
// sandboxed frame, an origin of the client's, and the token in the URL, not a cookie, is
// its authority, which no other page has. Pause and resume keep to the page's own origin.
func (h *Host) livePerson(w http.ResponseWriter, r *http.Request, s *session.Session, op string) {
	if op != "handback" && !sameOrigin(w, r) {
		return
	}
	var body struct {
		Note string `json:"note"`
	}
	if b, _ := io.ReadAll(io.LimitReader(r.Body, 8<<10)); len(bytes.TrimSpace(b)) > 0 {
		if err := json.Unmarshal(b, &body); err != nil {
			http.Error(w, `want nothing or {"note": "..."}`, http.StatusBadRequest)
			return
		}
	}
	var err error
	switch op {
	case "handback":
		err = h.HandBack(s, byLiveView, body.Note)
	case "pause":
		h.Pause(s, byLiveView, body.Note)
	default:
		err = h.Resume(s, byLiveView)
	}
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusConflict)
		json.NewEncoder(w).Encode(ErrorPayload{Error: werr.As(err)})
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// liveInput runs one input tool from the live view page as the session's owner (the token
// stands for them): in the session's queue like any call, or, while a person holds the
// session (the agent's calls wait in that queue), in the hold's own lane.
func (h *Host) liveInput(w http.ResponseWriter, r *http.Request, s *session.Session, held bool) {
	if !sameOrigin(w, r) {
		return
	}
	var body struct {
		Tool string         `json:"tool"`
		Args map[string]any `json:"args"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&body); err != nil {
		http.Error(w, "want {tool, args}", http.StatusBadRequest)
		return
	}
	t := liveInputTools[body.Tool]
	if t == nil {
		http.Error(w, "not an input tool", http.StatusBadRequest)
		return
	}
	in, err := t.Prepare(body.Args)
	if err == nil {
		q := &s.Queue
		if held {
			q = &h.hold(s).lane
		}
		ticket := q.Enter()
		if err = ticket.Wait(r.Context()); err == nil {
			env := &tool.Env{Session: s, Policy: h.policy, Host: callerHost{h, principal{name: s.Owner, local: s.Owner == session.LocalPrincipal}}}
			_, err = t.Run(r.Context(), env, in)
			ticket.Done()
			s.Touch()
		}
	}
	if err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		json.NewEncoder(w).Encode(ErrorPayload{Error: werr.As(err)})
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// liveControlJS turns clicks, wheel turns and keys on the live image into input calls,
// mapping page coordinates to the desktop's through the image's fitted box.
const liveControlJS = `(() => {
  const img = document.querySelector('img');
  const input = location.pathname + 'input' + location.search;
  const send = (tool, args) => fetch(input, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify({tool, args})});
  const at = (e) => {
    const r = img.getBoundingClientRect();
    const k = Math.min(r.width / img.naturalWidth, r.height / img.naturalHeight);
    const x = (e.clientX - r.left - (r.width - img.naturalWidth * k) / 2) / k;
    const y = (e.clientY - r.top - (r.height - img.naturalHeight * k) / 2) / k;
    return {x: Math.round(x), y: Math.round(y)};
  };
  img.addEventListener('click', (e) => send('click', at(e)));
  img.addEventListener('contextmenu', (e) => { e.preventDefault(); send('click', {...at(e), button: 'right'}); });
  img.addEventListener('wheel', (e) => { e.preventDefault(); send('scroll', {...at(e), deltaY: Math.sign(e.deltaY)}); }, {passive: false});
  const keys = {Enter: 'enter', Backspace: 'backspace', Tab: 'tab', Escape: 'escape', Delete: 'delete', ArrowUp: 'up',
    ArrowDown: 'down', ArrowLeft: 'left', ArrowRight: 'right', Home: 'home', End: 'end', PageUp: 'pageup', PageDown: 'pagedown'};
  document.addEventListener('keydown', (e) => {
    if (e.target.closest && e.target.closest('#person')) return;
    const mods = [e.ctrlKey && 'ctrl', e.altKey && 'alt', e.metaKey && 'super'].filter(Boolean);
    if (e.key.length === 1 && mods.length === 0) { send('type_text', {text: e.key}); }
    else if (keys[e.key] || (e.key.length === 1 && mods.length)) { send('press_keys', {keys: [...mods, ...(e.shiftKey && e.key.length > 1 ? ['shift'] : []), keys[e.key] || e.key.toLowerCase()]}); }
    else { return; }
    e.preventDefault();
  });
  // The person's controls: hand back while a hand-over is open, pause or resume the agent.
  const $ = (id) => document.getElementById(id);
  const note = $('note'), state = $('state');
  const person = async (op, body) => {
    const r = await fetch(location.pathname + op + location.search, {method: 'POST', headers: {'Content-Type': 'application/json'}, body: JSON.stringify(body)});
    if (!r.ok) { state.textContent = op + ' refused: ' + ((await r.json().catch(() => null))?.error?.message ?? r.status); state.className = 'lost'; }
    return r.ok;
  };
  $('handback').addEventListener('click', async () => {
    if (await person('handback', {note: note.value})) {
      // The one-time link dies with the hand-back.
      document.body.dataset.closed = '1';
      state.textContent = 'handed back: this link is closed'; state.className = '';
      $('person').remove();
      img.remove();
    }
  });
  $('pause').addEventListener('click', () => person('pause', {note: note.value}));
  $('resume').addEventListener('click', () => person('resume', {}));
  document.addEventListener('w365status', (e) => {
    const s = e.detail;
    if (!$('person')) return;
    $('handback').hidden = !s.handover;
    $('pause').hidden = s.paused;
    $('resume').hidden = !s.paused;
  });
})();
`

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
			h.liveFrames.Store(s.ID, sent)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval - time.Since(began)):
		}
	}
}
