package embed_test

import (
	"context"
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/embed"
	"github.com/skillsd/skillsd/services/skills/internal/routingbench"
	"github.com/skillsd/skillsd/services/skills/internal/search"
)

// The semantic fusion measured on the routing benchmark (shared/bench beside
// the repository) with a real embedding endpoint:
//
//	node scripts/embeddings/server.mjs PORT &   # the model make bench-quality-semantic uses
//	go test ./internal/embed -run SemanticQuality -v \
//	  -semantic.url http://127.0.0.1:PORT/v1 -semantic.model universal-sentence-encoder-lite \
//	  [-semantic.cache DIR] [-semantic.ablation]
//
// Without -semantic.url (or without the benchmark) the test skips.
var (
	semURL      = flag.String("semantic.url", "", "an OpenAI-compatible embeddings endpoint to measure semantic fusion with on the routing benchmark")
	semModel    = flag.String("semantic.model", "universal-sentence-encoder-lite", "the model to ask -semantic.url for")
	semCache    = flag.String("semantic.cache", "", "keep the skill vectors in this folder between runs")
	semAblation = flag.Bool("semantic.ablation", false, "also measure other weights and similarity thresholds")
)

// memo remembers the vectors of the texts it embedded: the ablation asks for
// the same queries many times.
type memo struct {
	embed.Provider
	mu   sync.Mutex
	seen map[string][]float32
}

func (m *memo) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	var miss []string
	m.mu.Lock()
	for i, t := range texts {
		if v, ok := m.seen[t]; ok {
			out[i] = v
		} else {
			miss = append(miss, t)
		}
	}
	m.mu.Unlock()
	if len(miss) == 0 {
		return out, nil
	}
	vecs, err := m.Provider.Embed(ctx, miss)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for i, t := range miss {
		m.seen[t] = vecs[i]
	}
	for i, t := range texts {
		out[i] = m.seen[t]
	}
	return out, nil
}

func TestSemanticQuality(t *testing.T) {
	if *semURL == "" {
		t.Skip("pass -semantic.url to measure semantic fusion on the routing benchmark")
	}
	skills := routingbench.Routable(t)
	qs := routingbench.Queries(t)
	p, err := embed.NewOpenAI(embed.OpenAIOptions{BaseURL: *semURL, Model: *semModel})
	if err != nil {
		t.Fatal(err)
	}
	prov := &memo{Provider: p, seen: map[string][]float32{}}
	ix := search.New(skills, search.Options{})
	set := func(opts embed.Options) *embed.Set {
		opts.Provider, opts.CacheDir, opts.QueryTimeout = prov, *semCache, 30*time.Second
		e := embed.New(opts)
		t.Cleanup(e.Close)
		s := e.Sync(skills)
		deadline := time.Now().Add(10 * time.Minute)
		for s.Pending() > 0 {
			if st := s.Status(); st.LastError != nil {
				t.Fatalf("embedding the corpus: %v", st.LastError)
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d skills still without a vector", s.Pending())
			}
			time.Sleep(50 * time.Millisecond)
		}
		return s
	}
	restated := routingbench.HaveRestatements(qs)
	run := func(s *embed.Set, withRestated bool) *routingbench.Report {
		return routingbench.Evaluate(qs, func(q routingbench.Query) routingbench.Ranked {
			sq := search.Query{Text: q.Query, Limit: 10}
			if withRestated {
				sq.Restated = []string{q.Restated}
			}
			var hits []search.Hit
			if s == nil {
				hits = ix.Search(sq)
			} else {
				hits = s.Search(t.Context(), ix, sq)
			}
			var r routingbench.Ranked
			for _, h := range hits {
				r.Names = append(r.Names, h.Skill.Name)
				r.Scores = append(r.Scores, h.Score)
			}
			return r
		})
	}
	modes := []bool{false}
	if restated {
		modes = append(modes, true)
	}
	def := set(embed.Options{})
	var b strings.Builder
	for _, m := range modes {
		name := "query alone"
		if m {
			name = "with restatement"
		}
		lex, sem := run(nil, m), run(def, m)
		t.Logf("%s, lexical\n%s", name, lex.Table())
		t.Logf("%s, semantic (defaults)\n%s", name, sem.Table())
		fmt.Fprintf(&b, "%-18s lexical   %s\n%-18s semantic  %s\n", name, lex.Row(), "", sem.Row())
		if worse := sem.NotBelow(lex); len(worse) > 0 {
			t.Errorf("%s: semantic fusion is below lexical-only: %s", name, strings.Join(worse, "; "))
		}
	}
	t.Logf("\n%-28s %s\n%s", "", routingbench.RowHeader, b.String())
	if !*semAblation {
		return
	}
	var a strings.Builder
	fmt.Fprintf(&a, "%-36s %s\n", "", routingbench.RowHeader)
	weights := map[bool][]float64{false: {0.01, 0.02, 0.05, 0.1, 0.2}, true: {0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.7, 1}}
	for _, m := range modes {
		base := run(nil, m)
		for _, w := range weights[m] {
			rep := run(set(embed.Options{Weight: w, RestatedWeight: w}), m)
			verdict := "not below lexical"
			if worse := rep.NotBelow(base); len(worse) > 0 {
				verdict = "below: " + strings.Join(worse, "; ")
			}
			fmt.Fprintf(&a, "weight %.2f %-24s %s  %s\n", w, map[bool]string{false: "(alone)", true: "(restated)"}[m], rep.Row(), verdict)
		}
	}
	for _, sim := range []float64{0.55, 0.6, 0.65, 0.7, 0.75, 0.8} {
		s := set(embed.Options{StrongSimilarity: sim})
		for _, m := range modes {
			rep := run(s, m)
			fmt.Fprintf(&a, "strong similarity %.2f %-13s %s\n", sim, map[bool]string{false: "(alone)", true: "(restated)"}[m], rep.Row())
		}
	}
	t.Logf("\n%s", a.String())
}
