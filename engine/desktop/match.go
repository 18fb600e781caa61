package desktop

import (
	"sort"
	"strings"
	"unicode"

	"github.com/w365/w365/engine/werr"
)

// CloseThreshold is the similarity a title must reach for Close: close_window matches
// titles fuzzily with an 80 % threshold.
const CloseThreshold = 0.8

// normalize lower-cases s and collapses runs of white space to one space, so that matching
// ignores case and spacing.
func normalize(s string) []rune {
	var out []rune
	space := false
	for _, r := range strings.TrimSpace(s) {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && len(out) > 0 {
			out = append(out, ' ')
		}
		space = false
		out = append(out, unicode.ToLower(r))
	}
	return out
}

// Similarity is how well query matches title, from 0 to 1. It is the best substring
// similarity: with q and t the normalized (lower-cased, white space collapsed) runes of query
// and title, and d the smallest Levenshtein distance between q and any substring of t
// (approximate substring matching, Sellers' algorithm: insertions, deletions and
// substitutions cost 1, skipping characters of t before and after the match is free),
//
//	Similarity = 1 - d/len(q)   (at least 0)
//
// So a query found verbatim anywhere in the title scores 1, and a 10-character query that
// needs 3 edits to appear in the title scores 0.7. An empty query scores 0.
func Similarity(query, title string) float64 {
	q, t := normalize(query), normalize(title)
	if len(q) == 0 {
		return 0
	}
	d := substringDistance(q, t)
	s := 1 - float64(d)/float64(len(q))
	if s < 0 {
		return 0
	}
	return s
}

// Coverage is how much of title the query's best match accounts for, from 0 to 1: with q, t and
// d as in Similarity, (len(q) - d) / len(t), at most 1. A query that is the whole title covers
// 1; "a" against "a long title" covers 1/12, however perfectly it matches.
func Coverage(query, title string) float64 {
	q, t := normalize(query), normalize(title)
	if len(t) == 0 {
		return 0
	}
	return min(max(float64(len(q)-substringDistance(q, t))/float64(len(t)), 0), 1)
}

// substringDistance is min over substrings s of t of Levenshtein(q, s).
func substringDistance(q, t []rune) int {
	// prev[j]: distance between q[:i] and the best substring of t ending at j.
	prev := make([]int, len(t)+1) // row i = 0: the empty query matches anywhere for free
	cur := make([]int, len(t)+1)
	for i := 1; i <= len(q); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if q[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j-1]+cost, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	best := prev[0]
	for _, v := range prev[1:] {
		best = min(best, v)
	}
	return best
}

// NoMatch is the MatchRank of a title that does not contain the query.
const NoMatch = 3

// MatchRank orders substring matches, case and spacing aside: 0 exact, 1 prefix, 2 substring,
// NoMatch. Window titles and accessible names are ranked by it alike.
func MatchRank(query, title string) int {
	q, t := string(normalize(query)), string(normalize(title))
	switch {
	case q == "":
		return NoMatch
	case q == t:
		return 0
	case strings.HasPrefix(t, q):
		return 1
	case strings.Contains(t, q):
		return 2
	}
	return NoMatch
}

// BestSubstring returns the windows whose title contains query (case-insensitive), best
// first: exact, then prefix, then substring; within a rank the shortest title first.
func BestSubstring(ws []Window, query string) []Window {
	var out []Window
	for _, w := range ws {
		if MatchRank(query, w.Title) < NoMatch {
			out = append(out, w)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		ri, rj := MatchRank(query, out[i].Title), MatchRank(query, out[j].Title)
		if ri != rj {
			return ri < rj
		}
		return len([]rune(out[i].Title)) < len([]rune(out[j].Title))
	})
	return out
}

// BestFuzzy returns the windows whose Similarity to query is at least threshold, best first:
// higher similarity, then exact > prefix > substring, then the shortest title.
func BestFuzzy(ws []Window, query string, threshold float64) []Window {
	type scored struct {
		w    Window
		s    float64
		rank int
	}
	var sc []scored
	for _, w := range ws {
		if s := Similarity(query, w.Title); s >= threshold {
			sc = append(sc, scored{w, s, MatchRank(query, w.Title)})
		}
	}
	sort.SliceStable(sc, func(i, j int) bool {
		if sc[i].s != sc[j].s {
			return sc[i].s > sc[j].s
		}
		if sc[i].rank != sc[j].rank {
			return sc[i].rank < sc[j].rank
		}
		return len([]rune(sc[i].w.Title)) < len([]rune(sc[j].w.Title))
	})
	out := make([]Window, len(sc))
	for i := range sc {
		out[i] = sc[i].w
	}
	return out
}

// CloseMatches are the windows close_window may mean: query is at least CloseThreshold similar
// to part of the title and that part covers at least CloseThreshold of the title. Exact
// matches (case and spacing aside) come first.
func CloseMatches(ws []Window, query string) []Window {
	var out []Window
	for _, w := range BestFuzzy(ws, query, CloseThreshold) {
		if Coverage(query, w.Title) >= CloseThreshold {
			out = append(out, w)
		}
	}
	return out
}

// Nearest returns up to n distinct titles most similar to query, for NOT_FOUND details.
func Nearest(ws []Window, query string, n int) []string {
	type scored struct {
		t string
		s float64
	}
	seen := map[string]bool{}
	var sc []scored
	for _, w := range ws {
		if w.Title == "" || seen[w.Title] {
			continue
		}
		seen[w.Title] = true
		sc = append(sc, scored{w.Title, Similarity(query, w.Title)})
	}
	sort.SliceStable(sc, func(i, j int) bool { return sc[i].s > sc[j].s })
	out := []string{}
	for i := 0; i < len(sc) && i < n; i++ {
		out = append(out, sc[i].t)
	}
	return out
}

// NotFound is the NOT_FOUND error for a title query that matched none of ws (the titled
// windows of the desktop), with the nearest titles.
func NotFound(ws []Window, what, query string) *werr.Error {
	return werr.New(werr.NotFound, "no window %s %q", what, query).
		WithDetail("nearest", Nearest(ws, query, 5)).
		WithHint("call list_windows to see the open windows")
}
