package host

import (
	"context"
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// leanToolList sends tools/list without the hints that state MCP's defaults and without
// what leanTool leaves out. The go-sdk
// (1.7 on) writes readOnlyHint and idempotentHint even when false, their default, which
// costs about 2.4 KB over our tool list; its switch back (MCPGODEBUG=hintomitempty=1) is
// read from the environment once at program start, too early for us to set it. The
// wrapper keeps every method of the result, so the SDK treats it as the result it is.
type leanToolList struct{ *mcp.ListToolsResult }

// leanHints is mcp.ToolAnnotations with false bools omitted (the same fields, so one
// converts to the other).
type leanHints struct {
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  bool   `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
	ReadOnlyHint    bool   `json:"readOnlyHint,omitempty"`
	Title           string `json:"title,omitempty"`
}

// leanTool is a tool as tools/list sends it (the outer fields win over the embedded
// tool's): annotations as leanHints; no title, which only restated the name (Title is
// the name in words; clients show the name without one); and an input schema without
// additionalProperties: false, which every tool's schema said and which the server
// enforces itself (an unknown parameter is INVALID_ARGUMENT naming the known ones).
// Over HTTP, with x-mcp-header on the session parameter and browserSessionId required,
// these are what keep the list within its budget (TestToolsListFitsItsBudget).
type leanTool struct {
	*mcp.Tool
	Title       string     `json:"title,omitempty"`
	InputSchema any        `json:"inputSchema"`
	Annotations *leanHints `json:"annotations,omitempty"`
}

// leanInput is s without additionalProperties at its top.
func leanInput(s any) any {
	in, ok := s.(*jsonschema.Schema)
	if !ok || in.AdditionalProperties == nil {
		return s
	}
	cp := *in
	cp.AdditionalProperties = nil
	return &cp
}

func (l leanToolList) MarshalJSON() ([]byte, error) {
	type plain mcp.ListToolsResult // its fields, without this method
	tools := make([]leanTool, len(l.Tools))
	for i, t := range l.Tools {
		tools[i].Tool = t
		tools[i].InputSchema = leanInput(t.InputSchema)
		if t.Annotations != nil {
			h := leanHints(*t.Annotations)
			tools[i].Annotations = &h
		}
	}
	return json.Marshal(struct {
		*plain
		Tools []leanTool `json:"tools"`
	}{(*plain)(l.ListToolsResult), tools})
}

// leanToolLists is the receiving middleware that wraps tools/list results.
func leanToolLists(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil {
			return leanToolList{lr}, nil
		}
		return res, err
	}
}
