package desktop

import (
	"image"
	"math"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

// Limits of a Find walk: deep enough for web pages, bounded for huge lists.
const (
	FindMaxDepth    = 40   // the depth of a Find walk
	FindMaxElements = 5000 // the elements a Find walk reads at most
	// MaxMatches caps the matches Find returns.
	MaxMatches = 100
)

// CallTimeout bounds every round trip to an application (a D-Bus call, a UI Automation
// transaction); a busy application must not hang a tool call.
const CallTimeout = 3 * time.Second

// Unanswered is the cause of an accessibility call's TIMEOUT when the process that did not
// answer is known: the caller may ask again while that process works (a loaded machine)
// rather than while it is stopped or hung.
type Unanswered struct {
	PID int // as this process sees it
	Err error
}

func (u *Unanswered) Error() string { return u.Err.Error() }
func (u *Unanswered) Unwrap() error { return u.Err }

// UnansweredBy is err with the process pid named as the one that did not answer, when err
// is a TIMEOUT and pid is known; otherwise err.
func UnansweredBy(err error, pid int) error {
	e := werr.As(err)
	if err == nil || pid <= 0 || e.Code != werr.Timeout {
		return err
	}
	w := werr.Wrap(&Unanswered{PID: pid, Err: err}, e.Code, "%s", e.Message).WithRetryable(e.Retryable)
	w.Hint = e.Hint
	for k, v := range e.Details {
		w = w.WithDetail(k, v)
	}
	return w
}

// MaxValueChars caps the text read as an editable field's value.
const MaxValueChars = 4096

// TreeLimits checks a Tree request's limits: zero takes the policy default, larger
// values are clamped to the policy maximum.
func TreeLimits(maxDepth, maxElements int) (int, int, error) {
	p := policy.Default()
	if maxDepth < 0 || maxElements < 0 {
		return 0, 0, werr.Invalid("maxDepth and maxElements must be positive")
	}
	if maxDepth == 0 {
		maxDepth = p.A11yDepthDefault
	}
	if maxElements == 0 {
		maxElements = p.A11yElementsDefault
	}
	return min(maxDepth, p.A11yDepthMax), min(maxElements, p.A11yElementsMax), nil
}

// NeedleOf is the lower-case string a FindQuery's name or text looks for, and whether
// it is the text (matched against values too). It refuses a query with nothing to look for.
func NeedleOf(q FindQuery) (needle string, useValue bool, err error) {
	name := q.Name
	if name == "" {
		name = q.Text
		useValue = true
	}
	if strings.TrimSpace(name) == "" && strings.TrimSpace(q.Role) == "" {
		return "", false, werr.Invalid("give at least one of text, role, name")
	}
	return strings.ToLower(strings.TrimSpace(name)), useValue, nil
}

// UnknownRole is the error for a role query nothing resolves.
func UnknownRole(q string) error {
	return werr.Invalid("unknown role %q", q).
		WithHint("use a UI Automation name (Button, Edit, CheckBox...), an alias (TextBox) or an AT-SPI role name").
		WithDetail("roles", KnownRoles())
}

// Candidate is one element a Find keeps, before ranking.
type Candidate struct {
	M Match
	// Score is the MatchRank of the name (0 exact, 1 prefix, 2 substring), NoMatch for a
	// match by role only; +3 when the value matched instead of the name.
	Score int
	Order int // breadth-first position
	// OnScreen: the element has a non-empty rectangle.
	OnScreen, Enabled bool
	// Point is where a click goes into the element when its centre does not (a spin
	// button's number); nil for the centre.
	Point *image.Point
}

// Uncover moves the click point of c off the windows covers (the frames of the windows
// stacked above its own) when it lies under one, to the point of its box nearest its centre
// on a grid of 8 by 8 steps that none covers; it says whether its click point is uncovered.
// mtPaint keeps its Settings Toolbar above its main window, over the Image menu's centre:
// the click the search offered there landed on the toolbar.
func Uncover(c *Candidate, covers []Rect) bool {
	under := func(x, y int) bool {
		for _, r := range covers {
			if x >= r.X && y >= r.Y && x < r.X+r.Width && y < r.Y+r.Height {
				return true
			}
		}
		return false
	}
	m := c.M
	cx, cy := m.X+m.Width/2, m.Y+m.Height/2
	if c.Point != nil {
		cx, cy = c.Point.X, c.Point.Y
	}
	if !under(cx, cy) {
		return true
	}
	best, bestD := (*image.Point)(nil), 0
	for i := 1; i < 8; i++ {
		for j := 1; j < 8; j++ {
			x, y := m.X+m.Width*i/8, m.Y+m.Height*j/8
			if d := (x-cx)*(x-cx) + (y-cy)*(y-cy); !under(x, y) && (best == nil || d < bestD) {
				best, bestD = &image.Point{X: x, Y: y}, d
			}
		}
	}
	if best != nil {
		c.Point = best
	}
	return best != nil
}

// Ranked orders Find's candidates best first (exact name, then prefix, then substring;
// on screen and enabled before hidden or disabled; then breadth-first) and keeps at most
// MaxMatches, with their centre points.
func Ranked(cs []Candidate) []Match {
	rank := func(c Candidate) int {
		r := c.Score * 4
		if !c.OnScreen {
			r += 2
		}
		if !c.Enabled {
			r++
		}
		return r
	}
	sort.SliceStable(cs, func(i, j int) bool {
		ra, rb := rank(cs[i]), rank(cs[j])
		if ra != rb {
			return ra < rb
		}
		return cs[i].Order < cs[j].Order
	})
	out := make([]Match, 0, min(len(cs), MaxMatches))
	for _, c := range cs {
		if len(out) == MaxMatches {
			break
		}
		m := c.M
		m.CenterX, m.CenterY = m.X+m.Width/2, m.Y+m.Height/2
		if c.Point != nil {
			m.CenterX, m.CenterY = c.Point.X, c.Point.Y
		}
		out = append(out, m)
	}
	return out
}

// FormatValue is a range value (a float) or a text as a Node value.
func FormatValue(v any) string {
	switch x := v.(type) {
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return formatInt(int64(x))
		}
		return formatFloat(x)
	case string:
		return x
	}
	return ""
}

func formatInt(v int64) string     { return strconv.FormatInt(v, 10) }
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// Assemble builds the tree rooted at node 0 of a breadth-first walk of count nodes
// (parents first; parent(i) is -1 for the root), node(i) making node i without children.
func Assemble(count int, parent func(i int) int, node func(i int) Node) Node {
	kids := make([][]int, count)
	for i := range count {
		if p := parent(i); p >= 0 {
			kids[p] = append(kids[p], i)
		}
	}
	var mk func(i int) Node
	mk = func(i int) Node {
		out := node(i)
		for _, k := range kids[i] {
			out.Children = append(out.Children, mk(k))
		}
		return out
	}
	return mk(0)
}

// controlTypes are the UI Automation control types (UIA_ButtonControlTypeId = 50000 ...
// UIA_AppBarControlTypeId = 50040 in UIAutomationClient.h), by id. These are the role
// names every platform reports: the reference is a Windows product.
var controlTypes = map[int32]string{
	50000: "Button", 50001: "Calendar", 50002: "CheckBox", 50003: "ComboBox", 50004: "Edit",
	50005: "Hyperlink", 50006: "Image", 50007: "ListItem", 50008: "List", 50009: "Menu",
	50010: "MenuBar", 50011: "MenuItem", 50012: "ProgressBar", 50013: "RadioButton",
	50014: "ScrollBar", 50015: "Slider", 50016: "Spinner", 50017: "StatusBar", 50018: "Tab",
	50019: "TabItem", 50020: "Text", 50021: "ToolBar", 50022: "ToolTip", 50023: "Tree",
	50024: "TreeItem", 50025: "Custom", 50026: "Group", 50027: "Thumb", 50028: "DataGrid",
	50029: "DataItem", 50030: "Document", 50031: "SplitButton", 50032: "Window", 50033: "Pane",
	50034: "Header", 50035: "HeaderItem", 50036: "Table", 50037: "TitleBar", 50038: "Separator",
	50039: "SemanticZoom", 50040: "AppBar",
}

// ControlTypeName is the name of a UIA control type id; ids this table does not know
// (newer Windows releases) are Custom, with the id kept in the native name.
func ControlTypeName(id int32) (role, native string) {
	if n, ok := controlTypes[id]; ok {
		return n, n
	}
	return "Custom", "ControlType " + strconv.Itoa(int(id))
}

// aliases are the names people use for UIA control types.
var aliases = map[string]string{
	"textbox": "Edit", "textfield": "Edit", "textinput": "Edit", "input": "Edit",
	"textarea": "Edit", "editbox": "Edit", "searchbox": "Edit",
	"label": "Text", "statictext": "Text",
	"link": "Hyperlink", "anchor": "Hyperlink",
	"checkbox": "CheckBox", "check": "CheckBox", "toggle": "CheckBox",
	"radio": "RadioButton", "radiobutton": "RadioButton",
	"dropdown": "ComboBox", "select": "ComboBox", "combo": "ComboBox", "combobox": "ComboBox",
	"tablist": "Tab", "tabs": "Tab", "tabcontrol": "Tab", "tabitem": "TabItem",
	"menuitem": "MenuItem", "menubar": "MenuBar", "listitem": "ListItem",
	"listbox": "List", "treeitem": "TreeItem", "treeview": "Tree",
	"picture": "Image", "img": "Image", "toolbar": "ToolBar", "statusbar": "StatusBar",
	"scrollbar": "ScrollBar", "progressbar": "ProgressBar", "progress": "ProgressBar",
	"grid": "Table", "datagrid": "Table", "cell": "DataItem", "row": "DataItem",
	"dataitem": "DataItem", "headeritem": "HeaderItem", "columnheader": "HeaderItem",
	"panel": "Pane", "dialog": "Window", "frame": "Window", "spinbutton": "Spinner",
	"spinner": "Spinner", "titlebar": "TitleBar", "tooltip": "ToolTip", "group": "Group",
}

// uiaNames is every UIA control-type name, by normalised name (built at first use, not
// at every one-shot start).
var uiaNames = sync.OnceValue(func() map[string]string {
	m := map[string]string{}
	for _, v := range controlTypes {
		m[NormRole(v)] = v
	}
	return m
})

// roleSeparators are dropped from role names before they are compared. Built once: a
// Replacer allocates its tables, and normRole runs for every role at start-up.
var roleSeparators = strings.NewReplacer(" ", "", "_", "", "-", "")

// NormRole is a role name as role queries compare it: lower case, without spaces,
// underscores and dashes.
func NormRole(s string) string {
	return roleSeparators.Replace(strings.ToLower(strings.TrimSpace(s)))
}

// UIARole resolves a role query to a UIA control-type name: the names themselves
// (any case and spacing), then the aliases. ok is false when neither matches.
func UIARole(q string) (name string, ok bool) {
	n := NormRole(q)
	if v, ok := uiaNames()[n]; ok {
		return v, true
	}
	v, ok := aliases[n]
	return v, ok
}

// KnownRoles lists the UIA control-type names a role query accepts (aliases, and on
// Linux the native AT-SPI names, are accepted too).
func KnownRoles() []string {
	var out []string
	for _, v := range uiaNames() {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
