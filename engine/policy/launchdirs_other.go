//go:build !windows

package policy

// defaultLaunchDirs are where launch_application finds applications on Linux and other
// Unix systems: the system's program directories and the flatpak exports.
func defaultLaunchDirs() []string {
	return []string{"/usr/bin", "/usr/local/bin", "/opt", "/snap/bin",
		"/var/lib/flatpak/exports/bin", "~/.local/share/flatpak/exports/bin"}
}
