package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skillsd/skillsd/services/skills/internal/confine"
	"github.com/skillsd/skillsd/services/skills/internal/scan"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

// Diagnostic codes of the security scan (each finding's code is its rule id).
const (
	// CodeQuarantined says a skill is not served because of its findings.
	CodeQuarantined = "quarantined"
	// CodeAllowStale says a reviewer's acceptance no longer applies: the
	// skill changed since it was reviewed.
	CodeAllowStale = "allow-stale"
)

// Quarantined reports whether the security policy keeps the skill from being
// served: a finding of its own at or above security.quarantine that no
// reviewer accepted, or a quarantined skill it inherits content from.
func (s *Skill) Quarantined() bool { return s.Security.Quarantined }

// fileDigest is the digest of a skill file's content.
func fileDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// contentDigest is the skill's content digest: sha256 over its skill file's
// digest and the path and digest of each companion file. A reviewer's
// security.allow entry may pin it.
func contentDigest(sk *Skill) string {
	h := sha256.New()
	fmt.Fprintf(h, "skill\x00%s\x00", sk.fileDigest)
	for _, f := range sk.Files {
		fmt.Fprintf(h, "%s\x00%s\x00", f.Path, f.Digest)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// scanSkills runs the scanner on every skill of the build (unchanged skills
// are answered from the scanner's cache), applies the policy, quarantines the
// skills that inherit from a quarantined one, and reports the findings as
// diagnostics.
func (b *builder) scanSkills(ctx context.Context, workers int, sc *scan.Scanner) error {
	skills := b.snap.skills
	for _, sk := range skills {
		if sk.fileDigest == "" {
			if data, err := readAll(sk.File); err == nil {
				sk.fileDigest = fileDigest(data)
				sk.data = data
			}
		}
		sk.Digest = contentDigest(sk)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, max(len(skills), 1)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				n := int(next.Add(1)) - 1
				if n >= len(skills) {
					return
				}
				sk := skills[n]
				sk.Security = sc.Check(ctx, scanInput(sk))
				sk.data = nil
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	policy := sc.Policy()
	seen := map[string]bool{}
	for _, sk := range skills {
		// A skill that inherits content from a quarantined one would serve it.
		if !sk.Security.Quarantined && sk.Inherits() {
			for p := sk.Parent; p != nil; p = p.Parent {
				if p.Security.Quarantined {
					sk.Security.Quarantined = true
					sk.Security.InheritedFrom = p.Path
					break
				}
			}
		}
		src := sk.Source.Name
		for _, f := range sk.Security.Findings {
			key := f.Rule + "\x00" + f.File + "\x00" + fmt.Sprint(f.Line)
			if seen[key] { // a nested skill's file is also its parent's
				continue
			}
			seen[key] = true
			sev := skill.SeverityInfo
			switch {
			case f.Allowed:
			case policy.Threshold() != scan.Off && f.Severity >= policy.Threshold():
				sev = skill.SeverityError
			case f.Severity >= scan.Medium:
				sev = skill.SeverityWarning
			}
			msg := fmt.Sprintf("[%s] %s", f.Severity, f.Message)
			if f.Allowed {
				msg += fmt.Sprintf(" (accepted under security.allow: %s)", f.AllowReason)
			}
			b.diagAt(src, f.File, f.Line, sev, f.Rule, "%s", msg)
		}
		for _, st := range sk.Security.Stale {
			b.diag(src, sk.RelFile, skill.SeverityWarning, CodeAllowStale, "%s: %s", sk.Path, st)
		}
		if sk.Security.Quarantined {
			b.snap.stats.Quarantined++
			b.diag(src, sk.RelFile, skill.SeverityError, CodeQuarantined, "%s", QuarantineReason(sk, policy))
		}
	}
	return nil
}

// QuarantineReason says in one sentence why a quarantined skill is not
// served, and what to do.
func QuarantineReason(sk *Skill, p scan.Policy) string {
	if sk.Security.InheritedFrom != "" && len(sk.Security.Blocking(p)) == 0 {
		return fmt.Sprintf("skill %q is quarantined and not served: it inherits the content of quarantined skill %q", sk.Path, sk.Security.InheritedFrom)
	}
	var parts []string
	for _, f := range sk.Security.Blocking(p) {
		where := f.File
		if f.Line > 0 {
			where = fmt.Sprintf("%s:%d", f.File, f.Line)
		}
		parts = append(parts, fmt.Sprintf("%s (%s) at %s", f.Rule, f.Severity, where))
		if len(parts) == 3 {
			break
		}
	}
	more := ""
	if n := len(sk.Security.Blocking(p)); n > len(parts) {
		more = fmt.Sprintf(" and %d more", n-len(parts))
	}
	return fmt.Sprintf("skill %q is quarantined and not served: %s%s (security.quarantine is %s); fix the skill, or have a reviewer accept it under security.allow (content digest %s)",
		sk.Path, strings.Join(parts, ", "), more, p.Threshold(), sk.Digest)
}

// scanInput describes a skill to the scanner.
func scanInput(sk *Skill) *scan.Skill {
	fm := &sk.Doc.Frontmatter
	in := &scan.Skill{
		Path:         sk.Path,
		Name:         sk.Name,
		Description:  sk.Description,
		AllowedTools: fm.AllowedTools,
		KeyLines:     fm.KeyLines,
		SkillFile:    sk.RelFile,
		SkillAbs:     sk.File,
		SkillData:    sk.data,
		Dir:          sk.Dir,
		Digest:       sk.Digest,
	}
	if sk.Layout == skill.LayoutFolder {
		in.Folder = path.Base(sk.Path)
	}
	for _, s := range fm.Scripts {
		in.Scripts = append(in.Scripts, s.File)
	}
	if sk.Dir != "" {
		if rel, err := filepath.Rel(sk.Source.Dir, sk.Dir); err == nil && rel != "." {
			in.DirRel = filepath.ToSlash(rel)
		}
	}
	for _, f := range sk.Files {
		in.Files = append(in.Files, scan.File{Path: f.Path, Size: f.Size, Text: f.Text})
	}
	return in
}

// readAll reads a skill file that the build did not read itself (its parse
// was reused from the previous snapshot).
func readAll(name string) ([]byte, error) {
	f, err := confine.OpenResolved(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}
