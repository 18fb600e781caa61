// Command routecheck drives w365 hosts through the chart's router: for each session name it
// starts a session over one MCP connection carrying W365-Session: NAME, then finds that
// session over a second, new connection with the same header, which only works when the
// router sent both to the same host. It also checks that names spread over the hosts, and
// that a client without the header keeps one working connection.
//
//	go run ./deploy/helm/routecheck -url http://127.0.0.1:8080/ -key-file KEY -hosts 2 alice bob ...
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
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

type headers struct{ key, session string }

func (h headers) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+h.key)
	if h.session != "" {
		r.Header.Set("W365-Session", h.session)
	}
	return http.DefaultTransport.RoundTrip(r)
}

type session struct {
	SessionID string `json:"sessionId"`
	HostPID   int    `json:"hostPid"`
}

// call makes one MCP connection as name and calls tool; the result is its structured content.
func call(ctx context.Context, url, key, name, tool string, args map[string]any) ([]byte, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "w365-routecheck", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: headers{key, name}}}, nil)
	if err != nil {
		return nil, fmt.Errorf("connect as %q: %v", name, err)
	}
	defer cs.Close()
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
	b, err := call(ctx, url, key, name, tool, args)
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
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: headers{key, ""}}}, nil)
	if err != nil {
		return fmt.Errorf("connect without W365-Session: %v", err)
	}
	defer cs.Close()
	for range 3 {
		if _, err := cs.ListTools(ctx, nil); err != nil {
			return fmt.Errorf("tools/list without W365-Session: %v", err)
		}
	}
	fmt.Printf("routecheck: ok: %d sessions each found on their host over a new connection; 16 names over %d hosts\n", len(names), len(seen))
	return nil
}
