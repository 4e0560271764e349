package catalog

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"

	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

// The shrink guard: what "much smaller" means. A rebuild whose catalog lacks
// more than ShrinkGuardPercent percent of the last good catalog's skills, and
// at least ShrinkGuardMinSkills of them, for reasons other than their skill
// files being deleted or edited (a limit reached, a folder that cannot be
// read, a disk that went away), is refused: the last good catalog keeps
// serving, with a CodeShrinkRefused diagnostic that names the missing
// skills and the rebuild's errors, until a rebuild finds them again (or the
// server restarts, which takes the catalog as it finds it).
const (
	ShrinkGuardPercent   = 20
	ShrinkGuardMinSkills = 3
	// CodeShrinkRefused is the diagnostic of a refused rebuild.
	CodeShrinkRefused = "catalog-shrink-refused"
)

// Guard checks next, a new build, against prev, the catalog being served.
// It returns next when next may replace prev. Otherwise (see the
// constants) it returns a snapshot that serves prev's skills with a
// CodeShrinkRefused diagnostic and next's error diagnostics, to swap in
// instead, and the paths of the skills that went missing unexplained.
func Guard(prev, next *Snapshot) (*Snapshot, []string) {
	if prev == nil || next == nil {
		return next, nil
	}
	lost := unexplained(prev, next)
	if len(lost) < ShrinkGuardMinSkills || len(lost)*100 <= ShrinkGuardPercent*len(prev.skills) {
		return next, nil
	}
	paths := make([]string, len(lost))
	for i, sk := range lost {
		paths[i] = sk.Path
	}
	return keep(prev, next, paths), paths
}

// unexplained lists the skills of prev that next lacks although their source
// is still read, their skill file is still there and unchanged, and next
// does not report them shadowed by another skill.
func unexplained(prev, next *Snapshot) []*Skill {
	sources := map[string]bool{}
	for _, s := range next.sources {
		sources[s.Name] = true
	}
	shadowed := map[[2]string]bool{}
	for _, d := range next.diags {
		if d.Code == CodeShadowed || d.Code == CodePathDuplicate {
			shadowed[[2]string{d.Source, d.File}] = true
		}
	}
	var out []*Skill
	for _, sk := range prev.skills {
		if next.byPath[sk.Path] != nil || !sources[sk.Source.Name] || shadowed[[2]string{sk.Source.Name, sk.RelFile}] {
			continue
		}
		info, err := os.Lstat(sk.File)
		if err != nil {
			var errno syscall.Errno
			if errors.Is(err, fs.ErrNotExist) || errors.As(err, &errno) && errno == syscall.ENOTDIR {
				continue // deleted: a catalog that shrinks because skills were removed is right
			}
		} else if info.Size() != sk.Size || !info.ModTime().Equal(sk.ModTime) {
			continue // edited: the author changed it
		}
		out = append(out, sk)
	}
	return out
}

// keep is prev with the diagnostics of a refused rebuild: the refusal first,
// then prev's own (less an older refusal), then next's errors that prev did
// not have.
func keep(prev, next *Snapshot, lost []string) *Snapshot {
	shown := lost
	if len(shown) > 10 {
		shown = append(slices.Clone(shown[:10]), "…")
	}
	refusal := skill.Diagnostic{
		Severity: skill.SeverityError,
		Code:     CodeShrinkRefused,
		Message: fmt.Sprintf("a rebuild of the catalog found %d skills instead of %d: %d went missing although their skill files are still there, unchanged (%s); the last good catalog (built %s) keeps serving until a rebuild finds them again. The rebuild's errors follow: fix them, or restart the server to take the catalog as it is",
			len(next.skills), len(prev.skills), len(lost), strings.Join(shown, ", "), prev.builtAt.UTC().Format("2006-01-02T15:04:05Z")),
	}
	diags := []skill.Diagnostic{refusal}
	had := map[skill.Diagnostic]bool{}
	for _, d := range prev.diags {
		if d.Code == CodeShrinkRefused {
			continue
		}
		had[d] = true
		diags = append(diags, d)
	}
	for _, d := range next.diags {
		if d.Severity == skill.SeverityError && !had[d] {
			diags = append(diags, d)
		}
	}
	slices.SortStableFunc(diags[1:], func(x, y skill.Diagnostic) int {
		return cmp.Or(cmp.Compare(prev.srcRank(x.Source), prev.srcRank(y.Source)), strings.Compare(x.File, y.File))
	})
	k := &Snapshot{
		builtAt:  prev.builtAt,
		sources:  prev.sources,
		skills:   prev.skills,
		byPath:   prev.byPath,
		byName:   prev.byName,
		roots:    prev.roots,
		diags:    diags,
		stats:    prev.stats,
		srcOrder: prev.srcOrder,
		id:       prev.id,
		// No walks: the disk is not what prev's walks saw; the next build
		// reads everything.
	}
	k.stats.Errors, k.stats.Warnings = 0, 0
	for _, d := range diags {
		switch d.Severity {
		case skill.SeverityError:
			k.stats.Errors++
		case skill.SeverityWarning:
			k.stats.Warnings++
		}
	}
	return k
}
