package proc

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/w365/w365/engine/werr"
)

// launchRefused are programs launch_application never starts unless the policy names them
// (LaunchPrograms): they run code or other programs given as arguments, so they would turn
// an application launcher into an unsandboxed exec. Matched on the base name of the path as
// given and of the resolved file, with version suffixes removed (python3.11 -> python).
var launchRefused = map[string]string{}

func init() {
	for why, names := range map[string][]string{
		"is a shell": {"sh", "bash", "rbash", "dash", "zsh", "ksh", "ksh93", "mksh", "pdksh", "oksh", "csh", "tcsh",
			"fish", "ash", "yash", "elvish", "nu", "xonsh", "busybox", "toybox", "screen", "tmux", "script",
			"cmd", "command", "powershell_ise", "wsl", "wslhost"},
		"runs code given to it": {"python", "pypy", "perl", "ruby", "irb", "php", "lua", "luajit", "node", "nodejs",
			"deno", "bun", "tclsh", "wish", "expect", "guile", "awk", "gawk", "mawk", "nawk", "sed", "java", "jshell",
			"groovy", "scala", "kotlin", "rscript", "r", "julia", "ghci", "runghc", "ocaml", "swipl", "gjs", "cjs",
			"qjs", "osascript", "pwsh", "powershell", "dotnet", "mono", "erl", "escript", "elixir", "iex", "racket",
			"sbcl", "clisp", "gdb", "lldb", "make", "cmake", "ninja", "git", "vim", "gvim", "evim", "nvim", "vi",
			"emacs", "ex", "ed", "find", "tar", "zip", "man", "less", "more", "nmap",
			// Windows: script hosts, interpreters and the system programs that run code or
			// DLLs named in their arguments.
			"py", "pyw", "pythonw", "javaw", "rubyw", "wscript", "cscript", "mshta", "rundll32", "regsvr32",
			"msiexec", "msbuild", "installutil", "regasm", "regsvcs", "cmstp", "msxsl", "odbcconf", "hh",
			"control", "mmc", "msdt", "pcalua", "forfiles", "csi", "fsi", "certutil", "bitsadmin", "wmic",
			"reg", "regedit", "regedt32", "winget", "choco", "scoop"},
		"runs commands on this machine or another": {"ssh", "scp", "sftp", "rsync", "docker", "podman", "kubectl",
			"gdbus", "dbus-send", "busctl", "qdbus", "systemctl", "socat", "nc", "ncat", "netcat",
			"schtasks", "sc", "winrs", "psexec", "psexec64", "plink", "putty"},
		"runs the program given to it": {"env", "xargs", "nohup", "setsid", "sudo", "su", "pkexec", "doas", "runuser",
			"timeout", "nice", "ionice", "stdbuf", "strace", "ltrace", "valgrind", "chroot", "unshare", "nsenter",
			"bwrap", "firejail", "flatpak-spawn", "systemd-run", "setpriv", "capsh", "taskset", "chrt", "prlimit",
			"flock", "watch", "time", "parallel", "at", "batch", "crontab", "dbus-launch", "dbus-run-session",
			"xinit", "startx", "xvfb-run", "catchsegv", "ld.so", "ld-linux", "ld-linux-x86-64", "exec", "eatmydata",
			"fakeroot", "proot", "torsocks", "proxychains", "sg", "newgrp", "gosu", "su-exec",
			"explorer", "conhost", "runas"},
	} {
		for _, n := range names {
			launchRefused[n] = why
		}
	}
}

// browsers are Chromium-family names; browserRefusedFlags make them run a command.
var browsers = []string{"chromium", "chrome", "google-chrome", "microsoft-edge", "brave", "brave-browser", "vivaldi", "opera"}

var browserRefusedFlags = []string{"--renderer-cmd-prefix", "--utility-cmd-prefix", "--gpu-launcher", "--browser-subprocess-path",
	"--plugin-launcher", "--ppapi-plugin-launcher", "--nacl-gdb", "--remote-debugging-port", "--remote-debugging-pipe",
	"--remote-debugging-address", "--no-sandbox"}

// terminals run a command given with -e and the like: allowed without arguments only.
var terminals = map[string]bool{
	"xterm": true, "uxterm": true, "gnome-terminal": true, "konsole": true, "xfce4-terminal": true, "lxterminal": true,
	"mate-terminal": true, "qterminal": true, "terminator": true, "tilix": true, "sakura": true, "urxvt": true,
	"rxvt": true, "st": true, "alacritty": true, "kitty": true, "foot": true, "wezterm": true, "x-terminal-emulator": true,
	"xdg-terminal-exec": true, "terminology": true, "guake": true, "tilda": true, "cool-retro-term": true,
	"wt": true, "windowsterminal": true, "mintty": true, "conemu": true, "conemu64": true,
}

var versionSuffix = regexp.MustCompile(`([0-9][0-9._-]*|-[0-9a-z.]+)$`)

// programName is a base name without a version suffix or extension: python3.11 -> python,
// ld-linux-x86-64.so.2 -> ld-linux-x86-64.
func programName(path string) string {
	n := strings.ToLower(filepath.Base(path))
	if i := strings.Index(n, ".so"); i > 0 {
		n = n[:i]
	}
	for _, ext := range []string{".sh", ".py", ".pl", ".rb", ".exe", ".bin", ".real"} {
		n = strings.TrimSuffix(n, ext)
	}
	if b := versionSuffix.ReplaceAllString(n, ""); b != "" && launchRefused[b] != "" {
		return b
	}
	return n
}

// Refused returns the BLOCKED_BY_POLICY refusal of launching resolved (given as path) with
// args, or nil: a shell, interpreter or wrapper (by the name given, the resolved file's name,
// or a name it is also known by: the original file name in the program's version
// resource), or a terminal emulator given arguments, unless allow names it.
func Refused(resolved, path string, args, allow []string) error {
	allowed := func(n string) bool {
		return slices.ContainsFunc(allow, func(a string) bool { return strings.EqualFold(a, n) || programName(a) == n })
	}
	names := []string{programName(path), programName(resolved)}
	for _, n := range alsoKnownAs(resolved) {
		names = append(names, programName(n))
	}
	for _, n := range names {
		if allowed(n) || allowed(filepath.Base(resolved)) {
			continue
		}
		if why := launchRefused[n]; why != "" {
			return werr.New(werr.BlockedByPolicy, "%s %s; launch_application starts applications, not interpreters or wrappers", n, why).
				WithDetail("program", n).
				WithHint("run code with execute_shell_command or execute_python_code (sandboxed); a deployment can allow it with the policy's launchPrograms")
		}
		if slices.ContainsFunc(browsers, func(b string) bool { return n == b || strings.HasPrefix(n, b+"-") }) {
			for _, a := range args {
				for _, f := range browserRefusedFlags {
					if a == f || strings.HasPrefix(a, f+"=") {
						return werr.New(werr.BlockedByPolicy, "%s %s starts another program or opens the browser to other processes", n, f).
							WithDetail("program", n).WithHint("launch the browser without that flag, or use the browser tools")
					}
				}
			}
		}
		if terminals[n] && len(args) > 0 {
			return werr.New(werr.BlockedByPolicy, "%s is a terminal and would run the command in its arguments", n).
				WithDetail("program", n).
				WithHint("launch the terminal without arguments, or run commands with execute_shell_command (sandboxed)")
		}
	}
	return nil
}
