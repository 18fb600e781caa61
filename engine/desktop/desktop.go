// Package desktop is the platform-neutral face of a session's desktop: the
// capabilities a tool uses (input, screen, windows, clipboard, accessibility) as
// small interfaces, and the data they exchange. A platform implements Desktop (the
// X11 one is engine/desktop/x11); nothing above the engine knows which one runs.
// A platform that lacks a capability returns an UNSUPPORTED error from its Open
// method, never a value that silently does nothing.
//
// Every method that takes a context and is called with one already ended does nothing
// and fails with CANCELLED, or TIMEOUT when the context's deadline passed (werr.Done). Errors are *werr.Error values whose codes are the
// contract; engine/desktop/desktoptest checks a backend against all of it.
package desktop

import (
	"context"
	"image"
	"strings"
	"time"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

// Desktop is one desktop a session acts on: the user's own or a virtual one.
type Desktop interface {
	// Name identifies the desktop to programs (the X display, ":7").
	Name() string
	// Virtual says whether w365 started (and Stop ends) this desktop.
	Virtual() bool
	// Environ is base plus what a program needs to run on this desktop.
	Environ(base []string) []string
	// Getenv is one variable of Environ(nil), "" when absent.
	Getenv(key string) string
	// PIDs are the desktop's own processes (display server, window manager, buses),
	// which no tool may kill.
	PIDs() []int
	// Stop ends a virtual desktop and what w365 started on it; a no-op otherwise.
	Stop()
	// Err is nil while the desktop works. Once a process of a virtual desktop (display server,
	// window manager, bus) has died it says which, and the desktop is broken for good: it
	// connects to no display server it did not start, even one on the same display.
	Err() error

	// OpenInput drives the mouse and keyboard under p's fail-safe and scroll limits;
	// nil means policy.Default().
	OpenInput(p *policy.Policy) (Input, error)
	OpenScreen() (Screen, error)
	OpenWindows() (Windows, error)
	OpenClipboard() (Clipboard, error)
	OpenAccessibility(ctx context.Context) (Accessibility, error)
}

// Options size a virtual desktop.
type Options struct {
	Width, Height, Depth int
	// WindowManager is the program run as window manager; empty means the platform's default.
	WindowManager string
}

// DefaultOptions is the policy's screen: 1920x1080x24 under openbox.
func DefaultOptions() Options {
	return Options{Width: 1920, Height: 1080, Depth: 24, WindowManager: "openbox"}
}

// Input is the keyboard and mouse. Every method refuses with FAILSAFE a pointer
// target near a screen corner (desktop.InCorner, the policy's margin) and, but Move,
// any pointer action while the cursor is there: a Move to a safe point is the way out.
// A target off the screen is INVALID_ARGUMENT. A refused call moves nothing. Every
// method releases whatever it pressed, even on failure.
type Input interface {
	Move(ctx context.Context, x, y int) error
	CursorPosition() (x, y int, err error)
	// Click clicks at (x, y), or at the cursor when both are nil, and waits, where the
	// platform can tell, until the application under it has handled the click (Handled).
	// button and count are checked by ParseButton (side buttons allowed) and ClickCount:
	// INVALID_ARGUMENT.
	Click(ctx context.Context, x, y *int, button string, count int) (Handled, error)
	// Drag refuses a path that crosses a corner zone anywhere; no side buttons.
	Drag(ctx context.Context, sx, sy, ex, ey int, button string) error
	// Scroll sends dy notches down (negative: up) and dx right at (x, y), each clamped
	// to the policy's ScrollNotchesMax, and says what it sent.
	Scroll(ctx context.Context, x, y, dx, dy int) (ScrollResult, error)
	// TypeText types \n as Enter and \t as Tab, and refuses with INVALID_ARGUMENT the
	// control characters it cannot type (U+0001).
	TypeText(ctx context.Context, text string) error
	// TypePaste pastes text through clip and restores clip's previous text.
	TypePaste(ctx context.Context, text string, clip TextClipboard) error
	// PressKeys presses keys together; no keys, or an unknown key name, is
	// INVALID_ARGUMENT before anything is pressed.
	PressKeys(ctx context.Context, keys []string) error
	Close() error
}

// Handled is how an input call's wait for the application it went to ended: an agent
// that reads the screen right after a click that returned before its application handled
// it reads the window as it was before (a dialog still open, a menu not yet shown).
type Handled struct {
	// Waited is how long the call waited for the application (zero when it could not tell).
	Waited time.Duration
	// Late: the application had not handled the input when the call stopped waiting (it is
	// busy or hung): what the input does may still show.
	Late bool
	// Window is the title of the top-level window the input landed in, "" when none or
	// unknown (cut to a few dozen characters: the application chose it).
	Window string
}

// ScrollResult says which notches were sent and whether a delta was clamped.
type ScrollResult struct {
	AppliedDX int  `json:"appliedDeltaX"`
	AppliedDY int  `json:"appliedDeltaY"`
	Clamped   bool `json:"clamped"`
}

// TextClipboard is the text clipboard TypePaste saves and restores; Read reports
// ok=false when the clipboard holds no text.
type TextClipboard interface {
	Read() (text string, ok bool, err error)
	Write(text string) error
}

// Screen captures pixels of the virtual screen (all monitors).
type Screen interface {
	// Capture returns r of the screen, as an image of r's size whose bounds start at
	// (0,0); the empty rectangle means all of it. An r not within the screen is
	// INVALID_ARGUMENT.
	Capture(ctx context.Context, r image.Rectangle) (*image.RGBA, error)
	Size() (w, h int, err error)
	Close() error
}

// Windows finds and changes top-level windows. A method given a title finds the window
// before it acts: an empty title is INVALID_ARGUMENT, one that matches no window is
// NOT_FOUND with the nearest titles in the error's details ("nearest", NotFound).
type Windows interface {
	// List is the visible, titled top-level windows.
	List(ctx context.Context) ([]Window, error)
	// Activate raises and focuses the window best matching title.
	Activate(ctx context.Context, title string) (Window, error)
	// CloseWindow asks the window matching title to close, refusing with
	// PROTECTED_PROCESS windows whose process protected reports.
	CloseWindow(ctx context.Context, title string, protected func(pid int) bool) (CloseResult, error)
	// Resize applies one of the Action* values, checked by ResizeAction before the
	// title is looked up. Restore brings back the frame the window had before Maximize
	// or Minimize.
	Resize(ctx context.Context, title, action string, x, y, w, h *int) (Window, error)
	// FindBrowser finds a browser window whose title or (through urlOf) URL matches pattern.
	FindBrowser(ctx context.Context, pattern string, urlOf func(handle uint32) string) (Window, error)
	// Close ends the connection; it closes no window.
	Close() error
}

// Window is one top-level window.
type Window struct {
	Title       string `json:"title"`
	ProcessName string `json:"processName"`
	// Handle is the platform's window id (the X window id of the client window;
	// the kind of value find_ui_element.windowHandle takes).
	Handle uint32 `json:"handle"`
	PID    int    `json:"pid,omitempty"`
	// Splash: the window is an application's splash screen (X11 _NET_WM_WINDOW_TYPE_SPLASH),
	// shown while it starts.
	Splash bool `json:"splash,omitempty"`
	// X, Y, Width, Height: the outer frame in screen coordinates (title bar and borders
	// included; the invisible shadow of a client-side decorated window left out), what
	// Resize takes.
	X      int `json:"x" jsonschema:"left edge of the outer frame (title bar and borders included)"`
	Y      int `json:"y" jsonschema:"top edge of the outer frame"`
	Width  int `json:"width" jsonschema:"width of the outer frame"`
	Height int `json:"height" jsonschema:"height of the outer frame"`
	// Client is the application's own area inside the frame, in screen coordinates.
	Client Rect `json:"client" jsonschema:"the application's area inside the frame, screen coordinates"`
}

// PopupLister is a Windows that also sees pop-ups (X11).
type PopupLister interface {
	// Popups are the pop-ups shown over the screen now (open menus, drop-down lists,
	// tooltips: on X11 override-redirect windows, no windows of their own), by the handle of
	// the window of ws each belongs to; one that belongs to none is left out
	// (docs/accessibility.md#what-visible-means).
	Popups(ctx context.Context, ws []Window) (map[uint32][]Rect, error)
}

// Rect is a rectangle in screen coordinates.
type Rect struct {
	X      int `json:"x"`
	Y      int `json:"y"`
	Width  int `json:"width"`
	Height int `json:"height"`
}

// CloseResult is what CloseWindow reports.
type CloseResult struct {
	MatchedTitle string `json:"matchedTitle"`
	ProcessName  string `json:"processName"`
	// Closed says whether the window actually went away within a short bound; a window whose
	// application asks "save changes?" stays open and reports false.
	Closed bool `json:"closed"`
	// Note says why a window that stayed open may have: a pop-up of its application is open.
	Note string `json:"note,omitempty"`
}

// Resize actions (matched case-insensitively).
const (
	ActionResize   = "Resize"
	ActionMove     = "Move"
	ActionMaximize = "Maximize"
	ActionMinimize = "Minimize"
	ActionRestore  = "Restore"
)

// ResizeAction is the Action* value action names (case-insensitive), once the
// coordinates it needs are there: Move needs x and y, Resize a positive width and height.
func ResizeAction(action string, x, y, w, h *int) (string, error) {
	act := ""
	for _, a := range []string{ActionResize, ActionMove, ActionMaximize, ActionMinimize, ActionRestore} {
		if strings.EqualFold(strings.TrimSpace(action), a) {
			act = a
		}
	}
	if act == "" {
		return "", werr.Invalid("unknown action %q", action).
			WithDetail("allowed", []string{ActionResize, ActionMove, ActionMaximize, ActionMinimize, ActionRestore})
	}
	if (x == nil) != (y == nil) {
		return "", werr.Invalid("%s needs both x and y, or neither", act)
	}
	switch act {
	case ActionMove:
		if x == nil {
			return "", werr.Invalid("Move needs x and y")
		}
	case ActionResize:
		if w == nil || h == nil {
			return "", werr.Invalid("Resize needs width and height")
		}
		if *w <= 0 || *h <= 0 {
			return "", werr.Invalid("width and height must be positive, got %dx%d", *w, *h)
		}
	}
	return act, nil
}

// Clipboard is the desktop's clipboard, owned by the host so that what it writes
// stays pasteable after the caller has gone.
type Clipboard interface {
	Read(ctx context.Context) (ClipboardContent, error)
	// Write replaces the clipboard with text and returns its length in code points.
	// Text that is not valid UTF-8, or holds a NUL, is INVALID_ARGUMENT.
	Write(ctx context.Context, text string) (int, error)
	Close() error
}

// ClipboardContent is what the clipboard holds.
type ClipboardContent struct {
	// Format is "text", "image" or "empty".
	Format      string `json:"format"`
	Text        string `json:"text,omitempty"`
	ImageBase64 string `json:"imageBase64,omitempty"`
	// MIMEType is "text/plain;charset=utf-8" for text and "image/png" for images.
	MIMEType string `json:"mimeType,omitempty"`
}

// Accessibility reads the desktop's accessibility tree.
type Accessibility interface {
	// Tree is the foreground window's tree, cut breadth-first at maxElements; the
	// limits are checked by TreeLimits.
	Tree(ctx context.Context, maxDepth, maxElements int) (Node, Meta, error)
	// Find refuses a query with nothing to look for (NeedleOf) or an unknown role
	// (UnknownRole) with INVALID_ARGUMENT.
	Find(ctx context.Context, q FindQuery) ([]Match, error)
	// Applications are the processes whose applications expose a tree now: registered
	// with the accessibility bus (AT-SPI), or owning a top-level window (UI Automation
	// reads every window).
	Applications(ctx context.Context) ([]int, error)
	Close() error
}

// FocusReader is an Accessibility that reads the element holding the keyboard focus (its
// value and box) more cheaply than a Tree: ok is false when it finds none.
type FocusReader interface {
	Focused(ctx context.Context) (n Node, ok bool, err error)
}

// Node is one element of the accessibility tree. X, Y, Width, Height are screen
// coordinates that a click can use directly.
type Node struct {
	// Role is the UI Automation control-type name (Button, Edit, Text, Window...).
	Role string `json:"role"`
	// NativeRole is the platform's role name (AT-SPI's "push button"; on Windows the UI
	// Automation control type, Role itself, or "ControlType 50099" for an id newer than
	// the ones w365 knows, whose Role is Custom).
	NativeRole string `json:"nativeRole"`
	Name       string `json:"name"`
	// Value is a range value (sliders, progress bars) or the text of an editable field.
	Value  string `json:"value"`
	X      int    `json:"x"`
	Y      int    `json:"y"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	// States are the ones an agent acts on: checked, mixed, selected, expanded, focused,
	// and disabled for a control that takes no input (AT-SPI; none read on Windows yet);
	// offscreen, and ocr for an element read from the screen (docs/accessibility.md#states).
	States   []string `json:"states,omitempty"`
	Children []Node   `json:"children,omitempty"`
}

// Meta describes a Tree result.
type Meta struct {
	// Truncated says the element budget cut the tree (breadth-first: the deepest and
	// last nodes were left out).
	Truncated bool `json:"truncated"`
	// Count is the number of nodes returned.
	Count int `json:"count"`
	// Deeper is the number of nodes returned whose children lie below MaxDepth, the depth
	// the walk went to (AT-SPI; 0 on Windows, which does not count them).
	Deeper   int `json:"deeper,omitempty"`
	MaxDepth int `json:"maxDepth,omitempty"`
}

// FindQuery selects elements. At least one of Text, Role, Name is required.
type FindQuery struct {
	// Text is matched against the name (and the value) when Name is empty.
	Text string
	// Role is a UIA name (Button), an alias (TextBox) or a native role name (push button).
	Role string
	// Name is matched against the accessible name; it wins over Text.
	Name string
	// WindowHandle is a window id; 0 means the foreground window.
	WindowHandle uint32
}

// Match is one element found, with the centre point to click.
type Match struct {
	Role    string `json:"role"`
	Name    string `json:"name"`
	Value   string `json:"value"`
	X       int    `json:"x"`
	Y       int    `json:"y"`
	Width   int    `json:"width"`
	Height  int    `json:"height"`
	CenterX int    `json:"centerX"`
	CenterY int    `json:"centerY"`
	// States as Node's: checked, mixed, selected, expanded, focused, disabled, offscreen, ocr.
	States []string `json:"states,omitempty"`
}
