//go:build linux

package tasks_test

import (
	"fmt"
	"regexp"
)

// browserTasks8 is the eighth round of browser tasks, on page patterns the rounds before it
// have none of: a word looked up by selecting it with a double click (a word in bold); a
// term's definition card shown while the pointer is on the term, with a button in the card; a
// misspelt word marked in the text whose suggestions open on a click; a form in a frame
// that loads only when it nears the viewport (loading=lazy) at the foot of a long page; a
// destructive action confirmed by typing back a phrase the page shows in code; a word in a
// rich-text field selected by a double click and its bold taken off by the editor's shortcut.
var browserTasks8 = []browserTask{
	{
		name: "look up a word by selecting it with a double click", fast: true,
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/lookup.html") },
				func() error { return a.onItem("strong", "Middlemarch", a.d.doubleClick) },
				func() error { return a.click("button", "Look up Middlemarch") },
			)
		},
		check: posted("/form/lookup", map[string]string{"word": "Middlemarch"}),
	},
	{
		name: "add a term to a glossary from its definition card",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/glossary.html") },
				func() error { return a.onItem("term", "codex", a.d.hover) },
				func() error { return a.click("button", "Add codex to my glossary") },
			)
		},
		check: posted("/form/glossary", map[string]string{"term": "codex"}),
	},
	{
		name: "correct two misspelt words from their suggestions",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/spelling.html") },
				func() error { return a.onItem("mark", "recieve", a.d.click) },
				func() error { return a.click("menuitem", "receive") },
				func() error { a.obs = ""; return a.onItem("mark", "Wensday", a.d.click) },
				func() error { return a.click("menuitem", "Wednesday") },
				func() error { a.obs = ""; return a.click("button", "Send the message") },
			)
		},
		check: posted("/form/spelling", map[string]string{"text": "Please receive the parcel on Wednesday."}),
	},
	{
		name: "answer a survey in a frame that loads when scrolled to",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/lazy.html") },
				func() error { return a.look() },
			); err != nil {
				return err
			}
			// A frame that shows nothing yet is brought into view, as a person scrolls to it.
			if !a.sees("textbox", "Comments") {
				// playwright-mcp names no frame by its title: the frame after the heading.
				m, err := a.match(regexp.MustCompile(`Tell us what you think[^\n]*\n[^\n]*?\biframe(?: "Reader survey")? \[ref=([^\]\s]+)\]`))
				if err != nil || m == nil {
					return fmt.Errorf("no frame after the heading (%v):\n%.1500s", err, a.obs)
				}
				if _, err := a.d.hover(m[1], "iframe Reader survey"); err != nil {
					return err
				}
				a.obs = ""
			}
			return first(
				func() error { return a.selectOption("combobox", "Your rating", "Good") },
				func() error { return a.typeIn("textbox", "Comments", "More poetry, please.") },
				func() error { return a.click("button", "Send the survey") },
			)
		},
		check: posted("/form/survey", map[string]string{"rating": "Good", "comments": "More poetry, please."}),
	},
	{
		name: "delete a list by typing back the phrase it shows",
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/confirm-delete.html"); err != nil {
				return err
			}
			m, err := a.match(regexp.MustCompile(`type\b[^\n]*?(?:\n[^\n]*?)?\b([a-z-]+/delete)\b`))
			if err != nil {
				return err
			}
			if m == nil {
				return fmt.Errorf("no phrase to type in what the page shows:\n%.1500s", a.obs)
			}
			return first(
				func() error { return a.typeIn("textbox", "Type the phrase to confirm", m[1]) },
				func() error { a.obs = ""; return a.click("button", "Delete this list") },
			)
		},
		check: posted("/form/delete", map[string]string{"phrase": "summer-reading/delete"}),
	},
	{
		name: "take the bold off a word in a rich-text review",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/format.html") },
				func() error { return a.onItem("strong", "wonderful", a.d.doubleClick) },
				func() error { return a.press("textbox", "Review", "Control+b") },
				func() error { a.obs = ""; return a.click("button", "Save the review") },
			)
		},
		check: posted("/form/format", map[string]string{"html": "Dune is <em>long</em> but wonderful, and worth it."}),
	},
}

// onItem acts on the element with no name `role [ref=e5]: text` (a word in bold, a term, a
// marked word) found in the last observation, and keeps what the action returned.
func (a *agent) onItem(role, text string, act func(ref, what string) (string, error)) error {
	ref, err := a.findItem(role, text)
	if err != nil {
		return err
	}
	obs, err := act(ref, role+" "+text)
	a.obs = obs
	return err
}
