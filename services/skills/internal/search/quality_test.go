package search

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/routingbench"
)

// The routing benchmark (shared/bench beside the repository): 387 real
// skills, development queries with known answers, and a restatement of each
// query written the way a host model would. Test data only; package
// routingbench reads and scores it.

var (
	evalOut  = flag.String("eval-out", "", "write the dev queries' results in bench/eval.py's format to this file (FILE.restated for the restated run)")
	showMiss = flag.Bool("quality.misses", false, "log every query the ranked search gets wrong")
	ablation = flag.Bool("quality.ablation", false, "run TestAblation and TestFusionAblation: quality with each technique switched off, and each way of fusing restatements")
	qThresh  = flag.Float64("quality.threshold", 0, "Options.Threshold for TestQuality (0: the default; -1: never abstain)")
)

// The targets on the dev queries.
const (
	targetHit1       = 0.90
	targetHit3       = 0.96
	targetNoneAnswer = 0.25 // answers for fewer than this share of "none" queries
	targetAnswered   = 0.95 // while answering at least this share of the others

	// With the benchmark's restatements (issue 19).
	targetRestatedHit1       = 0.95
	targetRestatedHit3       = 0.98
	targetRestatedNoneAnswer = 0.10 // at most
)

// Single-query figures when restatements were added (issue 19): they must
// not drop. Hits are counts of the 137 queries with a skill (0.920 and
// 0.942), MRR is 0.933 rounded.
const (
	baseHit1, baseHit3 = 126, 129
	baseMRR            = 0.9325
	baseNoneAnswered   = 1
)

func corpusSkills(tb testing.TB) []*catalog.Skill { return routingbench.Skills(tb) }

func devQueries(tb testing.TB) []routingbench.Query { return routingbench.Queries(tb) }

// evaluate runs every query alone through ix.Search (limit 10).
func evaluate(ix *Index, qs []routingbench.Query) *routingbench.Report {
	return routingbench.Evaluate(qs, func(q routingbench.Query) routingbench.Ranked {
		return ranked(ix.Search(Query{Text: q.Query, Limit: 10}))
	})
}

// evaluateRestated runs every query with its restatement.
func evaluateRestated(ix *Index, qs []routingbench.Query) *routingbench.Report {
	return routingbench.Evaluate(qs, func(q routingbench.Query) routingbench.Ranked {
		return ranked(ix.Search(Query{Text: q.Query, Restated: []string{q.Restated}, Limit: 10}))
	})
}

func ranked(hits []Hit) routingbench.Ranked {
	var r routingbench.Ranked
	for _, h := range hits {
		r.Names = append(r.Names, h.Skill.Name)
		r.Scores = append(r.Scores, h.Score)
	}
	return r
}

type check struct {
	name      string
	got, want float64
	atMost    bool // got must be at most want (else at least)
	strict    bool // ... strictly
	enforced  bool
}

func runChecks(t *testing.T, checks []check) {
	t.Helper()
	const eps = 1e-9
	for _, c := range checks {
		var bad bool
		switch {
		case c.atMost && c.strict:
			bad = c.got >= c.want
		case c.atMost:
			bad = c.got > c.want+eps
		default:
			bad = c.got < c.want-eps
		}
		switch {
		case bad && c.enforced:
			t.Errorf("%s = %.3f, target %.3f", c.name, c.got, c.want)
		case bad:
			t.Logf("below target: %s = %.3f, target %.3f", c.name, c.got, c.want)
		}
	}
}

func TestQuality(t *testing.T) {
	skills := corpusSkills(t)
	qs := devQueries(t)
	ix := New(skills, Options{Threshold: *qThresh})
	rep := evaluate(ix, qs)
	t.Logf("%d skills, %d dev queries, each alone\n%s", ix.Len(), len(qs), rep.Table())
	if *showMiss {
		t.Logf("misses:\n%s", strings.Join(rep.Misses, "\n"))
	}
	if *evalOut != "" {
		if err := os.WriteFile(*evalOut, []byte(strings.Join(rep.Lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The targets reached are enforced (a regression fails); hit@3 is not
	// reached by the query alone (0.942: the rest need knowledge no
	// lexical method has, see the package documentation) and is only
	// logged.
	runChecks(t, []check{
		{"hit@1", rep.All.H1(), targetHit1, false, false, true},
		{"hit@3", rep.All.H3(), targetHit3, false, false, false},
		{"answered (queries with a skill)", rep.All.AnsweredShare(), targetAnswered, false, false, true},
		{"answered (queries without)", rep.None.AnsweredShare(), targetNoneAnswer, true, true, true},
	})
	if *qThresh != 0 {
		return
	}
	runChecks(t, []check{
		{"queries right at hit@1 (not below issue 19's starting point)", float64(rep.All.Hit1), baseHit1, false, false, true},
		{"queries right at hit@3 (not below issue 19's starting point)", float64(rep.All.Hit3), baseHit3, false, false, true},
		{"MRR (not below issue 19's starting point)", rep.All.MRR(), baseMRR, false, false, true},
		{"none answered (not above issue 19's starting point)", float64(rep.None.Answered), baseNoneAnswered, true, false, true},
	})

	if !routingbench.HaveRestatements(qs) {
		t.Log("no restatements.dev.jsonl: the restated run is skipped")
		return
	}
	rr := evaluateRestated(ix, qs)
	t.Logf("with each query's restatement\n%s", rr.Table())
	if *showMiss {
		t.Logf("misses with restatements:\n%s", strings.Join(rr.Misses, "\n"))
	}
	if *evalOut != "" {
		if err := os.WriteFile(*evalOut+".restated", []byte(strings.Join(rr.Lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	typo, typoAlone := rr.ByKind["typo"], rep.ByKind["typo"]
	runChecks(t, []check{
		{"restated hit@1", rr.All.H1(), targetRestatedHit1, false, false, true},
		{"restated hit@3", rr.All.H3(), targetRestatedHit3, false, false, true},
		{"restated none answered", rr.None.AnsweredShare(), targetRestatedNoneAnswer, true, false, true},
		{"restated typo hit@1 (not below the typo queries alone)", typo.H1(), typoAlone.H1(), false, false, true},
	})
}
