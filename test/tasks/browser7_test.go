//go:build linux

package tasks_test

import (
	"fmt"
	"regexp"
)

// browserTasks7 is the seventh round of browser tasks, on page patterns the rounds before it
// have none of (taken from what playwright's, puppeteer's and rich-text editors' own tests
// exercise): a link that wraps onto a second line, so that the middle of its box is the
// paragraph's text; a shortcut field that records the keydown itself (its code and
// modifiers); text beyond ASCII (accents, Greek, an emoji, Chinese) typed into a field and a
// text area; a reference selected in a read-only field and copied by keys, then pasted; an editor that keeps its own model and cancels every beforeinput; a form a
// service worker answers. The note's lines arrive apart by CRLF, as a form sends them.
var browserTasks7 = []browserTask{
	{
		name: "renew by a link that wraps onto a second line",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/overdue.html") },
				func() error { return a.click("link", "two weeks: renew") },
			)
		},
		check: posted("/form/overdue", map[string]string{"renew": "Middlemarch"}),
	},
	{
		name: "record a shortcut in a field that takes the keydown",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/shortcut.html") },
				func() error { return a.click("textbox", "Search the catalogue") },
				func() error { return a.press("textbox", "Search the catalogue", "Control+Shift+F") },
			); err != nil {
				return err
			}
			// The field reads back what it recorded.
			if err := a.look(); err != nil {
				return err
			}
			if !regexp.MustCompile(`Ctrl\+Shift\+F`).MatchString(a.obs) {
				return fmt.Errorf("the field does not read Ctrl+Shift+F:\n%.1500s", a.obs)
			}
			return a.click("button", "Save shortcuts")
		},
		check: posted("/form/shortcut", map[string]string{"search": "Ctrl+Shift+F", "code": "KeyF:F", "renew": ""}),
	},
	{
		name: "sign a visitors' book in accented letters and an emoji",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/visitors.html") },
				func() error { return a.typeIn("textbox", "Your name", "Zoë Ó Súilleabháin") },
				func() error {
					return a.typeIn("textbox", "Your comment", "Μια υπέροχη βιβλιοθήκη 📚 — 谢谢!")
				},
				func() error { return a.waitFor("30 of 60 characters") },
				func() error { a.obs = ""; return a.click("button", "Sign the book") },
			)
		},
		check: posted("/form/visitors", map[string]string{"name": "Zoë Ó Súilleabháin", "comment": "Μια υπέροχη βιβλιοθήκη 📚 — 谢谢!"}),
	},
	{
		name: "copy a reference from a read-only field by keys; paste it",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/transfer.html") },
				func() error { return a.click("textbox", "Transfer reference") },
				func() error { return a.press("textbox", "Transfer reference", "Control+a") },
				func() error { return a.press("textbox", "Transfer reference", "Control+c") },
				func() error { return a.click("textbox", "Paste the reference") },
				func() error { return a.press("textbox", "Paste the reference", "Control+v") },
				func() error { a.obs = ""; return a.click("button", "Transfer the loan") },
			)
		},
		check: posted("/form/transfer", map[string]string{"ref": "TR-4C1B-9E07-0F3A-77D2", "how": "pasted"}),
	},
	{
		name: "write two paragraphs in an editor that keeps its own model",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/notes.html") },
				func() error {
					return a.typeIn("textbox", "Your note", "Dune is due back on Friday.\nPlease keep it for me.")
				},
				func() error { return a.click("button", "Send the note") },
			)
		},
		check: posted("/form/note", map[string]string{"note": "Dune is due back on Friday.\r\nPlease keep it for me."}),
	},
	{
		name: "suggest a purchase through a service worker's outbox",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/offline.html") },
				func() error { return a.waitFor("Ready: suggestions are kept") },
				func() error { a.obs = ""; return a.typeIn("textbox", "Title", "The Dispossessed") },
				func() error { return a.typeIn("textbox", "Author", "Ursula K. Le Guin") },
				func() error { return a.click("button", "Send the suggestion") },
				func() error { return a.waitFor("is with the library") },
			)
		},
		check: posted("/form/outbox", map[string]string{"title": "The Dispossessed", "author": "Ursula K. Le Guin", "via": "outbox"}),
	},
}
