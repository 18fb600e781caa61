package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/proc"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// a11yTools are the tools of the a11y toolset, in the order help lists them.
var a11yTools = []*tool.Tool{
	GetAccessibilityTree,
	FindUIElement,
}

// a11yOf is the session's connection to its accessibility bus.
func a11yOf(ctx context.Context, env *tool.Env) (desktop.Accessibility, error) {
	return session.Use(env.Session, "a11y", func(s *session.Session) (desktop.Accessibility, error) {
		a, err := s.Desktop.OpenAccessibility(ctx)
		if p, ok := a.(interface{ AllowPeersIn(string) }); ok && s.Desktop.Virtual() {
			// The session's applications keep their own accessibility servers in its HOME.
			p.AllowPeersIn(s.HomeDir())
		}
		return a, err
	})
}

func init() {
	tool.RegisterTree[desktop.Node]("an accessible element with screen coordinates")
}

// TreeIn is get_accessibility_tree's input.
type TreeIn struct {
	MaxDepth    int `json:"maxDepth,omitempty" w365:"min=1,max=10,default=3"`
	MaxElements int `json:"maxElements,omitempty" w365:"min=1,max=2000,default=500"`
}

// TreeOut is the foreground window's tree.
type TreeOut struct {
	Root      desktop.Node `json:"root"`
	Truncated bool         `json:"truncated"`
	Count     int          `json:"count"`
	// Deeper: elements whose children lie below maxDepth, the depth walked.
	Deeper   int `json:"deeper,omitempty"`
	MaxDepth int `json:"-"`
	// asked: how many tries the walk took (the text says it after more than one).
	asked asked
}

func (o TreeOut) Text() string {
	if o.Count == 0 {
		return "no window has the focus: the tree is empty"
	}
	var b strings.Builder
	var walk func(n desktop.Node, depth int)
	walk = func(n desktop.Node, depth int) {
		b.WriteString(strings.Repeat("  ", depth))
		describe(&b, n.Role, n.Name, n.Value, n.States)
		fmt.Fprintf(&b, " [%d,%d %dx%d]\n", n.X, n.Y, n.Width, n.Height)
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	walk(o.Root, 0)
	if o.Truncated {
		fmt.Fprintf(&b, "[cut at %d elements: raise maxElements or lower maxDepth]\n", o.Count)
	}
	if o.Deeper > 0 {
		raise := ""
		if most := policy.Default().A11yDepthMax; o.MaxDepth < most {
			raise = fmt.Sprintf("raise maxDepth (at most %d), or ", most)
		}
		fmt.Fprintf(&b, "[%d elements have children below maxDepth %d: %sfind_ui_element, which searches every level]\n",
			o.Deeper, o.MaxDepth, raise)
	}
	return strings.TrimRight(b.String(), "\n") + o.asked.note()
}

// describe writes an element as both tools' text shows it: role, name, the value after
// "=" and the states in brackets (a field's text, a check box's [checked]).
func describe(b *strings.Builder, role, name, value string, states []string) {
	fmt.Fprintf(b, "%s %q", role, name)
	if value != "" {
		fmt.Fprintf(b, " = %q", value)
	}
	for _, s := range states {
		fmt.Fprintf(b, " [%s]", s)
	}
}

// FindUIIn is find_ui_element's input.
type FindUIIn struct {
	Text         string `json:"text,omitempty" jsonschema:"in name or value"`
	Role         string `json:"role,omitempty" jsonschema:"Button, Edit, CheckBox..."`
	Name         string `json:"name,omitempty" jsonschema:"wins over text"`
	WindowHandle uint32 `json:"windowHandle,omitempty" jsonschema:"from list_windows; default: foreground"`
}

// FindUIOut lists matches, best first.
type FindUIOut struct {
	Matches []desktop.Match `json:"matches"`
	// otherRoles: when no element of the role asked for matches, those of other roles that
	// match the rest of the query (toolkits differ: Qt's menu bar holds menu items, GTK's
	// menus); the text names them.
	otherRoles []desktop.Match
	// noFocus: nothing was searched, as no window has the focus (the text says so, as an
	// empty result would read as a window without such an element).
	noFocus bool
	// asked: how many tries the search took (the text says it after more than one).
	asked asked
}

func (o FindUIOut) Text() string {
	var b strings.Builder
	for _, m := range o.Matches {
		describe(&b, m.Role, m.Name, m.Value, m.States)
		fmt.Fprintf(&b, " at %d,%d (%dx%d)\n", m.CenterX, m.CenterY, m.Width, m.Height)
	}
	if len(o.Matches) == 0 && o.noFocus {
		return "no window has the focus: nothing was searched (activate_window first, or give windowHandle)"
	}
	if len(o.Matches) == 0 {
		b.WriteString("no element matches")
		if len(o.otherRoles) > 0 {
			b.WriteString(" with that role; of other roles:")
		}
		b.WriteString("\n")
	}
	for _, m := range o.otherRoles {
		b.WriteString("  ")
		describe(&b, m.Role, m.Name, m.Value, m.States)
		fmt.Fprintf(&b, " at %d,%d (%dx%d)\n", m.CenterX, m.CenterY, m.Width, m.Height)
	}
	return strings.TrimRight(b.String(), "\n") + o.asked.note()
}

// a11yPatience is how long get_accessibility_tree and find_ui_element go on asking again
// when an application did not answer within desktop.CallTimeout: on a loaded machine (load
// 20) Geany and gnome-calculator answered the first walk of a window after more than 3 s,
// and an agent that took the TIMEOUT for an answer gave up on a window that was there.
// While the application that did not answer works (proc.Work: it uses CPU time or waits
// for the CPU), they go on up to a11yMaxWait: at a load of 15 l3afpad, listing completions
// in its file chooser, answered no walk for more than 7 s.
const (
	a11yPatience = 10 * time.Second
	a11yMaxWait  = 30 * time.Second
)

// a11yPause is the pause between two tries.
const a11yPause = 250 * time.Millisecond

// asked is how a patient look went: how many tries over how long.
type asked struct {
	tries  int
	waited time.Duration
}

// note is what a result's text says of it: nothing after one try.
func (a asked) note() string {
	if a.tries < 2 {
		return ""
	}
	return fmt.Sprintf("\n(asked %d times over %s: the application was busy or starting)", a.tries, a.waited.Round(100*time.Millisecond))
}

// patiently calls look again while it times out (werr.Timeout) or its window's application
// has not registered yet (a retryable NOT_FOUND), as long as a new try can end within
// a11yPatience of the first, or, while the application that did not answer works, within
// a11yMaxWait; a last such error says how long it waited and what to do.
func patiently[T any](ctx context.Context, look func() (T, error)) (T, asked, error) {
	start := time.Now()
	var work *proc.Work
	for tries := 1; ; tries++ {
		v, err := look()
		a := asked{tries: tries, waited: time.Since(start)}
		if e := werr.As(err); err == nil || ctx.Err() != nil || e.Code != werr.Timeout && !(e.Code == werr.NotFound && e.Retryable) {
			return v, a, err
		}
		var u *desktop.Unanswered
		if work == nil && errors.As(err, &u) {
			work = proc.NewWork(u.PID, start)
		}
		now := time.Now()
		if work != nil {
			work.Look(now)
		}
		working := work != nil && !work.Idle(now)
		if end := now.Sub(start) + desktop.CallTimeout; end > a11yMaxWait || end > a11yPatience && !working {
			why := "the application is busy (a loaded machine makes it slow) or hung"
			if work != nil && work.Idle(now) {
				why = "the application has been idle (no CPU time used) for 2 s: it is stopped or waits for something"
			} else if work != nil {
				why = fmt.Sprintf("the application worked all along (%s of CPU time): the machine is loaded or the application slow", work.Used())
			}
			return v, a, werr.As(err).WithHint("%d tries over %s: %s; call again later, or read the window with analyze_screen",
				tries, a.waited.Round(100*time.Millisecond), why).WithDetail("tries", tries)
		}
		select {
		case <-ctx.Done():
			return v, a, err
		case <-time.After(a11yPause):
		}
	}
}

// otherRolesShown is how many elements of other roles an empty result's text names.
const otherRolesShown = 3

// GetAccessibilityTree is the tool get_accessibility_tree (w365 get-accessibility-tree).
var GetAccessibilityTree = tool.Define(tool.Tool{
	Name: "get_accessibility_tree", Legacy: []string{"mcp_accessibility_get_accessibility_tree"}, Aliases: []string{"a11y-tree", "tree"},
	Summary: "Foreground window's accessibility tree, with click points",
	Long: "Walks the foreground window's accessibility tree (AT-SPI on Linux, UI Automation on Windows): role\n" +
		"(UI Automation names, with the native role kept), name, value and screen rectangle of each\n" +
		"visible element. Depth 1-10 (default 3), at most maxElements (default 500) cut breadth-first;\n" +
		"the result says how many elements have children below maxDepth.",
	Example:     "  $ w365 get-accessibility-tree --max-depth 5\n  $ w365 tree --json",
	Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, in TreeIn) (TreeOut, error) {
	t, err := a11yOf(ctx, env)
	if err != nil {
		return TreeOut{}, err
	}
	var meta desktop.Meta
	root, a, err := patiently(ctx, func() (desktop.Node, error) {
		var root desktop.Node
		var err error
		root, meta, err = t.Tree(ctx, in.MaxDepth, in.MaxElements)
		return root, err
	})
	return TreeOut{Root: root, Truncated: meta.Truncated, Count: meta.Count, Deeper: meta.Deeper, MaxDepth: meta.MaxDepth, asked: a}, err
})

// FindUIElement is the tool find_ui_element (w365 find-ui-element).
var FindUIElement = tool.Define(tool.Tool{
	Name: "find_ui_element", Legacy: []string{"mcp_accessibility_find_ui_element"}, Aliases: []string{"find"},
	Summary: "Find UI elements by text, role or name, with click points",
	Long: "Searches the foreground window (or windowHandle) for elements; give at least one of text, role\n" +
		"and name (name wins over text; case-insensitive substring). Best match first; pass centerX and\n" +
		"centerY to click.",
	Example:     "  $ w365 find-ui-element --role Button --name Submit\n  $ w365 find --text 'Save changes'",
	Annotations: tool.Observe, AnyOf: [][]string{{"text", "role", "name"}},
}, func(ctx context.Context, env *tool.Env, in FindUIIn) (FindUIOut, error) {
	t, err := a11yOf(ctx, env)
	if err != nil {
		return FindUIOut{}, err
	}
	q := desktop.FindQuery{Text: in.Text, Role: in.Role, Name: in.Name, WindowHandle: in.WindowHandle}
	ms, a, err := patiently(ctx, func() ([]desktop.Match, error) { return t.Find(ctx, q) })
	if ms == nil {
		ms = []desktop.Match{}
	}
	out := FindUIOut{Matches: ms, asked: a}
	if err == nil && len(ms) == 0 && q.WindowHandle == 0 {
		// The tree of the foreground window is empty only when there is none.
		if _, meta, terr := t.Tree(ctx, 1, 1); terr == nil && meta.Count == 0 {
			out.noFocus = true
			return out, nil
		}
	}
	if err == nil && len(ms) == 0 && q.Role != "" && (q.Name != "" || q.Text != "") {
		q.Role = ""
		if others, err := t.Find(ctx, q); err == nil {
			out.otherRoles = others[:min(len(others), otherRolesShown)]
		}
	}
	return out, err
})
