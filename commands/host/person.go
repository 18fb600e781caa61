package host

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"regexp"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// A person in the loop (docs/person.md). A session is held for a person while it is paused
// or a hand-over is open: an agent's call that reaches its turn then waits (waitWhilePaused)
// with its turn kept, so the calls behind it keep their order and none is lost or run twice.
// The person acts through the live view (its input skips the held queue and goes through the
// hold's own lane) or on the desktop itself. Pause, resume and hand back are host controls
// (the host socket) and live view requests, never tools.

// personHold is what a person holds of one session.
type personHold struct {
	mu sync.Mutex
	// changed is closed, and replaced, at every change of the hold.
	changed  chan struct{}
	paused   bool
	pausedBy string
	note     string
	open     *handover
	// last is the latest hand-over that ended, for a call that waited on it.
	last *handover
	// lane orders the person's live view input while the session is held.
	lane session.Queue
	// keeping says that keepAlive runs for the hold.
	keeping bool
}

// keepAliveEvery is how often a held session is marked used: a person acting on the desktop
// itself makes no calls, and the idle reaper must not end the session under them. (A
// variable so that a test can shorten it.)
var keepAliveEvery = 30 * time.Second

// keepAlive marks s used while a person holds it; hd.mu is held. One runs per hold at a time.
func (h *Host) keepAlive(s *session.Session, hd *personHold) {
	if hd.keeping {
		return
	}
	hd.keeping = true
	go func() {
		tick := time.NewTicker(keepAliveEvery)
		defer tick.Stop()
		for {
			select {
			case <-tick.C:
			case <-h.done:
				return
			}
			hd.mu.Lock()
			held := hd.paused || hd.open != nil
			if !held || s.Ended() {
				hd.keeping = false
				hd.mu.Unlock()
				return
			}
			hd.mu.Unlock()
			s.Touch()
		}
	}()
}

// handover is one request of an agent for a person.
type handover struct {
	id, reason, instructions string
	// token is the one-time live view token of the hand-over; it dies with it.
	token            string
	opened, deadline time.Time
	timer            *time.Timer
	done             chan struct{}
	// status is "" while open, then the event that ended it: eventHandedBack,
	// eventHandoverTimedOut or eventHandoverEnded (its waiting call was cancelled).
	status, note, by string
	ended            time.Time
	// asked is the client connection that was shown the link by URL elicitation.
	asked *mcp.ServerSession
}

// personEvent names what happened, for watch and the trace.
const (
	eventHandoverOpened   = "handover-opened"
	eventHandedBack       = "handed-back"
	eventHandoverTimedOut = "handover-timed-out"
	eventHandoverEnded    = "handover-cancelled"
	eventPaused           = "paused"
	eventResumed          = "resumed"
)

// Who acts from where: the host socket is the local user's (CLI, REPL), the live view's
// controls are whoever holds a token with control.
const (
	byLocal    = "local user"
	byLiveView = "live view"
)

// hold is the hold of s, made on first use: only a pause or a hand-over makes one. Holds
// belong to the session, not its name: a session started later under the same name (the
// default session, a named one) starts unheld. Making one drops those of ended sessions.
func (h *Host) hold(s *session.Session) *personHold {
	if v, ok := h.people.Load(s); ok {
		return v.(*personHold)
	}
	h.people.Range(func(k, _ any) bool {
		if k.(*session.Session).Ended() {
			h.people.Delete(k)
		}
		return true
	})
	v, _ := h.people.LoadOrStore(s, &personHold{changed: make(chan struct{})})
	return v.(*personHold)
}

// heldOnly is the hold of s, nil when no person ever held it (the calls of such a session
// pass without a lock).
func (h *Host) heldOnly(s *session.Session) *personHold {
	if v, ok := h.people.Load(s); ok {
		return v.(*personHold)
	}
	return nil
}

// signal wakes everyone waiting on the hold; hd.mu is held.
func (hd *personHold) signal() {
	close(hd.changed)
	hd.changed = make(chan struct{})
}

// waitWhilePaused keeps the call of t, which has its turn on s, waiting while a person holds s:
// paused, or handed over (hand_over_to_person itself waits on the open hand-over instead).
func (h *Host) waitWhilePaused(ctx context.Context, prog *progress, s *session.Session, t *tool.Tool) error {
	hd := h.heldOnly(s)
	if hd == nil {
		return nil
	}
	for waited := false; ; waited = true {
		hd.mu.Lock()
		paused, by, note, ho, changed := hd.paused, hd.pausedBy, hd.note, hd.open, hd.changed
		hd.mu.Unlock()
		switch {
		case paused:
			if note != "" {
				prog.setPhase("paused by %s: %s", by, note)
			} else {
				prog.setPhase("paused by %s", by)
			}
		case ho != nil && t != commands.HandOverToPerson:
			prog.setPhase("waiting: session handed over to a person (%s)", ho.reason)
		default:
			if waited {
				prog.setPhase("running")
			}
			return nil
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return werr.Wrap(ctx.Err(), werr.Cancelled, "call cancelled while session %q was held by a person", s.ID)
		case <-time.After(time.Second):
			if s.Ended() {
				return werr.New(werr.SessionExpired, "session %q ended while held by a person", s.ID)
			}
		}
	}
}

// Pause holds s for a person: the agent's calls wait after their turn until Resume.
// Pausing a paused session names the new pauser and note.
func (h *Host) Pause(s *session.Session, by, note string) {
	hd := h.hold(s)
	hd.mu.Lock()
	hd.paused, hd.pausedBy, hd.note = true, by, note
	h.keepAlive(s, hd)
	hd.signal()
	hd.mu.Unlock()
	h.personEvent(s.ID, eventPaused, by, note)
}

// Resume lets the agent's calls on s go on.
func (h *Host) Resume(s *session.Session, by string) error {
	hd := h.heldOnly(s)
	if hd == nil {
		return werr.Invalid("session %q is not paused", s.ID)
	}
	hd.mu.Lock()
	if !hd.paused {
		hd.mu.Unlock()
		return werr.Invalid("session %q is not paused", s.ID)
	}
	hd.paused, hd.pausedBy, hd.note = false, "", ""
	hd.signal()
	hd.mu.Unlock()
	h.drainLane(hd)
	h.personEvent(s.ID, eventResumed, by, "")
	return nil
}

// HandBack ends the open hand-over of s: the agent's call that waits on it answers handedBack.
func (h *Host) HandBack(s *session.Session, by, note string) error {
	var ho *handover
	if hd := h.heldOnly(s); hd != nil {
		hd.mu.Lock()
		ho = hd.open
		hd.mu.Unlock()
	}
	if ho == nil {
		return werr.New(werr.NotFound, "session %q has no open hand-over", s.ID)
	}
	h.endHandover(s, ho, eventHandedBack, by, note)
	return nil
}

// drainLane lets the person's live view input in flight finish before the agent goes on.
func (h *Host) drainLane(hd *personHold) {
	t := hd.lane.Enter()
	t.Wait(context.Background())
	t.Done()
}

// heldFor says whether a person holds s now (paused or handed over), and the hand-over whose
// one-time token is token, if one is open.
func (h *Host) heldFor(s *session.Session, token string) (held bool, ho *handover) {
	hd := h.heldOnly(s)
	if hd == nil {
		return false, nil
	}
	hd.mu.Lock()
	defer hd.mu.Unlock()
	if o := hd.open; o != nil && token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(o.token)) == 1 {
		ho = o
	}
	return hd.paused || hd.open != nil, ho
}

// personStatus is the hold of s as the live view's status shows it.
type personStatus struct {
	Paused   bool            `json:"paused"`
	PausedBy string          `json:"pausedBy,omitempty"`
	Note     string          `json:"note,omitempty"`
	Handover *handoverStatus `json:"handover"`
}

type handoverStatus struct {
	ID           string    `json:"id"`
	Reason       string    `json:"reason"`
	Instructions string    `json:"instructions,omitempty"`
	Deadline     time.Time `json:"deadline"`
}

func (h *Host) personStatus(s *session.Session) personStatus {
	hd := h.heldOnly(s)
	if hd == nil {
		return personStatus{}
	}
	hd.mu.Lock()
	defer hd.mu.Unlock()
	st := personStatus{Paused: hd.paused, PausedBy: hd.pausedBy, Note: hd.note}
	if o := hd.open; o != nil {
		st.Handover = &handoverStatus{ID: o.id, Reason: o.reason, Instructions: o.instructions, Deadline: o.deadline}
	}
	return st
}

// callKey marks a call's context with its request and when it arrived (observed).
type callKey struct{}

type callInfo struct {
	req     *mcp.CallToolRequest
	arrived time.Time
}

func withCall(ctx context.Context, req *mcp.CallToolRequest, arrived time.Time) context.Context {
	return context.WithValue(ctx, callKey{}, callInfo{req, arrived})
}

// urlElicitation is the client connection of the call of ctx when it can be asked by
// URL-mode elicitation: a client that advertises it, in an era with server-to-client
// requests (the 2026-07-28 stateless era has none).
func urlElicitation(ctx context.Context) *mcp.ServerSession {
	ci, _ := ctx.Value(callKey{}).(callInfo)
	if ci.req == nil || ci.req.Session == nil {
		return nil
	}
	p := ci.req.Session.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil || p.Capabilities.Elicitation.URL == nil {
		return nil
	}
	return ci.req.Session
}

// liveTokenInURL is a live view token in a link (a hand-over's result carries its one-time link).
// It is compiled on first use: a one-shot CLI call never needs it (issue 28).
var liveTokenInURL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(` + regexp.QuoteMeta(liveViewPrefix) + `[^\s?]*\?token=)[0-9a-fA-F]+`)
})

// hideLiveTokens keeps live view tokens out of what watch prints and the trace records:
// the link is the credential.
func hideLiveTokens(s string) string { return liveTokenInURL().ReplaceAllString(s, "${1}‹hidden›") }

// randomHex is n random bytes in hex: ids, tokens.
func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// HandOver is hand_over_to_person for the caller.
func (c callerHost) HandOver(ctx context.Context, s *session.Session, req tool.HandOverRequest) (tool.HandOverResult, error) {
	return c.h.handOver(ctx, s, req)
}

func (h *Host) handOver(ctx context.Context, s *session.Session, req tool.HandOverRequest) (tool.HandOverResult, error) {
	hd := h.hold(s)
	ci, _ := ctx.Value(callKey{}).(callInfo)
	hd.mu.Lock()
	ho, opened := hd.open, false
	switch {
	case req.ID != "" && (ho == nil || ho.id != req.ID):
		last := hd.last
		hd.mu.Unlock()
		if last != nil && last.id == req.ID && last.status != eventHandoverEnded {
			return h.handoverResult(s, last), nil
		}
		return tool.HandOverResult{}, werr.New(werr.NotFound, "no open hand-over %q in session %q", req.ID, s.ID).
			WithHint("call hand_over_to_person without handoverId to open one")
	case ho == nil && hd.last != nil && !ci.arrived.IsZero() && ci.arrived.Before(hd.last.ended) && hd.last.status != eventHandoverEnded:
		// This call came while that hand-over was open and waited its turn behind it.
		last := hd.last
		hd.mu.Unlock()
		return h.handoverResult(s, last), nil
	case ho == nil:
		now := time.Now()
		ho = &handover{id: "h-" + randomHex(8), reason: req.Reason, instructions: req.Instructions, token: randomHex(32),
			opened: now, deadline: now.Add(req.Timeout), done: make(chan struct{})}
		ho.timer = time.AfterFunc(req.Timeout, func() { h.endHandover(s, ho, eventHandoverTimedOut, "", "") })
		hd.open, opened = ho, true
		h.keepAlive(s, hd)
		hd.signal()
	}
	hd.mu.Unlock()

	var answered chan *mcp.ElicitResult
	if opened {
		h.personEvent(s.ID, eventHandoverOpened, "", ho.reason)
		if ss := urlElicitation(ctx); ss != nil && h.handoverURL(s, ho) != "" {
			hd.mu.Lock()
			ho.asked = ss
			hd.mu.Unlock()
			answered = make(chan *mcp.ElicitResult, 1)
			// The elicitation ends with the hand-over, whichever answers first.
			ectx, cancel := context.WithCancel(ctx)
			go func() {
				select {
				case <-ho.done:
				case <-ectx.Done():
				}
				cancel()
			}()
			go func() {
				defer cancel()
				res, err := ss.Elicit(ectx, &mcp.ElicitParams{Mode: "url", ElicitationID: ho.id, URL: h.handoverURL(s, ho),
					Message: elicitMessage(ho)})
				if err != nil {
					h.log.Info("url elicitation failed; the link stays in the text", "session", s.ID, "err", err)
					res = nil
				}
				answered <- res
			}()
		} else {
			return h.handoverResult(s, ho), nil
		}
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		tool.Phase(ctx, "waiting for a person to hand back (%s left)", time.Until(ho.deadline).Round(time.Second))
		select {
		case <-ho.done:
			return h.handoverResult(s, ho), nil
		case res := <-answered:
			answered = nil
			switch {
			case res == nil:
				// The client could not be asked: as without elicitation.
				return h.handoverResult(s, ho), nil
			case res.Action != "accept":
				r := h.handoverResult(s, ho)
				if r.Status == "waiting" {
					r.Status = "declined"
				}
				return r, nil
			}
		case <-ctx.Done():
			h.endHandover(s, ho, eventHandoverEnded, "", "")
			return tool.HandOverResult{}, werr.Done(ctx, "hand_over_to_person")
		case <-tick.C:
			if s.Ended() {
				h.endHandover(s, ho, eventHandoverEnded, "", "")
				return tool.HandOverResult{}, werr.New(werr.SessionExpired, "session %q ended during the hand-over", s.ID)
			}
		}
	}
}

func elicitMessage(ho *handover) string {
	m := "The agent asks you to act in its session: " + ho.reason
	if ho.instructions != "" {
		m += "\n" + ho.instructions
	}
	return m + "\nOpen the link, act, then press Hand back."
}

// handoverURL is the hand-over's one-time link: the live view with its token.
func (h *Host) handoverURL(s *session.Session, ho *handover) string {
	return h.liveViewURLWith(s, ho.token)
}

// handoverResult is how ho stands now.
func (h *Host) handoverResult(s *session.Session, ho *handover) tool.HandOverResult {
	hd := h.hold(s)
	hd.mu.Lock()
	defer hd.mu.Unlock()
	r := tool.HandOverResult{ID: ho.id, Note: ho.note, Deadline: ho.deadline}
	end := ho.ended
	switch ho.status {
	case "":
		r.Status, r.URL, end = "waiting", h.handoverURL(s, ho), time.Now()
	case eventHandedBack:
		r.Status = "handedBack"
	default:
		r.Status = "timedOut"
	}
	r.Waited = end.Sub(ho.opened)
	if ho.asked != nil {
		r.Asked = "url elicitation"
	}
	return r
}

// endHandover closes ho (its token dies) as what says; false when it had ended already.
func (h *Host) endHandover(s *session.Session, ho *handover, what, by, note string) bool {
	hd := h.hold(s)
	hd.mu.Lock()
	if ho.status != "" {
		hd.mu.Unlock()
		return false
	}
	ho.status, ho.by, ho.note, ho.ended = what, by, note, time.Now()
	asked := ho.asked
	ho.timer.Stop()
	if hd.open == ho {
		hd.open = nil
	}
	hd.last = ho
	close(ho.done)
	hd.signal()
	hd.mu.Unlock()
	h.drainLane(hd)
	detail := note
	if what != eventHandedBack {
		detail = ho.reason
	}
	h.personEvent(s.ID, what, by, detail)
	if asked != nil {
		// The client may close the URL it showed.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		asked.NotifyElicitationComplete(ctx, &mcp.ElicitationCompleteParams{ElicitationID: ho.id})
	}
	return true
}

// personEvent tells watch and the trace what a person (or the clock) did on session id.
func (h *Host) personEvent(id, what, by, detail string) {
	ev := CallEvent{Phase: "person", ID: h.calls.nextID.Add(1), Time: time.Now(), Session: id, Person: what, By: by, Summary: detail}
	h.calls.publish(ev)
	if _, live := h.sessions.Lookup(id); !live {
		// A hand-over that times out after its session ended: no trace starts for it.
		return
	}
	if tr := h.traces.get(id); tr != nil {
		tr.mu.Lock()
		if !tr.full {
			tr.write(TraceRecord{ID: ev.ID, Time: ev.Time, Session: id, Person: what, By: by, Summary: detail})
			tr.info.Records++
		}
		tr.mu.Unlock()
	}
}

// personControl runs a person's control op (pause, resume, hand-back) from the host socket.
func (h *Host) personControl(req controlRequest) error {
	id := req.Session
	if id == "" {
		id = session.DefaultName
	}
	s, ok := h.sessions.Lookup(id)
	if !ok {
		return h.knownSessionOrMissing(id)
	}
	if s.Owner != session.LocalPrincipal && !h.policy.LocalAttachAny {
		return werr.New(werr.NotFound, "no session %q", id)
	}
	switch req.Op {
	case "pause":
		h.Pause(s, byLocal, req.Note)
		return nil
	case "resume":
		return h.Resume(s, byLocal)
	default:
		return h.HandBack(s, byLocal, req.Note)
	}
}

// knownSessionOrMissing is knownSession's error, or NOT_FOUND for a default session that
// has not started.
func (h *Host) knownSessionOrMissing(id string) error {
	if err := h.knownSession(id); err != nil {
		return err
	}
	return werr.New(werr.NotFound, "session %q has not started", id)
}

// PersonControl asks the running host to pause, resume or hand back session (op: pause,
// resume, hand-back), as the local user.
func PersonControl(ctx context.Context, op, session, note string) error {
	if op != "pause" && op != "resume" && op != "hand-back" {
		return werr.Invalid("unknown person control %q", op)
	}
	_, err := control(ctx, controlRequest{Op: op, Session: session, Note: note})
	return err
}
