package main

import (
	"fmt"
	"os"
	"slices"
	"time"
)

// benchCold measures the cold path a person or script meets first, each sample on a host
// of its own (a fresh runtime directory, so nothing is warm but the page cache): the CLI
// call that starts the host (session list, which needs no desktop), the first desktop call
// (the virtual desktop starts, confined as every session's is) and the first browser call
// (the browser launches).
func benchCold(env []string) {
	var host, desk, browser []time.Duration
	for i := 0; i < max(*n/20, 3); i++ {
		rt, _ := os.MkdirTemp("", "w365-bench-c-")
		os.Chmod(rt, 0o700)
		e := append(append([]string(nil), env...), "W365_RUNTIME_DIR="+rt)
		step := func(into *[]time.Duration, args ...string) {
			t0 := time.Now()
			if err := run(e, *bin, args...)(); err != nil {
				stopHost(rt)
				os.RemoveAll(rt)
				fmt.Fprintln(os.Stderr, "bench:", err)
				os.Exit(1)
			}
			*into = append(*into, time.Since(t0))
		}
		step(&host, "--virtual", "session", "list")
		step(&desk, "get-screen-size")
		step(&browser, "browser", "navigate", "about:blank")
		stopHost(rt)
		os.RemoveAll(rt)
	}
	fmt.Printf("\n%-44s %10s %10s   (%d samples, a host of its own each)\n", "cold path", "p50", "max", len(host))
	for _, r := range []struct {
		name string
		ds   []time.Duration
	}{
		{"host start + first call (session list)", host},
		{"virtual desktop start (get-screen-size)", desk},
		{"first browser call (browser navigate)", browser},
	} {
		s := summary(r.ds)
		fmt.Printf("%-44s %10s %10s\n", r.name, ms(s.p50), ms(s.max))
	}
}

// summary is the median and the maximum of a few samples.
func summary(ds []time.Duration) struct{ p50, max time.Duration } {
	s := append([]time.Duration(nil), ds...)
	slices.Sort(s)
	return struct{ p50, max time.Duration }{s[len(s)/2], s[len(s)-1]}
}
