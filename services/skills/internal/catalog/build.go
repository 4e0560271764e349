package catalog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/skillsd/skillsd/services/skills/internal/confine"
	"io/fs"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/scan"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// Diagnostic codes produced by Build (package source and package skill add
// their own).
const (
	CodeSourceMissing      = "source-missing"
	CodeSourceUnreadable   = "source-unreadable"
	CodeSourceDuplicate    = "source-duplicate"
	CodeShadowed           = "shadowed"
	CodePathDuplicate      = "path-duplicate"
	CodeNameDuplicate      = "name-duplicate"
	CodeNameMissing        = "name-missing"
	CodeNameMismatch       = "name-mismatch"
	CodeNameInvalid        = "name-invalid"
	CodeNotRoutable        = "not-routable"
	CodeResourceDirMissing = "resource-dir-missing"
	CodeDeclaredPath       = "declared-path-invalid"
	CodeDeclaredMissing    = "declared-file-missing"
	CodeFileUnreadable     = source.CodeFileUnreadable
	CodeSkillUnreadable    = "skill-unreadable"
	// CodeKeptLastGood: a skill file that no longer parses is served as it
	// was before the edit.
	CodeKeptLastGood = "kept-last-good"
)

// Options configure Build. The zero value is ready to use.
type Options struct {
	// Logger receives a debug line per build; nil discards.
	Logger *slog.Logger
	// Limits bound the walk of each root (zero fields mean package source's
	// defaults).
	Limits source.Limits
	// Now is the clock (LoadedAt, BuiltAt); nil means time.Now.
	Now func() time.Time
	// Workers is how many goroutines parse skill files and hash companion
	// files; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// Previous, when set, is the snapshot this build replaces: skill files and
	// companion files whose size and modification time did not change are
	// taken from it instead of being parsed and hashed again.
	Previous *Snapshot
	// Scan, when set, scans every skill before it is served (package scan)
	// and applies its policy: findings become diagnostics, and a skill the
	// policy quarantines is marked so (Skill.Quarantined). Nil scans nothing.
	Scan *scan.Scanner
	// Dirty, with Previous, lists the absolute paths that changed since
	// Previous was built (as a file watcher reports them): folders that
	// neither are nor hold one are taken from Previous's walk unread. Nil
	// means anything may have changed: every folder is read.
	Dirty []string
	// DeferScan, with Scan, keeps a large first scan off the build: skills
	// the scanner has a result for are answered from its cache, and skills
	// that Previous served are scanned whatever their number (an edit never
	// hides a skill); the other skills are scanned too when there are at
	// most DeferScanSkills of them holding at most DeferScanBytes, and are
	// otherwise left pending (Skill.ScanPending): not served, like a
	// quarantined skill, until ScanPending has scanned them and a later
	// build answers them from the cache. False scans every skill in Build.
	DeferScan bool
	// Cache, when set and Previous is nil, is the catalog cache of an
	// earlier process: skill files and companion files whose path, size and
	// modification time did not change (and, for a skill file, its source
	// and layout) are taken from it instead of being parsed and hashed
	// again. A skill file that no longer parses is not served at the
	// version the cache holds (CodeKeptLastGood applies within a process
	// only). A missing, foreign or damaged cache is ignored. Build does not
	// write it (Cache.Keep does).
	Cache *Cache
	// Revision, when set, says which version of a repository a source's
	// folder is a checkout of (a git commit), by source name; "" for a
	// folder that is not one. A source whose revision is the same before
	// its walk and after the build is identified by it (Source.ContentID);
	// any other by a digest of its files. Nil: every source by its files.
	Revision func(source string) string
}

// What a deferred build (Options.DeferScan) still scans itself: skills new to
// the scanner, when there are at most DeferScanSkills of them and their skill
// files and text companion files hold at most DeferScanBytes (each file
// counted up to scan.DefaultMaxFileBytes). That bounds the scan in a build to
// a few tens of milliseconds of CPU (about 3 ms per skill of the benchmark
// corpus).
const (
	DeferScanSkills = 16
	DeferScanBytes  = 1 << 20
)

// Build walks roots in precedence order and returns the snapshot of their
// skills. It fails only when ctx is done: a root that is missing or unreadable
// is a diagnostic (so a server still starts with an empty catalog), and so is
// every problem with a skill.
//
// Precedence: of two skills with the same path, or the same name
// (case-insensitively), in different sources, the first source's wins and the
// other is left out with a "shadowed" diagnostic; two skills of one source
// with the same name are both kept (the name refers to the first in path
// order) with a "name-duplicate" diagnostic. Parents (seed 000 §4.4) are
// resolved within each source, among the skills kept.
func Build(ctx context.Context, roots []*source.Root, opts Options) (*Snapshot, error) {
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	start, clock := now(), time.Now()
	// The maps sized for as many skills as the previous catalog: a build
	// after an edit does not grow them step by step.
	size := 0
	if opts.Previous != nil {
		size = len(opts.Previous.skills)
	}
	b := &builder{
		snap: &Snapshot{
			skills:   make([]*Skill, 0, size),
			byPath:   make(map[string]*Skill, size),
			byName:   make(map[string]*Skill, size),
			srcOrder: map[string]int{},
			walks:    map[string]*source.State{},
			started:  clock,
		},
		now:         start,
		scanning:    opts.Scan != nil,
		incremental: opts.Previous != nil && opts.Dirty != nil,
	}

	// What the build may take unparsed and unhashed: the previous snapshot,
	// else the catalog cache.
	held, lastGood := opts.Previous, true
	if held == nil && opts.Cache != nil {
		held, lastGood = opts.Cache.load(), false
	}

	// 1. Walk the roots.
	seenRoots := map[string]string{}
	revs := map[string]string{}
	for _, r := range roots {
		if r == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		src := &Source{Name: r.Name, Dir: r.Dir, Kind: r.Kind, Trusted: r.Trusted, Follow: r.Follow}
		b.snap.sources = append(b.snap.sources, src)
		if _, ok := b.snap.srcOrder[src.Name]; !ok {
			b.snap.srcOrder[src.Name] = len(b.snap.srcOrder)
		}
		if real, err := filepath.EvalSymlinks(r.Dir); err == nil {
			if first, dup := seenRoots[real]; dup {
				b.diag(src.Name, "", skill.SeverityInfo, CodeSourceDuplicate,
					"source %s is the same folder as source %s: read once", src.Name, first)
				continue
			}
			seenRoots[real] = src.Name
		}
		if opts.Revision != nil {
			revs[src.Name] = opts.Revision(src.Name)
		}
		wopts := source.Options{Known: knownIn(held, src.Name), Dirty: opts.Dirty}
		if held != nil && opts.Previous == nil {
			wopts.Listings = held.listings[src.Name] // read from the cache
		}
		if opts.Previous != nil {
			wopts.Previous = opts.Previous.walks[src.Name]
		}
		entries, diags, state, err := source.WalkWith(ctx, r, opts.Limits, wopts)
		b.snap.walks[src.Name] = state
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if errors.Is(err, fs.ErrNotExist) {
				b.diag(src.Name, "", skill.SeverityWarning, CodeSourceMissing,
					"source %s does not exist (%s): it holds no skills until it is created", src.Name, r.Dir)
			} else {
				b.diag(src.Name, "", skill.SeverityError, CodeSourceUnreadable,
					"source %s cannot be read: %v", src.Name, err)
			}
			continue
		}
		b.diags = append(b.diags, diags...)
		b.walks = append(b.walks, walked{src: src, entries: entries})
	}

	// 2. Parse the SKILL.md files and hash the companion files, in parallel.
	if err := b.load(ctx, workers, held, lastGood); err != nil {
		return nil, err
	}

	// 3. Assemble: paths, names, precedence, parents.
	for i := range b.walks {
		b.assemble(&b.walks[i])
	}
	// 4. Scan every skill before it is served.
	if opts.Scan != nil {
		var prev *Snapshot
		if opts.DeferScan {
			prev = opts.Previous
		}
		if err := b.scanSkills(ctx, workers, opts.Scan, opts.DeferScan, prev); err != nil {
			return nil, err
		}
	}
	b.finish()
	b.identify(opts.Revision, revs, opts.Scan)
	s := b.snap
	s.builtAt = now()
	s.stats.Duration = time.Since(clock)
	log.Debug("catalog built", "sources", s.stats.Sources, "skills", s.stats.Skills,
		"files", s.stats.Files, "reused", s.stats.Reused, "errors", s.stats.Errors,
		"warnings", s.stats.Warnings, "duration", s.stats.Duration)
	return s, nil
}

type builder struct {
	snap  *Snapshot
	now   time.Time
	walks []walked
	diags []skill.Diagnostic
	// files are the companion files by absolute path, hashed once each;
	// slab is where newHashed takes them from.
	files map[string]*hashed
	slab  []hashed
	// held is the snapshot the build takes unchanged files from (the
	// previous one, or the catalog cache's; see heldSkill), and heldByFile
	// its skills by skill file when it has no index by path (the catalog
	// cache's). With keepGood, a skill file of held broken by an edit keeps
	// its last valid version (held is the previous snapshot).
	held       *Snapshot
	heldByFile map[string]*Skill
	keepGood   bool
	// scanning says the skills are scanned: skill files' content is kept
	// until the scan when keepData says so.
	scanning bool
	// incremental says the build was told which paths changed since
	// Previous (Options.Dirty): what did not change may be taken from
	// Previous whole (see heldVerdict).
	incremental bool
	// keepData says the build parses few skill files (DeferScanSkills at
	// most), and keeps their content for the scan. A build that parses
	// more (a first start parses every file, and defers their scan anyway)
	// drops each file's bytes once parsed and hashed, instead of holding
	// them all beside the parsed documents: the scan reads each file again,
	// one skill at a time.
	keepData bool
}

// walked is one root's walk and what the load phase made of its entries.
type walked struct {
	src     *Source
	entries []source.Entry
	loaded  []loaded // by entry index
	// paths are the entries' catalog paths (entryPath), by entry index.
	paths []string
}

type loaded struct {
	doc      *skill.Document
	diags    []skill.Diagnostic
	loadedAt time.Time
	reused   bool
	// digest is the skill file's digest.
	digest string
	// held says files are what companions gives the entry: the companion
	// files of the skill's previous version prev, shared with it.
	held  bool
	files []File
	// prev is the previous version whose skill file was reused.
	prev *Skill
}

// heldSkill returns the skill of b.held whose skill file is file and whose
// catalog path is p (see entryPath), nil when there is none.
func (b *builder) heldSkill(file, p string) *Skill {
	switch {
	case b.held == nil:
		return nil
	case b.heldByFile != nil:
		return b.heldByFile[file]
	}
	if sk := b.held.byPath[p]; sk != nil && sk.File == file {
		return sk
	}
	return nil
}

// entryPath is the catalog path of the skill of entry e of source src (see
// Skill.Path).
func entryPath(src *Source, e *source.Entry) string {
	if e.Layout == skill.LayoutTree {
		return strings.TrimSuffix(e.RelFile, ".md")
	}
	if folder := path.Dir(e.RelFile); folder != "." {
		return folder
	}
	return filepath.Base(src.Dir)
}

// inDir reports whether abs is the file at rel ('/' separated) in the
// folder dir, as Skill.companion finds it.
func inDir(abs, dir, rel string) bool {
	rest, ok := strings.CutPrefix(abs, dir)
	return ok && dir != "" && rest != "" && os.IsPathSeparator(rest[0]) && filepath.ToSlash(rest[1:]) == rel
}

// sameFile reports whether the companion file made of h under the path rel
// (see companions) is f: every field the same, and h hashed without error.
func sameFile(h *hashed, rel string, f File) bool {
	return h.done && h.err == nil && rel == f.Path && h.file.Size == f.Size && h.file.ModTime.Equal(f.ModTime) &&
		h.file.Digest == f.Digest && h.file.MIME == f.MIME && h.file.Text == f.Text
}

type hashed struct {
	// abs names the file (through the root); real is where it is read.
	abs, real, name string
	size            int64
	modTime         time.Time
	file            File
	err             error
	done            bool
	// src names the file's source in a diagnostic, srcDir is its folder
	// (rel gives the file's name there).
	src, srcDir string
}

// newHashed returns a zero hashed from the builder's slab: the files of a
// build are one allocation, not one each.
func (b *builder) newHashed() *hashed {
	if len(b.slab) == cap(b.slab) {
		return &hashed{}
	}
	b.slab = b.slab[:len(b.slab)+1]
	return &b.slab[len(b.slab)-1]
}

// rel is the file's path relative to its source, for a diagnostic ("" when
// it has none).
func (h *hashed) rel() string {
	if rel, err := filepath.Rel(h.srcDir, h.abs); err == nil {
		return filepath.ToSlash(rel)
	}
	return ""
}

func (b *builder) diag(src, file string, sev skill.Severity, code, format string, args ...any) {
	b.diagAt(src, file, 0, sev, code, format, args...)
}

func (b *builder) diagAt(src, file string, line int, sev skill.Severity, code, format string, args ...any) {
	b.diags = append(b.diags, skill.Diagnostic{
		Source: src, File: file, Line: line, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...),
	})
}

// load parses the layout-A skill files and hashes every companion file once,
// reusing what prev already holds for unchanged files. With lastGood, a
// skill file of prev that no longer parses is served at prev's version.
func (b *builder) load(ctx context.Context, workers int, prev *Snapshot, lastGood bool) error {
	b.held, b.keepGood = prev, lastGood
	if prev != nil && prev.byPath == nil {
		b.heldByFile = make(map[string]*Skill, len(prev.skills))
		for _, sk := range prev.skills {
			b.heldByFile[sk.File] = sk
		}
	}

	type parseJob struct {
		w *walked
		i int
	}
	var parses []parseJob
	var hashes []*hashed
	files := 0 // at most: a nested skill's files are its parents' too
	for i := range b.walks {
		for j := range b.walks[i].entries {
			files += len(b.walks[i].entries[j].Files)
		}
	}
	b.files = make(map[string]*hashed, files)
	b.slab = make([]hashed, 0, files)
	for wi := range b.walks {
		w := &b.walks[wi]
		w.loaded = make([]loaded, len(w.entries))
		w.paths = make([]string, len(w.entries))
		for i := range w.entries {
			e := &w.entries[i]
			w.paths[i] = entryPath(w.src, e)
			prevSkill := b.heldSkill(e.AbsFile, w.paths[i])
			// held: the files of prevSkill are the ones companions will
			// give e, checked file by file below.
			var held []File
			if p := prevSkill; p != nil && p.Size == e.Size && p.ModTime.Equal(e.ModTime) &&
				p.Layout == e.Layout && p.Source.Name == w.src.Name && p.RelFile == e.RelFile {
				w.loaded[i] = loaded{doc: p.Doc, diags: p.parseDiags, loadedAt: p.LoadedAt, reused: true, digest: p.fileDigest, prev: p}
				if b.incremental && !p.keptLastGood && p.Dir == e.Dir && len(p.Files) == len(e.Files) {
					held = p.Files
				}
			} else if e.Doc != nil {
				w.loaded[i] = loaded{doc: e.Doc, diags: e.Diagnostics, loadedAt: b.now}
				if e.Data != nil {
					w.loaded[i].digest = fileDigest(e.Data)
				}
			} else if e.Data == nil {
				// The walk skipped a file it was told is held; it is not (the
				// two checks disagree): read it now.
				data, err := confine.ReadResolved(e.AbsFile, e.Size)
				if err != nil {
					w.loaded[i] = loaded{diags: []skill.Diagnostic{{Source: w.src.Name, File: e.RelFile, Severity: skill.SeverityError,
						Code: CodeFileUnreadable, Message: fmt.Sprintf("cannot read %s: %v", e.RelFile, errText(err))}}}
					continue
				}
				e.Data = data
				parses = append(parses, parseJob{w, i})
			} else {
				parses = append(parses, parseJob{w, i})
			}
			for k, f := range e.Files {
				h := b.files[f.Abs]
				if h == nil {
					h = b.newHashed()
					*h = hashed{abs: f.Abs, real: cmp.Or(f.Real, f.Abs), name: path.Base(f.Path), size: f.Size, modTime: f.ModTime, src: w.src.Name, srcDir: w.src.Dir}
					b.files[f.Abs] = h
					if held != nil && held[k].Path == f.Path && held[k].Size == f.Size && held[k].ModTime.Equal(f.ModTime) && inDir(f.Abs, e.Dir, f.Path) {
						// What prev.file finds: prevSkill's file at f.Path.
						h.file, h.done = held[k], true
					} else if pf, ok := prev.file(prevSkill, w.src.Name, w.src.Dir, f.Abs); ok && pf.Size == f.Size && pf.ModTime.Equal(f.ModTime) {
						h.file, h.done = pf, true
					} else {
						hashes = append(hashes, h)
					}
				}
				if held != nil && !sameFile(h, f.Path, held[k]) {
					held = nil
				}
			}
			if held != nil {
				w.loaded[i].files, w.loaded[i].held = held, true
			}
		}
	}
	parsed := len(parses)
	for wi := range b.walks {
		for _, e := range b.walks[wi].entries {
			if e.Doc != nil && e.Data != nil {
				parsed++ // parsed by the walk
			}
		}
	}
	b.keepData = b.scanning && parsed <= DeferScanSkills
	if !b.keepData {
		for wi := range b.walks {
			for i := range b.walks[wi].entries {
				if e := &b.walks[wi].entries[i]; e.Doc != nil {
					e.Data = nil // hashed above
				}
			}
		}
	}
	// Big files first, so that one large file does not finish last alone.
	slices.SortStableFunc(hashes, func(a, b *hashed) int { return cmp.Compare(b.size, a.size) })

	total := len(parses) + len(hashes)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, max(total, 1)) {
		wg.Go(func() {
			buf := make([]byte, hashBufSize)
			for {
				if ctx.Err() != nil {
					return
				}
				n := int(next.Add(1)) - 1
				if n >= total {
					return
				}
				if n < len(parses) {
					j := parses[n]
					e := &j.w.entries[j.i]
					doc, diags := skill.Parse(e.RelFile, e.Data)
					j.w.loaded[j.i] = loaded{doc: doc, diags: fillDiags(diags, j.w.src.Name, e.RelFile), loadedAt: b.now}
					j.w.loaded[j.i].digest = fileDigest(e.Data)
					if !b.keepData {
						e.Data = nil
					}
					continue
				}
				h := hashes[n-len(parses)]
				f, err := hashFile(h.real, h.name, buf)
				f.ModTime = h.modTime
				h.file, h.err, h.done = f, err, true
			}
		})
	}
	wg.Wait()
	return ctx.Err()
}

// knownIn is the source.Known of prev's files of one source: the layout-A
// skill files that load will reuse unparsed (the same test as load's), and
// the companion files it will reuse unhashed. A file is looked up among the
// files of the skills of prev whose folders hold it (prev.holder), not in a
// map of every file: a build after an edit asks about a few files only.
func knownIn(prev *Snapshot, src string) source.Known {
	if prev == nil {
		return nil
	}
	var dir string
	for _, s := range prev.sources {
		if s.Name == src {
			dir = s.Dir
			break
		}
	}
	if dir == "" || prev.byPath == nil {
		// A snapshot read from the catalog cache (the first build of a
		// start) holds its skills, not its sources or its index by path.
		return knownInSkills(prev, src)
	}
	return func(abs string, size int64, mod time.Time) bool {
		f, ok := prev.holder(src, dir, abs, true)
		return ok && f.Size == size && f.ModTime.Equal(mod)
	}
}

// knownInSkills is knownIn for a snapshot that holds only its skills: the
// layout-A skill files of source src by path, and its skills by folder,
// among whose companion files a file is looked up in the folders that hold
// it, nearest first. A map of every file by path took a string and an
// entry per file (25,000 at 3,000 skills), in front of the walk; the walk
// asks about its skill files and its small files only (454 of 2,715 at 387
// skills).
func knownInSkills(prev *Snapshot, src string) source.Known {
	skillFiles := make(map[string]*Skill, len(prev.skills))
	byDir := make(map[string][]*Skill, len(prev.skills))
	for _, sk := range prev.skills {
		if sk.Source == nil || sk.Source.Name != src {
			continue
		}
		if sk.Layout == skill.LayoutFolder {
			skillFiles[sk.File] = sk
		}
		if sk.Dir != "" && len(sk.Files) > 0 {
			byDir[sk.Dir] = append(byDir[sk.Dir], sk)
		}
	}
	return func(abs string, size int64, mod time.Time) bool {
		if sk := skillFiles[abs]; sk != nil && sk.Size == size && sk.ModTime.Equal(mod) {
			return true
		}
		for dir := filepath.Dir(abs); ; {
			for _, sk := range byDir[dir] {
				if f, ok := sk.companion(abs); ok {
					return f.Size == size && f.ModTime.Equal(mod)
				}
			}
			up := filepath.Dir(dir)
			if up == dir {
				return false
			}
			dir = up
		}
	}
}

// holder finds the file abs of source src (whose folder is dir) among the
// skills of s: a companion file of a skill whose folder holds it, or with
// skillFiles a layout-A skill file too (then only the Size and ModTime of
// the File it returns are set).
func (s *Snapshot) holder(src, dir, abs string, skillFiles bool) (File, bool) {
	rel, ok := strings.CutPrefix(abs, dir)
	if !ok || rel == "" || !os.IsPathSeparator(rel[0]) || dir == "" {
		return File{}, false
	}
	rel = filepath.ToSlash(rel[1:])
	// The skills whose catalog path is a folder holding abs, nearest
	// first; the root's own skill has the root folder's name as its path.
	for p := path.Dir(rel); ; p = path.Dir(p) {
		key := p
		if p == "." {
			key = filepath.Base(dir)
		}
		if sk := s.byPath[key]; sk != nil && sk.Source.Name == src {
			if skillFiles && sk.Layout == skill.LayoutFolder && sk.File == abs {
				return File{Size: sk.Size, ModTime: sk.ModTime}, true
			}
			if f, ok := sk.companion(abs); ok {
				return f, true
			}
		}
		if p == "." {
			return File{}, false
		}
	}
}

// companion returns the companion file of sk at abs, if it has one.
func (sk *Skill) companion(abs string) (File, bool) {
	if sk.Dir == "" {
		return File{}, false
	}
	rel, ok := strings.CutPrefix(abs, sk.Dir)
	if !ok || rel == "" || !os.IsPathSeparator(rel[0]) {
		return File{}, false
	}
	rel = filepath.ToSlash(rel[1:])
	// Files are in path order; a cache may hold them otherwise.
	if i, ok := slices.BinarySearchFunc(sk.Files, rel, func(f File, p string) int { return strings.Compare(f.Path, p) }); ok {
		return sk.Files[i], true
	}
	for _, f := range sk.Files {
		if f.Path == rel {
			return f, true
		}
	}
	return File{}, false
}

// file returns prev's companion file at abs, of the source src whose folder
// is dir: from owner (the previous version of the skill being loaded) when
// it has it, else from a skill of prev whose folder holds it. A file found
// nowhere is hashed again, which gives the same File when it did not
// change: finding it only saves the hashing.
func (prev *Snapshot) file(owner *Skill, src, dir, abs string) (File, bool) {
	if prev == nil {
		return File{}, false
	}
	if owner != nil {
		if f, ok := owner.companion(abs); ok {
			return f, true
		}
	}
	return prev.holder(src, dir, abs, false)
}

func fillDiags(ds []skill.Diagnostic, src, rel string) []skill.Diagnostic {
	for i := range ds {
		ds[i].Source = src
		if ds[i].File == "" {
			ds[i].File = rel
		}
	}
	return ds
}

// assemble turns one source's entries into skills and adds those that no
// earlier source shadows.
func (b *builder) assemble(w *walked) {
	drafts := make([]*Skill, 0, len(w.entries))
	for i := range w.entries {
		e := &w.entries[i]
		l := w.loaded[i]
		b.diags = append(b.diags, l.diags...)
		if p := b.lastGood(w.src, e, w.paths[i], l); p != nil {
			// An edit broke a skill that was served: keep serving its last
			// valid version, with the parser's diagnostics and this warning,
			// until the file parses again. The old size and time make the next
			// build parse the file again rather than reuse this version.
			b.diag(w.src.Name, e.RelFile, skill.SeverityWarning, CodeKeptLastGood,
				"%s no longer parses: serving its last valid version (loaded %s) until it is fixed",
				e.RelFile, p.LoadedAt.UTC().Format(time.RFC3339))
			kept := *e
			kept.Size, kept.ModTime = p.Size, p.ModTime
			kept.Data = nil // the version served is the previous one
			sk := b.newSkill(w.src, &kept, w.paths[i], loaded{doc: p.Doc, loadedAt: p.LoadedAt, digest: p.fileDigest})
			sk.keptLastGood = true
			drafts = append(drafts, sk)
			continue
		}
		if l.doc == nil {
			b.snap.stats.NotServed++
			if !hasError(l.diags) {
				b.diag(w.src.Name, e.RelFile, skill.SeverityError, CodeSkillUnreadable, "%s cannot be read as a skill: skipped", e.RelFile)
			}
			continue
		}
		if l.reused {
			b.snap.stats.Reused++
		}
		drafts = append(drafts, b.newSkill(w.src, e, w.paths[i], l))
	}
	slices.SortStableFunc(drafts, func(a, c *Skill) int {
		return cmp.Or(strings.Compare(a.Path, c.Path), strings.Compare(a.RelFile, c.RelFile))
	})

	// The skills kept of this source are those of byPath whose Source is
	// w.src.
	order := make([]*Skill, 0, len(drafts))
	for _, sk := range drafts {
		if win := b.snap.byPath[sk.Path]; win != nil {
			if win.Source == w.src {
				b.snap.stats.NotServed++
				b.diag(w.src.Name, sk.RelFile, skill.SeverityWarning, CodePathDuplicate,
					"%s is not loaded: its catalog path %q is already %s's", sk.RelFile, sk.Path, win.RelFile)
				continue
			}
			b.shadow(sk, win, "path")
			continue
		}
		key := strings.ToLower(sk.Name)
		if win := b.snap.byName[key]; win != nil {
			if win.Source != sk.Source {
				b.shadow(sk, win, "name")
				continue
			}
			b.diag(w.src.Name, sk.RelFile, skill.SeverityWarning, CodeNameDuplicate,
				"%s has the same name %q as %s; the name refers to %s (first in path order), use the path %q for this one",
				sk.RelFile, sk.Name, win.RelFile, win.Path, sk.Path)
		} else {
			b.snap.byName[key] = sk
		}
		b.snap.byPath[sk.Path] = sk
		order = append(order, sk)
	}

	// Parents, within the source, among the skills kept.
	for _, sk := range order {
		for p := deriveParent(sk.Path); p != ""; p = deriveParent(p) {
			if par := b.snap.byPath[p]; par != nil && par.Source == w.src && par != sk {
				sk.Parent = par
				break
			}
		}
	}
	b.snap.skills = append(b.snap.skills, order...)
}

func (b *builder) shadow(loser, winner *Skill, by string) {
	b.snap.stats.Shadowed++
	b.snap.stats.NotServed++
	b.diag(loser.Source.Name, loser.RelFile, skill.SeverityWarning, CodeShadowed,
		"%s (%q) is shadowed by %s of source %s, which has the same %s and comes first",
		loser.RelFile, loser.Name, winner.RelFile, winner.Source.Name, by)
}

// lastGood returns the previous version of e's skill (at catalog path
// catPath) when an edit made it unusable (the file no longer parses, or its
// frontmatter no longer does), nil otherwise.
func (b *builder) lastGood(src *Source, e *source.Entry, catPath string, l loaded) *Skill {
	if l.reused || !b.keepGood {
		return nil
	}
	p := b.heldSkill(e.AbsFile, catPath)
	if p == nil || p.Layout != e.Layout || p.Source.Name != src.Name || !p.Doc.HasFrontmatter {
		return nil
	}
	if l.doc != nil && l.doc.HasFrontmatter {
		return nil
	}
	return p
}

// newSkill makes the skill of one entry, at catalog path catPath
// (entryPath), and reports what is off with it.
func (b *builder) newSkill(src *Source, e *source.Entry, catPath string, l loaded) *Skill {
	fm := &l.doc.Frontmatter
	sk := &Skill{
		Description: strings.TrimSpace(fm.Description),
		Layout:      e.Layout,
		Source:      src,
		File:        e.AbsFile,
		RelFile:     e.RelFile,
		Dir:         e.Dir,
		Doc:         l.doc,
		Size:        e.Size,
		ModTime:     e.ModTime,
		LoadedAt:    l.loadedAt,
		parseDiags:  l.diags,
		fileDigest:  l.digest,
	}
	if b.scanning {
		sk.data = e.Data
	}
	sk.Path = catPath
	if e.Layout == skill.LayoutTree {
		sk.Name = sk.Path
	} else {
		sk.Name = strings.TrimSpace(fm.Name)
		b.checkFolderSkill(sk, path.Base(sk.Path), l.doc)
	}
	sk.Routable = l.doc.HasFrontmatter && sk.Description != "" && !fm.DisableModelInvocation
	if l.held {
		sk.Files = l.files
		if b.scanning && l.prev.Digest != "" && l.prev.fileDigest != "" {
			// heldDigest's answer: the same skill file and files.
			sk.Digest = l.prev.Digest
		}
	} else {
		sk.Files = b.companions(e)
	}
	b.declared(sk, fm)
	return sk
}

// checkFolderSkill names a layout-A skill and reports a missing description or
// a name that breaks the rules; the skill is loaded either way.
func (b *builder) checkFolderSkill(sk *Skill, folder string, doc *skill.Document) {
	src := sk.Source.Name
	if !doc.HasFrontmatter {
		// The parser already warned about the frontmatter itself.
		sk.Name = folder
		b.diag(src, sk.RelFile, skill.SeverityInfo, CodeNotRoutable,
			"%s has no usable frontmatter: it is listed and loadable as %q, but never routed (search, match)", sk.RelFile, folder)
		return
	}
	line := func(key string) int { return doc.Frontmatter.KeyLines[key] }
	if sk.Description == "" {
		b.diagAt(src, sk.RelFile, line("description"), skill.SeverityWarning, CodeNotRoutable,
			"%s has no description: it is listed and loadable, but never routed (search, match)", sk.RelFile)
	}
	if sk.Name == "" {
		sk.Name = folder
		b.diagAt(src, sk.RelFile, line("name"), skill.SeverityWarning, CodeNameMissing,
			"%s has no name: it is loaded as %q, its folder's name", sk.RelFile, folder)
		return
	}
	if sk.Name != folder {
		b.diagAt(src, sk.RelFile, line("name"), skill.SeverityWarning, CodeNameMismatch,
			"name %q does not match the skill's folder %q (the Agent Skills spec asks for the same)", sk.Name, folder)
	}
	if probs := skill.ValidateName(sk.Name); len(probs) > 0 {
		b.diagAt(src, sk.RelFile, line("name"), skill.SeverityWarning, CodeNameInvalid,
			"name %q breaks the Agent Skills naming rules: %s", sk.Name, strings.Join(probs, "; "))
	}
}

// companions returns the hashed files of an entry, leaving out (with a
// diagnostic, once) those that cannot be read.
func (b *builder) companions(e *source.Entry) []File {
	out := make([]File, 0, len(e.Files))
	for _, f := range e.Files {
		h := b.files[f.Abs]
		if h == nil || !h.done {
			continue
		}
		if h.err != nil {
			if h.src != "" { // report once
				rel := h.rel()
				b.diag(h.src, rel, skill.SeverityError, CodeFileUnreadable, "cannot read %s: %v", rel, errText(h.err))
				h.src = ""
			}
			continue
		}
		file := h.file
		file.Path = f.Path
		out = append(out, file)
	}
	return out
}

// declared keeps the assets and scripts a skill declares that it can serve
// (seed 000 §7.1): none when a layout-B skill has no resource folder, and none
// whose path leaves the folder. A declared file that is not there is kept (it
// fails when read) with a warning.
func (b *builder) declared(sk *Skill, fm *skill.Frontmatter) {
	n := len(fm.Assets) + len(fm.Scripts)
	if n == 0 {
		return
	}
	src := sk.Source.Name
	if sk.Dir == "" {
		b.diag(src, sk.RelFile, skill.SeverityWarning, CodeResourceDirMissing,
			"%s declares %d assets and scripts, but its resource folder %s/ does not exist: they are ignored", sk.RelFile, n, sk.Path)
		return
	}
	have := make(map[string]bool, len(sk.Files))
	for _, f := range sk.Files {
		have[f.Path] = true
	}
	check := func(kind, file string) (string, bool) {
		clean, ok := cleanDeclared(file)
		if !ok {
			b.diag(src, sk.RelFile, skill.SeverityWarning, CodeDeclaredPath,
				"%s %q is ignored: a declared path must stay inside the skill's folder (relative, no \"..\", \"/\" separators)", kind, file)
			return "", false
		}
		if !have[clean] {
			b.diag(src, sk.RelFile, skill.SeverityWarning, CodeDeclaredMissing,
				"%s %q is declared but is not among the skill's files", kind, clean)
		}
		return clean, true
	}
	for _, a := range fm.Assets {
		if clean, ok := check("asset", a.File); ok {
			a.File = clean
			sk.assets = append(sk.assets, a)
		}
	}
	for _, sc := range fm.Scripts {
		if clean, ok := check("script", sc.File); ok {
			sc.File = clean
			sk.scripts = append(sk.scripts, sc)
		}
	}
}

// cleanDeclared validates a declared asset or script path and cleans it
// ("./a//b" → "a/b").
func cleanDeclared(p string) (string, bool) {
	if p == "" || strings.ContainsAny(p, "\\\x00") || strings.HasPrefix(p, "/") || filepath.IsAbs(p) ||
		(len(p) >= 2 && p[1] == ':') {
		return "", false
	}
	c := path.Clean(p)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return "", false
	}
	return c, true
}

// finish sorts and indexes the snapshot.
func (b *builder) finish() {
	s := b.snap
	slices.SortFunc(s.skills, func(a, c *Skill) int { return strings.Compare(a.Path, c.Path) })
	for _, sk := range s.skills {
		if sk.Parent == nil {
			s.roots = append(s.roots, sk)
		} else {
			sk.Parent.children = append(sk.Parent.children, sk)
		}
	}
	slices.SortStableFunc(b.diags, func(x, y skill.Diagnostic) int {
		return cmp.Or(
			cmp.Compare(s.srcRank(x.Source), s.srcRank(y.Source)),
			strings.Compare(x.File, y.File),
			cmp.Compare(x.Line, y.Line),
			strings.Compare(x.Code, y.Code),
			strings.Compare(x.Message, y.Message),
		)
	})
	s.diags = b.diags
	st := &s.stats
	st.Sources = len(s.sources)
	st.Skills = len(s.skills)
	for _, sk := range s.skills {
		if sk.Routable {
			st.Routable++
		}
		if sk.Layout == skill.LayoutTree {
			st.Tree++
		} else {
			st.Folder++
		}
	}
	count := func(h *hashed) {
		if h.done && h.err == nil {
			st.Files++
			st.Bytes += h.file.Size
		}
	}
	if len(b.slab) == len(b.files) {
		// Every file is in the slab (newHashed): read them in order.
		for i := range b.slab {
			count(&b.slab[i])
		}
	} else {
		for _, h := range b.files {
			count(h)
		}
	}
	walkRejects := map[[2]string]bool{}
	for i := range s.diags {
		d := &s.diags[i]
		// One table decides every code's severity (skill.SeverityFor); a
		// code it does not know keeps the severity it was made with.
		if sev, ok := skill.SeverityFor(d.Code); ok {
			d.Severity = sev
		}
		switch d.Code {
		case source.CodeSkillFileTooLarge, source.CodeSkillFileName, source.CodeTreeSkillInvalid, source.CodeLimitSkillFiles:
			walkRejects[[2]string{d.Source, d.File}] = true
		}
		switch d.Severity {
		case skill.SeverityError:
			st.Errors++
		case skill.SeverityWarning:
			st.Warnings++
		}
	}
	st.NotServed += len(walkRejects)
}

// srcRank orders diagnostics by source precedence (unknown sources first).
func (s *Snapshot) srcRank(name string) int {
	if i, ok := s.srcOrder[name]; ok {
		return i + 1
	}
	return 0
}

func hasError(ds []skill.Diagnostic) bool {
	for _, d := range ds {
		if d.Severity == skill.SeverityError {
			return true
		}
	}
	return false
}

// errText is an error's text without the absolute path the os package puts in
// it (diagnostics name files relative to the root).
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}
