//go:build linux

package e2e_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// TestProcessToolsKeepOutAnotherHostByItsFile: another w365 host on the person's display
// is neither listed nor killable (docs/security.md#processes). The process tools told a
// host by the path its /proc/PID/exe reads: a host started from a hard link to this one's
// file (named otherwise), and, once the file was replaced (an upgrade in place, after
// which the CLI starts its host again from the new file), one started from the old file
// at this one's path (a release named w365-linux-amd64: the kernel reads the path
// "... (deleted)") and one from an old file named w365, were all listed and killed by the
// person's default session. Judged by effect: all of them still run.
func TestProcessToolsKeepOutAnotherHostByItsFile(t *testing.T) {
	t.Parallel()
	h := personHarness(t)
	dir := t.TempDir()
	bin, err := os.ReadFile(h.Bin)
	if err != nil {
		t.Fatal(err)
	}
	install := func(name string) string {
		p := filepath.Join(dir, name)
		os.Remove(p) // replaced, as an upgrade does: a new file at the path
		if err := os.WriteFile(p, bin, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	h.Bin = install("w365-linux-amd64")
	display := h.Display()
	host := func(bin string) *e2e.Harness {
		o := e2e.New(t)
		o.Bin = bin
		o.FakeHome()
		o.SetEnv("DISPLAY", display)
		o.MustRun("get-screen-size")
		return o
	}
	outside := func(o *e2e.Harness) {
		t.Helper()
		var list struct {
			Processes []listedProcess `json:"processes"`
		}
		h.JSON(&list, "list-processes", "--max-count", "10000")
		pid := o.HostPID()
		if _, ok := listed(list.Processes, pid); ok {
			t.Errorf("another host (%d, started from %s) is listed", pid, o.Bin)
		}
		r := h.Run("kill-process", "--pid", strconv.Itoa(pid), "--start-time", fmt.Sprint(startTime(t, pid)), "--force")
		if r.Code == 0 {
			t.Errorf("another host (%d, started from %s) was killed: %s", pid, o.Bin, r.Stdout)
		}
		if syscall.Kill(pid, 0) != nil {
			t.Errorf("another host (%d) is gone", pid)
		}
	}
	link := filepath.Join(dir, "agent-tools")
	if err := os.Link(h.Bin, link); err != nil {
		t.Fatal(err)
	}
	outside(host(link))
	same, named := host(h.Bin), host(install("w365"))
	install("w365-linux-amd64")
	install("w365")
	outside(same)
	outside(named)
}

// TestBrowserRunCodeCannotCallTheListener: a keyless HTTP listener's sessions are the
// anonymous principal's, which a stdio agent is not. Its browser is refused the listener's
// origins, and a page's request there carries an Origin the listener refuses; but
// browser_run_code's route (Fetch.continueRequest) rewrote a navigation of another URL
// into a POST to the listener, which a navigation sends with no Origin: the listener took
// it for a program's and the agent listed the other agent's session (with its live view's
// token); and at [::ffff:7f00:1], which reaches the listener, Chromium sends no fetch
// metadata either. Judged by effect: the listener refuses both (a browser's request, by its
// fetch metadata, from no listed origin; a Host naming an IPv4 address as IPv6) and the
// agent reaches nothing of the other's; a program still connects.
func TestBrowserRunCodeCannotCallTheListener(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium", "node", "bwrap")
	h := e2e.New(t)
	fakeHome(t, h)
	runCodeCache(h)
	base, _ := serveHTTP(t, h, nil)
	victim := otherAgentsSession(t, base)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs := h.MCP()
	_, port, _ := strings.Cut(strings.TrimPrefix(base, "http://"), ":")
	// The listener's address as it is, and an IPv4 address written as IPv6, which reaches
	// the listener and to which Chromium sends no fetch metadata; and other names of it
	// (0.0.0.0, a decimal address, localhost with a final dot, a subdomain of localhost),
	// which Chromium sends it with fetch metadata.
	for _, target := range []string{base, "http://[::ffff:7f00:1]:" + port, "http://0.0.0.0:" + port, "http://2130706433:" + port, "http://localhost.:" + port, "http://w.localhost:" + port} {
		// Every step a navigation of a URL nobody serves, sent to the listener instead.
		code := `const post = async (body, sid) => {
  const headers = {'content-type': 'application/json', 'accept': 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18'};
  if (sid) headers['mcp-session-id'] = sid;
  await page.unrouteAll();
  await page.route('**/*', route => route.continue({url: '` + target + `/', method: 'POST', postData: JSON.stringify(body), headers}));
  const r = await page.goto('http://127.0.0.1:9/' + Math.random());
  return {status: r.status(), sid: (await r.allHeaders())['mcp-session-id'], text: await page.evaluate(() => document.body.innerText)};
};
const i = await post({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 'page', version: '1'}}});
if (i.status !== 200) return 'initialize ' + i.status;
await post({jsonrpc: '2.0', method: 'notifications/initialized'}, i.sid);
const l = await post({jsonrpc: '2.0', id: 2, method: 'tools/call', params: {name: 'list_sessions', arguments: {}}}, i.sid);
return 'list_sessions ' + l.status + ' ' + l.text`
		res, v := runCode(t, cs, code, 60000)
		out, _ := v.(string)
		if strings.Contains(out, victim) || !strings.HasPrefix(out, "initialize 403") {
			t.Errorf("browser_run_code called the listener at %s: %q %s", target, out, e2e.Text(res))
		}
	}
	// A program still calls it, by either name of the loopback address.
	for _, u := range []string{base, "http://localhost:" + port} {
		c, err := mcp.NewClient(&mcp.Implementation{Name: "program", Version: "1"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: u + "/"}, nil)
		if err != nil {
			t.Errorf("a program at %s: %v", u, err)
			continue
		}
		c.Close()
	}
}
