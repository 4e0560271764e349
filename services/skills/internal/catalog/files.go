package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/skillsd/skillsd/services/skills/internal/confine"
)

// binaryExt is seed 000 §7.2's list: files with these extensions are binary,
// whatever their content.
var binaryExt = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".svg": true, ".ico": true,
	".webp": true, ".pdf": true, ".zip": true, ".woff": true, ".woff2": true,
}

// mimeByExt is the fixed part of the MIME table: seed 000 §7.2's entries, then
// the text types skills commonly hold. It comes before the system's table
// (mime.TypeByExtension, which differs between machines) so that common files
// get the same type everywhere. Types never carry parameters.
var mimeByExt = map[string]string{
	// seed 000 §7.2
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".svg": "image/svg+xml", ".pdf": "application/pdf", ".zip": "application/zip",
	".woff": "font/woff", ".woff2": "font/woff2",
	// the rest of seed 000's binary list
	".ico": "image/x-icon", ".webp": "image/webp",
	// text
	".md": "text/markdown", ".mdx": "text/markdown", ".markdown": "text/markdown",
	".txt": "text/plain", ".text": "text/plain", ".log": "text/plain",
	".sh": "text/x-shellscript", ".bash": "text/x-shellscript", ".zsh": "text/x-shellscript",
	".py": "text/x-python", ".rb": "text/x-ruby", ".go": "text/x-go", ".rs": "text/x-rust",
	".java": "text/x-java", ".c": "text/x-c", ".h": "text/x-c", ".cpp": "text/x-c++", ".hpp": "text/x-c++",
	".cs": "text/x-csharp", ".swift": "text/x-swift", ".kt": "text/x-kotlin", ".php": "text/x-php",
	".lua": "text/x-lua", ".r": "text/x-r", ".pl": "text/x-perl", ".ps1": "text/x-powershell",
	".sql": "application/sql", ".js": "text/javascript", ".mjs": "text/javascript", ".cjs": "text/javascript", ".jsx": "text/javascript",
	".ts": "text/x-typescript", ".tsx": "text/x-typescript", ".mts": "text/x-typescript",
	".json": "application/json", ".jsonl": "application/jsonl", ".yaml": "application/yaml",
	".yml": "application/yaml", ".toml": "application/toml", ".xml": "application/xml",
	".html": "text/html", ".htm": "text/html", ".css": "text/css", ".csv": "text/csv",
	".tsv": "text/tab-separated-values", ".ini": "text/plain", ".cfg": "text/plain", ".conf": "text/plain",
	".env": "text/plain", ".tex": "text/x-tex", ".rst": "text/x-rst", ".hcl": "text/plain",
	".tf": "text/plain", ".dot": "text/vnd.graphviz", ".mermaid": "text/plain", ".mmd": "text/plain",
	".template": "text/plain", ".tmpl": "text/plain", ".example": "text/plain",
}

// sniffLen is how much of a file is looked at to tell text from binary (the
// length http.DetectContentType considers).
const sniffLen = 512

// SniffLen is how many leading bytes of a file Kind looks at.
const SniffLen = sniffLen

// Kind returns a file's MIME type and whether it is text, from its name and
// its first bytes (up to SniffLen): the rule the catalog applies to every
// file (see fileKind), for readers that meet a file the snapshot does not
// list.
func Kind(name string, head []byte) (mimeType string, text bool) { return fileKind(name, head) }

// fileKind decides a file's MIME type and text flag from its name and the
// first bytes of its content (up to sniffLen).
//
// Text or binary: seed 000 §7.2's extension list says binary for its
// extensions; any other file is binary when its head holds a NUL byte, or is
// neither valid UTF-8 nor sniffed as text/* by http.DetectContentType.
//
// MIME: the table above, then the system's (mime.TypeByExtension), then
// sniffing; a text file nothing names is "text/plain", a binary one
// "application/octet-stream". A binary file whose extension names a text type
// is "application/octet-stream". Parameters (charset) are dropped.
func fileKind(name string, head []byte) (mimeType string, text bool) {
	ext := strings.ToLower(path.Ext(name))
	if binaryExt[ext] {
		return mimeByExt[ext], false
	}
	sniffed := ""
	text = isText(head, &sniffed)
	mimeType = mimeByExt[ext]
	if mimeType == "" && ext != "" {
		mimeType = stripParams(mime.TypeByExtension(ext))
	}
	if mimeType == "" {
		if sniffed == "" {
			sniffed = stripParams(http.DetectContentType(head))
		}
		mimeType = sniffed
	}
	switch {
	case text && (mimeType == "application/octet-stream" || mimeType == ""):
		mimeType = "text/plain"
	case !text && (strings.HasPrefix(mimeType, "text/") || mimeType == ""):
		mimeType = "application/octet-stream"
	}
	return mimeType, text
}

// isText reports whether head looks like text; it leaves the sniffed type in
// *sniffed when it had to compute it.
func isText(head []byte, sniffed *string) bool {
	for _, c := range head {
		if c == 0 {
			return false
		}
	}
	if validUTF8Prefix(head) {
		return true
	}
	*sniffed = stripParams(http.DetectContentType(head))
	return strings.HasPrefix(*sniffed, "text/")
}

// validUTF8Prefix is utf8.Valid, allowing head to end inside a rune (it is a
// prefix of the file).
func validUTF8Prefix(b []byte) bool {
	if utf8.Valid(b) {
		return true
	}
	for cut := 1; cut <= utf8.UTFMax-1 && cut <= len(b); cut++ {
		tail := b[len(b)-cut:]
		if !utf8.RuneStart(tail[0]) {
			continue
		}
		return !utf8.FullRune(tail) && utf8.Valid(b[:len(b)-cut])
	}
	return false
}

func stripParams(t string) string {
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	return strings.TrimSpace(t)
}

// hashBufSize is the read buffer of one hashing worker.
const hashBufSize = 64 << 10

// hashFile reads the file once: its sha256 digest, size, MIME type and text
// flag. buf is the caller's scratch buffer (at least sniffLen bytes).
func hashFile(abs, name string, buf []byte) (File, error) {
	f, err := confine.OpenResolved(abs)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	h := sha256.New()
	var size int64
	var head []byte
	for {
		n, err := f.Read(buf)
		if n > 0 {
			if head == nil {
				head = append([]byte(nil), buf[:min(n, sniffLen)]...)
			} else if len(head) < sniffLen {
				head = append(head, buf[:min(n, sniffLen-len(head))]...)
			}
			h.Write(buf[:n])
			size += int64(n)
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return File{}, err
		}
	}
	mt, text := fileKind(name, head)
	var sum [sha256.Size]byte
	return File{
		Size:   size,
		Digest: "sha256:" + hex.EncodeToString(h.Sum(sum[:0])),
		MIME:   mt,
		Text:   text,
	}, nil
}
