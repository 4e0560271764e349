package catalog

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/skill"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// twentyOne is a root of 21 skills, s00 … s20, each with a file, in dir
// ("": a new temporary folder).
func twentyOne(t *testing.T, dir ...string) string {
	t.Helper()
	root := ""
	if len(dir) > 0 {
		root = dir[0]
	} else {
		root = t.TempDir()
	}
	for i := range 21 {
		name := fmt.Sprintf("s%02d", i)
		for file, content := range map[string]string{"SKILL.md": folderSkill(name, "The "+name+" skill.", "Body."), "ref.md": "reference"} {
			p := filepath.Join(root, name, file)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// memTempDir is a temporary folder in memory (/dev/shm) when the machine
// has one, so that a test writing 100,000 files does not wait for a disk;
// else t.TempDir.
func memTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "skillsd-test-")
	if err != nil {
		return t.TempDir()
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func buildWith(t *testing.T, dir string, lim source.Limits, prev *Snapshot) *Snapshot {
	t.Helper()
	opts := testOptions(t)
	opts.Limits, opts.Previous = lim, prev
	snap, err := Build(t.Context(), []*source.Root{localRoot("team", dir)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// TestShrinkGuardRefusesUnexplainedLoss: a rebuild stopped by the walk
// limit finds a few of the 21 skills, whose files are all still there: the
// guard keeps the 21, with a diagnostic naming the missing ones and the
// rebuild's own error.
func TestShrinkGuardRefusesUnexplainedLoss(t *testing.T) {
	dir := twentyOne(t)
	prev := buildWith(t, dir, source.Limits{}, nil)
	next := buildWith(t, dir, source.Limits{MaxFiles: 12}, prev)
	if next.Len() >= 21 {
		t.Fatalf("the limited rebuild found %d skills; the test needs fewer", next.Len())
	}
	kept, lost := Guard(prev, next)
	if kept == next || len(lost) != 21-next.Len() {
		t.Fatalf("Guard: kept the new build (%d skills), lost %v", next.Len(), lost)
	}
	if got := paths(kept.Skills()); len(got) != 21 || got[0] != "s00" || got[20] != "s20" {
		t.Errorf("kept skills: %v; want the 21 of the last good catalog", got)
	}
	ds := kept.Diagnostics()
	if ds[0].Code != CodeShrinkRefused || !strings.Contains(ds[0].Message, fmt.Sprintf("found %d skills instead of 21", next.Len())) {
		t.Errorf("first diagnostic: %+v; want the refusal", ds[0])
	}
	if !slices.ContainsFunc(ds, func(d skill.Diagnostic) bool { return d.Code == source.CodeLimitFiles }) {
		t.Errorf("the rebuild's limit-files error is not shown: %v", codes(ds))
	}
	// The same rebuild again: nothing new to say, the kept catalog stays as is.
	again, _ := Guard(kept, buildWith(t, dir, source.Limits{MaxFiles: 12}, kept))
	if !Same(kept, again) {
		t.Errorf("a second refused rebuild changed the kept catalog")
	}
	// Once the walk finds them again, the new build is taken.
	if fixed, lost := Guard(kept, buildWith(t, dir, source.Limits{}, kept)); len(lost) != 0 || fixed.Len() != 21 || slices.ContainsFunc(fixed.Diagnostics(), func(d skill.Diagnostic) bool { return d.Code == CodeShrinkRefused }) {
		t.Errorf("after the fix: lost %v, %d skills, diagnostics %v", lost, fixed.Len(), codes(fixed.Diagnostics()))
	}
}

// TestShrinkGuardAcceptsDeletionsEditsAndOneCostlySkill: deleting skills,
// editing them out of existence, or one skill going over its own limit, are
// not what the guard stops.
func TestShrinkGuardAcceptsDeletionsEditsAndOneCostlySkill(t *testing.T) {
	dir := twentyOne(t)
	prev := buildWith(t, dir, source.Limits{}, nil)
	for i := range 10 {
		if err := os.RemoveAll(filepath.Join(dir, fmt.Sprintf("s%02d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "s10", "SKILL.md"), []byte("no longer a skill\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "s11"), filepath.Join(dir, ".s11")); err != nil {
		t.Fatal(err)
	}
	next := buildWith(t, dir, source.Limits{}, prev)
	if kept, lost := Guard(prev, next); kept != next || len(lost) != 0 {
		t.Errorf("deletions refused: lost %v", lost)
	}

	// One skill over its own limit costs that skill alone.
	for i := range 30 {
		if err := os.WriteFile(filepath.Join(dir, "s20", fmt.Sprintf("f%02d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	limited := buildWith(t, dir, source.Limits{MaxSkillFiles: 20}, next)
	if lost := unexplained(next, limited); len(lost) != 1 || lost[0].Path != "s20" {
		t.Errorf("one costly skill: unexplained losses %v; want s20", paths(lost))
	}
	if kept, lost := Guard(next, limited); kept != limited {
		t.Errorf("one costly skill: refused, lost %v", lost)
	}
	if _, ok := findDiag(limited.Diagnostics(), source.CodeLimitSkillFiles, "s20/SKILL.md"); !ok {
		t.Errorf("no limit-skill-files diagnostic on s20: %v", codes(limited.Diagnostics()))
	}
}

// TestHugeFolderCostsOnlyItsSkill reproduces the report with the default
// limits: 100,000 empty files in one skill's folder made the walk stop at
// the per-source cap, and the catalog fell from 21 skills to a few (every
// skill sorting after that folder answered 404). Now the folder costs its
// own skill, with a diagnostic, and the other 20 are served.
func TestHugeFolderCostsOnlyItsSkill(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100,001 files")
	}
	dir := twentyOne(t, memTempDir(t))
	// Fill a skill that sorts early, so that most skills come after it.
	huge := filepath.Join(dir, "s03", "data")
	if err := os.MkdirAll(huge, 0o755); err != nil {
		t.Fatal(err)
	}
	prev := buildWith(t, dir, source.Limits{}, nil)
	for i := range source.DefaultMaxFiles + 1 {
		f, err := os.Create(filepath.Join(huge, fmt.Sprintf("f%06d", i)))
		if err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	next := buildWith(t, dir, source.Limits{}, prev)
	got := paths(next.Skills())
	if len(got) != 20 || slices.Contains(got, "s03") {
		t.Fatalf("after filling s03: %d skills %v; want the 20 others", len(got), got)
	}
	if _, ok := findDiag(next.Diagnostics(), source.CodeLimitSkillFiles, "s03/SKILL.md"); !ok {
		t.Errorf("no limit-skill-files diagnostic on s03: %v", codes(next.Diagnostics()))
	}
	if kept, lost := Guard(prev, next); kept != next {
		t.Errorf("the guard refused the build that costs one skill: lost %v", lost)
	}
}
