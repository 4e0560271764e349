package search

import (
	"math"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTokenizeSeedExample is seed 000 §5.1's example.
func TestTokenizeSeedExample(t *testing.T) {
	got := NewKeywordTokenizer(nil).Tokenize("Create a React component for the authentication")
	want := []string{"create", "react", "component", "authentication"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Tokenize (-want +got):\n%s", diff)
	}
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		extra []string
		want  []string
	}{
		{name: "lower-cases", text: "JWT Middleware", want: []string{"jwt", "middleware"}},
		{name: "keeps hyphens", text: "react-testing-library setup", want: []string{"react-testing-library", "setup"}},
		{name: "removes punctuation", text: "auth, login! (guard)?", want: []string{"auth", "login", "guard"}},
		{name: "removes, not splits", text: "user's ui/react", want: []string{"users", "uireact"}},
		{name: "keeps underscores", text: "project_dir", want: []string{"project_dir"}},
		{name: "splits on any white space", text: "api\tbackend\nendpoint  rest", want: []string{"api", "backend", "endpoint", "rest"}},
		{name: "deduplicates, first order", text: "React hook react HOOK component", want: []string{"react", "hook", "component"}},
		{name: "English stop words", text: "a an the is of to in for with", want: nil},
		{name: "French stop words", text: "le la les un une de du et ou en", want: nil},
		{name: "French sentence", text: "Créer un composant React pour l'authentification", want: []string{"créer", "composant", "react", "lauthentification"}},
		{name: "technical short words stay", text: "go c js ts ui api", want: []string{"go", "c", "js", "ts", "ui", "api"}},
		{name: "lone hyphen dropped", text: "react - auth", want: []string{"react", "auth"}},
		{name: "digits kept", text: "Python 3.12 upgrade", want: []string{"python", "312", "upgrade"}},
		{name: "config stop words", text: "Please help me build a widget", extra: []string{"Help", " build "}, want: []string{"widget"}},
		{name: "empty", text: "", want: nil},
		{name: "only punctuation", text: "?!… —", want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewKeywordTokenizer(tt.extra).Tokenize(tt.text)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Tokenize(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

// TestStopWordsSupersetOfSeed checks every stop word seed 000 §5.1 names.
func TestStopWordsSupersetOfSeed(t *testing.T) {
	words := KeywordStopWords(nil)
	for _, w := range []string{"a", "an", "the", "is", "of", "to", "in", "for", "with", "le", "la", "les", "un", "une", "de", "du", "et", "ou", "en"} {
		if !slices.Contains(words, w) {
			t.Errorf("stop words lack %q", w)
		}
	}
	for _, w := range []string{"go", "c", "r", "js", "ts", "ui", "api", "test"} {
		if slices.Contains(words, w) {
			t.Errorf("stop words hold the technical term %q", w)
		}
	}
	extra := KeywordStopWords([]string{"Foo", "the", ""})
	if got, want := len(extra), len(words)+1; got != want {
		t.Errorf("KeywordStopWords with extra: got %d words, want %d (one new, deduplicated)", got, want)
	}
	if !slices.Contains(extra, "foo") {
		t.Errorf("KeywordStopWords with extra: lacks the lower-cased extra word")
	}
}

// TestKeywordMatchesBidirectional is seed 000 §5.2's table of bidirectional
// matching examples.
func TestKeywordMatchesBidirectional(t *testing.T) {
	tests := []struct {
		token, keyword string
		want           bool
		reason         string
	}{
		{"react", "react", true, "exact"},
		{"authentication", "auth", true, "token contains keyword"},
		{"auth", "authentication", true, "keyword contains token"},
		{"react", "reactjs", true, "keyword contains token"},
		{"go", "golang", false, "both short → exact only"},
		{"ts", "ts", true, "both short → exact match"},
	}
	for _, tt := range tests {
		if got := KeywordMatches(tt.token, tt.keyword); got != tt.want {
			t.Errorf("KeywordMatches(%q, %q) = %v, want %v (%s)", tt.token, tt.keyword, got, tt.want, tt.reason)
		}
	}
}

// TestKeywordMatchesShortTokens is the short-token rule as ARCHITECTURE §11
// settles it: the seed's table wins over its pseudo-code, so when the token
// or the keyword is shorter than 3 characters only an exact match counts.
func TestKeywordMatchesShortTokens(t *testing.T) {
	tests := []struct {
		token, keyword string
		want           bool
	}{
		{"go", "golang", false}, // seed: prevents "go" matching "golang"
		{"js", "json", false},   // seed: prevents "js" matching "json"
		{"golang", "go", false}, // keyword short, token long: exact only
		{"json", "js", false},
		{"ts", "ts", true},
		{"go", "go", true},
		{"ui", "ui", true},
		{"ui", "build", false},
		{"c", "css", false},
		{"api", "apis", true}, // 3 characters: substring rules apply
		{"apis", "api", true},
		{"jwt", "jwt", true},
		{"é", "éa", false}, // lengths count characters, not bytes
		{"éaé", "xéaéx", true},
		{"", "a", false},
	}
	for _, tt := range tests {
		if got := KeywordMatches(tt.token, tt.keyword); got != tt.want {
			t.Errorf("KeywordMatches(%q, %q) = %v, want %v", tt.token, tt.keyword, got, tt.want)
		}
	}
}

func TestKeywordScore(t *testing.T) {
	authKeywords := []string{"react", "auth", "authentication", "login", "provider", "guard"}
	tests := []struct {
		name        string
		tokens      []string
		keywords    []string
		priority    int
		wantScore   float64
		wantMatched []string
	}{
		{
			name:        "share of keywords plus priority",
			tokens:      []string{"create", "react", "login", "component", "auth"},
			keywords:    authKeywords,
			priority:    10,
			wantScore:   4.0/6 + 0.010,
			wantMatched: []string{"react", "auth", "authentication", "login"},
		},
		{
			name:        "keywords are lower-cased",
			tokens:      []string{"jwt"},
			keywords:    []string{"JWT", "Token"},
			wantScore:   0.5,
			wantMatched: []string{"jwt"},
		},
		{
			name:        "a keyword counts once, whatever the tokens matching it",
			tokens:      []string{"testing", "test"},
			keywords:    []string{"test", "jest"},
			wantScore:   0.5,
			wantMatched: []string{"test"},
		},
		{
			name:      "nothing matched: priority alone",
			tokens:    []string{"database"},
			keywords:  []string{"react"},
			priority:  5,
			wantScore: 0.005,
		},
		{
			name:      "no keywords",
			tokens:    []string{"react"},
			priority:  5,
			wantScore: 0,
		},
		{
			name:        "all matched, top of the range",
			tokens:      []string{"global", "rules", "project"},
			keywords:    []string{"global", "rules", "project"},
			priority:    3,
			wantScore:   1.003,
			wantMatched: []string{"global", "rules", "project"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			score, matched := KeywordScore(tt.tokens, tt.keywords, tt.priority)
			if math.Abs(score-tt.wantScore) > 1e-12 {
				t.Errorf("score: got %v, want %v", score, tt.wantScore)
			}
			if diff := cmp.Diff(tt.wantMatched, matched); diff != "" {
				t.Errorf("matched (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"Create a React component for the authentication", "l'été à Paris", "a-b_c d--e", "\xff\xfe"} {
		f.Add(s)
	}
	tok := NewKeywordTokenizer(nil)
	f.Fuzz(func(t *testing.T, s string) {
		seen := map[string]bool{}
		for _, tk := range tok.Tokenize(s) {
			if tk == "" || seen[tk] || tok.stop[tk] {
				t.Fatalf("Tokenize(%q): bad token %q in %q", s, tk, tok.Tokenize(s))
			}
			seen[tk] = true
		}
	})
}
