package commands

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// knownFormats are the JSON Schema formats that validators and model providers know.
var knownFormats = []string{"date-time", "date", "time", "duration", "email", "hostname", "ipv4", "ipv6", "uri", "uri-reference", "uuid"}

// TestEverySchemaIsStrictlyPortable walks every input and output schema as tools/list
// sends it and fails on the shapes strict clients reject or degrade: a bare true/false
// where a schema belongs, a type array, a schema with no type, an input object that does
// not say whether it takes other properties, an unknown format. The testdata/mcpclients
// test checks the same with MCP Inspector --strict and ajv's strict mode.
func TestEverySchemaIsStrictlyPortable(t *testing.T) {
	for _, tl := range All() {
		for kind, s := range map[string]any{"inputSchema": tl.InputSchema(), "outputSchema": tl.OutputSchema()} {
			b, err := json.Marshal(s)
			if err != nil {
				t.Fatal(err)
			}
			var v any
			json.Unmarshal(b, &v)
			if string(b) == "null" {
				continue
			}
			for _, p := range schemaProblems(v, kind, kind == "inputSchema") {
				t.Errorf("%s %s", tl.Name, p)
			}
		}
	}
}

// The problems the walker reports, on hand-written shapes: the walker itself can fail.
func TestSchemaProblemsFindsEachBadShape(t *testing.T) {
	for _, c := range []struct {
		schema string
		want   string
	}{
		{`{"type":"object","properties":{"a":true},"additionalProperties":false}`, "bare true"},
		{`{"type":"object","properties":{"a":{"type":["null","array"]}},"additionalProperties":false}`, "type array"},
		{`{"type":"object","properties":{"a":{"description":"x"}},"additionalProperties":false}`, "no type"},
		{`{"type":"object","properties":{"a":{"type":"object"}}}`, "additionalProperties"},
		{`{"type":"object","properties":{"a":{"type":"string","format":"color"}},"additionalProperties":false}`, "format"},
		{`{"type":"object","properties":{"a":{"type":"array","items":false}},"additionalProperties":false}`, "bare false"},
	} {
		var v any
		json.Unmarshal([]byte(c.schema), &v)
		ps := schemaProblems(v, "s", true)
		if len(ps) != 1 || !strings.Contains(ps[0], c.want) {
			t.Errorf("%s: got %q, want one problem about %s", c.schema, ps, c.want)
		}
	}
	var ok any
	json.Unmarshal([]byte(`{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"boolean"}]},"m":{"type":"object","additionalProperties":true}},"additionalProperties":false}`), &ok)
	if ps := schemaProblems(ok, "s", true); len(ps) != 0 {
		t.Errorf("a portable schema reported: %q", ps)
	}
}

// schemaProblems lists what is wrong with the schema v at path. input asks for
// additionalProperties on every object with properties.
func schemaProblems(v any, path string, input bool) []string {
	m, ok := v.(map[string]any)
	if !ok {
		return []string{fmt.Sprintf("%s: bare %v where a schema belongs", path, v)}
	}
	var out []string
	switch ty := m["type"].(type) {
	case string:
	case nil:
		if _, ok := m["anyOf"]; !ok {
			out = append(out, path+": no type")
		}
	default:
		out = append(out, fmt.Sprintf("%s: type array %v", path, ty))
	}
	if f, ok := m["format"].(string); ok && !slices.Contains(knownFormats, f) {
		out = append(out, fmt.Sprintf("%s: unknown format %q", path, f))
	}
	if m["type"] == "object" && input && m["properties"] != nil {
		if _, ok := m["additionalProperties"]; !ok {
			out = append(out, path+": object without additionalProperties")
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for name, p := range props {
			out = append(out, schemaProblems(p, path+".properties."+name, input)...)
		}
	}
	if items, ok := m["items"]; ok {
		out = append(out, schemaProblems(items, path+".items", input)...)
	}
	if ap, ok := m["additionalProperties"]; ok {
		if _, isBool := ap.(bool); !isBool {
			out = append(out, schemaProblems(ap, path+".additionalProperties", input)...)
		}
	}
	if branches, ok := m["anyOf"].([]any); ok {
		for i, b := range branches {
			out = append(out, schemaProblems(b, fmt.Sprintf("%s.anyOf[%d]", path, i), input)...)
		}
	}
	return out
}
