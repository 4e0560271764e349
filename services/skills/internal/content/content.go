// Package content indexes the content an organisation keeps beside its skills
// (seed 003): agent profiles (<agents folder>/*.md) and a documentation tree
// (.md and .mdx files with the index.md convention). It owns reading those
// folders, their frontmatter, the docs hierarchy, the path rules of the get
// operations (REQ-SEC-001) and the git blob SHA of each file. Reads are
// confined to each folder by the OS (os.Root): a symlink that leads outside is
// refused.
//
// It knows nothing of gRPC or of where a folder came from (a local folder or
// a git checkout); package server adapts it to the wire and skillsd wires the
// folders. Errors are failure.Errors.
package content

import (
	"bytes"
	"context"
	"crypto/sha1" //nolint:gosec // git's blob id is SHA-1: it names content, it protects nothing
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/confine"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// Folder is one content folder.
type Folder struct {
	// Dir is the folder on disk (absolute). Empty means none is configured.
	Dir string
	// Prefix is the folder's path as answers show it: its path inside its
	// repository ("agents", "docs/content"), or its own name for a plain
	// local folder. Answers' paths are Prefix + "/" + the file's relative path.
	Prefix string
	// Kind names what the folder holds, for messages: "agents" or "docs".
	Kind string
	// Refresh, when set, brings the folder up to date from its origin (a git
	// fetch); gets with skip_cache call it first. nil: the folder is local.
	Refresh func(ctx context.Context) error
}

// rule is the confine rule of the folder's tree; nil, and no error, when no
// folder is configured or it does not exist (an empty folder, to a listing).
func (f Folder) rule() (*confine.Rule, error) {
	if f.Dir == "" {
		return nil, nil
	}
	r, err := confine.Tree{Dir: f.Dir}.Rule()
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return r, err
}

// display is the path of rel (slash-separated, relative to the folder) as
// answers show it.
func (f Folder) display(rel string) string {
	if f.Prefix == "" || f.Prefix == "." {
		return rel
	}
	return strings.TrimSuffix(f.Prefix, "/") + "/" + rel
}

// BlobSHA is git's object id of a file with these bytes (the sha GitHub's
// contents API reports), so that an answer's sha is the same whether the
// content came from a checkout or from GitHub.
func BlobSHA(data []byte) string {
	h := sha1.New() //nolint:gosec // see the import
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// CheckSegment applies REQ-SEC-001 to one name, file or path segment: it must
// not be empty, contain "..", start with "/", or contain "\" or a NUL byte.
// what names the value in the message ("name", "path[1]").
func CheckSegment(what, v string) error {
	var why string
	switch {
	case v == "":
		why = "is empty"
	case strings.Contains(v, ".."):
		why = `contains ".."`
	case strings.HasPrefix(v, "/"):
		why = `starts with "/"`
	case strings.Contains(v, `\`):
		why = `contains "\"`
	case strings.ContainsRune(v, 0):
		why = "contains a NUL byte"
	case len(v) > 1024:
		why = "is longer than 1024 bytes"
	default:
		return nil
	}
	return failure.New(failure.InvalidArgument, "INVALID_PATH", "%s %q %s: names and path segments may not contain \"..\", start with \"/\" or contain \"\\\"", what, clip(v), why).With("path", clip(v))
}

// clip shortens v for a message.
func clip(v string) string {
	if len(v) > 120 {
		return v[:120] + "…"
	}
	return v
}

// normalize turns file bytes into the text frontmatter parsing expects: no
// byte-order mark, \n line endings.
func normalize(data []byte) string {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	return strings.ReplaceAll(string(data), "\r\n", "\n")
}
