package commands

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/w365/w365/commands/tool"
	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/session"
)

// Typing right after the input that moves the keyboard focus can outrun it: GNOME Fonts
// (GTK 4) shows its search field when its search button is clicked and gives the field the
// focus only once the field has slid in, so keys typed at once go to the button and are lost.
// So type_text, when it comes within focusSettle of the session's last click or key, waits
// (reading the focus from the accessibility tree, for at most the rest of focusSettle) until
// the focused element is no button or other element that takes no text; when it never saw
// the focus reach one that does, it reads the focused element again after typing and says
// in its note when the text is not there. Later than focusSettle, the focus has settled:
// type_text types at once and reads nothing, as a read of the focus costs a walk of the
// window (docs/accessibility.md#typing-and-the-focus).
const (
	focusSettle = time.Second
	focusPoll   = 50 * time.Millisecond
)

// inputClock is when the session's last pointer or key input was sent.
type inputClock struct {
	mu sync.Mutex
	at time.Time
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

// sentInput notes that a tool has just sent pointer or key input to the session.
func sentInput(env *tool.Env) {
	c := clockOf(env)
	c.mu.Lock()
	c.at = time.Now()
	c.mu.Unlock()
}

// sinceInput is the time since the session's last input.
func sinceInput(env *tool.Env) time.Duration {
	c := clockOf(env)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() {
		return focusSettle
	}
	return time.Since(c.at)
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

// settleFocus waits, within focusSettle of the last input, until the focused element is
// not one that takes no text. check says whether type_text should read the focus after
// typing: the input was that recent, and the focus was not seen on an element that takes
// text (reading it again would only double the cost of the common case).
func settleFocus(ctx context.Context, env *tool.Env) (check bool) {
	left := focusSettle - sinceInput(env)
	if left <= 0 {
		return false
	}
	end := time.Now().Add(left)
	for {
		n, ok, can := focused(ctx, env)
		if ok && !takesNoText(n) {
			return false
		}
		if !can || time.Now().After(end) {
			return can
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(focusPoll):
		}
	}
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
