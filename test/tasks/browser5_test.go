//go:build linux

package tasks_test

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"math/rand/v2"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// browserTasks5 is the fifth round of browser tasks, on page patterns the rounds before it
// have none of: a queue whose place and turn arrive over a WebSocket, a cancel that asks
// with window.confirm and answers in a new tab the agent reads and leaves, a form of
// components nested in open shadow roots inside a frame of another origin (with a box of
// the page's own shown through a slot), a select-only combobox that opens on pointerdown
// with its options in a portal, a table's tri-state "select all" box, a form in a sandboxed
// frame of opaque origin, a drawer that slides in over a backdrop that closes it, and a jump
// menu whose choice goes to a page the server is slow to give.
var browserTasks5 = []browserTask{
	{
		name: "join a queue that answers over a WebSocket; check in",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/queue.html") },
				func() error { return a.typeIn("textbox", "Your name", "Ada") },
				func() error { return a.click("button", "Join the queue") },
				func() error { return a.waitFor("It is your turn") },
			); err != nil {
				return err
			}
			m, err := a.match(regexp.MustCompile(`check in with the code (Q-\d+)`))
			if err != nil {
				return err
			}
			if m == nil {
				return fmt.Errorf("no check-in code in what the page shows:\n%.1500s", a.obs)
			}
			return first(
				func() error { return a.typeIn("textbox", "Check-in code", m[1]) },
				func() error { return a.click("button", "Check in") },
			)
		},
		check: issued("/ws/queue", map[string]string{"name": "Ada"}),
	},
	{
		name: "cancel a hold: confirm, read the slip in a new tab, finish",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/cancel.html") },
				func() error { return a.click("button", "Cancel hold on Dune") },
			); err != nil {
				return err
			}
			if !strings.Contains(a.obs, "Cancel your hold on Dune?") {
				return fmt.Errorf("the click does not show the confirm:\n%.1500s", a.obs)
			}
			if _, err := a.d.dialog(true, ""); err != nil {
				return err
			}
			if err := a.toTab("Cancellation slip"); err != nil {
				return err
			}
			m, err := a.match(regexp.MustCompile(`slip code is (S-\d+)`))
			if err != nil {
				return err
			}
			if m == nil {
				return fmt.Errorf("no slip code in what the tab shows:\n%.1500s", a.obs)
			}
			return first(
				func() error { return a.toTab("Your holds") },
				func() error { return a.typeIn("textbox", "Slip code", m[1]) },
				func() error { return a.click("button", "Finish cancelling") },
			)
		},
		check: func(s *site) error {
			if err := posted("/cancel", map[string]string{"hold": "Dune"})(s); err != nil {
				return err
			}
			return issued("/form/cancel-finish", map[string]string{"hold": "Dune"})(s)
		},
	},
	{
		name: "donate in nested shadow roots inside a frame of another origin",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/donate.html") },
				func() error { return a.click("radio", "£20") },
				func() error { return a.typeIn("textbox", "Name on the receipt", "Ada Lovelace") },
				func() error { return a.click("checkbox", "Add Gift Aid (I pay UK tax)") },
				func() error { return a.click("button", "Donate") },
			)
		},
		check: posted("/form/donate", map[string]string{"amount": "20", "name": "Ada Lovelace", "giftaid": "yes"}),
	},
	{
		name: "pick in a combobox opened on pointerdown, options in a portal",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/collect.html") },
				func() error { return a.click("combobox", "Collect from") },
				func() error { return a.click("option", "York") },
				func() error { a.obs = ""; return a.click("button", "Reserve") },
			)
		},
		check: posted("/form/collect", map[string]string{"title": "Dune", "branch": "york"}),
	},
	{
		name: "select all rows, untick the one that cannot be renewed, renew",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/bulk.html") },
				func() error { return a.click("checkbox", "Select all loans") },
				func() error { return a.look() },
			); err != nil {
				return err
			}
			// The rows whose note says they cannot be renewed, by the name of their box.
			var skip []string
			for _, row := range regexp.MustCompile(`(?m)^\s*- row\b`).Split(a.obs, -1) {
				if strings.Contains(row, "cannot be renewed") {
					if m := regexp.MustCompile(`checkbox "(Select [^"]+)"`).FindStringSubmatch(row); m != nil {
						skip = append(skip, m[1])
					}
				}
			}
			if len(skip) == 0 {
				return fmt.Errorf("no row that cannot be renewed has a box:\n%.1500s", a.obs)
			}
			for _, box := range skip {
				if err := a.click("checkbox", box); err != nil {
					return err
				}
			}
			if err := a.shows("checkbox", "Select all loans", "checked=mixed"); err != nil {
				return err
			}
			m := regexp.MustCompile(`button "(Renew selected \(\d+\))"`).FindStringSubmatch(a.obs)
			if m == nil {
				return fmt.Errorf("no renew button in what the page shows:\n%.1500s", a.obs)
			}
			return a.click("button", m[1])
		},
		check: posted("/form/bulk", map[string]string{"loan": "Kindred,Emma,Middlemarch,Ivanhoe"}),
	},
	{
		name: "answer a survey in a sandboxed frame of opaque origin",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/survey.html") },
				func() error { return a.click("radio", "Every month") },
				func() error { return a.selectOption("combobox", "Favourite section", "Local studies") },
				func() error { return a.typeIn("textbox", "Anything else?", "More evening hours, please.") },
				func() error { return a.click("button", "Send answers") },
			)
		},
		check: posted("/form/survey", map[string]string{"often": "monthly", "section": "Local studies", "remarks": "More evening hours, please."}),
	},
	{
		name: "filter results in a drawer that slides in over a backdrop",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/results.html") },
				func() error { return a.click("button", "Filters") },
				func() error { return a.click("checkbox", "Available now") },
				func() error { return a.shows("checkbox", "Available now", "checked") },
				func() error { return a.selectOption("combobox", "Format", "Large print") },
				func() error { return a.click("button", "Show results") },
			)
		},
		check: posted("/form/results", map[string]string{"q": "history", "available": "yes", "format": "large"}),
	},
	{
		name: "choose in a jump menu that goes to a slow page; act there",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/branches.html") },
				func() error { return a.selectOption("combobox", "Go to a branch", "York") },
				func() error { return a.click("button", "Make York my branch") },
			)
		},
		check: posted("/form/branches", map[string]string{"branch": "York"}),
	},
}

// toTab makes the tab whose title holds title the current one, by its index in the list
// of tabs the browser gives, and keeps what the switch returned as the observation.
func (a *agent) toTab(title string) error {
	// A tab just opened may not be listed yet, or not have its title: list again.
	var list string
	for try := 0; try < 10; try++ {
		var err error
		if list, err = a.d.tabs(); err != nil {
			return err
		}
		if i := tabIndex(list, title); i >= 0 {
			obs, err := a.d.selectTab(i)
			a.obs = obs
			return err
		}
		time.Sleep(300 * time.Millisecond)
	}
	return fmt.Errorf("no tab titled %q in the list of tabs:\n%.1500s", title, list)
}

// tabIndex is the index of the tab whose title holds title in a list of tabs, one a line,
// each line with its index first ("- 1: [Title](url)", "1: Title — url", ...); -1 if none.
func tabIndex(list, title string) int {
	re := regexp.MustCompile(`^\W*(\d+)\b`)
	for _, l := range strings.Split(list, "\n") {
		if strings.Contains(l, title) {
			if m := re.FindStringSubmatch(l); m != nil {
				i, _ := strconv.Atoi(m[1])
				return i
			}
		}
	}
	return -1
}

func (w w365) tabs() (string, error) {
	out, _, err := w.call("browser_list_tabs", nil)
	return out, err
}

func (w w365) selectTab(i int) (string, error) {
	out, _, err := w.call("browser_switch_tab", map[string]any{"tabIndex": i})
	return out, err
}

func (p playwright) tabs() (string, error) {
	out, _, err := p.call("browser_tabs", map[string]any{"action": "list"})
	return out, err
}

func (p playwright) selectTab(i int) (string, error) {
	out, _, err := p.call("browser_tabs", map[string]any{"action": "select", "index": i})
	return out, err
}

// issued checks that the site received one form on path, with these values, whose code is
// the one the site issued (kept beside it as "issued", or on the form /cancel received).
func issued(path string, want map[string]string) func(*site) error {
	return func(s *site) error {
		if err := posted(path, want)(s); err != nil {
			return err
		}
		f := s.forms(path)[0]
		code := f["issued"]
		if got := s.forms("/cancel"); code == "" && len(got) == 1 {
			code = got[0]["issued"]
		}
		if code == "" || f["code"] != code {
			return fmt.Errorf("the site received code %q, it issued %q", f["code"], code)
		}
		return nil
	}
}

// routes5 serves what the fifth round's pages ask of the server: the queue's WebSocket and
// the cancel that answers with a slip; record keeps a form (see startSite).
func (s *site) routes5(mux *http.ServeMux, record func(*http.Request) map[string]string) {
	// The queue: the place, then the turn with a code of its own, 600 ms apart; a check-in
	// over the same socket is kept as the form of /ws/queue, with the code it issued.
	mux.HandleFunc("GET /ws/queue", func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Minute)
		defer cancel()
		var msg struct{ Join, Checkin string }
		read := func() bool {
			_, b, err := c.Read(ctx)
			return err == nil && json.Unmarshal(b, &msg) == nil
		}
		send := func(v any) bool {
			b, _ := json.Marshal(v)
			return c.Write(ctx, websocket.MessageText, b) == nil
		}
		if !read() || msg.Join == "" {
			return
		}
		name, code := msg.Join, fmt.Sprintf("Q-%03d", 100+rand.IntN(900))
		for p := 3; p > 0; p-- {
			if !send(map[string]int{"position": p}) {
				return
			}
			time.Sleep(600 * time.Millisecond)
		}
		if !send(map[string]any{"turn": map[string]any{"desk": 4, "code": code}}) {
			return
		}
		for read() {
			if msg.Checkin == "" {
				continue
			}
			s.mu.Lock()
			s.got["/ws/queue"] = append(s.got["/ws/queue"], map[string]string{"name": name, "code": msg.Checkin, "issued": code})
			s.mu.Unlock()
			if msg.Checkin == code {
				send(map[string]int{"checkedIn": 4})
			} else {
				send(map[string]string{"error": "That is not your code."})
			}
		}
	})
	mux.HandleFunc("POST /cancel", func(w http.ResponseWriter, r *http.Request) {
		f := record(r)
		code := fmt.Sprintf("S-%04d", 1000+rand.IntN(9000))
		s.mu.Lock()
		f["issued"] = code
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Cancellation slip</title></head><body><h1>Cancellation slip</h1><p>Your hold on %s is cancelled. Your slip code is %s.</p></body></html>`, html.EscapeString(f["hold"]), code)
	})
}
