package gitsync

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// tmpPrefix starts the name of a tree being written (or left unfinished by a
// process that died): never linked to, removed by the next synchronisation.
const tmpPrefix = ".tmp-"

// checkout writes the tree of commit hash into a fresh folder and, once it
// is complete, switches the checkout folder to it (see the package
// comment). Files of prev's tree that did not change are hard-linked, not
// written again. Nothing the catalog reads changes until the switch.
func (s *Syncer) checkout(ctx context.Context, r *git.Repository, hash plumbing.Hash, prev string) error {
	c, err := r.CommitObject(hash)
	if err != nil {
		return err
	}
	tree, err := c.Tree()
	if err != nil {
		return err
	}
	final := filepath.Join(s.treesDir(), hash.String())
	if info, err := os.Stat(final); err == nil && info.IsDir() {
		// Written completely by a run that died before switching to it (a
		// tree is renamed into place only once complete).
		return s.publish(hash.String())
	}
	if err := os.MkdirAll(s.treesDir(), 0o700); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(s.treesDir(), tmpPrefix+hash.String()+"-")
	if err != nil {
		return err
	}
	if err := s.writeTree(ctx, r, tree, tmp, prev); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		_ = os.RemoveAll(tmp)
		return err
	}
	return s.publish(hash.String())
}

// writeTree writes every file of tree below dir: regular and executable
// files, and symbolic links (which the catalog's walk judges like any
// other). Submodules are left out. An entry whose path is unsafe (".git",
// "..", a NUL byte) is skipped with a warning. Writes go through an os.Root
// at dir, so that a link written earlier cannot lead a later file out.
func (s *Syncer) writeTree(ctx context.Context, r *git.Repository, tree *object.Tree, dir, prev string) error {
	old := s.previousFiles(r, prev)
	prevTree := filepath.Join(s.treesDir(), prev)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer root.Close()
	written := 0
	files := tree.Files()
	defer files.Close()
	for {
		f, err := files.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		name := f.Name
		if !safePath(name) {
			s.log.Warn("git source: leaving out a file with an unsafe path", "source", s.repo.Name, "path", name)
			continue
		}
		if d := path.Dir(name); d != "." {
			if err := root.MkdirAll(filepath.FromSlash(d), 0o755); err != nil {
				return err
			}
		}
		if err := s.writeFile(root, dir, prevTree, f, old); err != nil {
			return fmt.Errorf("writing %s: %w", name, err)
		}
		written++
		if s.opts.OnCheckoutFile != nil {
			s.opts.OnCheckoutFile(written)
		}
	}
	return nil
}

// oldFile is a file of the tree checked out before, which an unchanged file
// of the new tree is hard-linked to.
type oldFile struct {
	hash plumbing.Hash
	mode filemode.FileMode
}

// previousFiles maps the files of prev's tree (when it is still on disk) to
// their blob and mode.
func (s *Syncer) previousFiles(r *git.Repository, prev string) map[string]oldFile {
	if prev == "" {
		return nil
	}
	c, err := r.CommitObject(plumbing.NewHash(prev))
	if err != nil {
		return nil
	}
	t, err := c.Tree()
	if err != nil {
		return nil
	}
	out := map[string]oldFile{}
	_ = t.Files().ForEach(func(f *object.File) error {
		out[f.Name] = oldFile{hash: f.Hash, mode: f.Mode}
		return nil
	})
	return out
}

// writeFile writes one file of the tree: hard-linked from the previous tree
// when it did not change there, else from its blob.
func (s *Syncer) writeFile(root *os.Root, dir, prevTree string, f *object.File, old map[string]oldFile) error {
	rel := filepath.FromSlash(f.Name)
	if o, ok := old[f.Name]; ok && o.hash == f.Hash && o.mode == f.Mode && f.Mode != filemode.Symlink {
		if err := os.Link(filepath.Join(prevTree, rel), filepath.Join(dir, rel)); err == nil {
			return nil
		}
		// Another file system, a file system without hard links, a file
		// gone from the old tree: write it.
	}
	rd, err := f.Blob.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	if f.Mode == filemode.Symlink {
		target, err := io.ReadAll(io.LimitReader(rd, 4096))
		if err != nil {
			return err
		}
		return root.Symlink(string(target), rel)
	}
	perm := os.FileMode(0o644)
	if f.Mode == filemode.Executable {
		perm = 0o755
	}
	out, err := root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, rd); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// safePath reports whether a path of the tree may be written: relative, no
// empty, "." or ".." part, no ".git" part (any case), no NUL byte.
func safePath(p string) bool {
	if p == "" || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\x00\\") {
		return false
	}
	for part := range strings.SplitSeq(p, "/") {
		if part == "" || part == "." || part == ".." || strings.EqualFold(part, ".git") {
			return false
		}
	}
	return true
}

// publish switches the checkout folder to the tree of commit, atomically:
// a new link is made beside it and renamed over it.
func (s *Syncer) publish(commit string) error {
	var b [6]byte
	_, _ = rand.Read(b[:])
	tmp := s.dir + ".link-" + hex.EncodeToString(b[:])
	target := filepath.Join(filepath.Base(s.treesDir()), commit)
	if err := os.Symlink(target, tmp); err != nil {
		return fmt.Errorf("making the checkout link (git sources need symbolic links): %w", err)
	}
	if err := os.Rename(tmp, s.dir); err != nil {
		_ = os.Remove(tmp)
		return err
	}
	syncDir(filepath.Dir(s.dir))
	return nil
}

// collect removes the trees that are neither the one checked out nor the
// previous one (kept one synchronisation longer for readers inside it), and
// the unfinished trees of processes that died mid-checkout. The caller holds
// the cache lock, so no other process is writing a tree.
func (s *Syncer) collect(current, prev string) {
	ents, err := os.ReadDir(s.treesDir())
	if err != nil {
		return
	}
	for _, e := range ents {
		name := e.Name()
		if name == current || name == prev {
			continue
		}
		old := filepath.Join(s.treesDir(), name)
		if !strings.HasPrefix(name, tmpPrefix) {
			// Out of the way first, in one step: a reader still resolving
			// it finds nothing rather than a tree being emptied.
			gone, err := os.MkdirTemp(s.treesDir(), tmpPrefix+"gone-")
			if err == nil {
				if err := os.Rename(old, filepath.Join(gone, name)); err == nil {
					old = gone
				} else {
					_ = os.Remove(gone)
				}
			}
		}
		if err := os.RemoveAll(old); err != nil {
			s.log.Warn("git cache: removing an old tree", "source", s.repo.Name, "tree", name, "error", err)
		}
	}
	// Links left by a publish that died between making and renaming them.
	if old, err := filepath.Glob(s.dir + ".link-*"); err == nil {
		for _, p := range old {
			_ = os.Remove(p)
		}
	}
}

// convertLegacy turns a cache made by an earlier version (a non-bare clone
// whose worktree is the checkout folder) into the current layout: its git
// folder becomes the bare clone, its worktree is removed, and the next
// checkout writes a tree.
func (s *Syncer) convertLegacy() error {
	info, err := os.Lstat(s.dir)
	if err != nil || info.Mode()&fs.ModeSymlink != 0 || !info.IsDir() {
		return nil
	}
	s.log.Info("git cache: converting an old checkout to atomic checkouts", "source", s.repo.Name, "dir", s.dir)
	if _, err := os.Stat(s.storeDir()); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(filepath.Join(s.dir, ".git"), s.storeDir()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("git cache: the old clone cannot be kept; cloning again", "source", s.repo.Name, "error", err)
		}
	}
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("git source %s: clearing the old checkout: %w", s.repo.Name, err)
	}
	return nil
}

// syncDir flushes a folder's entries to disk, so that the switch survives a
// power loss too; some file systems cannot, which is not fatal.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
