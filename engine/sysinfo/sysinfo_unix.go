//go:build !windows

package sysinfo

import (
	"bufio"
	"os"
	"strings"

	"github.com/shirou/gopsutil/v4/host"
)

// describeOS names the distribution from os-release.
func describeOS(in *Info, _ *host.InfoStat) { in.OSName = osRelease() }

// osRelease reads PRETTY_NAME (or NAME VERSION) from /etc/os-release.
func osRelease() string {
	for _, p := range []string{"/etc/os-release", "/usr/lib/os-release"} {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		vals := map[string]string{}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), "=")
			if ok {
				vals[k] = strings.Trim(v, `"'`)
			}
		}
		f.Close()
		if vals["PRETTY_NAME"] != "" {
			return vals["PRETTY_NAME"]
		}
		if vals["NAME"] != "" {
			return strings.TrimSpace(vals["NAME"] + " " + vals["VERSION"])
		}
	}
	return ""
}

// cpuModel has nothing to add to gopsutil here.
func cpuModel() string { return "" }

func rootPath() string { return "/" }

// volumeOf is the mount point holding p.
func volumeOf(p string, mounts []string) string { return mountOf(p, mounts) }
