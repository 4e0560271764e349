package content

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// FuzzDocCandidates: whatever the segments, an accepted path yields only
// local, clean, slash-separated candidates that begin with the joined path
// and have no ".." element, and a refused one is an INVALID_PATH error.
func FuzzDocCandidates(f *testing.F) {
	for _, seed := range []string{"guides\x00setup", "..", "/etc", `a\b`, "a//b", "guides/setup", "", "index", "a\x00..\x00b", ".", "a/./b"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, joined string) {
		segs := strings.Split(joined, "\x00")
		if joined == "" {
			segs = nil
		}
		cands, j, err := DocCandidates(segs)
		if err != nil {
			if !strings.Contains(err.Error(), "path") {
				t.Fatalf("error %q does not name the path", err)
			}
			return
		}
		if len(cands) != 2 && len(cands) != 4 {
			t.Fatalf("%d candidates: %q", len(cands), cands)
		}
		for _, c := range cands {
			if !filepath.IsLocal(filepath.FromSlash(c)) || path.Clean(c) != c || slices.Contains(strings.Split(c, "/"), "..") || strings.Contains(c, `\`) {
				t.Fatalf("segments %q: candidate %q is not a clean local path", segs, c)
			}
			if j != "" && !strings.HasPrefix(c, j) {
				t.Fatalf("segments %q: candidate %q does not start with %q", segs, c, j)
			}
		}
	})
}

// FuzzAgentFromFile: any bytes give an agent with a name and a non-nil tool
// list, without panicking.
func FuzzAgentFromFile(f *testing.F) {
	f.Add([]byte("---\nname: a\ntools: [Read, 3, {x: y}]\n---\nbody"))
	f.Add([]byte("---\ntools: Read, Grep\n"))
	f.Add([]byte("\uFEFF---\r\nname: b\r\n---\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a := agentFromFile(Folder{Prefix: "agents"}, "x.md", data)
		if a.Name == "" || a.AllowedTools == nil || a.Path != "agents/x.md" {
			t.Fatalf("agent %+v", a)
		}
	})
}
