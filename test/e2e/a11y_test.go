//go:build linux

package e2e_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// find_ui_element then click at its centre reaches the button; an Edit found by name
// receives type_text; the tree has the app's roles at its own coordinates; OCR reads it.
func TestAccessibilityAndOCRThroughCLIAndMCP(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "tesseract")
	h := e2e.New(t)
	cs := agentOnItsSession(t, h)
	p := e2e.StartProbeEnv(t, h.SessionEnvOf("default-agent"), "--title", "A11y Probe")
	var found struct {
		Matches []struct {
			Role, Name       string
			CenterX, CenterY int
		}
	}
	h.JSON(&found, "--session", "default-agent", "find-ui-element", "--role", "Button", "--name", "Submit")
	if len(found.Matches) == 0 || found.Matches[0].Name != "Submit" {
		t.Fatalf("find Submit: %+v", found)
	}
	m := found.Matches[0]
	h.MustRun("--session", "default-agent", "click", fmt.Sprint(m.CenterX), fmt.Sprint(m.CenterY))
	p.Wait("clicked", func(e e2e.Event) bool { return e["widget"] == "Submit" }, 5*time.Second)

	e2e.Structured(t, e2e.Call(t, cs, "find_ui_element", map[string]any{"role": "TextBox", "name": "name"}), &found)
	if len(found.Matches) == 0 || found.Matches[0].Role != "Edit" {
		t.Fatalf("find Edit by alias: %+v", found)
	}
	e2e.Must(t, cs, "click", map[string]any{"x": found.Matches[0].CenterX, "y": found.Matches[0].CenterY})
	e2e.Must(t, cs, "type_text", map[string]any{"text": "found by name"})
	p.Wait("text", func(e e2e.Event) bool { return e["text"] == "found by name" }, 10*time.Second)

	// The tree comes as the text outline; the structured content keeps only the counts.
	var tree struct {
		Count     int
		Truncated bool
	}
	res := e2e.Call(t, cs, "get_accessibility_tree", map[string]any{"maxDepth": 5})
	e2e.Structured(t, res, &tree)
	if first, _, _ := strings.Cut(e2e.Text(res), "\n"); !strings.HasPrefix(first, `Window "A11y Probe"`) || tree.Count < 5 {
		t.Fatalf("tree root %q count %d", first, tree.Count)
	}
	sx, sy := p.Widget("Submit")
	if d := abs(sx-m.CenterX) + abs(sy-m.CenterY); d > 4 {
		t.Errorf("Submit centre from a11y %d,%d, the app says %d,%d", m.CenterX, m.CenterY, sx, sy)
	}
	if code := e2e.ErrorCode(e2e.Call(t, cs, "find_ui_element", nil)); code != "INVALID_ARGUMENT" {
		t.Errorf("find with nothing: %q", code)
	}

	var ocr struct {
		Boxes []struct {
			Text string
			X, Y int
		}
	}
	res = e2e.Call(t, cs, "analyze_screen", nil)
	e2e.Structured(t, res, &ocr)
	if !strings.Contains(e2e.Text(res), "Submit") {
		t.Fatalf("OCR did not read Submit: %q", e2e.Text(res))
	}
	for _, b := range ocr.Boxes {
		if b.Text == "Submit" && (abs(b.X-sx) > 300 || abs(b.Y-sy) > 20) {
			t.Errorf("OCR box of Submit at %d,%d, the button is at %d,%d", b.X, b.Y, sx, sy)
		}
	}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// launch_application returns once the application has registered with the accessibility
// bus, and says so; a Qt application launched first in a fresh session has its tree (the
// bus and registry start with the desktop). An Xt application, which never registers, is
// reported with the reason.
func TestLaunchWaitsForAccessibility(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "/usr/bin/featherpad", "/usr/bin/xcalc")
	h := e2e.New(t)
	cs := withXcalc(t, h)
	var out struct {
		PID              int
		Registered       bool
		RegistrationNote string
	}
	e2e.Structured(t, e2e.Call(t, cs, "launch_application", map[string]any{"path": "/usr/bin/featherpad"}), &out)
	if !out.Registered || out.PID == 0 || out.RegistrationNote != "" {
		t.Fatalf("featherpad: %+v, want registered", out)
	}
	defer syscall.Kill(out.PID, syscall.SIGKILL)
	e2e.ActivateShown(t, cs, "Untitled")
	res := e2e.Call(t, cs, "get_accessibility_tree", map[string]any{"maxDepth": 4})
	if e2e.ErrorCode(res) != "" || !strings.Contains(e2e.Text(res), "MenuBar") {
		t.Fatalf("featherpad's tree, right after launch: %s", e2e.Text(res))
	}

	out.Registered, out.RegistrationNote = true, ""
	e2e.Structured(t, e2e.Call(t, cs, "launch_application", map[string]any{"path": "/usr/bin/xcalc"}), &out)
	defer syscall.Kill(out.PID, syscall.SIGKILL)
	if out.Registered || !strings.Contains(out.RegistrationNote, "window") {
		t.Fatalf("xcalc: %+v, want not registered, because its window shows without it", out)
	}
}

// analyze_screen reads one region (x, y, width, height, all or none) at higher resolution,
// with its boxes in screen coordinates.
func TestAnalyzeScreenRegion(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "tesseract")
	h := e2e.New(t)
	cs := agentOnItsSession(t, h)
	p := e2e.StartProbeEnv(t, h.SessionEnvOf("default-agent"), "--title", "Region Probe")
	sx, sy := p.Widget("Submit")
	region := map[string]any{"x": sx - 80, "y": sy - 25, "width": 160, "height": 50}
	var out struct {
		FullText string
		Boxes    []struct {
			Text                string
			X, Y, Width, Height int
		}
		Width, Height int
	}
	e2e.Structured(t, e2e.Call(t, cs, "analyze_screen", region), &out)
	if out.Width != 160 || out.Height != 50 {
		t.Errorf("analysed %dx%d, want the region's 160x50", out.Width, out.Height)
	}
	found := false
	for _, b := range out.Boxes {
		cx, cy := b.X+b.Width/2, b.Y+b.Height/2
		if cx < sx-80 || cx >= sx+80 || cy < sy-25 || cy >= sy+25 {
			t.Errorf("box %+v lies outside the region around %d,%d", b, sx, sy)
		}
		found = found || b.Text == "Submit"
	}
	if !found {
		t.Errorf("no Submit in the region's text %q", out.FullText)
	}
	if code := e2e.ErrorCode(e2e.Call(t, cs, "analyze_screen", map[string]any{"x": 10, "y": 10, "width": 100})); code != "INVALID_ARGUMENT" {
		t.Errorf("three of four region values: %q, want INVALID_ARGUMENT", code)
	}
}

// galculatorSession launches galculator in a session of its own, in front.
func galculatorSession(t *testing.T) *mcp.ClientSession {
	t.Helper()
	testenv.Require(t, "galculator")
	return launchedSession(t, "/usr/bin/galculator", "galculator")
}

// launchedSession is a new session in which launch_application started path and
// activate_window brought its window titled title to the front.
func launchedSession(t *testing.T, path, title string) *mcp.ClientSession {
	t.Helper()
	cs := e2e.New(t).MCP()
	e2e.Must(t, cs, "launch_application", map[string]any{"path": path})
	// The launch returns without a window once the application has been idle after 10 s,
	// or after 45 s (docs/accessibility.md): a GTK 4 application may show it later.
	e2e.ActivateShown(t, cs, title)
	return cs
}

// find_ui_element's text, what many clients show a model, carries what an element holds
// and what it is set to, as the tree's text does: galculator's display reads the result
// of the keys clicked, and the ticked item of its View menu reads checked.
func TestFindUIElementTextShowsValueAndStates(t *testing.T) {
	t.Parallel()
	cs := galculatorSession(t)
	// find returns the text and the first match's centre, looking again for up to 5 s.
	find := func(args map[string]any) (string, int, int) {
		t.Helper()
		var found struct {
			Matches []struct{ CenterX, CenterY int }
		}
		for i := 0; i < 50; i++ {
			res := e2e.Call(t, cs, "find_ui_element", args)
			if e2e.Structured(t, res, &found); len(found.Matches) > 0 {
				return e2e.Text(res), found.Matches[0].CenterX, found.Matches[0].CenterY
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("find_ui_element %v found nothing", args)
		return "", 0, 0
	}
	for _, key := range []string{"AC", "1", "2", "*", "7", "="} {
		_, x, y := find(map[string]any{"role": "Button", "name": key})
		e2e.Must(t, cs, "click", map[string]any{"x": x, "y": y})
	}
	text := ""
	for i := 0; i < 20 && !strings.Contains(text, `= "84"`); i++ {
		time.Sleep(100 * time.Millisecond)
		text, _, _ = find(map[string]any{"role": "Text"})
	}
	if !strings.Contains(text, `Text "" = "84" at `) {
		t.Errorf("find_ui_element's text shows no display reading 84: %q", text)
	}
	_, x, y := find(map[string]any{"role": "Menu", "name": "View"})
	e2e.Must(t, cs, "click", map[string]any{"x": x, "y": y})
	if text, _, _ = find(map[string]any{"name": "Basic Mode"}); !strings.Contains(text, `MenuItem "Basic Mode" [checked] at `) {
		t.Errorf("find_ui_element's text shows the ticked Basic Mode unticked: %q", text)
	}
}

// LibreOffice shows a splash screen for seconds at its first start before it loads its
// accessibility bridge; launch_application waits past it for the registration (before, it
// said after 2 s that the application had no accessibility support and to use OCR), and the
// Writer window has its tree.
func TestLaunchWaitsPastASplashScreen(t *testing.T) {
	// Not parallel (docs/development.md#tests): LibreOffice's first start must show Writer within the launch's wait.
	testenv.Require(t, "/usr/lib/libreoffice/program/soffice")
	if _, err := os.Stat("/usr/lib/libreoffice/program/libvclplug_gtk3lo.so"); err != nil {
		testenv.Missing(t, "libreoffice-gtk3 (its accessible toolkit)")
	}
	h := e2e.New(t) // a session HOME of its own: LibreOffice's first start there
	cs := h.MCP()
	var out struct {
		Registered       bool
		RegistrationNote string
	}
	e2e.Structured(t, e2e.Call(t, cs, "launch_application", map[string]any{"path": "libreoffice-writer"}), &out)
	if !out.Registered {
		t.Fatalf("LibreOffice Writer: %+v, want registered", out)
	}
	t.Logf("launch_application: %+v", out)
	for i := 0; ; i++ {
		res := e2e.Call(t, cs, "find_ui_element", map[string]any{"role": "Menu", "name": "Format", "windowHandle": writerHandle(t, cs)})
		if strings.Contains(e2e.Text(res), `"Format"`) {
			return
		}
		if i == 50 {
			t.Fatalf("Writer's window shows no Format menu: %s", e2e.Text(res))
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// writerHandle is the handle of the LibreOffice Writer window, waiting for it up to 10 s.
func writerHandle(t *testing.T, cs *mcp.ClientSession) uint32 {
	t.Helper()
	for i := 0; i < 100; i++ {
		var ws struct {
			Windows []struct {
				Title  string
				Handle uint32
			}
		}
		e2e.Structured(t, e2e.Call(t, cs, "list_windows", nil), &ws)
		for _, w := range ws.Windows {
			if strings.HasSuffix(w.Title, "LibreOffice Writer") {
				return w.Handle
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatal("no LibreOffice Writer window")
	return 0
}

// A search that finds nothing says so in its text, and, when it asked for a role, names the
// elements of other roles that match the rest: Qt's menu bar holds menu items where GTK's
// holds menus, so a search for the Menu "File" in qpdfview finds none, and its text points to
// the MenuItem "File" (before, the text was empty).
func TestFindUIElementNamesOtherRoles(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "qpdfview")
	cs := launchedSession(t, "qpdfview", "qpdfview")
	text := ""
	for i := 0; i < 50 && !strings.Contains(text, `MenuItem "File" at `); i++ {
		text = e2e.Text(e2e.Call(t, cs, "find_ui_element", map[string]any{"role": "Menu", "name": "File"}))
		time.Sleep(100 * time.Millisecond)
	}
	if !strings.HasPrefix(text, "no element matches with that role; of other roles:\n") || !strings.Contains(text, `MenuItem "File" at `) {
		t.Errorf("find_ui_element of the Menu File in a Qt window: %q", text)
	}
	if text = e2e.Text(e2e.Call(t, cs, "find_ui_element", map[string]any{"role": "Button", "name": "No such button"})); text != "no element matches" {
		t.Errorf("find_ui_element of nothing: %q", text)
	}
}

// withXcalc lets h launch xcalc, which has no desktop entry (the policy's launchApplications
// adds it), and connects to h's MCP server.
func withXcalc(t *testing.T, h *e2e.Harness) *mcp.ClientSession {
	pol := filepath.Join(t.TempDir(), "policy.json")
	os.WriteFile(pol, []byte(`{"launchApplications": ["/usr/bin/xcalc"]}`), 0o644)
	h.SetEnv("W365_POLICY", pol)
	return h.MCP()
}

// An Xt program launched in the session (xcalc: no AT-SPI tree) is read through Editres:
// its keys found by name and clicked compute, and its display in the tree reads the result
// (docs/accessibility.md#xt-and-motif). Before, find_ui_element answered NOT_FOUND.
func TestXtCalculatorThroughMCP(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "/usr/bin/xcalc", "tesseract")
	h := e2e.New(t)
	cs := withXcalc(t, h)
	var out struct{ PID int }
	e2e.Structured(t, e2e.Call(t, cs, "launch_application", map[string]any{"path": "/usr/bin/xcalc"}), &out)
	defer syscall.Kill(out.PID, syscall.SIGKILL)
	e2e.ActivateShown(t, cs, "Calculator")
	for _, k := range []string{"7", "÷", "8", "=", "-", ".", "5", "="} {
		var found struct {
			Matches []struct {
				Name             string
				CenterX, CenterY int
			}
		}
		res := e2e.Call(t, cs, "find_ui_element", map[string]any{"role": "Button", "name": k})
		e2e.Structured(t, res, &found)
		if len(found.Matches) == 0 || found.Matches[0].Name != k {
			t.Fatalf("find %q: %s", k, e2e.Text(res))
		}
		e2e.Must(t, cs, "click", map[string]any{"x": found.Matches[0].CenterX, "y": found.Matches[0].CenterY})
	}
	var tree string
	for range 50 {
		if tree = e2e.Text(e2e.Call(t, cs, "get_accessibility_tree", map[string]any{"maxDepth": 10})); strings.Contains(tree, `"0.375"`) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("7 ÷ 8 = - .5 = does not read 0.375:\n%s", tree)
}

// An application that answers no accessibility call for longer than one call's 3 s is asked
// again: find_ui_element returns its button once it answers. Here galculator is stopped
// (SIGSTOP) for 5 s before its window's first walk, as a loaded machine's scheduler holds an
// application back; before, find_ui_element was TIMEOUT after 3 s, as Geany's and
// gnome-calculator's were in the desktop task suite at a load of 20, and the agent gave up
// on a window that was there. Stopped for longer than the tools ask (a hung application),
// the TIMEOUT says how long they asked and what to do.
func TestFindUIElementAsksABusyApplicationAgain(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "galculator")
	cs := e2e.New(t).MCP()
	var launched struct{ PID int }
	e2e.Structured(t, e2e.Call(t, cs, "launch_application", map[string]any{"path": "/usr/bin/galculator"}), &launched)
	e2e.ActivateShown(t, cs, "galculator")
	// The launched process is the confinement's; galculator runs below it.
	pid := named(t, launched.PID, "galculator")
	find := func(stopped time.Duration) *mcp.CallToolResult {
		syscall.Kill(pid, syscall.SIGSTOP)
		resumed := time.AfterFunc(stopped, func() { syscall.Kill(pid, syscall.SIGCONT) })
		defer func() { resumed.Stop(); syscall.Kill(pid, syscall.SIGCONT) }()
		return e2e.Call(t, cs, "find_ui_element", map[string]any{"role": "Button", "name": "AC"})
	}
	var found struct{ Matches []struct{ Name string } }
	if res := find(5 * time.Second); res.IsError {
		t.Fatalf("find_ui_element in an application stopped for 5 s: %s", e2e.Text(res))
	} else if e2e.Structured(t, res, &found); len(found.Matches) == 0 {
		t.Fatalf("find_ui_element in an application stopped for 5 s found nothing: %s", e2e.Text(res))
	}
	if res := find(30 * time.Second); !res.IsError || !strings.Contains(e2e.Text(res), "call again later, or read the window with analyze_screen") {
		t.Errorf("find_ui_element in an application stopped for 30 s: %s", e2e.Text(res))
	}
}

// workingApp is a GTK 3 window, titled "Busy app", whose application works for 14 s from
// SIGUSR1 (a loop in its main thread, which answers no accessibility call meanwhile), and
// prints "busy" as it starts, as l3afpad listing completions in its file chooser answered
// no walk for more than 7 s in the desktop task suite at a load of 15.
const workingApp = `
import gi, signal, sys, time
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk, GLib
win = Gtk.Window(title="Busy app")
win.add(Gtk.Button(label="Still here"))
win.connect("destroy", Gtk.main_quit)
win.show_all()
def busy():
    print("busy", flush=True)
    end = time.monotonic() + 14
    while time.monotonic() < end:
        pass
    return False
def usr1():
    GLib.idle_add(busy)
    return True
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, usr1)
Gtk.main()
`

// find_ui_element asks an application that does not answer again past the 10 s it gives a
// stopped one, while it works: before, the search was TIMEOUT after about 9.5 s though the
// application (using its CPU all along) answered a few seconds later, and the agent took it
// for hung. The result says how long it asked.
func TestFindUIElementWaitsForAWorkingApplication(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "/usr/bin/python3")
	h := e2e.New(t)
	cs := agentOnItsSession(t, h)
	cmd := exec.Command("/usr/bin/python3", "-c", workingApp)
	cmd.Env = append(append([]string{}, h.Env...), h.SessionEnvOf("default-agent")...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	e2e.ActivateShown(t, cs, "Busy app")
	button := map[string]any{"role": "Button", "name": "Still here"}
	e2e.Must(t, cs, "find_ui_element", button)
	if err := cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "busy\n" {
		t.Fatalf("the application printed %q (%v), want busy", line, err)
	}
	res := e2e.Call(t, cs, "find_ui_element", button)
	var found struct{ Matches []struct{ Name string } }
	if res.IsError {
		t.Fatalf("find_ui_element in an application working for 14 s: %s", e2e.Text(res))
	} else if e2e.Structured(t, res, &found); len(found.Matches) == 0 || !strings.Contains(e2e.Text(res), "the application was busy") {
		t.Fatalf("find_ui_element in an application working for 14 s: %s", e2e.Text(res))
	}
}

// named is the process named name (its comm) that runs below root (descendants).
func named(t *testing.T, root int, name string) int {
	t.Helper()
	for _, pid := range descendants(root) {
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.TrimSpace(string(comm)) == name {
			return pid
		}
	}
	t.Fatalf("no %s below process %d", name, root)
	return 0
}

// lateBridge is a GTK 3 window, titled "Late bridge", whose application has loaded its
// accessibility bridge but registers with the accessibility bus only 4 s after its window
// shows, as a GTK application on a loaded machine did (the GTK 4 window of the desktop task
// suite at a load of 18, started beside the agent).
const lateBridge = `
import ctypes, gi, os
gi.require_version("Gtk", "3.0")
from gi.repository import Gtk, GLib
bridge = ctypes.CDLL("libatk-bridge-2.0.so.0")
win = Gtk.Window(title="Late bridge")
win.add(Gtk.Button(label="Registered late"))
win.connect("destroy", Gtk.main_quit)
win.show_all()
def register():
    del os.environ["NO_AT_BRIDGE"]  # the bridge refuses to start while it is set
    bridge.atk_bridge_adaptor_init(None, None)
    return False
GLib.timeout_add(4000, register)
Gtk.main()
`

// get_accessibility_tree on a window whose application has loaded its accessibility bridge
// but not registered yet asks again until it has: before, it was NOT_FOUND at once, its hint
// saying to read the window with OCR.
func TestTreeWaitsForAStartingApplication(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "/usr/bin/python3")
	h := e2e.New(t)
	cs := agentOnItsSession(t, h)
	cmd := exec.Command("/usr/bin/python3", "-c", lateBridge)
	cmd.Env = append(append(append([]string{}, h.Env...), h.SessionEnvOf("default-agent")...), "NO_AT_BRIDGE=1", "GTK_MODULES=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	e2e.ActivateShown(t, cs, "Late bridge")
	res := e2e.Call(t, cs, "get_accessibility_tree", map[string]any{"maxDepth": 5})
	if res.IsError || !strings.Contains(e2e.Text(res), `"Registered late"`) {
		t.Fatalf("the tree of a window whose application registers 4 s after it shows: %s", e2e.Text(res))
	}
}
