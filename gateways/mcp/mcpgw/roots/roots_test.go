package roots

import (
	"path"
	"slices"
	"strings"
	"testing"
)

func TestRootPath(t *testing.T) {
	for _, tc := range []struct {
		uri     string
		windows bool
		want    string // "" means not a local folder
	}{
		{"file:///home/me/project", false, "/home/me/project"},
		{"file:///home/me/My%20Project/", false, "/home/me/My Project"},
		{"file:///home/me/caf%C3%A9", false, "/home/me/café"},
		{"FILE:///srv", false, "/srv"},
		{"file://localhost/srv/a/../b", false, "/srv/b"},
		{"file:/srv", false, "/srv"},
		{"file:///", false, "/"},
		{"file://server/share", false, ""},
		{"file:relative/dir", false, ""},
		{"file://", false, ""},
		{"file:///bad%zzescape", false, ""},
		{"file:///nul%00byte", false, ""},
		{"file://user@localhost/srv", false, ""},
		{"https://example.com/repo", false, ""},
		{"/home/me/project", false, ""},
		{"", false, ""},
		{"file:///C:/Users/me/My%20Project", true, `C:\Users\me\My Project`},
		{"file:///c:", true, `c:\`},
		{"file:///C:/", true, `C:\`},
		{"file://localhost/D:/work", true, `D:\work`},
		{"file://server/share/dir", true, `\\server\share\dir`},
		{"file://server/", true, ""},
		{"file://../0", true, ""},
		{"file:///C:/a%5C..%5C..", true, ""},
		{"file://./C:/x", true, ""},
		{"file://%5C%5C/x", true, ""},
		{"file://[::1]/share", true, ""},
		{"file://192.168.1.2/share/", true, `\\192.168.1.2\share`},
		{"file:///home/me", true, ""},
		{"file:///C:relative", true, ""},
		{"file:///1:/x", true, ""},
	} {
		got, ok := rootPath(tc.uri, tc.windows)
		if ok != (tc.want != "") || got != tc.want {
			t.Errorf("rootPath(%q, windows=%v): got %q, %v; want %q", tc.uri, tc.windows, got, ok, tc.want)
		}
	}
}

func FuzzRootPath(f *testing.F) {
	for _, s := range []string{"file:///home/me", "file:///C:/x%20y", "file://server/share", "file:/a/../..", "https://x", "file:///%2e%2e/x", "file://../0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		if p, ok := rootPath(uri, false); ok {
			if !strings.HasPrefix(p, "/") || path.Clean(p) != p || strings.ContainsRune(p, 0) {
				t.Errorf("rootPath(%q): %q is not a clean absolute path", uri, p)
			}
		}
		if p, ok := rootPath(uri, true); ok {
			drive := len(p) >= 3 && isASCIILetter(p[0]) && p[1] == ':' && p[2] == '\\'
			unc := strings.HasPrefix(p, `\\`) && len(p) > 2 && p[2] != '\\'
			if !drive && !unc || strings.Contains(p, "/") || strings.ContainsRune(p, 0) || slices.Contains(strings.Split(p, `\`), "..") {
				t.Errorf("rootPath(%q, windows): %q is not an absolute Windows path", uri, p)
			}
		}
	})
}
