package sysinfo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/shirou/gopsutil/v4/host"
	"golang.org/x/sys/windows"
	"golang.org/x/sys/windows/registry"
)

// describeOS: the product name ("Microsoft Windows 11 Pro") and the version RtlGetVersion
// reports ("10.0.22631"), with the release name ("23H2") when the registry has one.
func describeOS(in *Info, h *host.InfoStat) {
	in.OSName = h.Platform
	v := windows.RtlGetVersion()
	in.OSVersion = fmt.Sprintf("%d.%d.%d", v.MajorVersion, v.MinorVersion, v.BuildNumber)
	if h.PlatformVersion != "" {
		in.OSVersion += " (" + h.PlatformVersion + ")"
	}
}

// cpuModel is the first processor's name as the registry has it, for when gopsutil's
// reading (power information, SMBIOS) fails.
func cpuModel() string {
	k, err := registry.OpenKey(registry.LOCAL_MACHINE, `HARDWARE\DESCRIPTION\System\CentralProcessor\0`, registry.QUERY_VALUE)
	if err != nil {
		return ""
	}
	defer k.Close()
	s, _, _ := k.GetStringValue("ProcessorNameString")
	return strings.TrimSpace(s)
}

func rootPath() string {
	if d := os.Getenv("SystemDrive"); d != "" {
		return d + `\`
	}
	return `C:\`
}

// volumeOf is the root of the volume holding p (GetVolumePathName: a drive, or the folder a
// volume is mounted on), whatever the partition list says.
func volumeOf(p string, _ []string) string {
	buf := make([]uint16, windows.MAX_LONG_PATH)
	if err := windows.GetVolumePathName(windows.StringToUTF16Ptr(p), &buf[0], uint32(len(buf))); err == nil {
		if v := windows.UTF16ToString(buf); v != "" {
			return v
		}
	}
	return filepath.VolumeName(p) + `\`
}
