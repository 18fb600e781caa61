//go:build linux

package e2e_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands/host"
	"github.com/w365/w365/test/e2e"
	"github.com/w365/w365/test/testenv"
)

// A screenshot comes back inline and as a resource of its session: the resource_link
// gives its size, MIME type and sha256, resources/read returns the very bytes, and the
// resource is gone once its session ends.
func TestScreenshotIsASessionResource(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	cs := h.MCP()
	var st struct {
		SessionID string `json:"sessionId"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "mcp_W365ComputerUse_StartSession", map[string]any{}), &st)
	res := e2e.Call(t, cs, "take_screenshot", map[string]any{"sessionId": st.SessionID})
	if res.IsError {
		t.Fatalf("take_screenshot: %s", e2e.Text(res))
	}
	var img *mcp.ImageContent
	var link *mcp.ResourceLink
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.ImageContent:
			img = c
		case *mcp.ResourceLink:
			link = c
		}
	}
	if img == nil || link == nil {
		t.Fatalf("want an image and a resource_link, got %#v", res.Content)
	}
	sum := sha256.Sum256(img.Data)
	if link.MIMEType != img.MIMEType || link.Size == nil || *link.Size != int64(len(img.Data)) || link.Meta[host.MetaSHA256] != hex.EncodeToString(sum[:]) {
		t.Fatalf("the link does not describe the image: %+v (image %d bytes %s)", link, len(img.Data), img.MIMEType)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI})
	if err != nil || len(rr.Contents) != 1 {
		t.Fatalf("resources/read %s: %v %v", link.URI, err, rr)
	}
	if !bytes.Equal(rr.Contents[0].Blob, img.Data) || rr.Contents[0].MIMEType != img.MIMEType {
		t.Fatalf("resources/read gave %d bytes %s, the inline image is %d bytes %s", len(rr.Contents[0].Blob), rr.Contents[0].MIMEType, len(img.Data), img.MIMEType)
	}
	e2e.Must(t, cs, "mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": st.SessionID})
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI}); err == nil {
		t.Fatalf("%s is still readable after its session ended", link.URI)
	}
}

// A saved PDF is a resource of its session too: resources/read gives the bytes the file holds.
func TestSavedPDFIsASessionResource(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	pages := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(testenv.Root(), "testdata", "pages"))))
	t.Cleanup(pages.Close)
	cs := h.MCP()
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": pages.URL + "/form.html"})
	res := e2e.Call(t, cs, "browser_pdf_save", map[string]any{"filePath": "resource.pdf", "overwrite": true})
	var pdf struct {
		Path string `json:"path"`
	}
	e2e.Structured(t, res, &pdf)
	var link *mcp.ResourceLink
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			link = l
		}
	}
	file, err := os.ReadFile(pdf.Path)
	if err != nil || link == nil || link.MIMEType != "application/pdf" || link.Size == nil || *link.Size != int64(len(file)) {
		t.Fatalf("pdf %s (%v, %d bytes), link %+v", pdf.Path, err, len(file), link)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI})
	if err != nil || len(rr.Contents) != 1 || !bytes.Equal(rr.Contents[0].Blob, file) {
		t.Fatalf("resources/read %s: %v, not the file's %d bytes", link.URI, err, len(file))
	}
}

// resultLinks are the resource_links of a result.
func resultLinks(res *mcp.CallToolResult) []*mcp.ResourceLink {
	var out []*mcp.ResourceLink
	for _, c := range res.Content {
		if l, ok := c.(*mcp.ResourceLink); ok {
			out = append(out, l)
		}
	}
	return out
}

// readLinked reads link with cs and checks that it is data, as the link describes it.
func readLinked(t *testing.T, cs *mcp.ClientSession, link *mcp.ResourceLink, data []byte) {
	t.Helper()
	sum := sha256.Sum256(data)
	if link.Size == nil || *link.Size != int64(len(data)) || link.Meta[host.MetaSHA256] != hex.EncodeToString(sum[:]) {
		t.Fatalf("the link does not describe the file's %d bytes: %+v", len(data), link)
	}
	rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: link.URI})
	if err != nil || len(rr.Contents) != 1 || !bytes.Equal(rr.Contents[0].Blob, data) || rr.Contents[0].MIMEType != link.MIMEType {
		t.Fatalf("resources/read %s: %v, not the file's %d bytes", link.URI, err, len(data))
	}
}

// A download is a resource of its session, named in the result of the click that caused it
// and in browser_downloads; once the session swaps the file for a symbolic link (to a file
// the session could not read), the host serves nothing of it.
func TestDownloadIsASessionResource(t *testing.T) {
	t.Parallel()
	testenv.Require(t, "chromium")
	h := e2e.New(t)
	cs := h.MCP()
	base := agentPages(t)
	e2e.Must(t, cs, "browser_navigate", map[string]any{"url": base + "/agent_shop.html"})
	res := e2e.Call(t, cs, "browser_click", map[string]any{"selector": "#invoice"})
	var click struct {
		Downloads []struct{ State, Path string }
	}
	e2e.Structured(t, res, &click)
	links := resultLinks(res)
	if len(click.Downloads) != 1 || click.Downloads[0].State != "completed" || len(links) != 1 || links[0].MIMEType != "text/plain" {
		t.Fatalf("click on a download: %+v, links %+v\n%s", click, links, e2e.Text(res))
	}
	path := click.Downloads[0].Path
	file, err := os.ReadFile(path)
	if err != nil || string(file) != "invoice 42: 19.99 EUR" {
		t.Fatalf("downloaded %q, %v", file, err)
	}
	readLinked(t, cs, links[0], file)
	listed := resultLinks(e2e.Call(t, cs, "browser_downloads", nil))
	if len(listed) != 1 || listed[0].URI != links[0].URI {
		t.Fatalf("browser_downloads links %+v, not the click's %s", listed, links[0].URI)
	}
	readLinked(t, cs, listed[0], file)

	canary := filepath.Join(t.TempDir(), "canary")
	if err := os.WriteFile(canary, []byte("CANARY-not-for-the-session"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(canary, path); err != nil {
		t.Fatal(err)
	}
	res = e2e.Call(t, cs, "browser_downloads", nil)
	if links := resultLinks(res); len(links) != 0 {
		for _, l := range links {
			rr, _ := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: l.URI})
			t.Errorf("a download swapped for a link is a resource: %+v (%v)", l, rr)
		}
	}
}

// A stopped trace is a resource of its session: trace stop names it, and resources/read
// returns the bytes of the trace file.
func TestTraceIsASessionResource(t *testing.T) {
	t.Parallel()
	h := e2e.New(t)
	h.Env = append(h.Env, "XDG_STATE_HOME="+t.TempDir())
	h.MustRun("get-screen-size") // the background host the agent's serve --mcp relays to
	cs := h.MCP()
	var st struct {
		SessionID string `json:"sessionId"`
	}
	e2e.Structured(t, e2e.Call(t, cs, "mcp_W365ComputerUse_StartSession", map[string]any{}), &st)
	h.MustRun("--session", st.SessionID, "trace", "start")
	e2e.Must(t, cs, "get_screen_size", map[string]any{"sessionId": st.SessionID})
	var info host.TraceInfo
	h.JSON(&info, "--session", st.SessionID, "trace", "stop")
	file, err := os.ReadFile(info.Path)
	if err != nil || info.Resource == nil || info.Resource.MIMEType != "application/jsonl" || info.Records != 1 {
		t.Fatalf("trace stop: %+v (%v)", info, err)
	}
	ref := info.Resource
	readLinked(t, cs, &mcp.ResourceLink{URI: ref.URI, MIMEType: ref.MIMEType, Size: &ref.Size, Meta: mcp.Meta{host.MetaSHA256: ref.SHA256}}, file)
}
