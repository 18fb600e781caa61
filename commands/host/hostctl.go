package host

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/w365/w365/engine/hostconn"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// Host control: the requests about the host itself that are no tools (status, stop,
// watching calls, traces). They travel on the host socket: the hello line names the
// request in "control", the host answers with JSON lines. They skip the version check,
// so a rebuilt CLI can still see and stop an older host.

// Status is what `w365 host status` shows.
type Status struct {
	PID       int            `json:"pid"`
	Build     Build          `json:"build"`
	Started   time.Time      `json:"started"`
	UptimeSec int64          `json:"uptimeSeconds"`
	Sessions  []session.Info `json:"sessions"`
	// Policy is the policy file in force ("" for the built-in defaults) and its main switches.
	Policy    PolicySummary `json:"policy"`
	Endpoints []string      `json:"endpoints"`
	Traces    []TraceInfo   `json:"traces,omitempty"`
	// Background says the CLI started this host (it exits when idle).
	Background bool `json:"background"`
}

// PolicySummary is the part of the policy a person checks first.
type PolicySummary struct {
	File           string `json:"file,omitempty"`
	Failsafe       bool   `json:"failsafeEnabled"`
	AllowNetwork   bool   `json:"allowNetwork"`
	IdleTimeoutSec int64  `json:"idleTimeoutSeconds"`
}

type controlRequest struct {
	Op      string        `json:"op"`
	Session string        `json:"session,omitempty"`
	Trace   *TraceOptions `json:"trace,omitempty"`
	// Note is what the person says with pause or hand-back.
	Note string `json:"note,omitempty"`
	// Answer is a person's answer to an approval (op "approve", approval.go).
	Answer *Answer `json:"answer,omitempty"`
	// Approver (op "watch") says a person who can answer approvals watches.
	Approver bool `json:"approver,omitempty"`
}

type controlReply struct {
	OK     bool        `json:"ok"`
	Error  *werr.Error `json:"error,omitempty"`
	Status *Status     `json:"status,omitempty"`
	Trace  *TraceInfo  `json:"trace,omitempty"`
	Event  *CallEvent  `json:"event,omitempty"`
}

type endpoints struct {
	mu   sync.Mutex
	list []string
}

func (e *endpoints) add(s string) {
	e.mu.Lock()
	e.list = append(e.list, s)
	e.mu.Unlock()
}

func (e *endpoints) remove(s string) {
	e.mu.Lock()
	if i := slices.Index(e.list, s); i >= 0 {
		e.list = slices.Delete(e.list, i, i+1)
	}
	e.mu.Unlock()
}

func (e *endpoints) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.list...)
}

// Status describes the host.
func (h *Host) Status() Status {
	p := h.policy
	st := Status{
		PID: os.Getpid(), Build: BuildInfo(), Started: h.started, UptimeSec: int64(time.Since(h.started).Seconds()),
		Sessions: h.sessions.List(), Endpoints: h.endpoints.get(), Background: h.opts.Background,
		Policy: PolicySummary{File: h.opts.PolicyFile, Failsafe: p.FailsafeEnabled, AllowNetwork: p.AllowNetwork,
			IdleTimeoutSec: int64(p.IdleTimeout().Seconds())},
	}
	h.traces.mu.Lock()
	for _, t := range h.traces.on {
		t.mu.Lock()
		st.Traces = append(st.Traces, t.info)
		t.mu.Unlock()
	}
	h.traces.mu.Unlock()
	return st
}

// control answers one control request on c; watch streams until the client leaves.
func (h *Host) control(ctx context.Context, c net.Conn, req controlRequest) {
	defer c.Close()
	enc := json.NewEncoder(c)
	reply := func(r controlReply, err error) {
		if err != nil {
			r = controlReply{Error: werr.As(err)}
		} else {
			r.OK = true
		}
		enc.Encode(r)
	}
	switch req.Op {
	case "status":
		st := h.Status()
		reply(controlReply{Status: &st}, nil)
	case "stop":
		reply(controlReply{}, nil)
		h.log.Info("stopping on request")
		go h.Stop()
	case "trace-start":
		if req.Trace == nil {
			reply(controlReply{}, werr.Invalid("trace-start needs options"))
			return
		}
		if err := h.knownSession(req.Trace.Session); err != nil {
			reply(controlReply{}, err)
			return
		}
		info, err := h.StartTrace(*req.Trace)
		reply(controlReply{Trace: &info}, err)
	case "trace-stop":
		info, err := h.StopTrace(req.Session)
		reply(controlReply{Trace: &info}, err)
	case "watch":
		if err := h.knownSession(req.Session); err != nil {
			reply(controlReply{}, err)
			return
		}
		events, cancel := h.calls.subscribe(req.Session, req.Approver)
		defer cancel()
		reply(controlReply{}, nil)
		// The approvals waiting already, so that a person who attaches now can answer them.
		for _, ev := range h.pendingFor(req.Session) {
			enc.Encode(controlReply{OK: true, Event: &ev})
		}
		// The client never writes again: a read returning means it left.
		gone := make(chan struct{})
		go func() { c.Read(make([]byte, 1)); close(gone) }()
		h.conns.Add(-1) // a watcher alone does not keep an idle host alive
		defer h.conns.Add(1)
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					return
				}
				if enc.Encode(controlReply{OK: true, Event: &ev}) != nil {
					return
				}
			case <-gone:
				return
			case <-h.done:
				return
			case <-ctx.Done():
				return
			}
		}
	case "pause", "resume", "hand-back":
		reply(controlReply{}, h.personControl(req))
	case "approve":
		// Only here, on the host socket, whose runtime directory no sandbox shows: no
		// tool answers an approval (approval.go).
		if req.Answer == nil {
			reply(controlReply{}, werr.Invalid("approve needs an answer"))
			return
		}
		reply(controlReply{}, h.answer(*req.Answer))
	default:
		reply(controlReply{}, werr.Invalid("unknown host control %q", req.Op))
	}
}

// knownSession refuses a session name that names no running session, as the tools
// do: the default session (started on first use) and "" (every session) are known.
func (h *Host) knownSession(id string) error {
	if id == "" || id == session.DefaultName {
		return nil
	}
	if _, ok := h.sessions.Lookup(id); ok {
		return nil
	}
	var names []string
	for _, i := range h.sessions.List() {
		names = append(names, i.ID)
	}
	e := werr.New(werr.NotFound, "no session %q", id)
	if len(names) > 0 {
		return e.WithHint("running sessions: %s (w365 session list)", strings.Join(names, ", "))
	}
	return e.WithHint("no session runs; w365 session start begins one")
}

// controlDial connects to the running host (never starting one) and sends req.
func controlDial(ctx context.Context, req controlRequest) (net.Conn, *bufio.Reader, error) {
	path, err := SocketPath()
	if err != nil {
		return nil, nil, err
	}
	c, err := hostconn.Dial(ctx, path, 5*time.Second)
	if refused(err) {
		return nil, nil, err
	}
	if err != nil {
		return nil, nil, werr.Wrap(err, werr.Unavailable, "no w365 host is running").WithHint("any w365 command starts one; w365 serve runs one in the foreground")
	}
	b, _ := json.Marshal(hello{W365: 1, Version: Version(), Control: &req})
	if _, err := c.Write(append(b, '\n')); err != nil {
		c.Close()
		return nil, nil, werr.Wrap(err, werr.Unavailable, "cannot talk to the w365 host")
	}
	rd := bufio.NewReader(c)
	// The hello reply, then the control's own answer.
	if _, err := rd.ReadBytes('\n'); err != nil {
		c.Close()
		return nil, nil, werr.Wrap(err, werr.Unavailable, "the w365 host did not answer")
	}
	return c, rd, nil
}

func readReply(rd *bufio.Reader) (*controlReply, error) {
	line, err := rd.ReadBytes('\n')
	if err != nil {
		return nil, werr.Wrap(err, werr.Unavailable, "the w365 host did not answer")
	}
	var r controlReply
	if err := json.Unmarshal(line, &r); err != nil {
		return nil, werr.Wrap(err, werr.Unavailable, "the w365 host sent a malformed answer")
	}
	if !r.OK {
		if r.Error == nil {
			r.Error = werr.New(werr.Internal, "the host refused the request")
		}
		return nil, r.Error
	}
	return &r, nil
}

func control(ctx context.Context, req controlRequest) (*controlReply, error) {
	c, rd, err := controlDial(ctx, req)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return readReply(rd)
}

// HostStatus asks the running host about itself.
func HostStatus(ctx context.Context) (*Status, error) {
	r, err := control(ctx, controlRequest{Op: "status"})
	if err != nil {
		return nil, err
	}
	return r.Status, nil
}

// StopHost asks the running host to end its sessions and exit, and waits until it has.
func StopHost(ctx context.Context) (int, error) {
	st, err := HostStatus(ctx)
	if err != nil {
		return 0, err
	}
	if _, err := control(ctx, controlRequest{Op: "stop"}); err != nil {
		return 0, err
	}
	for {
		if !hostconn.Alive(st.PID) {
			return st.PID, nil
		}
		select {
		case <-ctx.Done():
			return st.PID, werr.New(werr.Timeout, "the host (pid %d) is still stopping", st.PID)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TraceStart starts a trace of a session on the running host.
func TraceStart(ctx context.Context, o TraceOptions) (*TraceInfo, error) {
	r, err := control(ctx, controlRequest{Op: "trace-start", Trace: &o})
	if err != nil {
		return nil, err
	}
	return r.Trace, nil
}

// TraceStop ends a session's trace on the running host.
func TraceStop(ctx context.Context, session string) (*TraceInfo, error) {
	r, err := control(ctx, controlRequest{Op: "trace-stop", Session: session})
	if err != nil {
		return nil, err
	}
	return r.Trace, nil
}

// Watch calls fn with every call event of session ("" for all) until ctx ends or
// the host goes away.
func Watch(ctx context.Context, session string, ready func(), fn func(CallEvent)) error {
	return watch(ctx, controlRequest{Op: "watch", Session: session}, ready, fn)
}

// WatchAsApprover is Watch for a person who answers the session's approvals: while it
// runs, an approval there waits for that person instead of being refused at once.
func WatchAsApprover(ctx context.Context, session string, ready func(), fn func(CallEvent)) error {
	return watch(ctx, controlRequest{Op: "watch", Session: session, Approver: true}, ready, fn)
}

func watch(ctx context.Context, req controlRequest, ready func(), fn func(CallEvent)) error {
	c, rd, err := controlDial(ctx, req)
	if err != nil {
		return err
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	if _, err := readReply(rd); err != nil {
		return err
	}
	if ready != nil {
		ready()
	}
	for {
		r, err := readReply(rd)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return werr.Wrap(err, werr.Unavailable, "the w365 host went away")
		}
		if r.Event != nil {
			fn(*r.Event)
		}
	}
}
