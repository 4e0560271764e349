package source

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

// State is what a walk of a root found, kept so that the next walk of the
// same root can take the folders in which nothing changed from it instead of
// reading them again (see Options.Previous). It is immutable once returned.
type State struct {
	root Root
	// realRoot is the root's real path: when it changes (a git checkout
	// switched to a new commit's tree), nothing is reused.
	realRoot string
	lim      Limits
	// reusable is false when the walk met a symlink or a limit: then the next
	// walk reads everything (a link can make one folder's content depend on
	// another's).
	reusable bool
	files    []fileRec      // sorted by rel
	pending  []pendingEntry // sorted by RelFile, Data dropped
	diags    []skill.Diagnostic
	dirs     []dirRec // sorted by rel
	// listed are the folder listings the walk read or took, for the next
	// process (listing.go), sorted by rel.
	listed []folderList
	// reused counts the folders taken from the previous walk, and
	// fromListings those listed from the last process's listings.
	reused, fromListings int
}

// dirRec is one folder a walk read, with what decided how it was read.
type dirRec struct {
	rel                string
	contained, viaLink bool
}

// Options are the optional inputs of WalkWith.
type Options struct {
	// Known skips reading files the caller holds already (see WalkKnown).
	Known Known
	// Listings are the last process's listings of the same root
	// (State.Listings, kept by the catalog cache): a folder whose stamp
	// is unchanged is taken from them instead of listed again.
	Listings *Listings
	// Previous is the State of the last walk of the same root, and Dirty
	// the absolute paths that changed since (files or folders, as a file
	// watcher reports them). A folder below the root that neither is nor
	// holds a dirty path is taken from Previous unread. A nil Dirty means
	// "anything may have changed": everything is read.
	Previous *State
	Dirty    []string
}

// WalkWith is Walk with Options; it also returns the State for the next walk.
func WalkWith(ctx context.Context, root *Root, lim Limits, opts Options) ([]Entry, []skill.Diagnostic, *State, error) {
	return walkRoot(ctx, root, lim, opts)
}

// reuseFrom prepares the walker to take clean folders from prev.
func (w *walker) reuseFrom(opts Options) {
	prev := opts.Previous
	if prev == nil || opts.Dirty == nil || !prev.reusable || !prev.root.Same(w.root) || prev.realRoot != w.realRoot || prev.lim != w.lim {
		return
	}
	w.prev = prev
	w.dirty = make([]string, 0, len(opts.Dirty))
	for _, d := range opts.Dirty {
		w.dirty = append(w.dirty, filepath.Clean(d))
	}
}

// clean reports whether nothing dirty lies at or below the folder abs.
func (w *walker) clean(abs string) bool {
	prefix := abs + string(filepath.Separator)
	for _, d := range w.dirty {
		if d == abs || strings.HasPrefix(d, prefix) {
			return false
		}
	}
	return true
}

// reuse takes the folder of sub, and everything below it, from the previous
// walk, when nothing changed there and it was read the same way; it reports
// whether it did.
func (w *walker) reuse(b *batch, sub dirTask) bool {
	p := w.prev
	if p == nil || sub.viaLink || !w.clean(sub.abs) {
		return false
	}
	i := sort.Search(len(p.dirs), func(i int) bool { return p.dirs[i].rel >= sub.rel })
	if i == len(p.dirs) || p.dirs[i].rel != sub.rel || p.dirs[i].contained != sub.contained || p.dirs[i].viaLink != sub.viaLink {
		return false
	}
	prefix := sub.rel + "/"
	dirs := under(p.dirs, prefix, func(d dirRec) string { return d.rel })
	files := under(p.files, prefix, func(f fileRec) string { return f.rel })
	pending := under(p.pending, prefix, func(pe pendingEntry) string { return pe.e.RelFile })
	// Diagnostics are sorted by file: those below the folder, and the
	// folder's own (it could not be read).
	diags := under(p.diags, prefix, func(d skill.Diagnostic) string { return d.File })
	for _, d := range p.diags {
		if d.File == sub.rel && d.Code == CodeDirUnreadable {
			b.diags = append(b.diags, d)
		}
	}
	w.visited.Add(int64(len(dirs) + len(files)))
	w.reused.Add(int64(len(dirs) + 1))
	// The folder's own listing and those below it, for the next process.
	var own []folderList
	if l := (&Listings{folders: p.listed}).find(sub.rel); l != nil {
		own = []folderList{*l}
	}
	listed := under(p.listed, prefix, func(f folderList) string { return f.rel })
	b.reused = append(b.reused, reusedPart{dirs: p.dirs[i : i+1 : i+1], listed: own}, reusedPart{dirs: dirs, files: files, pending: pending, listed: listed})
	b.diags = append(b.diags, diags...)
	return true
}

// reusedPart is a part of a previous walk's State taken by a walk: the
// records of one folder, or of everything below it.
type reusedPart struct {
	dirs    []dirRec
	files   []fileRec
	pending []pendingEntry
	listed  []folderList
}

// take adds the records of the folders taken from the previous walk to the
// walk's own, each list copied once at its final size (the State they come
// from stays as it was).
func (w *walker) take() {
	if len(w.taken) == 0 {
		return
	}
	nd, nf, np, nl := len(w.dirs), len(w.files), len(w.pending), len(w.listed)
	for _, r := range w.taken {
		nd, nf, np, nl = nd+len(r.dirs), nf+len(r.files), np+len(r.pending), nl+len(r.listed)
	}
	dirs, files, pending, listed := make([]dirRec, 0, nd), make([]fileRec, 0, nf), make([]pendingEntry, 0, np), make([]folderList, 0, nl)
	dirs, files, pending, listed = append(dirs, w.dirs...), append(files, w.files...), append(pending, w.pending...), append(listed, w.listed...)
	for _, r := range w.taken {
		dirs, files, pending, listed = append(dirs, r.dirs...), append(files, r.files...), append(pending, r.pending...), append(listed, r.listed...)
	}
	w.dirs, w.files, w.pending, w.listed, w.taken = dirs, files, pending, listed, nil
}

// under returns the items of s (sorted by key) whose key starts with prefix.
func under[T any](s []T, prefix string, key func(T) string) []T {
	i := sort.Search(len(s), func(i int) bool { return key(s[i]) >= prefix })
	j := i
	for j < len(s) && strings.HasPrefix(key(s[j]), prefix) {
		j++
	}
	return s[i:j]
}

// Folders are the folders the walk read below (and including) its root,
// by absolute path under the root as given: what a file watcher must watch
// to see what the next walk would find changed. Nil when the walk is not
// reusable (it met a link or a limit, so the folders it read are not all
// there is): then the watcher reads the tree itself.
func (s *State) Folders() []string {
	if s == nil || !s.reusable {
		return nil
	}
	out := make([]string, 0, len(s.dirs))
	for _, d := range s.dirs {
		if !d.viaLink {
			out = append(out, filepath.Join(s.root.Dir, filepath.FromSlash(d.rel)))
		}
	}
	return out
}

// state is the walk's State for the next walk.
func (w *walker) state() *State {
	st := &State{root: *w.root, realRoot: w.realRoot, lim: w.lim, reusable: !w.sawLink.Load() && !w.stopped.Load(), reused: int(w.reused.Load()),
		fromListings: int(w.fromListings.Load())}
	// The listings hold whatever the walk met (they are checked folder by
	// folder), so they are kept even when the walk is not reusable.
	sortRuns(w.listed, func(a, b folderList) int { return strings.Compare(a.rel, b.rel) })
	st.listed = slices.CompactFunc(w.listed, func(a, b folderList) bool { return a.rel == b.rel })
	for _, d := range w.diags {
		if d.Code == CodeLimitDepth || d.Code == CodeLimitFiles || d.Code == CodeLimitSkillFiles || d.Code == CodeDuplicateFolder {
			st.reusable = false
		}
	}
	if !st.reusable {
		return st
	}
	st.files = w.files // sorted by finish
	// The walk's own list (finish gave the caller copies of its entries).
	st.pending = w.pending
	for i := range st.pending {
		st.pending[i].e.Data = nil // the caller holds the parsed file; keep no copy
		st.pending[i].e.Files = nil
	}
	st.diags = append([]skill.Diagnostic(nil), w.diags...)
	sort.SliceStable(st.diags, func(i, j int) bool { return st.diags[i].File < st.diags[j].File })
	st.dirs = w.dirs
	sortRuns(st.dirs, func(a, b dirRec) int { return strings.Compare(a.rel, b.rel) })
	return st
}

// sortRuns sorts s stably by cmp. A walk that reused folders gathers its
// records as a few long runs already in order (each folder taken from the
// previous walk is one), so s is sorted by merging its runs rather than by
// moving records one by one: a pass of copies per halving of the number of
// runs.
func sortRuns[T any](s []T, cmp func(a, b T) int) {
	// The ends of the runs: s[ends[i-1]:ends[i]] is in order.
	var ends []int
	for i := 1; i < len(s); i++ {
		if cmp(s[i-1], s[i]) > 0 {
			ends = append(ends, i)
		}
	}
	if len(ends) == 0 {
		return
	}
	ends = append(ends, len(s))
	src, dst := s, make([]T, len(s))
	for len(ends) > 1 {
		next := ends[:0:0]
		start := 0
		for i := 0; i < len(ends); i += 2 {
			if i+1 == len(ends) { // odd run out: copied as it is
				copy(dst[start:ends[i]], src[start:ends[i]])
				next = append(next, ends[i])
				break
			}
			mergeInto(dst[start:ends[i+1]], src[start:ends[i]], src[ends[i]:ends[i+1]], cmp)
			next = append(next, ends[i+1])
			start = ends[i+1]
		}
		ends = next
		src, dst = dst, src
	}
	if &src[0] != &s[0] {
		copy(s, src)
	}
}

// mergeInto merges the sorted a and b into dst (len(a)+len(b) long),
// taking a's first of equal records.
func mergeInto[T any](dst, a, b []T, cmp func(a, b T) int) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmp(b[j], a[i]) < 0 {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}
