package tool

import (
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// addSessionParams declares the optional parameter that names a call's session: sessionId
// on every session-scoped tool, browserSessionId instead on the browser tools (one id
// space for both). A field of the tool's own input by either name wins. The parameters
// have no description: their names say where the ids come from, the server's
// instructions say it once, and tools/list is paid for by every conversation.
func addSessionParams(t *Tool, in *jsonschema.Schema) {
	if t.Sessionless {
		return
	}
	name := "sessionId"
	if strings.HasPrefix(t.Name, "browser_") {
		name = "browserSessionId"
	}
	if in.Properties == nil {
		in.Properties = map[string]*jsonschema.Schema{}
	}
	if _, ok := in.Properties[name]; !ok {
		in.Properties[name] = &jsonschema.Schema{Type: "string"}
	}
}
