// Command routecheck drives w365 hosts through the chart's router: for each session name it
// starts a session over one MCP connection carrying W365-Session: NAME, then finds that
// session over a second, new connection with the same header, which only works when the
// router sent both to the same host. It also checks that names spread over the hosts, that
// a client without the header keeps one working connection, and that stateless
// (2026-07-28) requests for sessions on different hosts each reach their session's host by
// the session id alone (sent as Mcp-Param-Session), and a task of each by the task id
// alone (sent as Mcp-Name).
//
//	go run ./deploy/helm/routecheck -url http://127.0.0.1:8080/ -key-file KEY -hosts 2 alice bob ...
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	url := flag.String("url", "", "the router's MCP endpoint")
	keyFile := flag.String("key-file", "", "file holding the API key")
	hosts := flag.Int("hosts", 2, "how many hosts the names must reach")
	flag.Parse()
	if err := check(*url, *keyFile, *hosts, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "routecheck:", err)
		os.Exit(1)
	}
}

type headers struct {
	key, session string
	// param collects the Mcp-Param-Session headers the client sent.
	param *[]string
}

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+h.key)
	if h.session != "" {
		r.Header.Set("W365-Session", h.session)
	}
	if v := r.Header.Get("Mcp-Param-Session"); v != "" && h.param != nil {
		*h.param = append(*h.param, v)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// Protocol eras: the 2025 one (initialize, Mcp-Session-Id) and the stateless 2026 one.
const (
	legacy    = "2025-11-25"
	stateless = "2026-07-28"
)

type session struct {
	SessionID string `json:"sessionId"`
	HostPID   int    `json:"hostPid"`
}

// call makes one MCP connection as name and calls tool; the result is its structured content.
func call(ctx context.Context, url, key, name, tool string, args map[string]any) ([]byte, error) {
	return callIn(ctx, legacy, url, headers{key: key, session: name}, tool, args)
}

// callIn is call by a client of era, with the headers h.
func callIn(ctx context.Context, era, url string, h headers, tool string, args map[string]any) ([]byte, error) {
	name := h.session
	client := mcp.NewClient(&mcp.Implementation{Name: "w365-routecheck", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: h}},
		&mcp.ClientSessionOptions{ProtocolVersion: era})
	if err != nil {
		return nil, fmt.Errorf("connect as %q: %v", name, err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ProtocolVersion; got != era {
		return nil, fmt.Errorf("asked for %s, negotiated %s", era, got)
	}
	if era == stateless {
		// tools/list tells the client which arguments travel as headers (x-mcp-header).
		if _, err := cs.ListTools(ctx, nil); err != nil {
			return nil, fmt.Errorf("tools/list as %q: %v", name, err)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return nil, fmt.Errorf("%s as %q: %v", tool, name, err)
	}
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError {
		return nil, fmt.Errorf("%s as %q: %s", tool, name, b)
	}
	return b, nil
}

func sessionCall(ctx context.Context, url, key, name, tool string, args map[string]any) (session, error) {
	return sessionCallIn(ctx, legacy, url, headers{key: key, session: name}, tool, args)
}

func sessionCallIn(ctx context.Context, era, url string, h headers, tool string, args map[string]any) (session, error) {
	name := h.session
	b, err := callIn(ctx, era, url, h, tool, args)
	if err != nil {
		return session{}, err
	}
	var s session
	if err := json.Unmarshal(b, &s); err != nil || s.SessionID == "" || s.HostPID == 0 {
		return session{}, fmt.Errorf("%s as %q: unexpected result %s", tool, name, b)
	}
	return s, nil
}

func check(url, keyFile string, hosts int, names []string) error {
	b, err := os.ReadFile(keyFile)
	if err != nil {
		return err
	}
	key := strings.TrimSpace(string(b))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var started []session
	for _, name := range names {
		st, err := sessionCall(ctx, url, key, name, "mcp_W365ComputerUse_StartSession", map[string]any{})
		if err != nil {
			return err
		}
		found, err := sessionCall(ctx, url, key, name, "mcp_W365ComputerUse_GetSessionDetails", map[string]any{"sessionId": st.SessionID})
		if err != nil {
			return fmt.Errorf("the second connection did not reach the host holding %s: %v", st.SessionID, err)
		}
		if found.HostPID != st.HostPID {
			return fmt.Errorf("%q: session started on host %d, found on host %d", name, st.HostPID, found.HostPID)
		}
		started = append(started, st)
	}
	// Where 16 more names land, told apart by the sessions each host lists: with
	// consistent hashing, all on one of two hosts has odds of 2^-15.
	seen := map[string]int{}
	for i := range 16 {
		b, err := call(ctx, url, key, fmt.Sprintf("spread-%d", i), "list_sessions", map[string]any{})
		if err != nil {
			return err
		}
		var list struct{ Sessions []session }
		if err := json.Unmarshal(b, &list); err != nil {
			return fmt.Errorf("list_sessions: %v", err)
		}
		var ids []string
		for _, s := range list.Sessions {
			ids = append(ids, s.SessionID)
		}
		seen[strings.Join(ids, ",")]++
	}
	if len(seen) < hosts {
		return fmt.Errorf("16 names reached %d host(s), not %d: %v", len(seen), hosts, seen)
	}
	for i, st := range started {
		if _, err := call(ctx, url, key, names[i], "mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": st.SessionID}); err != nil {
			return err
		}
	}
	// No header: the router hashes the client's address, so initialize and every later
	// request of the connection reach the same host.
	client := mcp.NewClient(&mcp.Implementation{Name: "w365-routecheck", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: headers{key: key}}}, nil)
	if err != nil {
		return fmt.Errorf("connect without W365-Session: %v", err)
	}
	defer cs.Close()
	for range 3 {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			return fmt.Errorf("tools/list without W365-Session: %v", err)
		}
	}
	if err := checkStateless(ctx, url, key, hosts); err != nil {
		return err
	}
	fmt.Printf("routecheck: ok: %d sessions each found on their host over a new connection; 16 names over %d hosts; "+
		"stateless requests of %d sessions on %d hosts each reached their host by Mcp-Param-Session, and their tasks by Mcp-Name\n", len(names), len(seen), hosts, hosts)
	return nil
}

// checkStateless starts 2026-era sessions until they live on hosts different hosts (each
// start is hashed by a W365-Session name), then, from new clients sending nothing but the
// session id (the tool argument, which the client also sends as Mcp-Param-Session),
// reaches each on its host.
func checkStateless(ctx context.Context, url, key string, hosts int) error {
	byHost := map[int]session{}
	for i := 0; len(byHost) < hosts && i < 32; i++ {
		st, err := sessionCallIn(ctx, stateless, url, headers{key: key, session: fmt.Sprintf("stateless-%d", i)}, "mcp_W365ComputerUse_StartSession", map[string]any{})
		if err != nil {
			return err
		}
		if _, dup := byHost[st.HostPID]; dup {
			if _, err := callIn(ctx, stateless, url, headers{key: key}, "mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": st.SessionID}); err != nil {
				return err
			}
			continue
		}
		byHost[st.HostPID] = st
	}
	if len(byHost) < hosts {
		return fmt.Errorf("32 stateless sessions started on %d host(s), not %d", len(byHost), hosts)
	}
	for pid, st := range byHost {
		var sent []string
		found, err := sessionCallIn(ctx, stateless, url, headers{key: key, param: &sent}, "mcp_W365ComputerUse_GetSessionDetails", map[string]any{"sessionId": st.SessionID})
		if err != nil {
			return fmt.Errorf("a stateless request for %s (host %d) did not reach it: %v", st.SessionID, pid, err)
		}
		if found.HostPID != pid {
			return fmt.Errorf("%s: started on host %d, found on host %d", st.SessionID, pid, found.HostPID)
		}
		if !slices.Contains(sent, st.SessionID) {
			return fmt.Errorf("the 2026 client did not send %s as Mcp-Param-Session (sent %v)", st.SessionID, sent)
		}
		if err := checkTask(ctx, url, key, st); err != nil {
			return err
		}
		if _, err := callIn(ctx, stateless, url, headers{key: key}, "mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": st.SessionID}); err != nil {
			return err
		}
	}
	return nil
}

// checkTask starts a task (MCP's tasks extension) in st's session, then polls it with
// tasks/get requests that name nothing but the task (Mcp-Name): each must reach the host
// that made it, the one a host that does not know the task would answer "no task".
func checkTask(ctx context.Context, url, key string, st session) error {
	args := map[string]any{"sessionId": st.SessionID, "code": "import time\ntime.sleep(0.3)\nprint('routed')"}
	var task struct{ ResultType, TaskID, Status string }
	if err := rawCall(ctx, url, key, "tools/call", "execute_python_code", st.SessionID,
		map[string]any{"name": "execute_python_code", "arguments": args}, &task); err != nil {
		return err
	}
	route, _, _ := strings.Cut(st.SessionID, ".")
	if task.ResultType != "task" || !strings.HasPrefix(task.TaskID, route+".t-") {
		return fmt.Errorf("a long call in %s: not a task of its host: %+v", st.SessionID, task)
	}
	for i := 0; task.Status == "working"; i++ {
		if i == 100 {
			return fmt.Errorf("task %s still working", task.TaskID)
		}
		time.Sleep(100 * time.Millisecond)
		if err := rawCall(ctx, url, key, "tasks/get", task.TaskID, "", map[string]any{"taskId": task.TaskID}, &task); err != nil {
			return fmt.Errorf("tasks/get %s did not reach its host: %v", task.TaskID, err)
		}
	}
	if task.Status != "completed" {
		return fmt.Errorf("task %s: %s", task.TaskID, task.Status)
	}
	return nil
}

// rawCall is one stateless 2026 request declaring the tasks extension, with the headers
// a client sends (Mcp-Method, Mcp-Name, Mcp-Param-Session when session is set); the
// result is decoded into v.
func rawCall(ctx context.Context, url, key, method, name, session string, params map[string]any, v any) error {
	params["_meta"] = map[string]any{
		"io.modelcontextprotocol/protocolVersion":    stateless,
		"io.modelcontextprotocol/clientCapabilities": map[string]any{"extensions": map[string]any{"io.modelcontextprotocol/tasks": map[string]any{}}},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "w365-routecheck", "version": "1"},
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", stateless)
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	if session != "" {
		req.Header.Set("Mcp-Param-Session", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range bytes.Split(raw, []byte("\n")) {
			if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok && len(bytes.TrimSpace(d)) > 0 {
				raw = d
			}
		}
	}
	var out struct {
		Result json.RawMessage
		Error  *struct{ Message string }
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return fmt.Errorf("%s: %d %s", method, resp.StatusCode, raw)
	}
	if out.Error != nil {
		return fmt.Errorf("%s: %s", method, out.Error.Message)
	}
	return json.Unmarshal(out.Result, v)
}
