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

// suggest returns the names closest to ref: names containing it (or contained
// in it) first, then names within a small edit distance; skills hidden from
// models (disable-model-invocation) are never suggested.
func (s *Snapshot) suggest(ref string) []string {
	q := strings.ToLower(ref)
	if q == "" {
		return nil
	}
	type cand struct {
		name  string
		rank  int // 0 substring, 1 edit distance
		score int // smaller is closer
	}
	maxDist := max(2, utf8.RuneCountInString(q)/3)
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
		switch {
		case strings.Contains(n, q) || (len(n) >= 3 && strings.Contains(q, n)):
			cands = append(cands, cand{sk.Name, 0, abs(len(n) - len(q))})
		default:
			d := distance(q, n, maxDist)
			if d <= maxDist {
				cands = append(cands, cand{sk.Name, 1, d})
			}
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
