//go:build windows

package proc

import (
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sys/windows"
)

// WindowsProtectedNames are the processes of Windows itself that no tool may close or
// kill, in addition to BuiltinProtectedNames and the policy's names.
var WindowsProtectedNames = []string{
	"System", "Registry", "smss.exe", "csrss.exe", "wininit.exe", "winlogon.exe", "services.exe",
	"lsass.exe", "lsaiso.exe", "svchost.exe", "dwm.exe", "explorer.exe", "fontdrvhost.exe",
	"sihost.exe", "ctfmon.exe", "conhost.exe", "MsMpEng.exe",
}

// Protected says whether pid (named name, "" to look it up) must not be closed or killed:
// the idle and System processes (0 and 4), p.PIDs, a process whose image cannot be read
// (another user's, or a protected process), and the names of WindowsProtectedNames,
// BuiltinProtectedNames and p.Names, compared case-insensitively with and without ".exe".
func (p Protection) Protected(pid int, name string) bool {
	if pid <= 4 || slices.Contains(p.PIDs, pid) {
		return true
	}
	img, err := ImageName(pid)
	if err != nil {
		return true
	}
	names := []string{img, strings.TrimSuffix(strings.ToLower(img), ".exe")}
	if name != "" {
		names = append(names, name)
	}
	all := slices.Concat(WindowsProtectedNames, BuiltinProtectedNames, p.Names)
	for _, n := range names {
		for _, pn := range all {
			if strings.EqualFold(n, pn) || strings.EqualFold(n, pn+".exe") {
				return true
			}
		}
	}
	return false
}

// ProtectedPID is Protected with the name looked up; it fits desktop.Windows.CloseWindow.
func (p Protection) ProtectedPID(pid int) bool { return p.Protected(pid, "") }

// ImageName is the file name of pid's executable ("notepad.exe").
func ImageName(pid int) (string, error) {
	h, err := openQuery(pid, 0)
	if err != nil {
		return "", err
	}
	defer windows.CloseHandle(h)
	img, err := imagePath(h)
	if err != nil {
		return "", err
	}
	return filepath.Base(img), nil
}
