package server

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/testing/protocmp"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/search"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// routingTree is the seed-000 fixture tree of the catalog package.
func routingTree(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "catalog", "testdata", "seed000-tree"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// routingFolders writes a few SKILL.md folders (no keywords) and returns
// their root.
func routingFolders(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"pdf/SKILL.md":     "---\nname: pdf\ndescription: Fill, merge and split PDF files and extract their text.\nmetadata:\n  skillhub:\n    category: Documents\n    tags: [pdf, office]\n---\n\n# PDF\n\nUse pypdf to merge files.\n",
		"docx/SKILL.md":    "---\nname: docx\ndescription: Create and edit Word documents with tracked changes.\nmetadata:\n  skillhub:\n    category: documents\n    tags: [office]\n---\n\n# DOCX\n",
		"hidden/SKILL.md":  "---\nname: hidden\ndescription: Merge PDF files secretly.\ndisable-model-invocation: true\n---\n\n# Hidden\n",
		"release/SKILL.md": "---\nname: release-notes\ndescription: Write release notes from a changelog and merged pull requests.\n---\n\n# Release notes\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// routingService serves the catalog of dirs with opts (Store is set here).
func routingService(t *testing.T, opts Options, dirs ...string) *Service {
	t.Helper()
	var roots []*source.Root
	for _, d := range dirs {
		roots = append(roots, &source.Root{Name: filepath.Base(d), Dir: d, Kind: "local", Trusted: true})
	}
	snap, err := catalog.Build(t.Context(), roots, catalog.Options{})
	if err != nil {
		t.Fatalf("catalog.Build: %v", err)
	}
	opts.Store = &catalog.Store{}
	opts.Store.Swap(snap)
	return New(opts)
}

func routingWantCode(t *testing.T, what string, err error, want codes.Code) {
	t.Helper()
	if got := status.Code(err); got != want {
		t.Errorf("%s: got code %v (%v), want %v", what, got, err, want)
	}
}

func TestSearchSkillsValidation(t *testing.T) {
	s := routingService(t, Options{}, routingFolders(t))
	tests := []struct {
		name string
		req  *skillsv1.SearchSkillsRequest
		want string // in the message
	}{
		{"empty query", &skillsv1.SearchSkillsRequest{}, "query is required"},
		{"blank query", &skillsv1.SearchSkillsRequest{Query: " \t\n"}, "query is required"},
		{"negative limit", &skillsv1.SearchSkillsRequest{Query: "pdf", Limit: -1}, "limit must not be negative"},
		{"unknown mode", &skillsv1.SearchSkillsRequest{Query: "pdf", Mode: 99}, "not a search mode"},
		{"too long", &skillsv1.SearchSkillsRequest{Query: strings.Repeat("pdf ", maxQueryBytes)}, "longer than"},
		{"invalid UTF-8", &skillsv1.SearchSkillsRequest{Query: "pdf \xff"}, "UTF-8"},
		{"too many restatements", &skillsv1.SearchSkillsRequest{Query: "pdf", Restated: []string{"a", "b", "c", "d"}}, "at most 3"},
		{"blank restatement", &skillsv1.SearchSkillsRequest{Query: "pdf", Restated: []string{"merge PDF files", " "}}, "restated[1] is blank"},
		{"restatement too long", &skillsv1.SearchSkillsRequest{Query: "pdf", Restated: []string{strings.Repeat("pdf ", maxQueryBytes)}}, "restated[0] is longer than"},
		{"restatement invalid UTF-8", &skillsv1.SearchSkillsRequest{Query: "pdf", Restated: []string{"pdf \xff"}}, "restated[0] is not valid UTF-8"},
		{"restatement in all_terms mode", &skillsv1.SearchSkillsRequest{Query: "pdf", Restated: []string{"merge PDF files"}, Mode: skillsv1.SearchMode_SEARCH_MODE_ALL_TERMS}, "restated applies to ranked search"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.SearchSkills(t.Context(), tt.req)
			routingWantCode(t, "SearchSkills", err, codes.InvalidArgument)
			if msg := status.Convert(err).Message(); !strings.Contains(msg, tt.want) {
				t.Errorf("message: got %q, want it to contain %q", msg, tt.want)
			}
		})
	}
}

func TestSearchSkills(t *testing.T) {
	folders := routingFolders(t)
	tests := []struct {
		name      string
		opts      Options
		req       *skillsv1.SearchSkillsRequest
		wantFirst string   // the best hit, when set
		allowed   []string // every hit is one of these, when set
		wantNone  bool
	}{
		{name: "ranked", req: &skillsv1.SearchSkillsRequest{Query: "merge PDF files"}, wantFirst: "pdf"},
		{name: "all terms", req: &skillsv1.SearchSkillsRequest{Query: "word documents", Mode: skillsv1.SearchMode_SEARCH_MODE_ALL_TERMS}, wantFirst: "docx", allowed: []string{"docx"}},
		{name: "category, any case", req: &skillsv1.SearchSkillsRequest{Query: "merge files documents", Category: "DOCUMENTS"}, allowed: []string{"pdf", "docx"}},
		{name: "tags", req: &skillsv1.SearchSkillsRequest{Query: "documents files", Tags: []string{"PDF"}}, allowed: []string{"pdf"}},
		{name: "unknown category", req: &skillsv1.SearchSkillsRequest{Query: "pdf", Category: "cooking"}, wantNone: true},
		{name: "enabled subset", opts: Options{Filter: catalog.Filter{EnabledSkills: []string{"docx"}}}, req: &skillsv1.SearchSkillsRequest{Query: "merge PDF files"}, allowed: []string{"docx"}},
		{name: "nothing applies", req: &skillsv1.SearchSkillsRequest{Query: "zebra xylophone quantum"}, wantNone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := routingService(t, tt.opts, folders)
			resp, err := s.SearchSkills(t.Context(), tt.req)
			if err != nil {
				t.Fatalf("SearchSkills: %v", err)
			}
			if resp.GetQuery() != tt.req.GetQuery() {
				t.Errorf("query: got %q, want %q", resp.GetQuery(), tt.req.GetQuery())
			}
			if resp.Results == nil {
				t.Fatalf("results: nil, want a list")
			}
			var paths []string
			for i, h := range resp.GetResults() {
				paths = append(paths, h.GetSkillPath())
				if h.GetSkillPath() == "hidden" {
					t.Errorf("hit %q: a skill with disable-model-invocation", h.GetSkillPath())
				}
				if h.MatchedTerms == nil {
					t.Errorf("hit %q: matched_terms nil, want a list", h.GetSkillPath())
				}
				if h.GetName() == "" || h.GetDescription() == "" {
					t.Errorf("hit %q: got name %q description %q, want both", h.GetSkillPath(), h.GetName(), h.GetDescription())
				}
				if i > 0 && h.GetScore() > resp.GetResults()[i-1].GetScore() {
					t.Errorf("hits not best first: %v", paths)
				}
			}
			if tt.wantNone && len(paths) > 0 {
				t.Errorf("results: got %v, want none", paths)
			}
			if tt.wantFirst != "" && (len(paths) == 0 || paths[0] != tt.wantFirst) {
				t.Errorf("results: got %v, want %s first", paths, tt.wantFirst)
			}
			for _, p := range paths {
				if tt.allowed != nil && !slices.Contains(tt.allowed, p) {
					t.Errorf("results: got %v, want only %v", paths, tt.allowed)
				}
			}
		})
	}
}

func TestSearchSkillsCategoryField(t *testing.T) {
	s := routingService(t, Options{}, routingFolders(t))
	resp, err := s.SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: "merge PDF files"})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.GetResults()) == 0 || resp.GetResults()[0].GetCategory() != "documents" {
		t.Errorf("results: got %v, want pdf first with category documents", resp.GetResults())
	}
}

func TestSearchSkillsLimit(t *testing.T) {
	// Every seed-000 skill mentions rules or patterns in its description.
	s := routingService(t, Options{Routing: Routing{SearchLimit: 2}}, routingTree(t))
	for _, tt := range []struct {
		limit int32
		max   int
	}{{0, 2}, {1, 1}, {1000, maxSearchLimit}} {
		resp, err := s.SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: "react rules patterns development", Limit: tt.limit})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(resp.GetResults()); n > tt.max || n == 0 {
			t.Errorf("limit %d: got %d results, want 1..%d", tt.limit, n, tt.max)
		}
	}
}

func TestMatchSkillValidation(t *testing.T) {
	s := routingService(t, Options{}, routingTree(t))
	for _, ctx := range []string{"", "   ", strings.Repeat("x", maxQueryBytes+1)} {
		_, err := s.MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: ctx})
		routingWantCode(t, "MatchSkill", err, codes.InvalidArgument)
	}
	for _, rest := range [][]string{{"a", "b", "c", "d"}, {""}, {strings.Repeat("x", maxQueryBytes+1)}, {"\xff"}} {
		_, err := s.MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: "react hooks", Restated: rest})
		routingWantCode(t, "MatchSkill restated", err, codes.InvalidArgument)
	}
}

// TestRestated: a request in words no skill uses abstains alone and is
// answered with a restatement that names the technology; the hit says the
// restatement matched, with its words and an excerpt around them. Search
// and match decide on the same fused evidence.
func TestRestated(t *testing.T) {
	s := routingService(t, Options{}, routingFolders(t))
	query := "stitch these two scanned handouts into one"
	alone, err := s.SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: query})
	if err != nil {
		t.Fatal(err)
	}
	if len(alone.GetResults()) != 0 {
		t.Fatalf("alone: got %v, want no result (fixture changed?)", alone.GetResults())
	}
	restated := []string{"merge PDF files, pypdf"}
	resp, err := s.SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: query, Restated: restated})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetQuery() != query {
		t.Errorf("query: got %q, want the query as received", resp.GetQuery())
	}
	if len(resp.GetResults()) == 0 {
		t.Fatal("restated: no result, want pdf")
	}
	h := resp.GetResults()[0]
	if h.GetSkillPath() != "pdf" || h.GetPhrasing() != 1 || !slices.Contains(h.GetMatchedTerms(), "pdf") ||
		!strings.Contains(strings.ToLower(h.GetExcerpt()), "merge") {
		t.Errorf("restated: got %+v, want pdf matched by restatement 1 with its words", h)
	}
	m, err := s.MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: query, Restated: restated})
	if err != nil {
		t.Fatal(err)
	}
	if m.GetOutcome() != skillsv1.MatchOutcome_MATCH_OUTCOME_MATCH || m.GetSkillPath() != "pdf" || m.GetPhrasing() != 1 ||
		m.GetScore() != h.GetScore() || !slices.Equal(m.GetMatchedKeywords(), h.GetMatchedTerms()) {
		t.Errorf("match: got %v %s phrasing %d score %v %v, want pdf as search found it (%v %v)",
			m.GetOutcome(), m.GetSkillPath(), m.GetPhrasing(), m.GetScore(), m.GetMatchedKeywords(), h.GetScore(), h.GetMatchedTerms())
	}
	if m, err := s.MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: query}); err != nil || m.GetOutcome() != skillsv1.MatchOutcome_MATCH_OUTCOME_NO_MATCH {
		t.Errorf("match alone: got %v, %v; want no match", m.GetOutcome(), err)
	}
	// Whitespace around a restatement is trimmed; a restatement equal to
	// the query changes nothing.
	same, err := s.SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: "merge PDF files", Restated: []string{"  Merge pdf   files "}})
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := s.SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: "merge PDF files"})
	if !cmp.Equal(same.GetResults(), plain.GetResults(), protocmp.Transform()) {
		t.Errorf("a restatement equal to the query: got %v, want %v", same.GetResults(), plain.GetResults())
	}
}

// TestMatchSkillKeyword runs seed 000's matcher through the RPC on its
// fixture tree (every skill declares keywords: auto is keyword).
func TestMatchSkillKeyword(t *testing.T) {
	s := routingService(t, Options{MatchingStrategy: "auto"}, routingTree(t))

	t.Run("match", func(t *testing.T) {
		resp, err := s.MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: "Create a React component for the authentication"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetOutcome() != skillsv1.MatchOutcome_MATCH_OUTCOME_MATCH || resp.GetSkillPath() != "ui/react/auth" {
			t.Fatalf("got %v %q, want a match of ui/react/auth", resp.GetOutcome(), resp.GetSkillPath())
		}
		routingCheck(t, "strategy", resp.GetStrategy(), "keyword")
		routingCheck(t, "message", resp.GetMessage(), "")
		if d := resp.GetScore() - (3.0/6 + 0.01); d > 1e-9 || d < -1e-9 {
			t.Errorf("score: got %v, want 3/6 + 10×0.001", resp.GetScore())
		}
		if diff := cmp.Diff([]string{"react", "auth", "authentication"}, resp.GetMatchedKeywords()); diff != "" {
			t.Errorf("matched_keywords (-want +got):\n%s", diff)
		}
		for _, banner := range []string{"=== GLOBAL RULES (from _root.md) ===", "=== UI > REACT > AUTH (from ui/react/auth.md) ==="} {
			if !strings.Contains(resp.GetContent(), banner) {
				t.Errorf("content lacks %q", banner)
			}
		}
		routingCheck(t, "assets", routingAssetFiles(resp.GetAssets()), "assets/AuthProvider.tsx.template,assets/auth-config.example.ts")
		routingCheck(t, "scripts", routingScriptFiles(resp.GetScripts()), "scripts/scaffold-auth.sh,scripts/validate-auth-config.ts")
		routingCheck(t, "inherited_assets", routingAssetFiles(resp.GetInheritedAssets()), "assets/component-base.tsx.template")
		routingCheck(t, "inherited_scripts", routingScriptFiles(resp.GetInheritedScripts()), "scripts/lint-component.sh")
		if got := resp.GetInheritedAssets()[0].GetFrom(); got != "ui/react/_index" {
			t.Errorf("inherited asset from: got %q, want ui/react/_index", got)
		}
		if resp.Candidates == nil || len(resp.Candidates) != 0 {
			t.Errorf("candidates: got %v, want []", resp.Candidates)
		}
	})

	t.Run("ambiguous", func(t *testing.T) {
		resp, err := s.MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: "auth"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetOutcome() != skillsv1.MatchOutcome_MATCH_OUTCOME_AMBIGUOUS {
			t.Fatalf("outcome: got %v, want ambiguous", resp.GetOutcome())
		}
		routingCheck(t, "message", resp.GetMessage(), search.AmbiguousMessage)
		var got []string
		for _, c := range resp.GetCandidates() {
			got = append(got, c.GetSkillPath()+":"+c.GetDescription()+":"+strings.Join(c.GetMatchedKeywords(), ","))
		}
		want := []string{
			"ui/react/auth:React authentication components and patterns:auth,authentication",
			"api/auth:API authentication with JWT middleware:auth,authentication",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("candidates (-want +got):\n%s", diff)
		}
		routingCheck(t, "skill_path", resp.GetSkillPath(), "")
		routingCheck(t, "content", resp.GetContent(), "")
		if resp.Assets == nil || resp.MatchedKeywords == nil {
			t.Errorf("lists of an ambiguous answer must be [], not nil")
		}
	})

	t.Run("no match", func(t *testing.T) {
		resp, err := s.MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: "bake sourdough bread"})
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetOutcome() != skillsv1.MatchOutcome_MATCH_OUTCOME_NO_MATCH {
			t.Fatalf("outcome: got %v, want no match", resp.GetOutcome())
		}
		routingCheck(t, "message", resp.GetMessage(), search.NoMatchMessage)
		routingCheck(t, "strategy", resp.GetStrategy(), "keyword")
	})
}

func TestMatchSkillStrategy(t *testing.T) {
	tree, folders := routingTree(t), routingFolders(t)
	tests := []struct {
		name       string
		configured string
		filter     catalog.Filter
		dirs       []string
		want       string
	}{
		{name: "auto, every skill with keywords", configured: "auto", dirs: []string{tree}, want: "keyword"},
		{name: "auto, SKILL.md folders too", configured: "auto", dirs: []string{tree, folders}, want: "ranked"},
		{name: "auto, enabled subset with keywords", configured: "auto", filter: catalog.Filter{EnabledSkills: []string{"api/auth", "ui/react/auth"}}, dirs: []string{tree, folders}, want: "keyword"},
		{name: "empty is auto", configured: "", dirs: []string{folders}, want: "ranked"},
		{name: "keyword forced", configured: "keyword", dirs: []string{folders}, want: "keyword"},
		{name: "ranked forced", configured: "ranked", dirs: []string{tree}, want: "ranked"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := routingService(t, Options{MatchingStrategy: tt.configured, Filter: tt.filter}, tt.dirs...)
			resp, err := s.MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: "api authentication with jwt"})
			if err != nil {
				t.Fatal(err)
			}
			routingCheck(t, "strategy", resp.GetStrategy(), tt.want)
			st, err := s.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
			if err != nil {
				t.Fatal(err)
			}
			routingCheck(t, "status matching_strategy", st.GetMatchingStrategy(), tt.want)
		})
	}
}

// TestMatchSkillEnabledSubset checks that a disabled skill is never matched.
func TestMatchSkillEnabledSubset(t *testing.T) {
	s := routingService(t, Options{Filter: catalog.Filter{EnabledSkills: []string{"api/auth", "api/_index", "_root"}}}, routingTree(t))
	resp, err := s.MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: "auth"})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetOutcome() != skillsv1.MatchOutcome_MATCH_OUTCOME_MATCH || resp.GetSkillPath() != "api/auth" {
		t.Errorf("got %v %q, want a match of api/auth (ui/react/auth is disabled)", resp.GetOutcome(), resp.GetSkillPath())
	}
}

// TestMatchSkillThresholds checks that the configured thresholds apply.
func TestMatchSkillThresholds(t *testing.T) {
	tests := []struct {
		name string
		th   search.Thresholds
		want skillsv1.MatchOutcome
		n    int
	}{
		{"defaults: ambiguous", search.Thresholds{}, skillsv1.MatchOutcome_MATCH_OUTCOME_AMBIGUOUS, 2},
		{"no ambiguity threshold: match", search.Thresholds{MinScore: 0.2, AmbiguityThreshold: 0, MaxResults: 3}, skillsv1.MatchOutcome_MATCH_OUTCOME_MATCH, 0},
		{"high min_score: no match", search.Thresholds{MinScore: 0.9, AmbiguityThreshold: 0.1, MaxResults: 3}, skillsv1.MatchOutcome_MATCH_OUTCOME_NO_MATCH, 0},
		{"max_results 1", search.Thresholds{MinScore: 0.2, AmbiguityThreshold: 0.1, MaxResults: 1}, skillsv1.MatchOutcome_MATCH_OUTCOME_AMBIGUOUS, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := routingService(t, Options{Routing: Routing{Match: tt.th}}, routingTree(t))
			resp, err := s.MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: "auth"})
			if err != nil {
				t.Fatal(err)
			}
			if resp.GetOutcome() != tt.want || len(resp.GetCandidates()) != tt.n {
				t.Errorf("got %v with %d candidates, want %v with %d", resp.GetOutcome(), len(resp.GetCandidates()), tt.want, tt.n)
			}
		})
	}
}

// TestRoutesCachedPerSnapshot checks that the index is built once per
// snapshot and rebuilt when the catalog is swapped.
func TestRoutesCachedPerSnapshot(t *testing.T) {
	s := routingService(t, Options{}, routingTree(t))
	first := s.router.Routes(t.Context())
	if again := s.router.Routes(t.Context()); again != first {
		t.Errorf("routes rebuilt for the same snapshot")
	}
	snap, err := catalog.Build(t.Context(), []*source.Root{{Name: "f", Dir: routingFolders(t), Kind: "local"}}, catalog.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.opts.Store.Swap(snap)
	next := s.router.Routes(t.Context())
	if next == first || next.Snapshot != snap {
		t.Errorf("routes not rebuilt for a new snapshot")
	}
	if got := next.Matcher.Strategy(); got != "ranked" {
		t.Errorf("strategy after the swap: got %q, want ranked", got)
	}
}

func routingCheck(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s: got %q, want %q", what, got, want)
	}
}

func routingAssetFiles(as []*skillsv1.Asset) string {
	var out []string
	for _, a := range as {
		out = append(out, a.GetFile())
	}
	return strings.Join(out, ",")
}

func routingScriptFiles(ss []*skillsv1.Script) string {
	var out []string
	for _, s := range ss {
		out = append(out, s.GetFile())
	}
	return strings.Join(out, ",")
}
