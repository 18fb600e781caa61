package sandbox

import (
	"slices"
	"strings"
	"sync"
)

// scrubbedNames are removed from the environment of every sandboxed program: each makes
// a program load code, change its configuration or talk to something outside.
var scrubbedNames = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"BASH_ENV": true, "ENV": true, "SHELLOPTS": true, "BASHOPTS": true, "PS4": true, "PROMPT_COMMAND": true,
		"IFS": true, "CDPATH": true, "GLOBIGNORE": true, "ZDOTDIR": true,
		"NODE_OPTIONS": true, "NODE_PATH": true, "NODE_REPL_EXTERNAL_MODULE": true, "NODE_EXTRA_CA_CERTS": true,
		"NODE_TLS_REJECT_UNAUTHORIZED": true, "NODE_PRESERVE_SYMLINKS": true,
		"PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true, "RUBYOPT": true, "RUBYLIB": true,
		"JAVA_TOOL_OPTIONS": true, "_JAVA_OPTIONS": true, "JDK_JAVA_OPTIONS": true, "CLASSPATH": true,
		"DOTNET_STARTUP_HOOKS": true, "RUSTC_WRAPPER": true, "RUSTC_WORKSPACE_WRAPPER": true, "RUSTC": true,
		"RUSTDOC": true, "RUSTFLAGS": true, "RUSTDOCFLAGS": true, "RUSTUP_TOOLCHAIN": true,
		"PAGER": true, "MANPAGER": true, "EDITOR": true, "VISUAL": true, "BROWSER": true, "SSH_ASKPASS": true,
		"SUDO_ASKPASS": true, "SSH_AUTH_SOCK": true, "GPG_AGENT_INFO": true, "GCONV_PATH": true, "LOCPATH": true,
		"NLSPATH": true, "HOSTALIASES": true, "RES_OPTIONS": true, "LOCALDOMAIN": true, "TMPDIR": true,
		"PYENV_HOOK_PATH": true, "OPENSSL_CONF": true, "OPENSSL_ENGINES": true, "OPENSSL_MODULES": true,
		"SSLKEYLOGFILE": true, "http_proxy": true, "https_proxy": true, "HTTP_PROXY": true, "HTTPS_PROXY": true,
		"ALL_PROXY": true, "all_proxy": true, "W365_SANDBOX_HELPER": true,
		"GOFLAGS": true, "GOENV": true, "GOTOOLCHAIN": true, "CGO_LDFLAGS": true, "CC": true, "CXX": true,
	}
})

// scrubbedPrefixes are removed the same way, by name prefix (case-insensitive for npm_config_).
var scrubbedPrefixes = []string{
	"LD_", "PYTHON", "GIT_", "NPM_CONFIG_", "YARN_", "PIP_", "CARGO_", "COMPLUS_", "CORECLR_", "DOTNET_",
	"MALLOC_", "GLIBC_", "BASH_FUNC_", "NODE_V8_", "UV_", "CONDA_", "VIRTUAL_ENV", "W365_",
}

// fixedEnv is set for every sandboxed program, after scrubbing: no editors, pagers,
// prompts or update checks, which would hang without a terminal or reach the network.
var fixedEnv = []string{
	"GIT_EDITOR=:", "GIT_PAGER=cat", "PAGER=cat", "GIT_TERMINAL_PROMPT=0", "GIT_ASKPASS=", "GCM_INTERACTIVE=never",
	"npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false", "NO_UPDATE_NOTIFIER=1",
	"PIP_DISABLE_PIP_VERSION_CHECK=1", "PIP_NO_INPUT=1", "PYTHONIOENCODING=utf-8", "TMPDIR=/tmp",
	"CARGO_TERM_COLOR=never", "NO_COLOR=1", "TERM=dumb", "DOTNET_CLI_TELEMETRY_OPTOUT=1",
	"GOTOOLCHAIN=local", "GOTELEMETRY=off",
}

// ScrubEnv returns env without the variables that make programs load code or change their
// configuration, plus the fixed non-interactive settings. PATH, HOME, LANG, DISPLAY and
// the rest of the session environment are kept.
func ScrubEnv(env []string) []string {
	out := make([]string, 0, len(env)+len(fixedEnv))
	for _, kv := range env {
		i := strings.IndexByte(kv, '=')
		if i <= 0 {
			continue
		}
		name := kv[:i]
		if scrubbedNames()[name] || scrubbed(name) {
			continue
		}
		out = append(out, kv)
	}
	if !hasVar(out, "PATH") {
		out = append(out, "PATH=/usr/local/bin:/usr/bin:/bin")
	}
	return append(out, fixedEnv...)
}

func scrubbed(name string) bool {
	u := strings.ToUpper(name)
	for _, p := range scrubbedPrefixes {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	return strings.HasPrefix(name, "TERM") || strings.HasPrefix(u, "NO_COLOR")
}

func hasVar(env []string, name string) bool {
	return lookupVar(env, name) != ""
}

func lookupVar(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if strings.HasPrefix(env[i], name+"=") {
			return env[i][len(name)+1:]
		}
	}
	return ""
}

// windowsEnvNames are the variables a sandboxed program gets on Windows (matched
// case-insensitively, as Windows does): where the system, the user's profile and the
// installed programs are, and what the machine is. Everything else of the session (tokens,
// proxies, tool configuration such as NODE_OPTIONS or PYTHONPATH) stays out.
var windowsEnvNames = []string{
	"SystemRoot", "windir", "SystemDrive", "ComSpec", "PATH", "PATHEXT", "USERPROFILE", "HOMEDRIVE", "HOMEPATH",
	"APPDATA", "LOCALAPPDATA", "ProgramData", "ALLUSERSPROFILE", "PUBLIC", "ProgramFiles", "ProgramFiles(x86)",
	"ProgramW6432", "CommonProgramFiles", "CommonProgramFiles(x86)", "CommonProgramW6432", "NUMBER_OF_PROCESSORS",
	"PROCESSOR_ARCHITECTURE", "PROCESSOR_IDENTIFIER", "PROCESSOR_LEVEL", "PROCESSOR_REVISION", "OS", "USERNAME",
	"USERDOMAIN", "COMPUTERNAME", "LANG", "LC_ALL", "TZ",
}

// windowsFixedEnv is fixedEnv without its Unix-only entries.
func windowsFixedEnv() []string {
	var out []string
	for _, kv := range fixedEnv {
		if !strings.HasPrefix(kv, "TMPDIR=") && !strings.HasPrefix(kv, "TERM=") {
			out = append(out, kv)
		}
	}
	return out
}

// WindowsEnv returns the environment of a sandboxed program on Windows, built from an
// allowlist (windowsEnvNames) of env plus the fixed non-interactive settings. PATH keeps
// its absolute entries only. TEMP and TMP are set per run (the session scratch directory).
func WindowsEnv(env []string) []string {
	var out []string
	for _, kv := range env {
		i := strings.IndexByte(kv, '=')
		if i <= 0 {
			continue // includes cmd.exe's per-drive "=C:=C:\dir" entries
		}
		name := kv[:i]
		if !slices.ContainsFunc(windowsEnvNames, func(n string) bool { return strings.EqualFold(n, name) }) {
			continue
		}
		if strings.EqualFold(name, "PATH") {
			var keep []string
			for _, d := range strings.Split(kv[i+1:], ";") {
				if isWindowsAbs(d) {
					keep = append(keep, d)
				}
			}
			kv = name + "=" + strings.Join(keep, ";")
		}
		out = append(out, kv)
	}
	return append(out, windowsFixedEnv()...)
}

// isWindowsAbs reports a drive-absolute Windows path (C:\x, C:/x); UNC paths and
// relative entries, which would resolve against the working directory, are not.
func isWindowsAbs(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		((p[0] >= 'A' && p[0] <= 'Z') || (p[0] >= 'a' && p[0] <= 'z'))
}
