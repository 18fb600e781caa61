package host

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/w365/w365/commands"
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

// MetaToolsets in a tools/list request's _meta names the toolsets the client wants listed
// (as --toolsets does: names, or "all"): a client starts with a small entry set and asks
// for more as it goes (docs/mcp.md#a-lean-list). It narrows the list only: every tool the
// server serves stays callable.
const MetaToolsets = "w365/toolsets"

// leanToolLists is the receiving middleware that wraps tools/list results, keeping only
// the toolsets the request's MetaToolsets names, and the MCP App links (appMeta) only for
// a client that renders apps.
func leanToolLists(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		lr, ok := res.(*mcp.ListToolsResult)
		if !ok || err != nil {
			return res, err
		}
		if want, ok := requestedToolsets(req); ok {
			cp := *lr
			cp.Tools = slices.DeleteFunc(slices.Clone(lr.Tools), func(mt *mcp.Tool) bool {
				t := commands.Lookup(mt.Name)
				return t == nil || !slices.Contains(want, "all") && !slices.Contains(want, t.Toolset)
			})
			lr = &cp
		}
		if lq, ok := req.(*mcp.ListToolsRequest); ok && !rendersApps(lq.ClientCapabilities()) {
			lr = withoutAppMeta(lr)
		}
		return leanToolList{lr}, nil
	}
}

// requestedToolsets is the MetaToolsets of a tools/list request, ok false without one.
func requestedToolsets(req mcp.Request) ([]string, bool) {
	lr, ok := req.(*mcp.ListToolsRequest)
	if !ok || lr.Params == nil {
		return nil, false
	}
	raw, ok := lr.Params.Meta[MetaToolsets].([]any)
	if !ok {
		return nil, false
	}
	var names []string
	for _, v := range raw {
		if s, ok := v.(string); ok {
			names = append(names, s)
		}
	}
	return names, true
}
