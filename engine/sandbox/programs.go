package sandbox

import (
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/w365/w365/engine/policy"
	"github.com/w365/w365/engine/werr"
)

// windowsAliases maps the Windows command names (dir, type, ...) to the Linux program that
// runs in their place. The mapping is unconditional (coreutils ships a `dir`, but `ls`
// gives the same listing and keeps one behaviour everywhere); the Linux program's own
// options apply (`dir -la`, not `dir /b`). The allowlist is matched through it (see
// allowed), so a policy names each program once, in either spelling.
var windowsAliases = map[string]string{
	"dir": "ls", "type": "cat", "where": "which", "findstr": "grep",
	"copy": "cp", "move": "mv", "del": "rm", "robocopy": "rsync",
}

// dialect is how a command line is read and which program a name runs. The policy parser
// is one; the dialects differ only where the two systems do:
//   - linux: a backslash escapes the next byte (as in bash), and the Windows command
//     names are aliases of the Linux program that runs in their place (windowsAliases);
//   - windows: a backslash is an ordinary byte (C:\Users\me), ^ (cmd.exe's escape) is
//     refused, a UNC or device path (\\host\share, \\.\pipe) is refused as an argument,
//     wildcards are passed to the program as written (Windows programs and the built-ins
//     expand their own), and dir/type/copy/move/del/mkdir are w365's own implementations
//     of the cmd.exe built-ins (builtins.go), never cmd.exe.
type dialect struct {
	windows bool
	aliases map[string]string
}

var (
	linuxDialect   = dialect{aliases: windowsAliases}
	windowsDialect = dialect{windows: true}
)

// host is the dialect of the system w365 runs on.
func host() dialect {
	if runtime.GOOS == "windows" {
		return windowsDialect
	}
	return linuxDialect
}

// fallbacks name the program used when the named one is not installed.
var fallbacks = sync.OnceValue(func() map[string]string {
	return map[string]string{"python": "python3", "pip": "pip3"}
})

// privileged programs are refused even when a policy file allows them.
var privileged = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"sudo": true, "su": true, "doas": true, "pkexec": true, "runuser": true, "setpriv": true, "chroot": true,
		"nsenter": true, "unshare": true, "capsh": true, "gosu": true, "su-exec": true, "runas": true, "bwrap": true,
		"firejail": true, "machinectl": true, "newgrp": true, "sg": true, "setcap": true, "chown": true, "chgrp": true,
		"visudo": true, "passwd": true, "chpasswd": true, "useradd": true, "usermod": true, "userdel": true, "groupadd": true,
	}
})

// system programs (disks, mounts, power, services, kernel, signals) are refused even when
// a policy file allows them.
var system = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"mkfs": true, "mke2fs": true, "mkswap": true, "dd": true, "fdisk": true, "sfdisk": true, "cfdisk": true, "gdisk": true,
		"sgdisk": true, "parted": true, "partprobe": true, "wipefs": true, "shred": true, "blkdiscard": true, "badblocks": true,
		"mount": true, "umount": true, "swapon": true, "swapoff": true, "losetup": true, "cryptsetup": true, "lvm": true,
		"lvremove": true, "vgremove": true, "pvremove": true, "mdadm": true, "zpool": true, "zfs": true, "btrfs": true,
		"e2fsck": true, "fsck": true, "tune2fs": true, "hdparm": true, "format": true, "diskpart": true, "chkdsk": true,
		"shutdown": true, "reboot": true, "poweroff": true, "halt": true, "init": true, "telinit": true, "systemctl": true,
		"service": true, "loginctl": true, "journalctl": true, "rc-service": true, "update-rc.d": true, "chkconfig": true,
		"kill": true, "killall": true, "pkill": true, "skill": true, "xkill": true, "taskkill": true, "sc": true, "bcdedit": true,
		"reg": true, "regedit": true, "schtasks": true, "wmic": true, "net": true, "net1": true, "netsh": true, "icacls": true,
		"cacls": true, "takeown": true, "vssadmin": true, "wbadmin": true, "wevtutil": true, "bitsadmin": true, "certutil": true,
		"cipher": true, "fsutil": true, "mountvol": true, "manage-bde": true, "setx": true, "sfc": true, "dism": true,
		"insmod": true, "rmmod": true, "modprobe": true, "sysctl": true, "kexec": true, "iptables": true, "ip6tables": true,
		"nft": true, "ip": true, "ifconfig": true, "route": true, "crontab": true, "at": true, "grub-install": true,
		"update-grub": true, "efibootmgr": true, "apt": true, "apt-get": true, "dpkg": true, "snap": true,
	}
})

// shells and launchers would run their arguments as code and bypass every argument policy;
// they are refused even when a policy file allows them.
var launchers = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "csh": true, "tcsh": true, "fish": true,
		"ash": true, "busybox": true, "cmd": true, "powershell": true, "pwsh": true, "env": true, "xargs": true, "nohup": true,
		"timeout": true, "nice": true, "ionice": true, "stdbuf": true, "setsid": true, "eval": true, "exec": true,
		"source": true, "script": true, "watch": true, "strace": true, "ltrace": true, "gdb": true, "chrt": true,
		"taskset": true, "prlimit": true, "flock": true, "perl": true, "ruby": true, "php": true, "lua": true,
		"awk": true, "gawk": true, "mawk": true, "sed": true, "expect": true, "npx": true, "start": true, "call": true,
		"wscript": true, "cscript": true, "mshta": true, "rundll32": true, "regsvr32": true, "forfiles": true, "conhost": true,
		"wsl": true, "msiexec": true, "installutil": true, "msbuild": true, "wt": true, "explorer": true, "py": true, "pyw": true,
	}
})

// guiPrograms need a display; the shell tool runs headless programs only.
var guiPrograms = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"notepad": true, "wordpad": true, "mspaint": true}
})

// resolveProgram validates the program word and the arguments and returns the argv to run.
func (d dialect) resolveProgram(p *policy.Policy, words []word, lookPath func(string) (string, error)) ([]word, *werr.Error) {
	if len(words) == 0 {
		return nil, werr.Invalid("command is empty").WithDetail("rule", "empty-command")
	}
	if words[0].glob {
		return nil, block("glob", "give the program's name literally", "the program name %q holds a wildcard", words[0].value)
	}
	typed := words[0].value
	if typed == "" {
		return nil, werr.Invalid("the program name is empty").WithDetail("rule", "empty-command")
	}
	for _, r := range typed {
		if r > 0x7e || r < 0x21 {
			return nil, block("program-non-ascii", "type the program name in plain ASCII (git, python, dir...)",
				"the program name %q contains a non-ASCII or blank character", typed)
		}
	}
	if strings.ContainsAny(typed, "/\\:") || typed == "." || typed == ".." {
		return nil, block("program-path", "give the bare program name (git, not /usr/bin/git); the sandbox finds it on PATH; to run a script, pass it to its interpreter (python script.py, node script.js)",
			"the program is given as a path (%q)", typed)
	}
	name := strings.ToLower(typed)
	for _, ext := range []string{".exe", ".cmd", ".bat", ".com"} {
		if strings.HasSuffix(name, ext) && len(name) > len(ext) {
			name = strings.TrimSuffix(name, ext)
			break
		}
	}
	if e := d.alwaysRefused(name); e != nil {
		return nil, e
	}
	if !d.allowed(p, name) {
		return nil, block("program-not-allowed", "allowed programs: "+d.allowedPrograms(p),
			"%s is not on the allowlist", name)
	}
	canon := d.runs(name)
	if fb, ok := fallbacks()[canon]; ok && lookPath != nil {
		if _, err := lookPath(canon); err != nil {
			if _, err2 := lookPath(fb); err2 == nil {
				canon = fb
			}
		}
	}
	out := append([]word{{value: canon, pattern: canon}}, words[1:]...)
	if e := d.checkArgs(out); e != nil {
		return nil, e
	}
	return out, nil
}

// checkArgs applies the program's argument rules to argv (argv[0] canonical). The Runner
// calls it again after expanding wildcards, so a file named -rf cannot become an option.
func (d dialect) checkArgs(argv []word) *werr.Error {
	if d.windows {
		for _, a := range argv[1:] {
			if uncPath(a.value) {
				return block("unc-path", "work on local files: copy them into the working directory first",
					"%s is a network (UNC) or device path", a.value)
			}
		}
		if f := windowsArgPolicies()[argv[0].value]; f != nil {
			return f(values(argv[1:]))
		}
	}
	if f := argPolicies()[argv[0].value]; f != nil {
		return f(values(argv[1:]))
	}
	return nil
}

// runs is the program that the (lower-case) name runs: the Linux program of a Windows
// alias, else the name itself.
func (d dialect) runs(name string) string {
	if a, ok := d.aliases[name]; ok {
		return a
	}
	return name
}

// alwaysRefused is the refusal of a program that no policy file can allow, or nil.
func (d dialect) alwaysRefused(name string) *werr.Error {
	canon := d.runs(name)
	switch {
	case privileged()[name] || privileged()[canon]:
		return block("privilege-escalation", "everything runs as the session user inside the sandbox; privilege changes are never available",
			"%s changes privileges", name)
	case system()[name] || system()[canon] || strings.HasPrefix(name, "mkfs.") || strings.HasPrefix(name, "fsck."):
		return block("system-command", "disk, mount, power, service, network and process-signal commands are not available here (use kill_process or the process tools for processes)",
			"%s is a disk/mount/power/service/system command", name)
	case launchers()[name] || launchers()[canon]:
		return block("shell-program", "shells and launchers run their arguments as code; run the program directly, or use execute_python_code",
			"%s runs other commands or code", name)
	case guiPrograms()[name]:
		return werr.New(werr.Unsupported, "%s is a graphical program and the shell tool runs headless programs only", name).
			WithDetail("rule", "gui-program").
			WithHint("open a text editor with launch_application, read files with type, write them with execute_python_code")
	}
	return nil
}

// sameProgram names the versioned spellings of an allowed program.
var sameProgram = sync.OnceValue(func() map[string]string {
	return map[string]string{"python3": "python", "pip3": "pip", "nodejs": "node"}
})

// allowed says whether p allows the (lower-case) program name: an entry allows the
// program it runs, so "del" allows rm, and "rm" allows del.
func (d dialect) allowed(p *policy.Policy, name string) bool {
	unversioned, versioned := sameProgram()[name]
	for _, a := range p.AllowedCommands {
		a = strings.ToLower(a)
		if d.runs(a) == d.runs(name) || (versioned && a == unversioned) {
			return true
		}
	}
	return false
}

// AllowedPrograms lists the programs execute_shell_command runs under p, each as its
// Linux name with the Windows names that run it, in the policy's order:
// "git, npm, ..., ls/dir, ...". Programs refused whatever the policy says are left
// out. Tool descriptions and refusal hints take the list from here so that they
// always say what Check accepts.
func AllowedPrograms(p *policy.Policy) string { return host().allowedPrograms(p) }

func (d dialect) allowedPrograms(p *policy.Policy) string {
	aliases := map[string][]string{}
	for w, l := range d.aliases {
		aliases[l] = append(aliases[l], w)
	}
	var out []string
	seen := map[string]bool{}
	for _, a := range p.AllowedCommands {
		a = strings.ToLower(a)
		prog := d.runs(a)
		if a == "" || seen[prog] || d.alwaysRefused(a) != nil {
			continue
		}
		seen[prog] = true
		names := aliases[prog]
		slices.Sort(names)
		out = append(out, strings.Join(append([]string{prog}, names...), "/"))
	}
	return strings.Join(out, ", ")
}
