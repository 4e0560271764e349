package catalog

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// maxSuggestions bounds NotFoundError.Suggestions.
const maxSuggestions = 5

// NotFoundError says no skill has the path or name asked for.
type NotFoundError struct {
	// Ref is what was asked for.
	Ref string
	// Suggestions are up to 5 names of existing skills close to Ref, best
	// first.
	Suggestions []string
}

func (e *NotFoundError) Error() string {
	msg := "skill " + `"` + e.Ref + `"` + " not found"
	if len(e.Suggestions) > 0 {
		msg += " (did you mean " + strings.Join(e.Suggestions, ", ") + "?)"
	}
	return msg
}

// Lookup finds a skill by reference: the exact path first, then the name,
// case-insensitively (seed 001); surrounding blanks and slashes are ignored.
// Of two skills of one source with the same name, the first in path order
// answers. On a miss the error is a *NotFoundError.
func (s *Snapshot) Lookup(ref string) (*Skill, error) {
	r := strings.Trim(strings.TrimSpace(ref), "/")
	if sk := s.byPath[r]; sk != nil {
		return sk, nil
	}
	if sk := s.byName[strings.ToLower(r)]; sk != nil {
		return sk, nil
	}
	return nil, &NotFoundError{Ref: ref, Suggestions: s.suggest(r)}
}

// suggest returns the names closest to ref, best first; skills hidden from
// models (disable-model-invocation) are never suggested. Each skill is
// compared by its name, its path and the last segment of each (a tree
// skill's name is its path, "backend/go-service", and people type
// "go-service"), as written and with separators left out ("reactforms" for
// "react-forms"): names equal once squashed first, then names containing the
// reference (or contained in it), then names within a small edit distance.
func (s *Snapshot) suggest(ref string) []string {
	q := strings.ToLower(ref)
	if q == "" {
		return nil
	}
	qs := squash(q)
	type cand struct {
		name  string
		rank  int // 0 equal once squashed, 1 substring, 2 edit distance
		score int // smaller is closer
	}
	maxDist := func(s string) int { return max(2, utf8.RuneCountInString(s)/3) }
	var cands []cand
	seen := map[string]bool{}
	for _, sk := range s.skills {
		if sk.Doc.Frontmatter.DisableModelInvocation {
			continue
		}
		n := strings.ToLower(sk.Name)
		if seen[n] {
			continue
		}
		seen[n] = true
		best := cand{rank: 3}
		consider := func(c cand) {
			if c.rank < best.rank || c.rank == best.rank && c.score < best.score {
				best = c
			}
		}
		for _, key := range refKeys(n, strings.ToLower(sk.Path)) {
			ks := squash(key)
			switch {
			case qs != "" && ks == qs:
				consider(cand{sk.Name, 0, abs(len(key) - len(q))})
			case strings.Contains(key, q) || (len(key) >= 3 && strings.Contains(q, key)):
				consider(cand{sk.Name, 1, abs(len(key) - len(q))})
			case len(qs) >= 3 && len(ks) >= 3 && (strings.Contains(ks, qs) || strings.Contains(qs, ks)):
				consider(cand{sk.Name, 1, abs(len(ks)-len(qs)) + 1})
			default:
				limit := maxDist(q)
				if d := distance(q, key, limit); d <= limit {
					consider(cand{sk.Name, 2, d})
				} else if qs != q || ks != key {
					if d := distance(qs, ks, limit); d <= limit {
						consider(cand{sk.Name, 2, d + 1})
					}
				}
			}
		}
		if best.rank < 3 {
			cands = append(cands, best)
		}
	}
	slices.SortFunc(cands, func(a, b cand) int {
		return cmp.Or(cmp.Compare(a.rank, b.rank), cmp.Compare(a.score, b.score), strings.Compare(a.name, b.name))
	})
	out := make([]string, 0, min(len(cands), maxSuggestions))
	for _, c := range cands[:min(len(cands), maxSuggestions)] {
		out = append(out, c.name)
	}
	return out
}

// refKeys are the strings a skill may be referred to by: its name and path,
// and the last segment of each when they are nested.
func refKeys(name, path string) []string {
	keys := []string{name}
	if path != name {
		keys = append(keys, path)
	}
	for _, k := range []string{name, path} {
		if i := strings.LastIndexByte(k, '/'); i >= 0 && i < len(k)-1 {
			if last := k[i+1:]; !slices.Contains(keys, last) {
				keys = append(keys, last)
			}
		}
	}
	return keys
}

// squash drops the separators people leave out or
// swap: '-', '_', '.', '/' and blanks.
func squash(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '-', '_', '.', '/', ' ', '\t':
			return -1
		}
		return r
	}, s)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// distance is the Levenshtein distance between a and b (in runes), or a value
// above limit as soon as it is sure to exceed it.
func distance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if abs(len(ra)-len(rb)) > limit {
		return limit + 1
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return limit + 1
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
