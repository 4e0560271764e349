package assets

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// seed000 is the seed-000 fixture tree shared with package catalog.
var seed000 = filepath.Join("..", "catalog", "testdata", "seed000-tree")

// build builds a snapshot of one local source.
func build(t testing.TB, dir string) *catalog.Snapshot {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := catalog.Build(t.Context(), []*source.Root{{Name: abs, Dir: abs, Kind: source.KindLocal, Trusted: true}}, catalog.Options{})
	if err != nil {
		t.Fatalf("catalog.Build: %v", err)
	}
	return snap
}

func skillOf(t *testing.T, snap *catalog.Snapshot, ref string) *catalog.Skill {
	t.Helper()
	sk, err := snap.Lookup(ref)
	if err != nil {
		t.Fatalf("Lookup(%q): %v", ref, err)
	}
	return sk
}

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func wantFailure(t *testing.T, err error, kind failure.Kind, reason string, inMessage ...string) {
	t.Helper()
	var fe *failure.Error
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want a %v %s failure", err, kind, reason)
	}
	if fe.Kind != kind || fe.Reason != reason {
		t.Errorf("got %v %q (%q), want %v %q", fe.Kind, fe.Reason, fe.Message, kind, reason)
	}
	for _, s := range inMessage {
		if !strings.Contains(fe.Message, s) {
			t.Errorf("message %q does not mention %q", fe.Message, s)
		}
	}
}

func sha(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func TestReadSeed000(t *testing.T) {
	snap := build(t, seed000)
	r := New(Options{})
	tests := []struct {
		name, skill, file      string
		wantType, wantFrom     string
		wantDiskPath, wantMIME string
	}{
		{"own asset", "ui/react/auth", "assets/AuthProvider.tsx.template", "template", "", "ui/react/auth/assets/AuthProvider.tsx.template", "text/plain"},
		{"own asset example", "ui/react/auth", "assets/auth-config.example.ts", "example", "", "ui/react/auth/assets/auth-config.example.ts", "text/x-typescript"},
		{"own script", "ui/react/auth", "scripts/validate-auth-config.ts", "script", "", "ui/react/auth/scripts/validate-auth-config.ts", "text/x-typescript"},
		{"inherited asset", "ui/react/auth", "assets/component-base.tsx.template", "template", "ui/react/_index", "ui/react/_index/assets/component-base.tsx.template", "text/plain"},
		{"inherited script", "ui/react/auth", "scripts/lint-component.sh", "script", "ui/react/_index", "ui/react/_index/scripts/lint-component.sh", "text/x-shellscript"},
		{"inherited by a skill without folder", "ui/react/testing", "assets/component-base.tsx.template", "template", "ui/react/_index", "ui/react/_index/assets/component-base.tsx.template", "text/plain"},
		{"dot slash", "ui/react/auth", "./assets//AuthProvider.tsx.template", "template", "", "ui/react/auth/assets/AuthProvider.tsx.template", "text/plain"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := r.Read(snap, skillOf(t, snap, tc.skill), Request{File: tc.file})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			want, err := os.ReadFile(filepath.Join(seed000, filepath.FromSlash(tc.wantDiskPath)))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Data, want) {
				t.Errorf("data: got %q, want %q", got.Data, want)
			}
			if got.Type != tc.wantType || got.ResolvedFrom != tc.wantFrom || got.MIME != tc.wantMIME || !got.Text {
				t.Errorf("got type %q from %q mime %q text %v, want %q from %q mime %q text", got.Type, got.ResolvedFrom, got.MIME, got.Text, tc.wantType, tc.wantFrom, tc.wantMIME)
			}
			if got.Size != int64(len(want)) || got.Truncated || got.NextOffset != 0 || got.Digest != sha(want) {
				t.Errorf("got size %d truncated %v next %d digest %s, want %d false 0 %s", got.Size, got.Truncated, got.NextOffset, got.Digest, len(want), sha(want))
			}
			if got.SkillPath != tc.skill || strings.HasPrefix(got.File, "./") {
				t.Errorf("got skill %q file %q", got.SkillPath, got.File)
			}
		})
	}
}

func TestReadNotFound(t *testing.T) {
	snap := build(t, seed000)
	r := New(Options{})
	tests := []struct {
		name, skill, file string
		inMessage         []string
	}{
		// inherit: false sees nothing of its ancestors.
		{"no-inherit", "no-inherit", "assets/component-base.tsx.template", []string{"no-inherit", "no folder"}},
		{"missing", "ui/react/auth", "assets/nope.txt", []string{"assets/nope.txt", "ui/react/auth"}},
		// A parent does not see its children's assets.
		{"child asset from parent", "ui/react/_index", "assets/AuthProvider.tsx.template", []string{"AuthProvider"}},
		{"folder", "ui/react/auth", "assets", []string{"folder"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.Read(snap, skillOf(t, snap, tc.skill), Request{File: tc.file})
			wantFailure(t, err, failure.NotFound, ReasonFileNotFound, tc.inMessage...)
		})
	}
}

func TestReadAnyFileOfTheFolder(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"pdf/SKILL.md":             "---\nname: pdf\ndescription: PDF things.\n---\n# PDF\n",
		"pdf/reference.md":         "# Reference\n",
		"pdf/deep/er/notes.xyz":    "plain words in a file of an unknown type\n",
		"pdf/blob.dat":             "\x00\x01\x02binary\x00",
		"pdf/assets/logo.png":      "\x89PNG\r\n\x1a\nnot really",
		"tree/_index.md":           "---\nkeywords: [a]\ndescription: Root\nassets:\n  - file: shared/a.txt\n    type: reference\n  - file: shared/gone.txt\n---\n# Root\n",
		"tree/_index/shared/a.txt": "from root\n",
		"tree/leaf.md":             "---\nkeywords: [b]\ndescription: Leaf\n---\n# Leaf\n",
	})
	snap := build(t, root)
	r := New(Options{})

	for _, tc := range []struct {
		file, mime string
		text       bool
	}{
		{"SKILL.md", "text/markdown", true},
		{"reference.md", "text/markdown", true},
		{"deep/er/notes.xyz", "text/plain", true},
		{"blob.dat", "application/octet-stream", false},
		{"assets/logo.png", "image/png", false},
	} {
		got, err := r.Read(snap, skillOf(t, snap, "pdf"), Request{File: tc.file})
		if err != nil {
			t.Errorf("Read(%s): %v", tc.file, err)
			continue
		}
		want, _ := os.ReadFile(filepath.Join(root, "pdf", filepath.FromSlash(tc.file)))
		if !bytes.Equal(got.Data, want) || got.MIME != tc.mime || got.Text != tc.text || got.Type != "other" || got.Digest != sha(want) {
			t.Errorf("Read(%s): got %q %s text=%v type %q digest %s, want %q %s text=%v other %s", tc.file, got.Data, got.MIME, got.Text, got.Type, got.Digest, want, tc.mime, tc.text, sha(want))
		}
	}

	// An asset the root declares, read from a leaf without folder.
	got, err := r.Read(snap, skillOf(t, snap, "tree/leaf"), Request{File: "shared/a.txt"})
	if err != nil || string(got.Data) != "from root\n" || got.ResolvedFrom != "tree/_index" || got.Type != "reference" {
		t.Errorf("inherited from root: got %+v, %v", got, err)
	}
	// Declared but missing on disk: the error says who declares it.
	_, err = r.Read(snap, skillOf(t, snap, "tree/leaf"), Request{File: "shared/gone.txt"})
	wantFailure(t, err, failure.NotFound, ReasonFileNotFound, "tree/_index declares it")
	_, err = r.Read(snap, skillOf(t, snap, "tree/_index"), Request{File: "shared/gone.txt"})
	wantFailure(t, err, failure.NotFound, ReasonFileNotFound, "declares it")
}

func TestReadPaging(t *testing.T) {
	root := t.TempDir()
	var text strings.Builder
	for i := 0; text.Len() < 150_000; i++ {
		text.WriteString("ligne é — ✓ 𝄞 numéro ")
		text.WriteString(strings.Repeat("x", i%13))
		text.WriteString("\n")
	}
	bin := bytes.Repeat([]byte{0, 1, 2, 3, 255}, 30_000)
	write(t, root, map[string]string{
		"s/SKILL.md":   "---\nname: s\ndescription: Paging.\n---\n# S\n",
		"s/big.txt":    text.String(),
		"s/big.bin":    string(bin),
		"s/small.txt":  "héllo",
		"s/mid.txt":    text.String()[:2000],
		"s/empty.txt":  "",
		"s/exact.txt":  strings.Repeat("a", 100),
		"s/latin1.txt": "caf\xe9 au lait, plain otherwise, long enough to look like text to a sniffer\n",
	})
	snap := build(t, root)
	sk := skillOf(t, snap, "s")

	t.Run("default page then the rest", func(t *testing.T) {
		r := New(Options{})
		got, err := r.Read(snap, sk, Request{File: "big.txt"})
		if err != nil {
			t.Fatal(err)
		}
		if !got.Truncated || got.NextOffset <= DefaultPageBytes-utf8.UTFMax || got.NextOffset > DefaultPageBytes || len(got.Data) != int(got.NextOffset) {
			t.Fatalf("first page: truncated %v next %d len %d, want truncated near %d", got.Truncated, got.NextOffset, len(got.Data), DefaultPageBytes)
		}
		if got.Size != int64(text.Len()) {
			t.Errorf("size: got %d, want %d", got.Size, text.Len())
		}
	})

	files := map[int64][]string{
		1: {"mid.txt", "small.txt", "exact.txt"}, 2: {"mid.txt", "small.txt"}, 3: {"mid.txt"}, 5: {"mid.txt"}, 7: {"mid.txt", "exact.txt"},
		4096: {"big.txt", "big.bin"}, 65536: {"big.txt", "big.bin", "small.txt"},
	}
	for page, names := range files {
		for _, file := range names {
			r := New(Options{})
			var all []byte
			off := int64(0)
			for pages := 0; ; pages++ {
				if pages > 200_000 {
					t.Fatalf("%s page %d: no progress at %d", file, page, off)
				}
				got, err := r.Read(snap, sk, Request{File: file, Offset: off, MaxBytes: page})
				if err != nil {
					t.Fatalf("%s page %d at %d: %v", file, page, off, err)
				}
				if got.Text && !utf8.Valid(got.Data) {
					t.Fatalf("%s page %d at %d: invalid UTF-8 %q", file, page, off, got.Data)
				}
				if int64(len(got.Data)) > max(page, utf8.UTFMax) {
					t.Fatalf("%s page %d at %d: %d bytes", file, page, off, len(got.Data))
				}
				all = append(all, got.Data...)
				if !got.Truncated {
					if got.NextOffset != 0 {
						t.Errorf("%s: last page has next_offset %d", file, got.NextOffset)
					}
					break
				}
				if got.NextOffset <= off {
					t.Fatalf("%s page %d: next_offset %d does not advance from %d", file, page, got.NextOffset, off)
				}
				off = got.NextOffset
			}
			want, _ := os.ReadFile(filepath.Join(root, "s", file))
			if !bytes.Equal(all, want) {
				t.Errorf("%s in pages of %d: got %d bytes, want the file's %d", file, page, len(all), len(want))
			}
		}
	}

	t.Run("edges", func(t *testing.T) {
		r := New(Options{MaxSizeBytes: 1000})
		got, err := r.Read(snap, sk, Request{File: "exact.txt", Offset: 100})
		if err != nil || len(got.Data) != 0 || got.Truncated {
			t.Errorf("offset at the end: got %+v, %v; want an empty last page", got, err)
		}
		got, err = r.Read(snap, sk, Request{File: "empty.txt"})
		if err != nil || len(got.Data) != 0 || got.Truncated || got.Size != 0 || !got.Text {
			t.Errorf("empty file: got %+v, %v", got, err)
		}
		_, err = r.Read(snap, sk, Request{File: "exact.txt", Offset: 101})
		wantFailure(t, err, failure.InvalidArgument, "", "past the end")
		_, err = r.Read(snap, sk, Request{File: "exact.txt", Offset: -1})
		wantFailure(t, err, failure.InvalidArgument, "", "negative")
		_, err = r.Read(snap, sk, Request{File: "exact.txt", MaxBytes: -1})
		wantFailure(t, err, failure.InvalidArgument, "", "negative")
		// A page larger than MaxSizeBytes is lowered to it.
		got, err = r.Read(snap, sk, Request{File: "big.txt", MaxBytes: 1 << 30})
		if err != nil || len(got.Data) > 1000 || !got.Truncated {
			t.Errorf("huge max_bytes: got %d bytes truncated %v, %v; want at most 1000", len(got.Data), got.Truncated, err)
		}
		// Invalid UTF-8 in a text file comes back replaced, never raw.
		got, err = r.Read(snap, sk, Request{File: "latin1.txt"})
		if err != nil || !got.Text || !utf8.Valid(got.Data) || !strings.Contains(string(got.Data), "caf\uFFFD") {
			t.Errorf("latin-1 text: got %+v, %v", got, err)
		}
	})

	t.Run("binary over the limit is refused with its size", func(t *testing.T) {
		r := New(Options{MaxSizeBytes: 1000})
		_, err := r.Read(snap, sk, Request{File: "big.bin", MaxBytes: 10})
		wantFailure(t, err, failure.ResourceExhausted, ReasonFileTooLarge, "150000 bytes", "1000 bytes", "assets.max_size_bytes")
		// Text over the limit is paged instead.
		if _, err := r.Read(snap, sk, Request{File: "big.txt"}); err != nil {
			t.Errorf("big text: %v", err)
		}
	})
}

func TestReadTooLargeBeforeReading(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{"s/SKILL.md": "---\nname: s\ndescription: x.\n---\n"})
	snap := build(t, root)
	// A sparse 3 GiB image, made after the catalog was built (which would
	// hash it): refused from its size alone, no read needed.
	f, err := os.Create(filepath.Join(root, "s", "huge.png"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil {
		t.Skipf("sparse file: %v", err)
	}
	f.Close()
	start := time.Now()
	_, err = New(Options{}).Read(snap, skillOf(t, snap, "s"), Request{File: "huge.png"})
	wantFailure(t, err, failure.ResourceExhausted, ReasonFileTooLarge, "3221225472 bytes")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("refusing took %v", d)
	}
}

// TestConfinement attacks the reader with links and special files.
func TestConfinement(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	write(t, base, map[string]string{
		"outside/secret.txt":     "TOP SECRET",
		"outside/dir/secret.txt": "TOP SECRET TOO",
		"root/s/SKILL.md":        "---\nname: s\ndescription: x.\n---\n",
		"root/s/ok.txt":          "fine",
		"root/shared/common.md":  "shared inside the root",
		"root/other/SKILL.md":    "---\nname: other\ndescription: y.\n---\n",
		"root/other/private.txt": "another skill's file",
	})
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(root, "s", "abs-out.txt"))
	symlink(t, "../../outside/secret.txt", filepath.Join(root, "s", "rel-out.txt"))
	symlink(t, outside, filepath.Join(root, "s", "abs-dir"))
	symlink(t, "../../outside/dir", filepath.Join(root, "s", "rel-dir"))
	symlink(t, "../shared/common.md", filepath.Join(root, "s", "common.md"))
	symlink(t, "../shared", filepath.Join(root, "s", "shared-dir"))
	symlink(t, "loop-b", filepath.Join(root, "s", "loop-a"))
	symlink(t, "loop-a", filepath.Join(root, "s", "loop-b"))
	symlink(t, "/etc/passwd", filepath.Join(root, "s", "passwd"))
	symlink(t, "ok.txt/../../../outside/secret.txt", filepath.Join(root, "s", "sneaky.txt"))
	snap := build(t, root)
	sk := skillOf(t, snap, "s")
	r := New(Options{})

	for _, file := range []string{"abs-out.txt", "rel-out.txt", "abs-dir/secret.txt", "rel-dir/secret.txt", "passwd"} {
		got, err := r.Read(snap, sk, Request{File: file})
		if err == nil {
			t.Errorf("Read(%s): got %q, want a refusal", file, got.Data)
			continue
		}
		wantFailure(t, err, failure.PermissionDenied, ReasonInvalidPath, file, "outside")
	}
	for _, file := range []string{"loop-a", "sneaky.txt"} {
		if got, err := r.Read(snap, sk, Request{File: file}); err == nil {
			t.Errorf("Read(%s): got %q, want a refusal", file, got.Data)
		} else if fe := (*failure.Error)(nil); errors.As(err, &fe) && fe.Kind == failure.Internal {
			t.Errorf("Read(%s): internal error %v, want a caller error", file, err)
		}
	}
	// Links that stay inside the source root are followed (ARCHITECTURE §11).
	for file, want := range map[string]string{"common.md": "shared inside the root", "shared-dir/common.md": "shared inside the root", "ok.txt": "fine"} {
		got, err := r.Read(snap, sk, Request{File: file})
		if err != nil || string(got.Data) != want {
			t.Errorf("Read(%s): got %v, %v; want %q", file, got, err, want)
		}
	}
	// Another skill's folder is not reachable by name.
	_, err := r.Read(snap, sk, Request{File: "../other/private.txt"})
	wantFailure(t, err, failure.InvalidArgument, ReasonInvalidPath)

	// Resolve gives the real path, inside the real root.
	real, err := Resolve(sk.Source, sk.Dir, "common.md")
	realRoot, _ := filepath.EvalSymlinks(root)
	if err != nil || real != filepath.Join(realRoot, "shared", "common.md") {
		t.Errorf("Resolve(common.md): got %q, %v", real, err)
	}
	if _, err := Resolve(sk.Source, sk.Dir, "rel-out.txt"); err == nil {
		t.Errorf("Resolve(rel-out.txt): want a refusal")
	}
}

// BenchmarkRead reads a declared asset of seed 000's leaf skill: path
// checks, inherited lookup, the os.Root open, the digest and the read.
func BenchmarkRead(b *testing.B) {
	snap := build(b, seed000)
	sk, err := snap.Lookup("ui/react/auth")
	if err != nil {
		b.Fatal(err)
	}
	r := New(Options{})
	for b.Loop() {
		if _, err := r.Read(snap, sk, Request{File: "assets/AuthProvider.tsx.template"}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestCatalogAndReaderAgree: a file of a skill can be read exactly when the
// catalog lists it among the skill's files. The candidates are every path
// the operating system would open below the skill's folder, following every
// link (a loop, a link leading out, one into a folder listed to follow, a
// chain of links leading to each other), a few levels deep. Before package
// confine held the one rule, a folder the walk reported as "not followed"
// (a link back to a parent) could still be read through it.
func TestCatalogAndReaderAgree(t *testing.T) {
	base := t.TempDir()
	root, dotfiles := filepath.Join(base, "root"), filepath.Join(base, "dotfiles")
	write(t, base, map[string]string{
		"root/s/SKILL.md":       "---\nname: s\ndescription: x.\n---\n",
		"root/s/ok.txt":         "fine",
		"root/s/sub/deep.txt":   "deep",
		"root/shared/common.md": "shared",
		"root/other/SKILL.md":   "---\nname: other\ndescription: y.\n---\n",
		"root/other/o.txt":      "other's",
		"dotfiles/x/ref.md":     "dotfile",
		"dotfiles/y/no.md":      "not listed",
		"outside.txt":           "secret",
	})
	symlink(t, "..", filepath.Join(root, "s", "up"))
	symlink(t, ".", filepath.Join(root, "s", "sub", "self"))
	symlink(t, "../shared", filepath.Join(root, "s", "shared"))
	symlink(t, "../other", filepath.Join(root, "s", "other"))
	symlink(t, "../../outside.txt", filepath.Join(root, "s", "out.txt"))
	symlink(t, filepath.Join(dotfiles, "x"), filepath.Join(root, "s", "dot"))
	symlink(t, dotfiles, filepath.Join(root, "s", "dotroot"))
	symlink(t, filepath.Join(root, "s"), filepath.Join(dotfiles, "x", "back"))
	symlink(t, "b", filepath.Join(root, "s", "a"))
	symlink(t, "a", filepath.Join(root, "s", "b"))
	symlink(t, "gone", filepath.Join(root, "s", "broken"))

	for _, follow := range [][]string{nil, {filepath.Join(dotfiles, "x")}} {
		snap, err := catalog.Build(t.Context(), []*source.Root{{Name: "root", Dir: root, Kind: source.KindLocal, Trusted: true, Follow: follow}}, catalog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		sk := skillOf(t, snap, "s")
		listed := map[string]bool{}
		for _, f := range sk.Files {
			listed[f.Path] = true
		}
		var candidates []string
		var visit func(dir, rel string, depth int)
		visit = func(dir, rel string, depth int) {
			ents, _ := os.ReadDir(dir)
			for _, e := range ents {
				p := filepath.Join(dir, e.Name())
				r := e.Name()
				if rel != "" {
					r = rel + "/" + e.Name()
				}
				info, err := os.Stat(p) // follows every link, as a plain open would
				switch {
				case err != nil:
					candidates = append(candidates, r)
				case info.IsDir() && depth < 4:
					visit(p, r, depth+1)
				case info.Mode().IsRegular():
					candidates = append(candidates, r)
				}
			}
		}
		visit(sk.Dir, "", 0)
		r := New(Options{})
		for _, c := range candidates {
			if c == "SKILL.md" {
				continue
			}
			_, err := r.Read(snap, sk, Request{File: c})
			if readable := err == nil; readable != listed[c] {
				t.Errorf("follow %v: %s: listed %v, but readable %v (%v)", follow, c, listed[c], readable, err)
			}
		}
		for _, want := range []string{"ok.txt", "sub/deep.txt", "shared/common.md", "other/o.txt"} {
			if !listed[want] {
				t.Errorf("follow %v: %s not listed (%v)", follow, want, sk.Files)
			}
		}
		if got := listed["dot/ref.md"]; got != (follow != nil) {
			t.Errorf("follow %v: dot/ref.md listed %v", follow, got)
		}
		if listed["dotroot/y/no.md"] || listed["out.txt"] {
			t.Errorf("follow %v: a file outside the listed folder is listed", follow)
		}
	}
}
