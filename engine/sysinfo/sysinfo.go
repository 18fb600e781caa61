// Package sysinfo answers get_system_info: operating system, kernel, CPU, memory, free disk
// space and display resolution, read through gopsutil (on Windows: RtlGetVersion and the
// registry, GlobalMemoryStatusEx, GetDiskFreeSpaceEx, GetTickCount64), with what it lacks
// filled in per platform. On Linux the processor's facts come from /proc and /sys directly
// (cpu_linux.go).
package sysinfo

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/host"
	"github.com/shirou/gopsutil/v4/mem"

	"github.com/w365/w365/engine/werr"
)

// Disk is the space of one mounted file system.
type Disk struct {
	// Path is the mount point; Contains lists which of "/" and the home directory live on it.
	Path       string   `json:"path"`
	Contains   []string `json:"contains"`
	FSType     string   `json:"fsType,omitempty"`
	TotalBytes uint64   `json:"totalBytes"`
	FreeBytes  uint64   `json:"freeBytes"` // available to unprivileged users
}

// Info is the result of get_system_info.
type Info struct {
	OSName    string `json:"osName"`    // e.g. "Debian GNU/Linux 12 (bookworm)"
	OSVersion string `json:"osVersion"` // e.g. "12.8"
	Platform  string `json:"platform"`  // e.g. "debian"
	OS        string `json:"os"`        // "linux", "windows", ...
	Kernel    string `json:"kernel"`    // kernel release, e.g. "6.1.0-26-amd64"
	Arch      string `json:"arch"`
	Hostname  string `json:"hostname"`

	CPUModel        string `json:"cpuModel"`
	CPUCores        int    `json:"cpuCores"`        // physical cores (logical when unknown)
	CPULogicalCores int    `json:"cpuLogicalCores"` // hardware threads

	MemoryTotalBytes uint64 `json:"memoryTotalBytes"`
	// MemoryFreeBytes is the memory available to new programs without swapping
	// (MemAvailable: free memory plus reclaimable caches).
	MemoryFreeBytes uint64 `json:"memoryFreeBytes"`

	// DiskFreeBytes and DiskTotalBytes are those of the file system holding "/".
	DiskFreeBytes  uint64 `json:"diskFreeBytes"`
	DiskTotalBytes uint64 `json:"diskTotalBytes"`
	Disks          []Disk `json:"disks"`

	DisplayWidth  int `json:"displayWidth"`
	DisplayHeight int `json:"displayHeight"`

	UptimeSeconds uint64 `json:"uptimeSeconds"`
}

// Target is the operating system and architecture this binary was built for, as Go
// names them (GOOS and GOARCH: "linux", "amd64").
func Target() (goos, goarch string) { return runtime.GOOS, runtime.GOARCH }

// Get collects the system information; displayW and displayH are the session's screen size.
func Get(ctx context.Context, displayW, displayH int) (Info, error) {
	h, err := host.InfoWithContext(ctx)
	if err != nil {
		return Info{}, werr.Wrap(err, werr.Internal, "cannot read host information")
	}
	in := Info{
		OSVersion:     h.PlatformVersion,
		Platform:      h.Platform,
		OS:            h.OS,
		Kernel:        h.KernelVersion,
		Arch:          h.KernelArch,
		Hostname:      h.Hostname,
		UptimeSeconds: h.Uptime,
		DisplayWidth:  displayW,
		DisplayHeight: displayH,
	}
	describeOS(&in, h)
	if in.OSName == "" {
		in.OSName = strings.TrimSpace(h.Platform + " " + h.PlatformVersion)
	}
	if in.Arch == "" {
		in.Arch = runtime.GOARCH
	}
	in.CPUModel, in.CPUCores, in.CPULogicalCores = cpuFacts(ctx)
	if in.CPUModel == "" {
		in.CPUModel = cpuModel()
	}
	if in.CPUCores <= 0 {
		in.CPUCores = in.CPULogicalCores
	}
	vm, err := mem.VirtualMemoryWithContext(ctx)
	if err != nil {
		return Info{}, werr.Wrap(err, werr.Internal, "cannot read memory information")
	}
	in.MemoryTotalBytes, in.MemoryFreeBytes = vm.Total, vm.Available

	in.Disks = disks(ctx)
	for _, d := range in.Disks {
		for _, c := range d.Contains {
			if c == rootPath() {
				in.DiskFreeBytes, in.DiskTotalBytes = d.FreeBytes, d.TotalBytes
			}
		}
	}
	return in, nil
}

// disks reports the file systems holding the root and the home directory (one entry when
// they are the same).
func disks(ctx context.Context) []Disk {
	paths := []string{rootPath()}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		paths = append(paths, home)
	}
	var mounts []string
	var fstype = map[string]string{}
	if parts, err := disk.PartitionsWithContext(ctx, true); err == nil {
		for _, p := range parts {
			mounts = append(mounts, p.Mountpoint)
			fstype[p.Mountpoint] = p.Fstype
		}
	}
	var out []Disk
	index := map[string]int{}
	for _, p := range paths {
		mp := volumeOf(p, mounts)
		if i, ok := index[mp]; ok {
			out[i].Contains = append(out[i].Contains, p)
			continue
		}
		u, err := disk.UsageWithContext(ctx, mp)
		if err != nil {
			continue
		}
		index[mp] = len(out)
		out = append(out, Disk{Path: mp, Contains: []string{p}, FSType: firstNonEmpty(fstype[mp], u.Fstype),
			TotalBytes: u.Total, FreeBytes: u.Free})
	}
	return out
}

// mountOf returns the longest mount point that contains p (p itself when none is known).
func mountOf(p string, mounts []string) string {
	p = filepath.Clean(p)
	best := ""
	for _, m := range mounts {
		mc := filepath.Clean(m)
		if p == mc || strings.HasPrefix(p, strings.TrimSuffix(mc, string(filepath.Separator))+string(filepath.Separator)) {
			if len(mc) > len(best) {
				best = mc
			}
		}
	}
	if best == "" {
		return p
	}
	return best
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
