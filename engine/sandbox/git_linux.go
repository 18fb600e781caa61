//go:build linux

package sandbox

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// gitProtectDepth is how deep under the working directory .git directories are found;
// gitProtectMaxEntries bounds that walk.
const (
	gitProtectDepth      = 3
	gitProtectMaxEntries = 4000
)

// gitDirs lists the git directories under dir (to gitProtectDepth levels): each .git
// directory and its submodules' (.git/modules/NAME).
func gitDirs(dir string) []string {
	var out []string
	visited := 0
	var walk func(d string, depth int)
	walk = func(d string, depth int) {
		ents, err := os.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range ents {
			if visited++; visited > gitProtectMaxEntries || !e.IsDir() {
				continue
			}
			p := filepath.Join(d, e.Name())
			if e.Name() == ".git" {
				out = append(out, p)
				if mods, err := os.ReadDir(filepath.Join(p, "modules")); err == nil {
					for _, m := range mods {
						if m.IsDir() {
							out = append(out, filepath.Join(p, "modules", m.Name()))
						}
					}
				}
				continue
			}
			if depth < gitProtectDepth {
				walk(p, depth+1)
			}
		}
	}
	walk(dir, 1)
	return out
}

// gitProtected is what the sandbox binds read-only in git directory g: its hooks
// directory (made empty first when missing, so that none can be made) and its config, so
// that nothing the sandbox writes runs later when git runs on the host.
func gitProtected(g string) []string {
	hooks := filepath.Join(g, "hooks")
	if !dirExists(hooks) {
		_ = os.Mkdir(hooks, 0o755)
	}
	var out []string
	for _, q := range []string{hooks, filepath.Join(g, "config")} {
		if fileExists(q) {
			out = append(out, q)
		}
	}
	return out
}

// gitInitKeys are the keys git init and git clone write themselves.
var gitInitKeys = []string{"core.repositoryformatversion", "core.bare", "core.logallrefupdates", "core.precomposeunicode",
	"core.worktree", "extensions.objectformat", "extensions.refstorage", "extensions.worktreeconfig", "submodule.*.url",
	"submodule.*.active", "remote.*.mirror"}

// cleanNewRepos looks for git directories under dir that were not there before the run
// (before, from gitDirs) and renames what git would run from them later: any hook that
// is not a .sample, and a config holding a key outside the safe keys. It returns the
// renamed paths.
func cleanNewRepos(dir string, before []string) []string {
	var out []string
	for _, g := range gitDirs(dir) {
		if slices.Contains(before, g) {
			continue
		}
		if ents, err := os.ReadDir(filepath.Join(g, "hooks")); err == nil {
			for _, e := range ents {
				if !strings.HasSuffix(e.Name(), ".sample") && !strings.HasSuffix(e.Name(), ".w365-untrusted") {
					out = append(out, quarantine(filepath.Join(g, "hooks", e.Name()))...)
				}
			}
		}
		cfg := filepath.Join(g, "config")
		if !configSafe(cfg) {
			out = append(out, quarantine(cfg)...)
		}
	}
	return out
}

func quarantine(p string) []string {
	if err := os.Rename(p, p+".w365-untrusted"); err != nil {
		_ = os.RemoveAll(p)
	}
	return []string{p}
}

// configSafe reports whether a git config file holds only keys git init writes and keys
// git config may set from the shell tool (gitKeySafe), and no include; a missing file is
// safe. Anything it cannot parse is unsafe.
func configSafe(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return os.IsNotExist(err)
	}
	defer f.Close()
	section := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 || strings.TrimSpace(line[end+1:]) != "" && !strings.HasPrefix(strings.TrimSpace(line[end+1:]), "#") {
				return false // a key after the header on the same line, or no ]
			}
			h := strings.TrimSpace(line[1:end])
			name, sub, hasSub := strings.Cut(h, " ")
			section = strings.ToLower(name)
			if hasSub {
				section += "." + strings.Trim(strings.TrimSpace(sub), `"`)
			}
			if strings.HasPrefix(section, "include") {
				return false
			}
			continue
		}
		key, _, _ := strings.Cut(line, "=")
		key = section + "." + strings.ToLower(strings.TrimSpace(key))
		if section == "" || !(gitKeySafe(key) || gitInitKey(key)) {
			return false
		}
	}
	return sc.Err() == nil
}

func gitInitKey(key string) bool {
	parts := strings.Split(key, ".")
	for _, k := range gitInitKeys {
		pp := strings.Split(k, ".")
		if len(pp) == 3 && len(parts) >= 3 && pp[0] == parts[0] && pp[2] == parts[len(parts)-1] {
			return true
		}
		if k == key {
			return true
		}
	}
	return false
}
