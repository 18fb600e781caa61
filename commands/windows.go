package commands

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/proc"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
)

// windowsTools are the tools of the windows toolset, in the order help lists them.
var windowsTools = []*tool.Tool{
	ListWindows,
	ActivateWindow,
	FocusBrowser,
	CloseWindow,
	ResizeWindow,
}

// windowsOf is the session's window manager connection.
func windowsOf(env *tool.Env) (desktop.Windows, error) {
	return session.Use(env.Session, "windows", func(s *session.Session) (desktop.Windows, error) {
		return s.Desktop.OpenWindows()
	})
}

// protection is what close_window and kill_process refuse to touch: PID 1, kernel
// threads, every session's display server, bus and window manager, the host and its
// parents, and the policy's names.
func protection(env *tool.Env) proc.Protection {
	return proc.Protection{
		PIDs:  env.Host.ProtectedPIDs(),
		Names: env.Policy.ProtectedProcesses,
	}
}

// TitleIn picks a window by title (V1/V2 spell it titlePattern: titleSpellings).
type TitleIn struct {
	Title string `json:"title" jsonschema:"part of the title, any case" w365:"minLength=1"`
}

// titleSpellings are the older spellings of TitleIn's fields.
var titleSpellings = map[string]string{"titlePattern": "title"}

func (in TitleIn) title() (string, error) {
	if strings.TrimSpace(in.Title) == "" {
		return "", werr.Invalid("title must not be blank")
	}
	return in.Title, nil
}

// WindowsOut lists windows.
type WindowsOut struct {
	Windows []ListedWindow `json:"windows"`
}

// ListedWindow is one window of list_windows, with the pop-ups its application shows.
type ListedWindow struct {
	desktop.Window
	Popups []desktop.Rect `json:"popups,omitempty" jsonschema:"open menus, drop-down lists and tooltips the window's application shows now (Linux), screen coordinates; their items are in its accessibility tree"`
}

func (o WindowsOut) Text() string {
	var b strings.Builder
	for _, w := range o.Windows {
		title := w.Title
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(&b, "0x%08x %5d,%-5d %5dx%-5d %-12s %s", w.Handle, w.X, w.Y, w.Width, w.Height, w.ProcessName, title)
		if w.Splash {
			b.WriteString(" (splash screen)")
		}
		b.WriteString("\n")
		for _, p := range w.Popups {
			fmt.Fprintf(&b, "  pop-up    %5d,%-5d %5dx%-5d\n", p.X, p.Y, p.Width, p.Height)
		}
	}
	if b.Len() == 0 {
		return "no windows"
	}
	return strings.TrimRight(b.String(), "\n")
}

// WindowOut is one window.
type WindowOut struct {
	Window desktop.Window `json:"window"`
}

func (o WindowOut) Text() string {
	w := o.Window
	c := w.Client
	return fmt.Sprintf("%q (%s) frame at %d,%d %dx%d, client at %d,%d %dx%d", w.Title, w.ProcessName, w.X, w.Y, w.Width, w.Height,
		c.X, c.Y, c.Width, c.Height)
}

// FocusBrowserIn is focus_browser's input.
type FocusBrowserIn struct {
	Pattern string `json:"pattern,omitempty" jsonschema:"part of URL or title"`
}

// ResizeIn is resize_window's input.
type ResizeIn struct {
	Title  string `json:"title" jsonschema:"part of the title, any case" w365:"minLength=1"`
	Action string `json:"action" jsonschema:"Resize: width, height, x?, y?; Move: x, y" w365:"enum=Resize|Move|Maximize|Minimize|Restore"`
	X      *int   `json:"x,omitempty"`
	Y      *int   `json:"y,omitempty"`
	Width  *int   `json:"width,omitempty" w365:"min=1"`
	Height *int   `json:"height,omitempty" w365:"min=1"`
}

// ListWindows is the tool list_windows (w365 list-windows).
var ListWindows = tool.Define(tool.Tool{
	Name: "list_windows", Legacy: []string{"mcp_desktop_list_windows"}, Aliases: []string{"windows"},
	Summary: "List visible windows: title, process, handle, frame, client area",
	Long: "Every visible top-level window: title, processName, handle (the X window id), x, y, width,\n" +
		"height of the outer frame (title bar and borders included) and client, the application's area\n" +
		"inside it, in screen coordinates. An open menu, drop-down list or tooltip is no window of its\n" +
		"own: the window whose application shows it lists it in popups (Linux), and its items are in\n" +
		"that window's accessibility tree.",
	Example:     "  $ w365 list-windows\n  $ w365 windows --json",
	Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, _ None) (WindowsOut, error) {
	wm, err := windowsOf(env)
	if err != nil {
		return WindowsOut{}, err
	}
	ws, err := wm.List(ctx)
	var pops map[uint32][]desktop.Rect
	if pl, ok := wm.(desktop.PopupLister); ok && err == nil {
		pops, err = pl.Popups(ctx, ws)
	}
	out := WindowsOut{Windows: make([]ListedWindow, len(ws))}
	for i, w := range ws {
		out.Windows[i] = ListedWindow{Window: w, Popups: pops[w.Handle]}
	}
	return out, err
})

// titleRule is how every tool that takes a window title matches it (desktop.TitleMatches).
const titleRule = "The title is a part of the window's title, any case and spacing; when no title contains it,\n" +
	"a title that contains it with at most a fifth of its characters changed (80% similar) counts.\n" +
	"Best first: exact, prefix, substring, then the shortest title. NOT_FOUND lists the nearest titles."

// ActivateWindow is the tool activate_window (w365 activate-window).
var ActivateWindow = tool.Define(tool.Tool{
	Name: "activate_window", Legacy: []string{"mcp_desktop_activate_window"}, Aliases: []string{"activate"},
	Summary: "Bring a window to the front by part of its title",
	Long:    "Raises and focuses the window.\n" + titleRule,
	Example: "  $ w365 activate-window Firefox\n  $ w365 activate --title 'Untitled - Notes'",
	Args:    []string{"title"}, Spellings: titleSpellings,
	Annotations: tool.Set,
}, func(ctx context.Context, env *tool.Env, in TitleIn) (WindowOut, error) {
	title, err := in.title()
	if err != nil {
		return WindowOut{}, err
	}
	wm, err := windowsOf(env)
	if err != nil {
		return WindowOut{}, err
	}
	w, err := wm.Activate(ctx, title)
	return WindowOut{w}, err
})

// FocusBrowser is the tool focus_browser (w365 focus-browser).
var FocusBrowser = tool.Define(tool.Tool{
	Name: "focus_browser", Legacy: []string{"mcp_desktop_focus_browser"},
	Summary: "Focus a browser window, optionally by part of its URL or title",
	Long: "Brings a browser window to the front. pattern matches its title or, for the browser w365\n" +
		"drives, its current tab URL. DOM tools act only on the browser w365 drives.",
	Example:     "  $ w365 focus-browser\n  $ w365 focus-browser example.com",
	Args:        []string{"pattern"},
	Annotations: tool.Set,
}, func(ctx context.Context, env *tool.Env, in FocusBrowserIn) (WindowOut, error) {
	wm, err := windowsOf(env)
	if err != nil {
		return WindowOut{}, err
	}
	ws, err := wm.List(ctx)
	if err != nil {
		return WindowOut{}, err
	}
	pids := map[uint32]int{}
	for _, w := range ws {
		pids[w.Handle] = w.PID
	}
	w, err := wm.FindBrowser(ctx, in.Pattern, browserURLOf(env, pids))
	if err != nil {
		return WindowOut{}, err
	}
	w, err = wm.Activate(ctx, w.Title)
	return WindowOut{w}, err
})

// CloseWindow is the tool close_window (w365 close-window).
var CloseWindow = tool.Define(tool.Tool{
	Name: "close_window", Legacy: []string{"mcp_desktop_close_window"},
	Summary: "Close a window by part of its title (80% fuzzy)",
	Long: "Asks the window to close through its own close protocol, never by killing it; an application\n" +
		"that asks \"save changes?\" stays open and closed is false (note names the window it opened),\n" +
		"as one whose menu is open (GTK; press escape first). A title that fits several windows\n" +
		"closes none (INVALID_ARGUMENT, with the candidates) unless one of them is exactly it. Windows of\n" +
		"protected processes are refused with PROTECTED_PROCESS.\n" + titleRule,
	Example: "  $ w365 close-window 'Untitled - Notes'",
	Args:    []string{"title"}, Spellings: titleSpellings,
	Annotations: tool.Destructive,
}, func(ctx context.Context, env *tool.Env, in TitleIn) (desktop.CloseResult, error) {
	title, err := in.title()
	if err != nil {
		return desktop.CloseResult{}, err
	}
	wm, err := windowsOf(env)
	if err != nil {
		return desktop.CloseResult{}, err
	}
	before, _ := wm.List(ctx)
	res, err := wm.CloseWindow(ctx, title, protection(env).ProtectedPID)
	if err == nil && !res.Closed {
		res.Note = stayedOpen(ctx, wm, before, res)
	}
	return res, err
})

// stayedOpen says why the window a close left open (res; before lists the windows before
// the close) may have stayed, or "": its application shows a pop-up (list_windows' popups; a GTK application
// ignores a close while its menu is open), or it opened a window of its own meanwhile (one
// that asks "save changes?"), named so that the agent answers it rather than tries again.
func stayedOpen(ctx context.Context, wm desktop.Windows, before []desktop.Window, res desktop.CloseResult) string {
	title := res.MatchedTitle
	// The window an application opens to ask may be listed a moment after the close's wait.
	for try := 0; try < 10; try++ {
		ws, err := wm.List(ctx)
		if err != nil {
			return ""
		}
		// Its process: the window's title, read before the close or now, may have changed
		// since (an editor's title follows its text); else its process's name.
		var pids []int
		for _, w := range slices.Concat(ws, before) {
			if w.Title == title {
				pids = append(pids, w.PID)
			}
		}
		ours := func(w desktop.Window) bool {
			return slices.Contains(pids, w.PID) || len(pids) == 0 && w.ProcessName == res.ProcessName
		}
		if pl, ok := wm.(desktop.PopupLister); ok && try == 0 {
			if pops, err := pl.Popups(ctx, ws); err == nil {
				for _, w := range ws {
					if w.Title == title && len(pops[w.Handle]) > 0 {
						return "its application shows a pop-up (a menu or a drop-down list) and takes no close while it is open: press escape, then close the window again"
					}
				}
			}
		}
		for _, w := range ws {
			if ours(w) && !slices.ContainsFunc(before, func(b desktop.Window) bool { return b.Handle == w.Handle }) {
				return fmt.Sprintf("its application opened the window %q, which may ask what to do with unsaved changes: answer it (activate_window, find_ui_element), and the window closes or stays as the answer says", w.Title)
			}
		}
		select {
		case <-ctx.Done():
			return ""
		case <-time.After(100 * time.Millisecond):
		}
	}
	return ""
}

// ResizeWindow is the tool resize_window (w365 resize-window).
var ResizeWindow = tool.Define(tool.Tool{
	Name: "resize_window", Legacy: []string{"mcp_desktop_resize_window"}, Aliases: []string{"resize"},
	Summary: "Resize, move, maximize, minimize or restore a window by title",
	Long: "Resize needs width and height (x and y optional), Move needs x and y: all of the window's\n" +
		"outer frame (title bar and borders included), as list_windows reports it; the call fails with\n" +
		"TIMEOUT when the window does not land there. The result is the geometry read back after the\n" +
		"change: the frame, and in client the application's area inside it.\n" + titleRule,
	Example: "  $ w365 resize-window --title Notes --action Move --x 100 --y 80\n" +
		"  $ w365 resize --title Notes --action Maximize",
	Annotations: tool.Set,
}, func(ctx context.Context, env *tool.Env, in ResizeIn) (WindowOut, error) {
	wm, err := windowsOf(env)
	if err != nil {
		return WindowOut{}, err
	}
	w, err := wm.Resize(ctx, in.Title, in.Action, in.X, in.Y, in.Width, in.Height)
	return WindowOut{w}, err
})
