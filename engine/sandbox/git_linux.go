//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/w365/w365/engine/safefs"
	"github.com/w365/w365/engine/werr"
)

// gitProtectDepth is how deep under the working directory .git directories are found;
// gitProtectMaxEntries bounds that walk.
const (
	gitProtectDepth      = 3
	gitProtectMaxEntries = 4000
)

// gitDirs lists the repository entries under root (to gitProtectDepth levels): every .git
// that is a directory or a file (a gitfile naming the repository elsewhere) and every
// directory of another version control (vcsDir), found without following any symbolic
// link (safefs): an entry that is a link, or a link on the way to one, is neither listed
// nor followed.
func gitDirs(root *safefs.Dir) []string {
	dir := root.Path()
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
			if e.Name() == ".git" && (t.IsDir() || t.IsRegular()) || vcsDir(e.Name()) != nil && t.IsDir() {
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

// gitInitKeys are the keys git init and git clone write themselves. Not core.worktree
// (git submodule writes it, and git finds a submodule's work tree by its gitfile without
// it): it names the work tree the person's git reads and adds from, anywhere, and a
// repository a call made with core.worktree = ~/.ssh had the person's git add -A copy the
// private key into the workspace's object store, where the next call read it.
var gitInitKeys = []string{"core.repositoryformatversion", "core.bare", "core.logallrefupdates", "core.precomposeunicode",
	"extensions.objectformat", "extensions.refstorage", "extensions.worktreeconfig", "submodule.*.url",
	"submodule.*.active", "remote.*.mirror"}

// untrusted is the suffix of what a run left that git would act on.
const untrusted = ".w365-untrusted"

// maxConfigBytes bounds a git config the host reads.
const maxConfigBytes = 1 << 20

// gitCleanMaxEntries bounds the walk before a run that hides the working directory's
// secrets (hideSecretsBelow): a directory holding more is refused. The walk after a run
// (cleanNewRepos) has no bound: it reads every entry the run may have made.
const gitCleanMaxEntries = 1 << 20

// gitGuardWait bounds how long a call waits for each of the git guard's walks through a
// working directory: the one before a run (hideSecretsBelow: a longer one refuses the call,
// nothing runs) and the one after it (guardAfter: a longer one goes on by itself, and the
// session's next calls are refused until it has ended). A run that made a million
// directories, or a slow file system, kept the call, and the session's end, waiting for
// as long as the walk took: over ten minutes (docs/security.md, "The git guard").
const gitGuardWait = 10 * time.Second

// gitSlack is how much earlier than the run's start a change still counts as the run's:
// a file's change time is taken from a coarse clock (a scheduler tick behind).
const gitSlack = time.Second

// cleanNewRepos renames away, after a run, what git would act on later that the run
// wrote, never following anything the run wrote (safefs). It walks everything under root,
// the handle of the directory the run was shown (renamed since or not),
// (but the read-only entries of before, from gitDirs, and a repository's objects) and
// takes as a git directory every directory that holds a HEAD git accepts (git takes
// such a directory as a repository, a bare one, without any .git: dir itself too) and
// every .git directory. In each, what changed since the run began (a change time no program can set
// back) is renamed when git could run it: a hook (the hooks entry itself when it is not
// a directory, or every hook when the directory was moved in), a commondir, and a config
// or config.worktree that holds a key outside the safe keys or is not a regular file;
// when its HEAD changed (it has just become a repository) all of those, whenever they were
// written. A .git that is not a directory (a gitfile naming the repository elsewhere, a
// symbolic link) is renamed when it changed. In each directory of another version control
// (vcsDir) the files it reads commands from are renamed when they, or a directory on the
// way to them, changed (a directory made elsewhere and renamed to .hg keeps its files'
// change times), and such an entry that is not a directory when it changed. It returns the
// renamed paths.
func cleanNewRepos(root *safefs.Dir, before []string, since time.Time) []string {
	dir := root.Path()
	since = since.Add(-gitSlack)
	var out []string
	// Every directory, however many entries the run made: a walk that stopped at a budget
	// left what lay past it as the run wrote it (a repository beside 2^20 entries, whose
	// core.fsmonitor the person's git status ran). Entries are read a batch at a time, and
	// only the directories' names are kept.
	queue := []string{"."}
	freshVCS := map[string]bool{} // directories of vcsDir that changed since, by rel
	for len(queue) > 0 {
		rel := queue[0]
		queue = queue[1:]
		d, err := root.OpenDir(rel)
		if err != nil {
			continue
		}
		if files := vcsDir(filepath.Base(rel)); files != nil && rel != "." {
			out = append(out, cleanVCSDir(d, files, freshVCS[rel], since)...)
		}
		k, _ := d.Kind("HEAD")
		isGitDir := filepath.Base(rel) == ".git" && rel != "." || k != safefs.Missing && headOfRepository(d)
		if isGitDir {
			out = append(out, cleanGitDir(d, since)...)
		}
		_ = d.EachEntry(cleanBatch, func(ents []fs.DirEntry) {
			for _, e := range ents {
				name := e.Name()
				switch {
				case slices.Contains(before, filepath.Join(dir, rel, name)):
				case e.IsDir() && !(isGitDir && name == "objects"):
					sub := filepath.Join(rel, name)
					if vcsDir(name) != nil && changedSince(d, name, since) {
						freshVCS[sub] = true
					}
					queue = append(queue, sub)
				case (name == ".git" || vcsDir(name) != nil) && changedSince(d, name, since):
					out = append(out, quarantine(d, name)...)
				}
			}
		})
		d.Close()
	}
	return out
}

// guardAfter runs walk, the git guard's walk after a run, and waits for it at most
// gitGuardWait. It returns what the walk renamed, and whether it ended: one that did not
// goes on to its end by itself (the run's effects are checked whole, however long that
// takes), the session's end does not wait for it, and until it has ended every call that
// would show a program a directory is refused (guardIdle), so that no walk piles on it.
// What a walk renamed after its call returned is named by the next call (takeLate).
func (r *Runner) guardAfter(walk func() []string) ([]string, bool) {
	var mu sync.Mutex
	var renamed []string
	gaveUp := false
	ended := make(chan struct{})
	r.guarding.Add(1)
	go func() {
		defer r.guarding.Add(-1)
		q := walk()
		mu.Lock()
		defer mu.Unlock()
		if gaveUp {
			r.addLate(q)
		} else {
			renamed = q
		}
		close(ended)
	}()
	t := time.NewTimer(gitGuardWait)
	defer t.Stop()
	select {
	case <-ended:
	case <-t.C:
	}
	mu.Lock()
	defer mu.Unlock()
	select {
	case <-ended:
		return renamed, true
	default:
		gaveUp = true
		return nil, false
	}
}

// addLate keeps what a git guard's walk renamed when no call's result could name it (the
// walk outlived its call, or followed a launched application) for the next call's.
func (r *Runner) addLate(renamed []string) {
	r.lateMu.Lock()
	r.late = append(r.late, renamed...)
	r.lateMu.Unlock()
}

// takeLate returns what addLate kept, once.
func (r *Runner) takeLate() []string {
	r.lateMu.Lock()
	defer r.lateMu.Unlock()
	late := r.late
	r.late = nil
	return late
}

// guardIdle refuses a call while a git guard's walk of an earlier one goes on (guardAfter).
func (r *Runner) guardIdle() error {
	if r.guarding.Load() > 0 {
		return werr.New(werr.Unavailable, "the git guard is still checking what an earlier call wrote in its working directory, so nothing ran").
			WithRetryable(true).WithDetail("rule", "git-guard-busy").
			WithHint("call again in a while; a call that makes fewer directories is checked within the call")
	}
	return nil
}

// cleanBatch is how many entries of a directory cleanNewRepos holds at a time.
const cleanBatch = 4096

// walkBelow visits root and every directory beneath it, breadth first, through handles
// following no symbolic link: visit gets each one's path relative to root, its handle and
// its entries, and returns the names of the subdirectories to enter. Once more than max
// entries were listed, or once deadline has passed, it stops, and returns false.
func walkBelow(root *safefs.Dir, max int, deadline time.Time, visit func(rel string, d *safefs.Dir, ents []fs.DirEntry) []string) bool {
	budget := max
	queue := []string{"."}
	for len(queue) > 0 {
		if budget <= 0 || time.Now().After(deadline) {
			return false
		}
		rel := queue[0]
		queue = queue[1:]
		d, err := root.OpenDir(rel)
		if err != nil {
			continue
		}
		ents, _ := d.ReadDir()
		budget -= len(ents)
		for _, sub := range visit(rel, d, ents) {
			queue = append(queue, filepath.Join(rel, sub))
		}
		d.Close()
	}
	return budget >= 0
}

// headOfRepository says whether the HEAD of d is one git accepts (validate_headref): a
// symbolic link, or a regular file that starts with "ref:" or a hexadecimal object name.
// A file named HEAD that is neither does not make a directory a repository.
func headOfRepository(d *safefs.Dir) bool {
	if k, _ := d.Kind("HEAD"); k == safefs.Symlink {
		return true
	}
	f, err := d.OpenFile("HEAD")
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 256) // as much as git reads of it
	n, _ := io.ReadFull(f, b)
	b = b[:n]
	if bytes.HasPrefix(b, []byte("ref:")) {
		return true
	}
	hex := 0
	for hex < len(b) && strings.IndexByte("0123456789abcdef", b[hex]) >= 0 {
		hex++
	}
	return hex >= 40
}

// changedSince reports whether the entry name of d changed at or after since (or cannot
// be told).
func changedSince(d *safefs.Dir, name string, since time.Time) bool {
	t, err := d.Changed(name)
	return err != nil || !t.Before(since)
}

// cleanGitDir renames away the hooks, commondir and unsafe configs of one git directory
// that changed since since (all of them when its HEAD did).
func cleanGitDir(g *safefs.Dir, since time.Time) []string {
	fresh := changedSince(g, "HEAD", since)
	var out []string
	switch k, _ := g.Kind("hooks"); k {
	case safefs.Missing:
	case safefs.Directory:
		all := fresh || changedSince(g, "hooks", since)
		if hooks, err := g.OpenDir("hooks"); err == nil {
			if ents, err := hooks.ReadDir(); err == nil {
				for _, e := range ents {
					if !strings.HasSuffix(e.Name(), ".sample") && !strings.HasSuffix(e.Name(), untrusted) &&
						(all || changedSince(hooks, e.Name(), since)) {
						out = append(out, quarantine(hooks, e.Name())...)
					}
				}
			}
			hooks.Close()
		}
	default:
		if fresh || changedSince(g, "hooks", since) {
			out = append(out, quarantine(g, "hooks")...)
		}
	}
	if k, _ := g.Kind("commondir"); k != safefs.Missing && (fresh || changedSince(g, "commondir", since)) {
		out = append(out, quarantine(g, "commondir")...)
	}
	for _, cfg := range []string{"config", "config.worktree"} {
		k, _ := g.Kind(cfg)
		if k == safefs.Missing || !fresh && !changedSince(g, cfg, since) {
			continue
		}
		if k != safefs.Regular {
			out = append(out, quarantine(g, cfg)...)
		} else if b, err := g.ReadFile(cfg, maxConfigBytes); err != nil || !configSafe(b) {
			out = append(out, quarantine(g, cfg)...)
		}
	}
	return out
}

// cleanVCSDir renames away the files (paths relative to d) of one such directory that
// changed since since, or that lie in a directory that did, or all of them when all. A
// directory on the way that is not one is renamed when it changed.
func cleanVCSDir(d *safefs.Dir, files []string, all bool, since time.Time) []string {
	var out []string
	for _, f := range files {
		dir, name := filepath.Split(f)
		cur, fresh := d, all
		if dir != "" {
			sub := filepath.Clean(dir)
			fresh = fresh || changedSince(d, sub, since)
			switch k, _ := d.Kind(sub); {
			case k == safefs.Missing:
				continue
			case k != safefs.Directory:
				if fresh {
					out = append(out, quarantine(d, sub)...)
				}
				continue
			}
			s, err := d.OpenDir(sub)
			if err != nil {
				continue
			}
			cur = s
		}
		if k, _ := cur.Kind(name); k != safefs.Missing && (fresh || changedSince(cur, name, since)) {
			out = append(out, quarantine(cur, name)...)
		}
		if cur != d {
			cur.Close()
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
