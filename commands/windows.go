package commands

import (
	"context"
	"fmt"
	"strings"

	"github.com/w365/w365/engine/proc"
	"github.com/w365/w365/engine/session"
	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/engine/window"
)

// windows adapts window.Manager to the session's resource lifetime (its Close is a
// window operation, Disconnect ends the connection).
type windows struct{ *window.Manager }

func (w windows) Close() error { w.Disconnect(); return nil }

func windowsOf(env *Env) (*window.Manager, error) {
	w, err := session.Use(env.Session, "windows", func(s *session.Session) (windows, error) {
		m, err := window.Open(s.Desktop.Name)
		return windows{m}, err
	})
	return w.Manager, err
}

// protection is what close_window and kill_process refuse to touch: PID 1, kernel
// threads, every session's display server, bus and window manager, the host and its
// parents, and the policy's names.
func protection(env *Env) proc.Protection {
	return proc.Protection{
		PIDs:  append(env.Host.Sessions.PIDs(), proc.HostPIDs()...),
		Names: env.Host.Policy.ProtectedProcesses,
	}
}

// TitleIn picks a window by title; titlePattern is the V1/V2 name of the same parameter.
type TitleIn struct {
	Title        string `json:"title,omitempty" jsonschema:"part of the window title (case-insensitive); required unless titlePattern is given"`
	TitlePattern string `json:"titlePattern,omitempty" jsonschema:"legacy name of title"`
}

func (in TitleIn) title() (string, error) {
	t := in.Title
	if t == "" {
		t = in.TitlePattern
	}
	if strings.TrimSpace(t) == "" {
		return "", werr.Invalid("title is required")
	}
	return t, nil
}

// WindowsOut lists windows.
type WindowsOut struct {
	Windows []window.Window `json:"windows"`
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
	Window window.Window `json:"window"`
}

func (o WindowOut) Text() string {
	w := o.Window
	return fmt.Sprintf("%q (%s) at %d,%d %dx%d", w.Title, w.ProcessName, w.X, w.Y, w.Width, w.Height)
}

// FocusBrowserIn is focus_browser's input.
type FocusBrowserIn struct {
	Pattern string `json:"pattern,omitempty" jsonschema:"substring of the URL or title to match; omit to accept any browser window"`
}

// ResizeIn is resize_window's input.
type ResizeIn struct {
	Title  string `json:"title" jsonschema:"window title to match (case-insensitive)" w365:"minLength=1"`
	Action string `json:"action" jsonschema:"what to do; Resize takes x, y, width, height (x and y optional), Move takes x and y" w365:"enum=Resize|Move|Maximize|Minimize|Restore"`
	X      *int   `json:"x,omitempty" jsonschema:"left edge (Resize, Move)"`
	Y      *int   `json:"y,omitempty" jsonschema:"top edge (Resize, Move)"`
	Width  *int   `json:"width,omitempty" jsonschema:"width in pixels (Resize)" w365:"min=1"`
	Height *int   `json:"height,omitempty" jsonschema:"height in pixels (Resize)" w365:"min=1"`
}

func init() {
	register(
		Define(Tool{
			Name: "list_windows", Legacy: []string{"mcp_desktop_list_windows"}, Aliases: []string{"windows"},
			Summary: "List visible windows with title, process, handle and frame geometry",
			Long: "Every visible top-level window: title, processName, handle (the X window id), and x, y,\n" +
				"width, height of the frame in screen coordinates, as a user would click it.",
			Example: "  $ w365 list-windows\n  $ w365 windows --json",
			Toolset: "windows", Annotations: Observe,
		}, func(ctx context.Context, env *Env, _ None) (WindowsOut, error) {
			wm, err := windowsOf(env)
			if err != nil {
				return WindowsOut{}, err
			}
			ws, err := wm.List(ctx)
			if ws == nil {
				ws = []window.Window{}
			}
			return WindowsOut{ws}, err
		}),
		Define(Tool{
			Name: "activate_window", Legacy: []string{"mcp_desktop_activate_window"}, Aliases: []string{"activate"},
			Summary: "Bring a window to the front by part of its title",
			Long: "Case-insensitive substring match, best match first (exact, then prefix, then substring);\n" +
				"raises and focuses the window. NOT_FOUND lists the nearest titles.",
			Example: "  $ w365 activate-window Firefox\n  $ w365 activate --title 'Untitled - Notes'",
			Toolset: "windows", Args: []string{"title"},
			Annotations: Annotations{ReadOnly: No, Destructive: No, Idempotent: Yes, OpenWorld: No},
		}, func(ctx context.Context, env *Env, in TitleIn) (WindowOut, error) {
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
		}),
		Define(Tool{
			Name: "focus_browser", Legacy: []string{"mcp_desktop_focus_browser"},
			Summary: "Focus a browser window (Chromium, Chrome, Edge or Firefox), optionally by URL or title",
			Long: "Brings a browser window to the front. pattern matches its title or, for the browser w365\n" +
				"drives, its current tab URL. DOM tools act only on the browser w365 drives.",
			Example: "  $ w365 focus-browser\n  $ w365 focus-browser example.com",
			Toolset: "windows", Args: []string{"pattern"},
			Annotations: Annotations{ReadOnly: No, Destructive: No, Idempotent: Yes, OpenWorld: No},
		}, func(ctx context.Context, env *Env, in FocusBrowserIn) (WindowOut, error) {
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
		}),
		Define(Tool{
			Name: "close_window", Legacy: []string{"mcp_desktop_close_window"},
			Summary: "Close a window gracefully, chosen by fuzzy title match (80% threshold)",
			Long: "Asks the window to close through its own close protocol, never by killing it; an application\n" +
				"that asks \"save changes?\" stays open and closed is false. Titles less than 80% similar are\n" +
				"not closed. Windows of protected processes are refused with PROTECTED_PROCESS.",
			Example: "  $ w365 close-window 'Untitled - Notes'",
			Toolset: "windows", Args: []string{"title"},
			Annotations: Annotations{ReadOnly: No, Destructive: Yes, Idempotent: No, OpenWorld: No},
		}, func(ctx context.Context, env *Env, in TitleIn) (window.CloseResult, error) {
			title, err := in.title()
			if err != nil {
				return window.CloseResult{}, err
			}
			wm, err := windowsOf(env)
			if err != nil {
				return window.CloseResult{}, err
			}
			return wm.Close(ctx, title, protection(env).ProtectedPID)
		}),
		Define(Tool{
			Name: "resize_window", Legacy: []string{"mcp_desktop_resize_window"}, Aliases: []string{"resize"},
			Summary: "Resize, move, maximize, minimize or restore a window chosen by title",
			Long: "Resize needs width and height (x and y optional), Move needs x and y. The result is the\n" +
				"geometry read back from the window manager after the change.",
			Example: "  $ w365 resize-window --title Notes --action Move --x 100 --y 80\n" +
				"  $ w365 resize --title Notes --action Maximize",
			Toolset:     "windows",
			Annotations: Annotations{ReadOnly: No, Destructive: No, Idempotent: Yes, OpenWorld: No},
		}, func(ctx context.Context, env *Env, in ResizeIn) (WindowOut, error) {
			wm, err := windowsOf(env)
			if err != nil {
				return WindowOut{}, err
			}
			w, err := wm.Resize(ctx, in.Title, in.Action, in.X, in.Y, in.Width, in.Height)
			return WindowOut{w}, err
		}),
	)
}
