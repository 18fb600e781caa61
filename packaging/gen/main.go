// Command gen writes what the packages ship besides the binary: a man page for every
// command (cobra/doc, from the same tree the binary runs) and the shell completions.
//
//	go run ./packaging/gen -out bin/pkg
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/w365/w365/commands/cli"
	"github.com/w365/w365/repl"
)

func main() {
	out := flag.String("out", "bin/pkg", "directory to write man/ and completions/ into")
	flag.Parse()
	if err := gen(*out); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func gen(out string) error {
	var discard bytes.Buffer
	// The same commands cmd/w365 adds; Args nil gives every command its flags.
	root, _ := cli.NewRoot(cli.RootDeps{IO: cli.IO{In: os.Stdin, Out: &discard, Err: &discard}, Extra: func(root *cobra.Command, g *cli.Globals) {
		cli.AddServe(root, g)
		cli.AddDoctor(root, g)
		repl.AddCommand(root, g)
	}})
	root.DisableAutoGenTag = true
	man := filepath.Join(out, "man")
	comp := filepath.Join(out, "completions")
	for _, d := range []string{man, comp} {
		if err := os.RemoveAll(d); err != nil {
			return err
		}
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	// SOURCE_DATE_EPOCH (reproducible builds) dates the pages when set.
	if err := doc.GenManTree(root, &doc.GenManHeader{Title: "W365", Section: "1", Source: "w365", Manual: "w365 manual"}, man); err != nil {
		return err
	}
	for name, write := range map[string]func(string) error{
		"w365.bash": func(p string) error { return root.GenBashCompletionFileV2(p, true) },
		"_w365":     root.GenZshCompletionFile,
		"w365.fish": func(p string) error { return root.GenFishCompletionFile(p, true) },
	} {
		if err := write(filepath.Join(comp, name)); err != nil {
			return err
		}
	}
	return nil
}
