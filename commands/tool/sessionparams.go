package tool

import (
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// The descriptions of the session parameters, one short text on every tool: they are on
// most tools, and tools/list is paid for by every conversation.
const (
	SessionIDHelp        = "Session id (default: default)"
	BrowserSessionIDHelp = "From create_browser_session"
)

// addSessionParams declares the optional parameter that names a call's session: sessionId
// on every session-scoped tool, browserSessionId instead on the browser tools (TOOLS.md
// P1/P2, the same id space). A field of the tool's own input by either name wins.
func addSessionParams(t *Tool, in *jsonschema.Schema) {
	if t.Sessionless {
		return
	}
	name, help := "sessionId", SessionIDHelp
	if strings.HasPrefix(t.Name, "browser_") {
		name, help = "browserSessionId", BrowserSessionIDHelp
	}
	if in.Properties == nil {
		in.Properties = map[string]*jsonschema.Schema{}
	}
	if _, ok := in.Properties[name]; !ok {
		in.Properties[name] = &jsonschema.Schema{Type: "string", Description: help}
	}
}
