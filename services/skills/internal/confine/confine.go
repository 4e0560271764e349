// Package confine is the one way the service opens the files it serves:
// skills and their companion files (packages source and catalog), the files
// callers read (package assets), agent profiles and documentation (package
// content). It owns two things:
//
//   - The symlink rule (Rule.Link), applied by the catalog's walk and by
//     every read alike, so that what the catalog lists and what a reader may
//     open never disagree: a symbolic link is followed only when its target
//     lies inside the folder's real path, or inside one of the folders the
//     configuration explicitly lists for it (Tree.Follow, the opt-in for
//     dotfiles set-ups), and never when it leads back to one of the real
//     folders on its own path (a loop).
//   - Opening without ever blocking: every open is non-blocking and the type
//     is checked on the opened descriptor, so a FIFO, a device or a socket put
//     in place of a file is refused (ErrNotRegular) instead of hanging the
//     caller, whatever happened between listing and opening.
//
// Reads through Tree resolve the requested path one component at a time
// under the rule, then open the resolved file through an os.Root at the
// folder it lies in (the source or a listed target), so that the operating
// system refuses whatever would still lead out. The catalog's walk resolves
// each symlink it meets with the same rule and then reads the paths it
// resolved with OpenResolved, the fast form.
//
// It does not decide which names are served (hidden files, '..': the callers
// check requested paths first), parse, or cache anything.
package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Errors of this package, wrapped in an *fs.PathError naming the path as the
// caller gave it.
var (
	// ErrNotRegular: the path names a FIFO, a device, a socket (or a folder
	// where a file is wanted): it is never read.
	ErrNotRegular = errors.New("not a regular file")
	// ErrOutside: a symbolic link on the path leads outside the folder and
	// outside every folder listed to follow.
	ErrOutside = errors.New("a symbolic link on the path leads outside the folder")
	// ErrLoop: a symbolic link on the path leads back to one of its own
	// parent folders.
	ErrLoop = errors.New("a symbolic link on the path leads back to one of its own parent folders (a loop)")
)

// Tree is a folder whose files are served, with the folders outside it that
// its symbolic links may lead into.
type Tree struct {
	// Dir is the folder (absolute). It may itself be a symbolic link.
	Dir string
	// Follow are absolute folders outside Dir into which symbolic links
	// below Dir may lead (an explicit opt-in; empty: none). Links into them
	// obey the same rule: no loops, regular files only.
	Follow []string
}

// Rule is the symlink rule of a Tree, with every folder resolved to its real
// path. It is immutable.
type Rule struct {
	root   string
	follow []string
}

// Rule resolves t's folders. It fails when Dir cannot be resolved (missing:
// the error matches fs.ErrNotExist); a Follow folder that does not exist is
// left out (there is nothing to follow into).
func (t Tree) Rule() (*Rule, error) {
	root, err := filepath.EvalSymlinks(t.Dir)
	if err != nil {
		return nil, err
	}
	r := &Rule{root: root}
	for _, f := range t.Follow {
		if !filepath.IsAbs(f) {
			continue
		}
		real, err := filepath.EvalSymlinks(f)
		if err != nil {
			continue
		}
		if info, err := os.Stat(real); err != nil || !info.IsDir() {
			continue
		}
		r.follow = append(r.follow, real)
	}
	return r, nil
}

// Root is the real path of the tree's folder.
func (r *Rule) Root() string { return r.root }

// Link is the symlink rule: it returns nil when a link whose target resolves
// to the real path target may be followed, ErrOutside when target is outside
// the folder and outside every folder listed to follow, and ErrLoop when
// onPath reports target as one of the real folders on the link's own path
// (from the tree's root down to the folder holding the link). onPath nil
// means no loop check (a link to a file).
func (r *Rule) Link(target string, onPath func(real string) bool) error {
	if _, ok := r.Base(target); !ok {
		return ErrOutside
	}
	if onPath != nil && onPath(target) {
		return ErrLoop
	}
	return nil
}

// External reports whether the real path p lies outside the tree's own
// folder (in one of the folders listed to follow).
func (r *Rule) External(p string) bool { return !Within(p, r.root) }

// Base returns the folder holding the real path p: the tree's root, or the
// folder listed to follow that holds it; false when none does.
func (r *Rule) Base(p string) (string, bool) {
	if Within(p, r.root) {
		return r.root, true
	}
	for _, f := range r.follow {
		if Within(p, f) {
			return f, true
		}
	}
	return "", false
}

// Within reports whether p is root or lies below it (both clean paths).
func Within(p, root string) bool {
	if p == root {
		return true
	}
	prefix := root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(p, prefix)
}

// Describe names a file type for messages: "a named pipe (FIFO)", "a
// device", "a socket", "a folder", … .
func Describe(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	case m.IsRegular():
		return "a regular file"
	}
	return fmt.Sprintf("a special file (%s)", m.Type())
}

// Special reports whether m is a type that is never opened: a FIFO, a
// device, a socket or an irregular file.
func Special(m fs.FileMode) bool {
	return m&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice|fs.ModeCharDevice|fs.ModeIrregular) != 0
}
