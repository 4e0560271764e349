package search

import (
	"slices"
	"strings"
	"sync"
)

// Seed 002's search mode: a skill hits when every white-space separated
// token of the query, lower-cased, occurs (as a substring) in its name,
// description, keywords, tags, category or body. Deterministic, no ranking
// model: the score is the number of tokens (all of them, for every hit). Hits
// are ordered by the ranked engine's raw relevance for the same text, then
// by path, so that the best of equals comes first.

// lowered is a skill's text lower-cased for substring search.
type lowered struct {
	// meta is name, keywords, tags and category, newline separated.
	meta, desc, body string
}

// loweredText lower-cases every skill's text once, on the first all-terms
// search (ranked search never needs it): a copy of the catalog's text, kept
// for the index's life.
func (ix *Index) loweredText() []lowered {
	ix.lowerOnce.Do(func() {
		ix.lower = make([]lowered, len(ix.docs))
		var wg sync.WaitGroup
		const chunk = 64
		for from := 0; from < len(ix.docs); from += chunk {
			wg.Go(func() {
				for i := from; i < min(from+chunk, len(ix.docs)); i++ {
					sk := ix.docs[i].skill
					fm := &sk.Doc.Frontmatter
					parts := append([]string{sk.Name}, fm.Keywords...)
					parts = append(parts, fm.Tags...)
					parts = append(parts, fm.Category)
					ix.lower[i] = lowered{
						meta: strings.ToLower(strings.Join(parts, "\n")),
						desc: strings.ToLower(sk.Description),
						body: strings.ToLower(sk.Doc.Body),
					}
				}
			})
		}
		wg.Wait()
	})
	return ix.lower
}

func (ix *Index) searchAllTerms(q Query) []Hit {
	tokens := strings.Fields(strings.ToLower(q.Text))
	if len(tokens) == 0 {
		return []Hit{}
	}
	slices.Sort(tokens)
	tokens = slices.Compact(tokens)
	low := ix.loweredText()
	var docs []int32
	for i := range ix.docs {
		l := &low[i]
		all := true
		for _, t := range tokens {
			if !strings.Contains(l.meta, t) && !strings.Contains(l.desc, t) && !strings.Contains(l.body, t) {
				all = false
				break
			}
		}
		if all && q.Allows(ix.docs[i].skill) {
			docs = append(docs, int32(i))
		}
	}
	if len(docs) == 0 {
		return []Hit{}
	}
	// Order by relevance, then path.
	s := ix.qpool.Get().(*scratch)
	r := &result{s: s, groups: ix.analyzeQuery(q.Text, s)}
	defer ix.release(r)
	ix.score(r.groups, s)
	slices.SortStableFunc(docs, func(a, b int32) int {
		switch ra, rb := s.acc[a], s.acc[b]; {
		case ra > rb:
			return -1
		case ra < rb:
			return 1
		}
		return strings.Compare(ix.docs[a].skill.Path, ix.docs[b].skill.Path)
	})
	docs = docs[:min(len(docs), q.Limit)]

	// Tokens in query order, for Matched.
	ordered := []string{}
	for _, t := range strings.Fields(strings.ToLower(q.Text)) {
		if !slices.Contains(ordered, t) {
			ordered = append(ordered, t)
		}
	}
	hits := make([]Hit, len(docs))
	for i, d := range docs {
		sk := ix.docs[d].skill
		hits[i] = Hit{
			Skill:   sk,
			Score:   float64(len(tokens)),
			Matched: slices.Clone(ordered),
			Excerpt: firstMatchExcerpt(sk.Description, low[d].desc, sk.Doc.Body, low[d].body, ordered),
		}
	}
	return hits
}

// firstMatchExcerpt is the window around the first occurrence of the first
// query token found in the description, else in the body; the start of the
// description when the tokens are only in the name or metadata.
func firstMatchExcerpt(desc, descLow, body, bodyLow string, tokens []string) string {
	for _, part := range [][2]string{{desc, descLow}, {body, bodyLow}} {
		orig, low := part[0], part[1]
		for _, t := range tokens {
			if i := strings.Index(low, t); i >= 0 {
				if len(low) != len(orig) {
					// Lower-casing changed the byte offsets: show the
					// lower-cased text.
					orig = low
				}
				return window(orig, i, i+len(t))
			}
		}
	}
	return window(desc, 0, 0)
}
