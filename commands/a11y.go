package commands

import (
	"context"
	"fmt"
	"image"
	"strings"

	"github.com/w365/w365/engine/a11y"
	"github.com/w365/w365/engine/ocr"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// a11yOf is the session's connection to its accessibility bus.
func a11yOf(ctx context.Context, env *Env) (*a11y.Tree, error) {
	return session.Use(env.Session, "a11y", func(s *session.Session) (*a11y.Tree, error) {
		return a11y.Open(ctx, s.Desktop.Getenv("DBUS_SESSION_BUS_ADDRESS"), s.Desktop.Name)
	})
}

// TreeIn is get_accessibility_tree's input.
type TreeIn struct {
	MaxDepth    int `json:"maxDepth,omitempty" jsonschema:"levels below the window to include" w365:"min=1,max=10,default=3"`
	MaxElements int `json:"maxElements,omitempty" jsonschema:"most elements returned; the tree is cut breadth-first beyond it" w365:"min=1,max=2000,default=500"`
}

// TreeOut is the foreground window's tree.
type TreeOut struct {
	Root      a11y.Node `json:"root"`
	Truncated bool      `json:"truncated" jsonschema:"true when maxElements cut the tree"`
	Count     int       `json:"count"`
}

func (o TreeOut) Text() string {
	var b strings.Builder
	var walk func(n a11y.Node, depth int)
	walk = func(n a11y.Node, depth int) {
		fmt.Fprintf(&b, "%s%s %q", strings.Repeat("  ", depth), n.Role, n.Name)
		if n.Value != "" {
			fmt.Fprintf(&b, " = %q", n.Value)
		}
		fmt.Fprintf(&b, " [%d,%d %dx%d]\n", n.X, n.Y, n.Width, n.Height)
		for _, c := range n.Children {
			walk(c, depth+1)
		}
	}
	walk(o.Root, 0)
	if o.Truncated {
		fmt.Fprintf(&b, "[cut at %d elements: raise maxElements or lower maxDepth]\n", o.Count)
	}
	return strings.TrimRight(b.String(), "\n")
}

// FindUIIn is find_ui_element's input.
type FindUIIn struct {
	Text         string `json:"text,omitempty" jsonschema:"text shown by the element (matched against name and value)"`
	Role         string `json:"role,omitempty" jsonschema:"UI Automation control type (Button, Edit, CheckBox, MenuItem, ...), an alias (TextBox) or an AT-SPI role (push button)"`
	Name         string `json:"name,omitempty" jsonschema:"accessible name; wins over text"`
	WindowHandle uint32 `json:"windowHandle,omitempty" jsonschema:"X window id from list_windows; default: the foreground window"`
}

// FindUIOut lists matches, best first.
type FindUIOut struct {
	Matches []a11y.Match `json:"matches"`
}

func (o FindUIOut) Text() string {
	var b strings.Builder
	for _, m := range o.Matches {
		fmt.Fprintf(&b, "%s %q at %d,%d (%dx%d)\n", m.Role, m.Name, m.CenterX, m.CenterY, m.Width, m.Height)
	}
	return strings.TrimRight(b.String(), "\n")
}

// OCROut is analyze_screen's result.
type OCROut struct{ ocr.Result }

func (o OCROut) Text() string {
	return fmt.Sprintf("%s\n[%d words, confidence %.0f, %d ms]", o.FullText, len(o.Boxes), o.AverageConfidence, o.ElapsedMs)
}

func init() {
	register(
		Define(Tool{
			Name: "get_accessibility_tree", Legacy: []string{"mcp_accessibility_get_accessibility_tree"}, Aliases: []string{"a11y-tree", "tree"},
			Summary: "The accessibility tree of the foreground window, with clickable screen coordinates",
			Long: "Walks the foreground window's accessibility tree (AT-SPI on Linux): role (UI Automation names,\n" +
				"with the native role kept), name, value and screen rectangle of each visible element. Depth\n" +
				"1-10 (default 3), at most maxElements (default 500) cut breadth-first.",
			Example: "  $ w365 get-accessibility-tree --max-depth 5\n  $ w365 tree --json",
			Toolset: "a11y", Annotations: Observe,
		}, func(ctx context.Context, env *Env, in TreeIn) (TreeOut, error) {
			t, err := a11yOf(ctx, env)
			if err != nil {
				return TreeOut{}, err
			}
			root, meta, err := t.Tree(ctx, in.MaxDepth, in.MaxElements)
			return TreeOut{Root: root, Truncated: meta.Truncated, Count: meta.Count}, err
		}),
		Define(Tool{
			Name: "find_ui_element", Legacy: []string{"mcp_accessibility_find_ui_element"}, Aliases: []string{"find"},
			Summary: "Find UI elements by text, role or name, with a centre point to click",
			Long: "Searches the foreground window (or windowHandle) for elements; give at least one of text, role\n" +
				"and name (name wins over text; case-insensitive substring). Best match first; pass centerX and\n" +
				"centerY to click.",
			Example: "  $ w365 find-ui-element --role Button --name Submit\n  $ w365 find --text 'Save changes'",
			Toolset: "a11y", Annotations: Observe,
		}, func(ctx context.Context, env *Env, in FindUIIn) (FindUIOut, error) {
			if in.Text == "" && in.Role == "" && in.Name == "" {
				return FindUIOut{}, werr.Invalid("give at least one of text, role and name")
			}
			t, err := a11yOf(ctx, env)
			if err != nil {
				return FindUIOut{}, err
			}
			ms, err := t.Find(ctx, a11y.FindQuery{Text: in.Text, Role: in.Role, Name: in.Name, WindowHandle: in.WindowHandle})
			if ms == nil {
				ms = []a11y.Match{}
			}
			return FindUIOut{ms}, err
		}),
		Define(Tool{
			Name: "analyze_screen", Legacy: []string{"mcp_desktop_analyze_screen"}, Aliases: []string{"ocr"},
			Summary: "Read all text on the screen with OCR, with word boxes in screen coordinates",
			Long: "Captures the screen and runs OCR (tesseract) on it, preprocessed for UI text on light and dark\n" +
				"backgrounds. Returns fullText in reading order, averageConfidence and a box per word.",
			Example: "  $ w365 analyze-screen\n  $ w365 ocr --json | jq '.boxes[] | select(.text==\"OK\")'",
			Toolset: "screen", Annotations: Observe,
		}, func(ctx context.Context, env *Env, _ None) (OCROut, error) {
			s, err := screenOf(env)
			if err != nil {
				return OCROut{}, err
			}
			img, err := s.Capture(ctx, image.Rectangle{})
			if err != nil {
				return OCROut{}, err
			}
			r, err := ocr.Analyze(ctx, img, ocr.Options{})
			return OCROut{r}, err
		}),
	)
}
