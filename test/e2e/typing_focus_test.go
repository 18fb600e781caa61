//go:build linux

package e2e_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// GNOME Fonts (GTK 4) shows its search field when the header bar's search button is clicked,
// and gives it the focus only once it has slid in: type_text right after that click waits for
// the focus and lands in the field (before, the first try's keys went to the button).
func TestTypeTextRightAfterTheClickThatShowsTheField(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "gnome-font-viewer")
	cs := launchedSession(t, "org.gnome.font-viewer", "gnome-font-viewer")
	var about struct {
		Matches []struct{ X, Y, CenterX, CenterY int }
	}
	for i := 0; i < 50 && len(about.Matches) == 0; i++ { // until the application has registered
		if res := e2e.Call(t, cs, "find_ui_element", map[string]any{"role": "Button", "name": "About Fonts"}); !res.IsError {
			e2e.Structured(t, res, &about)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(about.Matches) == 0 {
		t.Fatal("no About Fonts button")
	}
	var buttons struct {
		Matches []struct {
			Name                string
			Y, CenterX, CenterY int
		}
	}
	e2e.Structured(t, e2e.Call(t, cs, "find_ui_element", map[string]any{"role": "Button"}), &buttons)
	x, y := -1, -1
	for _, b := range buttons.Matches {
		if b.Name == "" && b.Y == about.Matches[0].Y && b.CenterX < about.Matches[0].X {
			x, y = b.CenterX, b.CenterY
		}
	}
	if x < 0 {
		t.Fatalf("no search button beside About Fonts among %+v", buttons.Matches)
	}
	for try := 0; try < 5; try++ {
		e2e.Must(t, cs, "click", map[string]any{"x": x, "y": y})
		t0 := time.Now()
		res := e2e.Call(t, cs, "type_text", map[string]any{"text": "Nimbus"})
		took := time.Since(t0)
		var field struct{ Matches []struct{ Value string } }
		e2e.Structured(t, e2e.Call(t, cs, "find_ui_element", map[string]any{"role": "Edit"}), &field)
		t.Logf("try %d: type_text said %q in %v; field %+v", try, e2e.Text(res), took, field.Matches)
		if len(field.Matches) == 0 || field.Matches[0].Value != "Nimbus" {
			t.Errorf("try %d: the search field reads %+v after type_text said %q", try, field.Matches, strings.TrimSpace(e2e.Text(res)))
		}
		e2e.Must(t, cs, "press_keys", map[string]any{"keys": []string{"escape"}})
		e2e.Must(t, cs, "press_keys", map[string]any{"keys": []string{"escape"}})
		e2e.Must(t, cs, "wait_milliseconds", map[string]any{"ms": 500})
	}
}

// type_text right after a click says in its note when the keys went to an element that takes
// no text (a GTK 4 check box), and says nothing when they landed in the field clicked.
func TestTypeTextSaysWhenTheFocusTakesNoText(t *testing.T) {
	t.Parallel()
	cs := typingForm(t)
	// clickThenType clicks the element found for args and types text at once.
	clickThenType := func(args map[string]any, text string) string {
		t.Helper()
		x, y := formElement(t, cs, args)
		e2e.Must(t, cs, "click", map[string]any{"x": x, "y": y})
		res := e2e.Call(t, cs, "type_text", map[string]any{"text": text})
		if res.IsError {
			t.Fatalf("type_text: %s", e2e.Text(res))
		}
		return e2e.Text(res)
	}
	if got := clickThenType(map[string]any{"role": "Edit", "name": "Username"}, "alice"); strings.Contains(got, "note") {
		t.Errorf("typed into the field clicked, type_text says %q", got)
	}
	got := clickThenType(map[string]any{"role": "CheckBox", "name": "Remember me"}, "zzz")
	if !strings.Contains(got, `the keyboard focus is on CheckBox \"Remember me\", which takes no text`) {
		t.Errorf("typed with the focus on a check box, type_text says %q", got)
	}
	if v := fieldValue(t, cs, "Username"); v != "alice" {
		t.Errorf("the field reads %q, want alice", v)
	}
}

// fieldValue is the value of the Edit named name.
func fieldValue(t *testing.T, cs *mcp.ClientSession, name string) string {
	t.Helper()
	var found struct{ Matches []struct{ Value string } }
	e2e.Structured(t, e2e.Call(t, cs, "find_ui_element", map[string]any{"role": "Edit", "name": name}), &found)
	if len(found.Matches) == 0 {
		t.Fatalf("no field %q", name)
	}
	return found.Matches[0].Value
}

// typingForm is a session showing a11y_gtk4.py's form, titled "Typing form".
func typingForm(t testing.TB) *mcp.ClientSession {
	testenv.Require(t, "/usr/bin/python3")
	h := e2e.New(t)
	cs := agentOnItsSession(t, h)
	app := exec.Command("/usr/bin/python3", filepath.Join(testenv.Root(), "testdata", "apps", "a11y_gtk4.py"), "Typing form")
	app.Env = append(append(os.Environ(), h.SessionEnvOf("default-agent")...), "GSK_RENDERER=cairo")
	app.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Process.Kill(); app.Wait() })
	return cs
}

// formElement is the centre of the element of the form found for args, once the form is up.
func formElement(t testing.TB, cs *mcp.ClientSession, args map[string]any) (x, y int) {
	t.Helper()
	var found struct {
		Matches []struct{ CenterX, CenterY int }
	}
	for i := 0; i < 50 && len(found.Matches) == 0; i++ {
		_ = e2e.Call(t, cs, "activate_window", map[string]any{"title": "Typing form"}) // not up yet: the loop retries
		if res := e2e.Call(t, cs, "find_ui_element", args); !res.IsError {
			e2e.Structured(t, res, &found)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(found.Matches) == 0 {
		t.Fatalf("find_ui_element %v found nothing", args)
	}
	return found.Matches[0].CenterX, found.Matches[0].CenterY
}

// BenchmarkKeysIntoTheFocusedField times type_text of 5 characters into a GTK 4 field that
// has the focus, and press_keys ctrl+a there: at once after the click into it (the focus is
// read, before and after typing for type_text), and more than a second after it (nothing is
// read).
func BenchmarkKeysIntoTheFocusedField(b *testing.B) {
	cs := typingForm(b)
	x, y := formElement(b, cs, map[string]any{"role": "Edit", "name": "Username"})
	for _, k := range []struct {
		tool string
		args map[string]any
	}{{"type_text", map[string]any{"text": "hello"}}, {"press_keys", map[string]any{"keys": []string{"ctrl", "a"}}}} {
		for _, c := range []struct {
			name  string
			pause time.Duration
		}{{"after-click", 0}, {"a-second-later", 1100 * time.Millisecond}} {
			b.Run(k.tool+"/"+c.name, func(b *testing.B) {
				took := make([]time.Duration, b.N)
				for i := range took {
					b.StopTimer()
					e2e.Must(b, cs, "click", map[string]any{"x": x, "y": y})
					if k.tool == "type_text" { // what the run before typed is replaced
						e2e.Must(b, cs, "press_keys", map[string]any{"keys": []string{"ctrl", "a"}})
					}
					time.Sleep(c.pause)
					b.StartTimer()
					t0 := time.Now()
					e2e.Must(b, cs, k.tool, k.args)
					took[i] = time.Since(t0)
				}
				// The median: on a shared machine a few slow calls move the mean.
				slices.Sort(took)
				b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "ms-p50")
			})
		}
	}
}

// press_keys right after the click that opens a dialog waits for the keyboard focus to leave
// the button clicked (a11y_gtk3_dialog.py opens its Rename dialog 400 ms after the click):
// before, ctrl+a went to the button and Return clicked it again. Its note says the keys went
// to the dialog's field, not to what was clicked.
func TestPressKeysRightAfterTheClickThatOpensADialog(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "/usr/bin/python3")
	h := e2e.New(t)
	cs := agentOnItsSession(t, h)
	app := exec.Command("/usr/bin/python3", filepath.Join(testenv.Root(), "testdata", "apps", "a11y_gtk3_dialog.py"))
	app.Env = append(os.Environ(), h.SessionEnvOf("default-agent")...)
	app.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := app.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { app.Process.Kill(); app.Wait() })
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// next is the app's next line but READY.
	next := func() string {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatal("the app exited")
				}
				if l != "READY" {
					return l
				}
			case <-time.After(20 * time.Second):
				t.Fatal("the app printed nothing more in 20 s")
			}
		}
	}
	var found struct {
		Matches []struct{ CenterX, CenterY int }
	}
	for i := 0; i < 50 && len(found.Matches) == 0; i++ {
		_ = e2e.Call(t, cs, "activate_window", map[string]any{"title": "w365 rename dialog"}) // not up yet: the loop retries
		if res := e2e.Call(t, cs, "find_ui_element", map[string]any{"role": "Button", "name": "Rename…"}); !res.IsError {
			e2e.Structured(t, res, &found)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if len(found.Matches) == 0 {
		t.Fatal("no Rename… button")
	}
	x, y := found.Matches[0].CenterX, found.Matches[0].CenterY
	keys := func(k ...string) string {
		t.Helper()
		res := e2e.Call(t, cs, "press_keys", map[string]any{"keys": k})
		if res.IsError {
			t.Fatalf("press_keys %v: %s", k, e2e.Text(res))
		}
		return e2e.Text(res)
	}

	// Select the name, type another, Return: the dialog answers with the new name.
	e2e.Must(t, cs, "click", map[string]any{"x": x, "y": y})
	selectAll := keys("ctrl", "a")
	e2e.Must(t, cs, "type_text", map[string]any{"text": "final"})
	keys("Return")
	if l := next(); l != "CLICKED 1" {
		t.Fatalf("the app says %q, want CLICKED 1", l)
	}
	if l := next(); l != "NAME final" {
		t.Errorf("the app says %q after ctrl+a, final and Return right after the click; want NAME final", l)
	}
	if want := fmt.Sprintf(`the keys went to Edit "New name", which has the keyboard focus, not to what the click at %d,%d landed on`, x, y); !strings.Contains(selectAll, want) {
		t.Errorf("press_keys ctrl+a says %q, want the note %q", selectAll, want)
	}

	// Return at once: it answers the dialog, it does not click the button again.
	e2e.Must(t, cs, "wait_milliseconds", map[string]any{"ms": 1100})
	e2e.Must(t, cs, "click", map[string]any{"x": x, "y": y})
	keys("Return")
	if l := next(); l != "CLICKED 2" {
		t.Fatalf("the app says %q, want CLICKED 2", l)
	}
	if l := next(); l != "NAME draft" {
		t.Errorf("the app says %q after Return right after the click; want NAME draft", l)
	}
}
