package proc

import (
	"io/fs"

	"golang.org/x/sys/unix"

	"github.com/w365/w365/engine/werr"
)

// executable checks the permission bits and access(2) X_OK of the resolved file.
func executable(resolved, path string, fi fs.FileInfo) error {
	if fi.Mode().Perm()&0o111 == 0 || unix.Access(resolved, unix.X_OK) != nil {
		return werr.Invalid("%q is not executable", path)
	}
	return nil
}

// sameName compares file names as Linux does: byte for byte.
func sameName(a, b string) bool { return a == b }

// envKey is an environment variable's name as Linux compares it: as it is.
func envKey(k string) string { return k }

// launchEnvNames and launchEnvPrefixes are the environment a launched application gets:
// what a desktop program needs to find its display, bus, locale, home, base directories and
// accessibility, and nothing else (no API keys, no W365_*, no LD_*, none of the login
// session's other XDG_ variables: XDG_SESSION_COOKIE, XDG_SEAT). The locale's LC_ variables
// are POSIX's categories.
var launchEnvNames = map[string]bool{
	"DISPLAY": true, "WAYLAND_DISPLAY": true, "XAUTHORITY": true, "DBUS_SESSION_BUS_ADDRESS": true,
	"AT_SPI_BUS_ADDRESS": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "PATH": true,
	"LANG": true, "LANGUAGE": true, "TZ": true, "TERM": true, "GTK_MODULES": true, "NO_AT_BRIDGE": true,
	"ACCESSIBILITY_ENABLED": true, "QT_LINUX_ACCESSIBILITY_ALWAYS_ON": true, "QT_ACCESSIBILITY": true,
	"GTK_IM_MODULE": true, "QT_IM_MODULE": true, "XMODIFIERS": true, "DESKTOP_SESSION": true,
	"XDG_CONFIG_HOME": true, "XDG_CONFIG_DIRS": true, "XDG_DATA_HOME": true, "XDG_DATA_DIRS": true,
	"XDG_CACHE_HOME": true, "XDG_STATE_HOME": true, "XDG_RUNTIME_DIR": true, "XDG_CURRENT_DESKTOP": true,
	"XDG_SESSION_DESKTOP": true, "XDG_SESSION_TYPE": true, "XDG_MENU_PREFIX": true,
}
var launchEnvPrefixes = []string{"LC_"}
