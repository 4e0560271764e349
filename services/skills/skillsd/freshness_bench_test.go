package skillsd_test

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// BenchmarkWatchedChange measures, on a watched folder of 3,000 skills, the
// time from writing one SKILL.md to the WatchCatalog stream announcing the
// new snapshot (which is then what every call is served): fsnotify, the
// debounce, the incremental rebuild, the swap and the stream. after-debounce-ms
// is that time less the debounce (ARCHITECTURE §9: < 50 ms).
func BenchmarkWatchedChange(b *testing.B) {
	const skills = 3000
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
	time.Sleep(2 * time.Second) // let the watcher set up its 6,000 watches
	file := filepath.Join(root, "cat07", "skill-0007", "SKILL.md")
	var total time.Duration
	i := 0
	b.ResetTimer()
	for b.Loop() {
		i++
		start := time.Now()
		if err := os.WriteFile(file, []byte(skillstest.SkillMD("skill-0007", fmt.Sprintf("edited %d times", i))), 0o644); err != nil {
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
	}
	b.ReportMetric(float64((total-time.Duration(b.N)*debounce).Microseconds())/1000/float64(b.N), "after-debounce-ms")
}
