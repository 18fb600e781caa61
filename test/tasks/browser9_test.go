//go:build linux

package tasks_test

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// browserTasks9 is the ninth round of browser tasks, on page patterns the rounds before it
// have none of: a chat box where Enter sends and Shift+Enter breaks the line; a date field
// made of spin-button segments that take typed digits and move on by themselves; a form in
// a frame whose address is a blob: URL the page made; a sign-up box laid over the page as
// it opens that only Escape puts away; a signature drawn on a canvas by a drag; an order
// confirmed in a preview window the page opened blank and wrote itself; an option of a
// drop-down told from another of the same text only by its group; a scan published once an
// upload bar with no text beside it is full.
var browserTasks9 = []browserTask{
	{
		name: "send a two-line chat message: Shift+Enter breaks, Enter sends", fast: true,
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/chat.html") },
				func() error { return a.typeIn("textbox", "Message", "Is Kindred in?") },
				func() error { return a.press("textbox", "Message", "Shift+Enter") },
				func() error { return a.typeMore("textbox", "Message", "I would like to borrow it.") },
				func() error { return a.press("textbox", "Message", "Enter") },
			)
		},
		// A form sends a line break as CR LF.
		check: posted("/form/chat", map[string]string{"text": "Is Kindred in?\r\nI would like to borrow it."}),
	},
	{
		name: "enter a date of birth in a field of spin-button segments",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/birthdate.html") },
				func() error { return a.typeIn("textbox", "Name", "Ada Lovelace") },
				func() error { return a.typeIn("spinbutton", "Day", "10") },
				func() error { return a.typeIn("spinbutton", "Month", "12") },
				func() error { return a.typeIn("spinbutton", "Year", "1815") },
				func() error { return a.click("button", "Join") },
			)
		},
		check: posted("/form/birthdate", map[string]string{"name": "Ada Lovelace", "dob": "1815-12-10"}),
	},
	{
		name: "ask for a loan in a frame whose address is a blob: URL",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/blobframe.html") },
				func() error { return a.typeIn("textbox", "Title of the book", "Kindred") },
				func() error { return a.selectOption("combobox", "Needed by", "Within a week") },
				func() error { return a.click("button", "Send the request") },
			)
		},
		check: posted("/form/blobframe", map[string]string{"title": "Kindred", "by": "Within a week"}),
	},
	{
		name: "put away a box over the page by Escape, then renew",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/newsletter-modal.html") },
				func() error { return a.look() },
			); err != nil {
				return err
			}
			// A box over the page that says it closes by Escape and offers no button to close
			// it (playwright-mcp names no dialog by the heading it is labelled by).
			if m := regexp.MustCompile(`\bdialog(?: "[^"]*")? \[ref=([^\]\s]+)\]`).FindStringSubmatch(a.obs); m != nil && strings.Contains(a.obs, "Press Escape to close") {
				if _, err := a.d.press(m[1], "dialog", "Escape"); err != nil {
					return err
				}
				a.obs = ""
			}
			return a.click("button", "Renew Emma")
		},
		check: posted("/form/escape", map[string]string{"renew": "Emma"}),
	},
	{
		name: "sign a loan agreement on a signature pad by a drag",
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/signature.html"); err != nil {
				return err
			}
			pad, err := a.find("img", "Signature pad")
			if err != nil {
				return err
			}
			// A stroke from the middle of the pad down to the name field below it.
			name, err := a.find("textbox", "Full name")
			if err != nil {
				return err
			}
			if a.obs, err = a.d.drag(pad, "img Signature pad", name, "textbox Full name"); err != nil {
				return err
			}
			return first(
				func() error { return a.typeIn("textbox", "Full name", "Ada Lovelace") },
				func() error { return a.click("button", "Sign the agreement") },
			)
		},
		check: posted("/form/signature", map[string]string{"name": "Ada Lovelace", "signed": "yes"}),
	},
	{
		name: "confirm an order in a preview window the page wrote itself",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/order-preview.html") },
				func() error { return a.selectOption("combobox", "Map", "Leeds, 1890") },
				func() error { return a.typeIn("spinbutton", "Copies", "3") },
				func() error { return a.click("button", "Preview the order") },
				func() error { return a.toTab("Order preview") },
				func() error { return a.click("button", "Confirm the order") },
			)
		},
		check: posted("/form/preview", map[string]string{"map": "Leeds, 1890", "copies": "3"}),
	},
	{
		name: "choose a branch told apart from its namesake only by its group",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/transfer-branch.html") },
				func() error { return a.chooseIn("Massachusetts", "Springfield") },
				func() error { return a.click("button", "Move the hold") },
			)
		},
		check: posted("/form/branch-groups", map[string]string{"branch": "MA-SPR"}),
	},
	{
		name: "publish a scan once its upload bar, with no text, is full",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/scan-upload.html") },
				func() error { return a.click("button", "Upload the scan") },
			); err != nil {
				return err
			}
			// The bar is looked at again until it reads full, for at most 12 s.
			full := regexp.MustCompile(`progressbar "Upload progress"[^\n]*: 100%`)
			for try := 0; !full.MatchString(a.obs); try++ {
				if try == 40 {
					return fmt.Errorf("the upload bar never read full:\n%.1500s", a.obs)
				}
				time.Sleep(300 * time.Millisecond)
				if err := a.look(); err != nil {
					return err
				}
			}
			return a.click("button", "Publish")
		},
		check: posted("/form/scan", map[string]string{"uploaded": "48 of 48 MB"}),
	},
}

// chooseIn clicks `option "name"` of `group "group"` in a fresh observation: an option of a
// drop-down told from another of the same name by the group it is in.
func (a *agent) chooseIn(group, name string) error {
	if err := a.look(); err != nil {
		return err
	}
	lines := strings.Split(a.obs, "\n")
	for i, l := range lines {
		if !strings.Contains(l, `group "`+group+`"`) {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		re := regexp.MustCompile(`^\s*- option "` + regexp.QuoteMeta(name) + `"[^\n]*?\[ref=([^\]\s]+)\]`)
		for _, o := range lines[i+1:] {
			if len(o)-len(strings.TrimLeft(o, " ")) <= indent {
				break
			}
			if m := re.FindStringSubmatch(o); m != nil {
				obs, err := a.d.click(m[1], "option "+name)
				a.obs = obs
				return err
			}
		}
	}
	return fmt.Errorf("no option %q in a group %q in what the page shows:\n%.1500s", name, group, a.obs)
}

// typeMore types text into `role "name"` after what it holds, at the caret.
func (a *agent) typeMore(role, name, text string) error {
	return a.on(role, name, func(ref, what string) (string, error) { return a.d.typeMore(ref, what, text) })
}

// typeMore: w365's type without clearing first.
func (w w365) typeMore(ref, _, text string) (string, error) {
	_, _, err := w.call("browser_type_ref", map[string]any{"snapshotId": "latest", "ref": ref, "text": text, "clear": false})
	return "", err
}

// typeMore: playwright-mcp's type fills (replaces) unless it types key by key (slowly).
func (p playwright) typeMore(ref, what, text string) (string, error) {
	out, _, err := p.call("browser_type", map[string]any{"element": what, "target": ref, "text": text, "slowly": true})
	return out, err
}
