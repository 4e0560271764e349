package skillsd_test

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// BenchmarkWatchedChange measures, on a watched folder of 3,000 and of
// 10,000 skills, the time from writing one SKILL.md to the WatchCatalog
// stream announcing the new snapshot (which is then what every call is
// served): fsnotify, the debounce, the incremental rebuild, the swap and the
// stream. after-debounce-ms is that time less the debounce (ARCHITECTURE §9:
// < 50 ms); searchable-after-debounce-ms is the time, less the debounce,
// until a search finds the skill by a word only its edit wrote (the search
// index of the new catalog built too; issue 21: ≤ 100 ms at 10,000 skills).
func BenchmarkWatchedChange(b *testing.B) {
	for _, skills := range []int{3000, 10000} {
		b.Run(fmt.Sprint(skills), func(b *testing.B) { benchmarkWatchedChange(b, skills) })
	}
}

func benchmarkWatchedChange(b *testing.B, skills int) {
	const debounce = 20 * time.Millisecond
	root := b.TempDir()
	body := strings.Repeat("Follow these steps carefully and check the result before going on. ", 20)
	for i := range skills {
		dir := filepath.Join(root, fmt.Sprintf("cat%02d", i%30), fmt.Sprintf("skill-%04d", i))
		if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
			b.Fatal(err)
		}
		for name, content := range map[string]string{
			"SKILL.md":       skillstest.SkillMD(fmt.Sprintf("skill-%04d", i), fmt.Sprintf("task %d of category %d", i, i%30)) + body,
			"reference.md":   body,
			"scripts/run.sh": "#!/bin/sh\necho ok\n",
		} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	conn := skillstest.Start(b, skillsd.Options{SkillsDirs: []string{root}, WatchDebounce: debounce, Logger: slog.New(slog.DiscardHandler)})
	stream, err := skillsv1.NewCatalogServiceClient(conn).WatchCatalog(b.Context(), &skillsv1.WatchCatalogRequest{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := stream.Recv(); err != nil { // the initial message
		b.Fatal(err)
	}
	time.Sleep(time.Duration(skills) * 2 * time.Millisecond) // let the watcher set up its watches, two a skill
	file := filepath.Join(root, "cat07", "skill-0007", "SKILL.md")
	routing := skillsv1.NewRoutingServiceClient(conn)
	var total, searchable time.Duration
	i := 0
	defer profileLoop(b)()
	b.ResetTimer()
	for b.Loop() {
		i++
		start := time.Now()
		word := fmt.Sprintf("zqedit%dx", i)
		if err := os.WriteFile(file, []byte(skillstest.SkillMD("skill-0007", "edited "+word)), 0o644); err != nil {
			b.Fatal(err)
		}
		m, err := stream.Recv()
		if err != nil {
			b.Fatal(err)
		}
		if len(m.GetChanged()) != 1 || m.GetChanged()[0] != "cat07/skill-0007" {
			b.Fatalf("change %v, want cat07/skill-0007 changed", m)
		}
		total += time.Since(start)
		for {
			res, err := routing.SearchSkills(b.Context(), &skillsv1.SearchSkillsRequest{Query: word})
			if err != nil {
				b.Fatal(err)
			}
			if len(res.GetResults()) > 0 && res.GetResults()[0].GetSkillPath() == "cat07/skill-0007" {
				break
			}
			if time.Since(start) > time.Minute {
				b.Fatalf("a search for %q did not find the edited skill within a minute", word)
			}
		}
		searchable += time.Since(start)
	}
	b.ReportMetric(float64((total-time.Duration(b.N)*debounce).Microseconds())/1000/float64(b.N), "after-debounce-ms")
	b.ReportMetric(float64((searchable-time.Duration(b.N)*debounce).Microseconds())/1000/float64(b.N), "searchable-after-debounce-ms")
}

// profileLoop profiles what follows it to the returned function, the
// benchmark's loop without its set-up: the CPU to the file that
// SKILLSD_LOOP_CPUPROFILE names, and the allocations to the file that
// SKILLSD_LOOP_MEMPROFILE names (with the allocations before the loop in
// that file's name plus ".base", for go tool pprof -base).
func profileLoop(b *testing.B) (stop func()) {
	var stops []func()
	if name := os.Getenv("SKILLSD_LOOP_CPUPROFILE"); name != "" {
		f, err := os.Create(name)
		if err != nil {
			b.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			b.Fatal(err)
		}
		stops = append(stops, func() {
			pprof.StopCPUProfile()
			if err := f.Close(); err != nil {
				b.Error(err)
			}
		})
	}
	if name := os.Getenv("SKILLSD_LOOP_MEMPROFILE"); name != "" {
		writeAllocs(b, name+".base")
		stops = append(stops, func() { writeAllocs(b, name) })
	}
	return func() {
		for _, stop := range stops {
			stop()
		}
	}
}

// writeAllocs writes the allocation profile, after a collection, to name.
func writeAllocs(b *testing.B, name string) {
	runtime.GC()
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		b.Error(err)
	}
	if err := f.Close(); err != nil {
		b.Error(err)
	}
}
