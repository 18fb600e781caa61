//go:build linux

package tasks_test

import (
	"fmt"
	"regexp"
	"time"
)

// browserTasks4 is the fourth round of browser tasks, on page patterns the rounds before it
// have none of: a file dropped onto a drop zone that has no file input, a room chosen on an
// image map, a feed that loads more as it is scrolled, a member mentioned in a rich-text
// comment, a sortable list moved by keys (Space, arrows, Space), a carousel whose slides out
// of view are hidden and inert, a chat answer that streams in before it can be read, and a
// sign-in in a popup of an identity provider that hands back and closes itself.
var browserTasks4 = []browserTask{
	{
		name: "drop a file onto a drop zone that has no file input",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/scans.html") },
				func() error {
					return a.on("region", "Drop your scan here", func(ref, what string) (string, error) {
						return a.d.drop(ref, what, "card.txt", "card 2291")
					})
				},
				func() error { return a.says("card.txt is ready (9 bytes).") },
				func() error { return a.click("button", "Send scan") },
			)
		},
		check: posted("/form/scans", map[string]string{"scan": "card.txt:card 2291"}),
	},
	{
		name: "choose a room on an image map, book it",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/floorplan.html") },
				func() error { return a.click("link", "Room B, 4 seats") },
				func() error { return a.says("Chosen: Room B") },
				func() error { return a.click("button", "Book this room") },
			)
		},
		check: posted("/form/floorplan", map[string]string{"room": "Room B"}),
	},
	{
		name: "scroll a feed until the wanted title loads; reserve it",
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/arrivals.html"); err != nil {
				return err
			}
			const want = "Reserve The Left Hand of Darkness"
			// The last title the feed shows: it changes once more have loaded.
			reserve := regexp.MustCompile(`button "Reserve ([^"]+)"`)
			last := func() string {
				m := reserve.FindAllStringSubmatch(a.obs, -1)
				if m == nil {
					return ""
				}
				return m[len(m)-1][1]
			}
			if err := a.look(); err != nil {
				return err
			}
			for range 12 {
				if a.sees("button", want) {
					return a.click("button", want)
				}
				// The feed loads more once its end is in view: look again until a later title shows.
				was := last()
				if err := a.press("feed", "New arrivals", "End"); err != nil {
					return err
				}
				for try := 0; try < 10 && (try == 0 || last() == was); try++ {
					time.Sleep(200 * time.Millisecond)
					if err := a.look(); err != nil {
						return err
					}
				}
			}
			return fmt.Errorf("no button %q after scrolling the feed:\n%.1500s", want, a.obs)
		},
		check: posted("/form/arrivals", map[string]string{"title": "The Left Hand of Darkness"}),
	},
	{
		name: "mention a member in a rich-text comment, post it",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/discuss.html") },
				func() error { return a.typeIn("textbox", "Comment", "Chapter five is for @ada") },
				func() error { a.obs = ""; return a.click("option", "Ada Lovelace") },
				func() error { return a.click("button", "Post comment") },
			)
		},
		check: posted("/form/discuss", map[string]string{"text": "Chapter five is for @Ada Lovelace", "mentions": "ada"}),
	},
	{
		name: "move a book up a sortable list by keys, save",
		run: func(a *agent, url string) error {
			steps := []func() error{
				func() error { return a.navigate(url + "/order.html") },
				// A click on the handle only puts the focus on it.
				func() error { return a.click("button", "Move Emma") },
			}
			for _, k := range []string{" ", "ArrowUp", "ArrowUp", " "} {
				steps = append(steps, func() error { return a.press("button", "Move Emma", k) })
			}
			return first(append(steps,
				func() error { return a.says("Emma dropped at position 1 of 3.") },
				func() error { return a.click("button", "Save order") },
			)...)
		},
		check: posted("/form/order", map[string]string{"order": "Emma,Middlemarch,Dune"}),
	},
	{
		name: "page a carousel whose hidden slides are inert; choose one",
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/offers.html"); err != nil {
				return err
			}
			const want = "Choose Evening pass"
			for range 6 {
				if err := a.look(); err != nil {
					return err
				}
				if a.sees("button", want) {
					return a.click("button", want)
				}
				if err := a.click("button", "Next pass"); err != nil {
					return err
				}
			}
			return fmt.Errorf("no button %q after paging the carousel:\n%.1500s", want, a.obs)
		},
		check: posted("/form/offers", map[string]string{"pass": "Evening pass"}),
	},
	{
		name: "wait for a streamed chat answer to end; reply with its reference",
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/helpdesk.html"); err != nil {
				return err
			}
			// The reference is whole only once the answer has ended.
			if err := a.waitFor("when this line ends"); err != nil {
				return err
			}
			m, err := a.match(regexp.MustCompile(`It is (LN-\d+)\.`))
			if err != nil {
				return err
			}
			if m == nil {
				return fmt.Errorf("no reference in what the page shows:\n%.1500s", a.obs)
			}
			return first(
				func() error { return a.typeIn("textbox", "Message", m[1]) },
				func() error { return a.click("button", "Send") },
			)
		},
		check: posted("/form/helpdesk", map[string]string{"message": "LN-48217"}),
	},
	{
		name: "sign in through a popup that closes itself; place a hold",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/holdsignin.html") },
				func() error { return a.click("button", "Sign in with Library ID") },
				func() error { a.obs = ""; return a.typeIn("textbox", "Card number", "2291") },
				func() error { return a.typeIn("textbox", "PIN", "7788") },
				func() error { return a.click("button", "Allow and sign in") },
				// The popup hands the sign-in back and closes: the page says who is signed in.
				func() error { return a.waitFor("Signed in as card-2291") },
				func() error { a.obs = ""; return a.click("button", "Place hold") },
			)
		},
		check: posted("/form/holdsignin", map[string]string{"user": "card-2291", "title": "Kindred"}),
	},
}

// says checks in a fresh observation that the page's status reads want.
func (a *agent) says(want string) error {
	if said, err := a.reads("status"); err != nil || said != want {
		return fmt.Errorf("the page reads %q, want %q (%v)", said, want, err)
	}
	return nil
}
