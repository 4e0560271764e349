package search

import (
	"cmp"
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
)

// Fusion ranks with a second kind of evidence fused into the lexical
// ranking (package embed's Set: an embedding model's similarity).
type Fusion interface {
	Search(ctx context.Context, ix *Index, q Query) []Hit
	Match(ctx context.Context, ix *Index, text string, restated []string, th Thresholds) Decision
}

// RouterOptions configures a Router.
type RouterOptions struct {
	// Store holds the catalog snapshot being served. Required.
	Store *catalog.Store
	// Filter is the enabled subset: the router routes the skills it serves
	// (Filter.Serves) that are routable. The zero Filter routes every
	// routable skill the security scan does not hold back.
	Filter catalog.Filter
	// Strategy is the configured match strategy (StrategyAuto when empty).
	Strategy string
	// Thresholds are the match decision's; the zero value means
	// DefaultThresholds.
	Thresholds Thresholds
	// StopWords are added to the built-in stop words (Options.StopWords).
	StopWords []string
	// CutRatio is seed 004's dynamic cut (Options.CutRatio).
	CutRatio float64
	// Fuse, when set, is called with the routed skills of each new
	// snapshot; what it returns ranks searches and ranked matches of that
	// snapshot. Nil ranks lexically only.
	Fuse func(skills []*catalog.Skill) Fusion
	// Cache, when set, keeps the skills' text analysis between builds
	// (Options.Cache): each build reuses the analyses of unchanged skills,
	// then saves the cache in the background (AnalysisCache.Close waits).
	Cache *AnalysisCache
	// Logger receives a debug line per index built; nil discards it.
	Logger *slog.Logger
}

// Router keeps the search index and matcher of the catalog snapshot being
// served, built once per snapshot. It is safe for concurrent use:
// readers of a snapshot already built take no lock, and callers asking for
// a new snapshot at the same time wait for one build.
type Router struct {
	opts RouterOptions
	log  *slog.Logger
	cur  atomic.Pointer[Routes]
	mu   sync.Mutex
	// typos makes the current index's typo index a moment after it was
	// built (typoWarmDelay); stopped when another replaces it. Guarded by
	// mu.
	typos *time.Timer
}

// NewRouter returns a Router; nothing is built until Routes is called.
func NewRouter(opts RouterOptions) *Router {
	if opts.Thresholds == (Thresholds{}) {
		opts.Thresholds = DefaultThresholds()
	}
	return &Router{opts: opts, log: cmp.Or(opts.Logger, slog.New(slog.DiscardHandler))}
}

// Routes is the index and matcher of one snapshot, over the skills the
// router routes.
type Routes struct {
	Snapshot *catalog.Snapshot
	Index    *Index
	Matcher  *Matcher
	// Fusion is RouterOptions.Fuse's answer for this snapshot; nil without
	// Fuse.
	Fusion     Fusion
	thresholds Thresholds
}

// Routes returns the routes of the snapshot being served, building them
// when the catalog changed since the last call.
func (r *Router) Routes(ctx context.Context) *Routes {
	snap := r.opts.Store.Current()
	if rt := r.cur.Load(); rt != nil && rt.Snapshot == snap {
		return rt
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// Build for the newest snapshot, which may have been swapped in while
	// this call waited.
	snap = r.opts.Store.Current()
	if rt := r.cur.Load(); rt != nil && rt.Snapshot == snap {
		return rt
	}
	start := time.Now()
	skills := r.Skills(snap)
	idx := New(skills, Options{StopWords: r.opts.StopWords, CutRatio: r.opts.CutRatio, Cache: r.opts.Cache})
	rt := &Routes{
		Snapshot: snap,
		Index:    idx,
		Matcher: NewMatcher(skills, MatcherOptions{
			Strategy:   r.opts.Strategy,
			Thresholds: r.opts.Thresholds,
			Tokenizer:  NewKeywordTokenizer(r.opts.StopWords),
			Index:      idx,
		}),
		thresholds: r.opts.Thresholds,
	}
	if r.opts.Fuse != nil {
		rt.Fusion = r.opts.Fuse(skills)
	}
	r.cur.Store(rt)
	r.log.DebugContext(ctx, "search index built", "generation", snap.Generation(), "skills", len(skills),
		"strategy", rt.Matcher.Strategy(), "stored", idx.stored, "duration", time.Since(start))
	r.opts.Cache.saveLater(func(err error) {
		r.log.Warn("could not keep the search analyses for the next start", "error", err)
	})
	// The typo index is made on the first query that needs it, or a moment
	// after the index when none has by then: not beside the first answers
	// (on two busy cores it would compete with them), and before most
	// misspelt queries come.
	if r.typos != nil {
		r.typos.Stop()
	}
	r.typos = idx.typosLater(typoWarmDelay)
	return rt
}

// Skills are the skills of snap the router routes: served (the enabled
// subset, not held back by the security scan) and routable.
func (r *Router) Skills(snap *catalog.Snapshot) []*catalog.Skill {
	var out []*catalog.Skill
	for _, sk := range snap.Skills() {
		if sk.Routable && r.opts.Filter.Serves(sk) {
			out = append(out, sk)
		}
	}
	return out
}

// Strategy is the match strategy the router uses for snap ("auto"
// resolved), without building its index.
func (r *Router) Strategy(snap *catalog.Snapshot) string {
	return ResolveStrategy(r.opts.Strategy, r.Skills(snap))
}

// Search ranks the routed skills for q, with the fusion when there is one.
func (rt *Routes) Search(ctx context.Context, q Query) []Hit {
	if rt.Fusion != nil {
		return rt.Fusion.Search(ctx, rt.Index, q)
	}
	return rt.Index.Search(q)
}

// Match decides which routed skill fits text: with the fusion when there
// is one and the strategy is ranked, with the matcher otherwise.
func (rt *Routes) Match(ctx context.Context, text string, restated []string) Decision {
	if rt.Fusion != nil && rt.Matcher.Strategy() == StrategyRanked {
		return rt.Fusion.Match(ctx, rt.Index, text, restated, rt.thresholds)
	}
	return rt.Matcher.Match(text, restated...)
}
