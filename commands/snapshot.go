package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/browser"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/snapshot"
	"github.com/w365/w365/engine/werr"
)

// snapshotTools are the tools of the snapshot toolset, in the order help lists them.
var snapshotTools = []*tool.Tool{
	BrowserSnapshot,
	BrowserClickRef,
	BrowserTypeRef,
	BrowserHoverRef,
	BrowserKeypressRef,
	BrowserScrollRef,
	BrowserSetFileInputRef,
	BrowserFileUpload,
	BrowserFind,
	BrowserExecuteBatch,
}

func init() {
	tool.RegisterTree[snapshot.Node]("a node of the page's accessibility snapshot")
}

// snapshotsOf is the session's snapshot store; it lives in the host, so refs
// survive between CLI processes.
func snapshotsOf(env *tool.Env) (*snapshot.Store, error) {
	return session.Use(env.Session, "snapshots", func(*session.Session) (*snapshot.Store, error) {
		return snapshot.NewStore(), nil
	})
}

// refEnv is what every _ref tool needs.
func refEnv(ctx context.Context, env *tool.Env, snapshotID string) (*snapshot.Store, *browser.Browser, string, error) {
	st, err := snapshotsOf(env)
	if err != nil {
		return nil, nil, "", err
	}
	if strings.EqualFold(snapshotID, "latest") {
		if snapshotID = st.Latest(ctx); snapshotID == "" {
			return nil, nil, "", werr.New(werr.SnapshotExpired, "no snapshot taken yet").WithHint("take a new snapshot")
		}
	}
	b, err := browserOf(ctx, env)
	if err != nil {
		return nil, nil, "", err
	}
	return st, b, snapshotID, nil
}

// elementOf resolves a target or selector parameter, one grammar for every element
// tool: a ref of the latest snapshot or find result (e5, ref=e5, SNAPSHOTID:e5),
// keeping its SNAPSHOT_EXPIRED semantics, or else a CSS selector (no CSS selector
// looks like a ref: a custom element's name has a hyphen).
func elementOf(ctx context.Context, env *tool.Env, b *browser.Browser, target string) (browser.Element, error) {
	st, err := snapshotsOf(env)
	if err != nil {
		return browser.Element{}, err
	}
	id, ref, isRef, err := st.ResolveTarget(ctx, "", target)
	if err != nil || !isRef {
		return browser.CSS(target), err
	}
	return st.Element(ctx, b, id, ref)
}

// waitFrameText polls the text of every frame until text is in one of them and
// gone is in none, or timeoutMs (the policy's default and cap) passes.
func waitFrameText(ctx context.Context, env *tool.Env, b *browser.Browser, text, gone string, timeoutMs int) (browser.WaitResult, string, error) {
	if timeoutMs <= 0 {
		timeoutMs = env.Policy.BrowserWaitDefaultMs
	}
	timeoutMs = min(timeoutMs, env.Policy.BrowserWaitMaxMs)
	start := time.Now()
	deadline := start.Add(time.Duration(timeoutMs) * time.Millisecond)
	var closed error // the last look's, when its tab went away
	for {
		texts, err := snapshot.FrameTexts(ctx, b)
		// A dialog, a crash or a cancel of the call ends the wait; a page in flux is retried,
		// and so is a look in a tab that closed under it (NOT_FOUND or CANCELLED while the
		// call goes on: a popup that hands back to its opener and closes itself), the wait
		// going on in the tab active next; if none comes, the wait ends with that error.
		code := werr.CodeOf(err)
		switch {
		case err == nil || code == werr.Internal:
		case ctx.Err() == nil && (code == werr.NotFound || code == werr.Cancelled):
			closed = err
		default:
			return browser.WaitResult{}, "", err
		}
		if err == nil {
			found, stays, line := text == "", false, ""
			for _, t := range texts {
				if i := strings.Index(t, text); text != "" && i >= 0 && !found {
					found, line = true, lineAround(t, i, len(text))
				}
				stays = stays || (gone != "" && strings.Contains(t, gone))
			}
			if found && !stays {
				return browser.WaitResult{ElapsedMs: time.Since(start).Milliseconds()}, line, nil
			}
		}
		if time.Now().After(deadline) {
			if err != nil && closed != nil {
				return browser.WaitResult{}, "", closed
			}
			what := fmt.Sprintf("text %q", text)
			if text == "" {
				what = fmt.Sprintf("text %q to disappear", gone)
			} else if gone != "" {
				what += fmt.Sprintf(" and text %q to disappear", gone)
			}
			return browser.WaitResult{}, "", werr.New(werr.Timeout, "waited %d ms for %s in every frame", timeoutMs, what)
		}
		select {
		case <-ctx.Done():
			return browser.WaitResult{}, "", werr.New(werr.Cancelled, "the wait was cancelled")
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// lineAround is the line of t holding the n bytes at i, at most 300 bytes of it around
// them: what a toast or status said, for an agent whose next look may come after it is gone.
func lineAround(t string, i, n int) string {
	from, to := strings.LastIndexByte(t[:i], '\n')+1, len(t)
	if j := strings.IndexByte(t[i+n:], '\n'); j >= 0 {
		to = i + n + j
	}
	from, to = max(from, i-150), min(to, i+n+150)
	return strings.ToValidUTF8(strings.TrimSpace(t[from:to]), "")
}

// crossOriginRef says whether elementOf refused target because it is a ref inside
// a cross-origin iframe, which only the ref tools' path reaches; it returns that ref.
func crossOriginRef(ctx context.Context, env *tool.Env, target string, err error) (*snapshot.Store, string, string, bool) {
	if werr.CodeOf(err) != werr.Unsupported {
		return nil, "", "", false
	}
	st, serr := snapshotsOf(env)
	if serr != nil {
		return nil, "", "", false
	}
	id, ref, isRef, rerr := st.ResolveTarget(ctx, "", target)
	return st, id, ref, isRef && rerr == nil
}

// SnapshotIn is browser_snapshot's input.
type SnapshotIn struct {
	MaxDepth       int    `json:"maxDepth,omitempty" w365:"default=5,min=1,max=10"`
	IncludeIframes bool   `json:"includeIframes,omitempty" jsonschema:"cross-origin ones too" w365:"default=true"`
	Target         string `json:"target,omitempty" jsonschema:"subtree: a ref (e5) or CSS selector"`
	MaxChars       int    `json:"maxChars,omitempty" w365:"default=40000,min=200,max=2000000"`
}

// SnapshotOut is browser_snapshot's output.
type SnapshotOut struct {
	snapshot.Result
}

func (o SnapshotOut) Text() string {
	s := fmt.Sprintf("snapshotId: %s\nurl: %s\n", o.SnapshotID, o.URL)
	if o.Title != "" {
		s += "title: " + o.Title + "\n"
	}
	s += o.Result.Text
	if o.Note != "" {
		s += "note: " + o.Note + "\n"
	}
	return strings.TrimRight(s, "\n")
}

// RefIn names an element of a snapshot.
type RefIn struct {
	SnapshotID string `json:"snapshotId" jsonschema:"or \"latest\""`
	Ref        string `json:"ref"`
}

// ClickRefIn is browser_click_ref's input.
type ClickRefIn struct {
	SnapshotID string `json:"snapshotId" jsonschema:"or \"latest\""`
	Ref        string `json:"ref"`
	Button     string `json:"button,omitempty" w365:"enum=Left|Right|Middle,default=Left"`
	ClickCount int    `json:"clickCount,omitempty" w365:"default=1,min=1,max=2"`
}

// PointOut reports where the pointer acted.
type PointOut struct {
	Ref    string         `json:"ref"`
	X      float64        `json:"x"`
	Y      float64        `json:"y"`
	Did    string         `json:"did"`
	Dialog browser.Dialog `json:"dialog,omitzero" jsonschema:"opened by this action: do not repeat it"`
	// Downloads began during the action (state as of its end).
	Downloads []browser.Download `json:"downloads,omitempty"`
	// NewTabs the page opened during the action (a window.open popup); the last is active.
	NewTabs []browser.TabInfo `json:"newTabs,omitempty"`
	// AfterClose: the page closed its tab during the action; the tab active now.
	AfterClose *browser.TabInfo `json:"afterClose,omitempty"`
	// FileChooser: the page opened a file chooser, pending until browser_file_upload; the
	// text says it (see browser.ActionResult.FileChooser).
	FileChooser bool   `json:"-"`
	named       string // see refName
}

func (o PointOut) Text() string {
	s := fmt.Sprintf("%s %s%s at (%.0f, %.0f)", o.Did, o.Ref, o.named, o.X, o.Y) + dialogNote(o.Dialog)
	for _, d := range o.Downloads {
		s += "\n" + downloadNote(d)
	}
	return s + actionNotes(browser.ActionResult{NewTabs: o.NewTabs, AfterClose: o.AfterClose, FileChooser: o.FileChooser})
}

// refName is what the text of a ref tool's result says after the ref, ` (button
// "Submit")`, as the caller's snapshot knows the element ("" when it does not); the
// structured result keeps the ref alone.
func refName(ctx context.Context, st *snapshot.Store, snapshotID, ref string) string {
	if d := st.Describe(ctx, snapshotID, ref); d != "" {
		return " (" + d + ")"
	}
	return ""
}

// dialogNote mentions a dialog an action opened.
func dialogNote(d browser.Dialog) string {
	if d.Type == "" {
		return ""
	}
	return actionNotes(browser.ActionResult{Dialog: &d})
}

// dialogOf is the dialog an action opened, or the zero Dialog (left out of the result).
func dialogOf(d *browser.Dialog) browser.Dialog {
	if d == nil {
		return browser.Dialog{}
	}
	return *d
}

// TypeRefIn is browser_type_ref's input.
type TypeRefIn struct {
	SnapshotID string `json:"snapshotId" jsonschema:"or \"latest\""`
	Ref        string `json:"ref"`
	Text       string `json:"text" w365:"maxLength=20000"`
	Clear      bool   `json:"clear,omitempty" w365:"default=true"`
}

// TypeRefOut confirms typing.
type TypeRefOut struct {
	Ref        string         `json:"ref"`
	Characters int            `json:"characters"`
	Dialog     browser.Dialog `json:"dialog,omitzero" jsonschema:"opened by the typing: do not repeat it"`
	Note       string         `json:"note,omitempty"` // what the field holds, when not the text typed
	named      string         // see refName
}

func (o TypeRefOut) Text() string {
	s := fmt.Sprintf("typed %d characters into %s%s", o.Characters, o.Ref, o.named)
	if o.Note != "" {
		s += "; " + o.Note
	}
	return s + dialogNote(o.Dialog)
}

// KeypressRefIn is browser_keypress_ref's input.
type KeypressRefIn struct {
	SnapshotID string   `json:"snapshotId" jsonschema:"or \"latest\""`
	Ref        string   `json:"ref"`
	Key        string   `json:"key" jsonschema:"Enter, Escape, Tab, ArrowDown, F1... or a character"`
	Modifiers  []string `json:"modifiers,omitempty" w365:"enum=Ctrl|Shift|Alt|Meta"`
}

// DoneOut is a plain confirmation; its Message ends with the ref.
type DoneOut struct {
	Ref     string         `json:"ref"`
	Message string         `json:"message"`
	Dialog  browser.Dialog `json:"dialog,omitzero" jsonschema:"the dialog this action opened (the action ran: do not repeat it)"`
	named   string         // see refName
}

func (o DoneOut) Text() string { return o.Message + o.named + dialogNote(o.Dialog) }

// ScrollRefIn is browser_scroll_ref's input.
type ScrollRefIn struct {
	SnapshotID string `json:"snapshotId" jsonschema:"or \"latest\""`
	Ref        string `json:"ref"`
	DeltaX     int    `json:"deltaX,omitempty" w365:"default=0"`
	DeltaY     int    `json:"deltaY,omitempty" w365:"default=0"`
}

// ScrollRefOut reports the element's scroll position afterwards.
type ScrollRefOut struct {
	Ref        string         `json:"ref"`
	X          float64        `json:"x"`
	Y          float64        `json:"y"`
	ScrollLeft float64        `json:"scrollLeft"`
	ScrollTop  float64        `json:"scrollTop"`
	Dialog     browser.Dialog `json:"dialog,omitzero" jsonschema:"the dialog the scroll opened"`
	named      string         // see refName
}

func (o ScrollRefOut) Text() string {
	return fmt.Sprintf("scrolled %s%s (scrollLeft %.0f, scrollTop %.0f)", o.Ref, o.named, o.ScrollLeft, o.ScrollTop) + dialogNote(o.Dialog)
}

// SetFileInputRefIn is browser_set_file_input_ref's input.
type SetFileInputRefIn struct {
	SnapshotID string   `json:"snapshotId" jsonschema:"or \"latest\""`
	Ref        string   `json:"ref"`
	FilePaths  []string `json:"filePaths" jsonschema:"in Documents, Downloads, Desktop or session tmp" w365:"maxItems=100"`
}

// FileUploadIn is browser_file_upload's input.
type FileUploadIn struct {
	Files      []snapshot.UploadFile `json:"files" jsonschema:"10 MiB each, 50 in all" w365:"maxItems=20"`
	Target     string                `json:"target,omitempty" jsonschema:"ref or CSS selector; omit for an open file chooser"`
	SnapshotID string                `json:"snapshotId,omitempty"`
}

// FileUploadOut reports the staged files.
type FileUploadOut struct {
	Files int `json:"files"`
	Bytes int `json:"bytes"`
}

func (o FileUploadOut) Text() string {
	return fmt.Sprintf("uploaded %d files (%d bytes)", o.Files, o.Bytes)
}

// FindIn is browser_find's input.
type FindIn struct {
	Text       string `json:"text,omitempty" jsonschema:"in name or value, any case"`
	Regex      string `json:"regex,omitempty" jsonschema:"RE2, on name or value"`
	Role       string `json:"role,omitempty" jsonschema:"ARIA role: button, link, textbox..."`
	Name       string `json:"name,omitempty" jsonschema:"in the accessible name, with role"`
	MaxResults int    `json:"maxResults,omitempty" w365:"default=20,min=1,max=200"`
}

// FindOut lists matches with refs.
type FindOut struct {
	snapshot.FindResult
}

func (o FindOut) Text() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "snapshotId: %s (%d of %d matches)", o.SnapshotID, len(o.Matches), o.Total)
	for _, m := range o.Matches {
		sb.WriteString("\n" + m.Line)
	}
	return sb.String()
}

// BatchAction is one action of browser_execute_batch.
type BatchAction struct {
	Action string         `json:"action" w365:"enum=navigate|snapshot|click_ref|type_ref|hover_ref|scroll_ref|keypress_ref|wait_for|eval_js"`
	Params map[string]any `json:"params,omitempty" jsonschema:"the arguments of its browser_ tool"`
}

// BatchIn is browser_execute_batch's input.
type BatchIn struct {
	Actions []BatchAction `json:"actions" w365:"maxItems=50"`
}

// BatchStep is the result of one action that ran.
type BatchStep struct {
	Index  int    `json:"index"`
	Action string `json:"action"`
	Result any    `json:"result,omitempty"`
}

// BatchFailure says which action failed and why.
type BatchFailure struct {
	Index     int    `json:"index"`
	Action    string `json:"action"`
	Code      string `json:"code"`
	Message   string `json:"message"`
	Retryable bool   `json:"retryable"`
	Hint      string `json:"hint,omitempty"`
}

// BatchOut is browser_execute_batch's output.
type BatchOut struct {
	Results []BatchStep   `json:"results"`
	Failed  *BatchFailure `json:"failed,omitempty"`
}

func (o BatchOut) Text() string {
	if o.Failed != nil {
		return fmt.Sprintf("%d actions ran; action %d (%s) failed: %s %s", len(o.Results), o.Failed.Index, o.Failed.Action, o.Failed.Code, o.Failed.Message)
	}
	return fmt.Sprintf("%d actions ran", len(o.Results))
}

// batchActions are the actions browser_execute_batch runs: each is the browser tool
// of that name (browser_click_ref for click_ref), which a test checks.
var batchActions = []string{"navigate", "snapshot", "click_ref", "type_ref", "hover_ref", "scroll_ref", "keypress_ref", "wait_for", "eval_js"}

// batchAction is the action named action with params as the batch runs it: its name,
// its browser tool (nil when it is not one of batchActions) and the tool's arguments.
func batchAction(action string, params map[string]any) (string, *tool.Tool, map[string]any) {
	name := strings.ToLower(strings.TrimSpace(action))
	if !slices.Contains(batchActions, name) {
		return name, nil, nil
	}
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	if strings.HasSuffix(name, "_ref") {
		if _, ok := p["snapshotId"]; !ok {
			p["snapshotId"] = "latest"
		}
	}
	return name, Lookup("browser_" + name), p
}

// ToolCall is one tool with its arguments.
type ToolCall struct {
	Tool *tool.Tool
	Args map[string]any
}

// Calls are the calls a call of t with args makes: itself and, for browser_execute_batch,
// each action as its browser tool with its params (an action that is none is left out:
// the batch refuses it before anything runs). What judges a call by its tool and
// arguments (the policy's approvals) judges each of them, so that putting a tool into a
// batch avoids nothing.
func Calls(t *tool.Tool, args map[string]any) []ToolCall {
	out := []ToolCall{{t, args}}
	if t.Name != BrowserExecuteBatch.Name {
		return out
	}
	actions, _ := args["actions"].([]any)
	for _, a := range actions {
		m, _ := a.(map[string]any)
		action, _ := m["action"].(string)
		params, _ := m["params"].(map[string]any)
		if _, st, p := batchAction(action, params); st != nil {
			out = append(out, ToolCall{st, p})
		}
	}
	return out
}

// refNote ends the help of every tool that takes a ref.
const refNote = "\n\nA ref belongs to its snapshot's document: after the page navigates, or when the element\n" +
	"is removed, the call fails with SNAPSHOT_EXPIRED and nothing is done; take a new snapshot.\n" +
	"snapshotId may be \"latest\" for the newest snapshot of the session."

// BrowserSnapshot is the tool browser_snapshot (w365 browser snapshot).
var BrowserSnapshot = tool.Define(tool.Tool{
	Name: "browser_snapshot", Legacy: []string{"mcp_browser_snapshot"}, Aliases: []string{"snap"},
	InText:  []string{"text", "nodes"},
	Summary: "Accessibility snapshot of the page with refs (e5) for the _ref tools",
	Long: "Captures the active tab's accessibility tree, iframes included (cross-origin ones too),\n" +
		"as compact text, one node a line (- button \"Sign in\" [ref=e5]), and as structured nodes.\n" +
		"Interactive and named nodes, draggable ones and the outermost of a pointer cursor get refs\n" +
		"for browser_click_ref, browser_type_ref and the other _ref tools; a node keeps its ref\n" +
		"across snapshots of the same document. The text is capped\n" +
		"(maxChars); when cut, the result says so: narrow with target, maxDepth or browser_find.",
	Example:     "  $ w365 browser snapshot\n  $ w365 browser snapshot --max-depth 8 --target '#main'\n  $ w365 browser snapshot --json | jq -r .snapshotId",
	Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, in SnapshotIn) (SnapshotOut, error) {
	st, err := snapshotsOf(env)
	if err != nil {
		return SnapshotOut{}, err
	}
	b, err := browserOf(ctx, env)
	if err != nil {
		return SnapshotOut{}, err
	}
	r, err := st.Take(ctx, b, snapshot.Options{MaxDepth: in.MaxDepth, IncludeIframes: in.IncludeIframes, Target: in.Target, MaxChars: in.MaxChars})
	if err != nil {
		return SnapshotOut{}, err
	}
	return SnapshotOut{*r}, nil
})

// BrowserClickRef is the tool browser_click_ref (w365 browser click-ref).
var BrowserClickRef = tool.Define(tool.Tool{
	Name: "browser_click_ref", Legacy: []string{"mcp_browser_click_ref"},
	Summary: "Click the element behind a snapshot ref",
	Long: "Clicks the centre of the element with real mouse events after a hit test: while another\n" +
		"element covers that point, also with the element scrolled to the middle of the view (from\n" +
		"under a fixed header), it waits for it to go (a snackbar), as browser_click does; when it\n" +
		"stays, the call fails with OBSCURED, naming it, and nothing is clicked. A disabled element is\n" +
		"waited for as long to be enabled, else TIMEOUT and nothing is clicked.\n" +
		"Returns the viewport coordinates clicked." + refNote,
	Example:     "  $ w365 browser click-ref --snapshot-id s1a2b3c-1 --ref e5\n  $ w365 browser click-ref --snapshot-id latest --ref e7 --button Right",
	Annotations: tool.Act,
}, func(ctx context.Context, env *tool.Env, in ClickRefIn) (PointOut, error) {
	st, b, id, err := refEnv(ctx, env, in.SnapshotID)
	if err != nil {
		return PointOut{}, err
	}
	return clickRef(ctx, st, b, id, in.Ref, snapshot.ClickOptions{Button: in.Button, ClickCount: in.ClickCount})
})

// clickRef clicks a ref for browser_click_ref and browser_click.
func clickRef(ctx context.Context, st *snapshot.Store, b *browser.Browser, id, ref string, o snapshot.ClickOptions) (PointOut, error) {
	named := refName(ctx, st, id, ref)
	p, err := st.Click(ctx, b, id, ref, o)
	if err != nil {
		return PointOut{}, err
	}
	did := "clicked"
	if o.ClickCount == 2 {
		did = "double-clicked"
	}
	return PointOut{Ref: ref, X: p.X, Y: p.Y, Did: did, Dialog: dialogOf(p.Dialog), Downloads: p.Downloads, NewTabs: p.NewTabs, AfterClose: p.AfterClose, FileChooser: p.FileChooser, named: named}, nil
}

// BrowserTypeRef is the tool browser_type_ref (w365 browser type-ref).
var BrowserTypeRef = tool.Define(tool.Tool{
	Name: "browser_type_ref", Legacy: []string{"mcp_browser_type_ref"},
	Summary:     "Type into the element behind a snapshot ref",
	Long:        "Focuses the element, clears it (unless --clear=false) and types the text with real key events." + refNote,
	Example:     "  $ w365 browser type-ref --snapshot-id s1a2b3c-1 --ref e7 --text 'ada@example.com'",
	Annotations: tool.Act,
}, func(ctx context.Context, env *tool.Env, in TypeRefIn) (TypeRefOut, error) {
	st, b, id, err := refEnv(ctx, env, in.SnapshotID)
	if err != nil {
		return TypeRefOut{}, err
	}
	named := refName(ctx, st, id, in.Ref)
	r, err := st.Type(ctx, b, id, in.Ref, in.Text, snapshot.TypeOptions{Clear: in.Clear})
	if err != nil {
		return TypeRefOut{}, err
	}
	return TypeRefOut{Ref: in.Ref, Characters: r.Characters, Dialog: dialogOf(r.Dialog), Note: r.Note, named: named}, nil
})

// BrowserHoverRef is the tool browser_hover_ref (w365 browser hover-ref).
var BrowserHoverRef = tool.Define(tool.Tool{
	Name: "browser_hover_ref", Legacy: []string{"mcp_browser_hover_ref"},
	Summary:     "Move the pointer over the element behind a snapshot ref",
	Long:        "Moves the mouse to the element's centre (after the same hit test as click) and returns at once." + refNote,
	Example:     "  $ w365 browser hover-ref --snapshot-id s1a2b3c-1 --ref e4",
	Annotations: tool.Act,
}, func(ctx context.Context, env *tool.Env, in RefIn) (PointOut, error) {
	st, b, id, err := refEnv(ctx, env, in.SnapshotID)
	if err != nil {
		return PointOut{}, err
	}
	named := refName(ctx, st, id, in.Ref)
	p, err := st.Hover(ctx, b, id, in.Ref)
	if err != nil {
		return PointOut{}, err
	}
	return PointOut{Ref: in.Ref, X: p.X, Y: p.Y, Did: "hovered", Dialog: dialogOf(p.Dialog), named: named}, nil
})

// BrowserKeypressRef is the tool browser_keypress_ref (w365 browser keypress-ref).
var BrowserKeypressRef = tool.Define(tool.Tool{
	Name:    "browser_keypress_ref",
	Summary: "Press a key on the element behind a snapshot ref",
	Long: "Focuses the element and presses one key (Enter, Escape, Tab, ArrowUp, F1-F12 ...), holding the modifiers;\n" +
		"a key written as a combination (Control+a) holds its leading parts too." + refNote,
	Example:     "  $ w365 browser keypress-ref --snapshot-id s1a2b3c-1 --ref e7 --key Enter\n  $ w365 browser keypress-ref --snapshot-id latest --ref e7 --key a --modifiers Ctrl",
	Annotations: tool.Act,
}, func(ctx context.Context, env *tool.Env, in KeypressRefIn) (DoneOut, error) {
	st, b, id, err := refEnv(ctx, env, in.SnapshotID)
	if err != nil {
		return DoneOut{}, err
	}
	named := refName(ctx, st, id, in.Ref)
	d, err := st.Keypress(ctx, b, id, in.Ref, in.Key, in.Modifiers)
	if err != nil {
		return DoneOut{}, err
	}
	k := in.Key
	if len(in.Modifiers) > 0 {
		k = strings.Join(in.Modifiers, "+") + "+" + k
	}
	return DoneOut{Ref: in.Ref, Message: fmt.Sprintf("pressed %s on %s", k, in.Ref), Dialog: dialogOf(d), named: named}, nil
})

// BrowserScrollRef is the tool browser_scroll_ref (w365 browser scroll-ref).
var BrowserScrollRef = tool.Define(tool.Tool{
	Name:        "browser_scroll_ref",
	Summary:     "Scroll the element behind a snapshot ref into view, then inside it",
	Long:        "Scrolls the element into view, then scrolls inside it by deltaX/deltaY pixels with a real mouse wheel at its centre." + refNote,
	Example:     "  $ w365 browser scroll-ref --snapshot-id s1a2b3c-1 --ref e12 --delta-y 300",
	Annotations: tool.Act,
}, func(ctx context.Context, env *tool.Env, in ScrollRefIn) (ScrollRefOut, error) {
	st, b, id, err := refEnv(ctx, env, in.SnapshotID)
	if err != nil {
		return ScrollRefOut{}, err
	}
	named := refName(ctx, st, id, in.Ref)
	r, err := st.Scroll(ctx, b, id, in.Ref, float64(in.DeltaX), float64(in.DeltaY))
	if err != nil {
		return ScrollRefOut{}, err
	}
	return ScrollRefOut{Ref: in.Ref, X: r.X, Y: r.Y, ScrollLeft: r.ScrollLeft, ScrollTop: r.ScrollTop, Dialog: dialogOf(r.Dialog), named: named}, nil
})

// BrowserSetFileInputRef is the tool browser_set_file_input_ref (w365 browser set-file-input-ref).
var BrowserSetFileInputRef = tool.Define(tool.Tool{
	Name:    "browser_set_file_input_ref",
	Summary: "Set local files on the file input behind a snapshot ref",
	Long: "Sets the files of an <input type=file>. Each path must be a regular file in the user's\n" +
		"Documents, Downloads or Desktop directory, the session's own, or the session's temporary\n" +
		"directory (its /tmp, never the host's), not hidden, reached without a\n" +
		"symbolic link below that directory (at most 256 MiB; the page gets a copy the host made);\n" +
		"anything else is BLOCKED_BY_POLICY. The copies stay until the browser closes: past 512 MiB\n" +
		"of them (or half the free space) a file is refused with RESOURCE_EXHAUSTED." + refNote,
	Example:     "  $ w365 browser set-file-input-ref --snapshot-id s1a2b3c-1 --ref e9 --file-paths ~/Documents/cv.pdf",
	Annotations: tool.Act,
}, func(ctx context.Context, env *tool.Env, in SetFileInputRefIn) (DoneOut, error) {
	st, b, id, err := refEnv(ctx, env, in.SnapshotID)
	if err != nil {
		return DoneOut{}, err
	}
	stage, err := b.UploadDir()
	if err != nil {
		return DoneOut{}, err
	}
	paths, err := snapshot.StageFiles(in.FilePaths, stage, b.UploadRoots(), b.SessionOwned, b.Protected()...)
	if err != nil {
		return DoneOut{}, err
	}
	named := refName(ctx, st, id, in.Ref)
	d, err := st.SetFiles(ctx, b, id, in.Ref, paths)
	if err != nil {
		return DoneOut{}, err
	}
	return DoneOut{Ref: in.Ref, Message: fmt.Sprintf("set %d files on %s", len(paths), in.Ref), Dialog: dialogOf(d), named: named}, nil
})

// BrowserFileUpload is the tool browser_file_upload (w365 browser file-upload).
var BrowserFileUpload = tool.Define(tool.Tool{
	Name:    "browser_file_upload",
	Summary: "Upload files sent inline (base64) into a file input or an open file chooser",
	Long: "Sets the files on the file input named by target (a snapshot ref or a CSS selector), or on\n" +
		"the file chooser the page opened (a click on an upload button) when target is omitted. A\n" +
		"target that is not a file input gets the files dropped onto it, as files dragged from the\n" +
		"desktop (dragenter, dragover, drop at its centre): a drop zone with no input; an element\n" +
		"whose dragover does not take them (preventDefault) gets no drop, INVALID_ARGUMENT. The\n" +
		"page gets each file with its name (the last path element) and mimeType (default\n" +
		"application/octet-stream); nothing is written to disk. 1 to 20 files, at most 10 MiB each\n" +
		"decoded and 50 MiB together; names up to 4,096 characters, MIME types up to 1,024.",
	Example:     "  $ w365 browser file-upload --target e9 --files '[{\"name\":\"a.txt\",\"data\":\"aGk=\"}]'",
	Annotations: tool.Act,
}, func(ctx context.Context, env *tool.Env, in FileUploadIn) (FileUploadOut, error) {
	files, n, err := snapshot.Inline(in.Files)
	if err != nil {
		return FileUploadOut{}, err
	}
	b, err := browserOf(ctx, env)
	if err != nil {
		return FileUploadOut{}, err
	}
	if strings.TrimSpace(in.Target) == "" {
		ok, err := b.ChooserFiles(ctx, files)
		if err != nil {
			return FileUploadOut{}, err
		}
		if !ok {
			return FileUploadOut{}, werr.New(werr.NotFound, "no file chooser is open").
				WithHint("click the page's upload button first, or give target (a ref or CSS selector of the file input)")
		}
		return FileUploadOut{Files: len(files), Bytes: n}, nil
	}
	target := in.Target
	// "latest", as every _ref tool takes it, is what a bare ref means already.
	if in.SnapshotID != "" && !strings.EqualFold(in.SnapshotID, "latest") && snapshot.RefOf(target) != "" {
		target = in.SnapshotID + ":" + snapshot.RefOf(target)
	}
	el, err := elementOf(ctx, env, b, target)
	if st, id, ref, ok := crossOriginRef(ctx, env, target, err); ok {
		// A ref inside a cross-origin iframe: the ref tools' way.
		if _, err := st.SetFileData(ctx, b, id, ref, files); err != nil {
			return FileUploadOut{}, err
		}
		return FileUploadOut{Files: len(files), Bytes: n}, nil
	}
	if err != nil {
		return FileUploadOut{}, err
	}
	if _, err := b.SetFileData(ctx, el, files); err != nil {
		return FileUploadOut{}, err
	}
	return FileUploadOut{Files: len(files), Bytes: n}, nil
})

// BrowserFind is the tool browser_find (w365 browser find).
var BrowserFind = tool.Define(tool.Tool{
	Name: "browser_find", InText: []string{"matches"},
	Summary: "Find page elements by text, regex or role and name, with refs; cheaper than a snapshot",
	Long: "Searches the whole accessibility tree of the page (iframes included, no depth limit) and\n" +
		"returns the matching elements, each with a ref usable by the _ref tools with the returned\n" +
		"snapshotId. A targeted look instead of a whole snapshot.",
	Example:     "  $ w365 browser find --text 'Sign in'\n  $ w365 browser find --role button --name save\n  $ w365 browser find --regex '^Item [0-9]+$'",
	Annotations: tool.Observe, AnyOf: [][]string{{"text", "regex", "role", "name"}},
}, func(ctx context.Context, env *tool.Env, in FindIn) (FindOut, error) {
	st, err := snapshotsOf(env)
	if err != nil {
		return FindOut{}, err
	}
	b, err := browserOf(ctx, env)
	if err != nil {
		return FindOut{}, err
	}
	r, err := st.Find(ctx, b, snapshot.FindQuery{Text: in.Text, Regex: in.Regex, Role: in.Role, Name: in.Name, MaxResults: in.MaxResults})
	if err != nil {
		return FindOut{}, err
	}
	return FindOut{*r}, nil
})

// BrowserExecuteBatch is the tool browser_execute_batch (w365 browser execute-batch).
var BrowserExecuteBatch = tool.Define(tool.Tool{
	Name:    "browser_execute_batch",
	Summary: "Run up to 50 browser actions in one call, stopping at the first failure",
	Long: "Actions: navigate, snapshot, click_ref, type_ref, hover_ref, scroll_ref, keypress_ref,\n" +
		"wait_for, eval_js, each {action, params} with the params of that action's tool. Every action\n" +
		"name and its params are checked before anything runs. Returns the results so far and, on\n" +
		"failure, which action failed and why (the call is then an error whose details hold them).\n" +
		"A ref action without snapshotId uses the latest snapshot. An action that opens a dialog\n" +
		"succeeds with the dialog in its result; the next action then fails with DIALOG_PENDING.",
	Example:     "  $ w365 browser execute-batch --actions '[{\"action\":\"snapshot\"},{\"action\":\"click_ref\",\"params\":{\"ref\":\"e5\"}}]'",
	Annotations: WebAct,
}, func(ctx context.Context, env *tool.Env, in BatchIn) (BatchOut, error) {
	if len(in.Actions) == 0 {
		return BatchOut{}, werr.Invalid("actions must not be empty")
	}
	type step struct {
		tool *tool.Tool
		in   any
	}
	steps := make([]step, len(in.Actions))
	for i, a := range in.Actions {
		name, t, p := batchAction(a.Action, a.Params)
		if t == nil {
			return BatchOut{}, werr.Invalid("action %d: %q is not allowed; allowed: %s", i, a.Action, strings.Join(batchActions, ", "))
		}
		in.Actions[i].Action = name
		x, err := t.Prepare(p)
		if err != nil {
			return BatchOut{}, werr.Invalid("action %d (%s): %s", i, name, werr.As(err).Message)
		}
		steps[i] = step{tool: t, in: x}
	}
	out := BatchOut{Results: []BatchStep{}}
	for i, s := range steps {
		name := in.Actions[i].Action
		res, err := s.tool.Run(ctx, env, s.in)
		if err != nil {
			// A failed step fails the call (isError), with the results so far: the
			// error keeps the step's code, retryable flag and hint.
			we := werr.As(err)
			out.Failed = &BatchFailure{Index: i, Action: name, Code: string(we.Code), Message: we.Message, Retryable: we.Retryable, Hint: we.Hint}
			fail := werr.New(we.Code, "action %d (%s) failed after %d ran: %s", i, name, len(out.Results), we.Message).
				WithRetryable(we.Retryable).WithDetail("results", out.Results).WithDetail("failed", out.Failed)
			if we.Hint != "" {
				fail = fail.WithHint("%s", we.Hint)
			}
			for k, v := range we.Details {
				if k != "results" && k != "failed" {
					fail = fail.WithDetail(k, v)
				}
			}
			return out, fail
		}
		if raw, err := json.Marshal(res); err == nil {
			var v any
			_ = json.Unmarshal(raw, &v)
			res = v
		}
		out.Results = append(out.Results, BatchStep{Index: i, Action: name, Result: res})
	}
	return out, nil
})

// DescribeRef names the element a ref target of session s stands for, as the
// caller of ctx's snapshots know it (`button "Submit"`), for records of calls; ""
// when it names none.
func DescribeRef(ctx context.Context, s *session.Session, snapshotID, target string) string {
	st, err := snapshotsOf(&tool.Env{Session: s})
	if err != nil {
		return ""
	}
	return st.Describe(ctx, snapshotID, target)
}
