// Package routingbench reads the routing benchmark that lives beside the
// repository (shared/bench: a corpus of real skills, development queries
// with known answers and, for each query, one restatement written the way a
// host model would write it) and scores rankings on it, for the quality and
// ablation tests of packages search and embed and the MCP gateway's
// evaluation test.
//
// It is test support: nothing of the benchmark is copied into the
// repository, and every test using it skips itself when the benchmark is
// not there (Dir returns "").
package routingbench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// Dir finds shared/bench (with its corpus) in the working directory or one
// of its parents; "" when there is none.
func Dir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, "shared", "bench")
		if info, err := os.Stat(filepath.Join(p, "corpus")); err == nil && info.IsDir() {
			return p
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Require returns Dir, skipping tb when the benchmark is not there.
func Require(tb testing.TB) string {
	tb.Helper()
	d := Dir()
	if d == "" {
		tb.Skip("the routing benchmark (shared/bench/corpus beside the repository) is not here")
	}
	return d
}

var corpus struct {
	once   sync.Once
	skills []*catalog.Skill
	err    error
}

// Skills builds the benchmark corpus through the catalog, once per test
// binary, and returns every skill (routable or not).
func Skills(tb testing.TB) []*catalog.Skill {
	tb.Helper()
	dir := Require(tb)
	corpus.once.Do(func() {
		root := &source.Root{Name: "corpus", Dir: filepath.Join(dir, "corpus"), Kind: source.KindLocal, Trusted: true}
		snap, err := catalog.Build(tb.Context(), []*source.Root{root}, catalog.Options{})
		if err != nil {
			corpus.err = err
			return
		}
		corpus.skills = snap.Skills()
	})
	if corpus.err != nil {
		tb.Fatal(corpus.err)
	}
	return corpus.skills
}

// Routable is Skills without the skills routing never offers.
func Routable(tb testing.TB) []*catalog.Skill {
	tb.Helper()
	var out []*catalog.Skill
	for _, sk := range Skills(tb) {
		if sk.Routable {
			out = append(out, sk)
		}
	}
	return out
}

// Query is one development query.
type Query struct {
	ID        string   `json:"id"`
	Query     string   `json:"query"`
	Expected  []string `json:"expected"`
	Kind      string   `json:"kind"`
	Confusers []string `json:"confusers"`
	// Restated is the query's restatement (restatements.dev.jsonl), "" when
	// the benchmark has none for it.
	Restated string `json:"-"`
}

// Half is 0 or 1: the parity of the query's number ("q051" is odd). A
// change that helps one half only is noise, not a gain.
func (q Query) Half() int {
	n, _ := strconv.Atoi(strings.TrimLeft(q.ID, "q"))
	return n % 2
}

// Queries reads queries.dev.jsonl, with each query's restatement from
// restatements.dev.jsonl when that file is there.
func Queries(tb testing.TB) []Query {
	tb.Helper()
	dir := Require(tb)
	var qs []Query
	readJSONL(tb, filepath.Join(dir, "queries.dev.jsonl"), func(line []byte) error {
		var q Query
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		qs = append(qs, q)
		return nil
	})
	p := filepath.Join(dir, "restatements.dev.jsonl")
	if _, err := os.Stat(p); err != nil {
		return qs
	}
	rs := map[string]string{}
	readJSONL(tb, p, func(line []byte) error {
		var r struct{ ID, Query string }
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		rs[r.ID] = r.Query
		return nil
	})
	for i := range qs {
		qs[i].Restated = rs[qs[i].ID]
	}
	return qs
}

// HaveRestatements reports whether every query has a restatement.
func HaveRestatements(qs []Query) bool {
	return len(qs) > 0 && !slices.ContainsFunc(qs, func(q Query) bool { return q.Restated == "" })
}

func readJSONL(tb testing.TB, path string, line func([]byte) error) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		if err := line(sc.Bytes()); err != nil {
			tb.Fatalf("%s:%d: %v", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
}

// Stats are the figures of a set of queries.
type Stats struct {
	// N counts the queries; Hit1 and Hit3 those whose expected skill is
	// first, or among the first three; Answered those with any answer; RR
	// sums the reciprocal ranks.
	N, Hit1, Hit3, Answered int
	RR                      float64
}

func (s *Stats) add(rank int, answered bool) {
	s.N++
	if answered {
		s.Answered++
	}
	if rank == 1 {
		s.Hit1++
	}
	if rank >= 1 && rank <= 3 {
		s.Hit3++
	}
	if rank >= 1 {
		s.RR += 1 / float64(rank)
	}
}

// H1, H3, MRR and AnsweredShare are the ratios (0 when N is 0).
func (s Stats) H1() float64            { return ratio(s.Hit1, s.N) }
func (s Stats) H3() float64            { return ratio(s.Hit3, s.N) }
func (s Stats) MRR() float64           { return s.RR / max(float64(s.N), 1) }
func (s Stats) AnsweredShare() float64 { return ratio(s.Answered, s.N) }

func ratio(a, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(a) / float64(n)
}

// Report scores one run over the queries.
type Report struct {
	// All is over the queries with an expected skill, ByKind by their kind,
	// Halves by Query.Half; None is over the queries without.
	All    Stats
	ByKind map[string]*Stats
	Halves [2]Stats
	None   Stats
	// Misses describe the queries not answered right (for -v logs), and
	// Lines are the run in eval.py's format.
	Misses []string
	Lines  []string
}

// Ranked is one query's answer: skill names best first with their scores;
// empty when the system abstained.
type Ranked struct {
	Names  []string
	Scores []float64
}

// Evaluate runs rank over qs and scores it.
func Evaluate(qs []Query, rank func(Query) Ranked) *Report {
	rep := &Report{ByKind: map[string]*Stats{}}
	for _, q := range qs {
		r := rank(q)
		line, _ := json.Marshal(map[string]any{"id": q.ID, "ranked": nonNil(r.Names), "scores": nonNil(r.Scores)})
		rep.Lines = append(rep.Lines, string(line))
		answered := len(r.Names) > 0
		if len(q.Expected) == 0 {
			rep.None.add(0, answered)
			if answered {
				rep.Misses = append(rep.Misses, fmt.Sprintf("%s none answered %s (%.3f): %s", q.ID, r.Names[0], r.Scores[0], q.Query))
			}
			continue
		}
		pos := 0
		for i, n := range r.Names {
			if slices.ContainsFunc(q.Expected, func(e string) bool { return strings.EqualFold(e, n) }) {
				pos = i + 1
				break
			}
		}
		ks := rep.ByKind[q.Kind]
		if ks == nil {
			ks = &Stats{}
			rep.ByKind[q.Kind] = ks
		}
		ks.add(pos, answered)
		rep.All.add(pos, answered)
		rep.Halves[q.Half()].add(pos, answered)
		if pos != 1 {
			got := "(abstained)"
			if answered {
				got = fmt.Sprintf("%v top %.3f", r.Names[:min(3, len(r.Names))], r.Scores[0])
			}
			rep.Misses = append(rep.Misses, fmt.Sprintf("%s %s rank %d want %v got %s: %.90s", q.ID, q.Kind, pos, q.Expected, got, q.Query))
		}
	}
	return rep
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Kinds are the query kinds of the report, sorted.
func (rep *Report) Kinds() []string {
	kinds := make([]string, 0, len(rep.ByKind))
	for k := range rep.ByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	return kinds
}

// Table renders the report by kind.
func (rep *Report) Table() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-14s %4s %6s %6s %6s %8s\n", "kind", "n", "hit@1", "hit@3", "MRR", "answered")
	row := func(name string, s Stats) {
		fmt.Fprintf(&b, "%-14s %4d %6.3f %6.3f %6.3f %8.3f\n", name, s.N, s.H1(), s.H3(), s.MRR(), s.AnsweredShare())
	}
	for _, k := range rep.Kinds() {
		row(k, *rep.ByKind[k])
	}
	row("ALL (not none)", rep.All)
	fmt.Fprintf(&b, "%-14s %4d %27s %8.3f\n", "none", rep.None.N, "", rep.None.AnsweredShare())
	return b.String()
}

// Row is the one-line summary of a report that the ablation tables use:
// hit@1, hit@3, MRR overall and in each half, and the queries without a
// skill that were answered.
func (rep *Report) Row() string {
	h := rep.Halves
	return fmt.Sprintf("%6.3f %6.3f %6.3f | %6.3f %6.3f | %6.3f %6.3f | %2d/%d",
		rep.All.H1(), rep.All.H3(), rep.All.MRR(), h[0].H1(), h[0].H3(), h[1].H1(), h[1].H3(), rep.None.Answered, rep.None.N)
}

// RowHeader labels Row's columns.
const RowHeader = " hit@1  hit@3    MRR | even@1 even@3 |  odd@1  odd@3 | none answered"

// NotBelow lists the figures of rep lower than base's: hit@1, hit@3 and
// MRR overall, in each half and for each kind, and more queries without a
// skill answered. Empty means rep is nowhere worse.
func (rep *Report) NotBelow(base *Report) []string {
	var out []string
	const eps = 1e-9
	cmp := func(name string, got, want Stats) {
		if got.H1() < want.H1()-eps {
			out = append(out, fmt.Sprintf("%s hit@1 %.3f < %.3f", name, got.H1(), want.H1()))
		}
		if got.H3() < want.H3()-eps {
			out = append(out, fmt.Sprintf("%s hit@3 %.3f < %.3f", name, got.H3(), want.H3()))
		}
		if got.MRR() < want.MRR()-eps {
			out = append(out, fmt.Sprintf("%s MRR %.3f < %.3f", name, got.MRR(), want.MRR()))
		}
	}
	cmp("all", rep.All, base.All)
	cmp("even half", rep.Halves[0], base.Halves[0])
	cmp("odd half", rep.Halves[1], base.Halves[1])
	for _, k := range base.Kinds() {
		if got, ok := rep.ByKind[k]; ok {
			cmp(k, *got, *base.ByKind[k])
		}
	}
	if rep.None.Answered > base.None.Answered {
		out = append(out, fmt.Sprintf("none answered %d > %d", rep.None.Answered, base.None.Answered))
	}
	return out
}
