package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchWire prints what MCP costs on the wire: tools/list with every toolset on, over
// stdio and HTTP, in both protocol eras (budget: 45,000 bytes each), and a screenshot
// call's result with its resource_link and without it.
func benchWire(env []string) {
	fmt.Printf("\n%-44s %12s %12s\n", "MCP wire bytes (every toolset on)", "2025-11-25", "2026-07-28")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println("  no port:", err)
		return
	}
	addr := l.Addr().String()
	l.Close()
	srv := exec.Command(*bin, "serve", "--http", addr, "--toolsets", "all")
	srv.Env = env
	if err := srv.Start(); err != nil {
		fmt.Println("  serve --http:", err)
		return
	}
	defer func() { srv.Process.Signal(os.Interrupt); srv.Wait() }()
	for i := 0; i < 200; i++ {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	transports := map[string]func() mcp.Transport{
		"stdio": func() mcp.Transport {
			cmd := exec.Command(*bin, "serve", "--mcp", "--toolsets", "all")
			cmd.Env = env
			return &mcp.CommandTransport{Command: cmd}
		},
		"HTTP": func() mcp.Transport {
			return &mcp.StreamableClientTransport{Endpoint: "http://" + addr + "/", HTTPClient: http.DefaultClient}
		},
	}
	var shot *wireMeter
	var shotSession *mcp.ClientSession
	for _, name := range []string{"stdio", "HTTP"} {
		var cells []string
		for _, era := range []string{"2025-11-25", "2026-07-28"} {
			wire := &wireMeter{Transport: transports[name]()}
			c := mcp.NewClient(&mcp.Implementation{Name: "bench-wire", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), wire, &mcp.ClientSessionOptions{ProtocolVersion: era})
			if err != nil {
				cells = append(cells, "error: "+err.Error())
				continue
			}
			size := 0
			for p := (&mcp.ListToolsParams{}); ; {
				res, err := cs.ListTools(context.Background(), p)
				if err != nil {
					size = -1
					break
				}
				size += int(wire.last.Load())
				if res.NextCursor == "" {
					break
				}
				p = &mcp.ListToolsParams{Cursor: res.NextCursor}
			}
			cells = append(cells, fmt.Sprint(size))
			if name == "stdio" && era == "2026-07-28" {
				shot, shotSession = wire, cs
				continue
			}
			cs.Close()
		}
		fmt.Printf("%-44s %12s %12s   (budget 45000)\n", "  tools/list over "+name, cells[0], cells[1])
	}
	if shotSession == nil {
		return
	}
	defer shotSession.Close()
	res, err := shotSession.CallTool(context.Background(), &mcp.CallToolParams{Name: "take_screenshot", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		fmt.Println("  take_screenshot:", err)
		return
	}
	with := int(shot.last.Load())
	link := 0
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			b, _ := json.Marshal(l)
			link += len(b) + 1 // and its comma
		}
	}
	fmt.Printf("%-44s %12d   (the inline image and text; the link adds %d bytes)\n", "  take_screenshot result, with its link", with, link)
	fmt.Printf("%-44s %12d\n", "  take_screenshot result, without the link", with-link)
}
