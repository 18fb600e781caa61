//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"path/filepath"
	"slices"
	"strings"

	"github.com/w365/w365/engine/safefs"
)

// gitProtectDepth is how deep under the working directory .git directories are found;
// gitProtectMaxEntries bounds that walk.
const (
	gitProtectDepth      = 3
	gitProtectMaxEntries = 4000
)

// gitDirs lists the git entries under dir (to gitProtectDepth levels): every .git that
// is a directory or a file (a gitfile naming the repository elsewhere), found without
// following any symbolic link (safefs): a .git that is a link, or a link on the way to
// one, is neither listed nor followed.
func gitDirs(dir string) []string {
	root, err := safefs.Open(dir)
	if err != nil {
		return nil
	}
	defer root.Close()
	var out []string
	visited := 0
	var walk func(d *safefs.Dir, rel string, depth int)
	walk = func(d *safefs.Dir, rel string, depth int) {
		ents, err := d.ReadDir()
		if err != nil {
			return
		}
		for _, e := range ents {
			if visited++; visited > gitProtectMaxEntries {
				return
			}
			t := e.Type()
			if e.Name() == ".git" && (t.IsDir() || t.IsRegular()) {
				out = append(out, filepath.Join(dir, rel, e.Name()))
				continue
			}
			if !t.IsDir() || depth >= gitProtectDepth {
				continue
			}
			if sub, err := d.OpenDir(e.Name()); err == nil {
				walk(sub, filepath.Join(rel, e.Name()), depth+1)
				sub.Close()
			}
		}
	}
	walk(root, "", 1)
	return out
}

// gitProtected is what the sandbox binds read-only of the git entry g: all of it, so that
// nothing the sandbox writes there (hooks, config, commondir, a gitfile's target, a
// renamed and rebuilt .git: a mount point cannot be renamed) runs later when git runs on
// the host.
func gitProtected(g string) []string { return []string{g} }

// gitInitKeys are the keys git init and git clone write themselves.
var gitInitKeys = []string{"core.repositoryformatversion", "core.bare", "core.logallrefupdates", "core.precomposeunicode",
	"core.worktree", "extensions.objectformat", "extensions.refstorage", "extensions.worktreeconfig", "submodule.*.url",
	"submodule.*.active", "remote.*.mirror"}

// untrusted is the suffix of what a run left that git would act on.
const untrusted = ".w365-untrusted"

// maxConfigBytes bounds a git config the host reads.
const maxConfigBytes = 1 << 20

// cleanNewRepos looks for git entries under dir that were not there before the run
// (before, from gitDirs) and renames away what git would act on later, never following
// anything the run wrote (safefs): a .git that is a file (a gitfile) as a whole; in a .git
// directory and each of its modules/NAME, every hook that is not a .sample (or the hooks
// entry itself when it is not a directory), a commondir, and a config or config.worktree
// that holds a key outside the safe keys or is not a regular file. It returns the renamed
// paths.
func cleanNewRepos(dir string, before []string) []string {
	root, err := safefs.Open(dir)
	if err != nil {
		return nil
	}
	defer root.Close()
	var out []string
	for _, g := range gitDirs(dir) {
		if slices.Contains(before, g) {
			continue
		}
		rel, err := filepath.Rel(dir, g)
		if err != nil {
			continue
		}
		parent, err := root.OpenDir(filepath.Dir(rel))
		if err != nil {
			continue
		}
		if k, _ := parent.Kind(".git"); k != safefs.Directory {
			out = append(out, quarantine(parent, ".git")...)
		} else if gd, err := parent.OpenDir(".git"); err == nil {
			out = append(out, cleanGitDir(gd)...)
			if mods, err := gd.OpenDir("modules"); err == nil {
				if ents, err := mods.ReadDir(); err == nil {
					for _, m := range ents {
						if sub, err := mods.OpenDir(m.Name()); err == nil {
							out = append(out, cleanGitDir(sub)...)
							sub.Close()
						}
					}
				}
				mods.Close()
			}
			gd.Close()
		}
		parent.Close()
	}
	return out
}

// cleanGitDir renames away the hooks, commondir and unsafe configs of one git directory.
func cleanGitDir(g *safefs.Dir) []string {
	var out []string
	switch k, _ := g.Kind("hooks"); k {
	case safefs.Missing:
	case safefs.Directory:
		if hooks, err := g.OpenDir("hooks"); err == nil {
			if ents, err := hooks.ReadDir(); err == nil {
				for _, e := range ents {
					if !strings.HasSuffix(e.Name(), ".sample") && !strings.HasSuffix(e.Name(), untrusted) {
						out = append(out, quarantine(hooks, e.Name())...)
					}
				}
			}
			hooks.Close()
		}
	default:
		out = append(out, quarantine(g, "hooks")...)
	}
	if k, _ := g.Kind("commondir"); k != safefs.Missing {
		out = append(out, quarantine(g, "commondir")...)
	}
	for _, cfg := range []string{"config", "config.worktree"} {
		switch k, _ := g.Kind(cfg); k {
		case safefs.Missing:
		case safefs.Regular:
			if b, err := g.ReadFile(cfg, maxConfigBytes); err != nil || !configSafe(b) {
				out = append(out, quarantine(g, cfg)...)
			}
		default:
			out = append(out, quarantine(g, cfg)...)
		}
	}
	return out
}

// quarantine renames the entry name of d (itself, whatever it is) to NAME.w365-untrusted,
// or removes it when it cannot be renamed.
func quarantine(d *safefs.Dir, name string) []string {
	if err := d.Rename(name, name+untrusted); err != nil {
		_ = d.Remove(name)
	}
	return []string{filepath.Join(d.Path(), name)}
}

// configSafe reports whether a git config holds only keys git init writes and keys git
// config may set from the shell tool (gitKeySafe), and no include. Anything it cannot
// parse is unsafe.
func configSafe(config []byte) bool {
	section := ""
	sc := bufio.NewScanner(bytes.NewReader(config))
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
