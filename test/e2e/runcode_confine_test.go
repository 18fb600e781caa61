//go:build linux

package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// runCodeCache points the harness's hosts at the user's cache, where browser_run_code's
// playwright-core was installed (it outlives a fake HOME), unless W365_RUNCODE_DIR names one.
func runCodeCache(h *e2e.Harness) {
	if os.Getenv("W365_RUNCODE_DIR") != "" {
		return
	}
	if home, err := os.UserHomeDir(); err == nil {
		h.Env = append(h.Env, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "npm_config_cache="+filepath.Join(home, ".npm"))
	}
}

// The code browser_run_code runs is the agent's, and Node gives it the whole process
// (process.mainModule.require: child_process, fs). Its sandbox showed it nothing of the
// host's but /usr, yet on a root host bubblewrap left it root with every capability in its
// user namespace, which owns its mount namespace: it remounted /usr read-write and wrote
// there as root (a program on every user's PATH); anywhere it put set-id bits on what it
// wrote, and nothing held its processes or its memory but V8's heap (600 processes, 2 GiB
// of buffers, 1.5 GiB written into its /tmp on the host's disk or into its /dev in memory).
// Judged by effect: no file in the host's /usr, no set-id bit on disk, a fork past the
// call's task limit fails, 2 GiB of memory and 1.5 GiB of files are not held, and the next
// call still runs.
func TestBrowserRunCodeIsConfined(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium", "node", "bwrap")
	h := e2e.New(t)
	fakeHome(t, h)
	runCodeCache(h)
	cs := h.MCP()
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": "data:text/html,<title>t</title>"})

	planted := fmt.Sprintf("/usr/w365-runcode-%d", time.Now().UnixNano())
	t.Cleanup(func() { os.Remove(planted) })
	res, v := runCode(t, cs, `const cp = process.mainModule.require('child_process');
try { cp.execSync('mount -o remount,bind,rw /usr; echo planted > `+planted+`', {stdio: 'ignore'}) } catch (e) {}
return 'tried'`, 60000)
	if v != "tried" {
		t.Fatalf("run_code: %v %s", v, e2e.Text(res))
	}
	if _, err := os.Stat(planted); err == nil {
		t.Errorf("the code wrote %s on the host", planted)
	}

	res, v = runCode(t, cs, `const fs = process.mainModule.require('fs');
fs.copyFileSync('/usr/bin/true', '/tmp/t');
try { fs.chmodSync('/tmp/t', 0o6755) } catch (e) {}
return fs.statSync('/tmp/t').mode & 0o7000`, 60000)
	if v != float64(0) {
		t.Errorf("a file the code wrote on the host's disk has set-id bits %v: %s", v, e2e.Text(res))
	}

	res, v = runCode(t, cs, `const cp = process.mainModule.require('child_process');
const ps = [];
for (let i = 0; i < 600; i++) {
  try {
    const p = cp.spawn('/usr/bin/sleep', ['60']);
    await new Promise((ok, fail) => { p.once('spawn', ok); p.once('error', fail) });
    ps.push(p);
  } catch (e) { break }
}
ps.forEach(p => p.kill('SIGKILL'));
return ps.length`, 60000)
	if n, ok := v.(float64); !ok || n >= 600 {
		t.Errorf("the code started %v processes: %s", v, e2e.Text(res))
	}

	res, v = runCode(t, cs, `const bufs = [];
try { for (let i = 0; i < 32; i++) bufs.push(Buffer.alloc(64 << 20, 1)) } catch (e) {}
return bufs.length * 64`, 60000)
	if v == float64(2048) {
		t.Errorf("the code held %v MiB of the host's memory: %s", v, e2e.Text(res))
	}
	// Files in memory or on the host's disk count in no limit of a process: each place it
	// may write holds less than 1.5 GiB (a full place fails the write, or the cgroup ends the code).
	for _, f := range []string{"/tmp/fill", "/dev/fill", "/dev/shm/fill"} {
		res, v = runCode(t, cs, `const fs = process.mainModule.require('fs');
let n = 0;
try {
  const fd = fs.openSync('`+f+`', 'w'), b = Buffer.alloc(64 << 20, 1);
  for (let i = 0; i < 24; i++) { fs.writeSync(fd, b); n++ }
  fs.closeSync(fd);
} catch (e) {}
try { fs.unlinkSync('`+f+`') } catch (e) {}
return n * 64`, 60000)
		if v == float64(1536) {
			t.Errorf("the code wrote %v MiB into %s: %s", v, f, e2e.Text(res))
		}
	}
	if res, v := runCode(t, cs, "return 40 + 2", 60000); v != float64(42) {
		t.Errorf("after the code ran out of memory: %v %s", v, e2e.Text(res))
	}
}
