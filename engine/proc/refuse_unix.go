//go:build !windows

package proc

import (
	"io"
	"os"
	"strings"
)

// alsoKnownAs names the program runs under besides its file name: the interpreter of a #!
// script (and, for "#!/usr/bin/env prog", prog).
func alsoKnownAs(resolved string) []string {
	interp, arg := scriptInterpreter(resolved)
	if interp == "" {
		return nil
	}
	names := []string{interp}
	if f := strings.Fields(arg); len(f) > 0 && programName(interp) == "env" {
		names = append(names, f[0])
	}
	return names
}

// scriptInterpreter returns the interpreter and its argument of a #! script, or "".
func scriptInterpreter(path string) (string, string) {
	f, err := os.Open(path)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	buf := make([]byte, 256)
	n, _ := io.ReadFull(f, buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	rest, ok := strings.CutPrefix(line, "#!")
	if !ok {
		return "", ""
	}
	interp, arg, _ := strings.Cut(strings.TrimSpace(rest), " ")
	return interp, strings.TrimSpace(arg)
}
