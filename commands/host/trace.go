package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	xdraw "golang.org/x/image/draw"

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

// TraceRecord is one call in a trace file.
type TraceRecord struct {
	Time       time.Time      `json:"time"`
	DurationMs int64          `json:"durationMs"`
	Session    string         `json:"session"`
	Tool       string         `json:"tool"`
	Principal  string         `json:"principal"`
	Frontend   string         `json:"frontend"`
	Args       map[string]any `json:"args,omitempty"`
	ReadOnly   bool           `json:"readOnly"`
	Summary    string         `json:"summary,omitempty"`
	Error      *werr.Error    `json:"error,omitempty"`
	// Screenshot is the thumbnail's file name, next to the trace file.
	Screenshot string `json:"screenshot,omitempty"`
	// Truncated marks the last record of a trace that reached its bound.
	Truncated bool `json:"truncated,omitempty"`
}

// Trace bounds: a trace stops recording (with a last "truncated" record) past either.
// (Variables so that a test can lower them.)
var (
	traceMaxRecords       = 5000
	traceMaxBytes   int64 = 64 << 20
)

const thumbWidth = 480

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
	Bytes       int64  `json:"bytes"`
	Screenshots bool   `json:"screenshots"`
	Truncated   bool   `json:"truncated"`
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

// OutputDir is where a session's files (traces) go: $XDG_STATE_HOME/w365/sessions/ID.
func OutputDir(session string) (string, error) {
	base := os.Getenv("XDG_STATE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", werr.Wrap(err, werr.Unavailable, "no home directory for the session's output")
		}
		base = filepath.Join(home, ".local", "state")
	}
	if strings.ContainsAny(session, `/\`) || session == ".." || session == "." {
		return "", werr.Invalid("session name %q cannot name a directory", session)
	}
	return filepath.Join(base, "w365", "sessions", session), nil
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
	t.close()
	return t.info, nil
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

// record writes the call's record (and thumbnail) when its session is traced.
func (ts *traceSet) record(ctx context.Context, h *Host, t *tool.Tool, ev CallEvent, started time.Time, res *mcp.CallToolResult) {
	tr := ts.get(ev.Session)
	if tr == nil {
		return
	}
	rec := TraceRecord{Time: started, DurationMs: ev.DurationMs, Session: ev.Session, Tool: ev.Tool,
		Principal: ev.Principal, Frontend: ev.Frontend, Args: ev.Args, ReadOnly: ev.ReadOnly,
		Summary: ev.Summary, Error: ev.Error}
	if typingTool(t.Name) && ev.Error == nil {
		rec.Args = h.unredactTyped(ctx, t, ev)
	}
	var thumb []byte
	if tr.info.Screenshots && !ev.ReadOnly && ev.Error == nil {
		thumb = h.thumbnail(ctx, t, ev.Session)
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if tr.full {
		return
	}
	if tr.info.Records >= traceMaxRecords || tr.info.Bytes+int64(len(thumb)) >= traceMaxBytes {
		tr.full, tr.info.Truncated = true, true
		tr.write(TraceRecord{Time: time.Now(), Session: ev.Session, Truncated: true,
			Summary: fmt.Sprintf("trace bound reached (%d records or %d MB): later calls are not recorded", traceMaxRecords, traceMaxBytes>>20)})
		return
	}
	if thumb != nil {
		name := strings.TrimSuffix(filepath.Base(tr.info.Path), ".jsonl") + fmt.Sprintf("-%04d.png", tr.info.Records+1)
		if tr.dir.WriteFile(name, thumb, 0o600, false) == nil {
			rec.Screenshot = name
			tr.info.Bytes += int64(len(thumb))
		}
	}
	tr.write(rec)
	tr.info.Records++
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

// unredactTyped puts the typed text back into the record unless it went into a
// password field, which the page is asked about: after typing, the field typed into
// has the focus. When the page cannot tell, the text stays redacted.
func (h *Host) unredactTyped(ctx context.Context, t *tool.Tool, ev CallEvent) map[string]any {
	if t.Name != "browser_type" && t.Name != "browser_type_ref" {
		return ev.Args
	}
	text, ok := ev.rawArgs["text"].(string)
	if !ok {
		return ev.Args
	}
	args := make(map[string]any, len(ev.Args))
	for k, v := range ev.Args {
		args[k] = v
	}
	args["text"] = Redacted
	h.inSession(ctx, ev.Session, func(env *tool.Env) error {
		out, err := runTool(ctx, env, commands.BrowserEvalJS, map[string]any{
			"expression": "document.activeElement ? String(document.activeElement.type || document.activeElement.tagName) : ''"})
		if err != nil {
			return err
		}
		if o, ok := out.(commands.EvalOut); ok && o.Value != "" && !strings.EqualFold(o.Value, "password") {
			args["text"] = text
		}
		return nil
	})
	return args
}

// thumbnail captures the page (browser tools) or the screen after a call, scaled to
// thumbWidth and encoded as PNG; nil when it cannot.
func (h *Host) thumbnail(ctx context.Context, t *tool.Tool, session string) []byte {
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
	if data == nil {
		return nil
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	b := src.Bounds()
	w := min(thumbWidth, b.Dx())
	hgt := max(1, b.Dy()*w/max(1, b.Dx()))
	dst := image.NewRGBA(image.Rect(0, 0, w, hgt))
	xdraw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, b, xdraw.Src, nil)
	var buf bytes.Buffer
	if png.Encode(&buf, dst) != nil {
		return nil
	}
	return buf.Bytes()
}
