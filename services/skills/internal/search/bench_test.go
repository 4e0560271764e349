package search

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/routingbench"
)

// syntheticSkills replicates the benchmark corpus under new names until it
// has n skills (the performance targets are for 3,000).
func syntheticSkills(tb testing.TB, n int) []*catalog.Skill {
	base := corpusSkills(tb)
	out := make([]*catalog.Skill, 0, n)
	for i := 0; len(out) < n; i++ {
		for _, sk := range base {
			if len(out) == n {
				break
			}
			if i == 0 {
				out = append(out, sk)
				continue
			}
			c := *sk
			c.Name = fmt.Sprintf("%s-copy%d", sk.Name, i)
			c.Path = fmt.Sprintf("copy%d/%s", i, sk.Path)
			out = append(out, &c)
		}
	}
	return out
}

func benchCatalogs(tb testing.TB) []struct {
	name   string
	skills []*catalog.Skill
} {
	return []struct {
		name   string
		skills []*catalog.Skill
	}{
		{"corpus", corpusSkills(tb)},
		{"3000", syntheticSkills(tb, 3000)},
	}
}

func BenchmarkIndexBuild(b *testing.B) {
	for _, c := range benchCatalogs(b) {
		b.Run(c.name, func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				New(c.skills, Options{})
			}
		})
	}
}

// reportCPU reports the CPU time per operation (every thread, GC included)
// from its call to the call of the function it returns: on a busy machine,
// steadier than ns/op.
func reportCPU(b *testing.B) func() {
	start := cpuTime(b)
	return func() {
		if cpu := cpuTime(b) - start; cpu > 0 && b.N > 0 {
			b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/op")
		}
	}
}

// BenchmarkIndexBuildCached is BenchmarkIndexBuild with an analysis cache:
// "fill" starts each build with an empty cache (a first start: the cost of
// keeping the analyses), "warm" with one that has every skill's, "file"
// also reads it from its file first (a second start), "stored" reads the
// index file too and the index from it instead of replaying the analyses
// (a second start with the index file).
func BenchmarkIndexBuildCached(b *testing.B) {
	for _, c := range benchCatalogs(b) {
		dir := b.TempDir()
		path := filepath.Join(dir, CacheFileName())
		ixPath := filepath.Join(dir, IndexFileName())
		warm := OpenAnalysisCache(path).WithIndexFile(ixPath)
		New(c.skills, Options{Cache: warm})
		if err := warm.Save(); err != nil {
			b.Fatal(err)
		}
		for _, p := range []string{path, ixPath} {
			if st, err := os.Stat(p); err == nil {
				b.Logf("%s: %s %d bytes", c.name, filepath.Base(p), st.Size())
			}
		}
		b.Run(c.name+"/fill", func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				New(c.skills, Options{Cache: OpenAnalysisCache("")})
			}
		})
		b.Run(c.name+"/warm", func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				New(c.skills, Options{Cache: warm})
			}
		})
		b.Run(c.name+"/file", func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				cache := OpenAnalysisCache(path)
				if cache.Len() == 0 {
					b.Fatal("the cache file was not read")
				}
				New(c.skills, Options{Cache: cache})
			}
		})
		b.Run(c.name+"/stored", func(b *testing.B) {
			defer reportCPU(b)()
			for b.Loop() {
				cache := OpenAnalysisCache(path).WithIndexFile(ixPath)
				if !New(c.skills, Options{Cache: cache}).stored {
					b.Fatal("the index file was not read")
				}
			}
		})
	}
}

// BenchmarkSearch runs the development queries in turn (limit 10, ranked),
// and reports the median and 99th percentile latency.
func BenchmarkSearch(b *testing.B) {
	benchLatency(b, devQueries(b), func(q routingbench.Query) Query { return Query{Text: q.Query, Limit: 10} })
}

// BenchmarkSearchRestated is BenchmarkSearch with each query's restatement
// (restatements.dev.jsonl): two phrasings ranked and fused.
func BenchmarkSearchRestated(b *testing.B) {
	qs := devQueries(b)
	if !routingbench.HaveRestatements(qs) {
		b.Skip("no restatements.dev.jsonl")
	}
	benchLatency(b, qs, func(q routingbench.Query) Query {
		return Query{Text: q.Query, Restated: []string{q.Restated}, Limit: 10}
	})
}

// benchLatency searches query(q) for the queries in turn on each catalog,
// and reports the median and 99th percentile latency.
func benchLatency(b *testing.B, qs []routingbench.Query, query func(routingbench.Query) Query) {
	for _, c := range benchCatalogs(b) {
		b.Run(c.name, func(b *testing.B) {
			ix := New(c.skills, Options{})
			var lat []time.Duration
			i := 0
			for b.Loop() {
				q := query(qs[i%len(qs)])
				i++
				start := time.Now()
				ix.Search(q)
				lat = append(lat, time.Since(start))
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds())/1e3, "p99-µs")
		})
	}
}

func BenchmarkSearchAllTerms(b *testing.B) {
	ix := New(syntheticSkills(b, 3000), Options{})
	for b.Loop() {
		ix.Search(Query{Text: "pdf form", AllTerms: true})
	}
}

// BenchmarkCacheHeld reports the heap an analysis cache holds for the
// 3,000-skill catalog beyond its index: the live heap with the cache less
// the live heap without it (the index and catalog are held throughout),
// after a first build ("fill") and after a start from its file ("file").
// Read from the file, the analyses are parts of the file's bytes, which the
// index's strings hold too: dropping the cache frees little of them.
func BenchmarkCacheHeld(b *testing.B) {
	skills := syntheticSkills(b, 3000)
	path := filepath.Join(b.TempDir(), CacheFileName())
	live := func() float64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc) / (1 << 20)
	}
	for _, mode := range []string{"fill", "file"} {
		b.Run(mode, func(b *testing.B) {
			var held float64
			for b.Loop() {
				if mode == "fill" {
					os.Remove(path)
				}
				c := OpenAnalysisCache(path)
				ix := New(skills, Options{Cache: c})
				if mode == "file" && c.Len() == 0 {
					b.Fatal("the cache file was not read")
				}
				with := live()
				if err := c.Save(); err != nil {
					b.Fatal(err)
				}
				runtime.KeepAlive(c)
				c = nil
				held = with - live()
				runtime.KeepAlive(ix)
			}
			b.ReportMetric(held, "cache-MB")
		})
	}
}

// BenchmarkStartHeld reports the heap a start's first index of the
// 3,000-skill catalog holds, with nothing cached ("fill": every skill
// analysed, the analyses kept, as on a first start), from the analysis
// cache's file ("file": the analyses replayed) and from the index file too
// ("stored"), the catalog held throughout: heap-MB is the live heap after
// the build less the one before it, peak-MB the largest heap (HeapAlloc,
// sampled every millisecond) during the build less the one before it.
func BenchmarkStartHeld(b *testing.B) {
	skills := syntheticSkills(b, 3000)
	dir := b.TempDir()
	path, ixPath := filepath.Join(dir, CacheFileName()), filepath.Join(dir, IndexFileName())
	c := OpenAnalysisCache(path).WithIndexFile(ixPath)
	New(skills, Options{Cache: c})
	if err := c.Save(); err != nil {
		b.Fatal(err)
	}
	heap := func() float64 {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return float64(m.HeapAlloc) / (1 << 20)
	}
	for _, mode := range []string{"fill", "file", "stored"} {
		b.Run(mode, func(b *testing.B) {
			var held, peak float64
			for b.Loop() {
				runtime.GC()
				base := heap()
				var c *AnalysisCache
				switch mode {
				case "fill":
					c = OpenAnalysisCache(filepath.Join(dir, "none", CacheFileName()))
				case "file":
					c = OpenAnalysisCache(path)
				case "stored":
					c = OpenAnalysisCache(path).WithIndexFile(ixPath)
				}
				done := make(chan struct{})
				top := make(chan float64)
				go func() {
					most := 0.0
					for {
						most = max(most, heap())
						select {
						case <-done:
							top <- most
							return
						case <-time.After(time.Millisecond):
						}
					}
				}()
				ix := New(skills, Options{Cache: c})
				close(done)
				peak = <-top - base
				if ix.stored != (mode == "stored") {
					b.Fatal("stored:", ix.stored)
				}
				runtime.GC()
				held = heap() - base
				runtime.KeepAlive(ix)
				runtime.KeepAlive(c)
			}
			b.ReportMetric(held, "heap-MB")
			b.ReportMetric(peak, "peak-MB")
		})
	}
}
