//go:build linux

package atspi

// LiveOnly makes every walk of t go level by level, without the application's cache.
func LiveOnly(t *Tree) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.liveOnly = true
}

// CachedWalks is how many walks of t the applications' caches answered.
func CachedWalks(t *Tree) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.cachedWalks
}

// CacheAfter makes walks of t read the application's cache once they have met n objects.
func CacheAfter(t *Tree, n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.cacheAfter = n
}

// Peers is how many applications t reads peer to peer.
func Peers(t *Tree) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, p := range t.peers {
		if p != nil {
			n++
		}
	}
	return n
}

// XtUnreached makes t's walks of Xt windows find every widget out of Editres's reach, as
// Xmu leaves them in about half of a program's runs.
func XtUnreached(t *Tree) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.xtUnreached = true
}

// XtSilent is how many windows t remembers as not answering Editres.
func XtSilent(t *Tree) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.silent)
}
