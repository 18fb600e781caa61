//go:build linux

package display

import (
	"os"
	"path/filepath"
	"regexp"
)

// The window manager of a virtual desktop runs nothing: Openbox's stock configuration opens
// a menu on a click on the desktop (a terminal emulator, a browser, every application) and
// binds keys to commands, which would start programs in the window manager's confinement,
// around the launch allowlist, the shell's policy and approvals. Its configuration here is the system's with every command
// taken out, and its menus are one empty file.

// openboxSystemConfig is the system's Openbox configuration, the base of the desktop's.
const openboxSystemConfig = "/etc/xdg/openbox/rc.xml"

var (
	// openboxRuns are the actions that start a program: Execute, and Restart, which may
	// name another window manager to exec. Action names are case-insensitive.
	openboxRuns = regexp.MustCompile(`(?is)<action\s+name\s*=\s*["'](?:execute|restart)["']\s*(?:/>|>.*?</action>)`)
	// openboxMenuFiles are the menu files the configuration names; without any, Openbox
	// reads menu.xml from its configuration directories, the desktop's own.
	openboxMenuFiles = regexp.MustCompile(`(?is)<file>.*?</file>`)
)

// openboxConfig is the system's configuration sys with every program it could start
// taken out.
func openboxConfig(sys []byte) []byte {
	if len(sys) == 0 {
		return []byte(`<?xml version="1.0" encoding="UTF-8"?><openbox_config xmlns="http://openbox.org/3.4/rc"/>` + "\n")
	}
	return openboxMenuFiles.ReplaceAll(openboxRuns.ReplaceAll(sys, nil), nil)
}

// writeOpenboxConfig writes dir/rc.xml (openboxConfig) and dir/menu.xml, whose desktop
// menu (root-menu, the one a click on the desktop opens) is empty: it offers nothing to
// start, and no error dialog says that it is missing.
func writeOpenboxConfig(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	sys, _ := os.ReadFile(openboxSystemConfig)
	if err := os.WriteFile(filepath.Join(dir, "rc.xml"), openboxConfig(sys), 0o600); err != nil {
		return err
	}
	menu := `<?xml version="1.0" encoding="UTF-8"?><openbox_menu xmlns="http://openbox.org/3.4/menu"><menu id="root-menu" label="w365"/></openbox_menu>` + "\n"
	return os.WriteFile(filepath.Join(dir, "menu.xml"), []byte(menu), 0o600)
}
