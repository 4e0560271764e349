// Package catalog owns the immutable snapshot of every skill the service
// serves: skills by path and by name (first source wins, case-insensitive
// names), the parent relation and tree of seed 000, resolved inheritance
// (content with banners, assets and scripts), each skill's files with digests
// and MIME types, the load diagnostics, and the Store that swaps snapshots
// atomically under a generation number.
//
// It does not walk folders (package source), parse skill files (package
// skill), rank or search (package search), read file contents for callers
// (package assets), or watch for changes (package watch). A Snapshot is never
// changed after Build returns it, so it is read without locks.
package catalog

import (
	"github.com/skillsd/skillsd/services/skills/internal/confine"
	"slices"
	"sync/atomic"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/scan"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// Source describes one root of the catalog.
type Source struct {
	// Name is what users see (the folder as given, "./.claude/skills", …).
	Name string
	// Dir is the root's absolute folder.
	Dir string
	// Kind is where it comes from ("local", "git").
	Kind string
	// Trusted says whether its scripts may run.
	Trusted bool
	// Follow are the folders outside Dir that its symbolic links may lead
	// into (follow_external_symlinks); empty: none.
	Follow []string
	// ContentID identifies what the build read from the source, wherever
	// its folder is: the revision (Options.Revision) of a checkout, else
	// "sha256:" and the hex sha256 over the sorted pairs of relative path
	// and content digest of the files its skills serve; "" when the source
	// could not be read (or is the same folder as an earlier source).
	ContentID string
}

// equal reports whether s and o describe the same source, read the same way.
func (s *Source) equal(o *Source) bool {
	return s.Name == o.Name && s.Dir == o.Dir && s.Kind == o.Kind && s.Trusted == o.Trusted && slices.Equal(s.Follow, o.Follow)
}

// Tree is the source as package confine reads it: every read of a file of
// the source goes through it, under the same symlink rule as the walk.
func (s *Source) Tree() confine.Tree { return confine.Tree{Dir: s.Dir, Follow: s.Follow} }

// Skill is one skill of a snapshot. It is shared by every reader: treat it as
// read-only.
type Skill struct {
	// Path is the catalog path, unique in a snapshot: for layout A the folder
	// relative to the root ("pdf", "plugins/x/skills/pdf"; a SKILL.md at the
	// root itself gets the root folder's base name), for layout B the file
	// without .md ("ui/react/auth", "_root", "ui/_index").
	Path string
	// Name is the frontmatter name; for layout B the path; for layout A with no
	// name, the folder name.
	Name string
	// Description is the frontmatter description ("" when missing).
	Description string
	Layout      skill.Layout
	Source      *Source
	// File is the skill file's absolute path; RelFile is relative to the
	// source root, '/' separated.
	File    string
	RelFile string
	// Dir is the skill's folder (layout A) or resource folder (layout B, ""
	// when it has none), absolute.
	Dir string
	// Doc is the parsed skill file; never nil.
	Doc *skill.Document
	// Routable is false when the skill has no frontmatter, no description, or
	// disable-model-invocation: such a skill is listed and loadable, but never
	// routed (search, match, prompts).
	Routable bool
	// Parent is the nearest existing _index (then _root) up the folders, in the
	// same source; nil for a top-level skill.
	Parent *Skill
	// Files are the skill's companion files, sorted by Path.
	Files   []File
	Size    int64
	ModTime time.Time
	// LoadedAt is when the skill file was last read and parsed (a rebuild that
	// reuses an unchanged file keeps the earlier time).
	LoadedAt time.Time
	// Digest is the content digest of the skill file and its companion
	// files ("sha256:…"); empty when the build did not scan.
	Digest string
	// Security is what the security scan found and what the policy made of
	// it (the zero value when the build did not scan).
	Security scan.Verdict

	// Declared assets and scripts, validated (seed 000 §7.1), in declaration
	// order.
	assets  []skill.Asset
	scripts []skill.Script
	// parseDiags are the parser's diagnostics, kept for reuse by a rebuild.
	parseDiags []skill.Diagnostic
	// children are the skills whose Parent this is, sorted by path.
	children []*Skill
	// fileDigest is the skill file's digest; data its content, held from
	// parse to scan (when scanning).
	fileDigest string
	data       []byte
	// pending says the skill waits for its first security scan (Build with
	// Options.DeferScan), or inherits the content of a skill that does: it
	// is not served until a later build finds its scan in the cache.
	pending bool
	// pendingFrom is the path of that skill when it is an ancestor.
	pendingFrom string
	// scanKeyed says Security, less a quarantine inherited from an
	// ancestor, is the verdict the build's scanner gives for scanKey(sk):
	// its cache answered it, or the scan just made it under that key.
	scanKeyed bool
	// keptLastGood says the skill is the last good version of a skill file
	// that no longer parses (CodeKeptLastGood): the catalog cache leaves it
	// out.
	keptLastGood bool
}

// FileDigest is the digest of the skill file ("sha256:…") the build read,
// or "" when it did not hash the file: Doc is the parse of the bytes it is
// the digest of (for the last good version of a file that no longer
// parses, that version's digest).
func (s *Skill) FileDigest() string {
	if len(s.fileDigest) > len("sha256:") && s.fileDigest[:len("sha256:")] == "sha256:" {
		return s.fileDigest
	}
	return ""
}

// WithDoc returns a copy of s whose document is doc. The copy has no file
// digest (FileDigest is ""): doc is not known to be the parse of s's skill
// file.
func (s *Skill) WithDoc(doc *skill.Document) *Skill {
	c := *s
	c.Doc = doc
	c.fileDigest = ""
	return &c
}

// Inherits reports whether the skill's content, assets and scripts include
// its ancestors' (frontmatter inherit, default true).
func (s *Skill) Inherits() bool {
	return !s.Doc.HasFrontmatter || s.Doc.Frontmatter.Inherit
}

// File is one companion file of a skill.
type File struct {
	// Path is relative to the skill's folder, '/' separated.
	Path    string
	Size    int64
	ModTime time.Time
	// Digest is "sha256:" and the hex digest of the content.
	Digest string
	// MIME is the media type, without parameters (see mimeType).
	MIME string
	// Text is false for binary files.
	Text bool
}

// AssetRef is one declared asset as a skill sees it.
type AssetRef struct {
	skill.Asset
	// From is the path of the ancestor that declares it; "" for the skill's own.
	From string
	// Owner is the skill that declares it (its Dir holds the file).
	Owner *Skill
}

// ScriptRef is one declared script as a skill sees it.
type ScriptRef struct {
	skill.Script
	// From is the path of the ancestor that declares it; "" for the skill's own.
	From string
	// Owner is the skill that declares it (its Dir holds the file).
	Owner *Skill
}

// Stats counts what a snapshot holds.
type Stats struct {
	Sources int
	Skills  int
	// Routable skills are the ones search and match may return.
	Routable int
	// Folder and Tree count the skills of each layout.
	Folder, Tree int
	// Files and Bytes count the companion files of all skills (a file shared
	// by nested skills counts once).
	Files int
	Bytes int64
	// Shadowed counts skills hidden by a skill of an earlier source.
	Shadowed int
	// NotServed counts the skill files found but not served: unreadable or
	// unparsable, too large, misnamed (skill.md), a duplicate path, shadowed.
	// The diagnostics say why, file by file.
	NotServed int
	Errors    int
	Warnings  int
	// Reused counts skill files taken from the previous snapshot (or the
	// catalog cache, Options.Cache) unparsed.
	Reused int
	// Quarantined counts the skills the security policy keeps from being
	// served.
	Quarantined int
	// ScanPending counts the skills that wait for their first security scan
	// (Options.DeferScan) and are not served until it is done; they are not
	// counted in Quarantined.
	ScanPending int
	// Duration is how long Build took.
	Duration time.Duration
}

// Snapshot is an immutable catalog. All its methods are safe for concurrent
// use.
type Snapshot struct {
	gen      atomic.Uint64
	builtAt  time.Time
	sources  []*Source
	skills   []*Skill // sorted by path
	byPath   map[string]*Skill
	byName   map[string]*Skill // lower-cased name → first in precedence, then path order
	roots    []*Skill          // skills without a parent, sorted by path
	diags    []skill.Diagnostic
	stats    Stats
	srcOrder map[string]int
	// id is ID's answer, set by the build.
	id string
	// walks are the walks of the sources, by name, for the next build.
	walks map[string]*source.State
	// listings, in a snapshot read from the catalog cache, are the folder
	// listings of the last process's walks, by source name, for the first
	// walks of this one (source.Options.Listings).
	listings map[string]*source.Listings
	// scanner is the build's scanner (nil when it scanned nothing), and
	// scanEpoch its CacheEpoch before the build asked it anything.
	scanner   *scan.Scanner
	scanEpoch uint64
	// started is when the build began, by the wall clock (the catalog
	// cache leaves out files changed since shortly before).
	started time.Time
}

// Generation is the number the Store gave the snapshot (1, 2, …); 0 before it
// is swapped in.
func (s *Snapshot) Generation() uint64 { return s.gen.Load() }

// BuiltAt is when Build finished.
func (s *Snapshot) BuiltAt() time.Time { return s.builtAt }

// Skills returns every skill, sorted by path.
func (s *Snapshot) Skills() []*Skill { return slices.Clone(s.skills) }

// Len is the number of skills.
func (s *Snapshot) Len() int { return len(s.skills) }

// Get returns the skill with this exact path, or nil.
func (s *Snapshot) Get(path string) *Skill { return s.byPath[path] }

// Sources returns the sources in precedence order, including those that could
// not be read.
func (s *Snapshot) Sources() []*Source { return slices.Clone(s.sources) }

// Diagnostics returns the load diagnostics, sorted by source (precedence
// order), file, line.
func (s *Snapshot) Diagnostics() []skill.Diagnostic { return slices.Clone(s.diags) }

// NumDiagnostics is len(s.Diagnostics()), without the copy.
func (s *Snapshot) NumDiagnostics() int { return len(s.diags) }

// Stats returns the snapshot's counts.
func (s *Snapshot) Stats() Stats { return s.stats }

// Chain returns sk's ancestors and sk, root first (seed 000 §6.1), whatever
// sk's inherit setting.
func (s *Snapshot) Chain(sk *Skill) []*Skill {
	var chain []*Skill
	for c := sk; c != nil; c = c.Parent {
		chain = append(chain, c)
	}
	slices.Reverse(chain)
	return chain
}

// Folders are the folders the build read of the source named src (see
// source.State.Folders): nil when the walk cannot tell them all, when src is
// not a source of s, or for a nil s.
func (s *Snapshot) Folders(src string) []string {
	if s == nil {
		return nil
	}
	return s.walks[src].Folders()
}
