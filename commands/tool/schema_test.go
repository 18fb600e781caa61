package tool

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
)

type leanIn struct {
	Value any            `json:"value"`
	Opts  map[string]any `json:"opts,omitempty"`
	Quiet bool           `json:"quiet,omitempty" w365:"default=false"`
}

type leanItem struct {
	Name string `json:"name"`
}

type leanOut struct {
	ID      string     `json:"id"`
	Text    string     `json:"text"`
	Items   []leanItem `json:"items"`
	Extra   *leanItem  `json:"extra,omitempty"`
	Missing *int       `json:"missing"`
}

var leanTool = Define(Tool{Name: "lean_test", InText: []string{"text"}},
	func(context.Context, *Env, leanIn) (leanOut, error) { return leanOut{}, nil })

func schemaJSON(t *testing.T, v any) map[string]any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	json.Unmarshal(b, &m)
	return m
}

// Structured gives MCP clients what the output schema declares: no InText fields, no
// nulls; the CLI (full) gets the value untouched.
func TestStructuredDropsTextFieldsAndNulls(t *testing.T) {
	out := leanOut{ID: "a", Text: "a long outline", Items: nil}
	got, err := leanTool.Structured(out, false)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"id": "a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("lean: %v, want %v", got, want)
	}
	full, _ := leanTool.Structured(out, true)
	if !reflect.DeepEqual(full, out) {
		t.Errorf("full: %v", full)
	}
}

func TestSchemasAreShapedForStrictClients(t *testing.T) {
	in := schemaJSON(t, leanTool.InputSchema())
	props := in["properties"].(map[string]any)
	if v := props["value"].(map[string]any); v["anyOf"] == nil || v["type"] != nil {
		t.Errorf("any: %v, want an anyOf of single types", v)
	}
	if o := props["opts"].(map[string]any); o["type"] != "object" || o["additionalProperties"] != true {
		t.Errorf("map[string]any: %v, want a free-form object", o)
	}
	if q := props["quiet"].(map[string]any); q["default"] != nil {
		t.Errorf("boolean default false still stated: %v", q)
	}
	out := schemaJSON(t, leanTool.OutputSchema())
	oprops := out["properties"].(map[string]any)
	if _, ok := oprops["text"]; ok {
		t.Error("an InText field is in the output schema")
	}
	if _, ok := oprops["extra"]; ok {
		t.Error("an optional nested object is in the output schema")
	}
	if m := oprops["missing"].(map[string]any); m["type"] != "integer" {
		t.Errorf("nullable field: %v, want type integer", m)
	}
	if it := oprops["items"].(map[string]any); it["type"] != "array" || it["items"] != nil {
		t.Errorf("list of objects: %v, want type array alone", it)
	}
	if out["required"] != nil || out["additionalProperties"] != nil {
		t.Errorf("output schema keeps validator-only keywords: %v", out)
	}
}
