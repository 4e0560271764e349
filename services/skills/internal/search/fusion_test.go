package search

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/routingbench"
)

// TestFusionAblation measures the ways of fusing a query with its
// restatement on the development queries (run with -quality.ablation), for
// docs/routing.md: the rows are whole engines (abstention included), with
// hit@1 and hit@3 in each half (by the parity of the query number) and
// the queries without a skill that were answered.
func TestFusionAblation(t *testing.T) {
	if !*ablation {
		t.Skip("run with -quality.ablation")
	}
	skills := corpusSkills(t)
	qs := devQueries(t)
	if !routingbench.HaveRestatements(qs) {
		t.Skip("no restatements.dev.jsonl")
	}
	withTune := func(mod func(*tuning)) *Index {
		tu := defaultTuning
		mod(&tu)
		return New(skills, Options{tune: &tu})
	}
	ix := New(skills, Options{})
	run := func(f func(q routingbench.Query) []Hit) *routingbench.Report {
		return routingbench.Evaluate(qs, func(q routingbench.Query) routingbench.Ranked { return ranked(f(q)) })
	}
	restated := func(ix *Index) func(q routingbench.Query) []Hit {
		return func(q routingbench.Query) []Hit {
			return ix.Search(Query{Text: q.Query, Restated: []string{q.Restated}, Limit: 10})
		}
	}
	var b strings.Builder
	row := func(name string, rep *routingbench.Report) {
		typo := rep.ByKind["typo"]
		fmt.Fprintf(&b, "%-44s %s | typo@1 %.2f\n", name, rep.Row(), typo.H1())
	}
	b.WriteString("fusion (abstention: the query's own, or a restatement's best score >= 0.5)\n")
	fmt.Fprintf(&b, "%-44s %s\n", "", routingbench.RowHeader)
	row("query alone", run(func(q routingbench.Query) []Hit { return ix.Search(Query{Text: q.Query, Limit: 10}) }))
	row("restatement alone", run(func(q routingbench.Query) []Hit { return ix.Search(Query{Text: q.Restated, Limit: 10}) }))
	row("concatenated (one query)", run(func(q routingbench.Query) []Hit {
		return ix.Search(Query{Text: q.Query + "\n" + q.Restated, Limit: 10})
	}))
	for _, a := range []float64{0, 0.1, 0.25, 0.5, 1} {
		name := fmt.Sprintf("max + %.2f × other (normalized)", a)
		switch a {
		case 0:
			name = "max of calibrated scores"
		case 1:
			name = "mean of calibrated scores"
		case defaultTuning.agreement:
			name += " (chosen)"
		}
		row(name, run(restated(withTune(func(tu *tuning) { tu.agreement = a }))))
	}
	for _, k := range []float64{60, 5, 1} {
		row(fmt.Sprintf("reciprocal rank fusion, k = %g", k), run(func(q routingbench.Query) []Hit { return rrfRestated(ix, q, k) }))
	}

	b.WriteString("\nabstention: restatedThreshold\n")
	fmt.Fprintf(&b, "%-44s %s\n", "", routingbench.RowHeader)
	for _, th := range []float64{0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 1.01} {
		row(fmt.Sprintf("restatedThreshold %.2f", th), run(restated(withTune(func(tu *tuning) { tu.restatedThreshold = th }))))
	}
	// The rule decides only for queries whose own ranking abstains; to see
	// how well the development queries pin the threshold down, let the
	// restatement alone decide for every query: answered and right, and
	// "none" queries answered, by half.
	b.WriteString("\nthe restatement alone deciding (all queries): answered right / with a skill, none answered; even | odd\n")
	for _, th := range []float64{0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95} {
		var right, pos, none, noneAns [2]int
		ixT := New(skills, Options{Threshold: th})
		for _, q := range qs {
			hits := ixT.Search(Query{Text: q.Restated, Limit: 10})
			h := q.Half()
			if len(q.Expected) == 0 {
				none[h]++
				if len(hits) > 0 {
					noneAns[h]++
				}
				continue
			}
			pos[h]++
			if len(hits) > 0 && slices.Contains(q.Expected, hits[0].Skill.Name) {
				right[h]++
			}
		}
		fmt.Fprintf(&b, "threshold %.2f: %d/%d, %d/%d | %d/%d, %d/%d\n", th,
			right[0], pos[0], noneAns[0], none[0], right[1], pos[1], noneAns[1], none[1])
	}

	// Robustness: restatements worse than the benchmark's.
	b.WriteString("\nworse restatements (chosen fusion)\n")
	fmt.Fprintf(&b, "%-44s %s\n", "", routingbench.RowHeader)
	shifted := func(q routingbench.Query) []Hit {
		i := slices.IndexFunc(qs, func(o routingbench.Query) bool { return o.ID == q.ID })
		other := qs[(i+7)%len(qs)].Restated
		return ix.Search(Query{Text: q.Query, Restated: []string{other}, Limit: 10})
	}
	short := func(q routingbench.Query) []Hit {
		w := strings.Fields(q.Restated)
		return ix.Search(Query{Text: q.Query, Restated: []string{strings.Join(w[:min(3, len(w))], " ")}, Limit: 10})
	}
	row("another query's restatement", run(shifted))
	row("the restatement's first three words", run(short))
	t.Log("\n" + b.String())
}

// rrfRestated fuses the query's and the restatement's rankings by
// reciprocal rank (Σ 1/(k + rank)), with the chosen abstention rule: an
// alternative measured in TestFusionAblation.
func rrfRestated(ix *Index, q routingbench.Query, k float64) []Hit {
	rs := []*result{ix.rank(Query{Text: q.Query}, 40), ix.rank(Query{Text: q.Restated}, 40)}
	defer func() {
		for _, r := range rs {
			ix.release(r)
		}
	}()
	if !ix.restatedAnswers(rs) {
		return []Hit{}
	}
	score := map[int32]float64{}
	var docs []int32
	for _, r := range rs {
		for i, c := range r.cands {
			if _, ok := score[c.doc]; !ok {
				docs = append(docs, c.doc)
			}
			score[c.doc] += 1 / (k + float64(i+1))
		}
	}
	slices.SortStableFunc(docs, func(a, b int32) int { return cmp.Compare(score[b], score[a]) })
	var hits []Hit
	for _, d := range docs[:min(10, len(docs))] {
		hits = append(hits, Hit{Skill: ix.docs[d].skill, Score: score[d]})
	}
	return hits
}
