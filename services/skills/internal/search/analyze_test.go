package search

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// scanTokens returns the tokens of text, CJK runs marked with a "cjk:"
// prefix.
func scanTokens(text string) []string {
	out := []string{}
	sc := scanner{text: text}
	for {
		start, end, kind, ok := sc.next()
		if !ok {
			return out
		}
		tok := text[start:end]
		if kind == tokCJK {
			tok = "cjk:" + tok
		}
		out = append(out, tok)
	}
}

func TestScanner(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"empty", "", []string{}},
		{"separators", " \t-- ,;\n", []string{}},
		{"hyphen, underscore, dot", "pdf-creator snake_case node.js", []string{"pdf", "creator", "snake", "case", "node", "js"}},
		{"apostrophes split", "don't l'index", []string{"don", "t", "l", "index"}},
		{"c++, c#, f#", "C++ and C# or F#, not abc#def", []string{"C++", "and", "C#", "or", "F#", "not", "abc", "def"}},
		{"digits stay in words", "k8s s3 v4 2024", []string{"k8s", "s3", "v4", "2024"}},
		{"accents", "Réseau über", []string{"Réseau", "über"}},
		{"full-width latin", "ＰＤＦを作る", []string{"ＰＤＦ", "cjk:を作る"}},
		{"japanese", "Playwrightの不安定なテストを直して", []string{"Playwright", "cjk:の不安定なテストを直して"}},
		{"katakana long vowel", "サーバー", []string{"cjk:サーバー"}},
		{"korean is words", "한국어 텍스트", []string{"한국어", "텍스트"}},
		{"markdown", "## Usage\n- `run` it", []string{"Usage", "run", "it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, scanTokens(tt.text)); diff != "" {
				t.Errorf("tokens of %q (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestCJKBigrams(t *testing.T) {
	tests := []struct {
		run  string
		want []string
	}{
		{"不安定なテスト", []string{"不安", "安定", "定な", "なテ", "テス", "スト"}},
		{"直", []string{"直"}},
		{"ﾃｽﾄ", []string{"テス", "スト"}}, // half-width katakana, NFKC
		{"ー", nil},
	}
	for _, tt := range tests {
		var got []string
		cjkBigrams(tt.run, func(g string) { got = append(got, g) })
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("bigrams of %q (-want +got):\n%s", tt.run, diff)
		}
	}
}

func TestFoldWord(t *testing.T) {
	tests := []struct{ in, want string }{
		{"PDF", "pdf"},
		{"Réseau", "reseau"},
		{"ÜBER", "uber"},
		{"Straße", "strasse"},
		{"naïve", "naive"},
		{"Ærøskøbing", "aeroskobing"},
		{"ＰＤＦ", "pdf"},     // full width
		{"ﬁle", "file"},    // ligature
		{"Ωmega", "ωmega"}, // Greek lower-cased
		{"Ёлка", "елка"},   // Cyrillic accent
		{"हिंदी", "हिंदी"}, // Devanagari keeps its vowel signs
		{"テスト", "テスト"},     // Japanese untouched
		{"", ""},
	}
	for _, tt := range tests {
		if got := foldWord(tt.in); got != tt.want {
			t.Errorf("foldWord(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// wordOf analyzes one word with the full analysis and the built-in stop
// words.
func wordOf(w string, l lang) analyzed {
	a := newAnalyzer(newStopSet(nil), fullAnalysis)
	if isASCII(w) {
		lower := strings.ToLower(w)
		return a.analyze(lower, lower, l)
	}
	lower := strings.ToLower(w)
	return a.analyze(lower, foldWord(lower), l)
}

func TestAnalyzeWord(t *testing.T) {
	tests := []struct {
		name, word string
		lang       lang
		term       string // "" with stop or skip
		stop, skip bool
	}{
		{"english stem", "Running", langEnglish, "run", false, false},
		{"english plural", "tests", langEnglish, "test", false, false},
		{"snowball -sis/-ses", "analysis", langEnglish, "analysi", false, false},
		{"greek plural", "analyses", langEnglish, "analysi", false, false},
		{"irregular verb", "written", langEnglish, "write", false, false},
		{"irregular verb past", "wrote", langEnglish, "write", false, false},
		{"acronym plural", "PDFs", langEnglish, "pdf", false, false},
		{"acronym plural 2", "PRs", langEnglish, "pr", false, false},
		{"acronym with a vowel is snowball's", "APIs", langEnglish, "api", false, false},
		{"digits not stemmed", "k8s", langEnglish, "k8s", false, false},
		{"short not stemmed", "ci", langEnglish, "ci", false, false},
		{"accented english", "Café", langEnglish, "cafe", false, false},
		{"english stop word", "The", langEnglish, "", true, false},
		{"digits dropped", "2024", langEnglish, "", false, true},
		{"too long dropped", strings.Repeat("ab", maxWordLen), langEnglish, "", false, true},
		{"french stem", "isoler", langFrench, "isol", false, false},
		{"french accent", "Réseau", langFrench, "reseau", false, false},
		{"french stop word", "les", langFrench, "", true, false},
		{"spanish stem", "exploratorio", langSpanish, "exploratori", false, false},
		{"spanish stem 2", "datos", langSpanish, "dat", false, false},
		{"spanish stop word", "este", langSpanish, "", true, false},
		{"german stem", "Erstellung", langGerman, "erstell", false, false},
		{"german stop word with umlaut", "für", langGerman, "", true, false},
		{"english word is not a french stop word", "les", langEnglish, "les", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wordOf(tt.word, tt.lang)
			if got.term != tt.term || got.stop != tt.stop || got.skip != tt.skip {
				t.Errorf("%q in %v: term %q stop %v skip %v, want %q %v %v", tt.word, tt.lang, got.term, got.stop, got.skip, tt.term, tt.stop, tt.skip)
			}
		})
	}
	// Cross-language cognates meet at one stem.
	if fr, en := wordOf("isoler", langFrench).term, wordOf("isolate", langEnglish).term; fr != en {
		t.Errorf("isoler → %q, isolate → %q: want the same stem", fr, en)
	}
	if es, en := wordOf("exploratorio", langSpanish).term, wordOf("exploratory", langEnglish).term; es != en {
		t.Errorf("exploratorio → %q, exploratory → %q: want the same stem", es, en)
	}
}

func TestStopWordLists(t *testing.T) {
	stops := newStopSet([]string{"Acme", "Société"})
	for _, tt := range []struct {
		word string
		lang lang
		want bool
	}{
		{"the", langEnglish, true},
		{"and", langEnglish, true},
		{"test", langEnglish, false},
		{"use", langEnglish, false}, // frequent, but a content word
		{"go", langEnglish, false},  // a language name
		{"le", langFrench, true},
		{"ou", langFrench, true}, // "où", folded
		{"de", langSpanish, true},
		{"und", langGerman, true},
		{"acme", langEnglish, true}, // extra, every language
		{"acme", langGerman, true},
		{"societe", langFrench, true}, // extra words are folded
	} {
		if got := stops[tt.lang][tt.word]; got != tt.want {
			t.Errorf("stop word %q in %v = %v, want %v", tt.word, tt.lang, got, tt.want)
		}
	}
	// The lists are written folded: no upper case, no accents.
	for l, words := range [][]string{stopEnglish, stopFrench, stopSpanish, stopGerman} {
		for _, w := range words {
			if foldWord(w) != w {
				t.Errorf("%v stop word %q is not folded", lang(l), w)
			}
		}
	}
}

func TestDetectLang(t *testing.T) {
	tests := []struct {
		text string
		want lang
	}{
		{"Write the title and description reviewers will see for my pull request.", langEnglish},
		{"Configure une politique réseau Kubernetes pour isoler le namespace des paiements.", langFrench},
		{"Haz un análisis exploratorio de este archivo de datos científicos.", langSpanish},
		{"Erstelle ein Helm-Chart für unseren Service.", langGerman},
		{"Playwrightの不安定なテストを直して", langEnglish}, // no stemmer: English by default
		{"kubernetes helm chart", langEnglish},
		{"", langEnglish},
	}
	for _, tt := range tests {
		if got := detectLang(tt.text); got != tt.want {
			t.Errorf("detectLang(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestForBody(t *testing.T) {
	body := "# Title\nintro text\n## Usage\n```bash\n# not a heading\nrun it\n```\n#hashtag\n### Last one\n"
	var heads, code []string
	var prose strings.Builder
	forBody(body, func(text string, f field) {
		switch f {
		case fieldHeadings:
			heads = append(heads, strings.TrimSpace(text))
		case fieldCode:
			code = append(code, text)
		case fieldBody:
			prose.WriteString(text)
		default:
			t.Errorf("field %v for %q", f, text)
		}
	})
	if diff := cmp.Diff([]string{"Title", "Usage", "Last one"}, heads); diff != "" {
		t.Errorf("headings (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"```bash\n# not a heading\nrun it\n```\n"}, code); diff != "" {
		t.Errorf("code blocks (-want +got):\n%s", diff)
	}
	if got := prose.String(); got != "# Title\nintro text\n## Usage\n#hashtag\n### Last one\n" {
		t.Errorf("prose = %q", got)
	}
	// An unclosed fence runs to the end.
	var last field
	forBody("text\n```\ncode", func(_ string, f field) { last = f })
	if last != fieldCode {
		t.Errorf("unclosed fence: last part is %v, want code", last)
	}
}
