// Command w365 operates a computer for people, shell scripts and AI agents.
package main

import (
	"context"
	"os"
	"runtime/debug"

	"github.com/charmbracelet/x/term"

	"github.com/w365/w365/commands/cli"
	"github.com/w365/w365/repl"
)

func isTerminal(f *os.File) bool { return term.IsTerminal(f.Fd()) }

// longRunning says whether args run the host or the REPL, which manage memory normally.
func longRunning(args []string) bool {
	for _, a := range args {
		if a == "serve" || a == "repl" {
			return true
		}
	}
	return false
}

func main() {
	io := cli.IO{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, OutIsTerminal: isTerminal(os.Stdout), InIsTerminal: isTerminal(os.Stdin)}
	if io.OutIsTerminal {
		io.Preview = cli.PreviewProtocol(os.Getenv)
	}
	args := os.Args[1:]
	if len(args) == 0 && isTerminal(os.Stdin) && io.OutIsTerminal {
		args = []string{"repl"}
	}
	if !longRunning(args) && os.Getenv("GOGC") == "" {
		// A one-shot command lives milliseconds and allocates a few MB: collecting
		// garbage would only cost time.
		debug.SetGCPercent(-1)
	}
	root, _ := cli.NewRoot(cli.RootDeps{IO: io, Args: args, Extra: repl.Extra})
	root.SetArgs(args)
	os.Exit(cli.Report(root.ExecuteContext(context.Background()), os.Stderr))
}
