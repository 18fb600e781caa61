// Package sandbox runs execute_shell_command and execute_python_code (TOOLS.md section 10,
// R3-R7, R23, R24, R28; PLATFORM.md) behind two layers.
//
// # Layer 1: the policy (Check)
//
// The command line is parsed as bash (mvdan.cc/sh/v3/syntax) after a quote-aware scan,
// and only one simple command made of literal words is accepted. Quotes and backslash
// escapes are allowed where the result is literal; the argv is the words after quote
// removal. Each refusal is BLOCKED_BY_POLICY, names its rule in the message and in
// Details["rule"] (RuleOf), and carries a way forward as the hint. Rules:
//
//	pipe | |&, semicolon ;, background &, and-list &&, or-list ||, newline (also CR,
//	U+2028/2029/0085), redirection < > >> 2>&1 &>, heredoc << <<<, command-substitution
//	$( ) and backquotes, process-substitution <( >(, arithmetic-expansion $(( )) $[ ],
//	parameter-expansion ($1 $@ $? a bare $), env-var ($VAR ${VAR}, even inside single
//	quotes: nothing is expanded, so a variable would arrive as literal text),
//	env-var-percent (%VAR%: two or more characters and upper case, a known cmd.exe
//	variable or a variable of the session; git's --format=%an%n passes), ansi-c-quote
//	($'..' $".."), glob (unquoted * ? [ and extglobs), brace-expansion ({a,b} {1..3};
//	stash@{0} passes), tilde (~ at a word start or after = or :), assignment (FOO=x cmd,
//	export), subshell, block, compound-command (if/for/while/case/[[/time/function),
//	negation (!), comment (#), control-char, bidi-char, zero-width-char, invalid-utf8,
//	syntax (INVALID_ARGUMENT: unterminated quotes, trailing backslash), empty-command and
//	too-long (INVALID_ARGUMENT, 32 KiB), extra-blocked-pattern (policy regexps).
//
// The program word must be plain ASCII (program-non-ascii) and a bare name, never a path
// (program-path). It is matched case-insensitively, with .exe/.cmd/.bat/.com removed.
// Always refused, whatever the policy file allows: privilege-escalation (sudo, su, doas,
// pkexec, runuser, chroot, nsenter, unshare, bwrap...), system-command (mkfs*, dd, fdisk,
// parted, mount, umount, swapon, shutdown, reboot, poweroff, halt, systemctl, service, kill,
// killall, pkill, modprobe, sysctl, iptables, crontab, apt...), shell-program (sh, bash,
// cmd, powershell, env, xargs, find, perl, awk, sed, npx...: they run their arguments as
// code and would bypass the argument rules). Then the allowlist (policy AllowedCommands;
// python3/pip3 count as python/pip): program-not-allowed. AllowedPrograms renders it for
// descriptions and hints.
//
// Windows names are aliases of the Linux program that runs in their place, always mapped
// (windowsAliases in programs.go: dir runs ls, del runs rm, robocopy runs rsync...); the
// Linux program's own options apply (dir -la, not dir /b), and an allowlist entry allows
// the program under either name. python->python3 and pip->pip3 when python/pip are
// absent. notepad is refused with UNSUPPORTED (rule gui-program): the shell tool runs
// headless programs; launch_application opens editors.
//
// Argument rules (args.go) per program: git (-c, --config-env, -C, --git-dir/--work-tree,
// --exec-path, --upload-pack/-u, --receive-pack, --exec, rebase -x, bisect run, submodule
// foreach, --output, archive -o, --template, grep -O, ext::/fd:: transports, config
// --global/--system/--file/--edit/rename-section, config writes only to plain keys
// (user.*, init.defaultBranch, core.autocrlf, remote.*.url...), only built-in
// subcommands: aliases and hook/filter-branch/difftool/daemon/credential... are refused);
// npm (exec, x, explore, create, init <pkg>, edit, -g/--global/--location=global/
// --prefix/-C, config/set/get, --script-shell, --node-options, --userconfig, --registry,
// installs from URLs, git, GitHub shorthands, paths and tarballs, publish and account
// commands, unknown subcommands); node (-e/-p/--eval/--print, -r/--require/--import,
// --loader/--experimental-loader, --inspect*/--debug*, -, --env-file, --openssl-config;
// only options before the script are checked); python (-c, -m, - with full option-cluster
// parsing: -Bc, -Im); pip (-i/--index-url, --extra-index-url, -f/--find-links,
// --trusted-host, --python, -r/-c requirement files, -e, --global-option..., VCS and URL
// and archive specs, config set/unset/edit); cargo (+toolchain, --config, -Z, -C, install,
// uninstall, publish/login/owner/yank, external subcommands); rm/del (recursive and force
// together in any spelling: -rf -fr -Rf -r -f --recursive --force and GNU abbreviations,
// --no-preserve-root); rsync/robocopy (-e/--rsh, --rsync-path, --daemon, remote host:path
// and rsync://); dotnet (-g/--global, --tool-path, nuget/workload/dev-certs/sdk, --source).
// Long options are matched with their abbreviations where the program's parser accepts them.
//
// # Execution
//
// The validated argv runs through the program's absolute path (looked up on the session's
// PATH, absolute entries only), never through a shell, with the session environment minus
// the variables that load code or change configuration (ScrubEnv: NODE_OPTIONS, PYTHON*,
// npm_config_*, GIT_*, LD_*, BASH_ENV, ENV, PIP_*, CARGO_*, RUSTC_WRAPPER, EDITOR,
// proxies...), plus fixed non-interactive settings (GIT_EDITOR=:, PAGER=cat, TMPDIR=/tmp).
// Standard input is /dev/null. Python code is staged in a private temporary file, bound
// read-only into the sandbox and run as __main__ with the cwd first on sys.path (like
// python -c).
//
// # Layer 2: the OS sandbox
//
// The program runs under bubblewrap: --unshare-all (user, PID, network, IPC, UTS, cgroup
// namespaces), --new-session, --die-with-parent, --cap-drop ALL, read-only root, /dev and
// /proc of its own, a private tmpfs /tmp, the cwd bound read-write, no network unless the
// policy's allowNetwork, and host sockets and credentials hidden (XDG_RUNTIME_DIR,
// /run/user, /run/dbus, docker sockets, ~/.ssh, ~/.gnupg, ~/.aws, ~/.npmrc, ~/.netrc,
// ~/.git-credentials...). Limits are applied by a re-executed helper (this package's init
// detects W365_SANDBOX_HELPER=1, reads its configuration from fd 3, joins the pids cgroup,
// calls setrlimit, then execs bwrap): RLIMIT_AS (policy PythonMemoryBytes, 512 MiB, for
// Python; ShellMemoryBytes, 4 GiB, for commands, since node reserves gigabytes of address
// space), RLIMIT_CPU (timeout + 2 s), RLIMIT_FSIZE 1 GiB, RLIMIT_NOFILE 4096, RLIMIT_CORE 0.
//
// Processes: RLIMIT_NPROC counts every process of the real user and root is exempt from
// it, so it contains nothing here. What contains a fork bomb is a pids cgroup per run
// (pids.max = MaxProcesses, 512 tasks, threads included) under the cgroup v1 pids
// hierarchy (/sys/fs/cgroup/pids/w365/run-*) or cgroup v2 (/sys/fs/cgroup/w365/run-*),
// plus the PID namespace for clean-up. Without a writable pids cgroup and as a non-root
// user, RLIMIT_NPROC is set to the user's current process count + 512 instead.
//
// At the timeout (or when ctx ends) the helper's process group is killed; bwrap's PID 1
// in the namespace dies through --die-with-parent and the kernel kills everything in the
// namespace, children that called setsid included; every task left in the run's cgroup
// is killed too. When the program exits normally the namespace dies with it the same way,
// so no background process outlives a call.
//
// stdout and stderr are each kept to policy OutputBytesPerStream (32 KiB), cut on a UTF-8
// boundary (invalid bytes become U+FFFD), with StdoutTruncated/StderrTruncated; the pipes
// are drained to the end so 20 MB of output neither deadlocks nor blocks the program.
//
// ResourceLimitsApplied is true only when bubblewrap and the process-count cgroup were both
// in force; Result.Limits lists exactly what was applied. Without bubblewrap Shell and
// Python refuse with UNAVAILABLE (rule sandbox-unavailable) unless the policy sets
// allowUnsandboxed: then the program runs with the rlimits and the cgroup only,
// Limits starts with "unsandboxed" and ResourceLimitsApplied is false.
//
// # cwd
//
// Empty: the Runner's scratch directory (WorkDir: a 0700 directory w365-work-* under the
// system temp directory, created on first use, kept across calls of the session so a file
// written by Python can be read with type, removed by Close). Relative: relative to it.
// "~" and "~/x" use the session HOME. A Windows path (C:/...) is INVALID_ARGUMENT; a missing
// directory is NOT_FOUND. The directory is resolved through symlinks, and refused (rule
// cwd-forbidden) when it is /, the home directory or one of its parents (start-up files
// there run outside the sandbox later), the shared /tmp or /var/tmp (X11 and other
// sockets), or a system directory (/proc, /sys, /dev, /run, /etc, /usr, /boot, /bin,
// /sbin, /lib*).
//
// timeoutMs: 0 means policy ExecTimeoutDefaultMs (30 s); negative or above
// ExecTimeoutMaxMs (120 s) is INVALID_ARGUMENT, never clamped. Python code longer than
// PythonCodeChars (262,144 characters) is INVALID_ARGUMENT.
package sandbox
