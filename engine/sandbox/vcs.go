package sandbox

// vcsDirs are the repository directories of version controls other than git, each with
// the files in it that make the person's tool run commands when it works there:
// Mercurial's hgrc (hooks such as pre-status, extensions, aliases), hgrc-not-shared and
// sharedpath (hg share: the repository whose configuration it reads too); darcs's
// prefs/defaults (a posthook that darcs log runs, diff and merge commands).
var vcsDirs = map[string][]string{
	".hg":    {"hgrc", "hgrc-not-shared", "sharedpath"},
	"_darcs": {"prefs/defaults"},
}
