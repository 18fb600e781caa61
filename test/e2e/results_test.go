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
	if res := e2e.Call(t, cs, "mcp_W365ComputerUse_EndSession", map[string]any{"sessionId": st.SessionID}); res.IsError {
		t.Fatalf("EndSession: %s", e2e.Text(res))
	}
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: link.URI}); err == nil {
		t.Fatalf("%s is still readable after its session ended", link.URI)
	}
}

// A saved PDF is a resource of its session too: resources/read gives the bytes the file holds.
func TestSavedPDFIsASessionResource(t *testing.T) {
	h := e2e.New(t)
	pages := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(testenv.Root(), "testdata", "pages"))))
	t.Cleanup(pages.Close)
	cs := h.MCP()
	if res := e2e.Call(t, cs, "browser_navigate", map[string]any{"url": pages.URL + "/form.html"}); res.IsError {
		t.Fatalf("navigate: %s", e2e.Text(res))
	}
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
