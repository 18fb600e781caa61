package browser

import (
	"context"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/w365/w365/engine/werr"
)

// modifierKey is a modifier as a key of its own: pages that track Control or
// Shift see it go down before the key and up after it.
type modifierKey struct {
	key, code string
	vk        int64
	bit       int64
}

var modifierKeys = sync.OnceValue(func() map[string]modifierKey {
	return map[string]modifierKey{
		"alt":   {"Alt", "AltLeft", 18, int64(chromedp.ModifierAlt)},
		"ctrl":  {"Control", "ControlLeft", 17, int64(chromedp.ModifierCtrl)},
		"meta":  {"Meta", "MetaLeft", 91, int64(chromedp.ModifierMeta)},
		"shift": {"Shift", "ShiftLeft", 16, int64(chromedp.ModifierShift)},
	}
})

// Modifiers checks modifier names (Ctrl, Shift, Alt, Meta and common aliases),
// in the order given.
func Modifiers(names []string) ([]string, error) {
	out := make([]string, 0, len(names))
	for _, m := range names {
		k := strings.ToLower(strings.TrimSpace(m))
		switch k {
		case "control", "controlormeta":
			k = "ctrl"
		case "cmd", "command", "super", "os":
			k = "meta"
		case "option":
			k = "alt"
		}
		if _, ok := modifierKeys()[k]; !ok {
			return nil, werr.Invalid("unknown modifier %q: use Ctrl, Shift, Alt or Meta", m)
		}
		out = append(out, k)
	}
	return out, nil
}

// HoldModifiers presses the modifiers (checked by Modifiers) in order as real key
// events and returns their bit mask and the function that releases them in
// reverse order.
func HoldModifiers(ctx context.Context, t *chromedp.Target, mods []string) (int64, func() error, error) {
	var bits int64
	var held []modifierKey
	release := func() error {
		var first error
		for i := len(held) - 1; i >= 0; i-- {
			m := held[i]
			bits &^= m.bit
			_, err := cdp.Call(context.WithoutCancel(ctx), t, input.DispatchKeyEvent, m.event(input.DispatchKeyEventTypeKeyUp, bits))
			if first == nil {
				first = err
			}
		}
		return first
	}
	for _, name := range mods {
		m := modifierKeys()[name]
		bits |= m.bit
		if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, m.event(input.DispatchKeyEventTypeRawKeyDown, bits)); err != nil {
			_ = release()
			return 0, nil, err
		}
		held = append(held, m)
	}
	return bits, release, nil
}

func (m modifierKey) event(typ input.DispatchKeyEventType, bits int64) input.DispatchKeyEventParams {
	return input.DispatchKeyEventParams{Type: typ, Key: m.key, Code: m.code, WindowsVirtualKeyCode: m.vk, NativeVirtualKeyCode: m.vk, Modifiers: bits}
}

// KeyEvents are the events of one key press, r as kb encodes it ('\r' Enter, 'a'): a key's
// text rides on its keyDown, as a keyboard's does, not on a char event of its own. Chrome
// then fires keypress, inserts the text and submits a form on Enter only when the page did
// not cancel the keydown; a char event of its own does all that whatever the keydown's
// handlers did (a tag input that takes Enter had its form submitted).
func KeyEvents(r rune) []*input.DispatchKeyEventParams {
	var out []*input.DispatchKeyEventParams
	for _, ev := range kb.Encode(r) {
		if n := len(out); ev.Type == input.DispatchKeyEventTypeChar && n > 0 && out[n-1].Type == input.DispatchKeyEventTypeKeyDown {
			out[n-1].Text, out[n-1].UnmodifiedText = ev.Text, ev.UnmodifiedText
			continue
		}
		out = append(out, ev)
	}
	return out
}

// Keys presses the keys of s one after another (KeyEvents).
func Keys(ctx context.Context, t *chromedp.Target, s string) error {
	for _, r := range s {
		for _, ev := range KeyEvents(r) {
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, *ev); err != nil {
				return err
			}
		}
	}
	return nil
}

// PressWithModifiers presses one key (a kb rune string: "a", kb.Enter, ...)
// with the modifiers held as real keys around it. With Ctrl, Alt or Meta held
// no text is inserted (Ctrl+A selects, it does not type "a").
func PressWithModifiers(ctx context.Context, t *chromedp.Target, key string, mods []string) error {
	bits, release, err := HoldModifiers(ctx, t, mods)
	if err != nil {
		return err
	}
	noText := bits&int64(chromedp.ModifierCtrl|chromedp.ModifierAlt|chromedp.ModifierMeta) != 0
	var first error
	for _, r := range key {
		for _, ev := range KeyEvents(r) {
			ev.Modifiers |= bits
			if noText {
				ev.Text, ev.UnmodifiedText = "", ""
				if ev.Type == input.DispatchKeyEventTypeKeyDown {
					ev.Type = input.DispatchKeyEventTypeRawKeyDown
				}
			}
			if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, *ev); err != nil {
				first = err
				break
			}
		}
		if first != nil {
			break
		}
	}
	if err := release(); first == nil {
		first = err
	}
	return first
}
