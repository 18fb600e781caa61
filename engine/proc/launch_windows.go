package proc

import (
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/w365/w365/engine/child"
	"github.com/w365/w365/engine/werr"
)

const examplePath = `C:/Program Files/App/app.exe`

// application is what launch_application runs on Windows: the program at path inside an
// allowed directory or named by the policy (Resolve), unless Refused, with the arguments
// as given.
func application(path string, args []string, o LaunchOptions) (string, []string, error) {
	resolved, err := Resolve(path, append(slices.Clone(o.Dirs), o.Apps...))
	if err != nil {
		return "", nil, err
	}
	if err := Refused(resolved, path, args, o.Allow); err != nil {
		return "", nil, err
	}
	return resolved, args, nil
}

// executable accepts only .exe files: CreateProcess runs a .bat or .cmd file through
// cmd.exe, and other extensions (.ps1, .vbs, .js, .lnk) are documents of an interpreter.
func executable(resolved, path string, fi fs.FileInfo) error {
	if !strings.EqualFold(filepath.Ext(resolved), ".exe") {
		return werr.Invalid("%q is not a .exe program; launch_application starts programs, not scripts, shortcuts or documents", path).
			WithHint("give the path of the application's .exe")
	}
	return nil
}

// sameName compares file names as NTFS does by default: without regard to case.
func sameName(a, b string) bool { return strings.EqualFold(a, b) }

// envKey is an environment variable's name as Windows compares it: without regard to case.
func envKey(k string) string { return strings.ToUpper(k) }

// launchEnvNames (upper case, see envKey) are the environment a launched application
// gets: where Windows, the user's profile and folders and the program directories are,
// the locale and the machine's description, and nothing else (no API keys, no W365_*).
var launchEnvNames = map[string]bool{
	"SYSTEMROOT": true, "WINDIR": true, "SYSTEMDRIVE": true, "PATH": true, "PATHEXT": true, "TEMP": true,
	"TMP": true, "USERPROFILE": true, "USERNAME": true, "USERDOMAIN": true, "USERDOMAIN_ROAMINGPROFILE": true,
	"HOMEDRIVE": true, "HOMEPATH": true, "APPDATA": true, "LOCALAPPDATA": true, "PROGRAMDATA": true,
	"ALLUSERSPROFILE": true, "PUBLIC": true, "PROGRAMFILES": true, "PROGRAMFILES(X86)": true,
	"PROGRAMW6432": true, "COMMONPROGRAMFILES": true, "COMMONPROGRAMFILES(X86)": true,
	"COMMONPROGRAMW6432": true, "COMPUTERNAME": true, "OS": true, "PROCESSOR_ARCHITECTURE": true,
	"PROCESSOR_IDENTIFIER": true, "PROCESSOR_LEVEL": true, "PROCESSOR_REVISION": true,
	"NUMBER_OF_PROCESSORS": true, "LOGONSERVER": true, "SESSIONNAME": true, "ONEDRIVE": true,
	"DRIVERDATA": true, "TZ": true, "LANG": true,
}
var launchEnvPrefixes []string

// alsoKnownAs is the original file name in the program's version resource (cmd.exe says
// "Cmd.Exe", powershell.exe "PowerShell.EXE"), so that a renamed copy of an interpreter is
// still recognised.
func alsoKnownAs(resolved string) []string {
	size, err := windows.GetFileVersionInfoSize(resolved, nil)
	if err != nil || size == 0 {
		return nil
	}
	buf := make([]byte, size)
	if err := windows.GetFileVersionInfo(resolved, 0, size, unsafe.Pointer(&buf[0])); err != nil {
		return nil
	}
	var trans *[2]uint16
	var n uint32
	if err := windows.VerQueryValue(unsafe.Pointer(&buf[0]), `\VarFileInfo\Translation`, unsafe.Pointer(&trans), &n); err != nil || n < 4 {
		return nil
	}
	var names []string
	for _, field := range []string{"OriginalFilename", "InternalName"} {
		var p *uint16
		var chars uint32
		sub := fmt.Sprintf(`\StringFileInfo\%04x%04x\%s`, trans[0], trans[1], field)
		if err := windows.VerQueryValue(unsafe.Pointer(&buf[0]), sub, unsafe.Pointer(&p), &chars); err == nil && chars > 0 {
			if s := strings.TrimSpace(windows.UTF16PtrToString(p)); s != "" {
				names = append(names, s)
			}
		}
	}
	return names
}

// startApp starts c in a job object of its own (child.Start), which holds whatever it
// starts: app and root are its pid.
func startApp(c *exec.Cmd, _ bool) (app, root int, err error) {
	if err := child.Start(c); err != nil {
		return 0, 0, err
	}
	return c.Process.Pid, c.Process.Pid, nil
}
