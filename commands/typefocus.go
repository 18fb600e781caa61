package commands

import (
	"context"
	"fmt"
	"image"
	"strings"
	"sync"
	"time"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/session"
)

// Keys sent right after the input that moves the keyboard focus can outrun it: GNOME Fonts
// (GTK 4) shows its search field when its search button is clicked and gives the field the
// focus only once the field has slid in, so keys typed at once go to the button and are lost;
// a dialog a click opens takes the focus some time after the click, and a shortcut pressed
// at once (ctrl+a, Return) goes to the button clicked (Return clicks it again). So the tools
// that send keys (type_text, press_keys), when they come within focusSettle of the session's
// last input, wait (reading the focus from the accessibility tree, for at most the rest of
// focusSettle) until the focus has moved on from an element keys are not meant for
// (waitsOn), and say in their note where the keys went when the tree tells. Later than
// focusSettle, the focus has settled: they send at once and read nothing, as a read of the
// focus costs a walk of the window (docs/accessibility.md#keys-and-the-focus).
const (
	focusSettle = time.Second
	focusPoll   = 50 * time.Millisecond
)

// inputClock is when the session's last pointer or key input was sent, and where it
// clicked when it was a click.
type inputClock struct {
	mu    sync.Mutex
	at    time.Time
	click *image.Point
}

func (c *inputClock) Close() error { return nil }

func clockOf(env *tool.Env) *inputClock {
	c, err := session.Use(env.Session, "input-clock", func(*session.Session) (*inputClock, error) {
		return &inputClock{}, nil
	})
	if err != nil {
		return &inputClock{}
	}
	return c
}

// sentInput notes that a tool has just sent pointer or key input to the session: a click
// at click, or other input (nil).
func sentInput(env *tool.Env, click *image.Point) {
	c := clockOf(env)
	c.mu.Lock()
	c.at, c.click = time.Now(), click
	c.mu.Unlock()
}

// lastInput is the time since the session's last input and where it clicked, if it was a
// click.
func lastInput(env *tool.Env) (time.Duration, *image.Point) {
	c := clockOf(env)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() {
		return focusSettle, nil
	}
	return time.Since(c.at), c.click
}

// focused is the element of the foreground window that holds the keyboard focus; ok is false
// when no element the tree reads has it. can is false when there is no tree to ask (the
// application exposes none, or the platform reads no focus).
func focused(ctx context.Context, env *tool.Env) (n desktop.Node, ok, can bool) {
	a, err := a11yOf(ctx, env)
	if err != nil {
		return n, false, false
	}
	f, can := a.(desktop.FocusReader)
	if !can {
		return n, false, false
	}
	n, ok, err = f.Focused(ctx)
	return n, ok && err == nil, err == nil
}

// takesNoText says whether typing into the element n does nothing an agent wants: a
// button, box or menu item (a list or a tree may take type-ahead).
func takesNoText(n desktop.Node) bool {
	switch n.Role {
	case "Button", "CheckBox", "RadioButton", "MenuItem", "TabItem", "Hyperlink":
		return true
	}
	return false
}

// under says whether the last input was a click that landed in n's box.
func under(click *image.Point, n desktop.Node) bool {
	return click != nil && click.In(image.Rect(n.X, n.Y, n.X+n.Width, n.Y+n.Height))
}

// waitsOn says whether keys wait for the focus to move on from n (ok: an element has it;
// onClick: an earlier read of this wait saw it on the element clicked). Text (anywhere) waits
// while the focus is on no element or on one that takes no text. Other keys wait only while
// it is on the element that takes no text that the last click landed on, or on none after
// that (a dialog the click opened is mapped and has not yet given its field the focus): a
// shortcut or Return may be meant for a button that has the focus, but hardly for the one
// just clicked, whose click may be opening a dialog or moving the focus.
func waitsOn(n desktop.Node, ok bool, click *image.Point, anywhere, onClick bool) bool {
	switch {
	case anywhere:
		return !ok || takesNoText(n)
	case !ok:
		return onClick
	}
	return takesNoText(n) && under(click, n)
}

// focusRead is what a tool read of the keyboard focus before sending its keys.
type focusRead struct {
	read    bool // the keys came within focusSettle of the last input, and a tree answered
	settled bool // the focus was seen on an element keys do not wait on
	ok      bool // an element had the focus at the last read
	n       desktop.Node
	click   *image.Point // where the last input clicked, if it was a click
}

// settleFocus waits, within focusSettle of the last input, until the focus is on an element
// keys do not wait on (waitsOn; anywhere for text). Keys other than text read nothing but
// after a click.
func settleFocus(ctx context.Context, env *tool.Env, anywhere bool) (f focusRead) {
	since, click := lastInput(env)
	left := focusSettle - since
	if left <= 0 || (!anywhere && click == nil) {
		return f
	}
	f.click = click
	end := time.Now().Add(left)
	onClick := false
	for {
		var can bool
		f.n, f.ok, can = focused(ctx, env)
		f.read = can
		wait := waitsOn(f.n, f.ok, click, anywhere, onClick)
		if can && !wait {
			f.settled = true
			return f
		}
		onClick = onClick || (f.ok && wait)
		if !can || time.Now().After(end) {
			return f
		}
		select {
		case <-ctx.Done():
			f.read = false
			return f
		case <-time.After(focusPoll):
		}
	}
}

// keysNote is press_keys's note on where its keys went, from the focus read before them: to
// an element other than the one the last click landed on, or, when the focus stayed on that
// element for the rest of focusSettle, to it. "" when the keys went where the click was, or
// when nothing was read.
func (f focusRead) keysNote() string {
	switch {
	case !f.read || !f.ok || f.click == nil:
		return ""
	case !f.settled:
		return fmt.Sprintf("the keys went to the %s %q clicked at %d,%d: the keyboard focus stayed on it for a second after the click", f.n.Role, f.n.Name, f.click.X, f.click.Y)
	case !under(f.click, f.n):
		return fmt.Sprintf("the keys went to %s %q, which has the keyboard focus, not to what the click at %d,%d landed on", f.n.Role, f.n.Name, f.click.X, f.click.Y)
	}
	return ""
}

// landedNote is type_text's note when what the tree reads after typing says the text did
// not land: the focus is on an element that takes no text, or the focused field's text does
// not hold the last line typed. "" when it did, or when the tree cannot tell.
func landedNote(ctx context.Context, env *tool.Env, text string) string {
	last := strings.TrimSpace(text[strings.LastIndexAny(text, "\n\t")+1:])
	for try := 0; ; try++ {
		n, ok, _ := focused(ctx, env)
		if !ok {
			return ""
		}
		note := ""
		switch {
		case takesNoText(n):
			note = fmt.Sprintf("the keyboard focus is on %s %q, which takes no text: the keys may have gone nowhere; click the field to type into and type again", n.Role, n.Name)
		case n.Role == "Edit" && n.NativeRole != "password text" && last != "" && len([]rune(n.Value)) < desktop.MaxValueChars && !strings.Contains(n.Value, last):
			// Its text is not quoted: it may hold what the agent typed before (a secret).
			note = fmt.Sprintf("the focused field %q does not read the text typed: check where the keys went", n.Name)
		}
		// The application may not have read every key yet: look again, twice.
		if note == "" || try == 2 {
			return note
		}
		select {
		case <-ctx.Done():
			return note
		case <-time.After(focusPoll):
		}
	}
}
