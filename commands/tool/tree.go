package tool

import (
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// recursiveSchemas gives recursive output types (trees) the schema that inference
// cannot compute; RegisterTree fills it with builders that run on first use (a
// one-shot CLI call builds no output schema).
var recursiveSchemas = map[reflect.Type]func() *jsonschema.Schema{}

// RegisterTree describes the recursive node type T, for the output schemas of the tools
// that return trees: T's own fields, with nested nodes (children) as plain objects of
// the same shape. Call it from an init function, before any schema is built.
func RegisterTree[T any](desc string) {
	t := reflect.TypeFor[T]()
	recursiveSchemas[t] = sync.OnceValue(func() *jsonschema.Schema {
		nested := &jsonschema.Schema{Type: "object", Description: "a node of the same shape"}
		opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{t: nested}}
		s := &jsonschema.Schema{Type: "object", Description: desc, Properties: map[string]*jsonschema.Schema{}}
		for i := range t.NumField() {
			f := t.Field(i)
			name := JSONName(f)
			if name == "" {
				continue
			}
			fs, err := jsonschema.ForType(f.Type, opts)
			if err != nil {
				panic(fmt.Sprintf("schema of %s.%s: %v", t, f.Name, err))
			}
			s.Properties[name] = fs
			if !strings.Contains(f.Tag.Get("json"), "omitempty") {
				s.Required = append(s.Required, name)
			}
		}
		return s
	})
}
