//go:build linux

package e2e_test

import (
	"bytes"
	"image"
	"image/color"
	"image/gif"
	"os"
	"path/filepath"
	"testing"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// clipboardApp is what the X clients of TestClipboardImageTheHostDecodesIsBounded and
// TestClipboardTextTheHostReadsIsBounded run: it owns the CLIPBOARD and offers the file its
// second argument names as the target (and type) its first names (the property appended 240
// KiB at a time), answering every request until /tmp/go-on; it writes "ready" to /tmp/clip
// once it owns the selection.
const clipboardApp = xClientApp + `def say(x):
    open('/tmp/clip.part', 'w').write(x)
    os.rename('/tmp/clip.part', '/tmp/clip')
def atom(n):
    s.sendall(struct.pack('<BBHHxx', 16, 0, 2 + (len(n) + 3) // 4, len(n)) + pad(n))
    while True:
        r = recv(32)
        if r[0] == 1:
            recv(struct.unpack('<I', r[4:8])[0] * 4)
            return struct.unpack('<I', r[8:12])[0]
if setup[0] != 1:
    say('refused')
    sys.exit()
data = open(sys.argv[2], 'rb').read()
clip, targets, offer = atom(b'CLIPBOARD'), atom(b'TARGETS'), atom(sys.argv[1].encode())
w = base + 1
s.sendall(struct.pack('<BBHIIhhHHHHII', 1, 0, 8, w, root, 0, 0, 1, 1, 0, 1, 0, 0) + struct.pack('<BxHIII', 22, 4, w, clip, 0))
say('ready')
import select
while not os.path.exists('/tmp/go-on'):
    if not select.select([s], [], [], 0.2)[0]:
        continue
    r = recv(32)
    if r[0] == 1:
        recv(struct.unpack('<I', r[4:8])[0] * 4)
    if r[0] & 0x7f != 30:
        continue
    when, owner, req, sel, target, prop = struct.unpack('<IIIIII', r[4:28])
    prop = prop or target
    if target == targets:
        v = struct.pack('<II', targets, offer)
        s.sendall(struct.pack('<BBHIIIBxxxI', 18, 0, 6 + 2, req, prop, 4, 32, 2) + v)
    elif target == offer:
        for k in range(0, len(data), 240 << 10):
            c = data[k:k + (240 << 10)]
            s.sendall(struct.pack('<BBHIIIBxxxI', 18, 2 if k else 0, 6 + (len(c) + 3) // 4, req, prop, offer, 8, len(c)) + pad(c))
    else:
        prop = 0
    s.sendall(struct.pack('<BxHII', 25, 11, req, 0) + struct.pack('<BxHIIIII8x', 31, 0, when, req, sel, target, prop))
`

// offered starts an X client in a new session of h that owns the clipboard and offers data
// as target (clipboardApp), has the host read the clipboard, and returns the read's result
// and by how many MiB the host's resident peak grew in it.
func offered(t *testing.T, id, target string, data []byte) (r e2e.Result, grewMiB int) {
	h, home, stamp, _ := compromisedApplication(t, "w365-clip-")
	running := "w365-clip-\x00" + stamp
	killWith(t, running)
	h.MustRun("session", "start", id)
	tmp := filepath.Join(sessionDir(t, home, id), "tmp")
	if err := os.WriteFile(filepath.Join(tmp, "offer"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		os.WriteFile(filepath.Join(tmp, "go-on"), nil, 0o644)
		h.Run("session", "end", id)
		gone(t, running)
	})
	h.MustRun("--session", id, "launch-application", "--path", "/usr/bin/python3", "--args=-c", "--args="+clipboardApp,
		"--args="+target, "--args=/tmp/offer", "--args=w365-clip-", "--args="+stamp)
	waitReady(t, filepath.Join(tmp, "clip"))
	grown := peakGrowth(t, h.HostPID())
	r = h.Run("--session", id, "clipboard-read", "--json")
	grewMiB = grown()
	t.Logf("%d bytes offered as %s read: exit %d, %.120q %.200s; the host's peak grew by %d MiB", len(data), target, r.Code, r.Stdout, r.Stderr, grewMiB)
	return r, grewMiB
}

// An X client of a virtual session (python3, added by the policy) owns the clipboard and
// offers a GIF of 182 KiB that says it is 16384x16384 pixels. clipboard_read decoded it in
// the host, outside every limit of the session, to convert it to PNG: with the binary
// before, the host's resident peak grew by 257 MiB (its pixels), 1,470 times the file; an
// image of 65535x65535 (3.3 MB) would have had it hold 4 GiB. The host now reads the image's
// size first and decodes none of more than 16 million pixels (desktop's clipboard
// maxImagePixels): the read fails with RESOURCE_EXHAUSTED, and the host's peak may grow by
// 64 MiB at most.
func TestClipboardImageTheHostDecodesIsBounded(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "bwrap", "python3", "Xvfb")
	var img bytes.Buffer
	if err := gif.Encode(&img, image.NewPaletted(image.Rect(0, 0, 16384, 16384), color.Palette{color.Black, color.White}), nil); err != nil {
		t.Fatal(err)
	}
	if _, grew := offered(t, "clip1", "image/gif", img.Bytes()); grew > 64 {
		t.Errorf("the host's resident peak grew by %d MiB while it read a clipboard image of %d bytes an X client of the session offered, past 64 MiB", grew, img.Len())
	}
}

// The same X client offers 16 MiB of Latin-1 text (STRING, every byte 0xE9). The host read
// up to 256 MB of the clipboard and copied it into every form of the result: with the
// binary before, its resident peak grew by 512 to 577 MiB. It now reads at most 8 MiB
// (desktop's clipboard maxContent): the read fails with RESOURCE_EXHAUSTED, and the host's
// peak may grow by 64 MiB at most.
func TestClipboardTextTheHostReadsIsBounded(t *testing.T) {
	// Not parallel (docs/development.md#tests): its X client offers 16 MiB within the host's wait.
	testenv.Require(t, "bwrap", "python3", "Xvfb")
	if _, grew := offered(t, "clip2", "STRING", bytes.Repeat([]byte{0xE9}, 16<<20)); grew > 64 {
		t.Errorf("the host's resident peak grew by %d MiB while it read 16 MiB of clipboard text an X client of the session offered, past 64 MiB", grew)
	}
}
