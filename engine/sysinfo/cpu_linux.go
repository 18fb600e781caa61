package sysinfo

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// cpuFacts reads the first processor's model and the logical processors from /proc/cpuinfo,
// and counts the physical cores as the distinct sibling lists of the kernel's CPU topology
// (/sys/devices/system/cpu/cpuN/topology), or as the distinct (physical id, core id) pairs of
// /proc/cpuinfo where /sys has no topology (0 or "" where neither says). It does not use
// gopsutil's cpu package: that package reads /proc/stat twice when it initialises, which
// every start of the binary paid (docs/architecture.md#one-shot-start).
func cpuFacts(context.Context) (model string, cores, logical int) {
	b, _ := os.ReadFile("/proc/cpuinfo")
	pairs := map[string]bool{}
	socket := ""
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch v = strings.TrimSpace(v); strings.TrimSpace(k) {
		case "processor":
			if _, err := strconv.Atoi(v); err == nil {
				logical++
			}
		case "model name":
			if model == "" {
				model = v
			}
		case "physical id":
			socket = v
		case "core id":
			pairs[socket+"/"+v] = true
		}
	}
	if logical == 0 {
		logical = runtime.NumCPU()
	}
	for _, name := range []string{"core_cpus_list", "thread_siblings_list"} {
		files, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*/topology/" + name)
		lists := map[string]bool{}
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil {
				lists[strings.TrimSpace(string(b))] = true
			}
		}
		if len(lists) > 0 {
			return model, len(lists), logical
		}
	}
	return model, len(pairs), logical
}
