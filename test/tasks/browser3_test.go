//go:build linux

package tasks_test

import (
	"fmt"
	"regexp"
)

// browserTasks3 is the third round of browser tasks, on page patterns the rounds before it
// have none of: fields of a component that keeps its own state (React's value tracker), a
// select whose options a slow request fills, a command palette opened by a keyboard
// shortcut, a canvas whose buttons are its fallback content, terms to scroll to their end
// before agreeing, a tag input, a frame of another origin shown scaled down, a cookie banner
// in a closed shadow root over a backdrop, a code typed into one box per digit, and row
// actions that only a pointer on the row shows (CSS :hover).
var browserTasks3 = []browserTask{
	{
		name: "edit fields of a component that keeps its own state",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/profile.html") },
				func() error { return a.typeIn("textbox", "Display name", "Ada Lovelace") },
				func() error { return a.typeIn("textbox", "Email", "ada@example.org") },
				func() error { return a.click("button", "Save profile") },
			)
		},
		check: posted("/form/profile", map[string]string{"name": "Ada Lovelace", "email": "ada@example.org"}),
	},
	{
		name: "choose a city from options a slow request fills",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/regions.html") },
				func() error { return a.selectOption("combobox", "Country", "France") },
				func() error { a.obs = ""; return a.selectOption("combobox", "City", "Lyon") },
				func() error { return a.click("button", "Save region") },
			)
		},
		check: posted("/form/regions", map[string]string{"country": "fr", "city": "lyon"}),
	},
	{
		name: "run a command from a palette opened by Ctrl+K",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/palette.html") },
				func() error { return a.press("heading", "Reading notes", "Control+k") },
				func() error { a.obs = ""; return a.typeIn("combobox", "Type a command", "markdown") },
				func() error { return a.press("combobox", "Type a command", "Enter") },
			)
		},
		check: posted("/form/palette", map[string]string{"command": "export-markdown"}),
	},
	{
		name: "choose seats on a canvas through its fallback buttons",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/seats.html") },
				func() error { return a.click("button", "Seat B4") },
				func() error { return a.click("button", "Seat B5") },
				func() error {
					if chosen, err := a.reads("status"); err != nil || chosen != "Chosen: B4, B5" {
						return fmt.Errorf("the page reads %q (%v)", chosen, err)
					}
					return nil
				},
				func() error { return a.click("button", "Book seats") },
			)
		},
		check: posted("/form/seats", map[string]string{"seats": "B4,B5"}),
	},
	{
		name: "scroll terms to their end by keys, then agree",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/terms.html") },
				func() error { return a.press("region", "Loan terms", "End") },
				func() error { a.obs = ""; return a.click("checkbox", "I have read the terms") },
				func() error { return a.click("button", "Accept the terms") },
			)
		},
		check: posted("/form/terms", map[string]string{"agree": "yes"}),
	},
	{
		name: "remove a chip of a tag input, add two by Enter",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/subjects.html") },
				func() error { return a.click("button", "Remove chemistry") },
				func() error { return a.typeIn("textbox", "Add a subject", "poetry") },
				func() error { return a.press("textbox", "Add a subject", "Enter") },
				func() error { return a.typeIn("textbox", "Add a subject", "maps") },
				func() error { return a.press("textbox", "Add a subject", "Enter") },
				func() error { return a.click("button", "Save interests") },
			)
		},
		check: posted("/form/subjects", map[string]string{"subjects": "history,poetry,maps"}),
	},
	{
		name: "sign up in a frame of another origin shown scaled down",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/preview.html") },
				func() error { return a.typeIn("textbox", "Your email", "ada@example.org") },
				func() error { return a.click("checkbox", "Monthly digest") },
				func() error { return a.click("button", "Sign up") },
			)
		},
		check: posted("/form/preview", map[string]string{"email": "ada@example.org", "digest": "on"}),
	},
	{
		name: "answer a cookie banner in a closed shadow root, subscribe",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/newsletter.html") },
				func() error { return a.click("button", "Only necessary cookies") },
				func() error { a.obs = ""; return a.typeIn("textbox", "Email", "ada@example.org") },
				func() error { return a.click("button", "Subscribe") },
			)
		},
		check: posted("/form/newsletter", map[string]string{"email": "ada@example.org", "cookies": "necessary"}),
	},
	{
		name: "type a sign-in code into one box per digit",
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/verify.html"); err != nil {
				return err
			}
			m, err := a.match(regexp.MustCompile(`it is[\s\S]{0,80}?\b(\d{6})\b`))
			if err != nil {
				return err
			}
			if m == nil {
				return fmt.Errorf("no code in what the page shows:\n%.1500s", a.obs)
			}
			return first(
				func() error { return a.typeIn("textbox", "Digit 1", m[1]) },
				func() error { return a.click("button", "Verify") },
			)
		},
		check: posted("/form/verify", map[string]string{"code": "482913"}),
	},
	{
		name: "point at a table row to show its action; renew",
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/shelf.html"); err != nil {
				return err
			}
			if err := a.look(); err != nil {
				return err
			}
			// The button shows once the pointer is on its row; where the observation has it
			// already, it is clicked as it is.
			if !a.sees("button", "Renew Dune") {
				// The row's cell, from the observation or else from a search for its text.
				re := regexp.MustCompile(`\bcell "Dune"[^\n]*?\[ref=([^\]\s]+)\]`)
				m := re.FindStringSubmatch(a.obs)
				if m == nil {
					obs, err := a.d.search("Dune")
					if err != nil {
						return err
					}
					if m = re.FindStringSubmatch(obs); m == nil {
						return fmt.Errorf("no cell Dune to point at in what the page shows:\n%.1500s", obs)
					}
				}
				if err := a.hover(m[1], "cell Dune"); err != nil {
					return err
				}
				a.obs = ""
			}
			return a.click("button", "Renew Dune")
		},
		check: posted("/form/shelf", map[string]string{"title": "Dune"}),
	},
}
