package desktop

import (
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/w365/w365/engine/werr"
)

// TitleThreshold is the Similarity a query needs to name a window when no title contains it
// literally: every tool that takes a window title matches it by TitleMatches, as their help
// says (docs/tools.md: activate_window, close_window, resize_window).
const TitleThreshold = 0.8

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

// TitleMatches are the windows a title query names: those whose title contains the query
// (case and spacing aside), or, when no title does, those that contain it with at most a
// fifth of its characters changed (Similarity at least TitleThreshold). Best first: exact,
// then prefix, then substring, then the more similar, then the shortest title.
func TitleMatches(ws []Window, query string) []Window {
	type scored struct {
		w    Window
		s    float64
		rank int
	}
	var literal, fuzzy []scored
	for _, w := range ws {
		if r := MatchRank(query, w.Title); r < NoMatch {
			literal = append(literal, scored{w, 1, r})
		} else if s := Similarity(query, w.Title); s >= TitleThreshold {
			fuzzy = append(fuzzy, scored{w, s, NoMatch})
		}
	}
	sc := literal
	if len(sc) == 0 {
		sc = fuzzy
	}
	sort.SliceStable(sc, func(i, j int) bool {
		if sc[i].rank != sc[j].rank {
			return sc[i].rank < sc[j].rank
		}
		if sc[i].s != sc[j].s {
			return sc[i].s > sc[j].s
		}
		return len([]rune(sc[i].w.Title)) < len([]rune(sc[j].w.Title))
	})
	out := make([]Window, len(sc))
	for i := range sc {
		out[i] = sc[i].w
	}
	return out
}

// TitleRule names the rule of TitleMatches in a NOT_FOUND message.
const TitleRule = "whose title contains (or is 80% similar to part of)"

// BestTitle is the window that title names (TitleMatches' first), or NOT_FOUND with the
// nearest titles.
func BestTitle(ws []Window, title string) (Window, error) {
	if m := TitleMatches(ws, title); len(m) > 0 {
		return m[0], nil
	}
	return Window{}, NotFound(ws, TitleRule, title)
}

// CloseTarget is the one window close_window may close for title: it must be the only
// window TitleMatches names, or the only one whose title is the query itself (case and
// spacing aside). Several are refused with INVALID_ARGUMENT and the candidates listed.
func CloseTarget(ws []Window, title string) (Window, error) {
	found := TitleMatches(ws, title)
	switch {
	case len(found) == 0:
		return Window{}, NotFound(ws, TitleRule, title)
	case len(found) == 1 || MatchRank(title, found[0].Title) == 0 && MatchRank(title, found[1].Title) != 0:
		return found[0], nil
	}
	names := make([]string, len(found))
	for i, w := range found {
		names[i] = fmt.Sprintf("%s (handle %d, %s)", w.Title, w.Handle, w.ProcessName)
	}
	return Window{}, werr.Invalid("title %q matches %d windows; close_window closes one", title, len(found)).
		WithDetail("candidates", names).
		WithHint("give more of the window's title; list_windows shows them")
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
