//go:build linux

package e2e_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// hostileCodes are the stable codes a refusal may carry (engine/werr); INTERNAL is not
// among them: bad input is the caller's error, never the server's.
var hostileCodes = []werr.Code{
	werr.InvalidArgument, werr.NotFound, werr.Timeout, werr.SnapshotExpired, werr.BlockedByPolicy,
	werr.Failsafe, werr.SessionExpired, werr.Unavailable, werr.Unsupported, werr.ProtectedProcess,
	werr.StaleProcess, werr.BrowserCrashed, werr.Obscured, werr.DialogPending, werr.Cancelled,
	werr.ResourceExhausted, werr.ApprovalRequired,
}

// goLeak matches what a message shows only when Go's internals speak instead of the tool:
// formatting verbs gone wrong, panics, reflection and encoding/json's own words and types.
var goLeak = regexp.MustCompile(`reflect|%!|runtime error|nil pointer|goroutine|<nil>|invalid memory|` +
	`json: |Go struct field|Go value|\bfloat64\b|\bu?int(8|16|32|64)?\b of type|of type u?int|interface \{\}|map\[string\]|panic`)

// tooDeep names the values that nest deeper than a message may.
var tooDeep = regexp.MustCompile(`nested 5,000 deep`)

// hostileProperty is the part of a property's schema the sweep derives values from.
type hostileProperty struct {
	Type      string           `json:"type"`
	Enum      []any            `json:"enum"`
	Minimum   *float64         `json:"minimum"`
	Maximum   *float64         `json:"maximum"`
	MinLength *int             `json:"minLength"`
	MaxItems  *int             `json:"maxItems"`
	Items     *hostileProperty `json:"items"`
	// Props and Required are an object's: the items of a list of objects are swept too.
	Props    map[string]hostileProperty `json:"properties"`
	Required []string                   `json:"required"`
}

// hostileValue is one argument value with the words a failure report names it by.
type hostileValue struct {
	what  string
	value any
}

// raw is JSON sent as written: numbers Go's float64 cannot hold, escapes json.Marshal never writes.
// maxRefusal bounds a refusal's text: a message quotes at most 1,000 bytes of a value
// (docs/mcp.md), so a longer one echoes a hostile megabyte back to the client.
const maxRefusal = 16 << 10

func raw(s string) json.RawMessage { return json.RawMessage(s) }

// nested is a list nested n deep around 1.
func nested(n int) json.RawMessage {
	return raw(strings.Repeat("[", n) + "1" + strings.Repeat("]", n))
}

// Every tool, handed arguments derived from its own schema by someone who means harm (each
// property of the wrong JSON type, numbers at and past its bounds and past what a machine word
// holds, huge, empty, control-character and broken-UTF-16 strings, paths to secrets, a FIFO and
// /proc/self/mem, javascript:, file: and 10 MB data: URLs, deep and huge lists and objects,
// unknown properties), answers each within a minute with a success or a refusal that carries a
// stable code other than INTERNAL and a message in the tool's words, never Go's; and after each
// tool the server still answers and the session is still there.
func TestHostileArgumentsGetCodedRefusals(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium", "Xvfb", "tesseract", "bwrap")
	h := e2e.New(t)
	home := h.FakeHome()
	for _, d := range []string{"Downloads", "Documents"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(home, "Downloads", "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	same, _ := snapPages(t)
	page := same + "/contract.html"
	// A selector or text that matches nothing waits the policy's browser wait: 300 ms here
	// instead of 5 s, so that the sweep's time goes to its calls, not to those waits.
	pol := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(pol, []byte(`{"browserWaitDefaultMs": 300}`), 0o600); err != nil {
		t.Fatal(err)
	}
	cs, relay := h.MCPServer(nil, "", "--toolsets", "all", "--policy", pol)
	start := time.Now()

	// call is one call with the hang detector's bound. A call that did not end stops the
	// host and fails the test, saying where the host waited (e2e.HangReport).
	call := func(name string, args any) (*mcp.CallToolResult, error) {
		return h.CallWithin(cs, relay, 60*time.Second, name, args)
	}
	alive := func(after string) {
		t.Helper()
		r, err := call("get_screen_size", nil)
		if err != nil || r.IsError {
			t.Fatalf("after %s the server no longer answers get_screen_size: %v %s%s", after, err, textOf(r), hangReport(err))
		}
		r, err = call("list_sessions", nil)
		if err != nil || r.IsError || !strings.Contains(fmt.Sprint(r.StructuredContent), "default") {
			t.Fatalf("after %s the default session is gone: %v %s%s", after, err, textOf(r), hangReport(err))
		}
	}
	// fresh opens the page again and snapshots it, for the browser tools' refs.
	var snapID, ref string
	fresh := func() {
		t.Helper()
		// A dialog a hostile call opened.
		if _, err := call("browser_handle_dialog", map[string]any{"action": "dismiss"}); hangReport(err) != "" {
			t.Fatalf("browser_handle_dialog %v%s", err, hangReport(err))
		}
		if r, err := call("browser_navigate", map[string]any{"url": page}); err != nil || r.IsError {
			t.Fatalf("the browser no longer opens the loopback page: %v %s%s", err, textOf(r), hangReport(err))
		}
		var text string
		snapID, text = snapshotOver(t, cs, map[string]any{})
		ref = snapRef(t, text, `textbox "Name"`)
	}
	fresh()

	tools := toolsLastly(t, cs)
	if len(tools) < 60 {
		t.Fatalf("only %d tools listed", len(tools))
	}

	strs := hostileStrings(fifo)
	calls, problems := 0, 0
	for _, tl := range tools {
		var s struct {
			Properties map[string]hostileProperty `json:"properties"`
			Required   []string                   `json:"required"`
		}
		b, _ := json.Marshal(tl.InputSchema)
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatalf("%s: schema %s: %v", tl.Name, b, err)
		}
		browser := strings.HasPrefix(tl.Name, "browser_")
		if browser {
			fresh()
		}
		// base is a call that gets past the checks of every parameter but the one varied, so
		// that a hostile value reaches the code behind them.
		base := map[string]any{}
		for _, name := range s.Required {
			base[name] = plausible(name, s.Properties[name], page, snapID, ref)
		}
		// and that waits for nothing long (the sweep's time goes to many calls, not to waits),
		// but lets a sandboxed program start.
		for name, p := range s.Properties {
			if strings.HasPrefix(strings.ToLower(name), "timeout") && p.Type == "integer" {
				base[name] = max(1, ptrOr(p.Minimum))
				if strings.HasPrefix(tl.Name, "execute_") {
					base[name] = 5000
				}
			}
		}
		cases := []hostileValue{{"no arguments", map[string]any{}}}
		with := func(k string, v any) map[string]any {
			m := map[string]any{}
			for bk, bv := range base {
				m[bk] = bv
			}
			m[k] = v
			return m
		}
		cases = append(cases,
			hostileValue{"an unknown property", with("__proto__", map[string]any{"polluted": true})},
			hostileValue{"an unknown property holding 100,000 keys", with("zzExtra", hugeObject(100000))},
			hostileValue{"arguments that are a list", []any{1, 2}},
			hostileValue{"arguments that are a string", "x"},
		)
		for _, name := range slices.Sorted(maps.Keys(s.Properties)) {
			p := s.Properties[name]
			if (name == "sessionId" || name == "browserSessionId") && !slices.Contains(s.Required, name) && tl.Name != "get_screen_size" && tl.Name != "browser_get_url" {
				continue // the host reads these for every tool alike: swept on one tool of each kind
			}
			for _, v := range hostileValues(name, p, strs) {
				cases = append(cases, hostileValue{fmt.Sprintf("%s = %s", name, v.what), with(name, v.value)})
			}
			// One item of a list of objects, each of its properties hostile in turn.
			if it := p.Items; p.Type == "array" && it != nil && it.Type == "object" {
				item := map[string]any{}
				for _, in := range it.Required {
					item[in] = plausible(in, it.Props[in], page, snapID, ref)
				}
				for _, in := range slices.Sorted(maps.Keys(it.Props)) {
					for _, v := range hostileValues(in, it.Props[in], strs) {
						one := maps.Clone(item)
						one[in] = v.value
						cases = append(cases, hostileValue{fmt.Sprintf("%s[0].%s = %s", name, in, v.what), with(name, []any{one})})
					}
				}
			}
		}
		toolStart := time.Now()
		stopPerson := func() {}
		if tl.Name == "hand_over_to_person" {
			stopPerson = handBackAtOnce(h)
		}
		for _, c := range cases {
			calls++
			began := time.Now()
			r, err := call(tl.Name, c.value)
			var rpcErr *jsonrpc.Error
			var hung *e2e.HungError
			took := time.Since(began)
			bad := ""
			switch {
			case errors.As(err, &hung):
				t.Fatalf("%s with %s %s; the host was stopped to say where it waited:\n%s", tl.Name, c.what, hung, hung.Report)
			case errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc.CodeInvalidRequest && tooDeep.MatchString(c.what) &&
				strings.Contains(rpcErr.Message, "nest deeper than 1000 levels"):
				// The SDK decodes no deeper: the message is refused before any tool sees it.
			case err != nil:
				bad = "failed as a protocol error, not a tool result: " + err.Error()
				if goLeak.MatchString(err.Error()) {
					bad += " (and leaks Go's words)"
				}
			case r.IsError:
				text := textOf(r)
				code, msg, _ := strings.Cut(text, ": ")
				if !slices.Contains(hostileCodes, werr.Code(code)) {
					bad = "refused without a stable code other than INTERNAL: " + text
				} else if m := goLeak.FindString(msg); m != "" {
					bad = fmt.Sprintf("leaks Go internals (%q): %s", m, text)
				} else if len(text) > maxRefusal {
					bad = fmt.Sprintf("a refusal of %d bytes quotes the input whole", len(text))
				}
			}
			if bad != "" {
				problems++
				t.Errorf("%s with %s (%s): %.600s", tl.Name, c.what, took.Round(time.Millisecond), bad)
			}
		}
		stopPerson()
		alive(tl.Name)
		t.Logf("%s: %d calls in %s", tl.Name, len(cases), time.Since(toolStart).Round(time.Millisecond))
	}
	t.Logf("%d calls of %d tools in %s, %d problems", calls, len(tools), time.Since(start).Round(time.Second), problems)
	// The session's browser, which no hostile id closed, still opens a page after all of it.
	fresh()
}

// ptrOr is *f, or 0 for nil.
func ptrOr(f *float64) float64 {
	if f == nil {
		return 0
	}
	return *f
}

// handBackAtOnce plays the person who hands the agent's session (default-agent) back as soon
// as a hand-over opens, until the returned stop is called (a hand-over otherwise holds the
// session for minutes).
func handBackAtOnce(h *e2e.Harness) (stop func()) {
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		for {
			select {
			case <-done:
				return
			case <-time.After(200 * time.Millisecond):
			}
			cmd := exec.Command(h.Bin, "--session", "default-agent", "handback")
			cmd.Env = h.Env
			cmd.Run()
		}
	}()
	return func() { close(done); <-ended }
}

// hangReport is where a call that did not end waited (after a newline), "" for any other err.
func hangReport(err error) string {
	var hung *e2e.HungError
	if errors.As(err, &hung) {
		return "\n" + hung.Report
	}
	return ""
}

func textOf(r *mcp.CallToolResult) string {
	if r == nil {
		return ""
	}
	return e2e.Text(r)
}

func hugeObject(n int) map[string]any {
	m := make(map[string]any, n)
	for i := range n {
		m[fmt.Sprintf("k%d", i)] = i
	}
	return m
}

// plausible is a value of a required parameter that its checks let through.
func plausible(name string, p hostileProperty, page, snapID, ref string) any {
	if len(p.Enum) > 0 {
		return p.Enum[0]
	}
	switch p.Type {
	case "integer", "number":
		if p.Minimum != nil && *p.Minimum > 1 {
			return *p.Minimum
		}
		if regexp.MustCompile(`^(start|end)?[XxYy]$`).MatchString(name) {
			return 300 // away from the corners' fail-safe
		}
		return 1
	case "boolean":
		return false
	case "array":
		return []any{}
	case "object":
		return map[string]any{}
	}
	switch lower := strings.ToLower(name); {
	case strings.Contains(lower, "url"):
		return page
	case name == "snapshotId":
		return snapID
	case name == "ref":
		return ref
	case strings.Contains(lower, "selector") || name == "target" || name == "element":
		return "#name"
	case name == "command":
		return "echo hostile-sweep"
	case name == "code":
		return "1" // Python and JavaScript alike
	}
	return "hostile-sweep"
}

// hostileStrings are the strings every string parameter is given.
func hostileStrings(fifo string) []hostileValue {
	mb := strings.Repeat("A", 1<<20)
	return []hostileValue{
		{"an empty string", ""},
		{"a 1 MB string", mb},
		{"NUL and control characters", "a\x00b\x01\x07\x1b[31m\r\n\tc\x7f"},
		{"broken UTF-16 escapes", raw(`"\ud800x\udfff\ud83d"`)},
		{"a U+FFFF and RTL override", "\uffff\u202egnp.exe"},
		{"a path out of the tree", "../../etc/shadow"},
		{"/proc/self/mem", "/proc/self/mem"},
		{"a FIFO", fifo},
		{"a Windows device path", `\\?\C:`},
		{"a javascript: URL", "javascript:alert(document.cookie)"},
		{"a file: URL", "file:///etc/passwd"},
		{"format verbs", "%s%d%n%v%%"},
	}
}

// hostileValues are the values one parameter is given, from its schema.
func hostileValues(name string, p hostileProperty, strs []hostileValue) []hostileValue {
	vals := []hostileValue{{"null", nil}}
	if p.Type != "string" {
		vals = append(vals, hostileValue{"a string", "12"})
	}
	if p.Type != "integer" && p.Type != "number" {
		vals = append(vals, hostileValue{"a number", 7})
	}
	if p.Type != "boolean" {
		vals = append(vals, hostileValue{"true", true})
	}
	if p.Type != "array" {
		vals = append(vals, hostileValue{"a list", []any{"x"}})
	}
	if p.Type != "object" {
		vals = append(vals, hostileValue{"an object", map[string]any{"x": 1}})
	}
	switch p.Type {
	case "integer", "number":
		nums := []hostileValue{
			{"-1", -1}, {"0", 0}, {"-0", raw("-0")}, {"0.5", 0.5}, {"-1.5", -1.5},
			{"2^31", 1 << 31}, {"2^32", 1 << 32}, {"2^53+1", raw("9007199254740993")},
			{"2^64", raw("18446744073709551616")}, {"1e308", 1e308}, {"-1e308", -1e308},
			{"1e400", raw("1e400")}, {"-2^63", raw("-9223372036854775808")},
		}
		if p.Minimum != nil {
			nums = append(nums, hostileValue{"its minimum", *p.Minimum}, hostileValue{"below its minimum", *p.Minimum - 1})
		}
		if p.Maximum != nil {
			nums = append(nums, hostileValue{"above its maximum", *p.Maximum + 1}, hostileValue{"far above its maximum", *p.Maximum * 1e6})
			// Its maximum itself is a long wait for a timeout, which is no hang.
			if !regexp.MustCompile(`(?i)ms$|timeout|seconds|time$`).MatchString(name) {
				nums = append(nums, hostileValue{"its maximum", *p.Maximum})
			}
		}
		vals = append(vals, nums...)
	case "string":
		vals = append(vals, strs...)
		// What a URL takes, only where one is asked for: 10 MB on the wire for every string
		// parameter was a third of the sweep's time.
		if strings.Contains(strings.ToLower(name), "url") {
			vals = append(vals, hostileValue{"a 10 MB data: URL", "data:text/html;base64," + strings.Repeat("QUFB", 10<<20/4)})
		}
		if len(p.Enum) > 0 {
			vals = append(vals, hostileValue{"a value not in its enum", "NOT-AN-ENUM-VALUE"})
		}
	case "array":
		var item any = "x"
		if p.Items != nil {
			switch p.Items.Type {
			case "integer", "number":
				item = 1
			case "object":
				item = map[string]any{}
			}
		}
		huge := make([]any, 100000)
		for i := range huge {
			huge[i] = item
		}
		vals = append(vals,
			hostileValue{"an empty list", []any{}},
			hostileValue{"a list of 100,000 items", huge},
			hostileValue{"a list nested 5,000 deep", nested(5000)},
			hostileValue{"a list of nulls", []any{nil, nil}},
			hostileValue{"a list of lists", []any{[]any{"x"}}},
			hostileValue{"a list of objects", []any{map[string]any{"path": "/proc/self/mem", "name": "../../x"}}},
			hostileValue{"a list of hostile strings", []any{"../../etc/shadow", "/proc/self/mem", "", "a\x00b", raw(`"\ud800"`)}},
			hostileValue{"a list of numbers", []any{-1, 1e308, raw("9007199254740993"), 0.5}},
		)
		if p.Items != nil && p.Items.Type == "object" {
			vals = append(vals, hostileValue{"a list of objects with wrong types", []any{map[string]any{"name": 5, "mimeType": []any{}, "buffer": true, "path": 1}}})
		}
	case "object":
		vals = append(vals,
			hostileValue{"an empty object", map[string]any{}},
			hostileValue{"an object of 100,000 keys", hugeObject(100000)},
			hostileValue{"an object nested 5,000 deep", raw(strings.Repeat(`{"a":`, 5000) + "1" + strings.Repeat("}", 5000))},
		)
	case "boolean":
		vals = append(vals, hostileValue{"the string \"true\"", "true"}, hostileValue{"1", 1})
	}
	return vals
}
