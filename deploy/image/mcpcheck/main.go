// Command mcpcheck is the MCP client of the image test: it connects to a w365 served over
// streamable HTTP with an API key, lists the tools and takes a screenshot.
//
//	go run ./deploy/image/mcpcheck -url http://127.0.0.1:8365/ -key-file KEYFILE
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:8365/", "the MCP endpoint")
	keyFile := flag.String("key-file", "", "file holding the API key")
	wait := flag.Duration("wait", 2*time.Minute, "how long to wait for /healthz")
	sandbox := flag.Bool("sandbox", false, "also run Python in the sandbox (bubblewrap)")
	flag.Parse()
	if err := check(*url, *keyFile, *wait, *sandbox); err != nil {
		fmt.Fprintln(os.Stderr, "mcpcheck:", err)
		os.Exit(1)
	}
}

type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}

func check(url, keyFile string, wait time.Duration, sandbox bool) error {
	b, err := os.ReadFile(keyFile)
	if err != nil {
		return err
	}
	key := strings.TrimSpace(string(b))
	if err := healthy(strings.TrimSuffix(url, "/")+"/healthz", wait); err != nil {
		return err
	}
	// Without the key: refused.
	resp, err := http.Post(url, "application/json", strings.NewReader("{}"))
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		return fmt.Errorf("a call without the key got %s, not 401", resp.Status)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "w365-image-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{key}}}, nil)
	if err != nil {
		return fmt.Errorf("connect: %v", err)
	}
	defer cs.Close()
	tools := 0
	for _, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("tools/list: %v", err)
		}
		tools++
	}
	if tools < 10 {
		return fmt.Errorf("only %d tools listed", tools)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "take_screenshot", Arguments: map[string]any{"format": "png"}})
	if err != nil {
		return fmt.Errorf("take_screenshot: %v", err)
	}
	if res.IsError {
		return fmt.Errorf("take_screenshot failed: %+v", res.Content)
	}
	var shot string
	for _, c := range res.Content {
		if img, ok := c.(*mcp.ImageContent); ok && img.MIMEType == "image/png" {
			cfg, err := png.DecodeConfig(bytes.NewReader(img.Data))
			if err != nil {
				return fmt.Errorf("screenshot: %v", err)
			}
			shot = fmt.Sprintf("a %dx%d PNG screenshot", cfg.Width, cfg.Height)
		}
	}
	if shot == "" {
		return fmt.Errorf("take_screenshot returned no PNG image")
	}
	if sandbox {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "execute_python_code", Arguments: map[string]any{"code": "print(6 * 7)"}})
		if err != nil {
			return fmt.Errorf("execute_python_code: %v", err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var out struct {
			Stdout  string `json:"stdout"`
			Success bool   `json:"success"`
		}
		json.Unmarshal(b, &out)
		if res.IsError || !out.Success || strings.TrimSpace(out.Stdout) != "42" {
			return fmt.Errorf("execute_python_code in the sandbox: %s", b)
		}
		shot += ", Python in the sandbox"
	}
	fmt.Printf("mcpcheck: ok: %d tools, %s, over HTTP with the key\n", tools, shot)
	return nil
}

func healthy(url string, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not healthy after %s (last: %v)", url, wait, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
