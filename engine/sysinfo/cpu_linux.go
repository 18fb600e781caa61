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
	model, logical, pairs := parseCPUInfo(string(b))
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

// parseCPUInfo reads /proc/cpuinfo's text: the first processor's model, the logical
// processors, and the distinct (physical id, core id) pairs. An ARM kernel names no model:
// it is the implementer's and part's name, as lscpu gives it (armModel).
func parseCPUInfo(text string) (model string, logical int, pairs map[string]bool) {
	pairs = map[string]bool{}
	socket, implementer, part := "", "", ""
	for _, line := range strings.Split(text, "\n") {
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
		case "CPU implementer":
			if implementer == "" {
				implementer = v
			}
		case "CPU part":
			if part == "" {
				part = v
			}
		}
	}
	if model == "" && implementer != "" {
		model = armModel(implementer, part)
	}
	return model, logical, pairs
}

// armVendors and armParts name the commonest ARM implementers and their cores (the ids of
// the Arm Architecture Reference Manual's MIDR, as util-linux's lscpu names them).
var armVendors = map[uint64]string{0x41: "ARM", 0x42: "Broadcom", 0x43: "Cavium", 0x46: "Fujitsu",
	0x48: "HiSilicon", 0x4e: "NVIDIA", 0x51: "Qualcomm", 0x61: "Apple", 0xc0: "Ampere"}

var armParts = map[uint64]map[uint64]string{
	0x41: {0xd03: "Cortex-A53", 0xd04: "Cortex-A35", 0xd05: "Cortex-A55", 0xd07: "Cortex-A57", 0xd08: "Cortex-A72",
		0xd09: "Cortex-A73", 0xd0a: "Cortex-A75", 0xd0b: "Cortex-A76", 0xd0c: "Neoverse-N1", 0xd0d: "Cortex-A77",
		0xd40: "Neoverse-V1", 0xd41: "Cortex-A78", 0xd44: "Cortex-X1", 0xd46: "Cortex-A510", 0xd47: "Cortex-A710",
		0xd48: "Cortex-X2", 0xd49: "Neoverse-N2", 0xd4b: "Cortex-A78C", 0xd4d: "Cortex-A715", 0xd4e: "Cortex-X3",
		0xd4f: "Neoverse-V2", 0xd80: "Cortex-A520", 0xd81: "Cortex-A720", 0xd82: "Cortex-X4", 0xd84: "Neoverse-V3",
		0xd8e: "Neoverse-N3"},
	0xc0: {0xac3: "Ampere-1", 0xac4: "Ampere-1a"},
}

// armModel names an ARM processor by its implementer and part ids ("0x41", "0xd0c": "ARM
// Neoverse-N1"); one it does not know by its ids ("ARM part 0xd99").
func armModel(implementer, part string) string {
	imp, err := strconv.ParseUint(implementer, 0, 16)
	if err != nil {
		return ""
	}
	vendor, ok := armVendors[imp]
	if !ok {
		vendor = "implementer " + implementer
	}
	if p, err := strconv.ParseUint(part, 0, 16); err == nil {
		if name, ok := armParts[imp][p]; ok {
			return vendor + " " + name
		}
	}
	if part == "" {
		return vendor
	}
	return vendor + " part " + part
}
