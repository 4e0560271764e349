// Package assets reads the files of skills for callers, confined to the
// skill: any file of the skill's folder, and the assets and scripts its
// ancestors declare (seed 000 §7.3, §7.5), found through the inheritance
// chain with the declaring skill's path as resolved_from. Text comes back as
// UTF-8, binary as bytes with its MIME type (the catalog's rule: seed 000
// §7.2's extension table, then content sniffing), a page at a time.
//
// Confinement has two layers. CheckPath refuses a requested path before the
// disk is touched: empty, absolute, '..', backslash, NUL and control
// characters, percent-encoded forms of those, hidden files. Then every open
// goes through package confine, the product's one confined opener: symbolic
// links are followed under the catalog's own rule (inside the source, or
// into the folders its follow_external_symlinks lists; never a loop), the
// file is opened through an os.Root so that the operating system refuses
// whatever would still lead out, and a FIFO or device never blocks a read;
// a link to a shared file elsewhere in the same root is followed
// (ARCHITECTURE §11). Open and Resolve are the one way the service reaches a
// skill's file on behalf of a caller: package sandbox uses them for scripts.
//
// It does not know about transports (package server converts File to the
// wire), does not cache content, and does not walk or index folders (package
// source and package catalog do).
package assets

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/confine"
	"github.com/skillsd/skillsd/services/skills/internal/defaults"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// Reasons of the errors this package returns (skills.v1 ErrorReason names).
const (
	ReasonFileNotFound = "FILE_NOT_FOUND"
	ReasonInvalidPath  = "INVALID_PATH"
	ReasonFileTooLarge = "FILE_TOO_LARGE"
	ReasonForbidden    = "FORBIDDEN"
)

// Defaults of Options.
const (
	// DefaultMaxSizeBytes is assets.max_size_bytes' default (seed 000 §11.2).
	DefaultMaxSizeBytes = 1 << 20
	// DefaultPageBytes is MAX_FILE_BYTES' default (seed 004).
	DefaultPageBytes = 65536
)

// maxDigestBytes bounds the files whose digest Read computes when the
// snapshot has none for them; a larger file is answered without a digest.
const maxDigestBytes = 64 << 20

// Options configures a Reader. The zero value uses the defaults.
type Options struct {
	// MaxSizeBytes: a binary file larger than this is refused
	// (FILE_TOO_LARGE, with its size), before any of it is read. It also
	// caps a page. Zero means DefaultMaxSizeBytes.
	MaxSizeBytes int64
	// PageBytes is the page size when the request gives none (MAX_FILE_BYTES).
	// Zero means DefaultPageBytes.
	PageBytes int64
}

// Reader reads skill files. It is safe for concurrent use.
type Reader struct {
	maxSize, page int64
}

// New returns a Reader.
func New(opts Options) *Reader {
	r := &Reader{maxSize: opts.MaxSizeBytes, page: opts.PageBytes}
	defaults.Set(&r.maxSize, DefaultMaxSizeBytes)
	defaults.Set(&r.page, DefaultPageBytes)
	return r
}

// Request names the file to read and the page.
type Request struct {
	// File is relative to the skill's folder, '/' separated (see CheckPath).
	File string
	// Offset is the byte to start at (0 or more, at most the file's size).
	Offset int64
	// MaxBytes is the page size; 0 means the Reader's default. Larger than
	// the Reader's MaxSizeBytes, it is lowered to that; for a text file it is
	// at least 4 (one whole UTF-8 character).
	MaxBytes int64
}

// File is (a page of) one file.
type File struct {
	// SkillPath is the skill asked about.
	SkillPath string
	// File is the cleaned path, relative to the folder it was found in.
	File string
	// Data is the page: for a text file, valid UTF-8 (a sequence that is not
	// is replaced by U+FFFD, and a page never ends inside a character: a
	// text page is at least 4 bytes, whatever MaxBytes asks).
	Data []byte
	// Text is false for a binary file.
	Text bool
	// Size is the whole file's size.
	Size int64
	// Type is the declared asset type, "script" for a declared script,
	// "other" for an undeclared file.
	Type string
	// MIME is the media type, without parameters.
	MIME string
	// ResolvedFrom is the path of the ancestor declaring the file when it was
	// found through inheritance; "" when it is the skill's own.
	ResolvedFrom string
	// Truncated says the page stops before the end of the file; NextOffset
	// is then where the next page starts.
	Truncated  bool
	NextOffset int64
	// Digest is "sha256:" and the hex digest of the whole file; "" for a
	// file over 64 MiB that the snapshot does not list.
	Digest string
}

// candidate is one place a requested file may be.
type candidate struct {
	owner *catalog.Skill
	from  string
	typ   string
	// declared is true when the file is a declared asset or script of owner.
	declared bool
}

// Read reads a page of a file of sk (a skill of snap): first in sk's own
// folder (any file there; its declared type when sk declares it), then, when
// sk's folder has no such file and sk does not declare it, among the assets
// and scripts its ancestors declare (seed 000 §7.5), with ResolvedFrom set.
//
// Errors are *failure.Error: INVALID_PATH (the path, a symbolic link leading
// out of the source, a file that is not regular), FILE_NOT_FOUND (nowhere to
// be found, or declared but missing), FILE_TOO_LARGE (a binary file over
// MaxSizeBytes), and InvalidArgument for a bad offset or page size.
func (r *Reader) Read(snap *catalog.Snapshot, sk *catalog.Skill, req Request) (*File, error) {
	clean, err := CheckPath("file", req.File)
	if err != nil {
		return nil, err
	}
	switch {
	case req.Offset < 0:
		return nil, failure.New(failure.InvalidArgument, "", "offset must not be negative (got %d)", req.Offset)
	case req.MaxBytes < 0:
		return nil, failure.New(failure.InvalidArgument, "", "max_bytes must not be negative (got %d); leave it at 0 for the default of %d", req.MaxBytes, r.page)
	}
	page := req.MaxBytes
	if page == 0 {
		page = r.page
	}
	page = min(page, r.maxSize)

	cands := candidates(snap, sk, clean)
	if len(cands) == 0 {
		return nil, notFound(sk, clean, "")
	}
	var (
		f     *os.File
		info  fs.FileInfo
		found candidate
	)
	for i, c := range cands {
		f, info, err = Open(c.owner.Source, c.owner.Dir, clean)
		if err == nil {
			found = c
			break
		}
		last := i == len(cands)-1
		if !failure.Is(err, failure.NotFound) || c.declared || last {
			if failure.Is(err, failure.NotFound) {
				return nil, notFound(sk, clean, missingNote(c))
			}
			return nil, withSkill(err, sk)
		}
	}
	defer f.Close()

	out := &File{SkillPath: sk.Path, File: clean, Size: info.Size(), Type: found.typ, ResolvedFrom: found.from}
	// A file binary by its extension alone is refused before any of it is read.
	if _, text := catalog.Kind(clean, nil); !text && out.Size > r.maxSize {
		return nil, tooLarge(sk, clean, out.Size, r.maxSize)
	}
	head := make([]byte, min(int64(catalog.SniffLen), out.Size))
	n, err := f.ReadAt(head, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, readError(sk, clean, err)
	}
	out.MIME, out.Text = catalog.Kind(clean, head[:n])
	if !out.Text && out.Size > r.maxSize {
		return nil, tooLarge(sk, clean, out.Size, r.maxSize)
	}
	if req.Offset > out.Size {
		return nil, failure.New(failure.InvalidArgument, "",
			"offset %d is past the end of %s (%d bytes)", req.Offset, clean, out.Size).With("file", clean).With("size_bytes", strconv.FormatInt(out.Size, 10))
	}

	if out.Text {
		page = max(page, utf8.UTFMax) // room for one whole character
	}
	buf := make([]byte, min(page, out.Size-req.Offset))
	n, err = f.ReadAt(buf, req.Offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, readError(sk, clean, err)
	}
	data := buf[:n]
	end := req.Offset + int64(n)
	if out.Text {
		if end < out.Size {
			if cut := incompleteTail(data); cut < len(data) {
				data = data[:cut]
				end = req.Offset + int64(cut)
			}
		}
		if !utf8.Valid(data) {
			data = []byte(strings.ToValidUTF8(string(data), "\uFFFD"))
		}
	}
	out.Data = data
	if end < out.Size {
		out.Truncated, out.NextOffset = true, end
	}
	out.Digest = digest(found.owner, clean, info, f)
	return out, nil
}

// candidates lists where clean may be, in lookup order.
func candidates(snap *catalog.Snapshot, sk *catalog.Skill, clean string) []candidate {
	var out []candidate
	if sk.Dir != "" {
		c := candidate{owner: sk, typ: "other"}
		own, _ := snap.Assets(sk)
		for _, a := range own {
			if a.File == clean {
				c.typ, c.declared = a.Type, true
				break
			}
		}
		if !c.declared {
			scripts, _ := snap.Scripts(sk)
			for _, s := range scripts {
				if s.File == clean {
					c.typ, c.declared = "script", true
					break
				}
			}
		}
		out = append(out, c)
		if c.declared {
			return out
		}
	}
	_, inherited := snap.Assets(sk)
	for _, a := range inherited {
		if a.File == clean && a.Owner != nil && a.Owner.Dir != "" {
			return append(out, candidate{owner: a.Owner, from: a.From, typ: a.Type, declared: true})
		}
	}
	_, scripts := snap.Scripts(sk)
	for _, s := range scripts {
		if s.File == clean && s.Owner != nil && s.Owner.Dir != "" {
			return append(out, candidate{owner: s.Owner, from: s.From, typ: "script", declared: true})
		}
	}
	return out
}

// incompleteTail returns the length of data without a trailing incomplete
// UTF-8 sequence, or len(data) when there is none (or cutting it would leave
// nothing).
func incompleteTail(data []byte) int {
	for back := 1; back < utf8.UTFMax && back <= len(data); back++ {
		c := data[len(data)-back]
		if !utf8.RuneStart(c) {
			continue
		}
		if !utf8.FullRune(data[len(data)-back:]) && len(data)-back > 0 {
			return len(data) - back
		}
		break
	}
	return len(data)
}

// digest returns the whole file's digest: the snapshot's when it lists the
// file unchanged, else computed from f.
func digest(owner *catalog.Skill, clean string, info fs.FileInfo, f *os.File) string {
	for _, cf := range owner.Files {
		if cf.Path == clean && cf.Size == info.Size() && cf.ModTime.Equal(info.ModTime()) && cf.Digest != "" {
			return cf.Digest
		}
	}
	if info.Size() > maxDigestBytes {
		return ""
	}
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, info.Size())); err != nil {
		return ""
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Open opens file (a path CheckPath accepted) of folder dir, a folder inside
// the source src, for reading. It goes through the source's confine.Tree:
// symbolic links are followed under the same rule as the catalog's walk
// (inside the source, or into the folders its follow_external_symlinks
// lists, never in a loop), the file is opened through an os.Root at the
// folder holding it, and a FIFO or device never blocks it. The file must be
// a regular file.
//
// Errors are *failure.Error: FILE_NOT_FOUND (NotFound), INVALID_PATH
// (PermissionDenied: the path leads out of the source, loops, or is not a
// regular file), FORBIDDEN (PermissionDenied: the server may not read it).
func Open(src *catalog.Source, dir, file string) (*os.File, fs.FileInfo, error) {
	name, err := inside(src, dir, file)
	if err != nil {
		return nil, nil, err
	}
	rule, err := src.Tree().Rule()
	if err != nil {
		return nil, nil, failure.New(failure.Unavailable, "", "the skill's source folder cannot be opened").Wrap(err)
	}
	f, info, err := rule.Open(name)
	if err != nil {
		if errors.Is(err, confine.ErrNotRegular) && info != nil {
			if info.IsDir() {
				return nil, nil, failure.New(failure.NotFound, ReasonFileNotFound,
					"%s is a folder, not a file; the skill's file list names the files in it", file).With("file", file)
			}
			return nil, nil, failure.New(failure.PermissionDenied, ReasonInvalidPath,
				"%s is %s, not a regular file: only regular files are served", file, confine.Describe(info.Mode())).With("file", file)
		}
		return nil, nil, openError(file, err)
	}
	return f, info, nil
}

// Resolve checks file of dir like Open and returns its real absolute path
// (symbolic links resolved), which lies inside the source's real folder or
// inside one of the folders its links may lead into: the path to give a
// program that must open the file itself.
func Resolve(src *catalog.Source, dir, file string) (string, error) {
	f, _, err := Open(src, dir, file)
	if err != nil {
		return "", err
	}
	f.Close()
	name, _ := inside(src, dir, file)
	real, _, err := src.Tree().Resolve(name)
	if err != nil {
		return "", openError(file, err)
	}
	return real, nil
}

// ResolveDir is Resolve for a folder: sub (a path CheckPath accepted) of
// dir, inside the source src, confined the same way. Errors are
// *failure.Error: FILE_NOT_FOUND when there is no such folder (or it is a
// file), INVALID_PATH when it resolves outside the source.
func ResolveDir(src *catalog.Source, dir, sub string) (string, error) {
	name, err := inside(src, dir, sub)
	if err != nil {
		return "", err
	}
	rule, err := src.Tree().Rule()
	if err != nil {
		return "", failure.New(failure.Unavailable, "", "the skill's source folder cannot be opened").Wrap(err)
	}
	real, info, err := rule.Resolve(name)
	if err != nil {
		return "", openError(sub, err)
	}
	if !info.IsDir() {
		return "", failure.New(failure.NotFound, ReasonFileNotFound, "%s is not a folder", sub).With("file", sub)
	}
	return real, nil
}

// inside returns file's path relative to src.Dir, checking that dir lies in
// src.Dir.
func inside(src *catalog.Source, dir, file string) (string, error) {
	if src == nil || dir == "" {
		return "", failure.New(failure.NotFound, ReasonFileNotFound, "%s: the skill has no folder", file).With("file", file)
	}
	rel, err := filepath.Rel(src.Dir, dir)
	if err != nil || (rel != "." && !filepath.IsLocal(rel)) {
		return "", failure.New(failure.Internal, "", "skill folder %s is outside its source %s", dir, src.Dir)
	}
	return filepath.Join(rel, filepath.FromSlash(file)), nil
}

// openError maps an error of opening a confined file.
func openError(file string, err error) error {
	var errno syscall.Errno
	switch {
	case errors.Is(err, confine.ErrOutside):
		return escapes(file)
	case errors.Is(err, confine.ErrLoop):
		return failure.New(failure.PermissionDenied, ReasonInvalidPath,
			"%s is not served: a symbolic link on its path leads back to one of its own parent folders (a loop), which the catalog does not follow either", file).With("file", file)
	case errors.Is(err, fs.ErrNotExist), errors.As(err, &errno) && errno == syscall.ENOTDIR:
		return failure.New(failure.NotFound, ReasonFileNotFound, "%s does not exist", file).With("file", file).Wrap(err)
	case errors.As(err, &errno) && errno == syscall.ELOOP:
		return failure.New(failure.PermissionDenied, ReasonInvalidPath,
			"%s cannot be opened: its symbolic links loop", file).With("file", file).Wrap(err)
	case errors.Is(err, fs.ErrPermission):
		return failure.New(failure.PermissionDenied, ReasonForbidden,
			"%s cannot be read by the server (permission denied)", file).With("file", file).Wrap(err)
	}
	return failure.New(failure.Internal, "", "opening %s", file).Wrap(err)
}

func escapes(file string) *failure.Error {
	return failure.New(failure.PermissionDenied, ReasonInvalidPath,
		"%s resolves outside the skill's source (a symbolic link leading out of it, not listed in follow_external_symlinks): it is not served", file).With("file", file)
}

// notFound is the FILE_NOT_FOUND error for clean in sk; note adds detail.
func notFound(sk *catalog.Skill, clean, note string) error {
	msg := fmt.Sprintf("file %q not found in skill %q", clean, sk.Path)
	if note != "" {
		msg += ": " + note
	} else if sk.Dir == "" {
		msg += ": the skill has no folder, and none of the skills it inherits from declares that file"
	} else {
		msg += ": its folder has no such file, and none of the skills it inherits from declares it; the skill's file list names what exists"
	}
	return failure.New(failure.NotFound, ReasonFileNotFound, "%s", msg).With("skill_path", sk.Path).With("file", clean)
}

func missingNote(c candidate) string {
	if c.from != "" {
		return fmt.Sprintf("%s declares it, but the file is missing from its folder", c.from)
	}
	if c.declared {
		return "the skill declares it, but the file is missing from its folder"
	}
	return ""
}

func tooLarge(sk *catalog.Skill, clean string, size, limit int64) error {
	return failure.New(failure.ResourceExhausted, ReasonFileTooLarge,
		"%s is %s (%d bytes), more than the %s (%d bytes) a binary file may have (assets.max_size_bytes)",
		clean, human(size), size, human(limit), limit).
		With("skill_path", sk.Path).With("file", clean).
		With("size_bytes", strconv.FormatInt(size, 10)).With("limit_bytes", strconv.FormatInt(limit, 10))
}

func readError(sk *catalog.Skill, clean string, err error) error {
	return failure.New(failure.Internal, "", "reading %s of %s", clean, sk.Path).Wrap(err)
}

// withSkill adds the skill path to a failure's metadata.
func withSkill(err error, sk *catalog.Skill) error {
	var fe *failure.Error
	if errors.As(err, &fe) && fe.Kind != failure.Internal {
		fe.With("skill_path", sk.Path)
	}
	return err
}

// human writes a size in KiB or MiB.
func human(n int64) string {
	switch {
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
