package assets

import (
	"net/url"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

// hostilePaths are paths a caller may send to get out of a skill's folder,
// or to confuse the server; each must be refused before the disk is touched.
var hostilePaths = []struct {
	name, path string
}{
	{"empty", ""},
	{"dot-dot", ".."},
	{"dot-dot-slash", "../secret"},
	{"dot-dot-deep", "../../../../etc/passwd"},
	{"dot-dot-inside", "assets/../../secret"},
	{"dot-dot-trailing", "assets/.."},
	{"absolute", "/etc/passwd"},
	{"absolute-double-slash", "//etc/passwd"},
	{"backslash", `assets\..\..\secret`},
	{"backslash-only", `..\secret`},
	{"windows-drive", `C:\Windows\win.ini`},
	{"windows-drive-slash", "C:/Windows/win.ini"},
	{"windows-unc", `\\server\share\x`},
	{"nul", "assets/x\x00.png"},
	{"nul-truncation", "SKILL.md\x00../../etc/passwd"},
	{"newline", "assets/x\n.md"},
	{"control", "assets/\x1b[31mred"},
	{"del", "assets/\x7f"},
	{"invalid-utf8", "assets/\xff\xfe"},
	{"overlong-dot", "\xc0\xae\xc0\xae/secret"},
	{"encoded-dot-dot", "%2e%2e/secret"},
	{"encoded-dot-dot-upper", "%2E%2E/secret"},
	{"encoded-mixed", ".%2e/secret"},
	{"encoded-slash", "..%2fsecret"},
	{"encoded-slash-upper", "..%2Fsecret"},
	{"encoded-backslash", "..%5csecret"},
	{"encoded-absolute", "%2fetc%2fpasswd"},
	{"encoded-nul", "SKILL.md%00.png"},
	{"double-encoded", "%252e%252e/secret"},
	{"double-encoded-slash", "..%252fsecret"},
	{"triple-encoded", "%25252e%25252e/secret"},
	{"quadruple-encoded", "%2525252e"},
	{"encoded-overlong", "%c0%ae%c0%ae/secret"},
	{"hidden-env", ".env"},
	{"hidden-git", ".git/config"},
	{"hidden-inside", "assets/.secrets/key"},
	{"encoded-hidden", "%2eenv"},
	{"node-modules", "node_modules/x/index.js"},
	{"dot-only", "."},
	{"slash-only", "/"},
	{"dot-slash-only", "./"},
	{"too-long", strings.Repeat("a/", MaxPathLen)},
}

func TestCheckPathRefusesHostilePaths(t *testing.T) {
	for _, tc := range hostilePaths {
		t.Run(tc.name, func(t *testing.T) {
			clean, err := CheckPath("file", tc.path)
			if err == nil {
				t.Fatalf("CheckPath(%q): got %q, want an error", tc.path, clean)
			}
			var fe *failure.Error
			if !asFailure(err, &fe) || fe.Kind != failure.InvalidArgument || fe.Reason != ReasonInvalidPath {
				t.Errorf("CheckPath(%q): got %#v, want InvalidArgument INVALID_PATH", tc.path, err)
			}
			if !utf8.ValidString(fe.Message) || !utf8.ValidString(fe.Metadata["file"]) {
				t.Errorf("CheckPath(%q): message or metadata not UTF-8: %q %q", tc.path, fe.Message, fe.Metadata["file"])
			}
			if strings.ContainsRune(fe.Message, 0) {
				t.Errorf("CheckPath(%q): message holds a raw NUL: %q", tc.path, fe.Message)
			}
		})
	}
}

func TestCheckPathAcceptsAndCleans(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SKILL.md", "SKILL.md"},
		{"assets/logo.png", "assets/logo.png"},
		{"./assets/logo.png", "assets/logo.png"},
		{"assets//logo.png", "assets/logo.png"},
		{"assets/./logo.png", "assets/logo.png"},
		{"assets/", "assets"},
		{"100%.txt", "100%.txt"},       // a literal '%'
		{"a%20b.txt", "a%20b.txt"},     // decodes to something harmless: opened as written
		{"a%2fb.txt", "a%2fb.txt"},     // decodes to a/b.txt: harmless, opened as written
		{"foo../bar..", "foo../bar.."}, // dots inside names are fine
		{"dir.d/x", "dir.d/x"},         // so are dots in folder names
		{"ünïcödé/файл.md", "ünïcödé/файл.md"},
		{"~/x", "~/x"}, // '~' means nothing without a shell
	}
	for _, tc := range tests {
		got, err := CheckPath("file", tc.in)
		if err != nil {
			t.Errorf("CheckPath(%q): %v, want %q", tc.in, err, tc.want)
			continue
		}
		if got != tc.want {
			t.Errorf("CheckPath(%q): got %q, want %q", tc.in, got, tc.want)
		}
	}
}

func asFailure(err error, fe **failure.Error) bool {
	e, ok := err.(*failure.Error)
	*fe = e
	return ok
}

// FuzzCheckPath checks the promise of CheckPath on any input: an accepted
// path is clean, relative, free of '..', backslashes and control characters in
// every decoded form, and stays under any folder it is joined to.
func FuzzCheckPath(f *testing.F) {
	for _, tc := range hostilePaths {
		f.Add(tc.path)
	}
	for _, s := range []string{"SKILL.md", "assets/x.png", "./a//b", "100%.txt", "a%2fb", "%2e", "%%32%65"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		clean, err := CheckPath("file", p)
		if err != nil {
			if clean != "" {
				t.Fatalf("CheckPath(%q): error %v with a result %q", p, err, clean)
			}
			return
		}
		if clean == "" || clean == "." || path.Clean(clean) != clean {
			t.Fatalf("CheckPath(%q) = %q: not a clean path", p, clean)
		}
		if !filepath.IsLocal(filepath.FromSlash(clean)) || !filepath.IsLocal(clean) {
			t.Fatalf("CheckPath(%q) = %q: not local", p, clean)
		}
		base := filepath.FromSlash("/base/skill")
		if j := filepath.Join(base, filepath.FromSlash(clean)); !strings.HasPrefix(j, base+string(filepath.Separator)) {
			t.Fatalf("CheckPath(%q) = %q: joined to %s gives %s", p, clean, base, j)
		}
		for cur, i := p, 0; i <= maxDecodeDepth; i++ {
			if strings.Contains(cur, "\\") || strings.ContainsFunc(cur, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Fatalf("CheckPath(%q) accepted a form %q with a backslash or control character", p, cur)
			}
			for seg := range strings.SplitSeq(cur, "/") {
				if seg == ".." {
					t.Fatalf("CheckPath(%q) accepted a form %q with '..'", p, cur)
				}
			}
			if strings.HasPrefix(cur, "/") {
				t.Fatalf("CheckPath(%q) accepted an absolute form %q", p, cur)
			}
			next, err := url.PathUnescape(cur)
			if err != nil || next == cur {
				break
			}
			cur = next
		}
	})
}
