// Command man writes a man page for every w365 command, from the same command tree the
// binary builds (cli.NewRoot with repl.Extra). It lives apart from the binary so that a
// one-shot call does not pay for the man-page generator's initialisation. `make man` and
// the release build run it.
//
//	go run ./docs/man --dir man/man1
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra/doc"

	"github.com/w365/w365/commands/cli"
	"github.com/w365/w365/repl"
)

func main() {
	dir := flag.String("dir", "man/man1", "directory for the pages")
	flag.Parse()
	if err := write(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "docs/man:", err)
		os.Exit(1)
	}
}

// write writes the pages into dir.
func write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	root, _ := cli.NewRoot(cli.RootDeps{IO: cli.IO{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}, Extra: repl.Extra})
	root.DisableAutoGenTag = true
	return doc.GenManTree(root, &doc.GenManHeader{Title: "W365", Section: "1", Source: "w365", Manual: "w365 manual"}, dir)
}
