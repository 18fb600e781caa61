//go:build linux

package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// titlesApp is what the X client of TestWindowsTheHostReadsAreBounded runs: it maps as
// many windows as its first argument says (override-redirect: no window manager needs to
// take them), each titled (_NET_WM_NAME, in appends of 240 KiB at most) with its second
// argument's KiB, "I " (I its number from 0) then "A"s, and names them all, as many times as
// its third argument says, in the root's _NET_CLIENT_LIST_STACKING (as the window manager
// names the windows it manages), which it sets again every 100 ms; it writes "ready" to
// /tmp/titles once the server has it all, and waits for /tmp/go-on.
const titlesApp = xClientApp + `N, KIB, TIMES = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
def say(x):
    open('/tmp/titles.part', 'w').write(x)
    os.rename('/tmp/titles.part', '/tmp/titles')
def reply():
    while True:
        r = recv(32)
        if r[0] == 1:
            return r + recv(struct.unpack('<I', r[4:8])[0] * 4)
        if r[0] == 0:
            say('error %d' % r[1])
            sys.exit()
def atom(n):
    s.sendall(struct.pack('<BBHHxx', 16, 0, 2 + (len(n) + 3) // 4, len(n)) + pad(n))
    return struct.unpack('<I', reply()[8:12])[0]
if setup[0] != 1:
    say('refused')
    sys.exit()
name, utf8, stacking = atom(b'_NET_WM_NAME'), atom(b'UTF8_STRING'), atom(b'_NET_CLIENT_LIST_STACKING')
size = min(KIB, 240) << 10
for i in range(N):
    w = base + 1 + i
    s.sendall(struct.pack('<BBHIIhhHHHHIII', 1, 0, 9, w, root, i % 500, i % 500, 200, 100, 0, 1, 0, 0x200, 1))
    for k in range((KIB << 10) // size):
        chunk = ((b'%d ' % i if k == 0 else b'') + b'A' * size)[:size]
        s.sendall(struct.pack('<BBHIIIBxxxI', 18, 2 if k else 0, 6 + size // 4, w, name, utf8, 8, size) + chunk)
    s.sendall(struct.pack('<BxHI', 8, 2, w))
ids = b''.join(struct.pack('<I', base + 1 + i) for i in range(N)) * TIMES
end, ready = time.time() + 90, False
while not os.path.exists('/tmp/go-on') and time.time() < end:
    s.sendall(struct.pack('<BBHIIIBxxxI', 18, 0, 6 + len(ids) // 4, root, stacking, 33, 32, len(ids) // 4) + ids +
              struct.pack('<BBH', 43, 0, 1))
    reply()
    if not ready:
        say('ready')
        ready = True
    time.sleep(0.1)
`

// memoryKiB is a field of /proc/PID/status in KiB (VmRSS, VmHWM).
func memoryKiB(t *testing.T, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// waitReady waits up to a minute until file says "ready" (an X client wrote it), and fails t
// when it says anything else.
func waitReady(t *testing.T, file string) {
	t.Helper()
	var said string
	for tries := 0; said != "ready"; tries++ {
		if tries == 600 || said != "" {
			t.Fatalf("the X client said %q", said)
		}
		time.Sleep(100 * time.Millisecond)
		b, _ := os.ReadFile(file)
		said = string(b)
	}
}

// peakGrowth counts process pid's resident peak from now on: the function it returns says by
// how many MiB it grew past its current size.
func peakGrowth(t *testing.T, pid int) func() int {
	t.Helper()
	before := memoryKiB(t, pid, "VmRSS")
	// 5: reset the resident peak to the current size.
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Fatal(err)
	}
	return func() int { return (memoryKiB(t, pid, "VmHWM") - before) >> 10 }
}

// titled starts an X client in a new session of h (titlesApp, its arguments windows, kib
// and times, then the token's words), waits until it is ready, and lists the session's
// windows: it returns those of the client (their titles) and by how many MiB the host's
// resident peak grew in the listing.
func titled(t *testing.T, h *e2e.Harness, home, stamp, id string, windows, kib, times int) (titles []string, grewMiB int) {
	h.MustRun("session", "start", id)
	h.MustRun("--session", id, "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args="+titlesApp,
		"--args="+strconv.Itoa(windows), "--args="+strconv.Itoa(kib), "--args="+strconv.Itoa(times), "--args=w365-titles-", "--args="+stamp)
	tmp := filepath.Join(sessionDir(t, home, id), "tmp")
	t.Cleanup(func() { os.WriteFile(filepath.Join(tmp, "go-on"), nil, 0o644) })
	waitReady(t, filepath.Join(tmp, "titles"))
	grown := peakGrowth(t, h.HostPID())
	var out struct{ Windows []struct{ Title string } }
	h.JSON(&out, "--session", id, "list-windows")
	grewMiB = grown()
	for _, w := range out.Windows {
		if strings.HasSuffix(w.Title, "AAAA") {
			titles = append(titles, w.Title)
		}
	}
	return titles, grewMiB
}

// An X client of a virtual session (python3, added by the policy) titles its windows with
// MiBs each, which its X server holds for it within the session's memory, and names them
// many times in the root's client list. The host read every title whole, and every window
// as often as the list named it, in the host, outside every limit of the session: with the
// binary before, 2 windows of 1 MiB named 16 times each were listed 32 times and grew the
// host's resident peak by 570 MiB (and 48 of 4 MiB named once by 3,456 MiB). A window's
// title is now read up to 4 KiB, a window once, and the host's peak grows by 64 MiB at most.
// A list naming 1,100 windows has the host read the 1,024 topmost (the binary before listed
// all 1,100).
func TestWindowsTheHostReadsAreBounded(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3", "Xvfb")
	h, home, stamp, _ := compromisedApplication(t, "w365-titles-")
	running := "w365-titles-\x00" + stamp
	killWith(t, running)
	titles, grew := titled(t, h, home, stamp, "ttl1", 2, 1024, 16)
	longest := 0
	for _, s := range titles {
		longest = max(longest, len(s))
	}
	t.Logf("%d windows of the client listed, the longest title %d bytes; the host's peak grew by %d MiB", len(titles), longest, grew)
	if grew > 64 {
		t.Errorf("the host's resident peak grew by %d MiB while it listed the windows of an X client of the session, past 64 MiB", grew)
	}
	if len(titles) != 2 {
		t.Errorf("list_windows gave %d windows of the client, not its 2, each once", len(titles))
	}
	h.Run("session", "end", "ttl1")

	titles, grew = titled(t, h, home, stamp, "ttl2", 1100, 1, 1)
	t.Logf("%d windows of the client listed; the host's peak grew by %d MiB", len(titles), grew)
	if len(titles) > 1024 || len(titles) == 0 || !strings.HasPrefix(titles[0], "1099 ") {
		first := ""
		if len(titles) > 0 {
			first = titles[0][:min(len(titles[0]), 8)]
		}
		t.Errorf("list_windows gave %d windows of the client (the first %q), not its 1,024 topmost (the first 1099)", len(titles), first)
	}
	h.Run("session", "end", "ttl2")
	gone(t, running)
}
