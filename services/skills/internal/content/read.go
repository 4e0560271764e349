package content

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/confine"
)

// headBytes is how much of a file indexing reads: frontmatter and the first
// heading are at the top.
const headBytes = 256 << 10

// MaxFileBytes is the largest profile or page a get returns.
const MaxFileBytes = 4 << 20

// errTooLarge reports a file over MaxFileBytes.
type errTooLarge struct{ size int64 }

func (e errTooLarge) Error() string { return fmt.Sprintf("file of %d bytes", e.size) }

// Diagnostic is one file of a content folder that is left out of the
// listings, and why: a FIFO, device or socket named like a page, a symbolic
// link leading outside the folder or in a loop, a file that cannot be read.
type Diagnostic struct {
	// Kind is the folder's kind: "agents" or "docs".
	Kind string
	// Path is the file's path as answers show it (Folder.Prefix + "/" + rel).
	Path string
	// Code is a short stable identifier: special-file, symlink-escape,
	// symlink-loop, symlink-broken, file-unreadable.
	Code string
	// Message says what is wrong.
	Message string
}

// diagnose turns a file that cannot be listed into a Diagnostic.
func diagnose(folder Folder, rel string, info fs.FileInfo, err error) Diagnostic {
	d := Diagnostic{Kind: folder.Kind, Path: folder.display(rel)}
	switch {
	case errors.Is(err, confine.ErrNotRegular) && info != nil:
		d.Code = "special-file"
		d.Message = fmt.Sprintf("%s is %s, not a regular file: it is never read or served", d.Path, confine.Describe(info.Mode()))
	case errors.Is(err, confine.ErrOutside):
		d.Code = "symlink-escape"
		d.Message = fmt.Sprintf("%s is a symbolic link leading outside the %s folder: not followed", d.Path, folder.Kind)
	case errors.Is(err, confine.ErrLoop):
		d.Code = "symlink-loop"
		d.Message = fmt.Sprintf("%s is a symbolic link in a loop: not followed", d.Path)
	case errors.Is(err, fs.ErrNotExist):
		d.Code = "symlink-broken"
		d.Message = fmt.Sprintf("%s is a symbolic link whose target does not exist: not followed", d.Path)
	default:
		d.Code = "file-unreadable"
		d.Message = fmt.Sprintf("%s cannot be read: %v", d.Path, err)
	}
	return d
}

// readHead reads at most headBytes of a regular file below the rule's folder.
func readHead(rule *confine.Rule, rel string) ([]byte, error) {
	f, _, err := rule.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, headBytes))
}

// readWhole reads a regular file below the rule's folder, refusing one
// larger than MaxFileBytes with errTooLarge.
func readWhole(rule *confine.Rule, rel string) ([]byte, error) {
	f, info, err := rule.Open(rel)
	if err != nil {
		if errors.Is(err, confine.ErrNotRegular) && info != nil && info.IsDir() {
			// A folder named like a page (x.md/): there is no such page.
			return nil, fmt.Errorf("%s is a folder: %w", rel, fs.ErrNotExist)
		}
		return nil, errNotRegular{err: err, info: info}.orSelf()
	}
	defer f.Close()
	if info.Size() > MaxFileBytes {
		return nil, errTooLarge{info.Size()}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileBytes {
		return nil, errTooLarge{int64(len(data))}
	}
	return data, nil
}

// errNotRegular carries the information of a special file met by a read, so
// that its error can say what it is.
type errNotRegular struct {
	err  error
	info fs.FileInfo
}

func (e errNotRegular) Error() string { return e.err.Error() }
func (e errNotRegular) Unwrap() error { return e.err }

// orSelf returns e when it describes a special file, else the plain error.
func (e errNotRegular) orSelf() error {
	if errors.Is(e.err, confine.ErrNotRegular) && e.info != nil {
		return e
	}
	return e.err
}

// describeReadError says why a read failed, for an answer's message.
func describeReadError(err error) string {
	var nr errNotRegular
	switch {
	case errors.As(err, &nr):
		return "is " + confine.Describe(nr.info.Mode()) + ", not a regular file"
	case errors.Is(err, confine.ErrOutside):
		return "is a symbolic link leading outside the folder"
	case errors.Is(err, confine.ErrLoop):
		return "is reached through a symbolic link in a loop"
	}
	return "cannot be read (" + strings.TrimSpace(err.Error()) + ")"
}
