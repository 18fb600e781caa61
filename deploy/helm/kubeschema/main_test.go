package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestFileNameIsKubeconformsLayout(t *testing.T) {
	for k, want := range map[gvk]string{
		{"", "v1", "Service"}:                            "service-v1.json",
		{"apps", "v1", "StatefulSet"}:                    "statefulset-apps-v1.json",
		{"networking.k8s.io", "v1", "Ingress"}:           "ingress-networking-v1.json",
		{"policy", "v1", "PodDisruptionBudget"}:          "poddisruptionbudget-policy-v1.json",
		{"autoscaling", "v2", "HorizontalPodAutoscaler"}: "horizontalpodautoscaler-autoscaling-v2.json",
	} {
		if got := fileName(k); got != want {
			t.Errorf("%v: %s, want %s", k, got, want)
		}
	}
}

// A small swagger document: the kind's schema inlines what it refers to, refuses unknown
// fields, and spells int-or-string as JSON Schema.
func TestConvertInlinesAndIsStrict(t *testing.T) {
	doc := `{"definitions": {
	  "io.k8s.api.policy.v1.PodDisruptionBudgetSpec": {"properties": {"maxUnavailable": {"$ref": "#/definitions/io.k8s.apimachinery.pkg.util.intstr.IntOrString"}}},
	  "io.k8s.api.policy.v1.PodDisruptionBudget": {"properties": {"spec": {"$ref": "#/definitions/io.k8s.api.policy.v1.PodDisruptionBudgetSpec"}},
	    "x-kubernetes-group-version-kind": [{"group": "policy", "kind": "PodDisruptionBudget", "version": "v1"}]},
	  "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {"format": "int-or-string", "type": "string"},
	  "io.k8s.api.core.v1.Unrelated": {"properties": {}}
	}}`
	dir := t.TempDir()
	in := filepath.Join(dir, "swagger.json")
	os.WriteFile(in, []byte(doc), 0o644)
	n, err := convert(in, filepath.Join(dir, "out"))
	if err != nil || n != 1 {
		t.Fatalf("convert: %d %v", n, err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "out", "poddisruptionbudget-policy-v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Ref         string                    `json:"$ref"`
		Definitions map[string]map[string]any `json:"definitions"`
	}
	json.Unmarshal(b, &s)
	if s.Ref != "#/definitions/io.k8s.api.policy.v1.PodDisruptionBudget" || len(s.Definitions) != 3 {
		t.Fatalf("ref %q, %d definitions (want the kind and the two it refers to): %s", s.Ref, len(s.Definitions), b)
	}
	if s.Definitions["io.k8s.api.policy.v1.PodDisruptionBudget"]["additionalProperties"] != false {
		t.Error("unknown fields are not refused")
	}
	want := map[string]any{"oneOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}
	if got := s.Definitions["io.k8s.apimachinery.pkg.util.intstr.IntOrString"]; !reflect.DeepEqual(got, want) {
		t.Errorf("int-or-string: %v", got)
	}
	if _, err := convert(filepath.Join(dir, "missing.json"), dir); err == nil {
		t.Error("a missing document converts")
	}
}
