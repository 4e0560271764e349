package search

import (
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// matchFixture builds the seed-000 tree of the catalog package's testdata.
func matchFixture(t testing.TB) []*catalog.Skill {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "catalog", "testdata", "seed000-tree"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := catalog.Build(t.Context(), []*source.Root{{Name: "seed000", Dir: dir, Kind: "local", Trusted: true}}, catalog.Options{})
	if err != nil {
		t.Fatalf("catalog.Build: %v", err)
	}
	if snap.Len() != 8 {
		t.Fatalf("seed-000 fixture: got %d skills, want 8", snap.Len())
	}
	return snap.Skills()
}

// matchSkill is a bare skill for decision tests.
func matchSkill(path string, keywords ...string) *catalog.Skill {
	return &catalog.Skill{Path: path, Name: path, Routable: true, Doc: &skill.Document{
		HasFrontmatter: true, Frontmatter: skill.Frontmatter{Keywords: keywords, Inherit: true},
	}}
}

// summary renders a decision as "outcome path=score[matched] …".
func summary(d Decision) string {
	parts := []string{d.Outcome.String()}
	for _, c := range d.Candidates {
		parts = append(parts, c.Skill.Path+"="+trimFloat(c.Score)+"["+strings.Join(c.Matched, ",")+"]")
	}
	return strings.Join(parts, " ")
}

func trimFloat(f float64) string {
	return strconv.FormatFloat(math.Round(f*1e4)/1e4, 'f', -1, 64)
}

func TestDecide(t *testing.T) {
	a, b, c, d := matchSkill("a"), matchSkill("b"), matchSkill("c"), matchSkill("d")
	cand := func(sk *catalog.Skill, score float64) Candidate {
		return Candidate{Skill: sk, Score: score, Matched: []string{"k"}}
	}
	th := DefaultThresholds()
	tests := []struct {
		name  string
		cands []Candidate
		th    Thresholds
		want  string
	}{
		{name: "nothing", th: th, want: "no_match"},
		{name: "all below min_score", cands: []Candidate{cand(a, 0.19), cand(b, 0.1)}, th: th, want: "no_match"},
		{name: "min_score is inclusive", cands: []Candidate{cand(a, 0.2)}, th: th, want: "match a=0.2[k]"},
		{name: "one", cands: []Candidate{cand(a, 0.5), cand(b, 0.1)}, th: th, want: "match a=0.5[k]"},
		{name: "clear best", cands: []Candidate{cand(b, 0.3), cand(a, 0.9)}, th: th, want: "match a=0.9[k]"},
		{name: "gap equal to the threshold is not ambiguous", cands: []Candidate{cand(a, 0.75), cand(b, 0.5)}, th: Thresholds{MinScore: 0.2, AmbiguityThreshold: 0.25, MaxResults: 3}, want: "match a=0.75[k]"},
		{name: "close pair", cands: []Candidate{cand(b, 0.5), cand(a, 0.55)}, th: th, want: "ambiguous a=0.55[k] b=0.5[k]"},
		{
			name:  "ambiguous keeps max_results, best first",
			cands: []Candidate{cand(d, 0.3), cand(c, 0.6), cand(b, 0.65), cand(a, 0.7)},
			th:    th,
			want:  "ambiguous a=0.7[k] b=0.65[k] c=0.6[k]",
		},
		{
			name:  "ambiguous with max_results 2",
			cands: []Candidate{cand(c, 0.6), cand(b, 0.65), cand(a, 0.7)},
			th:    Thresholds{MinScore: 0.2, AmbiguityThreshold: 0.1, MaxResults: 2},
			want:  "ambiguous a=0.7[k] b=0.65[k]",
		},
		{name: "equal scores by path", cands: []Candidate{cand(c, 0.5), cand(a, 0.5), cand(b, 0.5)}, th: th, want: "ambiguous a=0.5[k] b=0.5[k] c=0.5[k]"},
		{
			// 0.6 - 0.5 is 0.09999999999999998 in floating point, as in the
			// reference implementation: ambiguous.
			name:  "floating point gap as the reference computes it",
			cands: []Candidate{cand(a, 0.6), cand(b, 0.5)},
			th:    th,
			want:  "ambiguous a=0.6[k] b=0.5[k]",
		},
		{name: "nil skill ignored", cands: []Candidate{{Score: 1}, cand(a, 0.5)}, th: th, want: "match a=0.5[k]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Decide(tt.cands, tt.th)
			if s := summary(got); s != tt.want {
				t.Errorf("Decide: got %q, want %q", s, tt.want)
			}
			wantMsg := map[Outcome]string{NoMatch: NoMatchMessage, Ambiguous: AmbiguousMessage, Match: ""}[got.Outcome]
			if got.Message != wantMsg {
				t.Errorf("message: got %q, want %q", got.Message, wantMsg)
			}
		})
	}
}

func TestDecideMessages(t *testing.T) {
	if NoMatchMessage != "No skill matches the given context." {
		t.Errorf("NoMatchMessage: got %q, want seed 000's sentence", NoMatchMessage)
	}
	if AmbiguousMessage != "Multiple skills match. Specify your need or pick a skill_path." {
		t.Errorf("AmbiguousMessage: got %q, want seed 000's sentence", AmbiguousMessage)
	}
}

// TestKeywordMatchSeed000 runs the keyword strategy over seed 000's fixture
// tree; the expected scores are worked out by hand from its keywords and
// priorities.
func TestKeywordMatchSeed000(t *testing.T) {
	skills := matchFixture(t)
	m := NewMatcher(skills, MatcherOptions{})
	if got := m.Strategy(); got != StrategyKeyword {
		t.Fatalf("Strategy: got %q, want keyword (every skill declares keywords)", got)
	}
	tests := []struct {
		context string
		want    string
	}{
		{
			// react and component, auth and authentication by substring.
			context: "Create a React component for the authentication",
			want:    "match ui/react/auth=0.51[react,auth,authentication]",
		},
		{
			// The seed's ambiguous example: two auth skills, close scores.
			context: "auth",
			want:    "ambiguous ui/react/auth=0.3433[auth,authentication] api/auth=0.3383[auth,authentication]",
		},
		{
			// ui/react/auth scores 1/6 + 0.01, below min_score.
			context: "react",
			want:    "ambiguous ui/react/testing=0.2907[react,react-testing-library] ui/react/_index=0.205[react]",
		},
		{
			context: "JWT token middleware for the API",
			want:    "match api/auth=0.6717[api,jwt,token,middleware]",
		},
		{context: "database migration with postgres", want: "no_match"},
		{context: "go", want: "no_match"},
		{context: "the of a le la", want: "no_match"},
		{context: "", want: "no_match"},
	}
	for _, tt := range tests {
		t.Run(tt.context, func(t *testing.T) {
			d := m.Match(tt.context)
			if s := summary(d); s != tt.want {
				t.Errorf("Match(%q): got %q, want %q", tt.context, s, tt.want)
			}
			if d.Strategy != StrategyKeyword {
				t.Errorf("Match(%q): strategy %q, want keyword", tt.context, d.Strategy)
			}
		})
	}
}

func TestKeywordCandidatesSkipsSkillsWithoutKeywords(t *testing.T) {
	skills := []*catalog.Skill{matchSkill("bare"), matchSkill("kw", "pdf")}
	got := KeywordCandidates(NewKeywordTokenizer(nil), skills, "merge pdf files")
	if len(got) != 1 || got[0].Skill.Path != "kw" || got[0].Score != 1 {
		t.Errorf("KeywordCandidates: got %+v, want kw alone with score 1", got)
	}
}

func TestResolveStrategy(t *testing.T) {
	kw, bare := matchSkill("kw", "pdf"), matchSkill("bare")
	tests := []struct {
		configured string
		skills     []*catalog.Skill
		want       string
	}{
		{StrategyAuto, []*catalog.Skill{kw}, StrategyKeyword},
		{"", []*catalog.Skill{kw}, StrategyKeyword},
		{StrategyAuto, []*catalog.Skill{kw, bare}, StrategyRanked},
		{StrategyAuto, nil, StrategyRanked},
		{StrategyKeyword, []*catalog.Skill{bare}, StrategyKeyword},
		{StrategyRanked, []*catalog.Skill{kw}, StrategyRanked},
	}
	for _, tt := range tests {
		var paths []string
		for _, s := range tt.skills {
			paths = append(paths, s.Path)
		}
		if got := ResolveStrategy(tt.configured, tt.skills); got != tt.want {
			t.Errorf("ResolveStrategy(%q, %v): got %q, want %q", tt.configured, paths, got, tt.want)
		}
	}
}

// TestRankedMatch checks the ranked strategy's plumbing over the search
// engine: scores in 0..1, candidates best first, and nothing for a context
// unrelated to the catalog.
func TestRankedMatch(t *testing.T) {
	skills := matchFixture(t)
	m := NewMatcher(skills, MatcherOptions{Strategy: StrategyRanked})
	if got := m.Strategy(); got != StrategyRanked {
		t.Fatalf("Strategy: got %q, want ranked", got)
	}
	d := m.Match("JWT authentication middleware for the API backend")
	if d.Strategy != StrategyRanked {
		t.Errorf("strategy: got %q, want ranked", d.Strategy)
	}
	if d.Outcome == NoMatch {
		t.Fatalf("Match: got no_match, want api/auth among the answers")
	}
	if d.Candidates[0].Skill.Path != "api/auth" {
		t.Errorf("Match: got %s, want api/auth first", summary(d))
	}
	for i, c := range d.Candidates {
		if c.Score < 0 || c.Score > 1 {
			t.Errorf("candidate %s: score %v outside 0..1", c.Skill.Path, c.Score)
		}
		if i > 0 && c.Score > d.Candidates[i-1].Score {
			t.Errorf("candidates not best first: %s", summary(d))
		}
	}
	if d := m.Match("zebra quantum xylophone"); d.Outcome != NoMatch || d.Message != NoMatchMessage {
		t.Errorf("Match(unrelated): got %s, want no_match", summary(d))
	}
}
