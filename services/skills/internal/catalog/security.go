package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
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
	// CodeScanPending says skills of a source wait for their first security
	// scan, which runs in the background (Options.DeferScan): they are not
	// served until it is done.
	CodeScanPending = "scan-pending"
)

// Quarantined reports whether the skill is kept from being served by the
// security scan: the policy quarantines it (a finding of its own at or above
// security.quarantine that no reviewer accepted, or a quarantined skill it
// inherits content from), or it waits for its first scan (ScanPending).
// Every surface that hides quarantined skills thereby hides unscanned ones.
func (s *Skill) Quarantined() bool { return s.Security.Quarantined || s.pending }

// ScanPending reports whether the skill is not served only because it, or a
// skill it inherits content from, waits for its first security scan
// (Options.DeferScan): it will be served, or quarantined, once the scan is
// done. It is false for a skill the policy quarantines.
func (s *Skill) ScanPending() bool { return s.pending && !s.Security.Quarantined }

// PendingReason says in one sentence why a skill that waits for its first
// security scan is not served yet, and what to do.
func PendingReason(sk *Skill) string {
	if sk.pendingFrom != "" {
		return fmt.Sprintf("skill %q is not served yet: it inherits the content of skill %q, which is waiting for its first security scan; retry in a moment", sk.Path, sk.pendingFrom)
	}
	return fmt.Sprintf("skill %q is not served yet: it is waiting for its first security scan, which runs in the background; retry in a moment", sk.Path)
}

// fileDigest is the digest of a skill file's content.
func fileDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// contentDigest is the skill's content digest: sha256 over its skill file's
// digest and the path and digest of each companion file. A reviewer's
// security.allow entry may pin it.
//
// The fields go through one buffer, not fmt: a warm start computes it for
// every skill, and formatting each file's line was most of that.
func contentDigest(sk *Skill) string {
	h := sha256.New()
	var scratch [1 << 10]byte
	buf := append(append(append(scratch[:0], "skill\x00"...), sk.fileDigest...), 0)
	for _, f := range sk.Files {
		if len(buf)+len(f.Path)+len(f.Digest)+2 > cap(buf) {
			h.Write(buf)
			buf = buf[:0]
		}
		buf = append(append(append(append(buf, f.Path...), 0), f.Digest...), 0)
	}
	h.Write(buf)
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// heldDigest is the content digest of the held version of sk (see
// builder.heldSkill) when it is sk's: the same skill file and companion
// files (paths and digests), which is all contentDigest reads; "" when
// there is none.
func (b *builder) heldDigest(sk *Skill) string {
	p := b.heldSkill(sk.File, sk.Path)
	if p == nil || p.Digest == "" || p.fileDigest == "" || p.fileDigest != sk.fileDigest || len(p.Files) != len(sk.Files) {
		return ""
	}
	for i, f := range sk.Files {
		if f.Path != p.Files[i].Path || f.Digest != p.Files[i].Digest {
			return ""
		}
	}
	return p.Digest
}

// scanSkills runs the scanner on every skill of the build (unchanged skills
// are answered from the scanner's cache), applies the policy, quarantines the
// skills that inherit from a quarantined one, and reports the findings as
// diagnostics. With deferScan it scans only what Options.DeferScan says and
// marks the other skills pending; prev is the snapshot the build replaces.
func (b *builder) scanSkills(ctx context.Context, workers int, sc *scan.Scanner, deferScan bool, prev *Snapshot) error {
	skills := b.snap.skills
	// Before the first question: a turn of the cache during this build
	// changes the epoch the next build compares.
	epoch := sc.CacheEpoch()
	b.snap.scanner, b.snap.scanEpoch = sc, epoch
	for _, sk := range skills {
		if sk.Digest != "" {
			continue // its previous version's, with its files (newSkill)
		}
		if sk.fileDigest == "" {
			if data, err := readAll(sk.File); err == nil {
				sk.fileDigest = fileDigest(data)
				sk.data = data
			}
		}
		sk.Digest = b.heldDigest(sk)
		if sk.Digest == "" {
			sk.Digest = contentDigest(sk)
		}
	}
	todo := skills
	if deferScan {
		var held *Snapshot
		if b.incremental && prev != nil && prev.scanner == sc && prev.scanEpoch == epoch {
			held = prev
		}
		todo = deferScans(skills, sc, prev, held)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, max(len(todo), 1)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				n := int(next.Add(1)) - 1
				if n >= len(todo) {
					return
				}
				sk := todo[n]
				in, ok := verifiedInput(sk, sc.MaxFileBytes())
				if !ok {
					// A file changed since the build hashed it: scan what
					// is there now, which is what would be served, and
					// keep it out of the cache (its digest is not known).
					in = scanInput(sk)
					in.Digest = ""
				}
				sk.Security = sc.Check(ctx, in)
				sk.scanKeyed = ok && in.Digest != ""
				sk.data = nil
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	policy := sc.Policy()
	// A skill that inherits content from a quarantined one would serve it.
	for _, sk := range skills {
		if !sk.Security.Quarantined && sk.Inherits() {
			for p := sk.Parent; p != nil; p = p.Parent {
				if p.Security.Quarantined {
					sk.Security.Quarantined = true
					sk.Security.InheritedFrom = p.Path
					break
				}
			}
		}
	}
	// Nor may one serve the content of a skill not scanned yet.
	for _, sk := range skills {
		if !sk.Quarantined() && sk.Inherits() {
			for p := sk.Parent; p != nil; p = p.Parent {
				if p.pending {
					sk.pending = true
					sk.pendingFrom = p.Path
					break
				}
			}
		}
	}
	type findingKey struct {
		rule, file string
		line       int
	}
	findings := 0
	for _, sk := range skills {
		findings += len(sk.Security.Findings)
	}
	seen := make(map[findingKey]bool, findings)
	b.diags = slices.Grow(b.diags, findings)
	pending := map[string][]string{} // source → skill paths
	var pendingSources []string
	for _, sk := range skills {
		src := sk.Source.Name
		for _, f := range sk.Security.Findings {
			key := findingKey{f.Rule, f.File, f.Line}
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
			msg := "[" + f.Severity.String() + "] " + f.Message
			if f.Allowed {
				msg += " (accepted under security.allow: " + f.AllowReason + ")"
			}
			b.diags = append(b.diags, skill.Diagnostic{Source: src, File: f.File, Line: f.Line, Severity: sev, Code: f.Rule, Message: msg})
		}
		for _, st := range sk.Security.Stale {
			b.diag(src, sk.RelFile, skill.SeverityWarning, CodeAllowStale, "%s: %s", sk.Path, st)
		}
		switch {
		case sk.Security.Quarantined:
			b.snap.stats.Quarantined++
			b.diag(src, sk.RelFile, skill.SeverityError, CodeQuarantined, "%s", QuarantineReason(sk, policy))
		case sk.pending:
			b.snap.stats.ScanPending++
			if pending[src] == nil {
				pendingSources = append(pendingSources, src)
			}
			pending[src] = append(pending[src], sk.Path)
		}
	}
	// One diagnostic per source, not one per skill: a first start over a
	// large catalog would otherwise bury the other diagnostics.
	for _, src := range pendingSources {
		paths := pending[src]
		shown := paths
		more := ""
		if len(shown) > 5 {
			shown = shown[:5]
			more = fmt.Sprintf(" and %d more", len(paths)-len(shown))
		}
		what := fmt.Sprintf("%d skills wait for their first security scan", len(paths))
		if len(paths) == 1 {
			what = "1 skill waits for its first security scan"
		}
		b.diag(src, "", skill.SeverityInfo, CodeScanPending,
			"%s (%s%s): not served until it is done, in the background; retry in a moment",
			what, strings.Join(shown, ", "), more)
	}
	return nil
}

// deferScans answers the skills the scanner has a result for from its cache,
// marks pending the new ones it would have to scan when they are more than a
// build should scan (Options.DeferScan), and returns the skills to scan now.
// held, when set, is a snapshot built with sc whose verdicts the cache
// still holds (see heldVerdict): its skills' verdicts are taken without
// asking the cache.
func deferScans(skills []*Skill, sc *scan.Scanner, prev, held *Snapshot) []*Skill {
	var now, later []*Skill
	var bytes int64
	for _, sk := range skills {
		if v, ok := heldVerdict(held, sk); ok {
			sk.Security, sk.scanKeyed = v, true
			sk.data = nil
			continue
		}
		if v, ok := sc.Cached(scanKey(sk)); ok {
			sk.Security, sk.scanKeyed = v, true
			sk.data = nil
			continue
		}
		if prev != nil {
			if p := prev.byPath[sk.Path]; p != nil && !p.Quarantined() {
				now = append(now, sk) // served: an edit must not hide it
				continue
			}
		}
		later = append(later, sk)
		bytes += min(sk.Size, scan.DefaultMaxFileBytes)
		for _, f := range sk.Files {
			if f.Text {
				bytes += min(f.Size, scan.DefaultMaxFileBytes)
			}
		}
	}
	if len(later) <= DeferScanSkills && bytes <= DeferScanBytes {
		return append(now, later...)
	}
	for _, sk := range later {
		sk.pending = true
		sk.data = nil
	}
	return now
}

// heldVerdict returns the verdict held's skill at sk's path has when the
// scanner's cache would give sk that verdict: held was built with the same
// scanner, whose cache did not turn since (its CacheEpoch is the one held
// recorded before its first question, so the scan is still held and a
// Cached would change nothing), and the verdict was the cache's for the
// same key (scanKey: content digest, path, skill file, folder) and the same
// inputs of the policy (path, name, digest). What the build added to that
// verdict, a quarantine inherited from an ancestor, is taken off: the
// build decides it again. False when held is nil or any of this differs.
func heldVerdict(held *Snapshot, sk *Skill) (scan.Verdict, bool) {
	if held == nil {
		return scan.Verdict{}, false
	}
	p := held.byPath[sk.Path]
	if p == nil || !p.scanKeyed || p.pending || p.Digest == "" || p.Digest != sk.Digest || p.Name != sk.Name ||
		p.RelFile != sk.RelFile || p.Layout != sk.Layout || p.Dir != sk.Dir || p.Source.Dir != sk.Source.Dir {
		return scan.Verdict{}, false
	}
	v := p.Security
	if v.InheritedFrom != "" {
		// Quarantined by the ancestor only: a skill quarantined by its
		// own findings keeps no InheritedFrom.
		v.Quarantined, v.InheritedFrom = false, ""
	}
	return v, true
}

// ScanPending scans, with up to workers goroutines, the skills of snap that
// wait for their first scan (Skill.ScanPending) and are not in sc's cache,
// so that the next Build with the same scanner answers them from the cache.
// It returns how many skills it scanned, and ctx's error when ctx ended
// first. It changes nothing in snap.
func ScanPending(ctx context.Context, snap *Snapshot, sc *scan.Scanner, workers int) (int, error) {
	var todo []*Skill
	for _, sk := range snap.skills {
		if !sk.pending || sk.Security.Quarantined {
			continue
		}
		if _, ok := sc.Cached(scanInput(sk)); !ok {
			todo = append(todo, sk)
		}
	}
	var next, scanned atomic.Int64
	var wg sync.WaitGroup
	for range min(max(workers, 1), max(len(todo), 1)) {
		wg.Go(func() {
			for ctx.Err() == nil {
				n := int(next.Add(1)) - 1
				if n >= len(todo) {
					return
				}
				// A skill whose files changed since snap was built is left:
				// the rebuild its change brings gives it a new digest.
				if in, ok := verifiedInput(todo[n], sc.MaxFileBytes()); ok {
					sc.Scan(ctx, in)
					scanned.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return int(scanned.Load()), nil
}

// verifiedInput is scanInput with the content of the skill file and of every
// companion file read here, once, and checked against the digests the build
// recorded (sk.Digest is made of them): the scanner then scans exactly the
// content its cache entry names, however the files change meanwhile. Of each
// file it keeps what the scanner reads (maxBytes+1 bytes of a text file, 512
// of a binary one), so one skill at a time is held. False when a file cannot
// be read or no longer has its digest.
func verifiedInput(sk *Skill, maxBytes int64) (*scan.Skill, bool) {
	in := scanInput(sk)
	buf := make([]byte, hashBufSize)
	if in.SkillData == nil {
		data, ok := readVerified(sk.File, sk.fileDigest, -1, buf)
		if !ok {
			return nil, false
		}
		in.SkillData = data
	} else if sk.fileDigest == "" || fileDigest(in.SkillData) != sk.fileDigest {
		return nil, false
	}
	if sk.Dir == "" {
		return in, true
	}
	for i := range in.Files {
		f := &in.Files[i]
		keep := int64(512)
		if f.Text {
			keep = maxBytes + 1
		}
		data, ok := readVerified(filepath.Join(sk.Dir, filepath.FromSlash(f.Path)), sk.Files[i].Digest, keep, buf)
		if !ok {
			return nil, false
		}
		f.Data = data
	}
	return in, true
}

// readVerified reads a file through the confined opener and reports whether
// its whole content has the digest want; it returns the first keep bytes
// (all of them when keep < 0), never nil when ok. buf is its read buffer.
func readVerified(name, want string, keep int64, buf []byte) ([]byte, bool) {
	if want == "" {
		return nil, false
	}
	f, err := confine.OpenResolved(name)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	h := sha256.New()
	kept := []byte{}
	for {
		n, err := f.Read(buf)
		if n > 0 {
			h.Write(buf[:n])
			if keep < 0 {
				kept = append(kept, buf[:n]...)
			} else if room := keep - int64(len(kept)); room > 0 {
				kept = append(kept, buf[:min(int64(n), room)]...)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, false
		}
	}
	return kept, "sha256:"+hex.EncodeToString(h.Sum(nil)) == want
}

// QuarantineReason says in one sentence why a quarantined skill is not
// served, and what to do.
func QuarantineReason(sk *Skill, p scan.Policy) string {
	if sk.ScanPending() {
		return PendingReason(sk)
	}
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
// scanKey is the part of scanInput(sk) that scan.Scanner.Cached reads:
// what names its scan in the cache, and what the policy applied to a cached
// scan reads (the path, the name and the digest). It leaves out the files,
// which the scan of a skill not in the cache reads.
func scanKey(sk *Skill) *scan.Skill {
	in := &scan.Skill{Path: sk.Path, Name: sk.Name, SkillFile: sk.RelFile, Digest: sk.Digest}
	if sk.Layout == skill.LayoutFolder {
		in.Folder = path.Base(sk.Path)
	}
	if sk.Dir != "" {
		if rel, err := filepath.Rel(sk.Source.Dir, sk.Dir); err == nil && rel != "." {
			in.DirRel = filepath.ToSlash(rel)
		}
	}
	return in
}

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
