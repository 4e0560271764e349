package source

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/skillsd/skillsd/services/skills/internal/confine"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

// skillFileName is the exact name of a layout-A skill file.
const skillFileName = "SKILL.md"

// spawnDepth is the deepest folder level handed to another goroutine: deeper
// folders are small, and walking them inline costs less than a hand-off.
const spawnDepth = 2

// handOff says whether subfolder i of a folder's n, at depth, may be walked
// by another goroutine (when one is spare). The last one never is: handed
// off, it would leave this goroutine with nothing to do but wait, holding
// the spare token the folders below could have used — a root holding one
// folder (a repository's skills/) was walked on one goroutine, 17.5 ms for
// 387 skills where two took 14 (WalkWith, wall time; CPU about the same).
func handOff(i, n, depth int) bool { return depth <= spawnDepth && i < n-1 }

// stubMaxSize bounds the size of a file that may be a Windows symlink stub.
const stubMaxSize = 256

// Walk walks root and returns its skill files, sorted by RelFile, and the
// diagnostics of the walk, sorted by file (skipped links, unreadable folders,
// limits, files that look like broken skills; the parser's diagnostics for an
// entry are in Entry.Diagnostics, not repeated here).
//
// It returns an error only when the root itself cannot be read (a missing root
// wraps fs.ErrNotExist) or ctx is done; everything below the root that cannot
// be read becomes a diagnostic and the walk goes on. Hidden files and folders
// (a name starting with "."), and node_modules folders, are skipped; the root
// itself may be hidden. Symlinks are followed only when their real path stays
// inside the root's real path, and never back into one of their own parent
// folders.
//
// Folders are read by up to GOMAXPROCS goroutines; the result does not depend
// on it, except which files were counted before MaxFiles stopped the walk.
func Walk(ctx context.Context, root *Root, lim Limits) ([]Entry, []skill.Diagnostic, error) {
	return WalkKnown(ctx, root, lim, nil)
}

// Known reports whether the caller already holds the file at abs as it was
// with this size and modification time: a layout-A skill file parsed, or a
// companion file.
type Known func(abs string, size int64, modTime time.Time) bool

// WalkKnown is Walk that does not read the files known reports as held
// already, so that a rebuild after a one-file change reads one file, not
// thousands: the entries of known SKILL.md files have a nil Data, and known
// small companion files are not read again to tell whether they are Windows
// symlink stubs (a file that was not one stays not one until it changes). A
// nil known reads them all.
func WalkKnown(ctx context.Context, root *Root, lim Limits, known Known) ([]Entry, []skill.Diagnostic, error) {
	entries, diags, _, err := walkRoot(ctx, root, lim, Options{Known: known})
	return entries, diags, err
}

func walkRoot(ctx context.Context, root *Root, lim Limits, opts Options) ([]Entry, []skill.Diagnostic, *State, error) {
	if root == nil {
		return nil, nil, nil, errors.New("source: nil root")
	}
	info, err := os.Stat(root.Dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("source %s: %w", root.Name, err)
	}
	if !info.IsDir() {
		return nil, nil, nil, fmt.Errorf("source %s: %s is not a folder", root.Name, root.Dir)
	}
	rule, err := root.Tree().Rule()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("source %s: %w", root.Name, err)
	}
	realRoot := rule.Root()
	w := &walker{
		rule:     rule,
		known:    opts.Known,
		cached:   opts.Listings,
		root:     root,
		lim:      lim.withDefaults(),
		realRoot: realRoot,
		spare:    make(chan struct{}, max(runtime.GOMAXPROCS(0)-1, 0)),
	}
	w.reuseFrom(opts)
	if w.cached != nil && w.cached.realRoot != realRoot {
		w.cached = nil // another tree's
	}
	w.presize()
	top := dirTask{abs: root.Dir, real: realRoot, path: &ancestor{real: realRoot}, uncleanAbs: filepath.Clean(root.Dir) != root.Dir}
	if err := w.walkDir(ctx, top); err != nil {
		w.wg.Wait()
		return nil, nil, nil, err
	}
	w.wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, nil, nil, err
	}
	entries := w.finish()
	sort.SliceStable(w.diags, func(i, j int) bool {
		a, b := w.diags[i], w.diags[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Code != b.Code {
			return a.Code < b.Code
		}
		return a.Message < b.Message
	})
	return entries, w.diags, w.state(), nil
}

type walker struct {
	// known skips reading unchanged SKILL.md files (see WalkKnown).
	known Known
	// cached are the last process's listings (Options.Listings), and
	// fromListings counts the folders taken from them (listing.go).
	cached       *Listings
	fromListings atomic.Int64
	// prev and dirty let clean folders be taken from the previous walk
	// (reuse.go); sawLink says a symlink was met (the State is then not
	// reusable).
	prev     *State
	dirty    []string
	sawLink  atomic.Bool
	reused   atomic.Int64
	root     *Root
	lim      Limits
	realRoot string
	// rule is the symlink rule of the root, shared with every reader of its
	// files (package confine).
	rule *confine.Rule
	// spare holds a token per goroutine that may walk a folder besides the
	// caller's.
	spare   chan struct{}
	wg      sync.WaitGroup
	visited atomic.Int64
	stopped atomic.Bool

	mu      sync.Mutex // guards the results below
	files   []fileRec
	pending []pendingEntry
	diags   []skill.Diagnostic
	dirs    []dirRec
	listed  []folderList
	budgets []*budget
	// taken are the parts of the previous walk's State taken for clean
	// folders, added to files, pending and dirs when the walk ends (take).
	taken []reusedPart
}

// dirTask is one folder to walk: rel is its path from the root ("" for the
// root), real its real path, path the real paths from the root down to it (a
// link to one of them is a loop); contained says it lies in a skill folder or
// a resource folder (no layout-B skill there), viaLink that a symlink led to it.
type dirTask struct {
	abs, rel, real string
	depth          int
	contained      bool
	viaLink        bool
	path           *ancestor
	// budget is the skill folder's budget the folder lies in; nil outside
	// skills.
	budget *budget
	// uncleanAbs says abs is not a clean path (only a root's can be: the
	// folders below it are joined to it with filepath.Join).
	uncleanAbs bool
}

// budget bounds the files and folders of one skill's folder
// (Limits.MaxSkillFiles).
type budget struct {
	// scope is the skill's folder ("" for the root) and file its skill
	// file, relative to the root.
	scope, file string
	limit       int64
	used        atomic.Int64
	over        atomic.Bool
}

// charge spends n entries; false once the budget is spent.
func (b *budget) charge(n int) bool {
	if b.over.Load() {
		return false
	}
	if b.used.Add(int64(n)) > b.limit {
		b.over.Store(true)
		return false
	}
	return true
}

// newBudget starts the budget of the skill whose folder is scope.
func (w *walker) newBudget(scope, file string) *budget {
	b := &budget{scope: scope, file: file, limit: int64(w.lim.MaxSkillFiles)}
	w.mu.Lock()
	w.budgets = append(w.budgets, b)
	w.mu.Unlock()
	return b
}

type ancestor struct {
	real string
	up   *ancestor
}

func (a *ancestor) has(real string) bool {
	for ; a != nil; a = a.up {
		if a.real == real {
			return true
		}
	}
	return false
}

// batch collects what walking one folder finds; it is merged into the walker
// once, under its lock.
type batch struct {
	files   []fileRec
	pending []pendingEntry
	diags   []skill.Diagnostic
	dirs    []dirRec
	listed  []folderList
	// reused are the records of the folders taken from the previous walk,
	// as parts of its State (not copied until the walk ends: taken).
	reused []reusedPart
}

func (w *walker) merge(b *batch) {
	if len(b.files)+len(b.pending)+len(b.diags)+len(b.dirs)+len(b.listed)+len(b.reused) == 0 {
		return
	}
	w.mu.Lock()
	w.dirs = append(w.dirs, b.dirs...)
	w.listed = append(w.listed, b.listed...)
	w.files = append(w.files, b.files...)
	w.pending = append(w.pending, b.pending...)
	w.diags = append(w.diags, b.diags...)
	w.taken = append(w.taken, b.reused...)
	w.mu.Unlock()
}

// fileRec is one file recorded by the walk, with its path relative to the root.
type fileRec struct {
	rel string
	f   File
}

// pendingEntry is an entry whose companion files are collected once the walk
// is over; scope is the root-relative folder whose files are its companions.
// real is the real path of the skill (its folder for layout A, its file for
// layout B), and viaLink says it was reached through a symlink: a skill
// reached twice is listed once, preferably by its own path.
type pendingEntry struct {
	e        Entry
	scope    string
	hasScope bool
	real     string
	viaLink  bool
}

// item is one folder entry after symlinks are resolved.
type item struct {
	name, abs, rel string
	// real is the entry's real path (symlinks resolved).
	real    string
	dir     bool
	link    bool
	size    int64
	modTime time.Time
}

func (w *walker) diag(b *batch, file string, sev skill.Severity, code, format string, args ...any) {
	b.diags = append(b.diags, skill.Diagnostic{
		Source:   w.root.Name,
		File:     file,
		Severity: sev,
		Code:     code,
		Message:  fmt.Sprintf(format, args...),
	})
}

// count charges one file or folder to the MaxFiles budget; false once spent.
func (w *walker) count(b *batch, rel string) bool {
	if w.stopped.Load() {
		return false
	}
	if w.visited.Add(1) > int64(w.lim.MaxFiles) {
		if w.stopped.CompareAndSwap(false, true) {
			w.diag(b, rel, skill.SeverityError, CodeLimitFiles,
				"the walk stopped at %s: the root holds more than %d files and folders (limit); the rest is not loaded", rel, w.lim.MaxFiles)
		}
		return false
	}
	return true
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// relIn is joinRel(dir, name) for the entry name of the folder at dir,
// whose path is abs: the end of abs when it reads the same (so that a
// large tree's records do not hold each path twice), else a new string.
func relIn(abs, dir, name string) string {
	n := len(name)
	if dir != "" {
		n += len(dir) + 1
	}
	if len(abs) < n || abs[len(abs)-len(name):] != name {
		return joinRel(dir, name)
	}
	if dir != "" {
		at := len(abs) - len(name) - 1
		if abs[at] != '/' || abs[at-len(dir):at] != dir {
			return joinRel(dir, name)
		}
	}
	return abs[len(abs)-n:]
}

// realIn is the real path of the entry name (not a link) of the folder
// parent, whose path is abs: abs itself when the folder's path is its
// real path (no link on the way), so that one string serves both.
func realIn(parent dirTask, abs, name string) string {
	if parent.real == parent.abs {
		return abs
	}
	return joinName(parent.real, name) // real paths are clean (rule.Root, then joined)
}

// joinName is filepath.Join(dir, name) for a clean dir and name one plain
// entry of that folder (as a folder listing gives it, and ParseListings
// admits it), without Join's second pass over the whole path to clean it:
// the walk joins every file's name to its folder, twice, and that pass was
// a tenth of a warm build's CPU (BenchmarkBuildHeldCache).
func joinName(dir, name string) string {
	switch {
	case dir == "" || dir == ".":
		return name
	case os.IsPathSeparator(dir[len(dir)-1]): // the file system's root
		return dir + name
	case len(filepath.VolumeName(dir)) == len(dir): // "C:" (Windows): relative to that drive
		return filepath.Join(dir, name)
	}
	return dir + string(filepath.Separator) + name
}

func relOrDot(rel string) string {
	if rel == "" {
		return "."
	}
	return rel
}

func hidden(name string) bool {
	return strings.HasPrefix(name, ".") || name == "node_modules"
}

// walkDir walks one folder, then its subfolders (some on other goroutines). It
// fails only when the root folder cannot be read or ctx is done.
func (w *walker) walkDir(ctx context.Context, t dirTask) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b := &batch{dirs: []dirRec{{rel: t.rel, contained: t.contained, viaLink: t.viaLink}}}
	// Every read goes through real paths, resolved from the root's real path
	// once at the start: a walk reads one tree even when the root is a link
	// switched meanwhile (a git checkout moving to a new commit).
	ents, err := w.list(b, t)
	if err != nil {
		if t.depth == 0 && len(ents) == 0 {
			return fmt.Errorf("source %s: %w", w.root.Name, err)
		}
		w.diag(b, relOrDot(t.rel), skill.SeverityError, CodeDirUnreadable, "cannot read folder %s: %v", relOrDot(t.rel), errText(err))
	}
	// A folder holding a SKILL.md starts a skill, whose whole folder shares
	// one budget of files and folders (Limits.MaxSkillFiles): a huge folder
	// costs its own skill, never its neighbours. Its entries are charged
	// before they are even looked at.
	bud := t.budget
	if bud == nil && slices.ContainsFunc(ents, func(de fs.DirEntry) bool { return de.Name() == skillFileName }) {
		bud = w.newBudget(t.rel, joinRel(t.rel, skillFileName))
	}
	if bud != nil && !bud.charge(len(ents)) {
		b.dirs = nil // not read: not reusable as read
		w.merge(b)
		return nil
	}
	// Sized from the listing: a folder's few entries, appended one by one,
	// took a growing slice each, and a start is made mostly of such folders.
	nsub := 0
	for _, de := range ents {
		if de.Type()&(fs.ModeDir|fs.ModeSymlink) != 0 {
			nsub++
		}
	}
	files, dirs := make([]item, 0, len(ents)-nsub+min(nsub, 1)), make([]item, 0, nsub)
	for _, de := range ents {
		if hidden(de.Name()) {
			continue
		}
		it, ok := w.classify(b, t, de)
		if !ok {
			continue
		}
		if it.dir {
			dirs = append(dirs, it)
		} else {
			files = append(files, it)
		}
	}

	// Files first: a folder's own SKILL.md, and the .md files that make their
	// sibling folders resource folders, decide how the subfolders are read.
	kept := files[:0] // filtered in place: files is not read after
	b.files = make([]fileRec, 0, len(files))
	skillIdx := -1
	for _, f := range files {
		if !f.link && f.size > 0 && f.size < stubMaxSize && (w.known == nil || !w.known(f.abs, f.size, f.modTime)) {
			if target, ok := stubTarget(f, t.real); ok {
				w.diag(b, f.rel, skill.SeverityWarning, CodeSymlinkStub,
					"%s looks like a symlink checked out as a plain file (it holds only the path %q): not followed; check it out with symlinks enabled (git config core.symlinks true) or replace it with the real file", f.rel, target)
				continue
			}
		}
		if bud == nil && !t.contained && path.Ext(f.name) != ".md" && f.name != skillFileName {
			continue // outside every skill only .md files can matter: not recorded, not counted
		}
		if !w.count(b, f.rel) {
			w.merge(b)
			return nil
		}
		b.files = append(b.files, fileRec{rel: f.rel, f: File{Abs: f.abs, Real: f.real, Size: f.size, ModTime: f.modTime}})
		if f.name == skillFileName {
			skillIdx = len(kept)
		} else if strings.EqualFold(f.name, skillFileName) {
			w.diag(b, f.rel, skill.SeverityWarning, CodeSkillFileName,
				"%s is not read as a skill: a skill file must be named exactly SKILL.md", f.rel)
		}
		kept = append(kept, f)
	}

	hasSkill := skillIdx >= 0
	if hasSkill {
		w.addFolderSkill(b, kept[skillIdx], t)
	}
	var resDirs map[string]bool
	if !t.contained && !hasSkill {
		dirByName := make(map[string]item, len(dirs))
		for _, d := range dirs {
			dirByName[d.name] = d
		}
		for _, f := range kept {
			if path.Ext(f.name) != ".md" || strings.EqualFold(f.name, skillFileName) {
				continue
			}
			base := strings.TrimSuffix(f.name, ".md")
			resDir, hasRes := dirByName[base]
			if w.addTreeSkill(b, f, resDir, hasRes, t.viaLink) && hasRes {
				if resDirs == nil {
					resDirs = map[string]bool{}
				}
				resDirs[base] = true
			}
		}
	}

	subs := make([]dirTask, 0, len(dirs))
	for _, d := range dirs {
		if t.path.has(d.real) {
			w.diag(b, d.rel, skill.SeverityWarning, CodeSymlinkLoop,
				"symlink %s is not followed: it leads back to one of its own parent folders (a loop)", d.rel)
			continue
		}
		if t.depth+1 > w.lim.MaxDepth {
			w.diag(b, d.rel, skill.SeverityError, CodeLimitDepth,
				"folder %s is not read: it is more than %d folders below the root (limit)", d.rel, w.lim.MaxDepth)
			continue
		}
		if !w.count(b, d.rel) {
			break
		}
		sub := dirTask{
			abs: d.abs, rel: d.rel, real: d.real, depth: t.depth + 1,
			contained: t.contained || hasSkill || resDirs[d.name],
			viaLink:   t.viaLink || d.link,
			path:      &ancestor{real: d.real, up: t.path},
			budget:    bud,
		}
		if sub.budget == nil && resDirs[d.name] {
			// A seed-000 page's resource folder is its skill's folder.
			sub.budget = w.newBudget(d.rel, joinRel(t.rel, d.name+".md"))
		}
		if w.reuse(b, sub) {
			continue
		}
		subs = append(subs, sub)
	}
	w.merge(b)
	for i, sub := range subs {
		if !handOff(i, len(subs), sub.depth) {
			if err := w.walkDir(ctx, sub); err != nil {
				return err
			}
			continue
		}
		select {
		case w.spare <- struct{}{}:
			w.wg.Go(func() {
				defer func() { <-w.spare }()
				_ = w.walkDir(ctx, sub) // below the root, only ctx fails, and Walk checks it
			})
		default:
			if err := w.walkDir(ctx, sub); err != nil {
				return err
			}
		}
	}
	return nil
}

// classify resolves one folder entry; false when it is skipped.
func (w *walker) classify(b *batch, parent dirTask, de fs.DirEntry) (item, bool) {
	name := de.Name()
	var abs string
	if parent.uncleanAbs {
		abs = filepath.Join(parent.abs, name)
	} else {
		abs = joinName(parent.abs, name)
	}
	it := item{name: name, abs: abs, rel: relIn(abs, parent.rel, name)}
	t := de.Type()
	switch {
	case t&fs.ModeSymlink != 0:
		return w.followLink(b, parent, it)
	case t.IsDir():
		it.dir = true
		it.real = realIn(parent, abs, name)
		return it, true
	case t.IsRegular():
		info, err := de.Info()
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) { // gone since the listing: nothing to say
				w.diag(b, it.rel, skill.SeverityError, CodeFileUnreadable, "cannot read %s: %v", it.rel, errText(err))
			}
			return it, false
		}
		it.size, it.modTime = info.Size(), info.ModTime()
		it.real = realIn(parent, abs, name)
		return it, true
	}
	// Devices, pipes and sockets are never opened; say so, or a FIFO named
	// SKILL.md would be a skill that silently is not there.
	w.special(b, it.rel, t)
	return it, false
}

// special reports a FIFO, device or socket met by the walk.
func (w *walker) special(b *batch, rel string, mode fs.FileMode) {
	w.diag(b, rel, skill.SeverityWarning, CodeSpecialFile,
		"%s is %s, not a regular file: it is never read or served", rel, confine.Describe(mode))
}

func (w *walker) followLink(b *batch, parent dirTask, it item) (item, bool) {
	w.sawLink.Store(true)
	at := filepath.Join(parent.real, it.name) // the link itself, in the tree being read
	linkText, _ := os.Readlink(at)
	target, err := filepath.EvalSymlinks(at)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			w.diag(b, it.rel, skill.SeverityWarning, CodeSymlinkBroken,
				"symlink %s is not followed: its target %s does not exist", it.rel, linkTarget(linkText))
		} else {
			w.diag(b, it.rel, skill.SeverityWarning, CodeSymlinkLoop,
				"symlink %s is not followed: it cannot be resolved (%v)", it.rel, errText(err))
		}
		return it, false
	}
	info, err := os.Stat(target)
	if err != nil {
		w.diag(b, it.rel, skill.SeverityWarning, CodeSymlinkBroken,
			"symlink %s is not followed: %v", it.rel, errText(err))
		return it, false
	}
	var onPath func(string) bool
	if info.IsDir() {
		onPath = parent.path.has
	}
	switch err := w.rule.Link(target, onPath); {
	case errors.Is(err, confine.ErrOutside):
		msg := "symlink %s is not followed: its target %s is outside the root"
		if len(w.root.Follow) > 0 {
			msg += " and outside the folders listed in follow_external_symlinks"
		}
		w.diag(b, it.rel, skill.SeverityWarning, CodeSymlinkEscape, msg, it.rel, linkTarget(linkText))
		return it, false
	case errors.Is(err, confine.ErrLoop):
		w.diag(b, it.rel, skill.SeverityWarning, CodeSymlinkLoop,
			"symlink %s is not followed: it leads back to one of its own parent folders (a loop)", it.rel)
		return it, false
	}
	it.link = true
	it.real = target
	switch {
	case info.IsDir():
		it.dir = true
	case info.Mode().IsRegular():
		it.size, it.modTime = info.Size(), info.ModTime()
	default:
		w.special(b, it.rel, info.Mode())
		return it, false
	}
	return it, true
}

// linkTarget shows a link's target in a diagnostic: quoted when relative (it
// is part of the skills' content), but never an absolute path of the machine.
func linkTarget(text string) string {
	if text == "" || filepath.IsAbs(text) {
		return "(an absolute path)"
	}
	return strconv.Quote(text)
}

func (w *walker) addFolderSkill(b *batch, f item, t dirTask) {
	data, ok := w.readSkillFile(b, f)
	if !ok {
		return
	}
	b.pending = append(b.pending, pendingEntry{
		e: Entry{
			Root: w.root, Layout: skill.LayoutFolder,
			RelFile: f.rel, AbsFile: f.abs, Dir: t.abs,
			Data: data, Size: f.size, ModTime: f.modTime,
		},
		scope:    t.rel,
		hasScope: true,
		real:     t.real,
		viaLink:  t.viaLink,
	})
}

// addTreeSkill decides whether the .md file f is a layout-B skill and records
// it; it reports whether it is one.
func (w *walker) addTreeSkill(b *batch, f item, resDir item, hasRes, viaLink bool) bool {
	if f.size > w.lim.MaxSkillFileBytes {
		// Big markdown is usually documentation: complain only when it starts
		// like a skill.
		if head, err := readHead(f.real, 4096); err == nil && frontmatterStart(head) >= 0 {
			w.tooLarge(b, f)
		}
		return false
	}
	data, err := readFile(f.real, f.size)
	if err != nil {
		w.diag(b, f.rel, skill.SeverityError, CodeFileUnreadable, "cannot read %s: %v", f.rel, errText(err))
		return false
	}
	if frontmatterStart(data) < 0 {
		return false
	}
	if int64(len(data)) > w.lim.MaxSkillFileBytes {
		w.tooLarge(b, f)
		return false
	}
	doc, pdiags := skill.Parse(f.rel, data)
	if doc == nil {
		return false
	}
	fm := &doc.Frontmatter
	hasKeywords := len(fm.Keywords) > 0
	hasDesc := strings.TrimSpace(fm.Description) != ""
	if !doc.HasFrontmatter || !hasKeywords || !hasDesc {
		if reason := brokenTreeReason(doc, data, hasKeywords, hasDesc); reason != "" {
			w.diag(b, f.rel, skill.SeverityWarning, CodeTreeSkillInvalid,
				"%s looks like a seed-000 skill but is not loaded: %s", f.rel, reason)
			b.diags = append(b.diags, w.fill(pdiags, f.rel)...)
		}
		return false
	}
	pe := pendingEntry{
		e: Entry{
			Root: w.root, Layout: skill.LayoutTree,
			RelFile: f.rel, AbsFile: f.abs,
			Data: data, Size: f.size, ModTime: f.modTime,
			Doc: doc, Diagnostics: w.fill(pdiags, f.rel),
		},
		real:    f.real,
		viaLink: viaLink || f.link,
	}
	if hasRes {
		pe.e.Dir = resDir.abs
		pe.scope, pe.hasScope = resDir.rel, true
	}
	b.pending = append(b.pending, pe)
	return true
}

// fill sets the Source and File of parser diagnostics.
func (w *walker) fill(ds []skill.Diagnostic, rel string) []skill.Diagnostic {
	for i := range ds {
		ds[i].Source = w.root.Name
		if ds[i].File == "" {
			ds[i].File = rel
		}
	}
	return ds
}

func (w *walker) tooLarge(b *batch, f item) {
	w.diag(b, f.rel, skill.SeverityError, CodeSkillFileTooLarge,
		"%s is not loaded: it is %d bytes, over the %d-byte limit for a skill file", f.rel, f.size, w.lim.MaxSkillFileBytes)
}

func (w *walker) readSkillFile(b *batch, f item) ([]byte, bool) {
	if f.size > w.lim.MaxSkillFileBytes {
		w.tooLarge(b, f)
		return nil, false
	}
	if w.known != nil && w.known(f.abs, f.size, f.modTime) {
		return nil, true
	}
	data, err := readFile(f.real, f.size)
	if err != nil {
		w.diag(b, f.rel, skill.SeverityError, CodeFileUnreadable, "cannot read %s: %v", f.rel, errText(err))
		return nil, false
	}
	if int64(len(data)) > w.lim.MaxSkillFileBytes {
		w.tooLarge(b, f)
		return nil, false
	}
	return data, true
}

// finish drops the skills over their budget and those reached twice,
// attaches the companion files to the entries and sorts them.
func (w *walker) finish() []Entry {
	w.take()
	w.dropOverBudget()
	sortRuns(w.files, func(a, b fileRec) int { return strings.Compare(a.rel, b.rel) })
	sortRuns(w.pending, func(a, b pendingEntry) int { return strings.Compare(a.e.RelFile, b.e.RelFile) })
	// Of the entries with the same real path, keep the first reached without a
	// symlink, or else the first. Without a symlink, no two entries have the
	// same real path.
	var best map[string]int
	if w.sawLink.Load() {
		best = map[string]int{}
		for i, pe := range w.pending {
			j, ok := best[pe.real]
			if !ok || (w.pending[j].viaLink && !pe.viaLink) {
				best[pe.real] = i
			}
		}
	}
	b := &batch{}
	out := make([]Entry, 0, len(w.pending))
	for i, pe := range w.pending {
		if j, ok := best[pe.real]; ok && j != i {
			w.diag(b, pe.e.RelFile, skill.SeverityWarning, CodeDuplicateFolder,
				"%s is the same skill as %s, reached again through a symlink: listed once", pe.e.RelFile, w.pending[j].e.RelFile)
			continue
		}
		e := pe.e
		if pe.hasScope {
			e.Files = w.filesUnder(pe.scope, e.RelFile)
		}
		out = append(out, e)
	}
	w.diags = append(w.diags, b.diags...)
	return out
}

// dropOverBudget leaves out every skill whose folder went over
// Limits.MaxSkillFiles — the skill and what lies in its folder (nested
// skills included) — with one error diagnostic on its skill file.
func (w *walker) dropOverBudget() {
	var over []*budget
	for _, b := range w.budgets {
		if b.over.Load() {
			over = append(over, b)
		}
	}
	if len(over) == 0 {
		return
	}
	inside := func(rel string) *budget {
		for _, b := range over {
			if rel == b.file || b.scope == "" || rel == b.scope || strings.HasPrefix(rel, b.scope+"/") {
				return b
			}
		}
		return nil
	}
	kept := w.pending[:0]
	for _, pe := range w.pending {
		if inside(pe.e.RelFile) == nil {
			kept = append(kept, pe)
		}
	}
	w.pending = kept
	files := w.files[:0]
	for _, f := range w.files {
		if inside(f.rel) == nil {
			files = append(files, f)
		}
	}
	w.files = files
	b := &batch{}
	for _, o := range over {
		w.diag(b, o.file, skill.SeverityError, CodeLimitSkillFiles,
			"%s is not loaded: its folder %s holds more than %d files and folders (the limit for one skill); the other skills are not affected. Move generated or bulk files out of the skill's folder, or into a hidden folder or node_modules, which are not read",
			o.file, relOrDot(o.scope), o.limit)
	}
	w.diags = append(w.diags, b.diags...)
}

// filesUnder returns the recorded files below the root-relative folder scope
// ("" is the root), except the file skip, with paths relative to scope.
func (w *walker) filesUnder(scope, skip string) []File {
	prefix := ""
	if scope != "" {
		prefix = scope + "/"
	}
	i := sort.Search(len(w.files), func(i int) bool { return w.files[i].rel >= prefix })
	var out []File
	for ; i < len(w.files) && strings.HasPrefix(w.files[i].rel, prefix); i++ {
		r := w.files[i]
		if r.rel == skip {
			continue
		}
		f := r.f
		f.Path = r.rel[len(prefix):]
		out = append(out, f)
	}
	return out
}

// stubTarget reports whether the small regular file f is a symlink checked out
// as a plain file (git with core.symlinks=false): one line, no line break, that
// is a relative path to something that exists.
func stubTarget(f item, dirAbs string) (string, bool) {
	data, err := readFile(f.real, f.size)
	if err != nil || len(data) == 0 || len(data) >= stubMaxSize || !utf8.Valid(data) {
		return "", false
	}
	s := string(data)
	if strings.TrimSpace(s) != s || strings.Contains(s, "://") ||
		strings.HasPrefix(s, "/") || strings.HasPrefix(s, `\`) || filepath.IsAbs(s) ||
		(len(s) >= 2 && s[1] == ':') {
		return "", false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return "", false
		}
	}
	target := filepath.Join(dirAbs, filepath.FromSlash(s))
	if target == f.real || target == dirAbs {
		return "", false
	}
	if _, err := os.Lstat(target); err != nil {
		return "", false
	}
	return s, true
}

var bom = []byte("\ufeff")

// frontmatterStart returns the offset just after the opening "---" line of a
// frontmatter block (leading blank lines allowed), or -1 when data does not
// start with one. It is a cheap filter before the real parser.
func frontmatterStart(data []byte) int {
	off := 0
	if bytes.HasPrefix(data, bom) {
		off = len(bom)
	}
	for off < len(data) {
		line := data[off:]
		next := len(data)
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], off+i+1
		}
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			off = next
			continue
		}
		if bytes.Equal(t, []byte("---")) && bytes.HasPrefix(line, []byte("---")) {
			return next
		}
		return -1
	}
	return -1
}

// brokenTreeReason says why a .md file that looks like a seed-000 skill is not
// one, or "" when it does not look like one (plain markdown).
func brokenTreeReason(doc *skill.Document, data []byte, hasKeywords, hasDesc bool) string {
	if !doc.HasFrontmatter {
		if frontmatterMentions(data, "keywords", "description") {
			return "its frontmatter does not parse"
		}
		return ""
	}
	_, kw := doc.Frontmatter.Raw["keywords"]
	_, desc := doc.Frontmatter.Raw["description"]
	if !kw && !desc {
		return ""
	}
	switch {
	case !hasKeywords && !hasDesc:
		return "keywords must be a non-empty list and description a non-empty string"
	case !hasKeywords:
		return "keywords must be a non-empty list"
	default:
		return "description must be a non-empty string"
	}
}

// frontmatterMentions reports whether a top-level key of the (unparseable)
// frontmatter block of data is one of keys.
func frontmatterMentions(data []byte, keys ...string) bool {
	start := frontmatterStart(data)
	if start < 0 {
		return false
	}
	for _, line := range strings.Split(string(data[start:]), "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "---" || line == "..." {
			return false
		}
		for _, k := range keys {
			if strings.HasPrefix(line, k+":") {
				return true
			}
		}
	}
	return false
}

func readHead(abs string, n int) ([]byte, error) { return confine.ReadHeadResolved(abs, n) }

// errText is an error's text without the absolute path the os package puts in
// it (diagnostics name files relative to the root).
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// readFile reads a whole file the walk resolved; size is its expected size.
func readFile(name string, size int64) ([]byte, error) { return confine.ReadResolved(name, size) }

// readDir lists the folder at its real path real.
func readDir(real string) ([]fs.DirEntry, error) { return confine.ReadDirResolved(real) }
