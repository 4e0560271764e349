package search

import (
	"fmt"
	"strings"
	"testing"
)

// TestAblation measures what each technique adds on the development queries
// (run with -quality.ablation): forward, adding them one at a time to plain
// BM25 over the same fields; backward, leaving each out of the full engine.
// Ranking columns are without abstention; "para@3"
// is the paraphrase queries' hit@3, "even@3" and "odd@3" the hit@3 of the
// two halves of the dev queries (by the parity of their number: a change
// that helps one half only is noise); the last two use the default
// calibration and threshold (fitted for the full engine).
func TestAblation(t *testing.T) {
	if !*ablation {
		t.Skip("run with -quality.ablation")
	}
	skills := corpusSkills(t)
	qs := devQueries(t)

	type step struct {
		name string
		mod  func(*tuning)
	}
	plain := func(tu *tuning) {
		tu.weight = [numFields]float64{1, 1, 1, 1, 1}
		tu.b = [numFields]float64{0.75, 0.75, 0.75, 0.75, 0.75}
		tu.k1 = 1.2
		tu.analysis = analysis{}
		tu.typo, tu.split, tu.crossLang = false, false, false
		tu.bigramWeight = 0
	}
	techniques := []step{
		{"stop words", func(tu *tuning) { tu.analysis.stopWords = true }},
		{"Snowball stemming", func(tu *tuning) { tu.analysis.stem = true }},
		{"field weights, k1", func(tu *tuning) { tu.weight, tu.b, tu.k1 = defaultTuning.weight, defaultTuning.b, defaultTuning.k1 }},
		{"irregular forms", func(tu *tuning) { tu.analysis.irregular = true }},
		{"typo tolerance", func(tu *tuning) { tu.typo = true }},
		{"word splitting", func(tu *tuning) { tu.split = true }},
		{"cross-language stems", func(tu *tuning) { tu.crossLang = true }},
		{"proximity (bigrams)", func(tu *tuning) { tu.bigramWeight = defaultTuning.bigramWeight }},
	}
	off := map[string]func(*tuning){
		"stop words":        func(tu *tuning) { tu.analysis.stopWords = false },
		"Snowball stemming": func(tu *tuning) { tu.analysis.stem = false },
		"field weights, k1": func(tu *tuning) {
			tu.weight, tu.b, tu.k1 = [numFields]float64{1, 1, 1, 1, 1}, [numFields]float64{0.75, 0.75, 0.75, 0.75, 0.75}, 1.2
		},
		"irregular forms":      func(tu *tuning) { tu.analysis.irregular = false },
		"typo tolerance":       func(tu *tuning) { tu.typo = false },
		"word splitting":       func(tu *tuning) { tu.split = false },
		"cross-language stems": func(tu *tuning) { tu.crossLang = false },
		"proximity (bigrams)":  func(tu *tuning) { tu.bigramWeight = 0 },
	}

	measure := func(tu tuning) string {
		ranker := New(skills, Options{tune: &tu, Threshold: -1})
		rank := evaluate(ranker, qs)
		para := rank.ByKind["paraphrase"]
		abst := evaluate(New(skills, Options{tune: &tu}), qs)
		return fmt.Sprintf("%6.3f %6.3f %6.3f | %6.3f %6.3f %6.3f | %8.3f %8.3f",
			rank.All.H1(), rank.All.H3(), rank.All.MRR(),
			para.H3(), rank.Halves[0].H3(), rank.Halves[1].H3(),
			abst.All.AnsweredShare(), abst.None.AnsweredShare())
	}
	var b strings.Builder
	header := fmt.Sprintf("%-34s %6s %6s %6s | %6s %6s %6s | %8s %8s\n", "", "hit@1", "hit@3", "MRR", "para@3", "even@3", "odd@3", "answered", "none ans")
	b.WriteString("forward (cumulative)\n" + header)
	tu := defaultTuning
	plain(&tu)
	fmt.Fprintf(&b, "%-34s %s\n", "BM25, all fields weight 1", measure(tu))
	for _, s := range techniques {
		s.mod(&tu)
		fmt.Fprintf(&b, "%-34s %s\n", "+ "+s.name, measure(tu))
	}
	b.WriteString("\nbackward (each left out of the full engine)\n" + header)
	fmt.Fprintf(&b, "%-34s %s\n", "full engine", measure(defaultTuning))
	for _, s := range techniques {
		tu := defaultTuning
		off[s.name](&tu)
		fmt.Fprintf(&b, "%-34s %s\n", "- "+s.name, measure(tu))
	}
	t.Log("\n" + b.String())
}
