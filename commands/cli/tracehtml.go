package cli

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/engine/safefs"
	"github.com/w365/w365/engine/werr"
)

// TraceFile is a trace on disk as `trace list` shows it.
type TraceFile struct {
	Session string    `json:"session"`
	Started time.Time `json:"started"`
	Calls   int       `json:"calls"`
	Errors  int       `json:"errors"`
	Path    string    `json:"path"`
}

// ListTraces lists the traces in session's output directory ("": every session's),
// newest first.
func ListTraces(session string) ([]TraceFile, error) {
	dir, err := host.OutputDir(session)
	if session == "" {
		dir, err = host.SessionsDir()
		dir = filepath.Join(dir, "*")
	}
	if err != nil {
		return nil, err
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "trace-*.jsonl"))
	var out []TraceFile
	for _, p := range paths {
		head, recs, err := readTrace(p)
		if err != nil {
			continue
		}
		tf := TraceFile{Session: head.Session, Started: head.Started, Path: p}
		for _, r := range recs {
			if r.Truncated || r.Approval != nil {
				continue
			}
			tf.Calls++
			if r.Error != nil {
				tf.Errors++
			}
		}
		out = append(out, tf)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.After(out[j].Started) })
	return out, nil
}

// readTrace reads a trace file: its header and records. A trace may lie in a directory a
// session writes (trace start --dir in a workspace), so it is opened beneath its directory
// as a regular file only, through no symbolic link (safefs): a FIFO put in its place held
// trace show in open() for good.
func readTrace(in string) (host.TraceHeader, []host.TraceRecord, error) {
	var head host.TraceHeader
	d, err := safefs.Open(filepath.Dir(in))
	if err != nil {
		return head, nil, werr.Wrap(err, werr.NotFound, "cannot open the trace %s: %v", in, err)
	}
	defer d.Close()
	f, err := d.OpenFile(filepath.Base(in))
	if err != nil {
		return head, nil, werr.Wrap(err, werr.NotFound, "cannot open the trace %s: %v", in, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var recs []host.TraceRecord
	for n := 0; sc.Scan(); n++ {
		if n == 0 {
			if json.Unmarshal(sc.Bytes(), &head) != nil || head.W365Trace != 1 {
				return head, nil, werr.Invalid("%s is not a w365 trace", in)
			}
			continue
		}
		var r host.TraceRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return head, nil, werr.Invalid("%s line %d: %v", in, n+1, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		return head, nil, werr.Wrap(err, werr.InvalidArgument, "cannot read %s: %v", in, err)
	}
	return head, recs, nil
}

// TraceHTML writes the trace file in as one self-contained HTML report at out: the
// calls on a timeline, numbered as watch numbers them, each with its queued and run
// time, arguments and refs, result or error card (hint, details, correlation id), the
// image it returned and the screenshot after it inline (data: URLs, click for full
// size), and an errors-only view, so the file opens anywhere without the trace.
func TraceHTML(in, out string) error {
	head, recs, err := readTrace(in)
	if err != nil {
		return err
	}
	type row struct {
		host.TraceRecord
		N                int
		Offset, Duration string
		Queued           string
		Left, Width      float64
		Args, Details    string
		Refs             []string
		Status           string
		Image, Shot      template.URL
	}
	var rows []row
	var first, last time.Time
	for _, r := range recs {
		if r.Truncated {
			continue
		}
		if first.IsZero() || r.Time.Before(first) {
			first = r.Time
		}
		if end := r.Time.Add(time.Duration(r.QueuedMs+r.DurationMs) * time.Millisecond); end.After(last) {
			last = end
		}
	}
	span := max(last.Sub(first), time.Millisecond)
	truncated, errors, calls := false, 0, 0
	for i, r := range recs {
		if r.Truncated {
			truncated = true
			continue
		}
		if r.Approval == nil {
			calls++
		}
		ms := func(n int64) time.Duration { return time.Duration(n) * time.Millisecond }
		x := row{TraceRecord: r, N: int(r.ID),
			Offset:   "+" + r.Time.Sub(first).Round(time.Millisecond).String(),
			Duration: ms(r.DurationMs).String(),
			Left:     100 * float64(r.Time.Add(ms(r.QueuedMs)).Sub(first)) / float64(span),
			Width:    max(0.3, 100*float64(ms(r.DurationMs))/float64(span)),
			Status:   "ok",
		}
		if x.N == 0 {
			x.N = i + 1
		}
		if r.QueuedMs >= queuedShownMs {
			x.Queued = ms(r.QueuedMs).String()
		}
		if len(r.Args) > 0 {
			b, _ := json.MarshalIndent(r.Args, "", "  ")
			x.Args = string(b)
		}
		for ref, d := range r.Refs {
			x.Refs = append(x.Refs, ref+" "+d)
		}
		sort.Strings(x.Refs)
		switch {
		case r.Person != "":
			// What a person did (or what became of a hand-over), and who.
			x.Tool, x.Status, x.Frontend, x.Principal = "person", strings.ReplaceAll(r.Person, "-", " "), r.By, "person"
		case r.Error != nil:
			errors++
			x.Status = string(r.Error.Code)
			if len(r.Error.Details) > 0 {
				b, _ := json.MarshalIndent(r.Error.Details, "", "  ")
				x.Details = string(b)
			}
		case r.TimedOut:
			x.Status = "timed out"
		case r.ExitCode != nil && *r.ExitCode != 0:
			x.Status = fmt.Sprintf("exit %d", *r.ExitCode)
		}
		if r.Approval != nil {
			x.Status = ApprovalWord(r.Approval.Decision)
		}
		x.Image = inlineImage(in, r.Image)
		x.Shot = inlineImage(in, r.Screenshot)
		rows = append(rows, x)
	}
	var buf bytes.Buffer
	err = reportTemplate().Execute(&buf, map[string]any{
		"Head": head, "Rows": rows, "Span": span.Round(time.Millisecond).String(), "Truncated": truncated,
		"Started": head.Started.Local().Format(time.DateTime), "Errors": errors, "Calls": calls,
	})
	if err != nil {
		return werr.Wrap(err, werr.Internal, "cannot render the report")
	}
	return writeFile(out, buf.Bytes(), 0o600)
}

// maxInlineImage bounds one image the report inlines.
const maxInlineImage = 64 << 20

// inlineImage is the image file name (next to the trace in) as a data: URL; "" when
// there is none. A trace names only regular files next to itself: a name with a directory
// in it, a symbolic link and a FIFO are refused (safefs), since a trace may lie in a
// directory a session writes.
func inlineImage(in, name string) template.URL {
	if name == "" || filepath.Base(name) != name {
		return ""
	}
	d, err := safefs.Open(filepath.Dir(in))
	if err != nil {
		return ""
	}
	defer d.Close()
	b, err := d.ReadFile(name, maxInlineImage)
	if err != nil {
		return ""
	}
	mime := "image/png"
	if strings.HasSuffix(name, ".jpg") {
		mime = "image/jpeg"
	}
	return template.URL("data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(b))
}

// reportTemplate is parsed on first use: `trace show --html` alone needs it.
var reportTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("trace").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>w365 trace: session {{.Head.Session}}</title>
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}
h1{font-size:20px;margin:0 0 4px} .meta{color:#666;margin-bottom:16px}
.call{display:grid;grid-template-columns:50px 110px 1fr 260px;gap:12px;background:#fff;border:1px solid #ddd;border-radius:6px;padding:10px;margin:8px 0}
.call.err{border-color:#d33;background:#fff6f6}
.n{font-weight:600;color:#444;font-variant-numeric:tabular-nums}
.t{color:#666;font-variant-numeric:tabular-nums}
.q{color:#a60}
.tool{font-weight:600;font-family:ui-monospace,monospace}
.who{color:#666;font-size:12px}
.bar{position:relative;height:6px;background:#eee;border-radius:3px;margin:6px 0}
.bar span{position:absolute;top:0;height:6px;background:#4a7;border-radius:3px}
.err .bar span{background:#d33}
pre{margin:4px 0;white-space:pre-wrap;word-break:break-all;font-size:12px;background:#f4f4f4;padding:4px 6px;border-radius:4px}
.status{font-family:ui-monospace,monospace}
.error{border-left:4px solid #d33;padding:4px 8px;margin:4px 0;background:#fff}
.error .code{color:#b00;font-weight:600}
.hint{color:#333} .cid{color:#666;font-size:12px;font-family:ui-monospace,monospace}
img.thumb{width:240px;border:1px solid #ccc;border-radius:4px;display:block;cursor:zoom-in;margin-bottom:6px}
.cap{color:#666;font-size:12px}
#full{position:fixed;inset:0;background:rgba(0,0,0,.85);overflow:auto;cursor:zoom-out;z-index:9}
#full img{display:block;margin:16px auto;max-width:none}
body.errors-only .call:not(.err){display:none}
.approval{background:#fffbe8;border:1px solid #e5c100;border-radius:6px;padding:6px 10px;margin:8px 0 8px 62px}
</style></head><body>
<h1>w365 trace: session {{.Head.Session}}</h1>
<div class="meta">started {{.Started}} · <span id="count">{{.Calls}} calls, {{.Errors}} errors</span> over {{.Span}} · w365 {{.Head.Version}}{{if .Truncated}} · <b>truncated: the trace reached its bound</b>{{end}}
 · <label><input type="checkbox" id="errors-only"> errors only</label></div>
{{range .Rows}}{{if .Approval}}<div class="approval" id="approval-{{.N}}-{{.Approval.Decision}}"><span class="t">{{.Offset}}</span>
#{{.N}} <span class="tool">{{.Tool}}</span> {{.Status}} · rule <b>{{.Approval.Rule}}</b>{{if .Approval.Asked}} · asks {{range $i, $a := .Approval.Asked}}{{if $i}}, {{end}}{{$a}}{{end}}{{end}}{{if .Approval.By}} · by {{.Approval.By}}{{if .Approval.ByPrincipal}} ({{.Approval.ByPrincipal}}){{end}}{{end}}
{{if .Args}}<pre>{{.Args}}</pre>{{end}}</div>
{{else}}<div class="call{{if .Error}} err{{end}}" id="call-{{.N}}">
<div class="n">#{{.N}}</div>
<div class="t">{{.Offset}}<br>{{.Duration}}{{if .Queued}}<br><span class="q">queued {{.Queued}}</span>{{end}}</div>
<div><span class="tool">{{.Tool}}</span> <span class="status">{{.Status}}</span> <span class="who">{{.Frontend}} · {{.Principal}}</span>
<div class="bar"><span style="left:{{printf "%.2f" .Left}}%;width:{{printf "%.2f" .Width}}%"></span></div>
{{if .Args}}<pre>{{.Args}}</pre>{{end}}
{{range .Refs}}<div class="ref">ref {{.}}</div>{{end}}
{{if .Error}}<div class="error"><div><span class="code">{{.Error.Code}}</span>: {{.Error.Message}}</div>
{{if .Error.Hint}}<div class="hint">hint: {{.Error.Hint}}</div>{{end}}
{{if .Details}}<pre class="details">{{.Details}}</pre>{{end}}
{{if .CorrelationID}}<div class="cid">correlation id {{.CorrelationID}} (in host.log)</div>{{end}}</div>
{{else if .Summary}}<pre>{{.Summary}}</pre>{{end}}</div>
<div>{{if .Image}}<img class="thumb" alt="returned by #{{.N}} {{.Tool}}" src="{{.Image}}"><div class="cap">what the call returned</div>{{end}}
{{if .Shot}}<img class="thumb" alt="after #{{.N}} {{.Tool}}" src="{{.Shot}}"><div class="cap">after the call</div>{{end}}</div>
</div>
{{end}}{{end}}<div id="full" hidden><img alt="full size"></div>
<script>
const only = document.getElementById('errors-only');
const apply = () => document.body.classList.toggle('errors-only', only.checked);
only.addEventListener('change', apply);
const fromHash = () => { only.checked = location.hash === '#errors'; apply(); };
addEventListener('hashchange', fromHash);
fromHash();
const full = document.getElementById('full');
for (const im of document.querySelectorAll('img.thumb')) im.addEventListener('click', () => { full.firstChild.src = im.src; full.hidden = false; });
full.addEventListener('click', () => { full.hidden = true; });
</script>
</body></html>
`))
})
