//go:build linux

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// fakeHome makes a HOME holding canary files and Documents/Downloads, and points
// the harness's hosts at it.
func fakeHome(t *testing.T, h *e2e.Harness) string {
	t.Helper()
	home := t.TempDir()
	// Cleanups run last first: this one, before the directory's removal, stops the host,
	// which ends its sessions (their browsers) and waits for the ends under way (the MCP
	// client's, closed first, ended its sessions without waiting). Before, the removal ran
	// while a session's browser still wrote in its HOME, here: "directory not empty".
	t.Cleanup(func() {
		h.StopHost()
		onlyKept(t, filepath.Join(home, ".local/state/w365/sessions"))
	})
	for _, d := range []string{"Documents", "Downloads", ".ssh"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{".bashrc", ".ssh/authorized_keys"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte("canary "+f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := h.Env[:0]
	for _, kv := range h.Env {
		if !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") && !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			env = append(env, kv)
		}
	}
	h.Env = append(env, "HOME="+home)
	return home
}

// onlyKept checks that the sessions' state directories under root hold nothing but the files a
// session's end keeps, regular files in its home's saved directories, and the directories
// that lead to them (docs/sessions.md#files).
func onlyKept(t *testing.T, root string) {
	t.Helper()
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		parts := strings.Split(rel, string(filepath.Separator))
		saved := len(parts) >= 3 && parts[1] == "home" && slices.Contains([]string{"Downloads", "Documents", "Desktop", "Pictures"}, parts[2])
		ents, _ := os.ReadDir(p)
		switch {
		case d.IsDir() && len(ents) > 0 && (len(parts) <= 2 || saved):
		case d.Type().IsRegular() && saved && len(parts) > 3:
		default:
			t.Errorf("a session's end left %s behind", rel)
		}
		return nil
	})
}

func mustCanary(t *testing.T, home, f string) {
	t.Helper()
	if b, err := os.ReadFile(filepath.Join(home, f)); err != nil || string(b) != "canary "+f {
		t.Fatalf("canary %s was touched: %q, %v", f, b, err)
	}
}

// browserProcs are the pids whose command line names a profile in dir.
func browserProcs(t *testing.T, dir string) (pids []int, profile string) {
	t.Helper()
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		for _, a := range strings.FieldsFunc(string(b), func(r rune) bool { return r == 0 || r == ' ' }) {
			if v, ok := strings.CutPrefix(a, "--user-data-dir="); ok && strings.HasPrefix(v, dir+string(filepath.Separator)) {
				pids = append(pids, pid)
				profile = v
			}
		}
	}
	return pids, profile
}

// listeningInodes are the socket inodes of TCP sockets in LISTEN state.
func listeningInodes(t *testing.T) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) > 9 && fs[3] == "0A" {
				out[fs[9]] = true
			}
		}
	}
	return out
}

// Attack classes 6 and 11 of the boundary issue, by their effects: the browser's
// Cookies file cannot be put into a page's file input, no local process can reach
// the browser's DevTools, and browser_pdf_save cannot overwrite ~/.bashrc or write
// anywhere but the output directory, Downloads and Documents.
func TestBrowserSecretsAndFilesStayInside(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	home := fakeHome(t, h)
	same, _ := snapPages(t)
	cs := h.MCP()
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/contract.html"})
	e2e.Must(t, cs, "browser_set_cookies", map[string]any{"cookies": []any{
		map[string]any{"name": "sid", "value": "s3cr3t-value", "httpOnly": true}}})

	// The profile lives in the private runtime directory.
	pids, profile := browserProcs(t, h.RuntimeDir)
	if len(pids) == 0 {
		t.Fatalf("no browser process with a profile under the runtime directory %s", h.RuntimeDir)
	}
	// No DevTools port: no flag, no port file, no listening TCP socket in any browser process.
	listen := listeningInodes(t)
	for _, pid := range pids {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if strings.Contains(string(b), "remote-debugging-port") {
			t.Fatalf("browser %d has a DevTools port: %q", pid, b)
		}
		fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
		for _, fd := range fds {
			l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
			if in, ok := strings.CutPrefix(l, "socket:["); ok && listen[strings.TrimSuffix(in, "]")] {
				t.Fatalf("browser process %d listens on a TCP socket (%s)", pid, l)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(profile, "DevToolsActivePort")); err == nil {
		t.Fatal("the profile has a DevToolsActivePort file")
	}

	// Cookies are listed without their value or its size.
	res := e2e.Call(t, cs, "browser_get_cookies", map[string]any{})
	raw, _ := json.Marshal(res.StructuredContent)
	if res.IsError || strings.Contains(string(raw), "s3cr3t") || strings.Contains(string(raw), `"size"`) || !strings.Contains(string(raw), `"sid"`) {
		t.Fatalf("cookies: %s", raw)
	}

	// The profile's files cannot go into a file input.
	snapID, snapText := snapshotOver(t, cs, map[string]any{})
	up := snapRef(t, snapText, "Upload")
	for _, f := range []string{filepath.Join(profile, "Default", "Cookies"), filepath.Join(profile, "Local State"), filepath.Join(h.RuntimeDir, "host.sock")} {
		res := e2e.Call(t, cs, "browser_set_file_input_ref", map[string]any{"snapshotId": snapID, "ref": up, "filePaths": []string{f}})
		if code := e2e.ErrorCode(res); code != "BLOCKED_BY_POLICY" {
			t.Fatalf("upload of %s: %s %s", f, code, e2e.Text(res))
		}
	}
	if got := evalValue(t, cs, "JSON.stringify(window.__log.filter(s => s.startsWith('file:')))"); got != "[]" {
		t.Fatalf("the page received files: %s", got)
	}

	// PDFs: never over a dot-file or outside the roots; relative names land in the output directory.
	for _, p := range []string{"~/.bashrc", filepath.Join(home, ".bashrc"), filepath.Join(home, ".ssh", "authorized_keys"),
		"../../.bashrc", filepath.Join(home, "page.pdf"), filepath.Join(profile, "x.pdf"), "/etc/w365.pdf", "~/Documents/.hidden.pdf"} {
		res := e2e.Call(t, cs, "browser_pdf_save", map[string]any{"filePath": p, "overwrite": true})
		if code := e2e.ErrorCode(res); code != "BLOCKED_BY_POLICY" && code != "NOT_FOUND" {
			t.Fatalf("pdf to %s: %q %s", p, code, e2e.Text(res))
		}
	}
	mustCanary(t, home, ".bashrc")
	mustCanary(t, home, ".ssh/authorized_keys")
	if _, err := os.Stat(filepath.Join(home, "page.pdf")); err == nil {
		t.Fatal("a PDF was written in HOME itself")
	}
	var pdf struct {
		Path string `json:"path"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "browser_pdf_save", map[string]any{"filePath": "~/Documents/page.pdf"}), &pdf)
	if pdf.Path != filepath.Join(home, "Documents", "page.pdf") {
		t.Fatalf("pdf path %s", pdf.Path)
	}
	if res := e2e.Call(t, cs, "browser_pdf_save", map[string]any{"filePath": "~/Documents/page.pdf"}); e2e.ErrorCode(res) != "INVALID_ARGUMENT" {
		t.Fatalf("a second save over an existing file: %s", e2e.Text(res))
	}
	e2e.Structured(t, e2e.Call(t, cs, "browser_pdf_save", map[string]any{"filePath": "rel.pdf"}), &pdf)
	// A relative name lands in the session's own Downloads, in its state directory
	// (docs/sessions.md#files), nowhere else of HOME.
	state := filepath.Join(home, ".local/state/w365/sessions") + "/"
	if wd, _ := os.Getwd(); filepath.Base(pdf.Path) != "rel.pdf" || strings.HasPrefix(pdf.Path, wd) ||
		!strings.HasPrefix(pdf.Path, state) || !strings.HasSuffix(pdf.Path, "/home/Downloads/rel.pdf") {
		t.Fatalf("a relative PDF went to %s", pdf.Path)
	}
	if b, err := os.ReadFile(pdf.Path); err != nil || !strings.HasPrefix(string(b), "%PDF") {
		t.Fatalf("relative pdf: %v", err)
	}
}

func evalValue(t *testing.T, cs *mcp.ClientSession, expr string) string {
	t.Helper()
	var ev struct {
		Value string `json:"value"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "browser_eval_js", map[string]any{"expression": expr}), &ev)
	return ev.Value
}

// callWithin calls a tool and fails the test when no answer comes within d.
func callWithin(t *testing.T, cs *mcp.ClientSession, d time.Duration, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s did not answer within %s: %v", name, d, err)
	}
	return res
}

// The browser_get_title hang reported by the peer suite: tab 0 is a Chrome error
// page reached while its page's timer opened an alert, tab 1 the error page of a
// browser_new_tab that failed. Every call answers.
func TestNoBrowserCallHangsOnErrorPagesAndTimerDialogs(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	same, _ := snapPages(t)
	slow := testenv.HangUpServer(t, 2*time.Second)
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := "http://" + l.Addr().String() + "/"
	l.Close()
	cs := h.MCP()
	if res := callWithin(t, cs, 60*time.Second, "browser_navigate", map[string]any{"url": same + "/timer-alert.html"}); res.IsError {
		t.Fatalf("navigate to the timer page: %s", e2e.Text(res))
	}
	// A server that hangs up: the navigation may fail; the error page it leaves is the point.
	_ = callWithin(t, cs, 60*time.Second, "browser_navigate", map[string]any{"url": "http://" + slow.Addr().String() + "/"})
	if res := callWithin(t, cs, 60*time.Second, "browser_new_tab", map[string]any{"url": refused}); !res.IsError {
		t.Fatalf("new tab to a refused port: %s", e2e.Text(res))
	}
	time.Sleep(time.Second)
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"browser_get_title", nil}, {"browser_get_url", nil}, {"browser_list_tabs", nil}, {"browser_get_text", nil},
		{"browser_snapshot", nil}, {"browser_switch_tab", map[string]any{"tabIndex": 0}}, {"browser_get_title", nil},
		{"browser_snapshot", nil}, {"browser_eval_js", map[string]any{"expression": "1+1"}},
		{"browser_handle_dialog", map[string]any{"action": "accept"}}, {"browser_get_title", nil},
		{"browser_eval_js", map[string]any{"expression": "'ok'"}},
	} {
		if c.args == nil {
			c.args = map[string]any{}
		}
		res := callWithin(t, cs, 45*time.Second, c.name, c.args)
		t.Logf("%s: error=%v %.120s", c.name, res.IsError, e2e.Text(res))
	}
	if got := evalValue(t, cs, "'still answering'"); got != "still answering" {
		t.Fatalf("eval after the dialog: %q", got)
	}
}

// browser_pdf_save opens the directory before it prints and writes into that directory:
// a second writer swapping the directory for a symbolic link to a place outside every
// root, again and again while PDFs are printed into it, never gets a byte written outside.
// A symbolic link or a FIFO at the file's own name is refused (and the FIFO blocks
// nothing), with overwrite too.
func TestBrowserPDFSaveNeverFollowsASwap(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	home := fakeHome(t, h)
	same, _ := snapPages(t)
	cs := h.MCP()
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/contract.html"})
	outside := t.TempDir()
	target := filepath.Join(outside, "target.pdf")
	if err := os.WriteFile(target, []byte("canary"), 0o600); err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join(home, "Documents")
	if err := os.Symlink(target, filepath.Join(docs, "link.pdf")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(docs, "fifo.pdf"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"link.pdf", "fifo.pdf"} {
		res := e2e.Call(t, cs, "browser_pdf_save", map[string]any{"filePath": "~/Documents/" + name, "overwrite": true})
		if code := e2e.ErrorCode(res); code != "BLOCKED_BY_POLICY" && code != "INVALID_ARGUMENT" {
			t.Errorf("pdf over %s: %q %s", name, code, e2e.Text(res))
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "canary" {
		t.Fatalf("the link's target outside was written: %q", b)
	}

	out, real := filepath.Join(docs, "out"), filepath.Join(docs, "out.real")
	if err := os.Mkdir(out, 0o700); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	done := make(chan int)
	go func() {
		swaps := 0
		for {
			select {
			case <-stop:
				os.Remove(out)
				os.Rename(real, out)
				done <- swaps
				return
			default:
			}
			if os.Rename(out, real) == nil {
				os.Symlink(outside, out)
				time.Sleep(time.Millisecond)
				os.Remove(out)
				os.Rename(real, out)
				swaps++
			}
			time.Sleep(time.Millisecond)
		}
	}()
	saved, refused := 0, 0
	names := map[string]bool{}
	for i := range 40 {
		name := fmt.Sprintf("p%d.pdf", i%4)
		res := e2e.Call(t, cs, "browser_pdf_save", map[string]any{"filePath": "~/Documents/out/" + name, "overwrite": i >= 4})
		switch code := e2e.ErrorCode(res); code {
		case "":
			saved++
			names[name] = true
		case "BLOCKED_BY_POLICY", "NOT_FOUND":
			refused++
		default:
			t.Errorf("pdf %d: %q %s", i, code, e2e.Text(res))
		}
	}
	close(stop)
	swaps := <-done
	ents, _ := os.ReadDir(outside)
	for _, e := range ents {
		if e.Name() != "target.pdf" {
			t.Errorf("a PDF was written outside every root: %s", filepath.Join(outside, e.Name()))
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "canary" {
		t.Errorf("the file outside was replaced: %q", b)
	}
	t.Logf("%d PDFs saved, %d refused, %d swaps", saved, refused, swaps)
	if saved == 0 || swaps < 40 {
		t.Fatalf("the race did not run: %d saved, %d swaps", saved, swaps)
	}
	// Under load most saves meet the directory swapped and are refused; each name a save
	// succeeded for is in the directory, whichever names those were.
	for name := range names {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || !strings.HasPrefix(string(b), "%PDF") {
			t.Errorf("a saved PDF is not in the directory: %v", err)
		}
	}

	// The same race run by a second session's sandbox (its working directory is
	// Documents, inside the workspace root), while the first session saves PDFs.
	s2 := e2e.Call(t, cs, "mcp_W365ComputerUse_StartSession", nil)
	var sess struct{ SessionID string }
	e2e.Structured(t, s2, &sess)
	racer := fmt.Sprintf(`import os, time
swaps, end = 0, time.time() + 12
while time.time() < end:
    os.rename('out', 'out.real')
    os.symlink(%q, 'out')
    time.sleep(0.001)
    os.remove('out')
    os.rename('out.real', 'out')
    swaps += 1
    time.sleep(0.001)
print(swaps)
`, outside)
	raced := make(chan *mcp.CallToolResult)
	go func() {
		raced <- e2e.Call(t, cs, "execute_python_code", map[string]any{"code": racer, "cwd": docs, "timeoutMs": 60000, "sessionId": sess.SessionID})
	}()
	saved = 0
	for i := range 30 {
		res := e2e.Call(t, cs, "browser_pdf_save", map[string]any{"filePath": fmt.Sprintf("~/Documents/out/s%d.pdf", i%3), "overwrite": i >= 3})
		switch code := e2e.ErrorCode(res); code {
		case "":
			saved++
		case "BLOCKED_BY_POLICY", "NOT_FOUND":
		default:
			t.Errorf("pdf %d during the sandbox's race: %q %s", i, code, e2e.Text(res))
		}
	}
	var rout struct {
		Stdout  string
		Success bool
	}
	e2e.Structured(t, <-raced, &rout)
	if n, _ := strconv.Atoi(strings.TrimSpace(rout.Stdout)); !rout.Success || n < 100 {
		t.Fatalf("the second session's sandbox did not race: %+v", rout)
	}
	ents, _ = os.ReadDir(outside)
	for _, e := range ents {
		if e.Name() != "target.pdf" {
			t.Errorf("a PDF was written outside every root while a sandbox raced: %s", filepath.Join(outside, e.Name()))
		}
	}
	t.Logf("with a sandbox racing: %d PDFs saved, %s swaps", saved, strings.TrimSpace(rout.Stdout))
	if saved == 0 {
		t.Errorf("no PDF was saved while the sandbox raced")
	}
}

// Uploads come from the person's Documents, Downloads and Desktop and from the session's
// own directories, never from the host's temporary directory (where a Kerberos ticket
// cache, another program's files and every virtual desktop's X cookie lie) nor from a
// hidden file or directory; the page receives none of those.
func TestBrowserUploadsComeFromTheSessionsRootsOnly(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	home := fakeHome(t, h)
	same, _ := snapPages(t)
	cs := h.MCP()
	ticket, err := os.CreateTemp("", "krb5cc_w365_")
	if err != nil {
		t.Fatal(err)
	}
	ticket.WriteString(e2e.Canary)
	ticket.Close()
	t.Cleanup(func() { os.Remove(ticket.Name()) })
	os.MkdirAll(filepath.Join(home, "Documents", ".private"), 0o700)
	for _, f := range []string{"Documents/.env", "Documents/.private/key.txt", "Documents/cv.txt"} {
		os.WriteFile(filepath.Join(home, f), []byte(e2e.Canary), 0o600)
	}
	made, snapID, up := uploadPage(t, cs, same, "open('made.txt', 'w').write('made')", "made.txt")
	xauth, _ := filepath.Glob(filepath.Join(os.TempDir(), "w365-xauth-*", "Xauthority"))
	for _, f := range append([]string{ticket.Name(), filepath.Join(home, "Documents", ".env"), filepath.Join(home, "Documents", ".private", "key.txt")}, xauth...) {
		res := e2e.Call(t, cs, "browser_set_file_input_ref", map[string]any{"snapshotId": snapID, "ref": up, "filePaths": []string{f}})
		if !res.IsError {
			t.Errorf("%s was uploaded: %s", f, e2e.Text(res))
		}
	}
	if got := evalValue(t, cs, "JSON.stringify(window.__log.filter(s => s.startsWith('file:')))"); got != "[]" {
		t.Errorf("the page received files: %s", got)
	}
	for _, f := range []string{filepath.Join(home, "Documents", "cv.txt"), made} {
		if res := e2e.Call(t, cs, "browser_set_file_input_ref", map[string]any{"snapshotId": snapID, "ref": up, "filePaths": []string{f}}); res.IsError {
			t.Errorf("upload of %s: %s", f, e2e.Text(res))
		}
	}
	if got := evalValue(t, cs, "JSON.stringify(window.__log.filter(s => s.startsWith('file:')))"); got != `["file:cv.txt|text/plain|18","file:made.txt|text/plain|4"]` {
		t.Errorf("the page received %s, want cv.txt and made.txt", got)
	}
}

// The copies the host stages for a page's file inputs stay until the browser closes, in
// the host's runtime directory (often in memory, /run/user/UID): a session setting its
// own large file again and again filled it, 512 MiB a call (25 GiB with 100 paths). The
// staging directory takes at most 512 MiB: the first set of two 256 MiB files is made,
// the next is refused, and the runtime directory stays within the bound.
func TestBrowserUploadsStageABoundedAmount(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	fakeHome(t, h)
	same, _ := snapPages(t)
	cs := h.MCP()
	big, snapID, up := uploadPage(t, cs, same, "f = open('big', 'wb')\nf.truncate(256 << 20)\nf.close()", "big")
	set := func(paths ...string) bool {
		return !e2e.Call(t, cs, "browser_set_file_input_ref", map[string]any{"snapshotId": snapID, "ref": up, "filePaths": paths}).IsError
	}
	if !set(big, big) {
		t.Fatal("two files of 256 MiB were not set")
	}
	if set(big) {
		t.Error("a third file of 256 MiB was staged past the bound")
	}
	var staged int64
	filepath.WalkDir(h.RuntimeDir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				staged += fi.Size()
			}
		}
		return nil
	})
	if staged > 600<<20 {
		t.Errorf("the runtime directory holds %d MiB", staged>>20)
	}
}

// uploadPage has a Python call of the session make file name in its scratch directory
// (code writes it) and opens the page of same with an upload field: the file's path, the
// snapshot's id and the field's ref.
func uploadPage(t *testing.T, cs *mcp.ClientSession, same, code, name string) (file, snapID, ref string) {
	t.Helper()
	out, ok := pyOver(t, cs, "import os\n"+code+"\nprint(os.path.join(os.getcwd(), '"+name+"'))", "")
	if !ok || !out.Success {
		t.Fatalf("python: %+v", out)
	}
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": same + "/contract.html"})
	snapID, snapText := snapshotOver(t, cs, map[string]any{})
	return strings.TrimSpace(out.Stdout), snapID, snapRef(t, snapText, "Upload")
}

// The session's browser starts no application for a URL. A Python call (no network) writes
// in the session's HOME a desktop entry for the scheme evil: and makes it the default;
// a link to evil:x clicked, and the browser's "Open Evil?" answered, started that program
// in the browser's confinement, with its network and its profile (the Cookies file).
// Judged by effect: the program never runs.
func TestBrowserStartsNoApplicationForAURL(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium", "xdg-open")
	h := e2e.New(t)
	fakeHome(t, h)
	cs := h.MCP()
	out, ok := pyOver(t, cs, `import os
h = os.environ['HOME']
for d in ('.local/share/applications', '.config'):
    os.makedirs(os.path.join(h, d), exist_ok=True)
ran = os.path.join(h, 'handler-ran')
open(os.path.join(h, '.local/share/applications/evil.desktop'), 'w').write(
    '[Desktop Entry]\nType=Application\nName=Evil\nExec=/usr/bin/touch ' + ran + '\nMimeType=x-scheme-handler/evil;\n')
open(os.path.join(h, '.config/mimeapps.list'), 'w').write('[Default Applications]\nx-scheme-handler/evil=evil.desktop\n')
print(ran)`, "")
	if !ok || !out.Success {
		t.Fatalf("python: %+v", out)
	}
	ran := strings.TrimSpace(out.Stdout)
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": `data:text/html,<a id="a" href="evil:x">open</a>`})
	e2e.Must(t, cs, "browser_click", map[string]any{"selector": "#a"})
	time.Sleep(time.Second)
	// The dialog's focus is on Cancel: Tab moves it to Open.
	e2e.Must(t, cs, "press_keys", map[string]any{"keys": []string{"tab"}})
	e2e.Must(t, cs, "press_keys", map[string]any{"keys": []string{"enter"}})
	time.Sleep(2 * time.Second)
	if _, err := os.Stat(ran); err == nil {
		t.Error("the browser started the application the session registered for evil:")
	}
}

// browser_pdf_save took any name: one with a newline, a bidirectional override, a C1 or
// other control character, a zero-width character or trailing white space was written as
// given, and a listing of the directory then showed another name, or two lines for one file.
// Such a name is now INVALID_ARGUMENT and nothing is written (engine/browser/paths.go,
// checkName; docs/security.md, "Names of the files the host writes").
func TestBrowserPDFSaveRefusesNamesListingsMisread(t *testing.T) {
	t.Parallel()
	h, _ := hostileSession(t, "bm5")
	for _, name := range []string{"two\nlines.pdf", "invoice\u202Efdp.exe", "del\x7f.pdf", "next\u0085line.pdf",
		"bell\a.pdf", "zero\u200bwidth.pdf", "trailing.pdf ", "sub\tdir/x.pdf"} {
		r := h.Run("--session", "bm5", "browser", "pdf-save", name)
		if r.Code == 0 || !strings.Contains(r.Stderr, "INVALID_ARGUMENT") {
			t.Errorf("pdf-save as %q: exit %d %.200s %.200s, want INVALID_ARGUMENT", name, r.Code, r.Stdout, r.Stderr)
		}
	}
	var out struct{ Path string }
	h.JSON(&out, "--session", "bm5", "browser", "pdf-save", "café.pdf")
	ents, err := os.ReadDir(filepath.Dir(out.Path))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != "café.pdf" {
		t.Errorf("the output directory holds %q, want only café.pdf", names)
	}
}
