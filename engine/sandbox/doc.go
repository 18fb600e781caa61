// Package sandbox runs execute_shell_command and execute_python_code behind two layers
// (what each lets through and keeps out: docs/security.md).
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
//	($'..' $".."), glob (extglobs, a wildcard in the program name, an absolute pattern or
//	one with ..), brace-expansion ({a,b} {1..3}; stash@{0} passes), tilde (~user, ~ after
//	= or :, a ~/ path into a dot-entry of HOME), assignment (FOO=x cmd,
//	export), subshell, block, compound-command (if/for/while/case/[[/time/function),
//	negation (!), comment (#), control-char, bidi-char, zero-width-char, invalid-utf8,
//	syntax (INVALID_ARGUMENT: unterminated quotes, trailing backslash), empty-command and
//	too-long (INVALID_ARGUMENT, 32 KiB), extra-blocked-pattern (policy regexps).
//
// Plain wildcards (* ? [...]) and ~ are expanded by w365, never by a shell: ~ and ~/x at
// a word start become the session HOME; a wildcard word is expanded by the Runner inside
// the cwd like bash does by default (sorted, dot-names only for a pattern that starts
// with a dot, the word kept as written when nothing matches), never through a symlinked
// directory that leaves the cwd, at most MaxGlobMatches words; a match starting with - is
// passed as ./NAME, and the argument rules run again on the expanded words.
//
// The program word must be plain ASCII (program-non-ascii) and a bare name, never a path
// (program-path). It is matched case-insensitively, with .exe/.cmd/.bat/.com removed.
// Always refused, whatever the policy file allows: privilege-escalation (sudo, su, doas,
// pkexec, runuser, chroot, nsenter, unshare, bwrap...), system-command (mkfs*, dd, fdisk,
// parted, mount, umount, swapon, shutdown, reboot, poweroff, halt, systemctl, service, kill,
// killall, pkill, modprobe, sysctl, iptables, crontab, apt...), shell-program (sh, bash,
// cmd, powershell, env, xargs, perl, awk, sed, npx...: they run their arguments as
// code and would bypass the argument rules). Then the allowlist (policy AllowedCommands;
// python3/pip3 count as python/pip): program-not-allowed. AllowedPrograms renders it for
// descriptions and hints.
//
// On Linux, Windows names are aliases of the Linux program that runs in their place, always mapped
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
// and rsync://); dotnet (-g/--global, --tool-path, nuget/workload/dev-certs/sdk, --source);
// find (-exec, -execdir, -ok, -okdir, -delete, -fprint*, -fls: rule find-action); sort
// (--compress-program); go (-exec, -toolexec, go env -w/-u).
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
// namespaces), --new-session, --die-with-parent, --cap-drop ALL, /dev and /proc of its
// own, no network unless the policy's allowNetwork. The file system is read-only, and
// what could hold secrets or reach the host is shown through an allow mask: HOME, /home,
// /root, /tmp, /run/user, /run/dbus, docker's sockets and the host's private directories
// (NewRunner's private: the runtime directory with the host socket, sessions, browser
// profiles; XDG_RUNTIME_DIR) are empty tmpfs of a stated size (docs/security.md#files-in-memory),
// except that in a session (SetSessionDirs)
// HOME is the session's own home and /tmp its tmp (docs/sessions.md#files); inside them only the policy's
// SandboxReadPaths (toolchains such as ~/.pyenv, ~/.cargo/bin, ~/go/bin, read-only; ~ is
// both $HOME and the account's home) and the cwd (read-write) are bound, with credential
// files (.ssh, .npmrc, .netrc, .aws, .env, credentials...: secretPaths, secretName) inside them emptied. In the cwd, up to
// three levels down, every .git (a directory or a gitfile, found without following links)
// is bound read-only as a whole, so nothing the sandbox writes runs later when git runs on
// the host; the session's scratch directory is exempt (w365's own, 0700, removed with the
// session). A repository the call creates there is checked when the call ends, through
// safefs (no link followed, no FIFO opened): a hook that is not a .sample, a commondir, a
// config with a key beyond what git init writes and the safe keys of git config
// (gitKeySafe) or with an include, and a gitfile .git are renamed NAME.w365-untrusted and
// listed in Result.Quarantined.
//
// On a host running as root the program must not run as root: root's 0600 and 0640 files
// (/etc/shadow, /root) would open to it whatever the mapping inside the namespace. The
// helper then starts in a mount namespace of its own, mounts what bwrap must bind under
// a staging tmpfs (the cwd as an idmapped mount on which root's files appear as
// SandboxUID's, so the program can write there and what it creates is root's on disk;
// the read paths under root's 0700 HOME as plain binds), and becomes SandboxUID (nobody)
// before it execs bwrap. A cwd on a file system without idmapped mounts is then refused
// (UNAVAILABLE "the sandbox could not be set up"). The staging directory is made where
// SandboxUID may enter (confine_linux.go, stagingDir). As another user the program runs as
// that user, whose secrets outside HOME the kernel already closes. Every run also gets
// no_new_privs, the set-id seccomp filter and the Landlock scope (confine_linux.go); the
// same confinement starts a session's long-lived programs (Runner.Confine).
//
// Limits are applied by a re-executed helper (this package's init detects
// W365_SANDBOX_HELPER=FD, reads its configuration from that fd, joins the run's cgroup,
// stages mounts, drops root, calls setrlimit, then execs bwrap). The run's cgroup limits
// all its processes together: memory (policy PythonMemoryBytes, 512 MiB, for Python;
// ShellMemoryBytes, 1 GiB, for commands; swap included where the kernel counts it, so six
// children cannot hold more than one), tasks (pids.max = MaxProcesses, 512, threads
// included) and CPU (one core's worth per period, so a call's CPU time is at most its
// wall time, 120 s). It is made under cgroup v1 (/sys/fs/cgroup/{pids,memory,cpu}/w365/
// run-*) or cgroup v2 (/sys/fs/cgroup/w365/run-*), whichever this process may write;
// Result.MemoryLimitHit says when the memory limit killed a process. Per process:
// RLIMIT_AS (PythonMemoryBytes for Python; ShellAddressSpaceBytes, 4 GiB, for commands,
// since node reserves gigabytes of address space), RLIMIT_CPU (timeout + 2 s), RLIMIT_FSIZE
// 1 GiB, RLIMIT_NOFILE 4096, RLIMIT_CORE 0.
//
// When no cgroup is writable (not root, no delegation), memory is limited per process by
// RLIMIT_AS only, processes by RLIMIT_NPROC (MaxProcesses, set inside the call's user
// namespace by prlimit: nprocInside; unsandboxed the user's current count + 512, nothing as
// root, which is exempt), CPU by RLIMIT_CPU per process; ResourceLimitsApplied is false and
// Limits shows what held.
//
// A virtual session's long-lived programs join one cgroup of the session, made as a run's
// is by StartNamespaces, with pids.max SessionMaxProcesses and memory.max
// SessionMemoryBytes for all of them together (limits_linux.go), each in a cgroup below it
// with no limits of its own: the desktop's programs (ConfineDesktop) and the namespaces'
// holder in one, the Runner's launched applications and browser (Runner.Confine) in
// another, which Runner.Close kills and removes (before the desktop stops);
// Namespaces.Close removes the session's, after the desktop stopped. Without a cgroup
// every such program gets RLIMIT_NPROC SessionMaxProcesses (which the kernel holds the
// session's programs to together), and the desktop's each RLIMIT_AS SessionMemoryBytes.
// Runner.LimitsNote and CgroupsCheck say what holds (session details, w365 doctor).
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
// ResourceLimitsApplied is true only when bubblewrap and the cgroup's process and memory
// limits were all in force; Result.Limits lists exactly what was applied. Without
// bubblewrap Shell and Python refuse with UNAVAILABLE (rule sandbox-unavailable) unless the
// policy sets allowUnsandboxed: then the program runs with the rlimits and the cgroup only,
// Limits starts with "unsandboxed" and ResourceLimitsApplied is false.
//
// # cwd
//
// Empty: the Runner's scratch directory (WorkDir: a 0700 directory w365-work-* under the
// system temp directory, created on first use, kept across calls of the session so a file
// written by Python can be read with type, removed by Close). Relative: relative to it.
// "~" and "~/x" use the session HOME. A Windows path (C:/...) is INVALID_ARGUMENT; a missing
// directory is NOT_FOUND. The directory is resolved through symlinks; besides the scratch
// directory it must lie inside a workspace root (policy WorkspaceRoots, default ~), and it
// is refused (rule cwd-forbidden) when it is /, HOME or one of its parents, inside a
// dot-directory of HOME or a .git directory, a launch directory (or inside or above one),
// a host-private directory (or inside or above one), the shared /tmp or /var/tmp, or a
// system directory (/proc, /sys, /dev, /run, /etc, /usr, /boot, /bin, /sbin, /lib*):
// anything written there would run, or be read, outside the sandbox later.
//
// # Bounds of the policy check
//
// A command line is at most MaxCommandBytes (32 KiB); every pass over it (character scan,
// quote-aware scan, mvdan's parser, brace detection) is linear. The slowest inputs found
// at the cap (32 KiB of unbalanced braces, wildcards, quotes) take 23 ms on this kind of
// machine; one check is bounded by 1 s, and the fuzz test fails any input taking 3 s.
// Wildcards expand to at most MaxGlobMatches words.
//
// # Windows
//
// The same check runs in its Windows dialect (dialect in programs.go): a backslash is an
// ordinary byte (C:\Users\me; the bash parser gets it doubled), ^ is refused
// (caret-escape), an argument that is a UNC or device path is refused (unc-path), words
// with wildcards reach the program unexpanded (Windows programs expand their own), the
// Windows names are the programs themselves (no aliases), and del /S with /Q or /F is
// refused like rm -rf. cmd, powershell, pwsh, wscript, cscript, mshta, rundll32,
// regsvr32, py... are shell-program; reg, schtasks, wmic, net, icacls, certutil... are
// system-command.
//
// dir, type, copy, move, del and mkdir are cmd.exe built-ins: w365 implements them in
// Go (builtins.go) and runs them by re-executing w365.exe (argv[0] w365-builtin) under
// the same confinement as any program. cmd.exe is never started: its parser expands
// %VAR% and !VAR! and reads & | < > ^ inside arguments that Go quotes correctly for
// CommandLineToArgvW, so no quoting could keep tool input away from it. For the same
// reason NAME.cmd and NAME.bat are never run (UNSUPPORTED, rule program-batch-file);
// npm, installed as npm.cmd, runs as node with npm-cli.js beside it. Programs are
// NAME.exe or NAME.com on the sandbox PATH (absolute entries only).
//
// The program starts suspended, joins a new job object (engine/child.StartInJob) and
// only then resumes, so nothing it starts runs outside the job. The job: kill on close,
// JobMemoryLimit and ProcessMemoryLimit (PythonMemoryBytes or ShellMemoryBytes),
// ActiveProcessLimit MaxJobProcesses, a CPU-time limit per process of the timeout plus
// 2 s, a hard cap of one core for the job (where the system takes it), UI restrictions
// (desktop, clipboard, global atoms, system parameters, exit Windows),
// DIE_ON_UNHANDLED_EXCEPTION, no breakaway; a completion port reports memory-limit hits
// (MemoryLimitHit). At the timeout, at cancellation and when the program exits, the job
// is terminated. The token is CreateRestrictedToken with DISABLE_MAX_PRIVILEGE and
// Administrators deny-only, read back: Limits says token:unrestricted when privileges
// were kept (wine 8). The environment is WindowsEnv (an allowlist) with TEMP and TMP in
// the scratch directory; stdin is NUL; no console window. ResourceLimitsApplied is true
// when the job's limits read back as set and the token holds at most one privilege.
// There is no file-system view as under bubblewrap, no network isolation and no git-hook
// guard (AppContainer, or a low integrity level with a labelled cwd, would give the
// first two; neither is implemented, and wine enforces neither): the program reads and
// writes what the user may.
//
// cwd on Windows follows the same rules with Windows paths (compared case-insensitively,
// resolved through symlinks and junctions): besides the scratch directory it must lie in a
// workspace root (default %USERPROFILE%), never a drive root, the profile or a parent of
// it, AppData, a dot-directory of the profile, a .git directory, the system and program
// directories or the temporary directory itself.
//
// execute_python_code finds python.exe or python3.exe on PATH (not the Store's aliases),
// then %LOCALAPPDATA%\Programs\Python\Python3*, %ProgramFiles%\Python3*, C:\Python3*
// (newest first), then the py launcher (py -3); none is UNAVAILABLE, rule
// python-not-installed.
//
// timeoutMs: 0 means policy ExecTimeoutDefaultMs (30 s); negative or above
// ExecTimeoutMaxMs (120 s) is INVALID_ARGUMENT, never clamped. Python code longer than
// PythonCodeChars (262,144 characters) is INVALID_ARGUMENT.
//
// The package's tables by name (argument policies, refused options, programs, built-ins) are
// built at first use: every package initialises at every one-shot start
// (docs/architecture.md#one-shot-start).
package sandbox
