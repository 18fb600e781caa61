//go:build linux

package e2e_test

import (
	"testing"

	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// proxyFlood is browser_run_code's code that opens 48 connections to the host's DevTools
// proxy (the socket its sidecar is given, $W365_CDP_SOCKET), upgrades each to a WebSocket
// and sends 14 MiB of a 15 MiB message on each, never its end: the host reads each
// message whole before it decodes it, so it holds what every connection sent. It returns
// how many connections the host upgraded.
const proxyFlood = `const net = process.mainModule.require('net')
const chunk = Buffer.alloc(1 << 20, 0x61)
const hdr = Buffer.alloc(14)
hdr[0] = 0x81; hdr[1] = 0xff; hdr.writeBigUInt64BE(BigInt(15 << 20), 2)
let upgraded = 0
const conns = []
for (let i = 0; i < 48; i++) {
	const s = net.connect(process.env.W365_CDP_SOCKET)
	s.on('error', () => {})
	conns.push(s)
	s.write('GET /devtools/browser/w365 HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n')
	s.once('data', () => { upgraded++; s.write(hdr); for (let k = 0; k < 14; k++) s.write(chunk) })
}
await new Promise(r => setTimeout(r, 15000))
for (const s of conns) s.destroy()
return upgraded`

// The host's DevTools proxy for browser_run_code took every connection the sidecar opened,
// and each may hold a message of up to 16 MiB being read and 64 MiB queued for it: the
// code, which Node lets open sockets, had the host hold as much as it liked, in the host's
// own process outside every limit of the session. Judged by effect: the host's resident
// peak while 48 connections each send 14 MiB of an unfinished message, and the next call
// still runs.
func TestBrowserRunCodeProxyConnectionsAreBounded(t *testing.T) {
	testenv.Require(t, "chromium", "node", "bwrap")
	h := e2e.New(t)
	fakeHome(t, h)
	runCodeCache(h)
	cs := h.MCP()
	e2e.Structured(t, e2e.Call(t, cs, "browser_navigate", map[string]any{"url": "data:text/html,<title>t</title>"}), &struct{}{})
	if _, v := runCode(t, cs, `return await page.title()`, 60000); v != "t" {
		t.Fatalf("run_code before the flood: %v, want t", v)
	}
	grown := peakGrowth(t, h.HostPID())
	res, v := runCode(t, cs, proxyFlood, 60000)
	grew := grown()
	t.Logf("the host's resident peak grew by %d MiB; connections upgraded: %v (%s)", grew, v, e2e.Text(res))
	if grew > 256 {
		t.Errorf("the host's resident peak grew by %d MiB while run_code's code held 48 proxy connections with 14 MiB each, past 256 MiB", grew)
	}
	if _, v := runCode(t, cs, `return await page.title()`, 60000); v != "t" {
		t.Errorf("run_code after the flood: %v, want t", v)
	}
}
