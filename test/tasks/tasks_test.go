//go:build linux

package tasks_test

import (
	"archive/zip"
	"context"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

var (
	all   = flag.Bool("tasks.all", false, "every task, the browser ones with playwright-mcp too (make bench)")
	only  = flag.String("tasks.only", "", "run only the browser tasks whose name matches this regular expression")
	peers = flag.String("tasks.peers", filepath.Join(testenv.Root(), "testdata", "bench", "peers", "node_modules"), "node_modules with @playwright/mcp")
)

// client is one MCP server under test, metered as a model pays for it: every call, and
// the bytes of every result as the wire carries it.
type client struct {
	cs    *mcp.ClientSession
	calls int
	bytes int
}

// call runs a tool; a tool error comes back as an error holding its text.
func (c *client) call(name string, args map[string]any) (string, map[string]any, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c.calls++
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "", nil, fmt.Errorf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res)
	c.bytes += len(b)
	var text []string
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			text = append(text, tc.Text)
		}
	}
	var st map[string]any
	sb, _ := json.Marshal(res.StructuredContent)
	json.Unmarshal(sb, &st)
	if res.IsError {
		return "", st, fmt.Errorf("%s: %s", name, strings.Join(text, "\n"))
	}
	return strings.Join(text, "\n"), st, nil
}

// A dialect is how one server's browser tools are called. An action returns the page's
// accessibility snapshot when the server sends one with it (playwright-mcp does), else "".
type dialect interface {
	navigate(url string) (string, error)
	snapshot() (string, error)
	click(ref, what string) (string, error)
	typeIn(ref, what, text string) (string, error)
	// typeMore types after what the field holds, at the caret.
	typeMore(ref, what, text string) (string, error)
	hover(ref, what string) (string, error)
	press(ref, what, key string) (string, error)
	drag(from, fromWhat, to, toWhat string) (string, error)
	selectOption(ref, what string, values []string) (string, error)
	// search is an observation that shows the elements holding text with their refs.
	search(text string) (string, error)
	// waitText waits for text to show; its observation is what the wait returned.
	waitText(text string) (string, error)
	back() (string, error)
	// dialog accepts (answering a prompt with text) or dismisses the open dialog.
	dialog(accept bool, text string) (string, error)
	// upload gives the open file chooser one file.
	upload(name, content string) (string, error)
	// drop drops one file onto the element, as a file dragged from the desktop is.
	drop(ref, what, name, content string) (string, error)
	// rightClick and doubleClick are clicks with the other button, and twice.
	rightClick(ref, what string) (string, error)
	doubleClick(ref, what string) (string, error)
	// modClick clicks with a key held: Shift, Control.
	modClick(ref, what, key string) (string, error)
	// tabs lists the open tabs, each with its index; selectTab makes one the current.
	tabs() (string, error)
	selectTab(index int) (string, error)
}

// w365 acts on the refs of its latest snapshot.
type w365 struct{ *client }

func (w w365) navigate(url string) (string, error) {
	_, _, err := w.call("browser_navigate", map[string]any{"url": url})
	return "", err
}

// snapshot looks again, deeper, when the snapshot says it left nodes out.
func (w w365) snapshot() (string, error) {
	text, _, err := w.call("browser_snapshot", nil)
	if err == nil && strings.Contains(text, "raise maxDepth") {
		text, _, err = w.call("browser_snapshot", map[string]any{"maxDepth": 10})
	}
	return text, err
}
func (w w365) hover(ref, _ string) (string, error) {
	_, _, err := w.call("browser_hover_ref", map[string]any{"snapshotId": "latest", "ref": ref})
	return "", err
}

func (w w365) press(ref, _, key string) (string, error) {
	_, _, err := w.call("browser_keypress_ref", map[string]any{"snapshotId": "latest", "ref": ref, "key": key})
	return "", err
}
func (w w365) drag(from, _, to, _ string) (string, error) {
	_, _, err := w.call("browser_drag", map[string]any{"sourceSelector": from, "targetSelector": to})
	return "", err
}
func (w w365) selectOption(ref, _ string, values []string) (string, error) {
	_, _, err := w.call("browser_select_option", map[string]any{"selector": ref, "values": values})
	return "", err
}
func (w w365) search(text string) (string, error) {
	out, _, err := w.call("browser_find", map[string]any{"text": text})
	return out, err
}

func (w w365) waitText(text string) (string, error) {
	out, _, err := w.call("browser_wait_for", map[string]any{"text": text})
	return out, err
}
func (w w365) back() (string, error) {
	_, _, err := w.call("browser_back", nil)
	return "", err
}
func (w w365) dialog(accept bool, text string) (string, error) {
	out, _, err := w.call("browser_handle_dialog", map[string]any{"accept": accept, "promptText": text})
	return out, err
}
func (w w365) upload(name, content string) (string, error) {
	out, _, err := w.call("browser_file_upload", map[string]any{"files": []map[string]any{{"name": name, "data": base64.StdEncoding.EncodeToString([]byte(content))}}})
	return out, err
}

func (w w365) drop(ref, _, name, content string) (string, error) {
	out, _, err := w.call("browser_file_upload", map[string]any{"target": ref, "snapshotId": "latest", "files": []map[string]any{{"name": name, "data": base64.StdEncoding.EncodeToString([]byte(content))}}})
	return out, err
}

// click's observation is what the click says happened (a new tab, a dialog, a download).
func (w w365) click(ref, _ string) (string, error) {
	text, _, err := w.call("browser_click_ref", map[string]any{"snapshotId": "latest", "ref": ref})
	return text, err
}
func (w w365) rightClick(ref, _ string) (string, error) {
	text, _, err := w.call("browser_click_ref", map[string]any{"snapshotId": "latest", "ref": ref, "button": "Right"})
	return text, err
}
func (w w365) doubleClick(ref, _ string) (string, error) {
	text, _, err := w.call("browser_click_ref", map[string]any{"snapshotId": "latest", "ref": ref, "clickCount": 2})
	return text, err
}
func (w w365) modClick(ref, _, key string) (string, error) {
	text, _, err := w.call("browser_click", map[string]any{"target": ref, "modifiers": []string{key}})
	return text, err
}
func (w w365) typeIn(ref, _, text string) (string, error) {
	_, _, err := w.call("browser_type_ref", map[string]any{"snapshotId": "latest", "ref": ref, "text": text})
	return "", err
}

// playwright is @playwright/mcp: element (what the agent read) plus target (the ref), and a snapshot
// in every action's result.
type playwright struct {
	*client
	dir string // its working directory
}

func (p playwright) navigate(url string) (string, error) {
	text, _, err := p.call("browser_navigate", map[string]any{"url": url})
	return text, err
}
func (p playwright) snapshot() (string, error) {
	text, _, err := p.call("browser_snapshot", map[string]any{})
	return text, err
}
func (p playwright) click(ref, what string) (string, error) {
	text, _, err := p.call("browser_click", map[string]any{"element": what, "target": ref})
	return text, err
}
func (p playwright) rightClick(ref, what string) (string, error) {
	text, _, err := p.call("browser_click", map[string]any{"element": what, "target": ref, "button": "right"})
	return text, err
}
func (p playwright) doubleClick(ref, what string) (string, error) {
	text, _, err := p.call("browser_click", map[string]any{"element": what, "target": ref, "doubleClick": true})
	return text, err
}
func (p playwright) modClick(ref, what, key string) (string, error) {
	text, _, err := p.call("browser_click", map[string]any{"element": what, "target": ref, "modifiers": []string{key}})
	return text, err
}
func (p playwright) typeIn(ref, what, text string) (string, error) {
	out, _, err := p.call("browser_type", map[string]any{"element": what, "target": ref, "text": text})
	return out, err
}
func (p playwright) hover(ref, what string) (string, error) {
	out, _, err := p.call("browser_hover", map[string]any{"element": what, "target": ref})
	return out, err
}

// press types the key into the focused element: the last one acted on.
func (p playwright) press(_, _, key string) (string, error) {
	out, _, err := p.call("browser_press_key", map[string]any{"key": key})
	return out, err
}
func (p playwright) drag(from, fromWhat, to, toWhat string) (string, error) {
	out, _, err := p.call("browser_drag", map[string]any{"startElement": fromWhat, "startTarget": from, "endElement": toWhat, "endTarget": to})
	return out, err
}
func (p playwright) selectOption(ref, what string, values []string) (string, error) {
	out, _, err := p.call("browser_select_option", map[string]any{"element": what, "target": ref, "values": values})
	return out, err
}
func (p playwright) search(string) (string, error) { return p.snapshot() }
func (p playwright) waitText(text string) (string, error) {
	out, _, err := p.call("browser_wait_for", map[string]any{"text": text})
	return out, err
}
func (p playwright) back() (string, error) {
	out, _, err := p.call("browser_navigate_back", map[string]any{})
	return out, err
}
func (p playwright) dialog(accept bool, text string) (string, error) {
	args := map[string]any{"accept": accept}
	if text != "" {
		args["promptText"] = text
	}
	out, _, err := p.call("browser_handle_dialog", args)
	return out, err
}

// upload writes the file where playwright-mcp reads paths from: its working directory.
func (p playwright) upload(name, content string) (string, error) {
	path := filepath.Join(p.dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return "", err
	}
	out, _, err := p.call("browser_file_upload", map[string]any{"paths": []string{path}})
	return out, err
}

// drop: playwright-mcp's one file tool answers a file chooser the page opened; it has
// none that drops a file onto an element, so the agent tries that one.
func (p playwright) drop(_, _, name, content string) (string, error) { return p.upload(name, content) }

// agent is the scripted agent of the browser tasks: it keeps its last observation and
// takes every ref from it.
type agent struct {
	d   dialect
	obs string
}

// find is the ref of the element `role "name"` in the last observation, observing first
// when it has none, and looking again (a page may still be loading) up to four times.
func (a *agent) find(role, name string) (string, error) {
	re := regexp.MustCompile(`(?m)\b` + regexp.QuoteMeta(role) + ` "` + regexp.QuoteMeta(name) + `"[^\n]*?\[ref=([^\]\s]+)\]`)
	for try := 0; try < 5; try++ {
		if a.obs == "" || try > 0 {
			if try > 0 {
				time.Sleep(200 * time.Millisecond)
			}
			obs, err := a.d.snapshot()
			if err != nil {
				return "", err
			}
			a.obs = obs
		}
		if m := re.FindStringSubmatch(a.obs); m != nil {
			return m[1], nil
		}
	}
	return "", fmt.Errorf("no %s %q in what the page shows:\n%.1500s", role, name, a.obs)
}

// findItem is the ref of an element with no name, `role [ref=e5]: text` (a list item, a
// clickable div; playwright-mcp may add [cursor=pointer] after the ref), in the last observation, or in what a search for text shows.
func (a *agent) findItem(role, text string) (string, error) {
	re := regexp.MustCompile(`(?m)\b` + regexp.QuoteMeta(role) + ` \[ref=([^\]\s]+)\](?: \[[^\]]*\])*: ` + regexp.QuoteMeta(text) + `$`)
	if m := re.FindStringSubmatch(a.obs); m != nil {
		return m[1], nil
	}
	obs, err := a.d.search(text)
	if err != nil {
		return "", err
	}
	a.obs = obs
	if m := re.FindStringSubmatch(a.obs); m != nil {
		return m[1], nil
	}
	return "", fmt.Errorf("no %s %q in what the page shows:\n%.1500s", role, text, a.obs)
}

// cellAfter is the ref of the cell after the cell named name, in a fresh observation: a
// table row's value beside its title.
func (a *agent) cellAfter(name string) (string, error) {
	obs, err := a.d.snapshot()
	if err != nil {
		return "", err
	}
	a.obs = obs
	m := regexp.MustCompile(`(?s)\bcell "` + regexp.QuoteMeta(name) + `"[^\n]*\n[^\n]*?\bcell(?: "[^"]*")?[^\n]*?\[ref=([^\]\s]+)\]`).FindStringSubmatch(obs)
	if m == nil {
		return "", fmt.Errorf("no cell after %q in what the page shows:\n%.1500s", name, obs)
	}
	return m[1], nil
}

// reads is the text of the first `role: text` line in a fresh observation.
func (a *agent) reads(role string) (string, error) {
	obs, err := a.d.snapshot()
	if err != nil {
		return "", err
	}
	a.obs = obs
	m := regexp.MustCompile(`(?m)\b` + regexp.QuoteMeta(role) + `(?: "[^"]*")?(?: \[[^\]]*\])*: (.+)$`).FindStringSubmatch(obs)
	if m == nil {
		return "", fmt.Errorf("no %s with text in what the page shows:\n%.1500s", role, obs)
	}
	return m[1], nil
}

// look takes a fresh observation.
func (a *agent) look() error {
	obs, err := a.d.snapshot()
	a.obs = obs
	return err
}

// match is re's first match in the last observation or, when that has none, in a fresh
// one; nil when neither has it.
func (a *agent) match(re *regexp.Regexp) ([]string, error) {
	if m := re.FindStringSubmatch(a.obs); m != nil {
		return m, nil
	}
	if err := a.look(); err != nil {
		return nil, err
	}
	return re.FindStringSubmatch(a.obs), nil
}

// waitFor waits for text to show and keeps what the wait returned as the observation.
func (a *agent) waitFor(text string) error {
	obs, err := a.d.waitText(text)
	a.obs = obs
	return err
}

func (a *agent) hover(ref, what string) error {
	obs, err := a.d.hover(ref, what)
	a.obs = obs
	return err
}

// on acts on the element `role "name"` found in the last observation, and keeps what the
// action returned as the next one.
func (a *agent) on(role, name string, act func(ref, what string) (string, error)) error {
	ref, err := a.find(role, name)
	if err != nil {
		return err
	}
	obs, err := act(ref, role+" "+name)
	a.obs = obs
	return err
}

func (a *agent) press(role, name, key string) error {
	return a.on(role, name, func(ref, what string) (string, error) { return a.d.press(ref, what, key) })
}

func (a *agent) selectOption(role, name string, values ...string) error {
	return a.on(role, name, func(ref, what string) (string, error) { return a.d.selectOption(ref, what, values) })
}

// shows checks in a fresh observation that `role "name"` reads the state, [pressed] say,
// among the states it reads (playwright-mcp puts [active] first on the focused one).
func (a *agent) shows(role, name, state string) error {
	obs, err := a.d.snapshot()
	if err != nil {
		return err
	}
	a.obs = obs
	for _, m := range regexp.MustCompile(`\b`+regexp.QuoteMeta(role)+` "`+regexp.QuoteMeta(name)+`"((?: \[[^\]]*\])*)`).FindAllStringSubmatch(obs, -1) {
		if strings.Contains(m[1], "["+state+"]") {
			return nil
		}
	}
	return fmt.Errorf("%s %q does not read %s:\n%.1500s", role, name, state, obs)
}

// sees says whether the last observation shows `role "name"`, without looking again.
func (a *agent) sees(role, name string) bool {
	return strings.Contains(a.obs, role+` "`+name+`"`)
}

func (a *agent) navigate(url string) error {
	obs, err := a.d.navigate(url)
	a.obs = obs
	return err
}

func (a *agent) click(role, name string) error { return a.on(role, name, a.d.click) }

func (a *agent) typeIn(role, name, text string) error {
	return a.on(role, name, func(ref, what string) (string, error) { return a.d.typeIn(ref, what, text) })
}

// site serves testdata/tasks/pages and records what the pages post.
type site struct {
	url string
	mu  sync.Mutex
	got map[string][]map[string]string // path -> forms received
}

func startSite(t *testing.T) *site {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &site{url: "http://" + ln.Addr().String(), got: map[string][]map[string]string{}}
	files := http.FileServer(http.Dir(filepath.Join(testenv.Root(), "testdata", "tasks", "pages")))
	// record keeps a form's fields, and of a file field the file's name and content, name:content.
	record := func(r *http.Request) map[string]string {
		r.ParseMultipartForm(1 << 20)
		f := map[string]string{}
		for k, vs := range r.PostForm {
			f[k] = strings.Join(vs, ",")
		}
		if r.MultipartForm != nil {
			for k, fhs := range r.MultipartForm.File {
				for _, fh := range fhs {
					if b, err := fh.Open(); err == nil {
						content, _ := io.ReadAll(b)
						b.Close()
						f[k] = fh.Filename + ":" + string(content)
					}
				}
			}
		}
		if c, err := r.Cookie("member"); err == nil {
			f["member"] = c.Value
		}
		s.mu.Lock()
		s.got[r.URL.Path] = append(s.got[r.URL.Path], f)
		s.mu.Unlock()
		return f
	}
	reply := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s</title></head><body><h1>%s</h1><p>%s</p></body></html>`, title, title, body)
	}
	mux := http.NewServeMux()
	mux.Handle("/", files)
	mux.HandleFunc("POST /book", func(w http.ResponseWriter, r *http.Request) {
		reply(w, "Booked", "Your room is booked, "+record(r)["name"]+".")
	})
	mux.HandleFunc("POST /basket", func(w http.ResponseWriter, r *http.Request) {
		reply(w, "Basket", record(r)["item"]+" is in your basket.")
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		if f := record(r); f["user"] != "ada" || f["password"] != "correct horse" {
			reply(w, "Sign-in failed", "Wrong username or password.")
			return
		}
		http.SetCookie(w, &http.Cookie{Name: "member", Value: "ada", Path: "/"})
		http.Redirect(w, r, "/board.html", http.StatusSeeOther)
	})
	mux.HandleFunc("POST /comment", func(w http.ResponseWriter, r *http.Request) {
		if record(r)["member"] == "" {
			http.Error(w, "not signed in", http.StatusForbidden)
			return
		}
		reply(w, "Posted", "Thanks, your comment is on the board.")
	})
	// A page's request to /slow/ is answered 1.5 s late, as a busy server would.
	mux.HandleFunc("GET /slow/{file}", func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(1500 * time.Millisecond)
		http.ServeFile(w, r, filepath.Join(testenv.Root(), "testdata", "tasks", "pages", r.PathValue("file")))
	})
	mux.HandleFunc("POST /form/{name}", func(w http.ResponseWriter, r *http.Request) {
		record(r)
		reply(w, "Received", "Thank you.")
	})
	s.routes5(mux, record)
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return s
}

// forms is what the site received on path.
func (s *site) forms(path string) []map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.got[path])
}

// browserTask is one task on the pages: run drives an agent, check reads the site.
type browserTask struct {
	name  string
	fast  bool // in make test's subset
	run   func(a *agent, url string) error
	check func(s *site) error
}

var browserTasks = []browserTask{
	{
		name: "book a reading room (text, radio, checkbox, submit)", fast: true,
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/booking.html") },
				func() error { return a.typeIn("textbox", "Full name", "Grace Hopper") },
				func() error { return a.typeIn("textbox", "Email", "grace@example.org") },
				func() error { return a.click("radio", "2 hours") },
				func() error { return a.click("checkbox", "I accept the reading-room rules") },
				func() error { return a.click("button", "Book the room") },
			)
		},
		check: posted("/book", map[string]string{"name": "Grace Hopper", "email": "grace@example.org", "hours": "2", "rules": "yes"}),
	},
	{
		name: "find an item across catalogue pages and add it to the basket",
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/catalogue-1.html"); err != nil {
				return err
			}
			const item = "Add Brass desk lamp to basket"
			for page := 0; page < 5; page++ {
				if _, err := a.find("heading", "Catalogue"); err != nil {
					return err
				}
				if a.sees("button", item) {
					return a.click("button", item)
				}
				if !a.sees("link", "Next page") {
					return fmt.Errorf("no %q and no next page:\n%.1500s", item, a.obs)
				}
				if err := a.click("link", "Next page"); err != nil {
					return err
				}
				a.obs = "" // a new page: look again
			}
			return fmt.Errorf("%q not found in 5 pages", item)
		},
		check: posted("/basket", map[string]string{"item": "Brass desk lamp"}),
	},
	{
		name: "sign in, then post a comment on the board",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/login.html") },
				func() error { return a.typeIn("textbox", "Username", "ada") },
				func() error { return a.typeIn("textbox", "Password", "correct horse") },
				func() error { return a.click("button", "Sign in") },
				func() error { return a.typeIn("textbox", "Comment", "The engine is ready.") },
				func() error { return a.click("button", "Post comment") },
			)
		},
		check: posted("/comment", map[string]string{"comment": "The engine is ready.", "member": "ada"}),
	},
	{
		name: "reorder a reading list by drag and drop", fast: true,
		run:   dragEmmaFirst("/sortable.html", "Reading list", "Save order"),
		check: posted("/form/sortable", map[string]string{"order": "Emma,Middlemarch,Dune"}),
	},
	{
		name: "apply a promo code in a form inside nested shadow roots", fast: true,
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/promo.html") },
				func() error { return a.typeIn("textbox", "Promo code", "SAVE10") },
				func() error { return a.click("checkbox", "Send me offers") },
				func() error { return a.click("button", "Apply code") },
			)
		},
		check: posted("/form/promo", map[string]string{"code": "SAVE10", "news": "yes"}),
	},
	{
		name: "check out: read a validation error and correct the field",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/checkout.html") },
				func() error { return a.typeIn("textbox", "Street", "1 Main St") },
				func() error { return a.typeIn("textbox", "Postcode", "12 345") },
				func() error { return a.click("button", "Continue to payment") },
			); err != nil {
				return err
			}
			msg, err := a.reads("alert")
			if err != nil {
				return err
			}
			if !strings.Contains(msg, "without spaces") {
				return fmt.Errorf("the agent does not know how to correct %q", msg)
			}
			return first(
				func() error { return a.typeIn("textbox", "Postcode", strings.ReplaceAll("12 345", " ", "")) },
				func() error { return a.click("button", "Continue to payment") },
				func() error { return a.click("radio", "Express (next day)") },
				func() error { return a.selectOption("listbox", "Extras", "Gift wrap", "Greeting card") },
				func() error { return a.click("button", "Review order") },
				func() error {
					summary, err := a.reads("paragraph")
					if err == nil && !strings.Contains(summary, "12345 by express with Gift wrap and Greeting card") {
						err = fmt.Errorf("the review reads %q", summary)
					}
					return err
				},
				func() error { return a.click("button", "Place order") },
			)
		},
		check: posted("/form/checkout", map[string]string{"street": "1 Main St", "postcode": "12345", "speed": "express", "extras": "wrap,card"}),
	},
	{
		name: "change the delivery address in a modal dialog",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/modal.html") },
				func() error { return a.click("button", "Change delivery address") },
				func() error { return a.typeIn("textbox", "Street", "5 Elm Row") },
				func() error { return a.typeIn("textbox", "City", "Leeds") },
				func() error { return a.click("button", "Save address") },
				func() error {
					if _, err := a.find("button", "Save address"); err == nil {
						return fmt.Errorf("the dialog is still open:\n%.1500s", a.obs)
					}
					return nil
				},
				func() error { return a.click("button", "Place order") },
			)
		},
		check: posted("/form/modal", map[string]string{"street": "5 Elm Row", "city": "Leeds"}),
	},
	{
		name: "check a gift card in a frame inside a cross-origin frame",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/partner.html") },
				func() error { return a.typeIn("textbox", "Gift card number", "6001 2345") },
				func() error { return a.typeIn("textbox", "Security code", "4821") },
				func() error { return a.click("button", "Check balance") },
			)
		},
		check: posted("/form/partner", map[string]string{"card": "6001 2345", "pin": "4821"}),
	},
	{
		name: "open a hover menu and follow one of its links",
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/menu.html"); err != nil {
				return err
			}
			if _, err := a.find("heading", "Welcome to the library"); err != nil {
				return err
			}
			account, err := a.findItem("listitem", "My account")
			if err != nil {
				return err
			}
			a.obs = ""
			return first(
				func() error { return a.hover(account, "listitem My account") },
				func() error { return a.click("link", "My holds") },
				func() error { a.obs = ""; return a.click("button", "Cancel hold on Dune") },
			)
		},
		check: posted("/form/holds", map[string]string{"hold": "Dune"}),
	},
	{
		name: "pick an option of an autocomplete combobox by keyboard",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/aria.html") },
				func() error { return a.typeIn("combobox", "Branch", "Chap") },
			); err != nil {
				return err
			}
			// Down the list until the wanted option is the selected one, then Enter.
			for i := 0; i < 5; i++ {
				if err := a.press("combobox", "Branch", "ArrowDown"); err != nil {
					return err
				}
				if a.obs, _ = a.d.snapshot(); a.sees("option", "Chapeltown") && regexp.MustCompile(`option "Chapeltown" \[selected\]`).MatchString(a.obs) {
					return first(
						func() error { return a.press("combobox", "Branch", "Enter") },
						func() error { return a.click("button", "Set my branch") },
					)
				}
			}
			return fmt.Errorf("Chapeltown never became the selected option:\n%.1500s", a.obs)
		},
		check: posted("/form/branch", map[string]string{"branch": "Chapeltown"}),
	},
	{
		name: "choose a colour in a popup window that reports back", fast: true,
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/colour.html") },
				func() error { return a.click("button", "Open the colour picker") },
			); err != nil {
				return err
			}
			if !strings.Contains(a.obs, "/picker.html") {
				return fmt.Errorf("the click does not say a window opened:\n%.1500s", a.obs)
			}
			a.obs = ""
			if err := a.click("button", "Navy"); err != nil {
				return err
			}
			// The popup closed itself: the page that opened it says what came back.
			if chosen, err := a.reads("status"); err != nil || chosen != "Navy" {
				return fmt.Errorf("the cover colour reads %q (%v)", chosen, err)
			}
			return a.click("button", "Order binding")
		},
		check: posted("/form/colour", map[string]string{"colour": "Navy"}),
	},
	{
		name: "write rich text: type, select all, make it bold",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/editor.html") },
				func() error { return a.typeIn("textbox", "Message body", "Hello team") },
				func() error { return a.press("textbox", "Message body", "Control+a") },
				func() error { return a.click("button", "Bold") },
				func() error { return a.shows("button", "Bold", "pressed") },
				func() error { return a.click("button", "Send newsletter") },
			)
		},
		check: posted("/form/editor", map[string]string{"body": "<b>Hello team</b>"}),
	},
	{
		name: "sort a paged table by price and buy the cheapest",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/books.html") },
				func() error { return a.click("button", "Price") },
			); err != nil {
				return err
			}
			// The first row after sorting by price: its title, then its Buy button.
			obs, err := a.d.snapshot()
			if err != nil {
				return err
			}
			a.obs = obs
			m := regexp.MustCompile(`(?m)- row:\n\s+- cell "([^"]+)"\n\s+- cell "£`).FindStringSubmatch(obs)
			if m == nil {
				return fmt.Errorf("no priced row in the table:\n%.1500s", obs)
			}
			return a.click("button", "Buy "+m[1])
		},
		check: posted("/form/books", map[string]string{"book": "Ivanhoe"}),
	},
	{
		name: "book a stay with date and time inputs",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/stay.html") },
				func() error { return a.typeIn("textbox", "Arrival", "2027-03-15") },
				func() error { return a.typeIn("textbox", "Departure", "2027-03-18") },
				func() error { return a.typeIn("textbox", "Arrival time", "14:30") },
				func() error { return a.click("button", "Check availability") },
			)
		},
		check: posted("/form/stay", map[string]string{"arrive": "2027-03-15", "leave": "2027-03-18", "at": "14:30"}),
	},
	{
		name: "read an answer in a details disclosure and quote it",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/faq.html") },
				func() error { return a.click("button", "How do I renew a loan?") },
				func() error { return a.shows("button", "How do I renew a loan?", "expanded") },
			); err != nil {
				return err
			}
			obs, err := a.d.snapshot()
			if err != nil {
				return err
			}
			a.obs = obs
			code := regexp.MustCompile(`RENEW-[0-9]+`).FindString(obs)
			if code == "" {
				return fmt.Errorf("the open disclosure shows no code:\n%.1500s", obs)
			}
			return first(
				func() error { return a.typeIn("textbox", "Renewal code", code) },
				func() error { return a.click("button", "Renew my loans") },
			)
		},
		check: posted("/form/faq", map[string]string{"code": "RENEW-7731"}),
	},
	{
		name: "expand a tree two levels and pick a shelf",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/shelves.html") },
				func() error { return a.click("treeitem", "Science") },
				func() error { a.obs = ""; return a.click("treeitem", "Physics") },
				func() error { a.obs = ""; return a.click("treeitem", "Optics") },
				func() error { return a.shows("treeitem", "Optics", "selected") },
				func() error { return a.click("button", "Browse this shelf") },
			)
		},
		check: posted("/form/shelves", map[string]string{"shelf": "Optics"}),
	},
	{
		name: "set a slider to a value by keys, reading it back",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/volume.html") },
				func() error { return a.click("slider", "Speed") },
			); err != nil {
				return err
			}
			for i := 0; i < 20; i++ {
				v, err := a.reads(`slider "Speed"`)
				if err != nil {
					return err
				}
				n, err := strconv.Atoi(strings.TrimSpace(v))
				if err != nil {
					return fmt.Errorf("the slider reads %q", v)
				}
				key := "ArrowRight"
				switch {
				case n == 150:
					return a.click("button", "Save speed")
				case n > 150:
					key = "ArrowLeft"
				}
				if err := a.press("slider", "Speed", key); err != nil {
					return err
				}
			}
			return fmt.Errorf("the slider never read 150:\n%.1500s", a.obs)
		},
		check: posted("/form/volume", map[string]string{"speed": "150"}),
	},
	{
		name: "read a toast's reference before it goes; submit once valid",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/signup.html") },
				func() error { return a.typeIn("textbox", "Card name", "Ada Lovelace") },
				func() error { return a.click("button", "Check name") },
			); err != nil {
				return err
			}
			obs, err := a.d.waitText("Your reference is")
			if err != nil {
				return err
			}
			// A model's turn takes longer than the toast stays.
			time.Sleep(2500 * time.Millisecond)
			ref := regexp.MustCompile(`J-[0-9]+`).FindString(obs)
			if ref == "" {
				return fmt.Errorf("the wait does not say the reference:\n%.1500s", obs)
			}
			a.obs = ""
			if err := a.typeIn("textbox", "Reference", ref); err != nil {
				return err
			}
			a.obs = ""
			if _, err := a.find("button", "Join"); err != nil || regexp.MustCompile(`button "Join" \[disabled\]`).MatchString(a.obs) {
				return fmt.Errorf("Join is still disabled (%v):\n%.1500s", err, a.obs)
			}
			return a.click("button", "Join")
		},
		check: posted("/form/signup", map[string]string{"name": "Ada Lovelace", "ref": "J-1644"}),
	},
	{
		name: "single-page app: follow routes, go back, choose another",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/spa.html") },
				func() error { return a.click("link", "Branches") },
				func() error { a.obs = ""; return a.click("link", "Leeds") },
				func() error { a.obs = ""; _, err := a.find("heading", "Leeds branch"); return err },
				func() error { obs, err := a.d.back(); a.obs = obs; return err },
				func() error { a.obs = ""; return a.click("link", "York") },
				func() error { a.obs = ""; return a.click("button", "Make York my branch") },
			)
		},
		check: posted("/form/spa", map[string]string{"branch": "York"}),
	},
	{
		name: "act on a button at the end of a scrolling box", fast: true,
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/log.html") },
				func() error { return a.click("button", "Report The Moonstone lost") },
			)
		},
		check: posted("/form/log", map[string]string{"lost": "The Moonstone"}),
	},
	{
		name: "load more items until the wanted one shows",
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/more.html"); err != nil {
				return err
			}
			const item = "Reserve Wuthering Heights"
			for i := 0; i < 8; i++ {
				if _, err := a.find("heading", "New arrivals"); err != nil {
					return err
				}
				if a.sees("button", item) {
					return a.click("button", item)
				}
				if err := a.click("button", "Load more"); err != nil {
					return err
				}
				if _, err := a.d.waitText(fmt.Sprintf("Arrival %d", 10*(i+2))); err != nil && !strings.Contains(err.Error(), "TIMEOUT") {
					return err
				}
				a.obs = ""
			}
			return fmt.Errorf("%q never showed:\n%.1500s", item, a.obs)
		},
		check: posted("/form/more", map[string]string{"title": "Wuthering Heights"}),
	},
	{
		name: "fill a form in a srcdoc iframe", fast: true,
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/srcdoc.html") },
				func() error { return a.selectOption("combobox", "Your rating", "Excellent") },
				func() error { return a.typeIn("textbox", "Remarks", "Quiet and bright") },
				func() error { return a.click("button", "Send feedback") },
			)
		},
		check: posted("/form/srcdoc", map[string]string{"rating": "Excellent", "remarks": "Quiet and bright"}),
	},
	{
		name: "find a row far down a virtualised list",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/virtual.html") },
				func() error { return a.click("list", "Boxes") },
			); err != nil {
				return err
			}
			const want = "Request box 120"
			for i := 0; i < 30; i++ {
				if _, err := a.find("list", "Boxes"); err != nil {
					return err
				}
				if a.sees("button", want) {
					return a.click("button", want)
				}
				if err := a.press("list", "Boxes", "PageDown"); err != nil {
					return err
				}
			}
			return fmt.Errorf("%q never showed:\n%.1500s", want, a.obs)
		},
		check: posted("/form/virtual", map[string]string{"box": "120"}),
	},
	{
		name: "choose several options: a select multiple, a listbox by keys",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/formats.html") },
				func() error { return a.selectOption("listbox", "Formats", "Paperback", "Audiobook") },
				func() error { return a.click("option", "Derby") },
				func() error { return a.press("listbox", "Branches", "Shift+ArrowDown") },
				func() error { return a.press("listbox", "Branches", "Shift+ArrowDown") },
				func() error { return a.press("listbox", "Branches", "Control+ArrowDown") },
				func() error { return a.press("listbox", "Branches", "Control+ArrowDown") },
				func() error { return a.press("listbox", "Branches", " ") },
				func() error { return a.shows("option", "Zennor", "selected") },
				func() error { return a.click("button", "Place the order") },
			)
		},
		check: posted("/form/formats", map[string]string{"formats": "Paperback,Audiobook", "branches": "Derby,Exeter,Leeds,Zennor"}),
	},
	{
		name: "attach a file through a styled button over a hidden input", fast: true,
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/upload.html") },
				func() error { return a.typeIn("textbox", "Card number", "C-2231") },
				func() error { return a.click("button", "Choose a scan") },
			); err != nil {
				return err
			}
			if !strings.Contains(strings.ToLower(a.obs), "file chooser") {
				return fmt.Errorf("the click does not say a file chooser opened:\n%.1500s", a.obs)
			}
			if _, err := a.d.upload("scan.txt", "card C-2231, both sides"); err != nil {
				return err
			}
			a.obs = ""
			return a.click("button", "Send the scan")
		},
		check: posted("/form/upload", map[string]string{"card": "C-2231", "scan": "scan.txt:card C-2231, both sides"}),
	},
	{
		name: "fill a form in a same-origin frame inside a shadow root",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/renewal.html") },
				func() error { return a.typeIn("textbox", "Library card number", "C-5120") },
				func() error { return a.selectOption("combobox", "Renew for", "2 years") },
				func() error { return a.click("button", "Renew the card") },
			)
		},
		check: posted("/form/renewal", map[string]string{"card": "C-5120", "years": "2 years"}),
	},
	{
		name: "stay when leaving asks (beforeunload), then publish",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/draft.html") },
				func() error { return a.typeIn("textbox", "Your review", "A fine read.") },
				func() error { return a.click("link", "All reviews") },
			); err != nil {
				return err
			}
			if !strings.Contains(a.obs, "beforeunload") {
				return fmt.Errorf("the click does not say the page asked before leaving:\n%.1500s", a.obs)
			}
			if _, err := a.d.dialog(false, ""); err != nil {
				return err
			}
			a.obs = ""
			return a.click("button", "Publish review")
		},
		check: posted("/form/draft", map[string]string{"review": "A fine read."}),
	},
	{
		name: "edit counts in contenteditable table cells", fast: true,
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/sheet.html"); err != nil {
				return err
			}
			for _, c := range []struct{ title, count string }{{"Dune", "9"}, {"Emma", "11"}} {
				ref, err := a.cellAfter(c.title)
				if err != nil {
					return err
				}
				if a.obs, err = a.d.typeIn(ref, "cell", c.count); err != nil {
					return err
				}
				a.obs = ""
			}
			return a.click("button", "Save the sheet")
		},
		check: posted("/form/sheet", map[string]string{"counts": "Dune=9,Emma=11,Middlemarch=2"}),
	},
	{
		name:  "reorder a queue dragged with pointer events",
		run:   dragEmmaFirst("/pointer.html", "Holds queue", "Save the queue"),
		check: posted("/form/pointer", map[string]string{"order": "Emma,Middlemarch,Dune"}),
	},
	{
		name: "answer a prompt dialog, read the result back",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/rename.html") },
				func() error { return a.click("button", "Rename this list") },
			); err != nil {
				return err
			}
			if !strings.Contains(a.obs, "New name for the list") {
				return fmt.Errorf("the click does not show the prompt:\n%.1500s", a.obs)
			}
			if _, err := a.d.dialog(true, "Summer reading"); err != nil {
				return err
			}
			a.obs = ""
			return first(
				func() error { _, err := a.find("heading", "Summer reading"); return err },
				func() error { return a.click("button", "Keep the list") },
			)
		},
		check: posted("/form/rename", map[string]string{"name": "Summer reading"}),
	},
	{
		name: "pick a weekday two months on in a calendar grid",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/tour.html") },
				func() error { return a.click("button", "Choose a date") },
			); err != nil {
				return err
			}
			month := regexp.MustCompile(`heading "([A-Z][a-z]+ 20[0-9][0-9])"`)
			for i := 0; i < 12; i++ {
				m, err := a.match(month)
				if err != nil {
					return err
				}
				if m == nil {
					return fmt.Errorf("the calendar shows no month:\n%.1500s", a.obs)
				}
				if m[1] == "May 2027" {
					return first(
						func() error { return a.click("gridcell", "12") },
						func() error { return a.click("button", "Book the tour") },
					)
				}
				if err := a.click("button", "Next month"); err != nil {
					return err
				}
			}
			return fmt.Errorf("the calendar never showed May 2027:\n%.1500s", a.obs)
		},
		check: posted("/form/tour", map[string]string{"date": "2027-05-12"}),
	},
	{
		name: "press a button that a fixed header covers", fast: true,
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/renew.html") },
				func() error { return a.click("button", "Renew all loans") },
			)
		},
		check: func(s *site) error {
			if err := posted("/form/renew", map[string]string{"renew": "all"})(s); err != nil {
				return err
			}
			if got := s.forms("/form/header"); len(got) > 0 {
				return fmt.Errorf("the click landed on the header: %v", got)
			}
			return nil
		},
	},
	{
		name: "apply in a frame that moves itself to its second step",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/apply.html") },
				func() error { return a.typeIn("textbox", "Your name", "Ada Lovelace") },
				func() error { return a.click("button", "Continue") },
				func() error { return a.waitFor("Step 2 of 2") },
				func() error { return a.click("radio", "Sundays") },
				func() error { return a.typeIn("textbox", "Phone number", "0113 496 0000") },
				func() error { return a.click("button", "Send application") },
			)
		},
		check: posted("/form/apply", map[string]string{"name": "Ada Lovelace", "day": "sun", "phone": "0113 496 0000"}),
	},
	{
		name: "open a tab whose panel loads late, reserve a seat",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/events.html") },
				func() error { return a.click("tab", "Events") },
				func() error { return a.shows("tab", "Events", "selected") },
				func() error { return a.waitFor("Poetry night") },
				func() error { return a.click("button", "Reserve a seat at Poetry night") },
			)
		},
		check: posted("/form/events", map[string]string{"event": "Poetry night"}),
	},
	{
		name: "sign in; a timer moves the page on; act on the next",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/members.html") },
				func() error { return a.typeIn("textbox", "Member number", "1042") },
				func() error { return a.typeIn("textbox", "PIN", "7788") },
				func() error { return a.click("button", "Sign in") },
				func() error { return a.waitFor("Welcome back") },
				func() error { return a.click("button", "Request a statement") },
			)
		},
		check: func(s *site) error {
			if err := posted("/form/signin", map[string]string{"user": "1042", "pin": "7788"})(s); err != nil {
				return err
			}
			return posted("/form/account", map[string]string{"statement": "yes"})(s)
		},
	},
	{
		name: "read an SVG chart's figures from hover tooltips", fast: true,
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/loans.html"); err != nil {
				return err
			}
			if _, err := a.find("heading", "Loans report"); err != nil {
				return err
			}
			// The chart's year is in its title, SVG text; the bars are the images it names.
			year := regexp.MustCompile(`first quarter (20[0-9][0-9])`).FindStringSubmatch(a.obs)
			bars := regexp.MustCompile(`\bimg "([A-Z][a-z]+)"`).FindAllStringSubmatch(a.obs, -1)
			if year == nil || len(bars) == 0 {
				return fmt.Errorf("the chart shows no title year or no bars:\n%.1500s", a.obs)
			}
			best, most := "", -1
			for _, b := range bars {
				ref, err := a.find("img", b[1])
				if err != nil {
					return err
				}
				if err := a.hover(ref, "img "+b[1]); err != nil {
					return err
				}
				m, err := a.match(regexp.MustCompile(regexp.QuoteMeta(b[1]) + `: ([0-9]+) loans`))
				if err != nil {
					return err
				}
				if m == nil {
					return fmt.Errorf("pointing at %s shows no figure for it:\n%.1500s", b[1], a.obs)
				}
				if n, _ := strconv.Atoi(m[1]); n > most {
					best, most = b[1], n
				}
			}
			return first(
				func() error { return a.typeIn("textbox", "Loans in the busiest month", strconv.Itoa(most)) },
				func() error { return a.typeIn("textbox", "Busiest month", best+" "+year[1]) },
				func() error { return a.click("button", "File the report") },
			)
		},
		check: posted("/form/loans", map[string]string{"loans": "527", "month": "March 2026"}),
	},
	{
		name: "answer a consent frame laid over the page, then subscribe",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/news.html") },
				func() error { return a.click("button", "Only necessary cookies") },
				func() error { return a.typeIn("textbox", "Email address", "reader@example.org") },
				func() error { return a.click("button", "Subscribe") },
			)
		},
		check: posted("/form/news", map[string]string{"email": "reader@example.org", "consent": "necessary"}),
	},
	{
		name: "share a list from a menu item's dialog that traps focus",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/list.html") },
				func() error { return a.click("button", "More actions") },
				func() error { return a.click("menuitem", "Share the list…") },
				func() error { return a.typeIn("textbox", "Share with (email)", "sam@example.org") },
				func() error { return a.click("checkbox", "They can edit it") },
				func() error { return a.click("button", "Send invitation") },
			)
		},
		check: func(s *site) error {
			if err := posted("/form/share", map[string]string{"to": "sam@example.org", "edit": "yes"})(s); err != nil {
				return err
			}
			if got := s.forms("/form/listaction"); len(got) > 0 {
				return fmt.Errorf("another menu item ran: %v", got)
			}
			return nil
		},
	},
	{
		name: "read a shelf code shown only in CSS generated content", fast: true,
		run: func(a *agent, url string) error {
			if err := a.navigate(url + "/pickup.html"); err != nil {
				return err
			}
			if _, err := a.find("heading", "Holds ready to collect"); err != nil {
				return err
			}
			shelf := regexp.MustCompile(`Dune\W+shelf (H-[0-9]+)`).FindStringSubmatch(a.obs)
			if shelf == nil {
				return fmt.Errorf("the page shows no shelf for Dune:\n%.1500s", a.obs)
			}
			return first(
				func() error { return a.typeIn("textbox", "Book to collect", "Dune") },
				func() error { return a.typeIn("textbox", "Its shelf", shelf[1]) },
				func() error { return a.click("button", "Confirm collection") },
			)
		},
		check: posted("/form/pickup", map[string]string{"book": "Dune", "shelf": "H-31"}),
	},
	{
		name: "edit a count in a grid by keys: move, Enter, type, Enter",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/stock.html") },
				func() error { return a.click("gridcell", "Dune") },
				func() error { return a.press("gridcell", "Dune", "ArrowRight") },
			); err != nil {
				return err
			}
			// The count beside the title: the cell the keys moved to.
			if err := a.look(); err != nil {
				return err
			}
			m := regexp.MustCompile(`gridcell "Dune"[^\n]*\n[^\n]*?\bgridcell "([0-9]+)"`).FindStringSubmatch(a.obs)
			if m == nil {
				return fmt.Errorf("no count beside Dune:\n%.1500s", a.obs)
			}
			return first(
				func() error { return a.press("gridcell", m[1], "Enter") },
				func() error { a.obs = ""; return a.typeIn("textbox", "Copies of Dune", "9") },
				func() error { return a.press("textbox", "Copies of Dune", "Enter") },
				func() error {
					if _, err := a.find("gridcell", "9"); err != nil {
						return err
					}
					return a.click("button", "Save the count")
				},
			)
		},
		check: posted("/form/stock", map[string]string{"counts": "Middlemarch=2,Dune=9,Emma=7"}),
	},
	{
		name: "save, wait for the saved version to show, publish it",
		run: func(a *agent, url string) error {
			if err := first(
				func() error { return a.navigate(url + "/minutes.html") },
				func() error { return a.typeIn("textbox", "Minutes", "Budget agreed.") },
				func() error { return a.click("button", "Save") },
				func() error { return a.waitFor("Saved as version") },
			); err != nil {
				return err
			}
			v, err := a.match(regexp.MustCompile(`Saved as version ([0-9]+)`))
			if err != nil {
				return err
			}
			if v == nil {
				return fmt.Errorf("the page does not say which version it saved:\n%.1500s", a.obs)
			}
			return first(
				func() error { return a.typeIn("textbox", "Version to publish", v[1]) },
				func() error { return a.click("button", "Publish") },
			)
		},
		check: posted("/form/minutes", map[string]string{"version": "3"}),
	},
	{
		name: "read a field's error, correct it; submit once enabled",
		run: func(a *agent, url string) error {
			const pin = "48 26" // as the person wrote it
			if err := first(
				func() error { return a.navigate(url + "/pin.html") },
				func() error { return a.typeIn("textbox", "New PIN", pin) },
				func() error { return a.typeIn("textbox", "Repeat the new PIN", pin) },
			); err != nil {
				return err
			}
			if err := a.look(); err != nil {
				return err
			}
			if !regexp.MustCompile(`button "Change PIN" \[disabled\]`).MatchString(a.obs) {
				return fmt.Errorf("the button is not disabled:\n%.1500s", a.obs)
			}
			if !strings.Contains(a.obs, "without spaces") {
				return fmt.Errorf("the agent does not know how to correct the PIN:\n%.1500s", a.obs)
			}
			fixed := strings.ReplaceAll(pin, " ", "")
			return first(
				func() error { return a.typeIn("textbox", "New PIN", fixed) },
				func() error { return a.typeIn("textbox", "Repeat the new PIN", fixed) },
				func() error { return a.click("button", "Change PIN") },
			)
		},
		check: posted("/form/pin", map[string]string{"pin": "4826", "again": "4826"}),
	},
	{
		name: "check out while a snackbar still covers the bottom bar",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/basket.html") },
				func() error { return a.click("button", "Add Dune to the basket") },
				func() error { return a.click("button", "Go to checkout") },
			)
		},
		check: posted("/form/basket-checkout", map[string]string{"items": "Middlemarch,Dune"}),
	},
	{
		name: "submit a button enabled a moment after typing stops",
		run: func(a *agent, url string) error {
			return first(
				func() error { return a.navigate(url + "/handle.html") },
				func() error { return a.typeIn("textbox", "Reader name", "bookworm42") },
				func() error { return a.click("button", "Create my reader name") },
			)
		},
		check: posted("/form/handle", map[string]string{"handle": "bookworm42"}),
	},
}

// dragEmmaFirst is a task's run: on the page with that heading, drag the list item Emma
// onto Middlemarch, the first, then save with the button named save.
func dragEmmaFirst(page, heading, save string) func(a *agent, url string) error {
	return func(a *agent, url string) error {
		if err := a.navigate(url + page); err != nil {
			return err
		}
		if _, err := a.find("heading", heading); err != nil {
			return err
		}
		emma, err := a.findItem("listitem", "Emma")
		if err != nil {
			return err
		}
		first, err := a.findItem("listitem", "Middlemarch")
		if err != nil {
			return err
		}
		if a.obs, err = a.d.drag(emma, "listitem Emma", first, "listitem Middlemarch"); err != nil {
			return err
		}
		return a.click("button", save)
	}
}

// posted checks that the site received one form on path, with these values.
func posted(path string, want map[string]string) func(*site) error {
	return func(s *site) error { return wantForm(func() []map[string]string { return s.forms(path) }, want) }
}

// first runs steps in order and stops at the first error.
func first(steps ...func() error) error {
	for _, f := range steps {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// wantForm waits up to 5 s for exactly one form received, with these values.
func wantForm(get func() []map[string]string, want map[string]string) error {
	var got []map[string]string
	for i := 0; i < 50; i++ {
		if got = get(); len(got) > 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(got) != 1 {
		return fmt.Errorf("the site received %d forms %v, want one", len(got), got)
	}
	for k, v := range want {
		if got[0][k] != v {
			return fmt.Errorf("the site received %v, want %s=%q", got[0], k, v)
		}
	}
	return nil
}

// line is one row of the report.
type line struct {
	task, system string
	done         bool
	calls, bytes int
	took         time.Duration
	err          error
}

var (
	reportMu sync.Mutex
	report   []line
)

func record(l line) {
	reportMu.Lock()
	report = append(report, l)
	reportMu.Unlock()
}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if len(report) > 0 {
		fmt.Printf("\ntask results (%s):\n", map[bool]string{true: "every task", false: "the fast subset; make bench runs them all"}[*all])
		fmt.Printf("%-62s %-15s %-8s %6s %9s %9s\n", "task", "system", "finished", "calls", "bytes", "time")
		done := map[string]int{}
		for _, l := range report {
			fmt.Printf("%-62s %-15s %-8v %6d %9d %9s\n", l.task, l.system, l.done, l.calls, l.bytes, l.took.Round(time.Millisecond))
			if l.done {
				done[l.system]++
			}
		}
		for _, sys := range []string{"w365", "playwright-mcp"} {
			n := 0
			for _, l := range report {
				if l.system == sys {
					n++
				}
			}
			if n > 0 {
				fmt.Printf("%s: %d of %d tasks finished\n", sys, done[sys], n)
			}
		}
		// On the tasks both finished: w365's totals over playwright-mcp's.
		var w, p line
		for _, l := range report {
			for _, o := range report {
				if l.system == "w365" && o.system == "playwright-mcp" && l.task == o.task && l.done && o.done {
					w.calls, w.bytes, w.took = w.calls+l.calls, w.bytes+l.bytes, w.took+l.took
					p.calls, p.bytes, p.took = p.calls+o.calls, p.bytes+o.bytes, p.took+o.took
				}
			}
		}
		if p.calls > 0 {
			fmt.Printf("w365 / playwright-mcp on the tasks both finished: calls %.2fx, bytes %.2fx, time %.2fx\n",
				float64(w.calls)/float64(p.calls), float64(w.bytes)/float64(p.bytes), float64(w.took)/float64(p.took))
		}
	}
	os.Exit(code)
}

// measure runs one task for one system and records its line; a system that does not
// finish a task fails the test only for w365 (the peer's line says what it did).
func measure(t *testing.T, task, system string, c *client, run func() error, check func() error) {
	t.Helper()
	c.calls, c.bytes = 0, 0
	t0 := time.Now()
	err := run()
	took := time.Since(t0)
	if err == nil {
		err = check()
	}
	record(line{task: task, system: system, done: err == nil, calls: c.calls, bytes: c.bytes, took: took, err: err})
	if err != nil && system == "w365" {
		t.Errorf("%s: %v", task, err)
	} else if err != nil {
		t.Logf("%s (%s): %v", task, system, err)
	}
}

func TestBrowserTasks(t *testing.T) {
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	w := &client{cs: h.MCP()}
	// w365's browser too is started before the first task is timed, as playwright-mcp's is
	// for each: else the first task's time held the browser's start (4.1 s, 0.35 s after).
	if _, _, err := w.call("browser_navigate", map[string]any{"url": "about:blank"}); err != nil {
		t.Fatalf("w365's browser: %v", err)
	}
	match := regexp.MustCompile(*only)
	for _, bt := range slices.Concat(browserTasks, browserTasks2, browserTasks3, browserTasks4, browserTasks5, browserTasks6, browserTasks7, browserTasks8, browserTasks9) {
		if !bt.fast && !*all || !match.MatchString(bt.name) {
			continue
		}
		s := startSite(t)
		measure(t, bt.name, "w365", w, func() error { return bt.run(&agent{d: w365{w}}, s.url) }, func() error { return bt.check(s) })
		if *all {
			// A playwright-mcp of its own for each task, its browser started before the task
			// is measured: sharing one, a tab or a hung dialog one task left failed the tasks
			// after it (11 of 30 in one run, every one of them finished alone).
			pw, pwDir := startPlaywright(t, h)
			if _, _, err := pw.call("browser_navigate", map[string]any{"url": "about:blank"}); err != nil {
				t.Fatalf("playwright-mcp's browser: %v", err)
			}
			s := startSite(t)
			measure(t, bt.name, "playwright-mcp", pw, func() error { return bt.run(&agent{d: playwright{pw, pwDir}}, s.url) }, func() error { return bt.check(s) })
			pw.cs.Close()
		}
	}
}

// startPlaywright runs the pinned @playwright/mcp headful on the harness's desktop, with
// the browser w365 uses (as make bench's browser benchmarks do), and its working directory.
func startPlaywright(t *testing.T, h *e2e.Harness) (*client, string) {
	t.Helper()
	script := filepath.Join(*peers, "@playwright", "mcp", "cli.js")
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("playwright-mcp is not installed (cd testdata/bench/peers && npm ci): %v", err)
	}
	testenv.Require(t, "node")
	dir := t.TempDir()
	args := []string{script, "--executable-path", "/usr/bin/chromium", "--isolated", "--output-dir", dir}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox")
	}
	cmd := exec.Command("node", args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, h.Env...), h.XEnv()...)
	cmd.Env = append(cmd.Env, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
	c := mcp.NewClient(&mcp.Implementation{Name: "w365-tasks", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("start playwright-mcp: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return &client{cs: cs}, dir
}

// node is an accessibility-tree node as get_accessibility_tree's structured result
// carries it.
type node struct {
	Role     string   `json:"role"`
	Name     string   `json:"name"`
	Value    string   `json:"value"`
	X        int      `json:"x"`
	Y        int      `json:"y"`
	Width    int      `json:"width"`
	Height   int      `json:"height"`
	States   []string `json:"states"`
	Children []node   `json:"children"`
}

func (n node) walk(f func(node)) {
	f(n)
	for _, c := range n.Children {
		c.walk(f)
	}
}

// window waits (up to 30 s, observing every 250 ms) for a window whose title contains
// part and is none of except, and returns its title as list_windows read it.
func window(c *client, part string, except ...string) (string, error) {
	return windowWhere(c, fmt.Sprintf("with %q in its title", part), func(w map[string]any) bool {
		title, _ := w["title"].(string)
		return strings.Contains(title, part) && !slices.Contains(except, title)
	})
}

// windowWhere waits (up to 30 s, observing every 250 ms) for a window of list_windows for
// which is holds, and returns its title; what names the window in the error. 30 s, as an
// agent on a loaded machine waits: at a load of 3 to 23, gnome-text-editor's and Firefox's
// windows, started beside the agent, had not shown after 10 s.
func windowWhere(c *client, what string, is func(w map[string]any) bool) (string, error) {
	for try := 0; try < 120; try++ {
		_, st, err := c.call("list_windows", nil)
		if err != nil {
			return "", err
		}
		ws, _ := st["windows"].([]any)
		for _, w := range ws {
			if m, _ := w.(map[string]any); is(m) {
				title, _ := m["title"].(string)
				return title, nil
			}
		}
		if _, _, err := c.call("wait_milliseconds", map[string]any{"ms": 250}); err != nil {
			return "", err
		}
	}
	return "", fmt.Errorf("no window %s appeared", what)
}

// titles are the titles of the windows list_windows lists.
func titles(c *client) ([]string, error) {
	_, st, err := c.call("list_windows", nil)
	if err != nil {
		return nil, err
	}
	ws, _ := st["windows"].([]any)
	var ts []string
	for _, w := range ws {
		title, _ := w.(map[string]any)["title"].(string)
		ts = append(ts, title)
	}
	return ts, nil
}

// activeWindow waits for a window whose title contains part, other than those titled as in
// except (window), and activates it.
func activeWindow(c *client, part string, except ...string) (string, error) {
	title, err := window(c, part, except...)
	if err == nil {
		_, _, err = c.call("activate_window", map[string]any{"title": title})
	}
	return title, err
}

// tree is the foreground window's accessibility tree. A TIMEOUT says "call again later"
// (the application is busy: at a load of 25 l3afpad, its file chooser listing completions,
// answered no walk for 30 s): the agent calls again, twice.
func tree(c *client) (node, error) {
	var st map[string]any
	var err error
	for try := 0; try < 3; try++ {
		if _, st, err = c.call("get_accessibility_tree", map[string]any{"maxDepth": 10}); err == nil || !strings.Contains(err.Error(), "TIMEOUT") {
			break
		}
	}
	if err != nil {
		return node{}, err
	}
	b, _ := json.Marshal(st["root"])
	var root node
	err = json.Unmarshal(b, &root)
	return root, err
}

// fieldBeside is the editable field on the row of the label named label (the toolkit
// names a field by the label beside it only on the screen), from the tree.
func fieldBeside(root node, label string) (node, error) { return beside(root, label, "Edit") }

// beside is the first node of role on the row of the label named label, right of it.
func beside(root node, label, role string) (node, error) {
	var lab *node
	var cands []node
	root.walk(func(n node) {
		if n.Role == "Text" && n.Name == label && lab == nil {
			lab = &n
		}
		if n.Role == role {
			cands = append(cands, n)
		}
	})
	if lab == nil {
		return node{}, fmt.Errorf("no label %q in the window's tree", label)
	}
	for _, e := range cands {
		if e.Y <= lab.Y+lab.Height/2 && lab.Y+lab.Height/2 <= e.Y+e.Height && e.X >= lab.X {
			return e, nil
		}
	}
	return node{}, fmt.Errorf("no %s beside the label %q", role, label)
}

func clickAt(c *client, n node) error {
	_, _, err := c.call("click", map[string]any{"x": n.X + n.Width/2, "y": n.Y + n.Height/2})
	return err
}

// retype replaces the text of the field n: a click in it, ctrl+a, the new text.
func retype(c *client, n node, text string) error {
	return first(
		func() error { return clickAt(c, n) },
		func() error {
			_, _, err := c.call("press_keys", map[string]any{"keys": []string{"ctrl", "a"}})
			return err
		},
		func() error { _, _, err := c.call("type_text", map[string]any{"text": text}); return err },
	)
}

// PCManFM (GTK2): open a folder by its icon, then make a subfolder through the menus (File >
// Create New... > Folder) and its name dialog; the folder on disk is the check. The icons'
// names are in their Text interface only (the tree shows them as values).
func pcmanfmTask(t *testing.T, c *client, work string) {
	testenv.Require(t, "pcmanfm")
	files := filepath.Join(work, "files")
	for _, d := range []string{"invoices", "reports"} {
		os.MkdirAll(filepath.Join(files, d), 0o755)
	}
	want := filepath.Join(files, "invoices", "2026")
	// find waits (up to 5 s) for a node of role named name (or showing it: an icon, a field).
	find := func(role, name string) (node, error) {
		for try := 0; try < 20; try++ {
			root, err := tree(c)
			if err != nil {
				return node{}, err
			}
			var hit *node
			root.walk(func(n node) {
				if hit == nil && n.Role == role && (n.Name == name || (n.Name == "" || role == "Edit") && n.Value == name) {
					hit = &n
				}
			})
			if hit != nil {
				return *hit, nil
			}
			c.call("wait_milliseconds", map[string]any{"ms": 250})
		}
		return node{}, fmt.Errorf("no %s %q in the window's tree", role, name)
	}
	clickOn := func(role, name string, count int) func() error {
		return func() error {
			n, err := find(role, name)
			if err == nil {
				_, _, err = c.call("click", map[string]any{"x": n.X + n.Width/2, "y": n.Y + n.Height/2, "clickCount": count})
			}
			return err
		}
	}
	measure(t, "PCManFM: open a folder by its icon, make a subfolder", "w365", c, func() error {
		if _, _, err := c.call("launch_application", map[string]any{"path": "pcmanfm", "args": []string{files}}); err != nil {
			return err
		}
		title, err := window(c, "files")
		if err != nil {
			return err
		}
		return first(
			func() error { _, _, err := c.call("activate_window", map[string]any{"title": title}); return err },
			clickOn("Image", "invoices", 2),
			func() error { title, err = window(c, "invoices"); return err },
			clickOn("Menu", "File", 1),
			clickOn("Menu", "Create New...", 1),
			clickOn("MenuItem", "Folder", 1),
			func() error { _, err := window(c, "New Folder"); return err },
			func() error { _, err := find("Edit", "New"); return err },
			func() error {
				_, _, err := c.call("press_keys", map[string]any{"keys": []string{"ctrl", "a"}})
				return err
			},
			func() error { _, _, err := c.call("type_text", map[string]any{"text": "2026"}); return err },
			clickOn("Button", "OK", 1),
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		for i := 0; i < 30; i++ {
			if fi, err := os.Stat(want); err == nil && fi.IsDir() {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		return fmt.Errorf("no folder %s", want)
	})
}

// FeatherPad (Qt5): write a note into a file and save it; the file on disk is the check.
func featherpadTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "featherpad")
	file := filepath.Join(work, "groceries.txt")
	os.WriteFile(file, nil, 0o644)
	const note = "oat milk, rye bread, apples"
	measure(t, "FeatherPad: write a note and save it (file on disk)", "w365", c, func() error {
		if _, _, err := c.call("launch_application", map[string]any{"path": "/usr/bin/featherpad", "args": []string{file}}); err != nil {
			return err
		}
		title, err := window(c, "groceries.txt")
		if err != nil {
			return err
		}
		return first(
			func() error { _, _, err := c.call("activate_window", map[string]any{"title": title}); return err },
			func() error { _, _, err := c.call("type_text", map[string]any{"text": note}); return err },
			func() error {
				_, _, err := c.call("press_keys", map[string]any{"keys": []string{"ctrl", "s"}})
				return err
			},
			func() error { _, _, err := c.call("wait_milliseconds", map[string]any{"ms": 500}); return err },
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		for i := 0; i < 50; i++ {
			if b, _ := os.ReadFile(file); strings.TrimSpace(string(b)) == note {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		b, _ := os.ReadFile(file)
		return fmt.Errorf("%s holds %q, want %q", file, b, note)
	})
}

// program runs name with args on the desktop of the agent's session (default-agent);
// printed is what it printed once it exited, or an error when it is still open 5 s after
// the agent finished.
func program(t *testing.T, h *e2e.Harness, name string, args ...string) (printed func() (string, error)) {
	t.Helper()
	return programEnv(t, h, nil, name, args...)
}

// programEnv is program with env added to the application's environment.
func programEnv(t *testing.T, h *e2e.Harness, env []string, name string, args ...string) (printed func() (string, error)) {
	t.Helper()
	var out strings.Builder
	cmd := exec.Command(name, args...)
	cmd.Env = append(append(append([]string{}, h.Env...), h.SessionEnvOf("default-agent")...), env...)
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	return func() (string, error) {
		select {
		case <-exited:
			return strings.TrimSpace(out.String()), nil
		case <-time.After(5 * time.Second):
			return "", fmt.Errorf("%s is still open", name)
		}
	}
}

func zenity(t *testing.T, h *e2e.Harness, args ...string) (printed func() (string, error)) {
	t.Helper()
	return program(t, h, "zenity", args...)
}

func clickButton(c *client, name string) error {
	_, st, err := c.call("find_ui_element", map[string]any{"role": "Button", "name": name})
	if err != nil {
		return err
	}
	ms, _ := st["matches"].([]any)
	if len(ms) == 0 {
		return fmt.Errorf("no %s button found", name)
	}
	m := ms[0].(map[string]any)
	_, _, err = c.call("click", map[string]any{"x": m["centerX"], "y": m["centerY"]})
	return err
}

// zenity (GTK3) --forms: register a visitor in a dialog whose fields are named only by
// the labels beside them; what zenity prints on OK is the check.
func zenityTask(t *testing.T, h *e2e.Harness, c *client) {
	testenv.Require(t, "zenity")
	printed := zenity(t, h, "--forms", "--title", "Visitor pass", "--text", "Register a visitor",
		"--add-entry", "Visitor name", "--add-entry", "Host")
	measure(t, "zenity: fill a visitor form by its labels (its output)", "w365", c, func() error {
		if _, err := activeWindow(c, "Visitor pass"); err != nil {
			return err
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		for _, f := range []struct{ label, text string }{{"Visitor name", "Ada Lovelace"}, {"Host", "Charles Babbage"}} {
			field, err := fieldBeside(root, f.label)
			if err != nil {
				return err
			}
			if err := clickAt(c, field); err != nil {
				return err
			}
			if _, _, err := c.call("type_text", map[string]any{"text": f.text}); err != nil {
				return err
			}
		}
		return clickButton(c, "OK")
	}, func() error {
		if got, err := printed(); err != nil || got != "Ada Lovelace|Charles Babbage" {
			return fmt.Errorf("zenity printed %q (%v)", got, err)
		}
		return nil
	})
}

// galculator (GTK3): work out 12 × 7 with its buttons, found by name in the tree, and read
// the result back from its display (the tree's only text with a value). galculator keeps no
// state outside: the check is the agent's reading against the arithmetic.
func galculatorTask(t *testing.T, c *client) {
	testenv.Require(t, "galculator")
	measure(t, "galculator: compute 12 × 7 and read the display", "w365", c, func() error {
		if _, _, err := c.call("launch_application", map[string]any{"path": "/usr/bin/galculator"}); err != nil {
			return err
		}
		title, err := activeWindow(c, "galculator")
		if err != nil {
			return err
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		buttons := map[string]node{}
		root.walk(func(n node) {
			if n.Role == "Button" {
				buttons[n.Name] = n
			}
		})
		for _, key := range []string{"AC", "1", "2", "*", "7", "="} {
			b, ok := buttons[key]
			if !ok {
				return fmt.Errorf("no button %q in galculator's tree", key)
			}
			if err := clickAt(c, b); err != nil {
				return err
			}
		}
		if root, err = tree(c); err != nil {
			return err
		}
		var shown []string
		root.walk(func(n node) {
			if n.Role == "Text" && n.Value != "" {
				shown = append(shown, n.Value)
			}
		})
		if len(shown) != 1 || shown[0] != "84" {
			return fmt.Errorf("the display reads %q, want 84", shown)
		}
		_, _, err = c.call("close_window", map[string]any{"title": title})
		return err
	}, func() error { return nil })
}

// zenity (GTK3) --list --checklist: tick two rows by the toggle cell on their row, confirm
// from the tree that they read checked, press OK; what zenity prints is the check.
func zenityChecklistTask(t *testing.T, h *e2e.Harness, c *client) {
	testenv.Require(t, "zenity")
	printed := zenity(t, h, "--list", "--checklist", "--title", "Shopping", "--text", "What do we need?",
		"--column", "Buy", "--column", "Item", "FALSE", "Apples", "FALSE", "Pears", "FALSE", "Plums")
	// toggle is the unnamed cell on the row of the cell named item.
	toggle := func(root node, item string) (node, error) {
		var cell *node
		var cells []node
		root.walk(func(n node) {
			if n.Role == "DataItem" && n.Name == item && cell == nil {
				cell = &n
			}
			if n.Role == "DataItem" && n.Name == "" {
				cells = append(cells, n)
			}
		})
		if cell == nil {
			return node{}, fmt.Errorf("no row %q in the list", item)
		}
		for _, x := range cells {
			if x.Y == cell.Y && x.X < cell.X {
				return x, nil
			}
		}
		return node{}, fmt.Errorf("no toggle on the row of %q", item)
	}
	measure(t, "zenity: tick rows of a checklist and confirm them (its output)", "w365", c, func() error {
		if _, err := activeWindow(c, "Shopping"); err != nil {
			return err
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		for _, item := range []string{"Pears", "Plums"} {
			cell, err := toggle(root, item)
			if err != nil {
				return err
			}
			if err := clickAt(c, cell); err != nil {
				return err
			}
		}
		if root, err = tree(c); err != nil {
			return err
		}
		for _, item := range []string{"Apples", "Pears", "Plums"} {
			cell, err := toggle(root, item)
			if err != nil {
				return err
			}
			if want := item != "Apples"; slices.Contains(cell.States, "checked") != want {
				return fmt.Errorf("the toggle of %s reads %v, want checked=%v", item, cell.States, want)
			}
		}
		return clickButton(c, "OK")
	}, func() error {
		if got, err := printed(); err != nil || got != "Pears|Plums" {
			return fmt.Errorf("zenity printed %q (%v)", got, err)
		}
		return nil
	})
}

// Mousepad (GTK3): save a new note under another name in a subfolder through the Save As
// file chooser, from what its tree shows: the Name field beside its label, the folder's
// row in the Files table (double-clicked), the Save button. The file on disk is the check.
func mousepadSaveAsTask(t *testing.T, c *client, work string) {
	testenv.Require(t, "mousepad")
	draft := filepath.Join(work, "draft.txt")
	os.WriteFile(draft, nil, 0o644)
	os.Mkdir(filepath.Join(work, "archive"), 0o755)
	want := filepath.Join(work, "archive", "final.txt")
	const note = "minutes of the meeting"
	measure(t, "Mousepad: Save As a new name in a subfolder (file chooser)", "w365", c, func() error {
		if _, _, err := c.call("launch_application", map[string]any{"path": "/usr/bin/mousepad", "args": []string{draft}}); err != nil {
			return err
		}
		title, err := window(c, "draft.txt")
		if err != nil {
			return err
		}
		if err := first(
			func() error { _, _, err := c.call("activate_window", map[string]any{"title": title}); return err },
			func() error { _, _, err := c.call("type_text", map[string]any{"text": note}); return err },
			func() error {
				_, _, err := c.call("press_keys", map[string]any{"keys": []string{"ctrl", "shift", "s"}})
				return err
			},
		); err != nil {
			return err
		}
		if _, err := window(c, "Save As"); err != nil {
			return err
		}
		// The folder's row: its name cell in the Files table, once the folder is listed.
		var root, folder node
		for try := 0; try < 20 && folder.Name == ""; try++ {
			if root, err = tree(c); err != nil {
				return err
			}
			root.walk(func(n node) {
				if n.Role == "DataItem" && n.Name == "archive" {
					folder = n
				}
			})
			if folder.Name == "" {
				c.call("wait_milliseconds", map[string]any{"ms": 250})
			}
		}
		if folder.Name == "" {
			return fmt.Errorf("the file chooser's tree shows no folder archive")
		}
		name, err := fieldBeside(root, "Name:")
		if err != nil {
			return err
		}
		return first(
			func() error { return retype(c, name, "final.txt") },
			func() error {
				_, _, err := c.call("click", map[string]any{"x": folder.X + folder.Width/2, "y": folder.Y + folder.Height/2, "clickCount": 2})
				return err
			},
			func() error { _, _, err := c.call("wait_milliseconds", map[string]any{"ms": 500}); return err },
			func() error { return clickButton(c, "Save") },
			func() error { title, err = window(c, "final.txt"); return err },
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		for i := 0; i < 50; i++ {
			if b, _ := os.ReadFile(want); strings.TrimSpace(string(b)) == note {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		b, err := os.ReadFile(want)
		return fmt.Errorf("%s holds %q (%v), want %q", want, b, err, note)
	})
}

// A GTK4 window: a switch, a spin button and a drop-down, each found beside its label in
// the tree and read back from it; what the application prints is the check.
func gtk4Task(t *testing.T, h *e2e.Harness, c *client) {
	printed := program(t, h, "/usr/bin/python3", filepath.Join(testenv.Root(), "testdata", "tasks", "apps", "print_gtk4.py"))
	measure(t, "GTK4: a switch, a spin button and a drop-down (its output)", "w365", c, func() error {
		title, err := activeWindow(c, "Print settings")
		if err != nil {
			return err
		}
		// look is the node of role beside label in a fresh tree; it looks again (up to 2 s)
		// until there is one and ok holds: the application updates its tree after the input.
		look := func(label, role string, ok ...func(node) bool) (n node, err error) {
			for try := 0; try < 8; try++ {
				if try > 0 {
					c.call("wait_milliseconds", map[string]any{"ms": 250})
				}
				var root node
				if root, err = tree(c); err != nil {
					continue // the application may not expose its tree yet
				}
				if n, err = beside(root, label, role); err == nil && (len(ok) == 0 || ok[0](n)) {
					return n, nil
				}
			}
			if err != nil {
				return n, err
			}
			return n, fmt.Errorf("%s beside %q reads %+v", role, label, n)
		}
		sw, err := look("Double-sided", "CheckBox")
		if err != nil {
			return err
		}
		if err := clickAt(c, sw); err != nil {
			return err
		}
		if _, err = look("Double-sided", "CheckBox", func(n node) bool { return slices.Contains(n.States, "checked") }); err != nil {
			return err
		}
		spin, err := look("Copies", "Spinner")
		if err != nil {
			return err
		}
		// Its text part, on the left: the centre of a GTK4 spin button is its − button,
		// which the tree does not show (a click there and keys changed nothing).
		if err := first(
			func() error {
				_, _, err := c.call("click", map[string]any{"x": spin.X + spin.Width/4, "y": spin.Y + spin.Height/2})
				return err
			},
			func() error {
				_, _, err := c.call("press_keys", map[string]any{"keys": []string{"ctrl", "a"}})
				return err
			},
			func() error { _, _, err := c.call("type_text", map[string]any{"text": "3"}); return err },
			func() error { _, _, err := c.call("press_keys", map[string]any{"keys": []string{"tab"}}); return err },
		); err != nil {
			return err
		}
		if _, err = look("Copies", "Spinner", func(n node) bool { return n.Value == "3" }); err != nil {
			return err
		}
		paper, err := look("Paper", "ComboBox")
		if err != nil {
			return err
		}
		if err := clickAt(c, paper); err != nil {
			return err
		}
		// The open list (a pop-up window of its own): A3, where the tree places it, clicked.
		var a3 map[string]any
		for try := 0; try < 20 && a3 == nil; try++ {
			if try > 0 {
				c.call("wait_milliseconds", map[string]any{"ms": 250})
			}
			_, st, err := c.call("find_ui_element", map[string]any{"name": "A3", "role": "Text"})
			if err != nil {
				return err
			}
			if ms := st["matches"].([]any); len(ms) > 0 {
				a3 = ms[0].(map[string]any)
			}
		}
		if a3 == nil {
			return fmt.Errorf("the open drop-down shows no A3")
		}
		// list_windows shows the open list as a pop-up of its window, around A3, and says so
		// in its text too.
		txt, st, err := c.call("list_windows", nil)
		if err != nil {
			return err
		}
		if !strings.Contains(txt, "pop-up") {
			return fmt.Errorf("list_windows' text names no pop-up: %s", txt)
		}
		around := false
		for _, w := range st["windows"].([]any) {
			w := w.(map[string]any)
			pops, _ := w["popups"].([]any)
			for _, p := range pops {
				p := p.(map[string]any)
				x, y := a3["centerX"].(float64), a3["centerY"].(float64)
				around = around || w["title"] == title && x >= p["x"].(float64) && x < p["x"].(float64)+p["width"].(float64) &&
					y >= p["y"].(float64) && y < p["y"].(float64)+p["height"].(float64)
			}
		}
		if !around {
			return fmt.Errorf("list_windows shows no pop-up of %q around A3 at %v,%v: %v", title, a3["centerX"], a3["centerY"], st["windows"])
		}
		if _, _, err := c.call("click", map[string]any{"x": a3["centerX"], "y": a3["centerY"]}); err != nil {
			return err
		}
		if _, err = look("Paper", "ComboBox", func(n node) bool {
			shows := false
			n.walk(func(k node) { shows = shows || (k.Role == "Text" && k.Name == "A3") })
			return shows
		}); err != nil {
			return err
		}
		return clickButton(c, "Print")
	}, func() error {
		out, err := printed()
		if err == nil && out != "duplex=True copies=3 paper=A3" {
			err = fmt.Errorf("the application printed %q", out)
		}
		return err
	})
}

// found is find_ui_element's answer: its text, what a model is shown, and the matches'
// centres; it looks again (up to 5 s) while there is none, unless once is set, or while
// the window has no tree yet (an application registers a moment after it shows it).
func found(c *client, args map[string]any, once bool) (string, []map[string]any, error) {
	for try := 0; ; try++ {
		text, st, err := c.call("find_ui_element", args)
		// A TIMEOUT (a busy application: tree) is asked again, twice.
		if err != nil && try < 2 && strings.Contains(err.Error(), "TIMEOUT") {
			continue
		}
		if err != nil && try < 20 && strings.Contains(err.Error(), "exposes no accessibility tree") {
			c.call("wait_milliseconds", map[string]any{"ms": 250})
			continue
		}
		if err != nil {
			return "", nil, err
		}
		var ms []map[string]any
		for _, m := range st["matches"].([]any) {
			ms = append(ms, m.(map[string]any))
		}
		if len(ms) > 0 || once || try == 20 {
			return text, ms, nil
		}
		c.call("wait_milliseconds", map[string]any{"ms": 250})
	}
}

// matchNode is the box of a find_ui_element match, as a node.
func matchNode(m map[string]any) node {
	i := func(k string) int { f, _ := m[k].(float64); return int(f) }
	return node{X: i("x"), Y: i("y"), Width: i("width"), Height: i("height")}
}

// clickFound clicks the centre of the first element find_ui_element finds for args.
func clickFound(c *client, args map[string]any) error {
	_, ms, err := found(c, args, false)
	if err == nil && len(ms) == 0 {
		err = fmt.Errorf("find_ui_element %v found nothing", args)
	}
	if err == nil {
		_, _, err = c.call("click", map[string]any{"x": ms[0]["centerX"], "y": ms[0]["centerY"]})
	}
	return err
}

// tick ticks the check box find_ui_element finds for box, unless its text reads it checked
// already, and waits (up to 2 s) until it does.
func tick(c *client, box map[string]any) error {
	text, _, err := found(c, box, false)
	if err != nil {
		return err
	}
	if !strings.Contains(text, "[checked]") {
		if err := clickFound(c, box); err != nil {
			return err
		}
	}
	for try := 0; !strings.Contains(text, "[checked]"); try++ {
		if try == 20 {
			return fmt.Errorf("%v does not read checked: %s", box, text)
		}
		c.call("wait_milliseconds", map[string]any{"ms": 100})
		if text, _, err = found(c, box, false); err != nil {
			return err
		}
	}
	return nil
}

// settingsHold waits (up to 5 s) for the file to hold every line of want.
func settingsHold(file string, want ...string) error {
	var b []byte
	for i := 0; i < 50; i++ {
		b, _ = os.ReadFile(file)
		if lines := strings.Split(string(b), "\n"); !slices.ContainsFunc(want, func(w string) bool { return !slices.Contains(lines, w) }) {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s holds %q, want the lines %q", file, b, want)
}

// fileHolds waits (up to 5 s) for file to hold text, give or take a line break at its end.
func fileHolds(file, text string) error {
	var b []byte
	var err error
	for i := 0; i < 50; i++ {
		if b, err = os.ReadFile(file); err == nil && strings.TrimRight(string(b), "\n") == text {
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s holds %q (%v), want %q", file, b, err, text)
}

// qpdfview (Qt5): set the zoom to 200 % in its combo box. The agent looks for the item;
// while the list is closed none is on the screen, so it opens the list at the combo box's
// arrow (the right end of the box it found) and looks again. qpdfview keeps the zoom in
// its settings when it closes: the file is the check.
func qpdfviewZoomTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "qpdfview")
	cfg := filepath.Join(work, "qpdfview-config")
	printed := programEnv(t, h, []string{"XDG_CONFIG_HOME=" + cfg, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1"},
		"/usr/bin/qpdfview", filepath.Join(testenv.Root(), "testdata", "tasks", "report.pdf"))
	measure(t, "qpdfview: pick 200 % in the zoom combo box (its settings)", "w365", c, func() error {
		title, err := activeWindow(c, "qpdfview")
		if err != nil {
			return err
		}
		_, combos, err := found(c, map[string]any{"role": "ComboBox"}, false)
		if err != nil {
			return err
		}
		if len(combos) == 0 {
			return fmt.Errorf("qpdfview shows no combo box")
		}
		item := map[string]any{"role": "ListItem", "name": "200 %"}
		_, ms, err := found(c, item, true)
		if err != nil {
			return err
		}
		if len(ms) == 0 {
			cb := combos[0]
			x := cb["x"].(float64) + cb["width"].(float64) - 6
			if _, _, err := c.call("click", map[string]any{"x": x, "y": cb["centerY"]}); err != nil {
				return err
			}
		}
		return first(
			func() error { return clickFound(c, item) },
			func() error {
				_, ms, err := found(c, map[string]any{"role": "ComboBox", "name": "200 %"}, false)
				if err == nil && len(ms) == 0 {
					err = fmt.Errorf("the zoom combo box does not read 200 %%")
				}
				return err
			},
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		if _, err := printed(); err != nil {
			return err
		}
		return settingsHold(filepath.Join(cfg, "qpdfview", "qpdfview.conf"), "scaleFactor=2")
	})
}

// Geany (GTK3): in Edit > Preferences, on the Editor tab, turn line wrapping on (the agent
// confirms from find_ui_element's text that the check box reads checked) and set the line
// breaking column in its spin button, found beside its label; OK. Geany writes its
// configuration when it closes: the file is the check.
func geanyPreferencesTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "geany")
	cfg := filepath.Join(work, "geany-config")
	printed := program(t, h, "/usr/bin/geany", "--new-instance", "--config", cfg)
	wrap := map[string]any{"role": "CheckBox", "name": "Line wrapping"}
	measure(t, "Geany: Preferences tab, check box and spin button (its configuration)", "w365", c, func() error {
		title, err := activeWindow(c, "Geany")
		if err != nil {
			return err
		}
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "Edit"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Preferences"}) },
			func() error { _, err := window(c, "Preferences"); return err },
			func() error { return clickFound(c, map[string]any{"role": "TabItem", "name": "Editor"}) },
		); err != nil {
			return err
		}
		if err := tick(c, wrap); err != nil {
			return err
		}
		root, err := tree(c)
		if err != nil {
			return err
		}
		spin, err := beside(root, "Line breaking column:", "Spinner")
		if err != nil {
			return err
		}
		return first(
			func() error { return retype(c, spin, "100") },
			func() error { _, _, err := c.call("press_keys", map[string]any{"keys": []string{"tab"}}); return err },
			func() error { return clickButton(c, "OK") },
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		if _, err := printed(); err != nil {
			return err
		}
		return settingsHold(filepath.Join(cfg, "geany.conf"), "line_wrapping=true", "line_break_column=100")
	})
}

// gnome-calculator (GTK4, libadwaita): in its Preferences (a menu button's pop-up menu),
// read the Angle units row's choice, which lies below depth 10 (found by a search, as the
// tree's last line says), pick Radians in its drop-down and read it back. Its settings go to a key file (GSETTINGS_BACKEND=keyfile):
// the file is the check.
func gnomeCalculatorPreferencesTask(t *testing.T, h *e2e.Harness, c *client, work string) {
	testenv.Require(t, "gnome-calculator")
	cfg := filepath.Join(work, "calculator-config")
	printed := programEnv(t, h, []string{"GSETTINGS_BACKEND=keyfile", "XDG_CONFIG_HOME=" + cfg}, "/usr/bin/gnome-calculator")
	// choice is the text the row named label shows: the row from the tree (at most 10
	// deep), its text, which libadwaita nests below that, from a search of the texts
	// inside the row's box, as the tree's last line says.
	choice := func(label string) (node, string, error) {
		text, st, err := c.call("get_accessibility_tree", map[string]any{"maxDepth": 10})
		if err != nil {
			return node{}, "", err
		}
		var root, row node
		b, _ := json.Marshal(st["root"])
		json.Unmarshal(b, &root)
		root.walk(func(n node) {
			if n.Role == "ComboBox" && n.Name == label {
				row = n
			}
		})
		if row.Name == "" {
			return row, "", fmt.Errorf("no row %q in the tree", label)
		}
		shown := ""
		row.walk(func(n node) {
			if n.Role == "Text" && n.Name != label && n.Name != "" {
				shown = n.Name
			}
		})
		if shown != "" || !strings.Contains(text, "find_ui_element, which searches every level") {
			return row, shown, nil
		}
		_, ms, err := found(c, map[string]any{"role": "Text"}, true)
		if err != nil {
			return row, "", err
		}
		for _, m := range ms {
			n := matchNode(m)
			name, _ := m["name"].(string)
			if name != label && name != "" && n.X >= row.X && n.Y >= row.Y && n.X+n.Width <= row.X+row.Width && n.Y+n.Height <= row.Y+row.Height {
				shown = name
			}
		}
		return row, shown, nil
	}
	measure(t, "gnome-calculator: pick an angle unit in Preferences (its settings)", "w365", c, func() error {
		title, err := activeWindow(c, "Calculator")
		if err != nil {
			return err
		}
		var prefs string
		if err := first(
			func() error { return clickFound(c, map[string]any{"role": "Button", "name": "Primary menu"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Preferences"}) },
			func() error { prefs, err = activeWindow(c, "Preferences"); return err },
		); err != nil {
			return err
		}
		row, shown, err := choice("Angle units")
		if err != nil {
			return err
		}
		if shown != "Degrees" {
			return fmt.Errorf("the Angle units row shows %q, not Degrees, at first", shown)
		}
		if err := first(
			func() error { return clickAt(c, row) },
			func() error { return clickFound(c, map[string]any{"role": "Text", "name": "Radians"}) },
		); err != nil {
			return err
		}
		for try := 0; shown != "Radians"; try++ {
			if try == 20 {
				return fmt.Errorf("the Angle units row shows %q after Radians was picked", shown)
			}
			c.call("wait_milliseconds", map[string]any{"ms": 100})
			if _, shown, err = choice("Angle units"); err != nil {
				return err
			}
		}
		return first(
			func() error { _, _, err := c.call("close_window", map[string]any{"title": prefs}); return err },
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		if _, err := printed(); err != nil {
			return err
		}
		return settingsHold(filepath.Join(cfg, "glib-2.0", "settings", "keyfile"), "angle-units='radians'")
	})
}

// LibreOffice Writer (GTK 3): write a line, make it bold through a nested menu (Format >
// Text > Bold) and save it as a document through the save dialog, typing its path. Writer
// shows a splash screen and, at its first start, a tip of the day, which the agent closes.
// The document on disk (its content.xml) is the check.
func libreOfficeTask(t *testing.T, c *client, work string) {
	testenv.Require(t, "/usr/lib/libreoffice/program/soffice")
	want := filepath.Join(work, "minutes.odt")
	const line = "Minutes of the meeting"
	measure(t, "LibreOffice Writer: bold through Format > Text, Save As a path (file on disk)", "w365", c, func() error {
		if _, _, err := c.call("launch_application", map[string]any{"path": "libreoffice-writer"}); err != nil {
			return err
		}
		title, err := window(c, "LibreOffice Writer")
		if err != nil {
			return err
		}
		if tip, err := window(c, "Tip of the Day"); err == nil {
			if _, _, err := c.call("close_window", map[string]any{"title": tip}); err != nil {
				return err
			}
		}
		if err := first(
			func() error { _, err := activeWindow(c, title); return err },
			func() error { _, _, err := c.call("type_text", map[string]any{"text": line}); return err },
			func() error {
				_, _, err := c.call("press_keys", map[string]any{"keys": []string{"ctrl", "a"}})
				return err
			},
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "Format"}) },
			func() error { return clickFound(c, map[string]any{"role": "Menu", "name": "Text"}) },
			func() error { return clickFound(c, map[string]any{"role": "MenuItem", "name": "Bold"}) },
			func() error {
				_, _, err := c.call("press_keys", map[string]any{"keys": []string{"ctrl", "shift", "s"}})
				return err
			},
			func() error { _, err := activeWindow(c, "Save"); return err },
		); err != nil {
			return err
		}
		// The file name field: the dialog's focused field, the name it proposes selected.
		_, ms, err := found(c, map[string]any{"role": "Edit", "text": "Untitled"}, false)
		if err != nil {
			return err
		}
		if len(ms) == 0 {
			return fmt.Errorf("the save dialog shows no name field")
		}
		return first(
			func() error { return retype(c, matchNode(ms[0]), want) },
			func() error { _, _, err := c.call("press_keys", map[string]any{"keys": []string{"enter"}}); return err },
			func() error { title, err = window(c, "minutes.odt"); return err },
			func() error { _, _, err := c.call("close_window", map[string]any{"title": title}); return err },
		)
	}, func() error {
		var content string
		for i := 0; i < 50; i++ {
			if z, err := zip.OpenReader(want); err == nil {
				for _, f := range z.File {
					if f.Name == "content.xml" {
						if r, err := f.Open(); err == nil {
							b, _ := io.ReadAll(r)
							r.Close()
							content = string(b)
						}
					}
				}
				z.Close()
			}
			if strings.Contains(content, line) && strings.Contains(content, `fo:font-weight="bold"`) {
				return nil
			}
			time.Sleep(100 * time.Millisecond)
		}
		return fmt.Errorf("%s holds no bold %q: %.300q", want, line, content)
	})
}

func TestDesktopTasks(t *testing.T) {
	h := e2e.New(t)
	// launch_application hands an application files under the workspace roots only: the
	// tasks' files live in one of the test's own.
	work := t.TempDir()
	pol := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(pol, []byte(`{"workspaceRoots": [`+strconv.Quote(work)+`]}`), 0o644)
	h.SetEnv("W365_POLICY", pol)
	c := &client{cs: h.MCP()}
	// The agent's first call starts its session, default-agent, where program starts the
	// applications the tasks drive.
	if _, _, err := c.call("get_screen_size", nil); err != nil {
		t.Fatalf("the agent's first call: %v", err)
	}
	featherpadTask(t, h, c, work)
	pcmanfmTask(t, c, work)
	if *all {
		mousepadSaveAsTask(t, c, work)
		zenityTask(t, h, c)
		galculatorTask(t, c)
		zenityChecklistTask(t, h, c)
		gtk4Task(t, h, c)
		qpdfviewZoomTask(t, h, c, work)
		geanyPreferencesTask(t, h, c, work)
		gnomeCalculatorPreferencesTask(t, h, c, work)
		libreOfficeTask(t, c, work)
		gnumericTask(t, h, c, work)
		gnomeTextEditorTask(t, h, c, work)
		kcalcTask(t, h, c)
		transmissionTask(t, h, c, work)
		gucharmapTask(t, h, c)
		atrilTask(t, c, work)
		firefoxTask(t, h, c)
		keepassxcTask(t, h, c, work)
		heldOut2(t, h, c, work)
		heldOut3(t, h, c, work)
		heldOut4(t, h, c, work)
		heldOut5(t, h, c, work)
		heldOut6(t, h, c, work)
		heldOut7(t, h, c, work)
		heldOut8(t, h, c, work)
		heldOut9(t, h, c, work)
		heldOut10(t, h, c, work)
	}
}
