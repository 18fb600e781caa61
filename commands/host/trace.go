package host

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/safefs"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// The action trace: a JSON Lines file per traced session, one record per call with
// its time, principal, front-end, tool, redacted arguments, result summary or error
// and duration, and optionally a thumbnail of the screen (or page) after each call
// that changed something. `w365 trace show` turns it into an HTML report.

// TraceHeader is a trace file's first line.
type TraceHeader struct {
	W365Trace   int       `json:"w365trace"`
	Session     string    `json:"session"`
	Started     time.Time `json:"started"`
	Version     string    `json:"version"`
	Screenshots bool      `json:"screenshots"`
}

// TraceRecord is one call in a trace file. Its fields are the end event's, which
// watch prints, so that the two tell one story.
type TraceRecord struct {
	// ID is the call's number, the one watch shows (#7).
	ID   uint64    `json:"id,omitempty"`
	Time time.Time `json:"time"`
	// QueuedMs is how long the call waited for its session, DurationMs how long it ran.
	QueuedMs      int64             `json:"queuedMs,omitempty"`
	DurationMs    int64             `json:"durationMs"`
	Session       string            `json:"session"`
	Tool          string            `json:"tool"`
	Principal     string            `json:"principal"`
	Frontend      string            `json:"frontend"`
	Args          map[string]any    `json:"args,omitempty"`
	Refs          map[string]string `json:"refs,omitempty"`
	ReadOnly      bool              `json:"readOnly"`
	Summary       string            `json:"summary,omitempty"`
	ExitCode      *int              `json:"exitCode,omitempty"`
	TimedOut      bool              `json:"timedOut,omitempty"`
	Error         *werr.Error       `json:"error,omitempty"`
	CorrelationID string            `json:"correlationId,omitempty"`
	// Image is the file name of the image the call returned (the screenshot the agent
	// saw), next to the trace file.
	Image string `json:"image,omitempty"`
	// Screenshot is the file name of the screen (or page) after the call, next to the
	// trace file (--screenshots).
	Screenshot string `json:"screenshot,omitempty"`
	// Person and By record what a person did (CallEvent.Person), and who.
	Person string `json:"person,omitempty"`
	By     string `json:"by,omitempty"`
	// Truncated marks the last record of a trace that reached its bound.
	Truncated bool `json:"truncated,omitempty"`
	// Approval marks a step of an approval (asked, the decision), no call (approval.go).
	Approval *ApprovalEvent `json:"approval,omitempty"`
}

// Trace bounds: a trace stops recording (with a last "truncated" record) past either.
// (Variables so that a test can lower them.)
var (
	traceMaxRecords       = 5000
	traceMaxBytes   int64 = 64 << 20
)

// TraceOptions start a trace.
type TraceOptions struct {
	Session     string `json:"session"`
	Screenshots bool   `json:"screenshots"`
	// Dir overrides the session's output directory.
	Dir string `json:"dir,omitempty"`
}

// TraceInfo describes a running or finished trace.
type TraceInfo struct {
	Session     string `json:"session"`
	Path        string `json:"path"`
	Records     int    `json:"records"`
	Errors      int    `json:"errors"`
	Bytes       int64  `json:"bytes"`
	Screenshots bool   `json:"screenshots"`
	Truncated   bool   `json:"truncated"`
	// Resource names the stopped trace as a resource of its session (docs/mcp.md#results-as-resources).
	Resource *ResultRef `json:"resource,omitempty"`
}

type tracer struct {
	mu   sync.Mutex
	dir  *safefs.Dir // the trace's directory, opened once: its files are created in it
	f    *os.File
	info TraceInfo
	full bool
}

// close ends the trace's file and directory handle.
func (t *tracer) close() {
	t.f.Close()
	t.dir.Close()
}

type traceSet struct {
	mu sync.Mutex
	// all traces every session into dir (serve --trace DIR).
	all *TraceOptions
	on  map[string]*tracer
}

// SessionsDir holds every session's output directory: $XDG_STATE_HOME/w365/sessions.
func SessionsDir() (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", werr.Wrap(err, werr.Unavailable, "no home directory for the session's output")
		}
		base = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(base, "w365", "sessions"), nil
}

// OutputDir is where a session's files (traces) go: SessionsDir()/ID.
func OutputDir(session string) (string, error) {
	if strings.ContainsAny(session, `/\`) || session == ".." || session == "." || session == "" {
		return "", werr.Invalid("session name %q cannot name a directory", session)
	}
	base, err := SessionsDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, session), nil
}

// StartTrace begins recording a session's calls; a session traced already is an error.
func (h *Host) StartTrace(o TraceOptions) (TraceInfo, error) {
	return h.traces.start(o)
}

func (ts *traceSet) start(o TraceOptions) (TraceInfo, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if o.Session == "" {
		return TraceInfo{}, werr.Invalid("no session to trace")
	}
	if t, ok := ts.on[o.Session]; ok {
		return t.snapshot(), werr.Invalid("session %q is traced already, into %s", o.Session, t.info.Path).WithHint("w365 trace stop ends it")
	}
	dir := o.Dir
	if dir == "" {
		var err error
		if dir, err = OutputDir(o.Session); err != nil {
			return TraceInfo{}, err
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return TraceInfo{}, werr.Wrap(err, werr.Unavailable, "cannot create the trace directory %s", dir)
	}
	// The session's name goes into a file name: only the characters that cannot leave dir.
	safe := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, o.Session)
	// The directory may be one a session writes (a workspace): its files are created
	// through one handle, exclusively, never through a symbolic link (safefs).
	d, err := safefs.Open(dir)
	if err != nil {
		return TraceInfo{}, werr.Wrap(err, werr.Unavailable, "cannot open the trace directory %s", dir)
	}
	name := fmt.Sprintf("trace-%s-%s.jsonl", safe, time.Now().Format("20060102-150405.000"))
	path := filepath.Join(dir, name)
	f, err := d.Create(name, 0o600)
	if err != nil {
		d.Close()
		return TraceInfo{}, werr.Wrap(err, werr.Unavailable, "cannot create the trace file %s", path)
	}
	t := &tracer{dir: d, f: f, info: TraceInfo{Session: o.Session, Path: path, Screenshots: o.Screenshots}}
	t.write(TraceHeader{W365Trace: 1, Session: o.Session, Started: time.Now(), Version: BuildInfo().Version, Screenshots: o.Screenshots})
	if ts.on == nil {
		ts.on = map[string]*tracer{}
	}
	ts.on[o.Session] = t
	return t.snapshot(), nil
}

// StopTrace ends a session's trace and says where it is.
func (h *Host) StopTrace(session string) (TraceInfo, error) {
	ts := &h.traces
	ts.mu.Lock()
	t, ok := ts.on[session]
	delete(ts.on, session)
	ts.mu.Unlock()
	if !ok {
		return TraceInfo{}, werr.New(werr.NotFound, "session %q is not traced", session).WithHint("w365 trace start begins a trace")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	info := t.info
	if s, live := h.sessions.Lookup(session); live {
		info.Resource = refOf(h.addFrom(s, t.dir, filepath.Base(info.Path)))
	}
	t.close()
	return info, nil
}

// stopAll closes every trace (the host is stopping).
func (ts *traceSet) stopAll() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for k, t := range ts.on {
		t.mu.Lock()
		t.close()
		t.mu.Unlock()
		delete(ts.on, k)
	}
}

func (ts *traceSet) get(session string) *tracer {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if t, ok := ts.on[session]; ok {
		return t
	}
	if ts.all != nil && session != "" {
		o := *ts.all
		o.Session = session
		ts.mu.Unlock()
		ts.start(o)
		ts.mu.Lock()
		return ts.on[session]
	}
	return nil
}

func (t *tracer) snapshot() TraceInfo {
	return t.info
}

// write appends one line; false once the trace is full.
func (t *tracer) write(v any) bool {
	b, _ := json.Marshal(v)
	b = append(b, '\n')
	n, _ := t.f.Write(b)
	t.info.Bytes += int64(n)
	return true
}

// record writes the call's record (with the image it returned and, with
// --screenshots, the screen after it) into its session's trace tr.
func (ts *traceSet) record(ctx context.Context, h *Host, tr *tracer, t *tool.Tool, ev CallEvent, started time.Time, res *mcp.CallToolResult) {
	rec := TraceRecord{ID: ev.ID, Time: started, QueuedMs: ev.QueuedMs, DurationMs: ev.DurationMs, Session: ev.Session, Tool: ev.Tool,
		Principal: ev.Principal, Frontend: ev.Frontend, Args: ev.Args, Refs: ev.Refs, ReadOnly: ev.ReadOnly,
		Summary: ev.Summary, ExitCode: ev.ExitCode, TimedOut: ev.TimedOut, Error: ev.Error, CorrelationID: ev.CorrelationID}
	var image []byte
	ext := ".png"
	if res != nil {
		for _, c := range res.Content {
			if im, ok := c.(*mcp.ImageContent); ok {
				image = im.Data
				if im.MIMEType == "image/jpeg" {
					ext = ".jpg"
				}
				break
			}
		}
	}
	var shot []byte
	if tr.info.Screenshots && !ev.ReadOnly && ev.Error == nil {
		shot = h.screenAfter(ctx, t, ev.Session)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.full {
		return
	}
	if tr.info.Records >= traceMaxRecords || tr.info.Bytes+int64(len(image)+len(shot)) >= traceMaxBytes {
		tr.full, tr.info.Truncated = true, true
		tr.write(TraceRecord{Time: time.Now(), Session: ev.Session, Truncated: true,
			Summary: fmt.Sprintf("trace bound reached (%d records or %d MB): later calls are not recorded", traceMaxRecords, traceMaxBytes>>20)})
		return
	}
	rec.Image = tr.writeImage(image, "image"+ext)
	rec.Screenshot = tr.writeImage(shot, "after.png")
	tr.write(rec)
	tr.info.Records++
	if ev.Error != nil {
		tr.info.Errors++
	}
}

// recordApproval writes an approval's step; it counts as no call.
func (t *tracer) recordApproval(ev CallEvent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.full {
		return
	}
	t.write(TraceRecord{ID: ev.ID, Time: ev.Time, Session: ev.Session, Tool: ev.Tool, Principal: ev.Principal,
		Frontend: ev.Frontend, Args: ev.Args, ReadOnly: ev.ReadOnly, Approval: ev.Approval})
}

// writeImage stores an image next to the trace file, named after the record and
// suffix; its name, "" when there is none.
func (t *tracer) writeImage(data []byte, suffix string) string {
	if data == nil {
		return ""
	}
	name := strings.TrimSuffix(filepath.Base(t.info.Path), ".jsonl") + fmt.Sprintf("-%04d-%s", t.info.Records+1, suffix)
	if t.dir.WriteFile(name, data, 0o600, false) != nil {
		return ""
	}
	t.info.Bytes += int64(len(data))
	return name
}

// inSession runs fn in the session's queue, after the call that just ended.
func (h *Host) inSession(ctx context.Context, id string, fn func(env *tool.Env) error) error {
	s, err := h.sessions.Get(ctx, id, false)
	if err != nil {
		return err
	}
	tk := s.Queue.Enter()
	if err := tk.Wait(ctx); err != nil {
		return err
	}
	defer tk.Done()
	return fn(&tool.Env{Session: s, Policy: h.policy, Host: callerHost{h, principal{name: s.Owner, local: s.Owner == session.LocalPrincipal}}})
}

// runTool runs another tool with its defaults on the session (for the trace's own looks).
func runTool(ctx context.Context, env *tool.Env, t *tool.Tool, args map[string]any) (any, error) {
	in, err := t.Prepare(args)
	if err != nil {
		return nil, err
	}
	return t.Run(ctx, env, in)
}

// screenAfter captures the page (browser tools) or the screen after a call, as PNG
// at full size; nil when it cannot.
func (h *Host) screenAfter(ctx context.Context, t *tool.Tool, session string) []byte {
	shot := commands.TakeScreenshot
	if t.Toolset == "browser" || t.Toolset == "snapshot" {
		shot = commands.BrowserScreenshot
	}
	var data []byte
	h.inSession(ctx, session, func(env *tool.Env) error {
		out, err := runTool(ctx, env, shot, map[string]any{})
		if err != nil {
			return err
		}
		if im, ok := out.(tool.ImageOutput); ok && len(im.OutputImages()) > 0 {
			data = im.OutputImages()[0].Data
		}
		return nil
	})
	return data
}
