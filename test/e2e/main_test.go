//go:build linux

package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

func TestMCPClientListsToolsAndCallsTheFirstSix(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	cs := h.MCP()
	ctx := context.Background()
	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		// No title: it only restated the name, and tools/list is paid for once per conversation.
		if tool.Annotations == nil || tool.Description == "" {
			t.Errorf("%s: annotations or description missing", tool.Name)
		}
	}
	for _, want := range []string{"get_screen_size", "get_cursor_position", "move_mouse", "click", "wait_milliseconds", "take_screenshot", "mcp_W365ComputerUse_StartSession"} {
		if !slices.Contains(names, want) {
			t.Errorf("tools/list lacks %s", want)
		}
	}
	if slices.Contains(names, "mcp_desktop_click") || slices.Contains(names, "start_session") {
		t.Error("legacy names or session aliases exposed without --legacy-names")
	}

	var size struct{ Width, Height int }
	e2e.Structured(t, e2e.Call(t, cs, "get_screen_size", nil), &size)
	if size.Width != 1920 || size.Height != 1080 {
		t.Fatalf("screen %+v", size)
	}
	e2e.Must(t, cs, "move_mouse", map[string]any{"x": 321, "y": 234})
	var cur struct{ CursorX, CursorY int }
	e2e.Structured(t, e2e.Call(t, cs, "get_cursor_position", nil), &cur)
	if cur.CursorX != 321 || cur.CursorY != 234 {
		t.Fatalf("cursor %+v", cur)
	}
	var click struct {
		X, Y       int
		Button     string
		ClickCount int
	}
	e2e.Structured(t, e2e.Call(t, cs, "click", map[string]any{"x": 400, "y": 300, "button": "right"}), &click)
	if click.Button != "Right" || click.ClickCount != 1 || click.X != 400 {
		t.Fatalf("click %+v", click)
	}
	var wait struct {
		WaitedMs int
		Clamped  bool
	}
	e2e.Structured(t, e2e.Call(t, cs, "wait_milliseconds", map[string]any{"ms": 9000}), &wait)
	if wait.WaitedMs != 5000 || !wait.Clamped {
		t.Fatalf("wait %+v", wait)
	}

	res := e2e.Call(t, cs, "take_screenshot", nil)
	if res.IsError {
		t.Fatal(res.Content)
	}
	img, ok := res.Content[0].(*mcp.ImageContent)
	if !ok || img.MIMEType != "image/png" {
		t.Fatalf("first content is %T, want PNG image content", res.Content[0])
	}
	pic, err := png.Decode(bytes.NewReader(img.Data))
	if err != nil || pic.Bounds().Dx() != 1920 {
		t.Fatalf("screenshot decode: %v %v", err, pic.Bounds())
	}
	for _, c := range res.Content[1:] {
		if tc, ok := c.(*mcp.TextContent); ok && len(tc.Text) > 1000 {
			t.Errorf("image bytes leaked into text content (%d chars)", len(tc.Text))
		}
	}
}

func TestCLIClickReachesARealGTKButton(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	p := e2e.StartProbe(t, h.XEnv())
	x, y := p.Widget("Submit")
	h.MustRun("click", fmt.Sprint(x), fmt.Sprint(y))
	p.Wait("clicked", func(e e2e.Event) bool { return e["widget"] == "Submit" }, 5*time.Second)
}

func TestScreenshotHasTheTestPatternColoursAtKnownCoordinates(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	p := e2e.StartProbe(t, h.XEnv(), "--pattern", "--position", "200,150")
	dir := t.TempDir()
	out := filepath.Join(dir, "full.png")
	h.MustRun("take-screenshot", "-o", out)
	full := testenv.PNG(t, out)
	rects := p.Ready["pattern"].([]any)
	if len(rects) == 0 {
		t.Fatal("probe drew no pattern")
	}
	for i, r := range rects {
		m := r.(map[string]any)
		rx, ry := int(m["x"].(float64)), int(m["y"].(float64))
		rw, rh := int(m["width"].(float64)), int(m["height"].(float64))
		rgb := m["rgb"].([]any)
		// Probe the centre: later rectangles may cover the corners of earlier ones.
		cx, cy := rx+rw/2, ry+rh/2
		if covered(rects[i+1:], cx, cy) {
			continue
		}
		got := full.At(cx, cy)
		cr, cg, cb, _ := got.RGBA()
		want := [3]uint32{uint32(rgb[0].(float64)), uint32(rgb[1].(float64)), uint32(rgb[2].(float64))}
		if cr>>8 != want[0] || cg>>8 != want[1] || cb>>8 != want[2] {
			t.Errorf("pixel (%d,%d) = %d,%d,%d, want %v", cx, cy, cr>>8, cg>>8, cb>>8, want)
		}
	}
	// A crop starts exactly at its origin.
	first := rects[0].(map[string]any)
	fx, fy := int(first["x"].(float64)), int(first["y"].(float64))
	crop := filepath.Join(dir, "crop.png")
	h.MustRun("screenshot", "--x", fmt.Sprint(fx), "--y", fmt.Sprint(fy), "--width", "10", "--height", "10", "-o", crop)
	c := testenv.PNG(t, crop)
	if c.Bounds().Dx() != 10 || c.Bounds().Dy() != 10 || c.At(0, 0) != full.At(fx, fy) {
		t.Errorf("crop %v first pixel %v, want %v", c.Bounds(), c.At(0, 0), full.At(fx, fy))
	}
	// -o - writes the PNG bytes to stdout.
	r := h.Run("screenshot", "--x", "0", "--y", "0", "--width", "8", "--height", "8", "-o", "-")
	if r.Code != 0 || !bytes.HasPrefix([]byte(r.Stdout), []byte("\x89PNG")) {
		t.Errorf("-o - gave exit %d and %q", r.Code, r.Stdout[:min(8, len(r.Stdout))])
	}
	// Without -o, a timestamped file in the current directory.
	r = h.RunIn(dir, "screenshot")
	if r.Code != 0 || !strings.HasPrefix(strings.TrimSpace(strings.Split(r.Stdout, "\n")[0]), "w365-take-screenshot-") {
		t.Errorf("default output: exit %d %q", r.Code, r.Stdout)
	}
}

// covered says whether a later rectangle paints over (x, y).
func covered(later []any, x, y int) bool {
	for _, o := range later {
		m := o.(map[string]any)
		if image.Pt(x, y).In(image.Rect(int(m["x"].(float64)), int(m["y"].(float64)),
			int(m["x"].(float64)+m["width"].(float64)), int(m["y"].(float64)+m["height"].(float64)))) {
			return true
		}
	}
	return false
}

// The person's CLI acts on the session of an agent (serve --mcp) by its id, and each sees
// what the other did: one host, one engine.
func TestCLIAndMCPClientOfServeShareOneEngine(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	cs := agentOnItsSession(t, h)
	h.MustRun("--session", "default-agent", "move-mouse", "777", "555")
	var cur struct{ CursorX, CursorY int }
	e2e.Structured(t, e2e.Call(t, cs, "get_cursor_position", nil), &cur)
	if cur.CursorX != 777 || cur.CursorY != 555 {
		t.Fatalf("serve --mcp sees cursor %+v, want 777,555 set through the CLI", cur)
	}
	// And the other way round: the agent moves, a second terminal sees it.
	e2e.Must(t, cs, "move_mouse", map[string]any{"x": 640, "y": 480})
	if out := strings.TrimSpace(h.MustRun("--session", "default-agent", "get-cursor-position")); out != "640 480" {
		t.Fatalf("CLI sees %q after the agent moved to 640 480", out)
	}
}

func TestKilledHostIsReplacedOnTheNextCall(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.MustRun("get-screen-size")
	pid := h.HostPID()
	if pid == 0 {
		t.Fatal("no host pid file")
	}
	syscall.Kill(pid, syscall.SIGKILL)
	for syscall.Kill(pid, 0) == nil {
		time.Sleep(10 * time.Millisecond)
	}
	if out := strings.TrimSpace(h.MustRun("get-screen-size")); out != "1920x1080" {
		t.Fatalf("after SIGKILL: %q", out)
	}
	if np := h.HostPID(); np == pid || np == 0 {
		t.Fatalf("host pid %d after killing %d", np, pid)
	}
}

// otherVersion is a copy of the binary under test with another modification time: another
// build as far as versions go.
func otherVersion(t *testing.T, h *e2e.Harness) string {
	t.Helper()
	other := filepath.Join(t.TempDir(), "w365")
	b, err := os.ReadFile(h.Bin)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(other, b, 0o755)
	os.Chtimes(other, time.Now().Add(time.Hour), time.Now().Add(time.Hour))
	return other
}

func TestHostOfAnotherVersionIsReplaced(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.MustRun("get-screen-size")
	old := h.HostPID()
	cmd := exec.Command(otherVersion(t, h), "get-screen-size")
	cmd.Env = h.Env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("other version: %v %s", err, out)
	}
	if pid := h.HostPID(); pid == old {
		t.Fatal("the old host still serves")
	}
	if syscall.Kill(old, 0) == nil {
		t.Fatal("the old host is still running")
	}
}

func TestBadInputGetsItsCodeAndLeavesTheHostAlive(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.MustRun("move-mouse", "500", "500")
	pid := h.HostPID()
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"take-screenshot", "--x", "1", "--y", "2"}, 2, "all four"},
		{[]string{"take-screenshot", "--x", "1", "--y", "2", "--width", "-5", "--height", "5"}, 2, "width"},
		{[]string{"click", "abc", "1"}, 2, "integer"},
		{[]string{"click", "--x", "abc"}, 2, `--x wants an integer, got "abc"`},
		{[]string{"click", "10", "10", "--button", "Side"}, 2, "Backward"},
		{[]string{"click", "10"}, 2, "both x and y"},
		{[]string{"nosuchcommand"}, 2, "unknown command"},
		{[]string{"click", "3", "3"}, 4, "FAILSAFE"},
		{[]string{"zoom-region", "--x", "0", "--y", "0", "--width", "3000", "--height", "10"}, 2, "maximum"},
		{[]string{"session", "details", "nope"}, 3, "NOT_FOUND"},
	}
	for _, c := range cases {
		r := h.Run(c.args...)
		if r.Code != c.code || !strings.Contains(r.Stderr, c.msg) || strings.Count(strings.TrimSpace(r.Stderr), "\n") > 0 {
			t.Errorf("w365 %v: exit %d stderr %q; want exit %d and one line mentioning %q", c.args, r.Code, r.Stderr, c.code, c.msg)
		}
	}
	// The same through MCP: a string for x, a partial crop, an unknown parameter.
	cs := h.MCP()
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"click", map[string]any{"x": "abc", "y": 1}},
		{"take_screenshot", map[string]any{"x": 1, "y": 2}},
		{"take_screenshot", map[string]any{"x": 0, "y": 0, "width": -1, "height": 4}},
		{"move_mouse", map[string]any{"x": 1}},
		{"get_screen_size", map[string]any{"bogus": true}},
	} {
		res := e2e.Call(t, cs, c.tool, c.args)
		if code := e2e.ErrorCode(res); code != "INVALID_ARGUMENT" {
			t.Errorf("%s %v: code %q, want INVALID_ARGUMENT", c.tool, c.args, code)
		}
		if !regexp.MustCompile(`\ncorrelationId: [0-9a-f]{12}$`).MatchString(e2e.Text(res)) || res.StructuredContent != nil {
			t.Errorf("%s: error result %q (structured %v): want the correlation id last, no structured content", c.tool, e2e.Text(res), res.StructuredContent)
		}
	}
	if h.HostPID() != pid || syscall.Kill(pid, 0) != nil {
		t.Fatal("the host did not survive bad input")
	}
	if out := strings.TrimSpace(h.MustRun("get-cursor-position")); out != "500 500" {
		t.Fatalf("session state lost: cursor %q", out)
	}
}

func TestJSONOutputAndSessionList(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	var size struct{ Width, Height int }
	h.JSON(&size, "get-screen-size")
	if size.Width != 1920 {
		t.Fatalf("%+v", size)
	}
	ss := h.Sessions()
	if len(ss) != 1 || ss[0].SessionID != "default" || !strings.HasPrefix(ss[0].Display, ":") || ss[0].HostPID != h.HostPID() {
		t.Fatalf("sessions %+v", ss)
	}
	// A named session gets its own desktop; a name nobody started is refused.
	if r := h.Run("--session", "second", "move-mouse", "10", "700"); r.Code != 3 || !strings.Contains(r.Stderr, "NOT_FOUND") {
		t.Fatalf("an unstarted session: exit %d %s", r.Code, r.Stderr)
	}
	h.MustRun("session", "start", "second")
	h.MustRun("--session", "second", "move-mouse", "10", "700")
	if len(h.Sessions()) != 2 {
		t.Fatalf("sessions %+v", h.Sessions())
	}
	if out := strings.TrimSpace(h.MustRun("get-cursor-position")); out == "10 700" {
		t.Fatal("sessions share a cursor")
	}
}

func TestCallsOfOneConnectionRunInTheOrderSent(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	cs := h.MCP()
	e2e.Must(t, cs, "get_screen_size", nil)
	var wg sync.WaitGroup
	call := func(name string, args map[string]any) {
		defer wg.Done()
		// Not Must: a goroutine other than the test's may not end the test (t.Fatal).
		if res := e2e.Call(t, cs, name, args); res.IsError {
			t.Errorf("%s %v: %s", name, args, e2e.Text(res))
		}
	}
	wg.Add(1)
	go call("wait_milliseconds", map[string]any{"ms": 300})
	time.Sleep(20 * time.Millisecond)
	for i := 1; i <= 20; i++ {
		wg.Add(1)
		go call("move_mouse", map[string]any{"x": 100 + i, "y": 100})
		time.Sleep(2 * time.Millisecond)
	}
	wg.Wait()
	var cur struct{ CursorX, CursorY int }
	e2e.Structured(t, e2e.Call(t, cs, "get_cursor_position", nil), &cur)
	if cur.CursorX != 120 {
		t.Fatalf("cursor x %d: the last move sent (x=120) did not run last", cur.CursorX)
	}
}

func TestServeFiltersToolsets(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	cs := h.MCP("--toolsets", "screen", "--read-only")
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"analyze_screen", "get_screen_size", "take_screenshot", "zoom_region"}) {
		t.Fatalf("tools %v", names)
	}
	legacy := h.MCP("--legacy-names", "--toolsets", "desktop")
	found := false
	for tool, err := range legacy.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		found = found || tool.Name == "mcp_desktop_click"
	}
	if !found {
		t.Fatal("--legacy-names does not expose mcp_desktop_click")
	}
	var sessionTools []string
	for tool, err := range h.MCP("--legacy-names", "--toolsets", "session").Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		sessionTools = append(sessionTools, tool.Name)
	}
	for _, want := range []string{"start_session", "end_session", "get_session_details", "mcp_W365ComputerUse_StartSession"} {
		if !slices.Contains(sessionTools, want) {
			t.Errorf("--legacy-names --toolsets session lacks %s: %v", want, sessionTools)
		}
	}
	if r := h.Run("serve", "--mcp", "--toolsets", "bogus"); r.Code != 2 {
		t.Fatalf("unknown toolset: exit %d %s", r.Code, r.Stderr)
	}
}

func TestServeHTTPRequiresKeyAndSameOrigin(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	addr := freeAddr(t)
	cmd := exec.Command(h.Bin, "serve", "--http", addr)
	cmd.Env = append(h.Env, "W365_API_KEY=s3cret-key")
	var logs bytes.Buffer
	cmd.Stderr = &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	url := "http://" + addr + "/"
	var resp *http.Response
	var err error
	for i := 0; i < 100; i++ {
		if resp, err = http.Post(url, "application/json", strings.NewReader("{}")); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no key: status %d", resp.StatusCode)
	}
	req, _ := http.NewRequest("POST", url, strings.NewReader("{}"))
	req.Header.Set("Authorization", "Bearer s3cret-key")
	req.Header.Set("Origin", "https://evil.example")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign origin: status %d", resp.StatusCode)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "http-e2e", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{"s3cret-key"}}}, nil)
	if err != nil {
		t.Fatalf("connect with key: %v", err)
	}
	defer cs.Close()
	var size struct{ Width, Height int }
	e2e.Structured(t, e2e.Call(t, cs, "get_screen_size", nil), &size)
	if size.Width != 1920 {
		t.Fatalf("%+v", size)
	}
	if strings.Contains(logs.String(), "s3cret-key") {
		t.Fatal("the API key appears in the logs")
	}
}

// The key can come from a file (a systemd credential, a container secret), and /healthz
// answers probes without one.
func TestServeHTTPKeyFileAndHealthz(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	keyFile := filepath.Join(t.TempDir(), "api-key")
	if err := os.WriteFile(keyFile, []byte("file-k3y\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(h.Bin, "serve", "--http", addr)
	cmd.Env = append(h.Env, "W365_API_KEY_FILE="+keyFile)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	url := "http://" + addr + "/"
	var resp *http.Response
	for i := 0; i < 100; i++ {
		if resp, err = http.Get(url + "healthz"); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "ok\n" {
		t.Fatalf("healthz: %d %q", resp.StatusCode, body)
	}
	if resp, err = http.Post(url, "application/json", strings.NewReader("{}")); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no key: status %d", resp.StatusCode)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "http-e2e", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{"file-k3y"}}}, nil)
	if err != nil {
		t.Fatalf("connect with the key from the file: %v", err)
	}
	cs.Close()

	empty := filepath.Join(t.TempDir(), "empty")
	os.WriteFile(empty, []byte("\n"), 0o600)
	for _, f := range []string{empty, filepath.Join(t.TempDir(), "missing")} {
		bad := exec.Command(h.Bin, "serve", "--http", "0.0.0.0:0")
		bad.Env = append(h.Env, "W365_API_KEY_FILE="+f)
		out, err := bad.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "W365_API_KEY_FILE") {
			t.Fatalf("key file %s: %v %s", f, err, out)
		}
	}
}

type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

func TestDoctorListsComponentsAndChecks(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	var rep struct {
		Components []struct {
			Name    string
			Found   bool
			Package string
		}
		Policy struct {
			Digest, Source string
			Changed        []string
		}
		Checks []struct {
			Name   string
			OK     bool
			Detail string
		}
		Install string
	}
	r := h.Run("doctor", "--json")
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("doctor --json: %v %q", err, r.Stdout)
	}
	if rep.Policy.Source != "defaults" || len(rep.Policy.Digest) != 12 || len(rep.Policy.Changed) != 0 || len(rep.Components) == 0 {
		t.Errorf("doctor policy: %+v", rep.Policy)
	}
	var names []string
	for _, c := range rep.Components {
		names = append(names, c.Name)
		if c.Package == "" {
			t.Errorf("%s has no package", c.Name)
		}
		if os.Getenv("CI") == "true" && !c.Found {
			t.Errorf("CI installs every component, but %s is missing", c.Name)
		}
	}
	if slices.Contains(names, "xclip") {
		t.Error("doctor still lists xclip, which w365 does not use")
	}
	checks := map[string]bool{}
	for _, c := range rep.Checks {
		checks[c.Name] = c.OK
		if c.Detail == "" {
			t.Errorf("check %s says nothing", c.Name)
		}
	}
	for _, want := range []string{"runtime directory", "host", "display", "tesseract languages", "bubblewrap namespaces"} {
		ok, found := checks[want]
		if !found {
			t.Errorf("no %q check in %v", want, checks)
		} else if os.Getenv("CI") == "true" && !ok {
			t.Errorf("check %q failed under CI", want)
		}
	}
	if r.Code == 0 && rep.Install != "" || r.Code == 7 && !strings.HasPrefix(strings.TrimPrefix(rep.Install, "sudo "), "apt-get install") {
		t.Errorf("status %d with install line %q", r.Code, rep.Install)
	}
	// With a package missing from PATH, the line installs exactly it.
	h.Env = append(h.Env, "PATH=/nonexistent")
	r = h.Run("doctor", "--jq", ".install")
	if r.Code != 7 || !strings.Contains(r.Stdout, "apt-get install -y --no-install-recommends xvfb openbox") || !strings.Contains(r.Stderr, "UNAVAILABLE") {
		t.Errorf("doctor without PATH: %+v", r)
	}
}
