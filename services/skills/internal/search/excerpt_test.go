package search

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
)

func TestWindow(t *testing.T) {
	long := strings.Repeat("alpha beta gamma delta ", 10) + "NEEDLE in the haystack " + strings.Repeat("epsilon zeta eta theta ", 10)
	at := strings.Index(long, "NEEDLE")
	tests := []struct {
		name        string
		text        string
		start, end  int
		want        string // exact, when set
		contains    string
		lead, trail bool // "…" expected at the start, at the end
	}{
		{name: "short text whole, spaces collapsed", text: "Fill  PDF\nforms.", want: "Fill PDF forms."},
		{name: "empty", text: "", want: ""},
		{name: "match in the middle", text: long, start: at, end: at + 6, contains: "NEEDLE", lead: true, trail: true},
		{name: "match at the start", text: long, start: 0, end: 5, contains: "alpha", trail: true},
		{name: "match at the end", text: long, start: len(long) - 7, end: len(long) - 1, contains: "theta", lead: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := window(tt.text, tt.start, tt.end)
			if tt.want != "" || tt.text == "" {
				if got != tt.want {
					t.Errorf("window = %q, want %q", got, tt.want)
				}
				return
			}
			if !strings.Contains(got, tt.contains) {
				t.Errorf("window %q does not contain %q", got, tt.contains)
			}
			if n := utf8.RuneCountInString(got); n > excerptLen+2 || n < excerptLen/2 {
				t.Errorf("window %q has %d characters", got, n)
			}
			if strings.HasPrefix(got, "…") != tt.lead || strings.HasSuffix(got, "…") != tt.trail {
				t.Errorf("window %q: leading … %v, trailing … %v; want %v, %v", got, strings.HasPrefix(got, "…"), strings.HasSuffix(got, "…"), tt.lead, tt.trail)
			}
			// Cut at word boundaries: every word is whole.
			for _, w := range strings.Fields(strings.Trim(got, "…")) {
				if !strings.Contains(" "+tt.text+" ", " "+w+" ") {
					t.Errorf("window %q has a cut word %q", got, w)
				}
			}
		})
	}
}

func TestWindowMultibyte(t *testing.T) {
	text := strings.Repeat("日本語のテキスト。", 40)
	got := window(text, 90, 93)
	if !utf8.ValidString(got) {
		t.Fatalf("window %q is not valid UTF-8", got)
	}
	if n := utf8.RuneCountInString(got); n > excerptLen+2 {
		t.Errorf("window has %d characters", n)
	}
}

func TestExcerpt(t *testing.T) {
	body := strings.Repeat("Background paragraph about nothing in particular. ", 20) +
		"\n\nTo rotate a page, call rotate with the angle.\n\n" +
		strings.Repeat("More filler text follows here. ", 20)
	pdf := rankSkill("pdf", "Extract text and tables from PDF files, fill PDF forms, merge and split documents.", body)
	ix := New([]*catalog.Skill{pdf, rankSkill("other", "Something else entirely.", "nothing")}, Options{Threshold: -1})
	tests := []struct {
		name, query, contains string
	}{
		{"from the description", "fill pdf forms", "fill PDF forms"},
		{"from the body when the description lacks the words", "rotate angle", "rotate with the angle"},
		{"the description when only the name matched", "pdf", "Extract text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hits := ix.Search(Query{Text: tt.query})
			if len(hits) == 0 || hits[0].Skill != pdf {
				t.Fatalf("Search(%q) = %v", tt.query, names(hits))
			}
			if ex := hits[0].Excerpt; !strings.Contains(ex, tt.contains) {
				t.Errorf("excerpt %q does not contain %q", ex, tt.contains)
			}
		})
	}
}

// TestAtMostRunes: the window's short-text test counts characters, not
// bytes, and stops early without changing the answer.
func TestAtMostRunes(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want bool
	}{
		{"", 0, true},
		{"a", 0, false},
		{"abc", 3, true},
		{"abcd", 3, false},
		{"ééé", 3, true},   // 6 bytes, 3 characters
		{"éééé", 3, false}, // 8 bytes, 4 characters
		{strings.Repeat("日", 160), 160, true},
		{strings.Repeat("日", 161), 160, false},
	} {
		if got := atMostRunes(c.s, c.n); got != c.want || got != (utf8.RuneCountInString(c.s) <= c.n) {
			t.Errorf("atMostRunes(%q, %d) = %v, want %v", c.s, c.n, got, c.want)
		}
	}
}

// TestLookupFoldedAsFoldWord: the ASCII fast path finds what foldWord's
// form finds, for every case of word.
func TestLookupFoldedAsFoldWord(t *testing.T) {
	spelt := map[string]int32{"pdf": 1, "kubernetes": 2, "café": 3, "straße": 4}
	for _, w := range []string{"PDF", "pdf", "Pdf", "KUBERNETES", "Kubernetes", "CAFÉ", "Café", "STRASSE", "Straße", "pdfs", "", "x-ray", "ÅNGSTRÖM", strings.Repeat("A", maxWordLen)} {
		want, wok := spelt[foldWord(w)]
		got, ok := lookupFolded(spelt, w)
		if got != want || ok != wok {
			t.Errorf("%q: got %d %v, want %d %v (foldWord %q)", w, got, ok, want, wok, foldWord(w))
		}
	}
}

// FuzzCollapseSpace checks collapseSpace against the obvious
// strings.Join(strings.Fields(s), " "), invalid UTF-8 included.
func FuzzCollapseSpace(f *testing.F) {
	for _, s := range []string{"", " ", "a", "  a  b\t\nc  ", "x\u00a0y\u0085z\u2003w", "\xff \xfe\x80 a", "é  ü\r\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := collapseSpace(s), strings.Join(strings.Fields(s), " "); got != want {
			t.Fatalf("collapseSpace(%q) = %q, want %q", s, got, want)
		}
	})
}

// FuzzSpellingFilter checks that the filter never rules out a word that
// lookupFolded finds among the spellings.
func FuzzSpellingFilter(f *testing.F) {
	f.Add("kubernetes", "Kubernetes")
	f.Add("pdf", "PDFs")
	f.Add("é", "É")
	f.Add("a", "A")
	f.Fuzz(func(t *testing.T, spelling, word string) {
		spelt := map[string]int32{foldWord(spelling): 1}
		var may spellingFilter
		for s := range spelt {
			may.add(s)
		}
		if _, found := lookupFolded(spelt, word); found && !may.has(word) && isASCII(word) {
			t.Fatalf("the filter of %q rules out %q, which lookupFolded finds", spelling, word)
		}
	})
}
