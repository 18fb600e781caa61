package tool

import (
	"context"
	"strings"
	"testing"

	"github.com/w365/w365/engine/werr"
)

type prepIn struct {
	Selector  string     `json:"selector,omitempty"`
	Target    string     `json:"target,omitempty"`
	Handle    uint32     `json:"handle,omitempty"`
	Count     int        `json:"count,omitempty" w365:"min=1,max=2,default=1"`
	TimeoutMs int        `json:"timeoutMs,omitempty" w365:"min=1,max=30000"`
	Name      string     `json:"name,omitempty" w365:"minLength=1,maxLength=4"`
	Keys      []string   `json:"keys,omitempty" w365:"maxItems=2"`
	Text      string     `json:"text,omitempty"`
	Role      string     `json:"role,omitempty"`
	Pid       int32      `json:"pid,omitempty"`
	X         int        `json:"x,omitempty"`
	Files     []prepFile `json:"files,omitempty"`
}

type prepFile struct {
	Name string `json:"name"`
	Size int    `json:"size,omitempty"`
	Any  any    `json:"any,omitempty"`
}

var prepTool = Define(Tool{
	Name:      "prep_test",
	Instead:   map[string][]string{"selector": {"target"}},
	AnyOf:     [][]string{{"text", "role"}},
	Spellings: map[string]string{"timeoutMS": "timeoutMs"},
}, func(context.Context, *Env, prepIn) (struct{}, error) { return struct{}{}, nil })

// Prepare speaks for the schema in the tool's words: required marks (with the other
// contract's name accepted instead), at-least-one groups, older spellings, null as "not
// given", and range, length and type errors that name the parameter and its limit.
func TestPrepareInTheToolsWords(t *testing.T) {
	if got := prepTool.InputSchema().Required; len(got) != 1 || got[0] != "selector" {
		t.Errorf("required %v, want [selector]", got)
	}
	if _, listed := prepTool.InputSchema().Properties["timeoutMS"]; listed {
		t.Error("an older spelling is listed in the schema")
	}
	ok := []map[string]any{
		{"selector": "#a", "text": "x"},
		{"target": "e5", "role": "button"},
		{"selector": "#a", "text": "x", "handle": nil, "count": nil},
		{"selector": "#a", "text": "x", "timeoutMS": 5},
	}
	for _, args := range ok {
		in, err := prepTool.Prepare(args)
		if err != nil {
			t.Errorf("%v: %v", args, err)
			continue
		}
		if p := in.(prepIn); p.Count != 1 || (args["timeoutMS"] != nil && p.TimeoutMs != 5) {
			t.Errorf("%v: prepared %+v", args, p)
		}
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"text": "x"}, `missing required parameter "selector" (or give target instead)`},
		{map[string]any{"selector": "#a"}, "give text or role"},
		{map[string]any{"selector": "#a", "text": "x", "count": 3}, "count must be at most 2, not 3"},
		{map[string]any{"selector": "#a", "text": "x", "count": 0}, "count must be at least 1, not 0"},
		{map[string]any{"selector": "#a", "text": "x", "count": 1.5}, "count must be a whole number, not 1.5"},
		{map[string]any{"selector": "#a", "text": "x", "handle": "main"}, `handle must be a number, not the string "main"`},
		{map[string]any{"selector": "#a", "text": "x", "name": ""}, "name must not be empty"},
		{map[string]any{"selector": "#a", "text": "x", "name": "abcdef"}, "name must be at most 4 characters long, not 6"},
		{map[string]any{"selector": "#a", "text": "x", "keys": []any{"a", "b", "c"}}, "keys must have at most 2 items, not 3"},
		{map[string]any{"selector": "#a", "text": "x", "keys": []any{"a", 1}}, "keys[1] must be a string, not the number 1"},
		{map[string]any{"selector": "#a", "text": "x", "timeoutMS": 5, "timeoutMs": 6}, "give timeoutMs or its older spelling timeoutMS, not both"},
		// Objects inside a parameter, in the same words.
		{map[string]any{"selector": "#a", "text": "x", "files": []any{map[string]any{"name": nil}}}, "files[0].name must be a string, not null"},
		{map[string]any{"selector": "#a", "text": "x", "files": []any{map[string]any{"size": 1}}}, "files[0].name is required"},
		{map[string]any{"selector": "#a", "text": "x", "files": []any{map[string]any{"name": "a", "size": 0.5}}}, "files[0].size must be a whole number, not 0.5"},
		{map[string]any{"selector": "#a", "text": "x", "files": []any{map[string]any{"name": "a", "any": nil}}}, "files[0].any must be a string, a number, true or false, an object or a list, not null"},
		// Numbers no bound of the schema refuses, past what the field holds.
		{map[string]any{"selector": "#a", "text": "x", "x": 1e308}, "x must be a whole number from -9223372036854775808 to 9223372036854775807, not 1e+308"},
		{map[string]any{"selector": "#a", "text": "x", "x": -1e19}, "x must be a whole number from -9223372036854775808 to 9223372036854775807, not -10000000000000000000"},
		{map[string]any{"selector": "#a", "text": "x", "pid": 1e308}, "pid must be at most 2147483647, not 1e+308"},
	} {
		_, err := prepTool.Prepare(c.args)
		if e := werr.As(err); e == nil || e.Code != werr.InvalidArgument || e.Message != c.want {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
		if err != nil && (strings.Contains(err.Error(), "reflect") || strings.Contains(err.Error(), "/1")) {
			t.Errorf("%v: message leaks the validator: %v", c.args, err)
		}
	}
}

// A one-shot CLI call validates its arguments and never reads the output schema: Prepare
// builds the input schema alone.
func TestPrepareBuildsNoOutputSchema(t *testing.T) {
	tl := Define(Tool{Name: "lazy_out_test"}, func(context.Context, *Env, prepIn) (leanOut, error) { return leanOut{}, nil })
	if _, err := tl.Prepare(map[string]any{"selector": "#a", "text": "x"}); err != nil {
		t.Fatal(err)
	}
	if tl.outSchema != nil {
		t.Error("Prepare built the output schema")
	}
	if tl.OutputSchema() == nil || tl.OutputSchema().Properties["id"] == nil {
		t.Errorf("output schema %+v", tl.OutputSchema())
	}
}
