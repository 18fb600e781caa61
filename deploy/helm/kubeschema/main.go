// Command kubeschema turns the Kubernetes OpenAPI (swagger 2.0) document into the
// per-kind JSON schemas kubeconform reads (its "standalone-strict" layout: one
// KIND-GROUP-VERSION.json per kind, every reference inlined as local definitions,
// unknown fields refused), so that manifests validate offline. The document ships in the
// k8s.io/kubernetes module (api/openapi-spec/swagger.json).
//
//	go run ./deploy/helm/kubeschema -in swagger.json -out DIR
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

type gvk struct{ Group, Version, Kind string }

func main() {
	in := flag.String("in", "", "the Kubernetes swagger.json")
	out := flag.String("out", "", "directory to write the schemas into")
	flag.Parse()
	n, err := convert(*in, *out)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kubeschema:", err)
		os.Exit(1)
	}
	fmt.Printf("kubeschema: %d kinds written to %s\n", n, *out)
}

func convert(in, out string) (int, error) {
	b, err := os.ReadFile(in)
	if err != nil {
		return 0, err
	}
	var doc struct {
		Definitions map[string]map[string]any `json:"definitions"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return 0, fmt.Errorf("%s: %v", in, err)
	}
	if len(doc.Definitions) == 0 {
		return 0, fmt.Errorf("%s has no definitions", in)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return 0, err
	}
	n := 0
	for name, def := range doc.Definitions {
		raw, _ := json.Marshal(def["x-kubernetes-group-version-kind"])
		var kinds []gvk
		json.Unmarshal(raw, &kinds)
		for _, k := range kinds {
			defs := map[string]any{}
			closure(doc.Definitions, name, defs)
			schema := map[string]any{"$ref": "#/definitions/" + name, "definitions": defs}
			b, err := json.Marshal(strict(schema))
			if err != nil {
				return n, err
			}
			if err := os.WriteFile(filepath.Join(out, fileName(k)), b, 0o644); err != nil {
				return n, err
			}
			n++
		}
	}
	return n, nil
}

// fileName is kubeconform's {{.ResourceKind}}{{.KindSuffix}}.json: the lower-case kind,
// the group's first label (none for the core group) and the version.
func fileName(k gvk) string {
	s := strings.ToLower(k.Kind)
	if k.Group != "" {
		s += "-" + strings.ToLower(strings.Split(k.Group, ".")[0])
	}
	return s + "-" + strings.ToLower(k.Version) + ".json"
}

// closure copies name and every definition it refers to, transitively, into defs.
func closure(all map[string]map[string]any, name string, defs map[string]any) {
	if _, ok := defs[name]; ok {
		return
	}
	def, ok := all[name]
	if !ok {
		return
	}
	defs[name] = def
	walk(def, func(m map[string]any) {
		if ref, ok := m["$ref"].(string); ok {
			closure(all, strings.TrimPrefix(ref, "#/definitions/"), defs)
		}
	})
}

func walk(v any, f func(map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(v)
		for _, c := range v {
			walk(c, f)
		}
	case []any:
		for _, c := range v {
			walk(c, f)
		}
	}
}

// strict returns v with unknown fields refused wherever properties are listed (as the
// API server's strict field validation does) and int-or-string spelt as JSON Schema.
func strict(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v["format"] == "int-or-string" {
			return map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
		}
		m := make(map[string]any, len(v)+1)
		for k, c := range v {
			if k == "properties" {
				props := map[string]any{}
				for p, s := range c.(map[string]any) {
					props[p] = strict(s)
				}
				m[k] = props
				continue
			}
			m[k] = strict(c)
		}
		if _, ok := v["properties"]; ok {
			if _, set := v["additionalProperties"]; !set {
				m["additionalProperties"] = false
			}
		}
		return m
	case []any:
		out := make([]any, len(v))
		for i, c := range v {
			out[i] = strict(c)
		}
		return out
	}
	return v
}
