// Command gen writes docs/tools.md, the tool reference, from the tool definitions in
// package commands: the values the cobra CLI, the REPL and the MCP server are built from.
// It reads them directly, without starting a host. `make docs` runs it; `make test` fails
// when the committed page differs from what it writes.
//
//	go run ./docs/gen -o docs/tools.md
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	out := flag.String("o", "docs/tools.md", "the file to write; - for stdout")
	flag.Parse()
	page, err := toolsPage()
	if err != nil {
		fmt.Fprintln(os.Stderr, "docs/gen:", err)
		os.Exit(1)
	}
	if *out == "-" {
		_, err = os.Stdout.WriteString(page)
	} else {
		err = os.WriteFile(*out, []byte(page), 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "docs/gen:", err)
		os.Exit(1)
	}
}
