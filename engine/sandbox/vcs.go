package sandbox

// vcsDir gives, for the repository directory name of a version control other than git, the
// files in it that make the person's tool run commands when it works there (nil for any
// other name): Mercurial's hgrc (hooks such as pre-status, extensions, aliases),
// hgrc-not-shared and sharedpath (hg share: the repository whose configuration it reads
// too); darcs's prefs/defaults (a posthook that darcs log runs, diff and merge commands).
// A function, not a map: a one-shot command's start allocates nothing for it.
func vcsDir(name string) []string {
	switch name {
	case ".hg":
		return []string{"hgrc", "hgrc-not-shared", "sharedpath"}
	case "_darcs":
		return []string{"prefs/defaults"}
	}
	return nil
}
