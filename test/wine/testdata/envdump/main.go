// Command envdump is a windowless Windows program for the wine tests: it writes its
// arguments and environment as JSON to the file named by its first argument, then waits
// to be ended.
package main

import (
	"encoding/json"
	"os"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		os.Exit(2)
	}
	b, err := json.Marshal(map[string][]string{"args": os.Args[1:], "env": os.Environ()})
	if err != nil {
		os.Exit(1)
	}
	out := os.Args[1]
	if os.WriteFile(out+".tmp", b, 0o644) != nil || os.Rename(out+".tmp", out) != nil {
		os.Exit(1)
	}
	time.Sleep(10 * time.Minute)
}
