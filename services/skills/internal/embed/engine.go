package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"maps"
	"math"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/defaults"
)

// Engine defaults.
const (
	DefaultQueryTimeout     = 300 * time.Millisecond
	DefaultRetryAfter       = 30 * time.Second
	DefaultStrongSimilarity = 0.75
	DefaultBodyBytes        = 2000
	// DefaultRestatedWeight is Options.RestatedWeight's default, chosen
	// on the routing benchmark with the local sentence encoder of make
	// bench-quality-semantic (docs/routing.md).
	DefaultRestatedWeight = 0.3
)

// Options configures an Engine.
type Options struct {
	// Provider embeds; required.
	Provider Provider
	// CacheDir holds the vectors on disk (SKILLSD_HOME/embeddings); empty
	// keeps them in memory only.
	CacheDir string
	// QueryTimeout bounds the embedding of a query; on timeout the search
	// answers lexically. 0 means DefaultQueryTimeout.
	QueryTimeout time.Duration
	// RetryAfter is how long after a failure the engine waits before it
	// asks the endpoint again (skill vectors and queries). 0 means
	// DefaultRetryAfter.
	RetryAfter time.Duration
	// StrongSimilarity is the cosine similarity from which a skill is
	// answered although the lexical engine abstained. 0 means
	// DefaultStrongSimilarity.
	StrongSimilarity float64
	// BodyBytes is how much of the body (from its start) goes into a
	// skill's text, after name and description. 0 means DefaultBodyBytes.
	BodyBytes int
	// Weight is how much similarity reorders the lexical hits of a query
	// given alone: each hit's score is multiplied by exp(Weight × z), z
	// being the skill's similarity to the query in standard deviations
	// above the mean over the catalog. 0 (the default) keeps the lexical
	// order: with the one model measurable here every weight above 0
	// lowered a figure of the benchmark's development queries.
	Weight float64
	// RestatedWeight is Weight for a query with restatements, whose vector
	// is then the mean of the phrasings' vectors. 0 means
	// DefaultRestatedWeight; a negative value keeps the lexical order.
	RestatedWeight float64
	// BatchSize is how many skills are embedded between two saves of the
	// cache; 0 means DefaultBatchSize.
	BatchSize int
	// Logger receives warnings; nil discards them.
	Logger *slog.Logger
}

// Engine keeps the vectors of the skills being served and fuses rankings.
// It is safe for concurrent use; Close stops its background work.
type Engine struct {
	opts Options
	log  *slog.Logger

	// vecs maps content hashes to unit vectors; the map is never modified
	// once published.
	vecs    atomic.Pointer[map[string][]float32]
	version atomic.Uint64

	mu        sync.Mutex
	want      *Set // the latest Sync
	running   bool
	lastFail  time.Time // of a skill-vector pass
	lastErr   error     // of that pass; nil once a pass succeeds
	queryFail atomic.Int64
	loaded    bool

	// closed is set by Close: no pass starts after it. stopPass cancels the
	// context of the latest pass (each pass gets its own, from kick).
	closed   bool
	stopPass context.CancelFunc
	wg       sync.WaitGroup
}

// New returns an engine; it reads the disk cache at the first Sync.
func New(opts Options) *Engine {
	defaults.Set(&opts.QueryTimeout, DefaultQueryTimeout)
	defaults.Set(&opts.RetryAfter, DefaultRetryAfter)
	defaults.Set(&opts.StrongSimilarity, DefaultStrongSimilarity)
	defaults.Set(&opts.BodyBytes, DefaultBodyBytes)
	switch {
	case opts.RestatedWeight == 0:
		opts.RestatedWeight = DefaultRestatedWeight
	case opts.RestatedWeight < 0:
		opts.RestatedWeight = 0
	}
	opts.Weight = max(opts.Weight, 0)
	defaults.Set(&opts.BatchSize, DefaultBatchSize)
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &Engine{opts: opts, log: log.With("model", opts.Provider.Model())}
	empty := map[string][]float32{}
	e.vecs.Store(&empty)
	return e
}

// Close stops the background embedding and waits for it.
func (e *Engine) Close() {
	e.mu.Lock() // kick starts passes under mu: none starts after this
	e.closed = true
	if e.stopPass != nil {
		e.stopPass()
	}
	e.mu.Unlock()
	e.wg.Wait()
}

// Set is the skills of one search index with their vectors as they become
// known. Build one per index with Sync.
type Set struct {
	e      *Engine
	skills []*catalog.Skill
	pos    map[*catalog.Skill]int // index in skills
	hashes []string
	texts  []string
	// resolved caches the vectors looked up for the engine's version.
	resolved atomic.Pointer[resolved]
}

type resolved struct {
	version uint64
	vecs    [][]float32 // by skill; nil when not embedded yet
	missing int
}

// Sync returns the Set of skills and starts embedding, in the background,
// those whose text is not in the cache. It never blocks on the network.
func (e *Engine) Sync(skills []*catalog.Skill) *Set {
	s := &Set{e: e, skills: skills, pos: make(map[*catalog.Skill]int, len(skills)),
		hashes: make([]string, len(skills)), texts: make([]string, len(skills))}
	for i, sk := range skills {
		s.pos[sk] = i
		s.texts[i] = e.text(sk)
		sum := sha256.Sum256([]byte(s.texts[i]))
		s.hashes[i] = hex.EncodeToString(sum[:])
	}
	e.mu.Lock()
	e.want = s
	e.mu.Unlock()
	e.kick(true)
	return s
}

// text is what is embedded for a skill: name, description and the start of
// the body.
func (e *Engine) text(sk *catalog.Skill) string {
	body := ""
	if sk.Doc != nil {
		body = sk.Doc.Body
	}
	if len(body) > e.opts.BodyBytes {
		body = body[:e.opts.BodyBytes]
		for !utf8.ValidString(body) {
			body = body[:len(body)-1]
		}
	}
	return sk.Name + "\n" + sk.Description + "\n" + body
}

// kick starts a background pass when vectors are missing and none runs;
// after a failure only once RetryAfter has passed (unless force). The pass
// runs under a context of its own, not a caller's: it outlives the request
// that kicked it, and only Close cancels it.
func (e *Engine) kick(force bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.running || e.want == nil || e.closed {
		return
	}
	if !force && time.Since(e.lastFail) < e.opts.RetryAfter {
		return
	}
	if e.loaded && e.want.vectors().missing == 0 {
		return
	}
	e.running = true
	ctx, cancel := context.WithCancel(context.Background())
	e.stopPass = cancel
	e.wg.Go(func() {
		defer cancel()
		e.fill(ctx)
	})
}

// fill embeds what the latest Set misses, saving the cache after each
// batch, until nothing is missing, a request fails or ctx is done.
func (e *Engine) fill(ctx context.Context) {
	e.loadOnce()
	for {
		e.mu.Lock()
		want := e.want
		e.mu.Unlock()
		have := *e.vecs.Load()
		var texts, hashes []string
		seen := map[string]bool{}
		for i, h := range want.hashes {
			if _, ok := have[h]; !ok && !seen[h] {
				seen[h] = true
				texts, hashes = append(texts, want.texts[i]), append(hashes, h)
			}
		}
		if len(texts) == 0 {
			e.finish(nil)
			return
		}
		start, saved := time.Now(), time.Now()
		for lo := 0; lo < len(texts); lo += e.opts.BatchSize {
			hi := min(lo+e.opts.BatchSize, len(texts))
			vecs, err := e.opts.Provider.Embed(ctx, texts[lo:hi])
			if err != nil {
				if ctx.Err() == nil {
					e.log.Warn("embedding skills failed; search stays lexical for them, retrying later",
						"err", err, "missing", len(texts)-lo, "retry_after", e.opts.RetryAfter)
				}
				if lo > 0 {
					e.save(want) // keep what was embedded
				}
				e.finish(err)
				return
			}
			e.publish(hashes[lo:hi], vecs)
			if time.Since(saved) > saveEvery && hi < len(texts) {
				e.save(want)
				saved = time.Now()
			}
		}
		e.save(want)
		e.log.Info("skills embedded", "count", len(texts), "duration", time.Since(start))
	}
}

// loadOnce reads the disk cache the first time (only fill calls it, one
// at a time).
func (e *Engine) loadOnce() {
	e.mu.Lock()
	loaded := e.loaded
	e.mu.Unlock()
	if !loaded && e.opts.CacheDir != "" {
		m, err := loadCache(e.opts.CacheDir, e.opts.Provider.Model())
		if err != nil {
			e.log.Warn("embedding cache unreadable; embedding again", "err", err)
		}
		e.vecs.Store(&m)
		e.version.Add(1)
	}
	e.mu.Lock()
	e.loaded = true
	e.mu.Unlock()
}

// finish ends a pass; err is why it failed, nil when it succeeded.
func (e *Engine) finish(err error) {
	e.mu.Lock()
	e.running = false
	e.lastErr = err
	if err != nil {
		e.lastFail = time.Now()
	}
	e.mu.Unlock()
}

// Status is the progress of a Set's embedding.
type Status struct {
	// Model is the provider's model name.
	Model string
	// Embedded and Pending count the Set's skills with and without a
	// vector.
	Embedded, Pending int
	// LastError is why the last pass over the skills failed, nil when it
	// succeeded or none failed yet; LastErrorAt is when.
	LastError   error
	LastErrorAt time.Time
}

// Status reports s's progress.
func (s *Set) Status() Status {
	e := s.e
	r := s.vectors()
	st := Status{Model: e.opts.Provider.Model(), Embedded: len(s.skills) - r.missing, Pending: r.missing}
	e.mu.Lock()
	if e.lastErr != nil {
		st.LastError, st.LastErrorAt = e.lastErr, e.lastFail
	}
	e.mu.Unlock()
	return st
}

// Status reports the progress of the Set of the latest Sync (counts of
// zero before any).
func (e *Engine) Status() Status {
	e.mu.Lock()
	want := e.want
	e.mu.Unlock()
	if want == nil {
		return Status{Model: e.opts.Provider.Model()}
	}
	return want.Status()
}

// publish adds vectors.
func (e *Engine) publish(hashes []string, vecs [][]float32) {
	next := maps.Clone(*e.vecs.Load())
	for i, h := range hashes {
		next[h] = unit(vecs[i])
	}
	e.vecs.Store(&next)
	e.version.Add(1)
}

// saveEvery is how often a long pass saves its progress (a save rewrites
// the whole file: 18 MB for 3,000 skills at 1,536 dimensions).
const saveEvery = 10 * time.Second

// save writes the cache, keeping only the vectors of want (the content of
// older catalogs is dropped).
func (e *Engine) save(want *Set) {
	if e.opts.CacheDir == "" {
		return
	}
	have := *e.vecs.Load()
	keep := make(map[string][]float32, len(want.hashes))
	for _, h := range want.hashes {
		if v, ok := have[h]; ok {
			keep[h] = v
		}
	}
	if err := saveCache(e.opts.CacheDir, e.opts.Provider.Model(), keep); err != nil {
		e.log.Warn("saving the embedding cache failed", "err", err)
	}
}

// vectors resolves the Set's vectors against the engine's current ones.
func (s *Set) vectors() *resolved {
	v := s.e.version.Load()
	if r := s.resolved.Load(); r != nil && r.version == v {
		return r
	}
	have := *s.e.vecs.Load()
	r := &resolved{version: v, vecs: make([][]float32, len(s.skills))}
	for i, h := range s.hashes {
		if vec, ok := have[h]; ok {
			r.vecs[i] = vec
		} else {
			r.missing++
		}
	}
	s.resolved.Store(r)
	return r
}

// Pending is the number of the Set's skills without a vector yet.
func (s *Set) Pending() int { return s.vectors().missing }

// query embeds a query's phrasings (in one request, within QueryTimeout)
// and returns the unit vector of their mean; false when that failed or a
// recent failure says the endpoint is down.
func (e *Engine) query(ctx context.Context, texts []string) ([]float32, bool) {
	if last := e.queryFail.Load(); last != 0 && time.Since(time.Unix(0, last)) < e.opts.RetryAfter {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(ctx, e.opts.QueryTimeout)
	defer cancel()
	vecs, err := e.opts.Provider.Embed(ctx, texts)
	if err == nil && len(vecs) != len(texts) {
		err = fmt.Errorf("the endpoint returned %d vectors for %d texts", len(vecs), len(texts))
	}
	if err == nil {
		for _, v := range vecs[1:] {
			if len(v) != len(vecs[0]) {
				err = fmt.Errorf("the endpoint returned vectors of %d and %d dimensions", len(vecs[0]), len(v))
				break
			}
		}
	}
	if err != nil {
		e.queryFail.Store(time.Now().UnixNano())
		e.log.WarnContext(ctx, "embedding the query failed; answering lexically", "err", err, "retry_after", e.opts.RetryAfter)
		return nil, false
	}
	e.queryFail.Store(0)
	if len(vecs) == 1 {
		return unit(vecs[0]), true
	}
	mean := make([]float32, len(vecs[0]))
	for _, v := range vecs {
		for i, x := range unit(v) {
			mean[i] += x
		}
	}
	return unit(mean), true
}

// unit returns v scaled to length 1 (a zero vector stays zero).
func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	out := make([]float32, len(v))
	if n == 0 {
		return out
	}
	inv := 1 / math.Sqrt(n)
	for i, x := range v {
		out[i] = float32(float64(x) * inv)
	}
	return out
}

func dot(a, b []float32) float64 {
	if len(a) != len(b) {
		return math.NaN()
	}
	// Four sums: the loop runs about twice as fast as with one.
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return float64(s0 + s1 + s2 + s3)
}
