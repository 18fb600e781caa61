//go:build linux

package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/test/e2e"
)

// rawMCP is `w365 serve --mcp` driven line by line, as a broken or hostile client would.
type rawMCP struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
}

func startRawMCP(t *testing.T, h *e2e.Harness, serveArgs ...string) *rawMCP {
	t.Helper()
	cmd := exec.Command(h.Bin, append([]string{"serve", "--mcp"}, serveArgs...)...)
	cmd.Env = h.Env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &rawMCP{t: t, cmd: cmd, in: in, lines: make(chan string, 64)}
	t.Cleanup(func() { in.Close(); cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 4<<20), 4<<20)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if resp := r.reply(); resp["result"] == nil {
		t.Fatalf("initialize: %v", resp)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

func (r *rawMCP) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatalf("write: %v (the server is gone)", err)
	}
}

// reply is the next message the server writes.
func (r *rawMCP) reply() map[string]any {
	r.t.Helper()
	select {
	case l, ok := <-r.lines:
		if !ok {
			r.t.Fatalf("the server closed its output (exit: %v)", r.cmd.Wait())
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			r.t.Fatalf("server wrote a line that is not JSON: %q", l)
		}
		return m
	case <-time.After(2 * time.Minute):
		r.t.Fatal("no reply")
	}
	return nil
}

// malformed are lines no client should send, with the JSON-RPC error code and id each must get.
var malformed = []struct {
	line string
	code float64
	id   any
}{
	{`not json`, -32700, nil},
	{"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"x\":\"\xff\xfe\"}", -32700, 7.0},
	{`{"jsonrpc":"2.0","id":8,"method":5}`, -32600, 8.0},
	{`[{"jsonrpc":"2.0","id":9,"method":"tools/list"}]`, -32600, nil},
	{`"a string"`, -32600, nil},
	{`{}`, -32600, nil},
	{`{"jsonrpc":"1.0","id":"x","method":"tools/list"}`, -32600, "x"},
	{`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":5}`, -32602, 10.0},
	{`{"a":"` + strings.Repeat("x", 17<<20) + `"}`, -32600, nil},
}

// checkSurvivesMalformed sends every malformed line, checks each answer, then makes a real call.
func checkSurvivesMalformed(t *testing.T, r *rawMCP) {
	t.Helper()
	for _, m := range malformed {
		r.send(m.line)
		resp := r.reply()
		e, _ := resp["error"].(map[string]any)
		if e == nil || e["code"] != m.code || resp["id"] != m.id {
			t.Errorf("%.60q: got %v; want error %v with id %v", m.line, resp, m.code, m.id)
		}
	}
	// A response to nothing the server asked is ignored, not fatal.
	r.send(`{"jsonrpc":"2.0","id":99,"result":{}}`)
	r.send(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"get_screen_size","arguments":{}}}`)
	resp := r.reply()
	res, _ := resp["result"].(map[string]any)
	if resp["id"] != 11.0 || res == nil || res["isError"] == true {
		t.Fatalf("after malformed input, get_screen_size: %v", resp)
	}
}

func TestMalformedMessagesGetJSONRPCErrorsAndTheHostKeepsServing(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	// A serve --mcp asking for another screen than the running host's serves its client
	// itself (the stdio transport); one that joins relays its stdio to the host socket, so
	// the same lines test the socket transport.
	h.MustRun("get-screen-size")
	pid := h.HostPID()
	if pid == 0 {
		t.Fatal("the CLI started no host")
	}
	stdio := startRawMCP(t, h, "--screen", "1280x720x24")
	checkSurvivesMalformed(t, stdio)
	stdio.send(`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"get_screen_size","arguments":{}}}`)
	if resp := stdio.reply(); !strings.Contains(fmt.Sprint(resp["result"]), "width:1280") {
		t.Fatalf("the stdio server is not a host of its own: get_screen_size %v", resp)
	}
	relay := startRawMCP(t, h)
	checkSurvivesMalformed(t, relay)
	// The socket's own hello: garbage, a wrong shape, an endless line, nothing at all.
	for _, hello := range []string{"garbage\n", `{"w365":"x"}` + "\n", strings.Repeat("x", 1<<20), ""} {
		c, err := net.Dial("unix", filepath.Join(h.RuntimeDir, "host.sock"))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, hello)
		if hello == "" {
			c.(*net.UnixConn).CloseWrite()
		}
		c.SetReadDeadline(time.Now().Add(time.Minute))
		reply, _ := io.ReadAll(c)
		c.Close()
		if len(reply) > 0 && !strings.Contains(string(reply), `"ok":false`) {
			t.Errorf("hello %.20q: reply %s", hello, reply)
		}
	}
	if h.HostPID() != pid || syscall.Kill(pid, 0) != nil {
		t.Fatal("the host did not survive")
	}
	// The stdio client is still served after the other connection's garbage.
	stdio.send(`{"jsonrpc":"2.0","id":12,"method":"tools/list"}`)
	if resp := stdio.reply(); resp["id"] != 12.0 || resp["result"] == nil {
		t.Fatalf("tools/list: %v", resp)
	}
}

func TestMalformedHTTPRequestsLeaveTheServerServing(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(h.Bin, "serve", "--http", addr)
	cmd.Env = h.Env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Signal(syscall.SIGTERM); cmd.Wait() })
	url := "http://" + addr + "/"
	post := func(body string) int {
		req, _ := http.NewRequest("POST", url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return -1
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := 0; i < 200 && post("{}") == -1; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	for _, body := range []string{"not json", "\xff\xfe", `{"jsonrpc":"2.0","id":1,"method":5}`, `[1,2]`, strings.Repeat("[", 1<<20)} {
		if code := post(body); code < 400 || code >= 500 {
			t.Errorf("%.20q: status %d, want a 4xx", body, code)
		}
	}
	if cmd.ProcessState != nil || syscall.Kill(cmd.Process.Pid, 0) != nil {
		t.Fatal("the HTTP server exited")
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "http-e2e", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connect after malformed requests: %v", err)
	}
	defer cs.Close()
	var size struct{ Width, Height int }
	e2e.Structured(t, e2e.Call(t, cs, "get_screen_size", nil), &size)
	if size.Width != 1920 {
		t.Fatalf("%+v", size)
	}
}
