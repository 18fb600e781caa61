package host

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/w365/w365/commands"
)

// The lean tools/list reads back as the very list the SDK would have sent, without a
// false readOnlyHint or idempotentHint, a title or additionalProperties, and keeps the
// result's other fields.
func TestLeanToolListReadsBackAsTheList(t *testing.T) {
	var tools []*mcp.Tool
	for _, tl := range commands.All() {
		tools = append(tools, MCPTool(tl, tl.Name))
	}
	orig := &mcp.ListToolsResult{Tools: tools, NextCursor: "c1", Meta: mcp.Meta{"k": "v"}}
	orig.TTLMs = 5
	lean, err := json.Marshal(leanToolList{orig})
	if err != nil {
		t.Fatal(err)
	}
	full, _ := json.Marshal(orig)
	if s := string(lean); strings.Contains(s, `"readOnlyHint":false`) || strings.Contains(s, `"idempotentHint":false`) {
		t.Fatalf("false default hints on the wire")
	}
	if !strings.Contains(string(lean), `"readOnlyHint":true`) || !strings.Contains(string(lean), `"idempotentHint":true`) {
		t.Fatalf("true hints lost")
	}
	var back, want mcp.ListToolsResult
	if err := json.Unmarshal(lean, &back); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(full, &want)
	for _, w := range want.Tools {
		w.Title = ""
		delete(w.InputSchema.(map[string]any), "additionalProperties")
	}
	if !reflect.DeepEqual(back, want) {
		t.Fatalf("the lean list reads back differently:\n%s\nwant\n%s", lean[:300], full[:300])
	}
	t.Logf("%d bytes instead of %d", len(lean), len(full))
}
