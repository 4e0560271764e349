package source

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkWalkKnown walks a tree of 400 skills of six files in two
// folders each (SKILL.md, references, scripts), every skill file known to
// the caller: the walk of a warm start, which reads no file, only the
// folders and the files' sizes and times.
func BenchmarkWalkKnown(b *testing.B) { benchWalkKnown(b, "") }

// BenchmarkWalkKnownOneFolder is BenchmarkWalkKnown with the skills in one
// folder below the root (a repository's skills/): the goroutines of a walk
// share the folders below the root's only one (handOff).
func BenchmarkWalkKnownOneFolder(b *testing.B) { benchWalkKnown(b, "skills/") }

// benchWalkKnown is BenchmarkWalkKnown with the skills' groups below the
// folder under (a path ending in "/", or "" for the root).
func benchWalkKnown(b *testing.B, under string) {
	files := map[string]string{}
	for i := range 400 {
		d := fmt.Sprintf("%sgroup%02d/skill%03d/", under, i%20, i)
		files[d+"SKILL.md"] = fmt.Sprintf("---\nname: skill%03d\ndescription: Skill number %d.\n---\n\nBody.\n", i, i)
		files[d+"reference.md"] = "# Reference\n"
		files[d+"LICENSE.txt"] = "MIT\n"
		files[d+"references/api.md"] = "# API\n"
		files[d+"scripts/run.py"] = "print('run')\n"
		files[d+"scripts/util.py"] = "pass\n"
	}
	root := &Root{Name: "bench", Dir: writeTree(b, "", files), Kind: KindLocal}
	known := func(string, int64, time.Time) bool { return true }
	b.ReportAllocs()
	for b.Loop() {
		entries, _, _, err := WalkWith(b.Context(), root, Limits{}, Options{Known: known})
		if err != nil || len(entries) != 400 {
			b.Fatalf("%d entries, %v", len(entries), err)
		}
	}
}

// TestHandOffKeepsTheLast: a folder's last subfolder is walked by the
// goroutine that listed it, never handed off; the others may be, down to
// spawnDepth.
func TestHandOffKeepsTheLast(t *testing.T) {
	for _, c := range []struct {
		i, n, depth int
		want        bool
	}{
		{0, 1, 1, false}, // the only one
		{0, 2, 1, true},
		{1, 2, 1, false},
		{0, 14, spawnDepth, true},
		{13, 14, spawnDepth, false},
		{0, 14, spawnDepth + 1, false}, // too deep
	} {
		if got := handOff(c.i, c.n, c.depth); got != c.want {
			t.Errorf("handOff(%d, %d, %d) = %t, want %t", c.i, c.n, c.depth, got, c.want)
		}
	}
}
