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

// TestARMProcessorsHaveAModel: an ARM kernel's /proc/cpuinfo has no "model name"; the
// model is the implementer's and part's name, as lscpu gives it.
func TestARMProcessorsHaveAModel(t *testing.T) {
	const graviton2 = "processor\t: 0\nBogoMIPS\t: 243.75\nFeatures\t: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs\n" +
		"CPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n\n" +
		"processor\t: 1\nBogoMIPS\t: 243.75\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\nCPU revision\t: 1\n"
	for _, c := range []struct {
		text, model string
		logical     int
	}{
		{graviton2, "ARM Neoverse-N1", 2},
		{strings.ReplaceAll(graviton2, "0xd0c", "0xd99"), "ARM part 0xd99", 2},
		{strings.ReplaceAll(graviton2, "0x41", "0x61"), "Apple part 0xd0c", 2},
		{"processor\t: 0\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\ncore id\t\t: 0\n", "Intel(R) Xeon(R) CPU @ 2.20GHz", 1},
	} {
		model, logical, _ := parseCPUInfo(c.text)
		if model != c.model || logical != c.logical {
			t.Errorf("parseCPUInfo = %q, %d; want %q, %d", model, logical, c.model, c.logical)
		}
	}
}
