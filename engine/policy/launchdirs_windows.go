package policy

import (
	"os"
	"path/filepath"
	"slices"
)

// windowsLaunchPrograms are the GUI programs of Windows itself launch_application may
// start: System32 as a whole holds cmd.exe, powershell.exe, rundll32.exe and the like.
var windowsLaunchPrograms = []string{"notepad.exe", "mspaint.exe", "calc.exe", "charmap.exe", "write.exe",
	"SnippingTool.exe", "osk.exe", "magnify.exe"}

// defaultLaunchDirs are where launch_application finds applications on Windows: the
// program directories, which only administrators can write (not the per-user
// %LOCALAPPDATA%\Programs, which any program of the user can fill), and a few programs of
// System32.
func defaultLaunchDirs() []string {
	var dirs []string
	for _, v := range []string{"ProgramFiles", "ProgramFiles(x86)", "ProgramW6432"} {
		if d := os.Getenv(v); d != "" && !slices.Contains(dirs, d) {
			dirs = append(dirs, d)
		}
	}
	if len(dirs) == 0 {
		dirs = []string{`C:\Program Files`, `C:\Program Files (x86)`}
	}
	root := os.Getenv("SystemRoot")
	if root == "" {
		root = `C:\Windows`
	}
	for _, p := range windowsLaunchPrograms {
		dirs = append(dirs, filepath.Join(root, "System32", p))
	}
	return dirs
}
