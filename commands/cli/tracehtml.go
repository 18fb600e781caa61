package cli

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"os"
	"path/filepath"
	"time"

	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/engine/werr"
)

// TraceHTML writes the trace file in as one self-contained HTML report at out: the
// calls on a timeline, each with its duration bar, arguments, result or error, and
// its thumbnail inline (a data: URL), so the file opens anywhere without the trace.
func TraceHTML(in, out string) error {
	f, err := os.Open(in)
	if err != nil {
		return werr.Wrap(err, werr.NotFound, "cannot open the trace %s: %v", in, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var head host.TraceHeader
	var recs []host.TraceRecord
	for n := 0; sc.Scan(); n++ {
		if n == 0 {
			if json.Unmarshal(sc.Bytes(), &head) != nil || head.W365Trace != 1 {
				return werr.Invalid("%s is not a w365 trace", in)
			}
			continue
		}
		var r host.TraceRecord
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return werr.Invalid("%s line %d: %v", in, n+1, err)
		}
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		return werr.Wrap(err, werr.InvalidArgument, "cannot read %s: %v", in, err)
	}
	type row struct {
		host.TraceRecord
		Offset, Duration string
		Left, Width      float64
		Args             string
		Thumb            template.URL
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
		if end := r.Time.Add(time.Duration(r.DurationMs) * time.Millisecond); end.After(last) {
			last = end
		}
	}
	span := max(last.Sub(first), time.Millisecond)
	truncated := false
	for _, r := range recs {
		if r.Truncated {
			truncated = true
			continue
		}
		x := row{TraceRecord: r,
			Offset:   "+" + r.Time.Sub(first).Round(time.Millisecond).String(),
			Duration: (time.Duration(r.DurationMs) * time.Millisecond).String(),
			Left:     100 * float64(r.Time.Sub(first)) / float64(span),
			Width:    max(0.3, 100*float64(time.Duration(r.DurationMs)*time.Millisecond)/float64(span)),
		}
		if len(r.Args) > 0 {
			b, _ := json.MarshalIndent(r.Args, "", "  ")
			x.Args = string(b)
		}
		if r.Screenshot != "" && filepath.Base(r.Screenshot) == r.Screenshot {
			if b, err := os.ReadFile(filepath.Join(filepath.Dir(in), r.Screenshot)); err == nil {
				x.Thumb = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b))
			}
		}
		rows = append(rows, x)
	}
	var buf bytes.Buffer
	err = reportTemplate.Execute(&buf, map[string]any{
		"Head": head, "Rows": rows, "Span": span.Round(time.Millisecond).String(), "Truncated": truncated,
		"Started": head.Started.Local().Format(time.DateTime),
	})
	if err != nil {
		return werr.Wrap(err, werr.Internal, "cannot render the report")
	}
	return writeFile(out, buf.Bytes(), 0o600)
}

var reportTemplate = template.Must(template.New("trace").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>w365 trace: session {{.Head.Session}}</title>
<style>
body{font:14px system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}
h1{font-size:20px;margin:0 0 4px} .meta{color:#666;margin-bottom:16px}
.call{display:grid;grid-template-columns:90px 1fr 250px;gap:12px;background:#fff;border:1px solid #ddd;border-radius:6px;padding:10px;margin:8px 0}
.call.err{border-color:#d33}
.t{color:#666;font-variant-numeric:tabular-nums}
.tool{font-weight:600;font-family:ui-monospace,monospace}
.who{color:#666;font-size:12px}
.bar{position:relative;height:6px;background:#eee;border-radius:3px;margin:6px 0}
.bar span{position:absolute;top:0;height:6px;background:#4a7;border-radius:3px}
.err .bar span{background:#d33}
pre{margin:4px 0;white-space:pre-wrap;word-break:break-all;font-size:12px;background:#f4f4f4;padding:4px 6px;border-radius:4px}
.error{color:#b00}
img.thumb{width:240px;border:1px solid #ccc;border-radius:4px;display:block}
</style></head><body>
<h1>w365 trace: session {{.Head.Session}}</h1>
<div class="meta">started {{.Started}} · {{len .Rows}} calls over {{.Span}} · w365 {{.Head.Version}}{{if .Truncated}} · <b>truncated: the trace reached its bound</b>{{end}}</div>
{{range .Rows}}<div class="call{{if .Error}} err{{end}}">
<div class="t">{{.Offset}}<br>{{.Duration}}</div>
<div><span class="tool">{{.Tool}}</span> <span class="who">{{.Frontend}} · {{.Principal}}</span>
<div class="bar"><span style="left:{{printf "%.2f" .Left}}%;width:{{printf "%.2f" .Width}}%"></span></div>
{{if .Args}}<pre>{{.Args}}</pre>{{end}}
{{if .Error}}<div class="error">{{.Error.Code}}: {{.Error.Message}}</div>{{else if .Summary}}<pre>{{.Summary}}</pre>{{end}}</div>
<div>{{if .Thumb}}<img class="thumb" alt="after {{.Tool}}" src="{{.Thumb}}">{{end}}</div>
</div>
{{end}}</body></html>
`))
