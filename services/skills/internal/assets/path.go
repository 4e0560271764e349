package assets

import (
	"net/url"
	"path"
	"runtime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// MaxPathLen bounds a requested path, in bytes.
const MaxPathLen = 1024

// maxDecodeDepth is how many rounds of percent-decoding CheckPath looks
// through (a path encoded more deeply than that is refused outright).
const maxDecodeDepth = 3

// CheckPath validates a file path given by a caller, before anything touches
// the disk, and returns it cleaned ('.' and empty segments dropped). The path
// must be relative to a skill's folder, with '/' separators: it is refused
// when it is empty, too long, not UTF-8, holds a NUL or another control
// character, a backslash, a '..' segment, or is absolute (a leading '/', or a
// drive letter such as "C:"), or goes through a hidden file or folder (a name
// starting with '.', such as .env or .git, or node_modules: the catalog's file
// lists leave them out, and they often hold secrets). The same checks apply
// to every percent-decoded form of the path (so "%2e%2e/x", "..%2fx" and
// "%252e%252e" are refused too, whether or not a gateway decoded them once
// already), and a path still encoded after three rounds of decoding is
// refused.
//
// The error is a *failure.Error of kind InvalidArgument and reason
// INVALID_PATH, whose message says what is wrong; a path that leaves the
// skill's folder ('..', absolute, a drive letter) is called a path traversal,
// in seed 000's words (§8.3, §12.1). what names the argument in messages
// ("file", "cwd").
func CheckPath(what, p string) (string, error) {
	if p == "" {
		return "", invalid(what, p, "%s is required: give a path relative to the skill's folder, such as \"assets/template.md\"", what)
	}
	if len(p) > MaxPathLen {
		return "", invalid(what, p, "%s is longer than %d bytes", what, MaxPathLen)
	}
	// p and its percent-decoded forms, up to maxDecodeDepth rounds.
	forms := []string{p}
	for cur := p; strings.Contains(cur, "%"); {
		next, err := url.PathUnescape(cur)
		if err != nil || next == cur {
			break // a literal '%' (as in "100%.txt") is a legal file name
		}
		if len(forms) > maxDecodeDepth {
			return "", invalid(what, p, "%s %s is percent-encoded several times over: encoded paths are refused", what, strconv.Quote(p))
		}
		forms = append(forms, next)
		cur = next
	}
	for _, check := range []func(string) string{structural, hidden} {
		for i, form := range forms {
			if msg := check(form); msg != "" {
				if i > 0 {
					return "", invalid(what, p, "%s %s is refused: encoded paths are not accepted, and once percent-decoded it %s", what, strconv.Quote(p), msg)
				}
				return "", invalid(what, p, "%s %s %s", what, strconv.Quote(p), msg)
			}
		}
	}
	clean := path.Clean(p)
	if clean == "." {
		return "", invalid(what, p, "%s %s names the skill's folder itself, not a file in it", what, strconv.Quote(p))
	}
	return clean, nil
}

// structural says what makes p unsafe as a relative path, or returns "".
func structural(p string) string {
	if !utf8.ValidString(p) {
		return "is not valid UTF-8"
	}
	for _, r := range p {
		if r < 0x20 || r == 0x7f {
			if r == 0 {
				return "holds a NUL byte"
			}
			return "holds a control character"
		}
	}
	switch {
	case strings.IndexByte(p, '\\') >= 0:
		return "holds a backslash; use '/' between folders"
	case p[0] == '/':
		return "is a path traversal: an absolute path leaves the skill's folder; give a path relative to the skill's folder"
	case len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]):
		return "is a path traversal: a path starting with a drive letter leaves the skill's folder; give a path relative to the skill's folder"
	case runtime.GOOS == "windows" && strings.IndexByte(p, ':') >= 0:
		return "holds a ':' (an alternate data stream on Windows)"
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == ".." {
			return "is a path traversal: it climbs out of the skill's folder with '..'; give a path inside the skill's folder"
		}
	}
	return ""
}

// hidden says which hidden file or folder p goes through, or returns "".
func hidden(p string) string {
	for seg := range strings.SplitSeq(p, "/") {
		if seg != "." && strings.HasPrefix(seg, ".") || seg == "node_modules" {
			return "goes through " + strconv.Quote(seg) + ": hidden files and folders (and node_modules) are not served, as in the skill's file list"
		}
	}
	return ""
}

func isASCIILetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

func invalid(what, p, format string, args ...any) *failure.Error {
	return failure.New(failure.InvalidArgument, ReasonInvalidPath, format, args...).With(what, printable(p))
}

// printable is p made safe for error metadata (which must be UTF-8) and
// bounded in length.
func printable(p string) string {
	p = strings.ToValidUTF8(p, "\uFFFD")
	if len(p) > 256 {
		p = strings.ToValidUTF8(p[:256], "") + "…"
	}
	return p
}
