package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// errNotFolder is met when a path goes through a file as if it were a
// folder; it matches fs.ErrNotExist (there is no such path).
var errNotFolder = fmt.Errorf("%w: a component of the path is a file, not a folder", fs.ErrNotExist)

// Resolve resolves rel (a relative, '/'-separated path the caller has
// validated: no "..", not absolute) below t's folder under the symlink rule,
// and returns its real path and what it is (the information of the real
// path). "" or "." is the folder itself.
func (t Tree) Resolve(rel string) (string, fs.FileInfo, error) {
	r, err := t.Rule()
	if err != nil {
		return "", nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	return r.Resolve(rel)
}

// Open opens rel below t's folder for reading (see Rule.Open).
func (t Tree) Open(rel string) (*os.File, fs.FileInfo, error) {
	r, err := t.Rule()
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	return r.Open(rel)
}

// Resolve is Tree.Resolve with the rule resolved already.
func (r *Rule) Resolve(rel string) (string, fs.FileInfo, error) {
	parts, err := split(rel)
	if err != nil {
		return "", nil, &fs.PathError{Op: "open", Path: rel, Err: err}
	}
	cur := r.root
	if len(parts) == 0 {
		info, err := os.Stat(cur)
		if err != nil {
			return "", nil, &fs.PathError{Op: "open", Path: rel, Err: unwrap(err)}
		}
		return cur, info, nil
	}
	chain := []string{r.root}
	onPath := func(p string) bool { return slices.Contains(chain, p) }
	var info fs.FileInfo
	for i, name := range parts {
		next := filepath.Join(cur, name)
		li, err := os.Lstat(next)
		if err != nil {
			return "", nil, &fs.PathError{Op: "open", Path: rel, Err: unwrap(err)}
		}
		if li.Mode()&fs.ModeSymlink != 0 {
			target, ti, err := r.followLink(next, onPath)
			if err != nil {
				return "", nil, &fs.PathError{Op: "open", Path: rel, Err: err}
			}
			next, li = target, ti
		}
		if i < len(parts)-1 {
			if !li.IsDir() {
				return "", nil, &fs.PathError{Op: "open", Path: rel, Err: errNotFolder}
			}
			chain = append(chain, next)
		}
		cur, info = next, li
	}
	return cur, info, nil
}

// followLink applies the rule to the symbolic link at p: it returns the link's
// real target and its information, or why it is not followed (ErrOutside,
// ErrLoop, or the error resolving it: a broken link matches fs.ErrNotExist).
// Loops are checked only for links to folders.
func (r *Rule) followLink(p string, onPath func(string) bool) (string, fs.FileInfo, error) {
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		err = unwrap(err)
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
			// Links that lead to each other ("too many links", ELOOP).
			err = fmt.Errorf("%w (%v)", ErrLoop, err)
		}
		return "", nil, err
	}
	ti, err := os.Stat(target)
	if err != nil {
		return "", nil, unwrap(err)
	}
	check := onPath
	if !ti.IsDir() {
		check = nil
	}
	if err := r.Link(target, check); err != nil {
		return "", nil, err
	}
	return target, ti, nil
}

// Open opens rel below the rule's folder for reading: it resolves rel under
// the rule (Resolve), opens the real path through an os.Root at the folder
// holding it (the tree's root or a folder listed to follow) without blocking,
// and checks on the opened descriptor that it is a regular file. A FIFO, a
// device, a socket or a folder is ErrNotRegular, returned with its
// information (so that callers can tell a folder apart); errors are
// *fs.PathError naming rel.
func (r *Rule) Open(rel string) (*os.File, fs.FileInfo, error) {
	real, _, err := r.Resolve(rel)
	if err != nil {
		return nil, nil, err
	}
	base, ok := r.Base(real)
	if !ok { // Resolve keeps to the bases; this guards against a change of that
		return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: ErrOutside}
	}
	root, err := os.OpenRoot(base)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: unwrap(err)}
	}
	defer root.Close()
	inside, err := filepath.Rel(base, real)
	if err != nil {
		return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: ErrOutside}
	}
	f, err := root.OpenFile(inside, openFlags, 0)
	if err != nil {
		if isEscape(err) {
			err = ErrOutside // the tree changed between resolving and opening
		}
		return nil, nil, &fs.PathError{Op: "open", Path: rel, Err: unwrap(err)}
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, &fs.PathError{Op: "stat", Path: rel, Err: unwrap(err)}
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, info, &fs.PathError{Op: "open", Path: rel, Err: ErrNotRegular}
	}
	return f, info, nil
}

// Walk walks the rule's folder in lexical order, following the symbolic
// links the rule allows (a followed link is described by its target), and
// calls fn for every entry below the root with its '/'-separated path from
// the root. err is non-nil for an entry that is not followed or cannot be
// read — a link the rule refuses (ErrOutside, ErrLoop), a broken link
// (fs.ErrNotExist), a FIFO, device or socket (ErrNotRegular, with its
// information), a folder that cannot be listed — and info may then be nil.
// fn returning fs.SkipDir for a folder skips its content; fs.SkipAll stops
// the walk. Walk fails only when the root cannot be listed or fn fails.
func (r *Rule) Walk(fn func(rel string, info fs.FileInfo, err error) error) error {
	err := r.walk(r.root, "", []string{r.root}, fn)
	if errors.Is(err, fs.SkipAll) {
		return nil
	}
	return err
}

func (r *Rule) walk(dir, rel string, chain []string, fn func(string, fs.FileInfo, error) error) error {
	ents, err := ReadDirResolved(dir)
	if err != nil {
		if rel == "" {
			return err
		}
		return fn(rel, nil, unwrap(err))
	}
	onPath := func(p string) bool { return slices.Contains(chain, p) }
	for _, de := range ents {
		p := de.Name()
		if rel != "" {
			p = rel + "/" + de.Name()
		}
		abs := filepath.Join(dir, de.Name())
		real := abs
		var info fs.FileInfo
		if de.Type()&fs.ModeSymlink != 0 {
			real, info, err = r.followLink(abs, onPath)
		} else {
			info, err = de.Info()
			err = unwrap(err)
		}
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && de.Type()&fs.ModeSymlink == 0 {
				continue // gone since the listing
			}
			if err := fn(p, nil, err); err != nil {
				return err
			}
			continue
		}
		if Special(info.Mode()) {
			if err := fn(p, info, ErrNotRegular); err != nil {
				return err
			}
			continue
		}
		err := fn(p, info, nil)
		if info.IsDir() {
			if errors.Is(err, fs.SkipDir) {
				continue
			}
			if err != nil {
				return err
			}
			if err := r.walk(real, p, append(chain[:len(chain):len(chain)], real), fn); err != nil {
				return err
			}
			continue
		}
		if err != nil && !errors.Is(err, fs.SkipDir) {
			return err
		}
	}
	return nil
}

// split cuts a relative path into its names, dropping empty and "."
// components; "..", a NUL byte or an absolute path is ErrOutside.
func split(rel string) ([]string, error) {
	rel = filepath.ToSlash(rel)
	if strings.HasPrefix(rel, "/") || filepath.IsAbs(rel) || strings.ContainsRune(rel, 0) {
		return nil, ErrOutside
	}
	var out []string
	for name := range strings.SplitSeq(rel, "/") {
		switch name {
		case "", ".":
			continue
		case "..":
			return nil, ErrOutside
		}
		out = append(out, name)
	}
	return out, nil
}

// unwrap drops the *fs.PathError the os package wraps around an error (its
// path is absolute; callers name paths relative to their folder).
func unwrap(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err != nil {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) && le.Err != nil {
		return le.Err
	}
	return err
}

// isEscape reports whether err is os.Root's refusal of a path that resolves
// outside the root. The os package does not export that error; its text is
// pinned by a test.
func isEscape(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == "path escapes from parent"
}
