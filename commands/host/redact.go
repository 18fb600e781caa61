package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/w365/w365/commands"
	"github.com/w365/w365/commands/tool"
)

// The one redaction rule of every record of a call: watch, the trace and host.log
// (docs/security.md, "What records keep").
//
//   - Credentials by argument name (API keys, tokens, passwords, cookies' values) are
//     always [REDACTED]; those a URL carries (urlSecrets) show by their length wherever
//     they stand.
//   - Typed text (what the type tools, browser_fill_form and execute_batch's type_ref
//     steps type, a key press's character, the answer to a page's prompt) shows only its
//     length while the call runs.
//   - Code is shown by its length only, always: what it types may come from anywhere in
//     it (a variable, a computed string) and leave the page with the form, where nobody
//     can look for it afterwards. Its string literals are hidden in the summary and the
//     error (codeStrings).
//   - When a browser call has succeeded, the host asks the page which values its password
//     fields hold, which cookies its script reads, whether the focus is in a password
//     field, and which of the call's typed texts its other fields show. Typed text is shown
//     again only where the page shows it in a field that is no password field, and in no
//     password field: a call that took the field away (it submitted the form) leaves
//     nothing to look at, and its text stays hidden. Every password value and every cookie (its
//     name=value, and a value of cookieValueMin characters or more alone) is shown by its
//     length wherever it stands in the record (any argument, the summary, the error). Without an answer from the page the text stays
//     hidden, and so does all typed text when the policy's recordTypedText is false, and
//     desktop type_text's (no page can tell where it went).
//   - Whatever was hidden in the arguments is hidden in the summary and the error too.
//   - The clipboard's text shows only its length, always: clipboard_write's, and
//     clipboard_read's summary; so does the character a press_keys chord types, and its
//     summary (recordedSummary).

// Redacted stands where a secret was.
const Redacted = "[REDACTED]"

// secretKey matches argument names that hold credentials; compiled on first use, not at
// every one-shot command's start.
var secretKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(api[_-]?key|token|secret|password|passwd|authorization|cookie)`)
})

// asksPage says whether the record of a call is made again when it ends, with what the
// page says then: after every browser tool (any of them may return what a password field
// holds, or carry it as an argument: browser_evaluate's function, browser_wait_for's
// text) and desktop type_text (whose text stays hidden: no page can tell where it went).
func asksPage(name string) bool {
	return name == "type_text" || strings.HasPrefix(name, "browser_")
}

// pageState is what the page said after a call: the values of its password fields,
// the cookies its script reads, whether the focus is in a password field, and the values
// of its other fields. nil: the page did not answer.
type pageState struct {
	Focus     string   `json:"focus"`
	Passwords []string `json:"pw"`
	// Cookies are the page's cookies as document.cookie gives them (name=value).
	Cookies []string `json:"ck"`
	// Plain are the values of its text fields, text areas and editable elements (no
	// password field), each cut at plainFieldChars, the first plainFields of them.
	Plain []string `json:"plain"`
}

// cookieValueMin is the shortest cookie value the records hide wherever it stands, not
// only after its name: a session id is longer, and hiding "1" or "en" everywhere would
// leave the records unreadable.
const cookieValueMin = 8

// secrets are the strings no record shows: the password values, the cookies (name=value)
// and the cookie values of cookieValueMin characters or more.
func (p *pageState) secrets() []string {
	out := append(slices.Clone(p.Passwords), p.Cookies...)
	for _, c := range p.Cookies {
		if _, v, _ := strings.Cut(c, "="); len([]rune(v)) >= cookieValueMin {
			out = append(out, v)
		}
	}
	return out
}

// secret says whether typed text s stays hidden: shown is only what the page shows in a
// field that is no password field, while no password field holds it (typed a character
// at a time, or after what was there) and the focus is in none. A field the call took
// away (a submitted form) shows nothing, so what went into it stays hidden.
func (p *pageState) secret(s string) bool {
	in := func(vals []string) bool {
		return slices.ContainsFunc(vals, func(v string) bool { return strings.Contains(v, s) })
	}
	return p == nil || strings.EqualFold(p.Focus, "password") || !in(p.Plain) || in(p.Passwords)
}

// plainFields and plainFieldChars bound what the page answers of its other fields: text
// typed past them (a long text, a field past the first plainFields) stays hidden.
const (
	plainFields     = 256
	plainFieldChars = 4096
)

// pageFieldsJS collects the values of the password fields and the cookies of the page
// (its same-origin frames included), the focused element's type, and the values of its other
// fields (plainFields of them, each cut at plainFieldChars). The call's typed texts are
// compared with them in the host, never handed to the page: its script could read what
// the call typed into another origin's frame.
var pageFieldsJS = `(() => {
  const pw = [], ck = [], plain = [];
  const walk = d => {
    for (const e of d.querySelectorAll('input[type=password]')) if (e.value) pw.push(e.value);
    for (const e of d.querySelectorAll('input:not([type=password]), textarea, [contenteditable]')) {
      const v = e.tagName === 'INPUT' || e.tagName === 'TEXTAREA' ? e.value : e.textContent;
      if (typeof v === 'string' && v && plain.length < ` + strconv.Itoa(plainFields) + `) plain.push(v.slice(0, ` + strconv.Itoa(plainFieldChars) + `));
    }
    let cookies = '';
    try { cookies = d.cookie; } catch (e) {}
    for (const c of cookies.split('; ')) if (c) ck.push(c);
    for (const f of d.querySelectorAll('iframe,frame')) { try { if (f.contentDocument) walk(f.contentDocument); } catch (e) {} }
  };
  walk(document);
  const a = document.activeElement;
  return JSON.stringify({focus: a ? String(a.type || a.tagName) : '', pw, ck, plain});
})()`

// pageFields asks the session's page, after the call that just ended, about its
// fields; nil when it cannot tell.
func (h *Host) pageFields(ctx context.Context, session string) *pageState {
	var st *pageState
	h.inSession(ctx, session, func(env *tool.Env) error {
		out, err := runTool(ctx, env, commands.BrowserEvalJS, map[string]any{"expression": pageFieldsJS})
		if err != nil {
			return err
		}
		o, ok := out.(commands.EvalOut)
		if !ok {
			return nil
		}
		// eval_js returns the JSON text of the value, which is itself a JSON string.
		var text string
		if json.Unmarshal([]byte(o.Value), &text) != nil {
			text = o.Value
		}
		var p pageState
		if json.Unmarshal([]byte(text), &p) == nil {
			st = &p
		}
		return nil
	})
	return st
}

// redact copies args for a record: pg is the page's answer after the call (nil at
// its start or when the page did not answer); hideTyped hides all typed text. It
// returns the typed strings it hid too.
func redact(t *tool.Tool, args map[string]any, pg *pageState, hideTyped bool) (map[string]any, []string) {
	r := redactor{tool: t.Name, pg: pg, hideTyped: hideTyped || t.Name == "type_text" || t.Name == "clipboard_write", hidden: new([]string)}
	return r.args(args), *r.hidden
}

type redactor struct {
	tool      string
	pg        *pageState
	hideTyped bool
	hidden    *[]string
}

// args is the record of a call's arguments.
func (r redactor) args(args map[string]any) map[string]any {
	if args == nil {
		return nil
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = r.value(k, v, false)
	}
	if r.tool == "browser_execute_batch" {
		r.batch(out, args)
	}
	return out
}

func (r redactor) typedText(key string, v any) bool {
	switch r.tool {
	case "type_text", "browser_type", "browser_type_ref", "browser_fill_form", "clipboard_write":
		return key == "text" || key == "value" || key == "values"
	case "browser_keypress_ref":
		return key == "key" && typedKey(v)
	case "browser_handle_dialog":
		return key == "promptText"
	}
	return false
}

// MayCarrySecrets says whether a call of t may carry what the records hide: typed text (a
// key's character, a prompt's answer), the clipboard's text, code, or a credential by its
// argument's name. The REPL keeps such a line out of its history file.
func MayCarrySecrets(t *tool.Tool) bool {
	r := redactor{tool: t.Name}
	for _, key := range []string{"text", "value", "values", "key", "promptText"} {
		if r.typedText(key, "x") {
			return true
		}
	}
	for key := range t.InputSchema().Properties {
		if secretKey().MatchString(key) || r.code(key) {
			return true
		}
	}
	return t.Name == "press_keys"
}

// typedKey says whether a key press's key types a character (a key name, Enter or
// ArrowDown, types none and is shown).
func typedKey(v any) bool {
	s, ok := v.(string)
	return ok && len([]rune(s)) == 1
}

// typesCharacter says whether a press_keys chord types a character: one key that is a
// single character, alone or with shift. Key names (enter, tab) and chords with another
// modifier (ctrl+c) type none.
func typesCharacter(v any) bool {
	keys, _ := v.([]any)
	n := 0
	for _, k := range keys {
		s, _ := k.(string)
		switch {
		case strings.EqualFold(s, "shift"):
		case len([]rune(s)) == 1:
			n++
		default:
			return false
		}
	}
	return n == 1
}

// recordedSummary is how the records show the summary of a call of tool with args:
// clipboard_read's by its length (a clipboard may hold a password copied anywhere, as
// clipboard_write's text may be one to paste), and press_keys' when it typed a character
// (a password typed a key at a time: nothing can tell where it went, as for type_text);
// every other as it is.
func recordedSummary(tool string, args map[string]any, summary string) string {
	if summary != "" && (tool == "clipboard_read" || tool == "press_keys" && typesCharacter(args["keys"])) {
		return lengthOnly(summary)
	}
	return summary
}

func (r redactor) code(key string) bool {
	return r.tool == "browser_run_code" && key == "code" || r.tool == "browser_evaluate" && key == "function" ||
		key == "expression" && (r.tool == "browser_eval_js" || r.tool == "browser_execute_batch")
}

// typed is how a typed string shows.
func (r redactor) typed(s string) string {
	if r.hideTyped || r.pg.secret(s) {
		*r.hidden = append(*r.hidden, s)
		return lengthOnly(s)
	}
	return s
}

func (r redactor) value(key string, v any, cookie bool) any {
	switch {
	case secretKey().MatchString(key) && key != "cookies", cookie && key == "value":
		return Redacted
	case r.code(key):
		if s, ok := v.(string); ok {
			*r.hidden = append(*r.hidden, codeStrings(s)...)
			return lengthOnly(s)
		}
	case r.typedText(key, v):
		if s, ok := v.(string); ok {
			return r.typed(s)
		}
	case r.tool == "press_keys" && key == "keys" && typesCharacter(v):
		// Desktop keys, as type_text's text: nothing can tell where they went.
		l := slices.Clone(v.([]any))
		for i, k := range l {
			if s, _ := k.(string); len([]rune(s)) == 1 {
				l[i] = lengthOnly(s)
			}
		}
		return l
	}
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, vv := range x {
			m[k] = r.value(k, vv, key == "cookies")
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, vv := range x {
			l[i] = r.value(key, vv, cookie)
		}
		return l
	case string:
		if creds := urlSecrets(x); len(creds) > 0 {
			*r.hidden = append(*r.hidden, creds...)
			x = scrubAll(x, creds)
		}
		if r.pg != nil {
			return scrubAll(x, r.pg.secrets())
		}
		return x
	}
	return v
}

// urlSecrets are the credentials a URL carries, as written and decoded: the password of its
// user information (https://user:password@host/) and the values of its query parameters
// named like a credential (?api_key=..., &access_token=...).
func urlSecrets(s string) []string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || strings.ContainsAny(scheme, " /?#") {
		return nil
	}
	var out []string
	add := func(raw string, unescape func(string) (string, error)) {
		if raw == "" {
			return
		}
		out = append(out, raw)
		if d, err := unescape(raw); err == nil && d != raw && d != "" {
			out = append(out, d)
		}
	}
	authority, _, _ := strings.Cut(rest, "/")
	authority, _, _ = strings.Cut(authority, "?")
	authority, _, _ = strings.Cut(authority, "#")
	if userinfo, _, ok := strings.Cut(authority, "@"); ok {
		if _, pw, ok := strings.Cut(userinfo, ":"); ok {
			add(pw, url.PathUnescape)
		}
	}
	if _, query, ok := strings.Cut(rest, "?"); ok {
		query, _, _ = strings.Cut(query, "#")
		for _, kv := range strings.Split(query, "&") {
			k, v, _ := strings.Cut(kv, "=")
			if name, err := url.QueryUnescape(k); err == nil && secretKey().MatchString(name) {
				add(v, url.QueryUnescape)
			}
		}
	}
	return out
}

// batch redacts the text of execute_batch's type_ref steps and the character of its
// keypress_ref steps: shown only when the page shows it as typed text may be (secret),
// and no later step may have left the page (a click or key press submits a form, and
// the field is gone).
func (r redactor) batch(out, args map[string]any) {
	acts, _ := args["actions"].([]any)
	red, _ := out["actions"].([]any)
	for i, a := range acts {
		m, _ := a.(map[string]any)
		action, _ := m["action"].(string) // any JSON: a list as a map key would panic
		field := map[string]string{"type_ref": "text", "keypress_ref": "key"}[action]
		if field == "" {
			continue
		}
		p, _ := m["params"].(map[string]any)
		text, ok := p[field].(string)
		if !ok || field == "key" && !typedKey(text) {
			continue
		}
		shown := text
		if r.hideTyped || r.pg.secret(text) || leaves(acts[i+1:]) {
			shown = lengthOnly(text)
			*r.hidden = append(*r.hidden, text)
		}
		if rm, _ := red[i].(map[string]any); rm != nil {
			if rp, _ := rm["params"].(map[string]any); rp != nil {
				rp[field] = shown
			}
		}
	}
}

func leaves(acts []any) bool {
	for _, a := range acts {
		if m, _ := a.(map[string]any); m != nil {
			switch m["action"] {
			case "navigate", "click_ref", "keypress_ref", "eval_js":
				return true
			}
		}
	}
	return false
}

// jsString is a JavaScript string literal: '...', "..." or `...`.
const jsString = `'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"|` + "`(?:\\\\.|[^`\\\\])*`"

// codeStrings are the string literals of code, of minCodeString characters or more,
// which the summary and the error of its call show by their length: the code may return
// or throw what it typed. Shorter ones would take every "a" or "#go" out of the text.
func codeStrings(code string) []string {
	var out []string
	for _, lit := range jsStrings().FindAllString(code, -1) {
		if s := lit[1 : len(lit)-1]; len([]rune(s)) >= minCodeString {
			out = append(out, s)
		}
	}
	return out
}

// minCodeString is the shortest string literal of code hidden in its call's summary.
const minCodeString = 4

var jsStrings = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(jsString) })

// scrubAll hides every secret in s.
func scrubAll(s string, secrets []string) string {
	for _, x := range secrets {
		if x != "" {
			s = strings.ReplaceAll(s, x, lengthOnly(x))
		}
	}
	return s
}

// scrub hides in the end event's summary and error the strings hidden in its
// arguments and the page's password values and cookies.
func scrub(ev *CallEvent, hidden []string, pg *pageState) {
	if pg != nil {
		hidden = append(hidden, pg.secrets()...)
	}
	if len(hidden) == 0 {
		return
	}
	ev.Summary = scrubAll(ev.Summary, hidden)
	if ev.Error != nil {
		e := *ev.Error
		e.Message, e.Hint = scrubAll(e.Message, hidden), scrubAll(e.Hint, hidden)
		if e.Details != nil {
			b, _ := json.Marshal(e.Details)
			var d map[string]any
			if json.Unmarshal([]byte(scrubAll(string(b), hidden)), &d) == nil {
				e.Details = d
			}
		}
		ev.Error = &e
	}
}

func lengthOnly(s string) string { return fmt.Sprintf("‹%d characters›", len([]rune(s))) }
