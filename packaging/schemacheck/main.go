// Command schemacheck validates a JSON document against a JSON Schema (draft 2020-12 or
// draft-07): `make registry-check` checks server.json against the MCP registry's schema.
//
//	go run ./packaging/schemacheck -schema server.schema.json server.json
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/google/jsonschema-go/jsonschema"
)

func main() {
	schemaPath := flag.String("schema", "", "the JSON Schema file")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: schemacheck -schema SCHEMA DOCUMENT")
		os.Exit(2)
	}
	if err := check(*schemaPath, flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "schemacheck:", err)
		os.Exit(1)
	}
	fmt.Printf("schemacheck: %s is valid against %s\n", flag.Arg(0), *schemaPath)
}

func check(schemaPath, docPath string) error {
	var schema jsonschema.Schema
	if err := readJSON(schemaPath, &schema); err != nil {
		return err
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return fmt.Errorf("%s: %v", schemaPath, err)
	}
	var doc any
	if err := readJSON(docPath, &doc); err != nil {
		return err
	}
	if err := resolved.Validate(doc); err != nil {
		return fmt.Errorf("%s: %v", docPath, err)
	}
	return nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}
