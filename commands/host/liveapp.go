package host

import (
	"context"
	_ "embed"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands"
)

// The live view in the chat (docs/mcp.md#the-live-view-in-the-chat) is an MCP App, the
// io.modelcontextprotocol/ui extension (ext-apps, specification 2026-01-26): the
// resource ui://w365/live-view is one self-contained HTML page that a client renders in a
// sandboxed frame beside the result of a tool whose UI names it. The page takes the
// liveViewUrl of that result, plays the session's motion-JPEG stream from the host's
// HTTP server, and offers the hand-back while a hand-over is open. The page itself holds
// no session and no token: the tool result gives it both.
const (
	// AppsExtension is the extension's name in client and server capabilities.
	AppsExtension = "io.modelcontextprotocol/ui"
	// appMIME is the MIME type of an MCP App's HTML; a client declaring the extension
	// lists it among the mimeTypes it renders.
	appMIME = "text/html;profile=mcp-app"
	// metaUI is the key of a tool's app metadata (_meta.ui.resourceUri). Its older flat
	// spelling (_meta["ui/resourceUri"]) is left out: it goes only to clients that
	// declare the extension's capability, which came with the nested form.
	metaUI = "ui"
)

//go:embed liveapp.html
var liveAppHTML string

var liveAppResource = &mcp.Resource{
	URI:         commands.LiveViewApp,
	Name:        "live-view",
	Title:       "Live view",
	Description: "The session's desktop, live, with the hand-back while a person has it (an MCP App)",
	MIMEType:    appMIME,
}

// appMeta is the _meta of a tool whose result the app at uri shows. It costs about 45
// bytes of tools/list a tool, and only clients that render apps get it (rendersApps).
func appMeta(uri string) mcp.Meta {
	return mcp.Meta{metaUI: map[string]any{"resourceUri": uri}}
}

// rendersApps reports whether a client's capabilities declare the extension with the
// MIME type of our app.
func rendersApps(c *mcp.ClientCapabilities) bool {
	if c == nil {
		return false
	}
	ext, ok := c.Extensions[AppsExtension].(map[string]any)
	if !ok {
		return false
	}
	types, _ := ext["mimeTypes"].([]any)
	return slices.ContainsFunc(types, func(v any) bool { s, _ := v.(string); return s == appMIME })
}

// withoutAppMeta is lr with the tools' app metadata left out.
func withoutAppMeta(lr *mcp.ListToolsResult) *mcp.ListToolsResult {
	cp := *lr
	cp.Tools = slices.Clone(lr.Tools)
	for i, mt := range cp.Tools {
		if _, ok := mt.Meta[metaUI]; !ok {
			continue
		}
		t := *mt
		t.Meta = maps.Clone(mt.Meta)
		delete(t.Meta, metaUI)
		if len(t.Meta) == 0 {
			t.Meta = nil
		}
		cp.Tools[i] = &t
	}
	return &cp
}

// readLiveApp answers resources/read of the app. Its content security policy lets the
// page load the stream from, and ask the status of, the host's own HTTP origin and no
// other; with no HTTP server there is none to name, and the page says there is no live
// view.
func (h *Host) readLiveApp(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	ui := map[string]any{"prefersBorder": true}
	if base := h.httpBase.Load(); base != nil {
		ui["csp"] = map[string]any{"resourceDomains": []string{*base}, "connectDomains": []string{*base}}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
		URI: commands.LiveViewApp, MIMEType: appMIME, Text: liveAppHTML, Meta: mcp.Meta{metaUI: ui},
	}}}, nil
}

// liveAppCORS lets the app, whose sandboxed frame is an origin of the client's (or none),
// read a live view's status and hand a session back: both are asked with the token in
// the URL and no cookie, so the token is all the authority there is and another origin
// gains nothing by sending it.
func liveAppCORS(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/status") || strings.HasSuffix(r.URL.Path, "/handback") {
			w.Header().Set("Access-Control-Allow-Origin", "*")
		}
		next.ServeHTTP(w, r)
	})
}
