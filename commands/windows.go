package commands

import (
	"context"
	"fmt"
	"strings"

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
	Windows []desktop.Window `json:"windows"`
}

func (o WindowsOut) Text() string {
	var b strings.Builder
	for _, w := range o.Windows {
		fmt.Fprintf(&b, "0x%08x %5d,%-5d %5dx%-5d %-12s %s\n", w.Handle, w.X, w.Y, w.Width, w.Height, w.ProcessName, w.Title)
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
	return fmt.Sprintf("%q (%s) at %d,%d %dx%d", w.Title, w.ProcessName, w.X, w.Y, w.Width, w.Height)
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
	Summary: "List visible windows with title, process, handle and geometry",
	Long: "Every visible top-level window: title, processName, handle (the X window id), and x, y,\n" +
		"width, height of the frame in screen coordinates, as a user would click it.",
	Example:     "  $ w365 list-windows\n  $ w365 windows --json",
	Annotations: tool.Observe,
}, func(ctx context.Context, env *tool.Env, _ None) (WindowsOut, error) {
	wm, err := windowsOf(env)
	if err != nil {
		return WindowsOut{}, err
	}
	ws, err := wm.List(ctx)
	if ws == nil {
		ws = []desktop.Window{}
	}
	return WindowsOut{ws}, err
})

// ActivateWindow is the tool activate_window (w365 activate-window).
var ActivateWindow = tool.Define(tool.Tool{
	Name: "activate_window", Legacy: []string{"mcp_desktop_activate_window"}, Aliases: []string{"activate"},
	Summary: "Bring a window to the front by part of its title",
	Long: "Case-insensitive substring match, best match first (exact, then prefix, then substring);\n" +
		"raises and focuses the window. NOT_FOUND lists the nearest titles.",
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
	Summary: "Close a window gracefully by title (80% fuzzy match)",
	Long: "Asks the window to close through its own close protocol, never by killing it; an application\n" +
		"that asks \"save changes?\" stays open and closed is false. The title must be at least 80%\n" +
		"similar to part of the window's title and cover at least 80% of it, so a few letters close\n" +
		"nothing (NOT_FOUND); a title that fits several windows closes none (INVALID_ARGUMENT, with the\n" +
		"candidates). Windows of protected processes are refused with PROTECTED_PROCESS.",
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
	return wm.CloseWindow(ctx, title, protection(env).ProtectedPID)
})

// ResizeWindow is the tool resize_window (w365 resize-window).
var ResizeWindow = tool.Define(tool.Tool{
	Name: "resize_window", Legacy: []string{"mcp_desktop_resize_window"}, Aliases: []string{"resize"},
	Summary: "Resize, move, maximize, minimize or restore a window by title",
	Long: "Resize needs width and height (x and y optional), Move needs x and y. The result is the\n" +
		"geometry read back from the window manager after the change.",
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
