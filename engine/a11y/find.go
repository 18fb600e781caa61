package a11y

import (
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

// The tree's types are the platform-neutral ones, so that a Tree (AT-SPI) or a UIA
// serves as desktop.Accessibility as it is. NativeRole is the AT-SPI role name
// (at-spi2-core 2.46 spelling) on Linux and the control type on Windows;
// FindQuery.WindowHandle is an X window id or an HWND.
type (
	Node      = desktop.Node
	Meta      = desktop.Meta
	FindQuery = desktop.FindQuery
	Match     = desktop.Match
)

// Limits of a Find walk: deep enough for web pages, bounded for huge lists.
const (
	findMaxDepth    = 40
	findMaxElements = 5000
	// MaxMatches caps the matches Find returns.
	MaxMatches = 100
)

// callTimeout bounds every round trip to an application (a D-Bus call, a UI Automation
// transaction); a busy application must not hang a tool call.
const callTimeout = 3 * time.Second

// maxValueChars caps the text read as an editable field's value.
const maxValueChars = 4096

// treeLimits checks a Tree request's limits: zero takes the policy default, larger
// values are clamped to the policy maximum.
func treeLimits(maxDepth, maxElements int) (int, int, error) {
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

// needleOf is the lower-case string a FindQuery's name or text looks for, and whether
// it is the text (matched against values too). It refuses a query with nothing to look for.
func needleOf(q FindQuery) (needle string, useValue bool, err error) {
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

// unknownRole is the error for a role query nothing resolves.
func unknownRole(q string) error {
	return werr.Invalid("unknown role %q", q).
		WithHint("use a UI Automation name (Button, Edit, CheckBox...), an alias (TextBox) or an AT-SPI role name").
		WithDetail("roles", KnownRoles())
}

// candidate is one element a Find keeps, before ranking.
type candidate struct {
	m Match
	// score: 0 exact name, 1 prefix, 2 substring, 3 role only; +3 when the value matched.
	score int
	order int // breadth-first position
	// onScreen: the element has a non-empty rectangle.
	onScreen, enabled bool
}

// ranked orders Find's candidates best first (exact name, then prefix, then substring;
// on screen and enabled before hidden or disabled; then breadth-first) and keeps at most
// MaxMatches, with their centre points.
func ranked(cs []candidate) []Match {
	rank := func(c candidate) int {
		r := c.score * 4
		if !c.onScreen {
			r += 2
		}
		if !c.enabled {
			r++
		}
		return r
	}
	sort.SliceStable(cs, func(i, j int) bool {
		ra, rb := rank(cs[i]), rank(cs[j])
		if ra != rb {
			return ra < rb
		}
		return cs[i].order < cs[j].order
	})
	out := make([]Match, 0, min(len(cs), MaxMatches))
	for _, c := range cs {
		if len(out) == MaxMatches {
			break
		}
		m := c.m
		m.CenterX, m.CenterY = m.X+m.Width/2, m.Y+m.Height/2
		out = append(out, m)
	}
	return out
}

// nameScore: 0 exact, 1 prefix, 2 substring, -1 no match (both lower case).
func nameScore(have, want string) int {
	have = strings.TrimSpace(have)
	switch {
	case have == want:
		return 0
	case strings.HasPrefix(have, want):
		return 1
	case strings.Contains(have, want):
		return 2
	}
	return -1
}

// formatValue is a range value (a float) or a text as a Node value.
func formatValue(v any) string {
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

// assemble builds the tree rooted at node 0 of a breadth-first walk of count nodes
// (parents first; parent(i) is -1 for the root), node(i) making node i without children.
func assemble(count int, parent func(i int) int, node func(i int) Node) Node {
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
