package gitsync

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCacheName checks that any URL and ref name one folder inside the cache:
// never empty, never "." or "..", never with a separator.
func FuzzCacheName(f *testing.F) {
	for _, s := range []string{"https://github.com/org/skills.git", "git@github.com:o/r.git", "file:///", "../..", "", "a/../../b", `C:\x\..`} {
		f.Add(s, "main")
	}
	f.Fuzz(func(t *testing.T, url, ref string) {
		name := cacheName(url, ref)
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || filepath.Base(name) != name {
			t.Errorf("cacheName(%q, %q) = %q: not one folder name", url, ref, name)
		}
	})
}
