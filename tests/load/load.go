// Package load is the load driver of `make bench-load`: against a running
// skillsd (gRPC, through the Go client skillsclient) and a skills-rest in
// front of it (REST, through net/http), it runs workers that search and get
// skills for a bounded time while the catalog is edited and rebuilt every
// few seconds, checks every answer, and reports calls, errors and latency
// percentiles per surface, the catalog sizes seen, and the servers' resident
// memory before and after.
//
// It starts no process: scripts/bench-load.sh starts the servers on a copy
// of a corpus and hands their addresses and process ids to the bench-load
// command (tests/load/cmd/bench-load), a thin main over Run.
package load

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillsd/skillsd/clients/go/skillsclient"
)

// Defaults of Options.
const (
	DefaultDuration     = 60 * time.Second
	DefaultConcurrency  = 50
	DefaultRebuildEvery = 2 * time.Second
	// callTimeout bounds one call: a call that takes longer is an error.
	callTimeout = 10 * time.Second
	// statusEvery is how often the catalog's size is checked.
	statusEvery = 250 * time.Millisecond
	// keptErrors is how many error messages the report keeps.
	keptErrors = 5
)

// Options configures a run.
type Options struct {
	// Client calls skillsd over gRPC. Required.
	Client *skillsclient.Client
	// REST is the base URL of skills-rest (http://host:port). Required.
	REST string
	// HTTP makes the REST calls; nil means a client with a pool of
	// Concurrency connections.
	HTTP *http.Client
	// CatalogDir is the folder skillsd serves, which the run edits (a copy,
	// never a source of truth). Required.
	CatalogDir string
	// Duration is how long the load runs; zero means 60 s.
	Duration time.Duration
	// Concurrency is the number of workers, split evenly between gRPC and
	// REST (an odd one goes to gRPC); zero means 50.
	Concurrency int
	// RebuildEvery is the time between two catalog edits, each followed by
	// RefreshSkills (a full rebuild and a swap); zero means 2 s, negative
	// means no rebuilds.
	RebuildEvery time.Duration
	// PIDs are the server processes whose memory is reported, by name
	// ("skillsd", "skills-rest"); Linux only (elsewhere the memory is n/a).
	PIDs map[string]int
	// Progress receives a line every 10 s and at the end of each phase; nil
	// discards them.
	Progress io.Writer
}

// Op is one kind of call.
type Op string

// The calls of the mix.
const (
	Search Op = "search"
	Get    Op = "get"
)

// Surface is where calls go.
type Surface string

// The surfaces under load.
const (
	GRPC Surface = "gRPC"
	REST Surface = "REST"
)

// Stat sums up the calls of one surface and op.
type Stat struct {
	Surface Surface
	Op      Op // "" for every op of the surface
	Calls   int
	Errors  int
	// Empty counts searches that answered no hit.
	Empty    int
	P50, P99 time.Duration
	Max      time.Duration
	// PerSecond is Calls over the run's duration.
	PerSecond float64
}

// Memory is a server's resident memory, from /proc/PID/status.
type Memory struct {
	Name string
	PID  int
	// Before and After are VmRSS when the load starts and ends, Peak is
	// VmHWM at the end; 0 when unknown.
	Before, After, Peak int64
}

// Report is what a run measured.
type Report struct {
	Duration    time.Duration
	Concurrency int
	// Skills is the catalog's size before the load; MinSkills and
	// MaxSkills are the sizes seen during it (by GetCatalogStatus, every
	// 250 ms, and after every rebuild).
	Skills, MinSkills, MaxSkills int
	// Rebuilds counts the edits followed by a successful RefreshSkills;
	// RebuildErrors the edits or refreshes that failed. Each edit changes
	// the catalog, so the generations grow by about Rebuilds (the watcher
	// may swap an edit in before the refresh does; then the refresh finds
	// nothing new).
	Rebuilds, RebuildErrors int
	// StatusErrors counts the GetCatalogStatus calls (of the size checks)
	// that failed.
	StatusErrors int
	// FirstGeneration and LastGeneration are the catalog's generations
	// before and after the load.
	FirstGeneration, LastGeneration int64
	// Stats are per surface and op, then per surface (Op "").
	Stats []Stat
	// Memory is per server, in Options.PIDs' name order.
	Memory []Memory
	// LoadBefore and LoadAfter are /proc/loadavg's first three fields.
	LoadBefore, LoadAfter string
	// ErrorSamples are the first few errors, as text.
	ErrorSamples []string
}

// Errors is the number of failed calls, over every surface, plus the
// rebuilds and size checks that failed.
func (r *Report) Errors() int {
	n := r.RebuildErrors + r.StatusErrors
	for _, s := range r.Stats {
		if s.Op == "" {
			n += s.Errors
		}
	}
	return n
}

// target is a skill the workers ask for, and a query that names it.
type target struct {
	path, query string
}

// Run loads the servers for opts.Duration and reports. It fails when the
// servers cannot be read before the load starts; errors during the load
// are counted, not returned.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Client == nil || opts.REST == "" || opts.CatalogDir == "" {
		return nil, errors.New("load: Client, REST and CatalogDir are required")
	}
	opts.Duration = cmp.Or(opts.Duration, DefaultDuration)
	opts.Concurrency = cmp.Or(opts.Concurrency, DefaultConcurrency)
	opts.RebuildEvery = cmp.Or(opts.RebuildEvery, DefaultRebuildEvery)
	if opts.Concurrency < 2 {
		return nil, fmt.Errorf("load: concurrency %d: at least one worker per surface is needed", opts.Concurrency)
	}
	if opts.HTTP == nil {
		opts.HTTP = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: opts.Concurrency, MaxConnsPerHost: opts.Concurrency}}
	}
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}

	targets, err := targetsOf(ctx, opts.Client)
	if err != nil {
		return nil, err
	}
	edits, err := skillFiles(opts.CatalogDir)
	if err != nil {
		return nil, err
	}
	st, err := opts.Client.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("load: reading the catalog's status: %w", err)
	}
	rep := &Report{Duration: opts.Duration, Concurrency: opts.Concurrency, Skills: int(st.GetSkillCount()),
		MinSkills: int(st.GetSkillCount()), MaxSkills: int(st.GetSkillCount()), FirstGeneration: st.GetGeneration()}
	// One warm-up round per surface and op, so that first-use costs (the
	// search index, connections) are not in the figures; it must succeed.
	l := &loader{opts: opts, targets: targets}
	for _, s := range []Surface{GRPC, REST} {
		for _, op := range []Op{Search, Get} {
			if _, err := l.call(ctx, s, op, targets[0]); err != nil {
				return nil, fmt.Errorf("load: warm-up %s %s: %w", s, op, err)
			}
		}
	}
	names := slices.Sorted(maps.Keys(opts.PIDs))
	for _, name := range names {
		rep.Memory = append(rep.Memory, Memory{Name: name, PID: opts.PIDs[name], Before: RSS(opts.PIDs[name], "VmRSS")})
	}
	rep.LoadBefore = loadAvg()
	fmt.Fprintf(progress, "bench-load: %d skills, %d workers, %v, a rebuild every %v\n", rep.Skills, opts.Concurrency, opts.Duration, opts.RebuildEvery)

	runCtx, cancel := context.WithTimeout(ctx, opts.Duration)
	defer cancel()
	var wg sync.WaitGroup
	results := make([][]sample, opts.Concurrency)
	start := time.Now()
	for w := range opts.Concurrency {
		surface := GRPC
		if w%2 == 1 {
			surface = REST
		}
		wg.Go(func() { results[w] = l.work(runCtx, surface, uint64(w)) })
	}
	var sizes sizeRange
	sizes.init(rep.Skills)
	wg.Go(func() { l.watchSize(runCtx, &sizes) })
	if opts.RebuildEvery > 0 {
		wg.Go(func() { l.rebuild(runCtx, edits, &sizes) })
	}
	wg.Go(func() {
		t := time.NewTicker(10 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-runCtx.Done():
				return
			case <-t.C:
				fmt.Fprintf(progress, "bench-load: %v: %d calls, %d errors, %d rebuilds\n",
					time.Since(start).Round(time.Second), l.calls.Load(), l.errors.Load(), l.rebuilds.Load())
			}
		}
	})
	wg.Wait()
	elapsed := time.Since(start)

	rep.LoadAfter = loadAvg()
	for i := range rep.Memory {
		rep.Memory[i].After = RSS(rep.Memory[i].PID, "VmRSS")
		rep.Memory[i].Peak = RSS(rep.Memory[i].PID, "VmHWM")
	}
	rep.Rebuilds, rep.RebuildErrors = int(l.rebuilds.Load()), int(l.rebuildErrors.Load())
	rep.StatusErrors = int(l.statusErrors.Load())
	rep.MinSkills, rep.MaxSkills = sizes.get()
	if st, err := opts.Client.Status(ctx); err == nil {
		rep.LastGeneration = st.GetGeneration()
	}
	rep.Stats = summarise(results, elapsed)
	rep.ErrorSamples = l.samples()
	return rep, nil
}

// loader holds what the workers share.
type loader struct {
	opts    Options
	targets []target

	calls, errors           atomic.Int64
	rebuilds, rebuildErrors atomic.Int64
	statusErrors            atomic.Int64

	mu      sync.Mutex
	errText []string
}

// sample is one call's outcome.
type sample struct {
	surface Surface
	op      Op
	took    time.Duration
	failed  bool
	empty   bool
}

// work calls surface until ctx ends: searches and gets, in a random order
// seeded by the worker's number.
func (l *loader) work(ctx context.Context, surface Surface, seed uint64) []sample {
	rnd := rand.New(rand.NewPCG(seed, 0x5eed))
	var out []sample
	over := func() bool { return l.over(ctx) }
	for !over() {
		op := Search
		if rnd.IntN(2) == 1 {
			op = Get
		}
		tg := l.targets[rnd.IntN(len(l.targets))]
		begin := time.Now()
		hits, err := l.call(ctx, surface, op, tg)
		took := time.Since(begin)
		if err != nil && over() {
			break // the run ended during the call: not the server's failure
		}
		l.calls.Add(1)
		if err != nil {
			l.errors.Add(1)
			l.keep(fmt.Sprintf("%s %s %q: %v", surface, op, tg.path, err))
		}
		out = append(out, sample{surface: surface, op: op, took: took, failed: err != nil, empty: op == Search && err == nil && hits == 0})
	}
	return out
}

// call makes one call and checks its answer: a get must answer the skill
// asked for. It returns the number of hits of a search.
func (l *loader) call(ctx context.Context, surface Surface, op Op, tg target) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	switch {
	case surface == GRPC && op == Search:
		hits, err := l.opts.Client.Search(ctx, tg.query, skillsclient.SearchOptions{})
		return len(hits), err
	case surface == GRPC:
		resp, err := l.opts.Client.Skill(ctx, tg.path)
		if err != nil {
			return 0, err
		}
		if got := resp.GetSkill().GetSkillPath(); got != tg.path {
			return 0, fmt.Errorf("GetSkill answered skill %q", got)
		}
		return 0, nil
	case op == Search:
		body, _ := json.Marshal(map[string]any{"query": tg.query})
		var out struct {
			Results []json.RawMessage `json:"results"`
		}
		if err := l.rest(ctx, http.MethodPost, "/v1/skills:search", body, &out); err != nil {
			return 0, err
		}
		return len(out.Results), nil
	default:
		var out struct {
			Skill struct {
				SkillPath string `json:"skill_path"`
			} `json:"skill"`
		}
		if err := l.rest(ctx, http.MethodGet, "/v1/skills/"+tg.path, nil, &out); err != nil {
			return 0, err
		}
		if out.Skill.SkillPath != tg.path {
			return 0, fmt.Errorf("GET answered skill %q", out.Skill.SkillPath)
		}
		return 0, nil
	}
}

// rest makes one REST call and decodes a 200 answer into out.
func (l *loader) rest(ctx context.Context, method, path string, body []byte, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, l.opts.REST+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := l.opts.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %s: %.200s", resp.Status, data)
	}
	return json.Unmarshal(data, out)
}

// over reports whether the run is over. A call whose deadline is the run's
// own can fail (DeadlineExceeded) a moment before ctx.Err says so: the
// clock decides.
func (l *loader) over(ctx context.Context) bool {
	deadline, ok := ctx.Deadline()
	return ctx.Err() != nil || (ok && !time.Now().Before(deadline))
}

// keep notes an error message, the first few only.
func (l *loader) keep(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.errText) < keptErrors {
		l.errText = append(l.errText, msg)
	}
}

func (l *loader) samples() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.errText)
}

// watchSize notes the catalog's size every statusEvery until ctx ends.
func (l *loader) watchSize(ctx context.Context, sizes *sizeRange) {
	t := time.NewTicker(statusEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		st, err := l.opts.Client.Status(cctx)
		cancel()
		if err != nil {
			if !l.over(ctx) {
				l.statusErrors.Add(1)
				l.keep(fmt.Sprintf("GetCatalogStatus: %v", err))
			}
			continue
		}
		sizes.note(int(st.GetSkillCount()))
	}
}

// rebuild edits a skill file every RebuildEvery (a write to a temporary
// file renamed over it, as editors save) and asks for a refresh: a full
// rebuild that must swap a new catalog in.
func (l *loader) rebuild(ctx context.Context, files []string, sizes *sizeRange) {
	t := time.NewTicker(l.opts.RebuildEvery)
	defer t.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		file := files[i%len(files)]
		if err := edit(file, i); err != nil {
			l.rebuildErrors.Add(1)
			l.keep(fmt.Sprintf("editing %s: %v", file, err))
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, callTimeout)
		_, err := l.opts.Client.Refresh(cctx)
		cancel()
		switch {
		case err != nil && l.over(ctx):
			return
		case err != nil:
			l.rebuildErrors.Add(1)
			l.keep(fmt.Sprintf("RefreshSkills: %v", err))
		default:
			l.rebuilds.Add(1)
		}
		if st, err := l.opts.Client.Status(ctx); err == nil {
			sizes.note(int(st.GetSkillCount()))
		}
	}
}

// edit rewrites a SKILL.md with a marker line at its end that changes at
// every edit (the previous marker removed), through a temporary file
// renamed over it.
func edit(file string, n int) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	const marker = "\n<!-- bench-load edit "
	if i := bytes.LastIndex(data, []byte(marker)); i >= 0 {
		data = data[:i]
	}
	data = fmt.Appendf(data, "%s%d -->\n", marker, n)
	tmp := file + ".bench-load.tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, file)
}

// sizeRange is the smallest and largest catalog seen.
type sizeRange struct {
	mu       sync.Mutex
	min, max int
}

func (s *sizeRange) init(n int) { s.min, s.max = n, n }

func (s *sizeRange) note(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.min, s.max = min(s.min, n), max(s.max, n)
}

func (s *sizeRange) get() (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.min, s.max
}

// targetsOf lists the routable skills, each with a query made of its name's
// words.
func targetsOf(ctx context.Context, c *skillsclient.Client) ([]target, error) {
	var out []target
	for sk, err := range c.Skills(ctx, skillsclient.ListOptions{RoutableOnly: true}) {
		if err != nil {
			return nil, fmt.Errorf("load: listing the skills: %w", err)
		}
		q := strings.Join(strings.FieldsFunc(sk.GetName(), func(r rune) bool { return r == '-' || r == '_' || r == ' ' }), " ")
		out = append(out, target{path: sk.GetSkillPath(), query: cmp.Or(q, sk.GetSkillPath())})
	}
	if len(out) == 0 {
		return nil, errors.New("load: the catalog has no routable skill to ask for")
	}
	return out, nil
}

// skillFiles lists the SKILL.md files under dir, sorted.
func skillFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && d.Name() == "SKILL.md" {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load: listing the skill files of %s: %w", dir, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("load: no SKILL.md under %s to edit", dir)
	}
	slices.Sort(out)
	return out, nil
}

// summarise computes the percentiles per surface and op, then per surface.
func summarise(results [][]sample, elapsed time.Duration) []Stat {
	type key struct {
		s  Surface
		op Op
	}
	groups := map[key][]sample{}
	for _, rs := range results {
		for _, r := range rs {
			groups[key{r.surface, r.op}] = append(groups[key{r.surface, r.op}], r)
			groups[key{r.surface, ""}] = append(groups[key{r.surface, ""}], r)
		}
	}
	var out []Stat
	for _, s := range []Surface{GRPC, REST} {
		for _, op := range []Op{Search, Get, ""} {
			rs := groups[key{s, op}]
			st := Stat{Surface: s, Op: op, Calls: len(rs)}
			if len(rs) == 0 {
				out = append(out, st)
				continue
			}
			took := make([]time.Duration, len(rs))
			for i, r := range rs {
				took[i] = r.took
				if r.failed {
					st.Errors++
				}
				if r.empty {
					st.Empty++
				}
			}
			slices.Sort(took)
			st.P50, st.P99, st.Max = percentile(took, 50), percentile(took, 99), took[len(took)-1]
			st.PerSecond = float64(len(rs)) / elapsed.Seconds()
			out = append(out, st)
		}
	}
	return out
}

// percentile is the nearest-rank percentile p of sorted.
func percentile(sorted []time.Duration, p int) time.Duration {
	rank := (len(sorted)*p + 99) / 100 // ceil(n·p/100)
	return sorted[max(rank, 1)-1]
}
