package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// benchSkills is the catalog size of ARCHITECTURE §9's change target.
const benchSkills = 3000

// makeCatalog writes n skill folders (a SKILL.md of about 1.5 KB and two
// companion files each, in 30 categories) under a new folder.
func makeCatalog(tb testing.TB, n int) string {
	tb.Helper()
	root := tb.TempDir()
	body := strings.Repeat("Follow these steps carefully and check the result before going on. ", 20)
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("cat%02d", i%30), fmt.Sprintf("skill-%04d", i))
		if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
			tb.Fatal(err)
		}
		md := fmt.Sprintf("---\nname: skill-%04d\ndescription: Skill number %d, for task %d of category %d.\n---\n# Skill %d\n\n%s\n", i, i, i*7, i%30, i, body)
		files := map[string]string{"SKILL.md": md, "reference.md": body, "scripts/run.sh": "#!/bin/sh\necho ok\n"}
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return root
}

// BenchmarkOneSkillChange measures what follows the debounce when one skill
// of a 3,000-skill catalog is edited: the rebuild that reads again only the
// changed skill's folder and reuses everything else, the swap, and the change
// event reaching a subscriber (ARCHITECTURE §9: < 50 ms). The file write
// itself is outside the timer. BenchmarkOneSkillChangeFullWalk is the same
// without the changed paths (a poll, or RefreshSkills).
func BenchmarkOneSkillChange(b *testing.B) { benchmarkOneSkillChange(b, true) }

func BenchmarkOneSkillChangeFullWalk(b *testing.B) { benchmarkOneSkillChange(b, false) }

func benchmarkOneSkillChange(b *testing.B, dirty bool) {
	root := makeCatalog(b, benchSkills)
	roots := []*source.Root{{Name: "bench", Dir: root, Kind: source.KindLocal, Trusted: true}}
	ctx := b.Context()
	var st Store
	first, err := Build(ctx, roots, Options{})
	if err != nil {
		b.Fatal(err)
	}
	st.Swap(first)
	changes, cancel := st.Subscribe()
	defer cancel()
	file := filepath.Join(root, "cat07", "skill-0007", "SKILL.md")
	i := 0
	cpu := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		i++
		content := fmt.Sprintf("---\nname: skill-0007\ndescription: Edited %d times.\n---\n# Skill 7\n", i)
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
		at := time.Now().Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(file, at, at); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		// Dirty: the path a file watcher reports for the write.
		opts := Options{Previous: st.Current()}
		if dirty {
			opts.Dirty = []string{file}
		}
		snap, err := Build(ctx, roots, opts)
		if err != nil {
			b.Fatal(err)
		}
		st.Swap(snap)
		c := <-changes
		if len(c.Changed) != 1 || c.Changed[0] != "cat07/skill-0007" {
			b.Fatalf("change %+v, want cat07/skill-0007 changed", c)
		}
		if snap.Stats().Reused != benchSkills-1 {
			b.Fatalf("reused %d skill files, want %d", snap.Stats().Reused, benchSkills-1)
		}
	}
	b.StopTimer()
	// CPU time (user + system, all threads) per change: unlike the wall
	// time, it does not grow when other processes load the machine.
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}
