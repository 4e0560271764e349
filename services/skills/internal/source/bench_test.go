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
func BenchmarkWalkKnown(b *testing.B) {
	files := map[string]string{}
	for i := range 400 {
		d := fmt.Sprintf("group%02d/skill%03d/", i%20, i)
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
