package sandbox

import (
	"strings"
	"sync"

	"github.com/w365/w365/engine/werr"
)

// argPolicies close, per program, the flags and subcommands that run code chosen on the
// command line, reconfigure the program globally, or destroy data wholesale. The OS
// sandbox (layer 2) remains the boundary; these rules make refusals early and explicit.
var argPolicies = sync.OnceValue(func() map[string]func([]string) *werr.Error {
	return map[string]func([]string) *werr.Error{
		"git":     checkGit,
		"npm":     checkNpm,
		"node":    checkNode,
		"nodejs":  checkNode,
		"python":  checkPython,
		"python3": checkPython,
		"pip":     checkPip,
		"pip3":    checkPip,
		"cargo":   checkCargo,
		"rm":      checkRm,
		"rsync":   checkRsync,
		"dotnet":  checkDotnet,
		"find":    checkFind,
		"sort":    checkSort,
		"go":      checkGo,
	}
})

// longName returns the option name of a "--name[=value]" argument, or "".
func longName(a string) string {
	if !strings.HasPrefix(a, "--") || len(a) < 3 {
		return ""
	}
	if i := strings.IndexByte(a, '='); i >= 0 {
		return a[:i]
	}
	return a
}

// abbrevOf reports whether the long option in a is full or an abbreviation of it (GNU
// getopt, git parse-options, optparse and nopt all accept unique prefixes).
func abbrevOf(a, full string) bool {
	n := longName(a)
	return n != "" && strings.HasPrefix(full, n)
}

// exactLong reports whether a is --full or --full=value.
func exactLong(a, full string) bool {
	return a == full || strings.HasPrefix(a, full+"=")
}

// shortCluster returns the letters of a "-abc" argument, or "".
func shortCluster(a string) string {
	if len(a) >= 2 && a[0] == '-' && a[1] != '-' {
		return a[1:]
	}
	return ""
}

// ---- git ----

var gitSubcommands = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"add": true, "am": true, "annotate": true, "apply": true, "archive": true, "bisect": true, "blame": true,
		"branch": true, "bundle": true, "cat-file": true, "check-attr": true, "check-ignore": true, "check-mailmap": true,
		"check-ref-format": true, "checkout": true, "cherry": true, "cherry-pick": true, "clean": true, "clone": true,
		"commit": true, "commit-graph": true, "commit-tree": true, "config": true, "count-objects": true, "describe": true,
		"diff": true, "diff-files": true, "diff-index": true, "diff-tree": true, "fetch": true, "for-each-ref": true,
		"format-patch": true, "fsck": true, "gc": true, "grep": true, "hash-object": true, "help": true, "init": true,
		"init-db": true, "log": true, "ls-files": true, "ls-remote": true, "ls-tree": true, "merge": true,
		"merge-base": true, "merge-file": true, "mktag": true, "mktree": true, "mv": true, "name-rev": true, "notes": true,
		"pack-refs": true, "prune": true, "pull": true, "push": true, "range-diff": true, "read-tree": true,
		"rebase": true, "reflog": true, "remote": true, "repack": true, "replace": true, "rerere": true, "reset": true,
		"restore": true, "rev-list": true, "rev-parse": true, "revert": true, "rm": true, "shortlog": true, "show": true,
		"show-branch": true, "show-ref": true, "sparse-checkout": true, "stash": true, "status": true, "stripspace": true,
		"submodule": true, "switch": true, "symbolic-ref": true, "tag": true, "update-index": true, "update-ref": true,
		"var": true, "verify-commit": true, "verify-pack": true, "verify-tag": true, "version": true, "whatchanged": true,
		"worktree": true, "write-tree": true,
	}
})

// gitRefused explains the git subcommands that are refused on purpose.
var gitRefused = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"hook":              "runs hook scripts",
		"filter-branch":     "runs shell code given as arguments",
		"difftool":          "launches external diff programs",
		"mergetool":         "launches external merge programs",
		"daemon":            "starts a network server",
		"instaweb":          "starts a web server and a browser",
		"shell":             "is a login shell",
		"upload-pack":       "is a server-side transport program",
		"receive-pack":      "is a server-side transport program",
		"upload-archive":    "is a server-side transport program",
		"http-backend":      "is a server-side transport program",
		"credential":        "reads and stores credentials",
		"send-email":        "sends mail through external programs",
		"imap-send":         "sends mail",
		"web--browse":       "launches a browser",
		"maintenance":       "registers scheduled jobs outside the sandbox",
		"gui":               "is a graphical program",
		"citool":            "is a graphical program",
		"p4":                "runs the Perforce client",
		"svn":               "runs the Subversion bridge",
		"cvsimport":         "runs CVS tools",
		"archimport":        "runs Arch tools",
		"quiltimport":       "runs quilt",
		"request-pull":      "contacts remotes",
		"fsmonitor--daemon": "starts a daemon",
		"remote-ext":        "runs a command as a transport",
		"remote-fd":         "is an internal transport",
	}
})

// gitConfigSafe are the configuration keys git config may write (lower case; * is one
// dotted component). Everything else can name a program git would run (core.pager,
// core.hooksPath, core.fsmonitor, alias.*, *.command, filter.*, diff.*.textconv, ...).
var gitConfigSafe = []string{
	"user.*", "author.*", "committer.*", "init.defaultbranch",
	"core.autocrlf", "core.eol", "core.ignorecase", "core.filemode", "core.quotepath", "core.safecrlf",
	"core.whitespace", "core.longpaths", "core.symlinks", "core.abbrev", "core.compression",
	"pull.rebase", "pull.ff", "merge.ff", "merge.conflictstyle", "push.default", "push.autosetupremote",
	"push.followtags", "fetch.prune", "fetch.prunetags", "branch.*.remote", "branch.*.merge", "branch.*.rebase",
	"branch.*.description", "remote.*.url", "remote.*.pushurl", "remote.*.fetch", "remote.*.prune",
	"remote.*.tagopt", "color.ui", "color.*", "color.*.*", "diff.renames", "diff.algorithm",
	"diff.mnemonicprefix", "diff.noprefix", "diff.context", "log.*", "format.pretty", "advice.*", "tag.sort",
	"rerere.enabled", "status.*", "i18n.*", "column.*", "commit.verbose", "commit.cleanup", "commit.status",
	"commit.gpgsign", "tag.gpgsign", "gc.auto", "rebase.autosquash", "rebase.autostash", "rebase.updaterefs",
}

func gitKeySafe(key string) bool {
	k := strings.ToLower(key)
	parts := strings.Split(k, ".")
	for _, pat := range gitConfigSafe {
		pp := strings.Split(pat, ".")
		// subsection names may contain dots: compare first and last components.
		if len(pp) == 3 && len(parts) >= 3 {
			if (pp[0] == parts[0] || pp[0] == "*") && (pp[2] == parts[len(parts)-1] || pp[2] == "*") {
				return true
			}
			continue
		}
		if len(pp) != len(parts) {
			continue
		}
		ok := true
		for i := range pp {
			if pp[i] != "*" && pp[i] != parts[i] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func checkGit(args []string) *werr.Error {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-c" || strings.HasPrefix(a, "-c") && !strings.HasPrefix(a, "--"):
			return block("git-config-override", "set repository options with git config KEY VALUE (safe keys only); code-running options are never settable",
				"git -c sets configuration for one command, which can run programs (core.pager, alias.*, core.hooksPath...)")
		case exactLong(a, "--config-env") || strings.HasPrefix(a, "--config-env"):
			return block("git-config-override", "configuration cannot be injected from the environment", "git --config-env")
		case a == "-C" || strings.HasPrefix(a, "-C"):
			return block("git-directory", "pass the repository directory as the cwd parameter instead of git -C", "git -C changes to another directory")
		case exactLong(a, "--git-dir") || exactLong(a, "--work-tree") || exactLong(a, "--super-prefix") || exactLong(a, "--namespace"):
			return block("git-directory", "pass the repository directory as the cwd parameter", "%s points git at another repository", longName(a))
		case exactLong(a, "--exec-path"):
			return block("git-exec-path", "git's helper programs cannot be replaced", "git --exec-path chooses the directory git runs helper programs from")
		case exactLong(a, "--attr-source"):
			if a == "--attr-source" {
				i++
			}
		case a == "--list-cmds" || strings.HasPrefix(a, "--list-cmds="):
		case strings.HasPrefix(a, "-"):
			// -p, -P, --no-pager, --bare, --version, --help, --*-pathspecs, --no-replace-objects...
		default:
			goto sub
		}
	}
	return nil
sub:
	cmd := args[i]
	rest := args[i+1:]
	if why, ok := gitRefused()[cmd]; ok {
		return block("git-subcommand", "use the ordinary git commands (status, log, diff, add, commit, ...); run other tooling from execute_python_code",
			"git %s %s", cmd, why)
	}
	if strings.HasPrefix(cmd, "credential-") {
		return block("git-subcommand", "credentials are not available in the sandbox", "git %s reads and stores credentials", cmd)
	}
	if !gitSubcommands()[cmd] {
		return block("git-subcommand", "aliases and external git-* programs are not run; use a built-in git command",
			"git %s is not a known built-in git command (aliases can run arbitrary programs)", cmd)
	}
	// Options anywhere after the subcommand, up to "--".
	for j := 0; j < len(rest); j++ {
		a := rest[j]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "ext::") || strings.HasPrefix(a, "fd::") {
			return block("git-transport", "use an https:// or ssh-less local path remote", "the %s transport runs a command", a[:strings.Index(a, "::")+2])
		}
		switch {
		case abbrevOf(a, "--upload-pack") && len(longName(a)) > 3:
			return block("git-upload-pack", "remote helper programs cannot be chosen on the command line", "%s names a program to run", longName(a))
		case abbrevOf(a, "--receive-pack") && len(longName(a)) > 3:
			return block("git-receive-pack", "remote helper programs cannot be chosen on the command line", "%s names a program to run", longName(a))
		case abbrevOf(a, "--exec") && len(longName(a)) > 3:
			return block("git-exec", "run each step yourself, one command per call", "%s runs a command", longName(a))
		case abbrevOf(a, "--output") && len(longName(a)) > 3:
			return block("git-output", "read the output from stdout (it is returned) or write files with execute_python_code", "%s writes the output to a file", longName(a))
		case abbrevOf(a, "--template") && len(longName(a)) > 4 && (cmd == "clone" || cmd == "init" || cmd == "init-db"):
			return block("git-template", "create the repository without a template", "--template copies hook scripts into the new repository")
		case (abbrevOf(a, "--config") && len(longName(a)) > 4) && (cmd == "clone" || cmd == "submodule"):
			return block("git-config-override", "configure the repository afterwards with git config (safe keys only)", "git %s --config sets configuration that can run programs", cmd)
		case abbrevOf(a, "--open-files-in-pager") && len(longName(a)) > 3 && cmd == "grep":
			return block("git-pager", "grep output is returned as stdout", "--open-files-in-pager runs a program")
		}
		sc := shortCluster(a)
		switch cmd {
		case "clone":
			if strings.Contains(sc, "u") {
				return block("git-upload-pack", "clone without -u", "git clone -u names a program to run")
			}
			if strings.Contains(sc, "c") {
				return block("git-config-override", "configure the repository afterwards with git config (safe keys only)", "git clone -c sets configuration that can run programs")
			}
		case "rebase":
			if strings.Contains(sc, "x") {
				return block("git-exec", "run each step yourself, one command per call", "git rebase -x runs a shell command")
			}
		case "grep":
			if strings.Contains(sc, "O") {
				return block("git-pager", "grep output is returned as stdout", "git grep -O runs a program")
			}
		case "archive":
			if strings.Contains(sc, "o") {
				return block("git-output", "write archives with execute_python_code (subprocess) or use git bundle", "git archive -o writes to a file")
			}
		case "help":
			if strings.ContainsAny(sc, "wi") || abbrevOf(a, "--web") || abbrevOf(a, "--info") {
				return block("git-subcommand", "read git help as text (git help CMD)", "git help --web/--info launches another program")
			}
		}
	}
	switch cmd {
	case "bisect":
		if len(rest) > 0 && rest[0] == "run" {
			return block("git-exec", "test each bisect step yourself, one command per call", "git bisect run runs a command")
		}
	case "submodule":
		for _, a := range rest {
			if a == "foreach" {
				return block("git-exec", "run the command in each submodule directory yourself (cwd parameter)", "git submodule foreach runs a shell command")
			}
		}
	case "config":
		return checkGitConfig(rest)
	}
	return nil
}

func checkGitConfig(args []string) *werr.Error {
	var pos []string
	write := false
	read := false
	for j := 0; j < len(args); j++ {
		a := args[j]
		switch {
		case abbrevOf(a, "--global") && len(longName(a)) > 3, abbrevOf(a, "--system") && len(longName(a)) > 3:
			return block("git-config-global", "configure the repository only: git config KEY VALUE in the repository (cwd)", "git config %s changes configuration outside the repository", longName(a))
		case a == "-f" || exactLong(a, "--file") || exactLong(a, "--blob") || strings.HasPrefix(a, "-f"):
			return block("git-config-global", "configure the repository only: git config KEY VALUE", "git config --file/--blob reads or writes another configuration file")
		case a == "-e" || exactLong(a, "--edit") || (len(pos) == 0 && a == "edit"):
			return block("git-config-edit", "set one key with git config KEY VALUE", "git config --edit launches an editor")
		case exactLong(a, "--rename-section") || (len(pos) == 0 && a == "rename-section"):
			return block("git-config-key", "set keys one by one with git config KEY VALUE", "renaming a section can turn harmless keys into program-running ones")
		case exactLong(a, "--add") || exactLong(a, "--replace-all"):
			write = true
		case exactLong(a, "--get") || exactLong(a, "--get-all") || exactLong(a, "--get-regexp") || exactLong(a, "--get-urlmatch") ||
			a == "-l" || exactLong(a, "--list") || exactLong(a, "--unset") || exactLong(a, "--unset-all") ||
			exactLong(a, "--remove-section") || exactLong(a, "--get-color") || exactLong(a, "--get-colorbool"):
			read = true
		case a == "--type" || a == "--default" || a == "--comment" || a == "--value" || a == "-t":
			j++
		case strings.HasPrefix(a, "-"):
		default:
			pos = append(pos, a)
		}
	}
	if len(pos) > 0 {
		switch pos[0] {
		case "set":
			write, read = true, false
			pos = pos[1:]
		case "get", "list", "unset", "remove-section":
			return nil
		}
	}
	if !read && len(pos) >= 2 {
		write = true
	}
	if write && len(pos) >= 1 {
		if !gitKeySafe(pos[0]) {
			return block("git-config-key", "only plain settings can be written (user.*, init.defaultBranch, core.autocrlf, pull.rebase, remote.*.url, ...)",
				"git config %s could make git run a program", pos[0])
		}
		for _, v := range pos[1:] {
			if strings.HasPrefix(v, "ext::") || strings.HasPrefix(v, "fd::") {
				return block("git-transport", "use an https:// URL or a local path", "the ext::/fd:: transport runs a command")
			}
		}
	}
	return nil
}

// ---- npm ----

var npmSubcommands = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"ls": true, "list": true, "ll": true, "la": true, "version": true, "view": true, "info": true, "show": true, "v": true,
		"install": true, "i": true, "in": true, "ins": true, "inst": true, "insta": true, "instal": true, "isnt": true,
		"isnta": true, "isntal": true, "isntall": true, "add": true, "ci": true, "clean-install": true, "ic": true,
		"install-clean": true, "isntall-clean": true, "install-test": true, "it": true, "install-ci-test": true, "cit": true,
		"uninstall": true, "un": true, "unlink": true, "remove": true, "rm": true, "r": true, "update": true, "up": true,
		"upgrade": true, "udpate": true, "outdated": true, "run": true, "run-script": true, "rum": true, "urn": true,
		"test": true, "t": true, "tst": true, "start": true, "stop": true, "restart": true, "pack": true, "audit": true,
		"doctor": true, "help": true, "help-search": true, "search": true, "find": true, "s": true, "se": true, "init": true,
		"prune": true, "dedupe": true, "ddp": true, "find-dupes": true, "fund": true, "explain": true, "why": true,
		"query": true, "pkg": true, "root": true, "prefix": true, "bin": true, "cache": true, "shrinkwrap": true, "sbom": true,
		"diff": true, "rebuild": true, "rb": true, "ping": true, "whoami": true,
	}
})

var npmRefused = sync.OnceValue(func() map[string][2]string {
	return map[string][2]string{
		"exec":       {"npm-exec", "npm exec downloads and runs a package's program"},
		"x":          {"npm-exec", "npm x downloads and runs a package's program"},
		"explore":    {"npm-exec", "npm explore runs a shell command"},
		"create":     {"npm-exec", "npm create runs an initializer package"},
		"innit":      {"npm-exec", "npm init with an initializer runs a package"},
		"edit":       {"npm-exec", "npm edit launches an editor"},
		"config":     {"npm-config", "npm config changes npm's configuration (script-shell, node-options, prefix...)"},
		"c":          {"npm-config", "npm config changes npm's configuration"},
		"set":        {"npm-config", "npm set changes npm's configuration"},
		"get":        {"npm-config", "npm get reads npm's configuration"},
		"link":       {"npm-global", "npm link installs into the global prefix"},
		"ln":         {"npm-global", "npm link installs into the global prefix"},
		"publish":    {"npm-publish", "npm publish uploads to the registry"},
		"unpublish":  {"npm-publish", "npm unpublish removes packages from the registry"},
		"deprecate":  {"npm-publish", "npm deprecate changes the registry"},
		"dist-tag":   {"npm-publish", "npm dist-tag changes the registry"},
		"owner":      {"npm-publish", "npm owner changes the registry"},
		"access":     {"npm-publish", "npm access changes the registry"},
		"adduser":    {"npm-publish", "npm adduser handles credentials"},
		"login":      {"npm-publish", "npm login handles credentials"},
		"logout":     {"npm-publish", "npm logout handles credentials"},
		"token":      {"npm-publish", "npm token handles credentials"},
		"team":       {"npm-publish", "npm team changes the registry"},
		"org":        {"npm-publish", "npm org changes the registry"},
		"profile":    {"npm-publish", "npm profile changes the account"},
		"star":       {"npm-publish", "npm star changes the registry"},
		"unstar":     {"npm-publish", "npm unstar changes the registry"},
		"hook":       {"npm-publish", "npm hook changes the registry"},
		"bugs":       {"npm-exec", "npm bugs launches a browser"},
		"docs":       {"npm-exec", "npm docs launches a browser"},
		"home":       {"npm-exec", "npm home launches a browser"},
		"repo":       {"npm-exec", "npm repo launches a browser"},
		"completion": {"npm-exec", "npm completion writes shell code"},
	}
})

// npmDangerousLong are npm options that choose programs, configuration files, the global
// prefix or the registry.
var npmDangerousLong = []struct{ name, rule, why string }{
	{"--global", "npm-global", "installs outside the project"},
	{"--prefix", "npm-global", "installs outside the project"},
	{"--userconfig", "npm-config", "reads another configuration file"},
	{"--globalconfig", "npm-config", "reads another configuration file"},
	{"--script-shell", "npm-config", "chooses the shell that runs scripts"},
	{"--node-options", "npm-config", "passes options (such as --require) to every node process"},
	{"--shell", "npm-config", "chooses a shell"},
	{"--call", "npm-exec", "runs a command"},
	{"--init-module", "npm-exec", "runs a module"},
	{"--editor", "npm-config", "chooses a program"},
	{"--browser", "npm-config", "chooses a program"},
	{"--viewer", "npm-config", "chooses a program"},
	{"--git", "npm-config", "chooses the git program"},
	{"--onload-script", "npm-exec", "runs a module"},
	{"--registry", "npm-registry", "installs from another registry"},
	{"--node-gyp", "npm-config", "chooses a program"},
}

func checkNpm(args []string) *werr.Error {
	sub := ""
	var pos []string
	for j := 0; j < len(args); j++ {
		a := args[j]
		if a == "--" {
			break
		}
		if n := longName(a); n != "" {
			for _, d := range npmDangerousLong {
				if abbrevOf(a, d.name) && (len(n) >= 4 || n == d.name) {
					return block(d.rule, npmHint(d.rule), "npm %s %s", n, d.why)
				}
			}
			if strings.HasSuffix(n, ":registry") {
				return block("npm-registry", npmHint("npm-registry"), "npm %s installs from another registry", n)
			}
			if abbrevOf(a, "--location") && len(n) >= 4 {
				v := strings.TrimPrefix(a, n)
				v = strings.TrimPrefix(v, "=")
				if v == "" && j+1 < len(args) {
					v = args[j+1]
				}
				if v != "project" {
					return block("npm-global", npmHint("npm-global"), "npm --location=%s writes outside the project", v)
				}
			}
			continue
		}
		if sc := shortCluster(a); sc != "" {
			if strings.ContainsAny(sc, "gC") {
				return block("npm-global", npmHint("npm-global"), "npm -g/-C installs or works outside the project")
			}
			if sc == "c" && (sub == "exec" || sub == "x" || sub == "") {
				return block("npm-exec", npmHint("npm-exec"), "npm -c runs a command")
			}
			continue
		}
		if sub == "" {
			sub = strings.ToLower(a)
			continue
		}
		pos = append(pos, a)
	}
	if sub == "" {
		return nil
	}
	if r, ok := npmRefused()[sub]; ok {
		return block(r[0], npmHint(r[0]), "%s", r[1])
	}
	if !npmSubcommands()[sub] {
		return block("npm-subcommand", "use npm ls, install, ci, run, test, view, outdated, pack...", "npm %s is not an allowed npm command", sub)
	}
	switch sub {
	case "init":
		if len(pos) > 0 {
			return block("npm-exec", "run npm init -y without an initializer", "npm init %s runs an initializer package", pos[0])
		}
	case "install", "i", "in", "ins", "inst", "insta", "instal", "isnt", "isnta", "isntal", "isntall", "add", "update", "up", "upgrade", "udpate",
		"install-test", "it":
		for _, spec := range pos {
			if why := npmRemoteSpec(spec); why != "" {
				return block("npm-remote-source", npmHint("npm-remote-source"), "npm %s %s: %s", sub, spec, why)
			}
		}
	}
	return nil
}

func npmRemoteSpec(spec string) string {
	s := strings.ToLower(spec)
	switch {
	case strings.Contains(s, "://"):
		return "installs from a URL"
	case strings.HasPrefix(s, "git+") || strings.HasPrefix(s, "git:") || strings.HasPrefix(s, "github:") ||
		strings.HasPrefix(s, "gitlab:") || strings.HasPrefix(s, "bitbucket:") || strings.HasPrefix(s, "gist:"):
		return "installs from a git repository"
	case strings.HasPrefix(s, "file:") || strings.HasPrefix(s, "link:") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "/") ||
		strings.HasPrefix(s, "~"):
		return "installs from a local path"
	case strings.HasSuffix(s, ".tgz") || strings.HasSuffix(s, ".tar.gz") || strings.HasSuffix(s, ".tar"):
		return "installs from a tarball"
	}
	name, ver := s, ""
	if i := strings.LastIndexByte(s, '@'); i > 0 {
		name, ver = s[:i], s[i+1:]
	}
	if strings.ContainsAny(ver, ":/") {
		return "installs from a URL, git or path version spec"
	}
	if !strings.HasPrefix(name, "@") && strings.Contains(name, "/") {
		return "user/repo installs from GitHub"
	}
	return ""
}

func npmHint(rule string) string {
	switch rule {
	case "npm-exec":
		return "install the package as a project dependency (npm install NAME) and run it through a package.json script (npm run NAME)"
	case "npm-config":
		return "project settings belong in package.json or a .npmrc written with execute_python_code"
	case "npm-global":
		return "install into the project (npm install NAME in cwd); global installs are not available"
	case "npm-registry":
		return "install from the default registry"
	case "npm-remote-source":
		return "install published packages by name (npm install NAME@VERSION)"
	case "npm-publish":
		return "registry and account changes are not available from the sandbox"
	}
	return ""
}

// ---- node ----

// nodeValueOpts take their value as the next argument when written without "=".
var nodeValueOpts = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"--allow-fs-read": true, "--allow-fs-write": true, "--build-snapshot-config": true, "-C": true, "--conditions": true,
		"--cpu-prof-dir": true, "--cpu-prof-interval": true, "--cpu-prof-name": true, "--diagnostic-dir": true,
		"--disable-proto": true, "--disable-warning": true, "--dns-result-order": true, "--experimental-default-type": true,
		"--experimental-policy": true, "--experimental-sea-config": true, "--heap-prof-dir": true, "--heap-prof-interval": true,
		"--heap-prof-name": true, "--heapsnapshot-near-heap-limit": true, "--heapsnapshot-signal": true, "--icu-data-dir": true,
		"--input-type": true, "--inspect-publish-uid": true, "--max-http-header-size": true,
		"--network-family-autoselection-attempt-timeout": true, "--policy-integrity": true, "--redirect-warnings": true,
		"--report-filename": true, "--report-signal": true, "--secure-heap": true, "--secure-heap-min": true,
		"--snapshot-blob": true, "--test-concurrency": true, "--test-name-pattern": true, "--test-reporter": true,
		"--test-reporter-destination": true, "--test-shard": true, "--test-timeout": true, "--title": true,
		"--tls-cipher-list": true, "--tls-keylog": true, "--trace-event-categories": true, "--trace-event-file-pattern": true,
		"--trace-require-module": true, "--unhandled-rejections": true, "--use-largepages": true, "--v8-pool-size": true,
		"--watch-path": true, "--test-skip-pattern": true, "--localstorage-file": true, "--stack-size": true,
	}
})

func checkNode(args []string) *werr.Error {
	for j := 0; j < len(args); j++ {
		a := args[j]
		if a == "--" {
			return nil
		}
		if a == "-" {
			return block("node-stdin", "write the script to a file with execute_python_code and run node FILE", "node - reads the program from standard input")
		}
		if !strings.HasPrefix(a, "-") {
			return nil // the script; what follows is its arguments
		}
		name := a
		if i := strings.IndexByte(a, '='); i >= 0 {
			name = a[:i]
		}
		name = strings.ReplaceAll(name, "_", "-")
		if !strings.HasPrefix(name, "--") {
			for _, c := range name[1:] {
				switch c {
				case 'e', 'p':
					return block("node-eval", "write the code to a file with execute_python_code and run node FILE", "node -e/-p evaluates code given on the command line")
				case 'r':
					return block("node-preload", "require the module from your script", "node -r preloads a module")
				}
			}
			if name == "-C" && !strings.Contains(a, "=") {
				j++
			}
			continue
		}
		switch {
		case name == "--eval" || name == "--print":
			return block("node-eval", "write the code to a file with execute_python_code and run node FILE", "node %s evaluates code given on the command line", name)
		case name == "--require" || name == "--import":
			return block("node-preload", "require or import the module from your script", "node %s preloads a module", name)
		case name == "--loader" || name == "--experimental-loader" || strings.HasPrefix(name, "--experimental-") && strings.Contains(name, "loader"):
			return block("node-loader", "import the module from your script", "node %s installs a module loader", name)
		case strings.HasPrefix(name, "--inspect") || strings.HasPrefix(name, "--debug"):
			return block("node-inspect", "debuggers are not available in the sandbox; add logging to the script", "node %s opens a debugger port", name)
		case strings.HasPrefix(name, "--env-file"):
			return block("node-env-file", "set values in the script itself", "node %s loads environment variables (including NODE_OPTIONS)", name)
		case strings.HasPrefix(name, "--openssl-config") || name == "--openssl-shared-config":
			return block("node-openssl-config", "use the default OpenSSL configuration", "node %s loads native OpenSSL engines", name)
		case name == "--interactive":
		}
		if nodeValueOpts()[name] && !strings.Contains(a, "=") {
			j++
		}
	}
	return nil
}

// ---- python ----

func checkPython(args []string) *werr.Error {
	for j := 0; j < len(args); j++ {
		a := args[j]
		switch {
		case a == "-":
			return block("python-stdin", "run the code with execute_python_code", "python - reads the program from standard input")
		case a == "--":
			if j+1 < len(args) && args[j+1] == "-" {
				return block("python-stdin", "run the code with execute_python_code", "python - reads the program from standard input")
			}
			return nil
		case a == "--check-hash-based-pycs":
			j++
		case strings.HasPrefix(a, "--"):
		case strings.HasPrefix(a, "-"):
			cl := a[1:]
			for k := 0; k < len(cl); k++ {
				switch cl[k] {
				case 'c':
					return block("python-eval", "run the code with execute_python_code, or write it to a file and run python FILE", "python -c runs code given on the command line")
				case 'm':
					return block("python-module", "run the module's own command (pip list, not python -m pip list) or use execute_python_code (import runpy)", "python -m runs a module as a program")
				case 'W', 'X':
					if k == len(cl)-1 {
						j++
					}
					k = len(cl)
				}
			}
		default:
			return nil // the script
		}
	}
	return nil
}

// ---- pip ----

var pipDangerousLong = []struct{ name, rule, why string }{
	{"--index-url", "pip-index", "installs from another package index"},
	{"--extra-index-url", "pip-index", "installs from another package index"},
	{"--find-links", "pip-index", "installs from other locations"},
	{"--trusted-host", "pip-index", "trusts another host"},
	{"--python", "pip-python", "runs pip under another interpreter"},
	{"--requirement", "pip-requirements", "reads install sources from a file the policy cannot check"},
	{"--constraint", "pip-requirements", "reads install sources from a file the policy cannot check"},
	{"--editable", "pip-editable", "builds and links a project (and accepts VCS URLs)"},
	{"--global-option", "pip-build-option", "passes options to setup.py"},
	{"--install-option", "pip-build-option", "passes options to setup.py"},
	{"--build-option", "pip-build-option", "passes options to setup.py"},
	{"--config-settings", "pip-build-option", "passes options to the build backend"},
	{"--src", "pip-editable", "chooses where VCS checkouts go"},
}

var pipInstallLike = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"install": true, "download": true, "wheel": true, "index": true, "lock": true, "uninstall": true}
})

func checkPip(args []string) *werr.Error {
	sub := ""
	for j := 0; j < len(args); j++ {
		a := args[j]
		if n := longName(a); n != "" {
			for _, d := range pipDangerousLong {
				if abbrevOf(a, d.name) && (len(n) >= 4 || n == d.name) {
					return block(d.rule, pipHint(d.rule), "pip %s %s", n, d.why)
				}
			}
			continue
		}
		if sc := shortCluster(a); sc != "" {
			if pipInstallLike()[sub] {
				for _, c := range sc {
					switch c {
					case 'i', 'f':
						return block("pip-index", pipHint("pip-index"), "pip -%c installs from another index or location", c)
					case 'r', 'c':
						return block("pip-requirements", pipHint("pip-requirements"), "pip -%c reads install sources from a file", c)
					case 'e':
						return block("pip-editable", pipHint("pip-editable"), "pip -e builds and links a project")
					}
				}
			}
			continue
		}
		if sub == "" {
			sub = strings.ToLower(a)
			if sub == "config" && j+1 < len(args) {
				switch args[j+1] {
				case "set", "unset", "edit":
					return block("pip-config", pipHint("pip-config"), "pip config %s changes pip's configuration (index URLs...)", args[j+1])
				}
			}
			continue
		}
		if pipInstallLike()[sub] {
			s := strings.ToLower(a)
			for _, vcs := range []string{"git+", "hg+", "svn+", "bzr+"} {
				if strings.HasPrefix(s, vcs) || strings.Contains(s, "@"+vcs) || strings.Contains(s, "@ "+vcs) {
					return block("pip-url", pipHint("pip-url"), "pip %s %s installs from a version-control repository", sub, a)
				}
			}
			if strings.Contains(s, "://") || strings.HasPrefix(s, "file:") {
				return block("pip-url", pipHint("pip-url"), "pip %s %s installs from a URL", sub, a)
			}
			if strings.HasSuffix(s, ".whl") || strings.HasSuffix(s, ".tar.gz") || strings.HasSuffix(s, ".zip") || strings.HasSuffix(s, ".tgz") {
				return block("pip-url", pipHint("pip-url"), "pip %s %s installs from an archive", sub, a)
			}
		}
	}
	return nil
}

func pipHint(rule string) string {
	switch rule {
	case "pip-config":
		return "read the configuration with pip config list"
	case "pip-python":
		return "run pip of the interpreter you mean"
	}
	return "install published packages by name from the default index (pip install NAME==VERSION)"
}

// ---- cargo ----

var cargoSubcommands = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"build": true, "b": true, "check": true, "c": true, "clean": true, "doc": true, "d": true, "new": true, "init": true,
		"add": true, "remove": true, "rm": true, "run": true, "r": true, "test": true, "t": true, "bench": true, "update": true,
		"search": true, "tree": true, "metadata": true, "fmt": true, "clippy": true, "version": true, "help": true,
		"fetch": true, "generate-lockfile": true, "locate-project": true, "pkgid": true, "verify-project": true,
		"read-manifest": true, "vendor": true, "package": true, "report": true, "rustc": true, "rustdoc": true, "fix": true,
		"info": true,
	}
})

func checkCargo(args []string) *werr.Error {
	if len(args) > 0 && strings.HasPrefix(args[0], "+") {
		return block("cargo-toolchain", "use the default toolchain", "cargo %s selects another toolchain (rustup runs it)", args[0])
	}
	sub := ""
	for j := 0; j < len(args); j++ {
		a := args[j]
		if a == "--" {
			break
		}
		switch {
		case exactLong(a, "--config") || (longName(a) != "" && abbrevOf(a, "--config") && len(longName(a)) >= 6):
			return block("cargo-config", "put settings in the project's Cargo.toml", "cargo --config can set build programs (rustc wrappers, linkers, runners)")
		case strings.HasPrefix(a, "-Z"):
			return block("cargo-unstable", "use stable cargo features", "cargo -Z enables unstable features")
		case a == "--color" || a == "--explain" || a == "--manifest-path" || a == "-p" || a == "--package" ||
			a == "--target" || a == "--target-dir" || a == "--bin" || a == "--example" || a == "--features" || a == "-F" ||
			a == "-j" || a == "--jobs" || a == "--profile" || a == "--message-format" || a == "--test" || a == "--bench":
			j++
		case strings.HasPrefix(a, "-"):
			if sub == "" && strings.HasPrefix(a, "-C") {
				return block("cargo-config", "pass the project directory as the cwd parameter", "cargo -C changes directory")
			}
		case sub == "":
			sub = a
			if sub == "install" || sub == "uninstall" {
				return block("cargo-install", "add dependencies to the project with cargo add; installing binaries is not available", "cargo %s installs programs outside the project", sub)
			}
			if sub == "publish" || sub == "login" || sub == "logout" || sub == "owner" || sub == "yank" {
				return block("cargo-publish", "registry and account changes are not available from the sandbox", "cargo %s changes the registry or credentials", sub)
			}
			if !cargoSubcommands()[sub] {
				return block("cargo-subcommand", "use a built-in cargo command (build, check, run, test, tree, ...)", "cargo %s is not a built-in command (external cargo-* programs and aliases are not run)", sub)
			}
		}
	}
	return nil
}

// ---- rm / del ----

func checkRm(args []string) *werr.Error {
	rec, force := false, false
	for _, a := range args {
		if a == "--" {
			break
		}
		if n := longName(a); n != "" {
			switch {
			case abbrevOf(a, "--recursive"):
				rec = true
			case abbrevOf(a, "--force"):
				force = true
			case abbrevOf(a, "--no-preserve-root") && len(n) >= 4:
				return block("rm-no-preserve-root", "delete specific files or folders", "rm --no-preserve-root")
			}
			continue
		}
		if sc := shortCluster(a); sc != "" {
			if strings.ContainsAny(sc, "rR") {
				rec = true
			}
			if strings.Contains(sc, "f") {
				force = true
			}
		}
	}
	if rec && force {
		return block("rm-recursive-force", "delete without force (rm -r DIR asks nothing here and stops at protected files), or delete specific files; use execute_python_code (shutil.rmtree) for deliberate bulk deletes",
			"rm with recursive and force together")
	}
	return nil
}

// ---- rsync / robocopy ----

func checkRsync(args []string) *werr.Error {
	for _, a := range args {
		if a == "--" {
			break
		}
		if n := longName(a); n != "" {
			for _, full := range []string{"--rsh", "--rsync-path", "--daemon", "--server", "--sender", "--config", "--password-file"} {
				if abbrevOf(a, full) && len(n) >= 4 {
					return block("rsync-remote-shell", "copy between local directories only", "rsync %s runs or configures a remote program", n)
				}
			}
			continue
		}
		if sc := shortCluster(a); sc != "" {
			if strings.Contains(sc, "e") {
				return block("rsync-remote-shell", "copy between local directories only", "rsync -e chooses a remote shell program")
			}
			continue
		}
		if strings.Contains(a, "::") || strings.HasPrefix(a, "rsync:") {
			return block("rsync-remote", "copy between local directories only", "%s is a remote rsync location", a)
		}
		if i := strings.IndexByte(a, ':'); i > 0 && !strings.Contains(a[:i], "/") {
			return block("rsync-remote", "copy between local directories only; write ./%s if it is a local name", "%s is a remote host:path location (runs ssh)", a)
		}
	}
	return nil
}

// ---- dotnet ----

func checkDotnet(args []string) *werr.Error {
	for j, a := range args {
		switch {
		case a == "-g" || exactLong(a, "--global") || exactLong(a, "--tool-path"):
			return block("dotnet-global", "install tools locally (dotnet new tool-manifest; dotnet tool install NAME)", "dotnet %s installs outside the project", a)
		case j == 0 && (a == "nuget" || a == "workload" || a == "dev-certs" || a == "sdk"):
			return block("dotnet-subcommand", "use dotnet build, run, test, new, add package", "dotnet %s changes the machine or the registry", a)
		case exactLong(a, "--add-source") || exactLong(a, "--source") || a == "-s":
			if j+1 < len(args) || strings.Contains(a, "=") {
				return block("dotnet-source", "restore from the default feed", "dotnet %s installs from another package source", a)
			}
		}
	}
	return nil
}

// ---- find ----

// findRefused are find's actions that run programs, delete, or write files.
var findRefused = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"-exec": "runs a program for each file", "-execdir": "runs a program for each file",
		"-ok": "runs a program for each file", "-okdir": "runs a program for each file",
		"-delete": "deletes every file it finds", "-fprint": "writes the list to a file",
		"-fprint0": "writes the list to a file", "-fprintf": "writes the list to a file", "-fls": "writes the list to a file",
	}
})

func checkFind(args []string) *werr.Error {
	for _, a := range args {
		if why, ok := findRefused()[a]; ok {
			return block("find-action", "list the files with find (the list is returned) and act on them one command per call, or in execute_python_code",
				"find %s %s", a, why)
		}
	}
	return nil
}

// ---- sort ----

func checkSort(args []string) *werr.Error {
	for _, a := range args {
		if a == "--" {
			break
		}
		if n := longName(a); n != "" && len(n) >= 4 && abbrevOf(a, "--compress-program") {
			return block("sort-program", "sort without a compression program", "sort %s runs a program", n)
		}
	}
	return nil
}

// ---- go ----

func checkGo(args []string) *werr.Error {
	for _, a := range args {
		if a == "--" {
			break
		}
		n := a
		if i := strings.IndexByte(a, '='); i >= 0 {
			n = a[:i]
		}
		switch strings.TrimPrefix(n, "-") {
		case "-exec", "exec", "-toolexec", "toolexec":
			return block("go-exec", "run the program with go run or go test alone", "go %s runs another program around the build", n)
		}
	}
	if len(args) >= 2 && args[0] == "env" {
		for _, a := range args[1:] {
			if a == "-w" || a == "-u" {
				return block("go-env", "pass settings per call (go build -tags ...); the go env file is not writable", "go env %s changes the go configuration", a)
			}
		}
	}
	return nil
}

// ---- Windows ----

// windowsArgPolicies replace argPolicies for the Windows programs whose names mean
// something else there.
var windowsArgPolicies = sync.OnceValue(func() map[string]func([]string) *werr.Error {
	return map[string]func([]string) *werr.Error{
		"del":   checkDel,
		"erase": checkDel,
	}
})

// checkDel refuses del's recursive and forced-or-quiet switches together (/S with /F or
// /Q, in any case and cluster: /S /Q, /s/q, /SQ), the Windows spelling of rm -rf.
func checkDel(args []string) *werr.Error {
	rec, force := false, false
	for _, a := range args {
		for _, sw := range strings.Split(a, "/")[1:] {
			if !strings.HasPrefix(a, "/") {
				break
			}
			sw = strings.ToLower(sw)
			rec = rec || strings.Contains(sw, "s")
			force = force || strings.ContainsAny(sw, "fq")
		}
	}
	if rec && force {
		return block("rm-recursive-force", "delete specific files, or del /S without /Q and /F; use execute_python_code (shutil.rmtree) for deliberate bulk deletes",
			"del with /S (recursive) and /Q or /F (quiet, forced) together")
	}
	return nil
}

// uncPath reports a network (\\host\share, //host/share) or device (\\.\, \\?\) path.
func uncPath(a string) bool {
	return strings.HasPrefix(a, `\\`) || strings.HasPrefix(a, "//") || strings.HasPrefix(a, `\/`) || strings.HasPrefix(a, `/\`)
}
