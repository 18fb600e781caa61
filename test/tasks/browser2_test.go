//go:build linux

package tasks_test

import (
	"fmt"
	"strings"
)

// browserTasks2 is the second round of browser tasks, on page patterns the first round has
// none of: a native <dialog>, native colour and range inputs, a context menu opened by a
// right click, a name edited after a double click, the popover attribute, an editor in a frame
// the page writes itself, a code handed over on the clipboard only, a rich-text widget of
// another origin, a frame inside a native modal dialog (a select with option groups in it),
// a board of another origin whose cards are dragged between its columns, and switches whose
// checkbox is hidden visually.
var browserTasks2 = []browserTask{
	{
		name: "choose in a native <dialog> opened with showModal",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/dropoff.html") },
				func() error { return a.click("button", "Choose a drop-off point") },
				func() error { a.obs = ""; return a.click("radio", "Night box") },
				func() error { return a.click("button", "Confirm") },
				func() error {
					// The dialog closed: the page says what it took from it.
					if chosen, err := a.reads("status"); err != nil || chosen != "Night box" {
						return fmt.Errorf("the drop-off point reads %q (%v)", chosen, err)
					}
					return nil
				},
				func() error { return a.click("button", "Book the return") },
			)
		},
		check: posted("/form/dropoff", map[string]string{"point": "Night box"}),
	},
	{
		name: "set a native colour input and a native range input",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/poster.html") },
				func() error { return a.typeIn("textbox", "Ink colour", "#1e90ff") },
				func() error { return a.typeIn("slider", "Copies", "12") },
			); err != nil {
				return err
			}
			// A YAML snapshot quotes a text that reads as a number.
			if n, err := a.reads("status"); err != nil || strings.Trim(n, `"`) != "12" {
				return fmt.Errorf("the page reads %q copies (%v)", n, err)
			}
			return a.click("button", "Send to the printer")
		},
		check: posted("/form/poster", map[string]string{"ink": "#1e90ff", "copies": "12"}),
	},
	{
		name: "right-click a row, choose in its context menu",
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/loans-menu.html"); err != nil {
				return err
			}
			if _, err := a.find("heading", "Loans"); err != nil {
				return err
			}
			dune, err := a.findItem("listitem", "Dune")
			if err != nil {
				return err
			}
			if a.obs, err = a.d.rightClick(dune, "listitem Dune"); err != nil {
				return err
			}
			a.obs = ""
			return a.click("menuitem", "Report lost")
		},
		check: posted("/form/loans-menu", map[string]string{"title": "Dune", "action": "Report lost"}),
	},
	{
		name: "double-click a heading to rename it in place",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/lists.html") },
				func() error { return a.on("heading", "Untitled list", a.d.doubleClick) },
				func() error { a.obs = ""; return a.typeIn("textbox", "List name", "Winter reads") },
				func() error { return a.press("textbox", "List name", "Enter") },
				func() error { a.obs = ""; _, err := a.find("heading", "Winter reads"); return err },
				func() error { return a.click("button", "Save lists") },
			)
		},
		check: posted("/form/lists", map[string]string{"name": "Winter reads"}),
	},
	{
		name: "tick options in a popover (the popover attribute)",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/hours.html") },
				func() error { return a.typeIn("textbox", "Email", "ada@example.org") },
				func() error { return a.click("button", "Choose topics") },
				func() error { a.obs = ""; return a.click("checkbox", "Events") },
				func() error { return a.click("checkbox", "Closures") },
				func() error { return a.click("button", "Done") },
				func() error {
					if chosen, err := a.reads("status"); err != nil || chosen != "Events, Closures" {
						return fmt.Errorf("the topics read %q (%v)", chosen, err)
					}
					return nil
				},
				func() error { return a.click("button", "Subscribe") },
			)
		},
		check: posted("/form/hours", map[string]string{"email": "ada@example.org", "topic": "events,closures"}),
	},
	{
		name: "write in an editor frame the page wrote itself; format it",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/letter.html") },
				func() error { return a.typeIn("textbox", "Letter text", "Dear members") },
				func() error { return a.press("textbox", "Letter text", "Control+a") },
				func() error { return a.click("button", "Italic") },
				func() error { return a.shows("button", "Italic", "pressed") },
				func() error { return a.click("button", "Send the letter") },
			)
		},
		check: posted("/form/letter", map[string]string{"body": "<i>Dear members</i>"}),
	},
	{
		name: "copy a code the page shows only on the clipboard; paste it",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/voucher.html") },
				func() error { return a.click("button", "Copy the code") },
				func() error {
					if said, err := a.reads("status"); err != nil || said != "Copied" {
						return fmt.Errorf("the page says %q after the copy (%v)", said, err)
					}
					return nil
				},
				func() error { return a.click("textbox", "Paste the voucher code") },
				func() error { return a.press("textbox", "Paste the voucher code", "Control+v") },
				func() error { return a.click("button", "Redeem") },
			)
		},
		check: posted("/form/voucher", map[string]string{"code": "LIBRARY-4471"}),
	},
	{
		name: "format a comment in a rich-text widget of another origin",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/guestbook.html") },
				func() error { return a.typeIn("textbox", "Your comment", "Lovely reading room") },
				func() error { return a.press("textbox", "Your comment", "Control+a") },
				func() error { return a.click("button", "Underline") },
				func() error { return a.shows("button", "Underline", "pressed") },
				func() error { return a.click("button", "Sign the guestbook") },
			)
		},
		check: posted("/form/guestbook", map[string]string{"comment": "<u>Lovely reading room</u>"}),
	},
	{
		name: "fill a form in a frame inside a native modal <dialog>",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/notice.html") },
				func() error { return a.click("button", "Report a problem") },
				func() error { a.obs = ""; return a.selectOption("combobox", "Where", "Reading room") },
				func() error { return a.typeIn("textbox", "What is wrong", "The lamp by the window flickers.") },
				func() error { return a.click("button", "Send the report") },
			)
		},
		check: posted("/form/notice", map[string]string{"where": "Reading room", "what": "The lamp by the window flickers."}),
	},
	{
		name: "drag a card between columns of a board of another origin",
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/planner.html"); err != nil {
				return err
			}
			if _, err := a.find("heading", "Study planner"); err != nil {
				return err
			}
			dune, err := a.findItem("listitem", "Dune")
			if err != nil {
				return err
			}
			finished, err := a.find("list", "Finished")
			if err != nil {
				return err
			}
			if a.obs, err = a.d.drag(dune, "listitem Dune", finished, "list Finished"); err != nil {
				return err
			}
			return a.click("button", "Save the board")
		},
		check: posted("/form/planner", map[string]string{"finished": "Middlemarch,Dune"}),
	},
	{
		name: "turn on a switch whose checkbox is visually hidden",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/alerts.html") },
				func() error { return a.click("switch", "Text messages") },
				func() error { return a.shows("switch", "Text messages", "checked") },
				func() error { return a.click("button", "Save alerts") },
			)
		},
		check: posted("/form/alerts", map[string]string{"sms": "on", "due": ""}),
	},
}
