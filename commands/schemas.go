package commands

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/w365/w365/engine/a11y"
	"github.com/w365/w365/engine/snapshot"
)

// treeSchema describes a recursive node type, which schema inference cannot: the node's
// own fields, with nested nodes (children) as plain objects of the same shape.
func treeSchema(t reflect.Type, desc string) *jsonschema.Schema {
	nested := &jsonschema.Schema{Type: "object", Description: "a node of the same shape"}
	opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{t: nested}}
	s := &jsonschema.Schema{Type: "object", Description: desc, Properties: map[string]*jsonschema.Schema{}}
	for i := range t.NumField() {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" {
			continue
		}
		fs, err := jsonschema.ForType(f.Type, opts)
		if err != nil {
			panic(fmt.Sprintf("schema of %s.%s: %v", t, f.Name, err))
		}
		if len(fs.Types) == 2 && fs.Types[0] == "null" {
			fs.Type, fs.Types = fs.Types[1], nil
		}
		s.Properties[name] = fs
		if !strings.Contains(f.Tag.Get("json"), "omitempty") {
			s.Required = append(s.Required, name)
		}
	}
	return s
}

func init() {
	recursiveSchemas[reflect.TypeFor[a11y.Node]()] = treeSchema(reflect.TypeFor[a11y.Node](), "an accessible element with screen coordinates")
	recursiveSchemas[reflect.TypeFor[snapshot.Node]()] = treeSchema(reflect.TypeFor[snapshot.Node](), "a node of the page's accessibility snapshot")
}
