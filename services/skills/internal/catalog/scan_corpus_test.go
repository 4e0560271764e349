package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/scan"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// The cost of scanning, on the 387 skills of the benchmark corpus. Each
// benchmark reports wall time and the process's CPU time per build
// (cpu-ms/op), which a shared, loaded machine disturbs less:
//
//	go test -run XXX -bench 'Scan' -benchtime 10x -count 5 ./internal/catalog/
//
// BenchmarkScanBaseline is a cold build without scanning; BenchmarkScanCold
// a cold build with a scanner that never saw the corpus; BenchmarkScanDeferred
// the same in deferred mode (Options.DeferScan: what a server's start pays),
// and BenchmarkScanBackground the first scan it leaves to the background
// (ScanPending, then the build that serves the verdicts); BenchmarkScanRestart
// a cold build by a new scanner that reads back the scans a previous process
// kept in its state folder (a restart); BenchmarkScanRebuild a rebuild when
// nothing changed (the in-memory cache answers).

func benchBuilds(b *testing.B, scanner func() *scan.Scanner, prev func() *Snapshot) {
	benchBuildsWith(b, scanner, prev, false)
}

// benchBuildsWith is benchBuilds, with deferScan as Options.DeferScan.
func benchBuildsWith(b *testing.B, scanner func() *scan.Scanner, prev func() *Snapshot, deferScan bool) {
	root := corpusRoot(b)
	ctx := b.Context()
	if _, err := Build(ctx, []*source.Root{root}, Options{}); err != nil { // warm the page cache
		b.Fatal(err)
	}
	var cpu time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		opts := Options{DeferScan: deferScan}
		if scanner != nil {
			opts.Scan = scanner()
		}
		if prev != nil {
			opts.Previous = prev()
		}
		c0 := cpuTime()
		b.StartTimer()
		if _, err := Build(ctx, []*source.Root{root}, opts); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += cpuTime() - c0
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

func newBenchScanner(b *testing.B, cacheFile string) *scan.Scanner {
	sc, err := scan.New(scan.Options{CacheFile: cacheFile})
	if err != nil {
		b.Fatal(err)
	}
	return sc
}

func BenchmarkScanBaseline(b *testing.B) { benchBuilds(b, nil, nil) }

func BenchmarkScanCold(b *testing.B) {
	benchBuilds(b, func() *scan.Scanner { return newBenchScanner(b, "") }, nil)
}

func BenchmarkScanDeferred(b *testing.B) {
	benchBuildsWith(b, func() *scan.Scanner { return newBenchScanner(b, "") }, nil, true)
}

// BenchmarkScanBackground is the work a deferred cold build leaves to the
// background: ScanPending over every skill of the corpus with
// GOMAXPROCS-1 workers (at least 1, as skillsd runs it), then the rebuild
// that answers them from the cache. The deferred build itself is outside
// the timing. BenchmarkScanBackgroundAllCores is the same with GOMAXPROCS
// workers, for the wall time a scan on every core would take.
func BenchmarkScanBackground(b *testing.B) {
	benchBackground(b, max(1, runtime.GOMAXPROCS(0)-1))
}

func BenchmarkScanBackgroundAllCores(b *testing.B) { benchBackground(b, runtime.GOMAXPROCS(0)) }

func benchBackground(b *testing.B, workers int) {
	root := corpusRoot(b)
	ctx := b.Context()
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		sc := newBenchScanner(b, "")
		snap, err := Build(ctx, []*source.Root{root}, Options{Scan: sc, DeferScan: true})
		if err != nil {
			b.Fatal(err)
		}
		if snap.Stats().ScanPending != snap.Len() {
			b.Fatalf("%d of %d skills pending", snap.Stats().ScanPending, snap.Len())
		}
		c0 := cpuTime()
		b.StartTimer()
		if _, err := ScanPending(ctx, snap, sc, workers); err != nil {
			b.Fatal(err)
		}
		after, err := Build(ctx, []*source.Root{root}, Options{Scan: sc, DeferScan: true, Previous: snap})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu += cpuTime() - c0
		if after.Stats().ScanPending != 0 {
			b.Fatalf("%d skills still pending after the background scan", after.Stats().ScanPending)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// restartCache is the cache file of BenchmarkScanRestart, written once per
// test process (the benchmark function runs several times).
var restartCache struct {
	once sync.Once
	file string
}

func BenchmarkScanRestart(b *testing.B) {
	restartCache.once.Do(func() {
		dir, err := os.MkdirTemp("", "scan-restart-")
		if err != nil {
			b.Fatal(err)
		}
		restartCache.file = filepath.Join(dir, scan.CacheFileName())
		first := newBenchScanner(b, restartCache.file)
		if _, err := Build(b.Context(), []*source.Root{corpusRoot(b)}, Options{Scan: first}); err != nil {
			b.Fatal(err)
		}
		if err := first.Flush(); err != nil {
			b.Fatal(err)
		}
	})
	cacheFile := restartCache.file
	// The new scanner is made inside the timing: reading the rules and the
	// cache is part of a restart.
	root := corpusRoot(b)
	ctx := b.Context()
	var cpu time.Duration
	b.ResetTimer()
	for b.Loop() {
		c0 := cpuTime()
		sc := newBenchScanner(b, cacheFile)
		if _, err := Build(ctx, []*source.Root{root}, Options{Scan: sc}); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// BenchmarkScanRestartBuild is BenchmarkScanRestart with the scanner made
// outside the timing: what scanning adds to the build itself, apart from
// reading the rules at start.
func BenchmarkScanRestartBuild(b *testing.B) {
	BenchmarkScanRestart(b) // writes the cache file once
	b.ResetTimer()
	benchBuilds(b, func() *scan.Scanner { return newBenchScanner(b, restartCache.file) }, nil)
}

func BenchmarkScanRebuild(b *testing.B) {
	sc := newBenchScanner(b, "")
	snap, err := Build(b.Context(), []*source.Root{corpusRoot(b)}, Options{Scan: sc})
	if err != nil {
		b.Fatal(err)
	}
	benchBuilds(b, func() *scan.Scanner { return sc }, func() *Snapshot { return snap })
}

// TestCorpusScanDump prints the findings of the corpus at SCAN_DUMP or
// above (a severity), for the review of false positives:
//
//	SCAN_DUMP=high go test -v -run TestCorpusScanDump ./internal/catalog/
func TestCorpusScanDump(t *testing.T) {
	if os.Getenv("SCAN_DUMP") == "" {
		t.Skip("set SCAN_DUMP to a severity")
	}
	root := corpusRoot(t)
	sc, err := scan.New(scan.Options{Policy: scan.Policy{Quarantine: scan.Off}})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Build(t.Context(), []*source.Root{root}, Options{Scan: sc})
	if err != nil {
		t.Fatal(err)
	}
	min, err := scan.ParseSeverity(os.Getenv("SCAN_DUMP"))
	if err != nil {
		t.Fatal(err)
	}
	flagged := 0
	counts := map[string]int{}
	for _, sk := range snap.Skills() {
		hit := false
		for _, f := range sk.Security.Findings {
			counts[f.Rule+" "+f.Severity.String()]++
			if f.Severity >= min {
				fmt.Printf("%s\t%s\t%s:%d\t%.300s\n", sk.Path, f.Severity, f.File, f.Line, f.Message)
				hit = true
			}
		}
		if hit {
			flagged++
		}
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println(strings.Repeat("-", 40))
	for _, k := range keys {
		fmt.Println(counts[k], k)
	}
	fmt.Printf("%d of %d skills flagged at %s or above\n", flagged, snap.Len(), min)
}

// TestCorpusScan holds the false-positive bound of the issue: of the 387
// real (believed benign) skills of the corpus, at most 2% get a high or
// critical finding, and none is quarantined at the default threshold.
func TestCorpusScan(t *testing.T) {
	root := corpusRoot(t)
	sc, err := scan.New(scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Build(t.Context(), []*source.Root{root}, Options{Scan: sc})
	if err != nil {
		t.Fatal(err)
	}
	flagged := 0
	for _, sk := range snap.Skills() {
		for _, f := range sk.Security.Findings {
			if f.Severity >= scan.High {
				flagged++
				t.Logf("%s: %s %s at %s:%d", sk.Path, f.Severity, f.Rule, f.File, f.Line)
				break
			}
		}
	}
	if share := float64(flagged) / float64(snap.Len()); share > 0.02 {
		t.Errorf("%d of %d skills (%.1f%%) have a high or critical finding; the bound is 2%%", flagged, snap.Len(), 100*share)
	}
	if q := snap.Stats().Quarantined; q != 0 {
		t.Errorf("%d corpus skills quarantined at the default threshold", q)
	}
}
