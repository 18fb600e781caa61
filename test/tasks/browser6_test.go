//go:build linux

package tasks_test

import (
	"fmt"
	"strings"
)

// browserTasks6 is the sixth round of browser tasks, on page patterns the rounds before it
// have none of (taken from what playwright's and playwright-mcp's own tests exercise: a
// file chooser of a frame, clicks with modifiers, typing into masked inputs, a frame in a
// shadow root): a file chooser opened by a button inside a frame of another origin, a
// mail client's list selected by click, Shift+click and Ctrl+click (only real clicks
// count), card fields that rewrite their value as they are typed into, a form in a frame of
// another origin inside a closed shadow root, and a branch finder that asks for the
// location and takes a postcode when it does not get one.
var browserTasks6 = []browserTask{
	{
		name: "attach a receipt through a frame of another origin's file chooser",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/claim.html") },
				func() error { return a.typeIn("textbox", "Amount (£)", "42.50") },
				func() error { return a.click("button", "Attach a receipt") },
			); err != nil {
				return err
			}
			if !strings.Contains(strings.ToLower(a.obs), "file chooser") {
				return fmt.Errorf("the click does not say a file chooser opened:\n%.1500s", a.obs)
			}
			if _, err := a.d.upload("taxi.txt", "taxi to the depot, 42.50"); err != nil {
				return err
			}
			return first(
				func() error { return a.waitFor("taxi.txt is attached") },
				func() error { a.obs = ""; return a.click("button", "Submit the claim") },
			)
		},
		check: posted("/form/claim", map[string]string{"amount": "42.50", "receipt": "taxi.txt:taxi to the depot, 42.50"}),
	},
	{
		name: "select messages by click, Shift+click and Ctrl+click; archive them",
		run: func(a *agent, url string) error {
			mod := func(name, key string) func() error {
				return func() error {
					return a.on("option", name, func(ref, what string) (string, error) { return a.d.modClick(ref, what, key) })
				}
			}
			if err := first(
				func() error { return a.navigate(url + "/inbox.html") },
				func() error { return a.click("option", "Overdue: Dune") },
				mod("Overdue: Emma", "Shift"),
				mod("Overdue: Ulysses", "Control"),
			); err != nil {
				return err
			}
			a.obs = ""
			for _, name := range []string{"Overdue: Dune", "Overdue: Middlemarch", "Overdue: Emma", "Overdue: Ulysses"} {
				if err := a.shows("option", name, "selected"); err != nil {
					return err
				}
			}
			return a.click("button", "Archive 4 messages")
		},
		check: posted("/form/archive", map[string]string{"ids": "m2,m3,m4,m7"}),
	},
	{
		name: "pay with card fields that format what is typed",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/card.html") },
				func() error { return a.typeIn("textbox", "Card number", "4111111111111111") },
				func() error { return a.typeIn("textbox", "Expiry date", "1228") },
				func() error { return a.typeIn("textbox", "Security code", "737") },
				func() error { return a.click("button", "Pay £3.20") },
			)
		},
		check: posted("/form/fine", map[string]string{"card": "4111 1111 1111 1111", "expiry": "12/28", "cvc": "737"}),
	},
	{
		name: "sign a petition in a frame of another origin in a closed shadow root",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/petition.html") },
				func() error { return a.typeIn("textbox", "Full name", "Ada Lovelace") },
				func() error { return a.typeIn("textbox", "Postcode", "NW1 2DB") },
				func() error { return a.click("checkbox", "Send me updates on the campaign") },
				func() error { return a.click("button", "Sign the petition") },
			)
		},
		check: posted("/form/petition", map[string]string{"name": "Ada Lovelace", "postcode": "NW1 2DB", "updates": "yes"}),
	},
	{
		name: "find a branch: location asked for and not given, type a postcode",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/nearest.html") },
				func() error { return a.click("button", "Use my location") },
				func() error { return a.waitFor("type your postcode") },
				func() error { return a.typeIn("textbox", "Postcode", "NW1 2DB") },
				func() error { return a.click("button", "Find branches") },
				func() error { return a.click("button", "Choose Euston Road") },
			)
		},
		check: posted("/form/branch", map[string]string{"branch": "Euston Road", "postcode": "NW1 2DB"}),
	},
}
