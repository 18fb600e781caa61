//go:build linux

package e2e_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/test/e2e"
)

// taskClient is a 2026-07-28 client of `w365 serve --mcp` that speaks JSON-RPC itself, so that
// it sees results the go-sdk client has no type for (a task).
type taskClient struct {
	t    *testing.T
	next int
	caps map[string]any
	// send sends one request and returns the line of its response.
	send func(method string, body []byte) []byte
	// progress counts the progress notifications seen (stdio).
	progress int
}

func tasksCaps(withTasks bool) map[string]any {
	caps := map[string]any{}
	if withTasks {
		caps["extensions"] = map[string]any{host.TasksExtension: map[string]any{}}
	}
	return caps
}

// newHTTPTaskClient is a stateless client of `w365 serve --http` at addr: one POST a
// request, with the 2026 headers (Mcp-Name: the tool, or the task for tasks/ methods).
func newHTTPTaskClient(t *testing.T, addr string, withTasks bool) *taskClient {
	c := &taskClient{t: t, caps: tasksCaps(withTasks)}
	c.send = func(method string, body []byte) []byte {
		var p struct {
			Params struct{ Name, TaskID string }
		}
		json.Unmarshal(body, &p)
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if name := p.Params.Name + p.Params.TaskID; name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		// A JSON response, or an SSE stream whose last data line is the response.
		if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			var last []byte
			for _, line := range bytes.Split(raw, []byte("\n")) {
				if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok && len(bytes.TrimSpace(d)) > 0 {
					last = d
				}
			}
			raw = last
		}
		return raw
	}
	return c
}

func newTaskClient(t *testing.T, h *e2e.Harness, withTasks bool) *taskClient {
	cmd := exec.Command(h.Bin, "serve", "--mcp")
	cmd.Env, cmd.Stderr = h.Env, os.Stderr
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
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 16<<20)
	c := &taskClient{t: t, caps: tasksCaps(withTasks)}
	c.send = func(method string, body []byte) []byte {
		if _, err := fmt.Fprintf(in, "%s\n", body); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() {
			var resp struct {
				ID     *int
				Method string
			}
			if json.Unmarshal(sc.Bytes(), &resp) != nil {
				t.Fatalf("not JSON-RPC: %s", sc.Bytes())
			}
			if resp.Method == "notifications/progress" {
				c.progress++
			}
			if resp.ID != nil && *resp.ID == c.next {
				return sc.Bytes()
			}
		}
		t.Fatalf("%s: no response (%v)", method, sc.Err())
		return nil
	}
	return c
}

// call sends method with params (and the 2026 _meta) and returns the response's result,
// or its error.
func (c *taskClient) call(method string, params map[string]any) (json.RawMessage, *struct {
	Code    int64
	Message string
}) {
	c.t.Helper()
	c.next++
	meta, _ := params["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["io.modelcontextprotocol/protocolVersion"] = "2026-07-28"
	meta["io.modelcontextprotocol/clientCapabilities"] = c.caps
	meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "e2e-tasks", "version": "1"}
	params["_meta"] = meta
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.next, "method": method, "params": params})
	line := c.send(method, b)
	var resp struct {
		Result json.RawMessage
		Error  *struct {
			Code    int64
			Message string
		}
	}
	if err := json.Unmarshal(line, &resp); err != nil {
		c.t.Fatalf("%s: not JSON-RPC: %s", method, line)
	}
	return resp.Result, resp.Error
}

type taskState struct {
	ResultType, TaskID, Status, StatusMessage string
	PollIntervalMs                            int64
	TTLMs                                     *int64
	Result                                    *struct {
		ResultType        string
		IsError           bool
		StructuredContent struct {
			Stdout   string
			ExitCode int
		}
		Content []struct{ Type, Text string }
	}
}

func (c *taskClient) task(method string, params map[string]any) taskState {
	c.t.Helper()
	raw, rerr := c.call(method, params)
	if rerr != nil {
		c.t.Fatalf("%s: %+v", method, rerr)
	}
	var st taskState
	if err := json.Unmarshal(raw, &st); err != nil {
		c.t.Fatalf("%s: %s", method, raw)
	}
	return st
}

// A client that declares the tasks extension gets a task for a Python call: it polls it
// with tasks/get until the result is there, and cancels another, which ends
// cancelled long before the command would have. A client without the extension gets the result.
func TestLongCallsAreTasksForClientsThatDeclareThem(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	url, _ := serveHTTP(t, h, nil)
	addr := strings.TrimPrefix(url, "http://")
	t.Run("stdio", func(t *testing.T) {
		testTasks(t, func(withTasks bool) *taskClient { return newTaskClient(t, h, withTasks) })
	})
	t.Run("http", func(t *testing.T) {
		testTasks(t, func(withTasks bool) *taskClient { return newHTTPTaskClient(t, addr, withTasks) })
	})
}

func testTasks(t *testing.T, client func(withTasks bool) *taskClient) {
	c := client(true)

	python := func(code string) map[string]any {
		return map[string]any{"name": "execute_python_code", "arguments": map[string]any{"code": code}}
	}
	// It asks for progress too, which a task does not send: tasks/get names its phase.
	first := python("import time\ntime.sleep(2.5)\nprint('task-done')")
	first["_meta"] = map[string]any{"progressToken": "p1"}
	st := c.task("tools/call", first)
	if st.ResultType != "task" || st.Status != "working" || !strings.HasPrefix(st.TaskID, "t-") || st.PollIntervalMs <= 0 {
		t.Fatalf("tools/call of a long tool: %+v", st)
	}
	id := st.TaskID
	polls := 0
	for st.Status == "working" {
		polls++
		if polls > 600 {
			t.Fatalf("task %s still working after %d polls: %+v", id, polls, st)
		}
		time.Sleep(time.Duration(st.PollIntervalMs) * time.Millisecond)
		st = c.task("tasks/get", map[string]any{"taskId": id})
		if st.ResultType != "complete" || st.TaskID != id || st.Status == "working" && st.StatusMessage == "" {
			t.Fatalf("tasks/get: %+v", st)
		}
	}
	if st.Status != "completed" || st.Result == nil || st.Result.IsError || strings.TrimSpace(st.Result.StructuredContent.Stdout) != "task-done" || st.TTLMs == nil {
		t.Fatalf("finished task: %+v (result %+v)", st, st.Result)
	}
	if c.progress != 0 {
		t.Errorf("%d progress notifications for a task", c.progress)
	}

	st = c.task("tools/call", python("import time\ntime.sleep(25)"))
	if st.ResultType != "task" {
		t.Fatalf("second call: %+v", st)
	}
	started := time.Now()
	if raw, rerr := c.call("tasks/cancel", map[string]any{"taskId": st.TaskID}); rerr != nil || !strings.Contains(string(raw), `"resultType":"complete"`) {
		t.Fatalf("tasks/cancel: %s %+v", raw, rerr)
	}
	for st.Status == "working" && time.Since(started) < 20*time.Second {
		time.Sleep(100 * time.Millisecond)
		st = c.task("tasks/get", map[string]any{"taskId": st.TaskID})
	}
	if st.Status != "cancelled" || st.Result != nil {
		t.Fatalf("cancelled task: %+v", st)
	}
	if _, rerr := c.call("tasks/get", map[string]any{"taskId": "t-0000"}); rerr == nil {
		t.Fatal("tasks/get of an unknown task succeeded")
	}

	// A short tool is answered as before, task or no task.
	var plain taskState
	raw, rerr := c.call("tools/call", map[string]any{"name": "get_screen_size", "arguments": map[string]any{}})
	if json.Unmarshal(raw, &plain); rerr != nil || plain.ResultType == "task" {
		t.Fatalf("get_screen_size: %s %+v", raw, rerr)
	}

	// Without the extension: the plain result, and no tasks/ methods.
	p := client(false)
	raw, rerr = p.call("tools/call", python("print('plain')"))
	var res struct {
		ResultType        string
		StructuredContent struct{ Stdout string }
	}
	if json.Unmarshal(raw, &res); rerr != nil || res.ResultType == "task" || strings.TrimSpace(res.StructuredContent.Stdout) != "plain" {
		t.Fatalf("a client without the extension: %s %+v", raw, rerr)
	}
	if _, rerr := p.call("tasks/get", map[string]any{"taskId": id}); rerr == nil || rerr.Code != -32021 {
		t.Fatalf("tasks/get without the extension: %+v", rerr)
	}
}
