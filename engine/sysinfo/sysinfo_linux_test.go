package sysinfo

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestGet compares the answer with what Linux itself reports (uname, os-release, statfs).
func TestGet(t *testing.T) {
	in, err := Get(context.Background(), 1920, 1080)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.MarshalIndent(in, "", "  ")
	t.Logf("%s", b)

	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		t.Fatal(err)
	}
	if want := unix.ByteSliceToString(u.Release[:]); in.Kernel != want {
		t.Errorf("kernel %q, uname says %q", in.Kernel, want)
	}
	if rel, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, line := range strings.Split(string(rel), "\n") {
			if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok && in.OSName != strings.Trim(v, `"`) {
				t.Errorf("OS name %q, os-release says %s", in.OSName, v)
			}
		}
	}
	if in.OS != "linux" || in.OSVersion == "" || in.Platform == "" || in.Arch == "" {
		t.Errorf("OS fields: %+v", in)
	}
	if in.CPUModel == "" || in.CPUCores < 1 || in.CPULogicalCores < in.CPUCores {
		t.Errorf("CPU: %q %d/%d", in.CPUModel, in.CPUCores, in.CPULogicalCores)
	}
	if in.MemoryTotalBytes == 0 || in.MemoryFreeBytes == 0 || in.MemoryFreeBytes > in.MemoryTotalBytes {
		t.Errorf("memory: total %d free %d", in.MemoryTotalBytes, in.MemoryFreeBytes)
	}
	var st unix.Statfs_t
	if err := unix.Statfs("/", &st); err != nil {
		t.Fatal(err)
	}
	free := st.Bavail * uint64(st.Bsize)
	if in.DiskFreeBytes == 0 || diff(in.DiskFreeBytes, free) > 1<<30 || in.DiskTotalBytes < in.DiskFreeBytes {
		t.Errorf("disk free %d, statfs says %d", in.DiskFreeBytes, free)
	}
	if in.DisplayWidth != 1920 || in.DisplayHeight != 1080 {
		t.Errorf("display %dx%d", in.DisplayWidth, in.DisplayHeight)
	}
	if len(in.Disks) == 0 || in.Disks[0].Contains[0] != "/" {
		t.Errorf("disks: %+v", in.Disks)
	}
}

// TestCPUAsLscpuSays compares the processor's model and core counts with util-linux's
// lscpu (model name, distinct (core, socket) pairs) and getconf _NPROCESSORS_CONF.
func TestCPUAsLscpuSays(t *testing.T) {
	model, cores, logical := cpuFacts(context.Background())
	out, err := exec.Command("lscpu").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "Model name:"); ok && strings.TrimSpace(v) != model {
			t.Errorf("model %q, lscpu says %q", model, strings.TrimSpace(v))
		}
	}
	out, err = exec.Command("lscpu", "-p=CORE,SOCKET").Output()
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if !strings.HasPrefix(line, "#") {
			pairs[line] = true
		}
	}
	if cores != len(pairs) {
		t.Errorf("%d cores, lscpu lists %d", cores, len(pairs))
	}
	out, err = exec.Command("getconf", "_NPROCESSORS_CONF").Output()
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := strconv.Atoi(strings.TrimSpace(string(out))); logical != n {
		t.Errorf("%d logical processors, getconf says %d", logical, n)
	}
}

func diff(a, b uint64) uint64 {
	if a > b {
		return a - b
	}
	return b - a
}
