package catalog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillsd/skillsd/services/skills/internal/skill"
	"github.com/skillsd/skillsd/services/skills/internal/source"
	"github.com/skillsd/skillsd/services/skills/internal/testfs"
)

const cacheTestVersion = "1.2.3-test"

// past is a modification time well before any build of a test: files that
// carry it are kept by the cache (files changed in the last seconds before a
// build are not, racyWindow).
var past = time.Now().Add(-time.Hour).Truncate(time.Second)

// ageTree sets the modification time of every file under dir to past.
func ageTree(t testing.TB, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, past, past)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// rewrite replaces a file's content and gives it the modification time mod.
func rewrite(t testing.TB, file, content string, mod time.Time) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file, mod, mod); err != nil {
		t.Fatal(err)
	}
}

func newTestCache(t testing.TB, file string) *Cache {
	return NewCache(file, cacheTestVersion, slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})))
}

func buildCached(t testing.TB, roots []*source.Root, c *Cache) *Snapshot {
	t.Helper()
	opts := testOptions(t)
	opts.Cache = c
	snap, err := Build(t.Context(), roots, opts)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return snap
}

// sameCatalog fails the test where got and want differ: skills (every field
// but LoadedAt, which a cached skill keeps from the build that parsed it),
// documents, companion files, digests, verdicts, diagnostics, sources,
// identity and counts (but Reused and Duration).
func sameCatalog(t *testing.T, got, want *Snapshot) {
	t.Helper()
	type view struct {
		Path, Name, Description, File, RelFile, Dir, Parent string
		Layout                                              skill.Layout
		Source                                              Source
		Doc                                                 *skill.Document
		Routable                                            bool
		Files                                               []File
		Size                                                int64
		ModTime                                             time.Time
		Digest, FileDigest                                  string
		Security                                            any
		Assets                                              []skill.Asset
		Scripts                                             []skill.Script
		ParseDiags                                          []skill.Diagnostic
		Children                                            []string
		Pending                                             bool
	}
	views := func(s *Snapshot) []view {
		var out []view
		for _, sk := range s.skills {
			v := view{
				Path: sk.Path, Name: sk.Name, Description: sk.Description, File: sk.File, RelFile: sk.RelFile, Dir: sk.Dir,
				Layout: sk.Layout, Source: *sk.Source, Doc: sk.Doc, Routable: sk.Routable, Files: sk.Files, Size: sk.Size,
				ModTime: sk.ModTime, Digest: sk.Digest, FileDigest: sk.fileDigest, Security: sk.Security,
				Assets: sk.assets, Scripts: sk.scripts, ParseDiags: sk.parseDiags, Children: paths(sk.children), Pending: sk.pending,
			}
			if sk.Parent != nil {
				v.Parent = sk.Parent.Path
			}
			out = append(out, v)
		}
		return out
	}
	if diff := cmp.Diff(views(want), views(got)); diff != "" {
		t.Errorf("skills differ (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want.Diagnostics(), got.Diagnostics()); diff != "" {
		t.Errorf("diagnostics differ (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(paths(want.roots), paths(got.roots)); diff != "" {
		t.Errorf("roots differ (-want +got):\n%s", diff)
	}
	if got.ID() != want.ID() {
		t.Errorf("ID = %q, want %q", got.ID(), want.ID())
	}
	gs, ws := got.Stats(), want.Stats()
	gs.Reused, ws.Reused, gs.Duration, ws.Duration = 0, 0, 0, 0
	if gs != ws {
		t.Errorf("stats = %+v, want %+v", gs, ws)
	}
}

// restartTree is a catalog of both layouts, with companion files, aged.
func restartTree(t *testing.T) string {
	dir := writeTree(t, map[string]string{
		"_root.md":              treeSkill("global", "Global", "Root."),
		"guides/_index.md":      treeSkill("guides", "Guides", "All guides."),
		"guides/deploy.md":      treeSkill("deploy, ship", "Deploy", "Ship it."),
		"guides/deploy/run.sh":  "#!/bin/sh\necho deploy\n",
		"same-size/SKILL.md":    folderSkill("same-size", "Keeps its size.", "Version one."),
		"grows/SKILL.md":        folderSkill("grows", "Grows.", "Short."),
		"grows/ref.md":          "reference\n",
		"deleted/SKILL.md":      folderSkill("deleted", "Goes away.", "Bye."),
		"companion/SKILL.md":    folderSkill("companion", "Its file changes.", "See data.txt."),
		"companion/data.txt":    "aaaa\n",
		"companion/logo.png":    "\x89PNG\r\n\x1a\n",
		"companion/more/x.json": `{"a": 1}`,
		"mismatch/SKILL.md":     folderSkill("other-name", "Name does not match.", "x"),
		"broken/SKILL.md":       "---\nname: broken\ndescription: [unclosed\n---\nbody\n",
		"plain/SKILL.md":        "No frontmatter at all.\n",
		"rich/SKILL.md": "---\nname: rich\ndescription: Every field.\nlicense: MIT\ncompatibility: any\nallowed-tools: Read, Bash\n" +
			"keywords: [a, b]\npriority: 3\ninherit: false\nargument-hint: '[x]'\nuser-invocable: false\n" +
			"assets:\n  - file: assets/t.tmpl\n    description: T\n    type: template\n" +
			"scripts:\n  - file: scripts/s.sh\n    description: S\n    execution: server\n    network: true\n    args:\n      - name: a\n        required: true\n      - name: b\n        default: x\n" +
			"metadata:\n  network: true\n  alwaysApply: true\n  skillhub:\n    category: Tools\n    tags: [One, two]\n  n: 1.5\n  list: [1, null, true, {k: v}]\n---\n# Rich\n",
		"rich/assets/t.tmpl":  "{{.}}",
		"rich/scripts/s.sh":   "#!/bin/sh\n",
		"nested/SKILL.md":     folderSkill("nested", "Outer.", "x"),
		"nested/in/SKILL.md":  folderSkill("in", "Inner.", "x"),
		"nested/in/notes.txt": "shared with the outer skill\n",
	})
	ageTree(t, dir)
	return dir
}

// TestCacheRestart is a start (build, cache written), changes made while the
// server is down (a skill file rewritten at the same size, one that grows,
// one added, one deleted, companion files changed, added and removed), and a
// second start from the cache: it must serve exactly what a build without
// the cache serves, and parse only what changed.
func TestCacheRestart(t *testing.T) {
	dir := restartTree(t)
	roots := []*source.Root{localRoot("t", dir)}
	file := filepath.Join(t.TempDir(), "state", CacheFileName())

	first := buildCached(t, roots, newTestCache(t, file))
	if first.Stats().Reused != 0 {
		t.Fatalf("first build reused %d skills without a cache file", first.Stats().Reused)
	}
	if err := newTestCache(t, file).Save(first); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(file); err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("cache file: %v, %v", info, err)
	}

	// A start with nothing changed reuses every skill.
	again := buildCached(t, roots, newTestCache(t, file))
	sameCatalog(t, again, build(t, roots...))
	if got, want := again.Stats().Reused, first.Len(); got != want {
		t.Errorf("unchanged start: Reused = %d, want %d", got, want)
	}
	if got := again.Get("rich"); !got.LoadedAt.Equal(first.Get("rich").LoadedAt) {
		t.Errorf("a cached skill's LoadedAt = %v, want the first build's %v", got.LoadedAt, first.Get("rich").LoadedAt)
	}

	// While the server is down.
	later := past.Add(30 * time.Minute)
	old := folderSkill("same-size", "Keeps its size.", "Version one.")
	changed := folderSkill("same-size", "Keeps its size.", "Version two.")
	if len(old) != len(changed) {
		t.Fatal("the rewrite must keep the size")
	}
	rewrite(t, filepath.Join(dir, "same-size", "SKILL.md"), changed, later)
	rewrite(t, filepath.Join(dir, "grows", "SKILL.md"), folderSkill("grows", "Grows, and now says more.", "Much longer body."), later)
	rewrite(t, filepath.Join(dir, "added", "SKILL.md"), folderSkill("added", "New while down.", "x"), later)
	if err := os.RemoveAll(filepath.Join(dir, "deleted")); err != nil {
		t.Fatal(err)
	}
	rewrite(t, filepath.Join(dir, "companion", "data.txt"), "bbbb\n", later) // same size
	rewrite(t, filepath.Join(dir, "grows", "ref.md"), "a longer reference\n", later)
	rewrite(t, filepath.Join(dir, "companion", "more", "new.txt"), "new\n", later)
	if err := os.Remove(filepath.Join(dir, "companion", "more", "x.json")); err != nil {
		t.Fatal(err)
	}
	rewrite(t, filepath.Join(dir, "guides", "deploy", "run.sh"), "#!/bin/sh\necho deployed\n", later)
	rewrite(t, filepath.Join(dir, "broken", "SKILL.md"), folderSkill("broken", "Fixed.", "body"), later)
	rewrite(t, filepath.Join(dir, "rich", "SKILL.md"), "---\nname: rich\ndescription: [no longer parses\n---\n", later)

	second := buildCached(t, roots, newTestCache(t, file))
	fresh := build(t, roots...)
	sameCatalog(t, second, fresh)
	// Reused: every skill but the four rewritten, the one added and the
	// one deleted.
	if got, want := second.Stats().Reused, first.Len()-5; got != want {
		t.Errorf("after the changes: Reused = %d, want %d", got, want)
	}
	if !strings.Contains(second.Get("same-size").Doc.Body, "Version two.") {
		t.Errorf("the same-size rewrite was not seen: %q", second.Get("same-size").Doc.Body)
	}
	if second.Get("rich") == nil || second.Get("rich").Doc.HasFrontmatter || hasCode(second.Diagnostics(), CodeKeptLastGood) {
		t.Errorf("a skill broken while down must be served as it is now, not at its cached version")
	}
}

// TestCacheWithScan: a start from the cache with the security scan on (as
// the server builds) gives the same digests and verdicts as one without.
func TestCacheWithScan(t *testing.T) {
	dir := restartTree(t)
	roots := []*source.Root{localRoot("t", dir)}
	file := filepath.Join(t.TempDir(), CacheFileName())
	sc := newScanner(t)
	scanned := func(c *Cache) *Snapshot {
		opts := testOptions(t)
		opts.Cache, opts.Scan, opts.DeferScan = c, sc, true
		snap, err := Build(t.Context(), roots, opts)
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	first := scanned(nil)
	if err := newTestCache(t, file).Save(first); err != nil {
		t.Fatal(err)
	}
	rewrite(t, filepath.Join(dir, "companion", "data.txt"), "curl http://x | sh\n", past.Add(time.Minute))
	cached := scanned(newTestCache(t, file))
	if cached.Stats().Reused == 0 {
		t.Fatal("the cache was not used")
	}
	sameCatalog(t, cached, scanned(nil))
	if cached.Get("companion").Digest == first.Get("companion").Digest {
		t.Error("the content digest missed a companion file changed while down")
	}
}

// TestCacheDamaged: a cache file that is foreign, from another version,
// corrupt, cut short, too large or not a file is ignored, and the build is
// what it is without a cache; the next write replaces it.
func TestCacheDamaged(t *testing.T) {
	dir := restartTree(t)
	roots := []*source.Root{localRoot("t", dir)}
	good := filepath.Join(t.TempDir(), CacheFileName())
	snap := build(t, roots...)
	if err := newTestCache(t, good).Save(snap); err != nil {
		t.Fatal(err)
	}
	valid, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	flip := func(at int) []byte {
		b := bytes.Clone(valid)
		b[at] ^= 0x40
		return b
	}
	cases := map[string]func(file string){
		"flipped body byte": func(f string) { write(t, f, flip(len(valid)-10)) },
		"flipped checksum":  func(f string) { write(t, f, flip(len(valid)-snapBodyLen(t, valid)-2)) },
		"flipped size":      func(f string) { write(t, f, flip(len(valid)-snapBodyLen(t, valid)-5)) },
		// A byte of a description: the body still decodes, only its sum
		// tells.
		"flipped text":        func(f string) { write(t, f, flip(bytes.Index(valid, []byte("Keeps its size."))+1)) },
		"flipped magic":       func(f string) { write(t, f, flip(3)) },
		"flipped version":     func(f string) { write(t, f, flip(len(cacheMagic)+2)) },
		"truncated":           func(f string) { write(t, f, valid[:len(valid)/2]) },
		"truncated header":    func(f string) { write(t, f, valid[:len(cacheMagic)+4]) },
		"one byte longer":     func(f string) { write(t, f, append(bytes.Clone(valid), 0)) },
		"empty":               func(f string) { write(t, f, nil) },
		"garbage":             func(f string) { write(t, f, bytes.Repeat([]byte("garbage\x00\xff"), 1000)) },
		"scan cache":          func(f string) { write(t, f, []byte(`{"format":"skillsd-scan-cache/1","rules":"x"}`+"\n")) },
		"other version":       func(f string) { copyCache(t, f, "0.9.0", snap) },
		"checksum of garbage": func(f string) { write(t, f, fakeFile(cacheTestVersion, []byte("\x05not a body"))) },
		"too large": func(f string) {
			write(t, f, valid)
			if err := os.Truncate(f, maxCacheFile+1); err != nil {
				t.Skip("sparse files unsupported:", err)
			}
		},
		"a folder": func(f string) {
			if err := os.Mkdir(f, 0o700); err != nil {
				t.Fatal(err)
			}
		},
	}
	fresh := build(t, roots...)
	// Each case with the body summed before its decode, then beside it.
	defer func(n int) { sumApartBytes = n }(sumApartBytes)
	for _, apart := range []int{len(valid) + 1, 0} {
		sumApartBytes = apart
		for name, damage := range cases {
			t.Run(name+map[bool]string{false: "/summed first", true: "/summed beside"}[apart == 0], func(t *testing.T) {
				file := filepath.Join(t.TempDir(), CacheFileName())
				damage(file)
				c := newTestCache(t, file)
				got := buildCached(t, roots, c)
				if got.Stats().Reused != 0 {
					t.Errorf("a damaged cache was used: Reused = %d", got.Stats().Reused)
				}
				sameCatalog(t, got, fresh)
				if name == "a folder" {
					return
				}
				// The next write replaces it, and the start after uses it.
				if err := c.Save(got); err != nil {
					t.Fatal(err)
				}
				if n := buildCached(t, roots, newTestCache(t, file)).Stats().Reused; n != got.Len() {
					t.Errorf("after a rewrite: Reused = %d, want %d", n, got.Len())
				}
			})
		}
	}
}

func write(t *testing.T, file string, data []byte) {
	t.Helper()
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func copyCache(t *testing.T, file, version string, s *Snapshot) {
	t.Helper()
	if err := NewCache(file, version, nil).Save(s); err != nil {
		t.Fatal(err)
	}
}

// snapBodyLen is the length of a valid cache file's body.
func snapBodyLen(t *testing.T, file []byte) int {
	t.Helper()
	d := &decoder{b: file[len(cacheMagic):]}
	d.bytes()
	n := d.uvarint()
	if d.err != nil {
		t.Fatal(d.err)
	}
	return int(n)
}

// fakeFile is a cache file with a good header and checksum around body.
func fakeFile(version string, body []byte) []byte {
	return append(appendHeader(nil, version, int64(len(body)), checksum(body)), body...)
}

// TestCacheRacyFiles: files changed in the seconds before a build are not
// kept (a change in the same tick of the file system's clock would not show).
func TestCacheRacyFiles(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"old/SKILL.md": folderSkill("old", "Old.", "x"),
		"old/a.txt":    "a",
		"old/b.txt":    "b",
		"new/SKILL.md": folderSkill("new", "New.", "x"),
	})
	ageTree(t, dir)
	now := time.Now()
	rewrite(t, filepath.Join(dir, "new", "SKILL.md"), folderSkill("new", "New!", "x"), now)
	rewrite(t, filepath.Join(dir, "old", "b.txt"), "B", now)
	roots := []*source.Root{localRoot("t", dir)}
	file := filepath.Join(t.TempDir(), CacheFileName())
	if err := newTestCache(t, file).Save(build(t, roots...)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	skills, _, _, err := decodeCache(data, cacheTestVersion)
	if err != nil {
		t.Fatal(err)
	}
	if len(skills) != 1 || skills[0].RelFile != "old/SKILL.md" {
		t.Fatalf("cached %d skills, want only old/SKILL.md", len(skills))
	}
	if got := slices.Collect(func(yield func(string) bool) {
		for _, f := range skills[0].Files {
			yield(f.Path)
		}
	}); !slices.Equal(got, []string{"a.txt"}) {
		t.Errorf("cached companion files %v, want [a.txt]", got)
	}
}

// TestCacheKeep: Keep writes in the background, at most every few seconds
// (a newer snapshot replacing one not written yet), and Close writes the
// last one; a nil Cache does nothing.
func TestCacheKeep(t *testing.T) {
	dir := restartTree(t)
	roots := []*source.Root{localRoot("t", dir)}
	file := filepath.Join(t.TempDir(), CacheFileName())
	c := newTestCache(t, file)
	c.every = time.Hour
	one := build(t, roots...)
	c.Keep(one)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(file); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("Keep did not write the file")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// The next Keep waits for the interval; Close writes it.
	if err := os.RemoveAll(filepath.Join(dir, "deleted")); err != nil {
		t.Fatal(err)
	}
	two := build(t, roots...)
	c.Keep(two)
	c.Keep(two)
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := cachedSkills(t, file); n != two.Len() {
		t.Errorf("after Close the file holds %d skills, want the last snapshot's %d", n, two.Len())
	}
	c.Keep(one) // after Close: nothing
	time.Sleep(10 * time.Millisecond)
	if again, _ := os.ReadFile(file); !bytes.Equal(again, data) {
		t.Error("Keep after Close wrote the file")
	}

	var none *Cache
	none.Keep(one)
	if err := none.Close(); err != nil {
		t.Error(err)
	}
	if none.load() != nil || buildCached(t, roots, nil).Stats().Reused != 0 {
		t.Error("a nil cache held something")
	}
}

// TestCacheKeepAfterRead: a start that read the file does not write it
// again at once (its first build mostly gives back what it read), but no
// sooner than the interval after the read; Close writes what it kept.
func TestCacheKeepAfterRead(t *testing.T) {
	dir := restartTree(t)
	roots := []*source.Root{localRoot("t", dir)}
	file := filepath.Join(t.TempDir(), CacheFileName())
	if err := newTestCache(t, file).Save(build(t, roots...)); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	c := newTestCache(t, file)
	c.every = time.Hour
	c.Preload()
	rewrite(t, filepath.Join(dir, "added", "SKILL.md"), folderSkill("added", "Added while the server was down.", "x"), past.Add(time.Minute))
	changed := buildCached(t, roots, c)
	c.Keep(changed)
	time.Sleep(200 * time.Millisecond)
	if now, _ := os.ReadFile(file); !bytes.Equal(now, before) {
		t.Fatal("Keep wrote the file it had just read at once, not an interval after the read")
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := cachedSkills(t, file); n != changed.Len() {
		t.Errorf("after Close the file holds %d skills, want the kept snapshot's %d", n, changed.Len())
	}
}

// cachedSkills is the number of skills the cache file at file holds.
func cachedSkills(t *testing.T, file string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	skills, _, _, err := decodeCache(data, cacheTestVersion)
	if err != nil {
		t.Fatal(err)
	}
	return len(skills)
}

// TestCacheDocumentRoundTrip: every document the parser makes of the
// fixtures, the package's test data and the benchmark corpus (when it is
// here) comes back from the cache identical, with its diagnostics.
func TestCacheDocumentRoundTrip(t *testing.T) {
	type input struct {
		rel  string
		data []byte
	}
	var inputs []input
	addTree := func(dir string) {
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			inputs = append(inputs, input{filepath.ToSlash(rel), data})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	addTree("testdata/seed000-tree")
	if shared := sharedDir(); shared != "" {
		addTree(filepath.Join(shared, "fixtures", "seed000-tree"))
		addTree(filepath.Join(shared, "bench", "corpus"))
	}
	for _, s := range []string{
		"", "no frontmatter", "---\nunterminated", "---\n---\n", "\xEF\xBB\xBFbom\r\n",
		"---\nname: x\ndescription: \"bad \xff utf8\"\n---\n",
		"---\na: &a [1, 2]\nb: *a\nc: {<<: {m: 1}, n: ~}\nd: 1e400\ne: .nan\nf: 9223372036854775808\ng: !!binary aGk=\nh: 2001-12-14\n---\n",
		"---\nname: x\ndescription: y\nmetadata: {}\nkeywords: []\ntags: []\nallowed-tools: []\nassets: []\nscripts: [{file: s.sh, args: []}]\n---\n",
		"---\nmetadata:\n  skillport:\n    category: C\n    tags: [a]\n    alwaysApply: true\n---\n",
		"---\n- a list\n---\n",
	} {
		inputs = append(inputs, input{"synthetic.md", []byte(s)})
	}
	if len(inputs) < 20 {
		t.Fatalf("only %d inputs", len(inputs))
	}
	for _, in := range inputs {
		doc, diags := skill.Parse(in.rel, in.data)
		if doc == nil {
			continue
		}
		sk := &Skill{File: "/abs/" + in.rel, RelFile: in.rel, Source: &Source{Name: "s"}, Layout: skill.LayoutFolder,
			Size: int64(len(in.data)), ModTime: past, LoadedAt: testNow, fileDigest: fileDigest(in.data), Doc: doc, parseDiags: diags,
			Dir: "/abs", Files: []File{{Path: "a/b.txt", Size: 3, ModTime: past, Digest: "sha256:00", MIME: "text/plain", Text: true}}}
		body := encodeSkills([]*Skill{sk}, time.Now())
		got, err := decodeSkills(body)
		if err != nil || len(got) != 1 {
			t.Errorf("%s: %d skills, %v", in.rel, len(got), err)
			continue
		}
		// A fresh parse, not the document encoded: nothing may be shared.
		want, wantDiags := skill.Parse(in.rel, in.data)
		if diff := cmp.Diff(want, got[0].Doc); diff != "" {
			t.Errorf("%s: document differs (-parse +cache):\n%s", in.rel, diff)
		}
		if !reflect.DeepEqual(want, got[0].Doc) {
			t.Errorf("%s: document not deeply equal (nil and empty, or number types)", in.rel)
		}
		if diff := cmp.Diff(wantDiags, got[0].parseDiags); diff != "" || (wantDiags == nil) != (got[0].parseDiags == nil) {
			t.Errorf("%s: diagnostics differ (-parse +cache):\n%s", in.rel, diff)
		}
		if g := got[0]; g.File != sk.File || g.RelFile != sk.RelFile || g.Source.Name != "s" || g.Layout != sk.Layout || g.Size != sk.Size ||
			!g.ModTime.Equal(past) || !g.LoadedAt.Equal(testNow) || g.fileDigest != sk.fileDigest || g.Dir != sk.Dir ||
			!reflect.DeepEqual(g.Files, sk.Files) {
			t.Errorf("%s: record differs: %+v", in.rel, g)
		}
	}
	t.Logf("%d documents", len(inputs))
}

// TestCacheFields fails when a type the cache writes gains or loses a field:
// then appendDocument, decodeSkills and cacheFormat need an update.
func TestCacheFields(t *testing.T) {
	for _, c := range []struct {
		v    any
		want int
	}{
		{skill.Document{}, 4}, {skill.Frontmatter{}, 20}, {skill.Asset{}, 3}, {skill.Script{}, 5},
		{skill.Arg{}, 4}, {skill.Diagnostic{}, 6}, {File{}, 6},
	} {
		if got := reflect.TypeOf(c.v).NumField(); got != c.want {
			t.Errorf("%T has %d fields, the cache writes %d: update cache.go and its cacheFormat", c.v, got, c.want)
		}
	}
}

// TestCacheValues: frontmatter values of every type come back as they were
// (nil and empty kept apart); values the parser never makes are refused.
func TestCacheValues(t *testing.T) {
	v := map[string]any{
		"nil": nil, "t": true, "f": false, "i": -42, "big": math.MaxInt, "x": 1.5, "s": "ü", "empty": "",
		"list": []any{1, "a", nil, []any{}}, "nilList": []any(nil), "map": map[string]any{}, "nilMap": map[string]any(nil),
	}
	b, err := appendValue(nil, v, 0)
	if err != nil {
		t.Fatal(err)
	}
	d := &decoder{b: b, s: string(b)}
	got := d.value(0)
	if d.err != nil || len(d.b) != 0 || !reflect.DeepEqual(got, any(v)) {
		t.Errorf("value round trip: %#v, %v", got, d.err)
	}
	for _, bad := range []any{int64(1), float32(1), math.NaN(), math.Inf(1), []string{}, map[string]string{}} {
		if _, err := appendValue(nil, bad, 0); err == nil {
			t.Errorf("%#v was accepted", bad)
		}
	}
	deep := any(nil)
	for range maxValueDepth + 2 {
		deep = []any{deep}
	}
	if _, err := appendValue(nil, deep, 0); err == nil {
		t.Error("a value nested too deep was accepted")
	}
}

// FuzzCacheDecode: the cache decoder never panics on a file or body, and a
// body it accepts is written back as it was read.
func FuzzCacheDecode(f *testing.F) {
	dir := writeTree(f, map[string]string{
		"a/SKILL.md": "---\nname: a\ndescription: A.\nmetadata: {n: [1, 2.5, true, null, {k: v}]}\nscripts: [{file: s.sh, args: [{name: x, default: y}]}]\n---\nBody.\n",
		"a/s.sh":     "#!/bin/sh\n",
		"b.md":       treeSkill("k", "B", "b"),
		"c/SKILL.md": "---\nname: [c\n---\n",
	})
	ageTree(f, dir)
	snap, err := Build(f.Context(), []*source.Root{localRoot("f", dir)}, Options{})
	if err != nil {
		f.Fatal(err)
	}
	body := encodeSkills(snap.skills, time.Now())
	f.Add(body)
	f.Add(fakeFile(cacheTestVersion, append(append([]byte{}, body...), 0, 0, 0, 0, 1)))
	f.Add(body[:len(body)/2])
	f.Add([]byte{})
	f.Add([]byte(cacheMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _, _, _ = decodeCache(data, cacheTestVersion)
		_, _, _ = decodeBody(data) // as decodeCache runs it on a large body before its sum is checked
		skills, err := decodeSkills(data)
		if err != nil {
			return
		}
		again, err := decodeSkills(encodeSkills(skills, time.Unix(math.MaxInt32, 0)))
		if err != nil {
			t.Fatalf("a body written back does not decode: %v", err)
		}
		type rec struct {
			File, RelFile, Src, Dir, Digest string
			Layout                          skill.Layout
			Size                            int64
			Mod, Loaded                     time.Time
			Doc                             *skill.Document
			Diags                           []skill.Diagnostic
			Files                           []File
		}
		view := func(ss []*Skill) []rec {
			var out []rec
			for _, s := range ss {
				out = append(out, rec{s.File, s.RelFile, s.Source.Name, s.Dir, s.fileDigest, s.Layout, s.Size, s.ModTime, s.LoadedAt, s.Doc, s.parseDiags, s.Files})
			}
			return out
		}
		// Skills whose times are not before the bound are not written.
		var kept []*Skill
		for _, s := range skills {
			if s.ModTime.Before(time.Unix(math.MaxInt32, 0)) {
				var files []File
				for _, f := range s.Files {
					if f.ModTime.Before(time.Unix(math.MaxInt32, 0)) {
						files = append(files, f)
					}
				}
				s.Files = files
				kept = append(kept, s)
			}
		}
		if !reflect.DeepEqual(view(kept), view(again)) {
			t.Fatalf("written back differently:\n%s", cmp.Diff(view(kept), view(again)))
		}
	})
}

// benchCPU runs fn in b.Loop and reports the process's CPU time per
// operation besides the wall time (the machine may be shared).
func benchCPU(b *testing.B, fn func()) {
	cpu := cpuTime()
	for b.Loop() {
		fn()
	}
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// corpusCache builds the corpus and writes its cache file.
func corpusCache(b *testing.B) (*source.Root, *Snapshot, string) {
	root := corpusRoot(b)
	file := filepath.Join(b.TempDir(), CacheFileName())
	snap, err := Build(b.Context(), []*source.Root{root}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	if err := NewCache(file, cacheTestVersion, nil).Save(snap); err != nil {
		b.Fatal(err)
	}
	return root, snap, file
}

// BenchmarkBuildCold is the first build of a process without the catalog
// cache, over the benchmark corpus (warm page cache): every skill file parsed
// and every companion file hashed.
func BenchmarkBuildCold(b *testing.B) {
	root := corpusRoot(b)
	benchCPU(b, func() {
		if _, err := Build(b.Context(), []*source.Root{root}, Options{}); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkBuildHeldCache is the first build of a process from the catalog
// cache a previous process wrote, nothing changed: the cache read and
// decoded, the walk, no parsing, no hashing.
func BenchmarkBuildHeldCache(b *testing.B) {
	root, snap, file := corpusCache(b)
	benchCPU(b, func() {
		s, err := Build(b.Context(), []*source.Root{root}, Options{Cache: NewCache(file, cacheTestVersion, nil)})
		if err != nil {
			b.Fatal(err)
		}
		if s.Stats().Reused != snap.Len() {
			b.Fatalf("reused %d of %d skills", s.Stats().Reused, snap.Len())
		}
	})
}

// BenchmarkCacheLoad reads and decodes the corpus's cache file.
func BenchmarkCacheLoad(b *testing.B) {
	_, _, file := corpusCache(b)
	benchCPU(b, func() {
		if NewCache(file, cacheTestVersion, nil).load() == nil {
			b.Fatal("not loaded")
		}
	})
	info, err := os.Stat(file)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(info.Size()), "file-bytes")
}

// BenchmarkCacheSave encodes the corpus's cache file and writes it.
func BenchmarkCacheSave(b *testing.B) {
	_, snap, file := corpusCache(b)
	benchCPU(b, func() {
		if err := NewCache(file, cacheTestVersion, nil).Save(snap); err != nil {
			b.Fatal(err)
		}
	})
}

// TestCacheDecodeBounds: lengths that the bytes left cannot hold are
// refused before anything is allocated for them.
func TestCacheDecodeBounds(t *testing.T) {
	for name, body := range map[string][]byte{
		"skills":      {0xff, 0xff, 0xff, 0xff, 1, 2, 3},
		"short count": {0, 0},
		"list":        binary.AppendUvarint([]byte{tagList}, 1<<40),
		"map":         binary.AppendUvarint([]byte{tagMap}, 1<<40),
		"string":      binary.AppendUvarint([]byte{tagString}, 1<<40),
		"depth":       bytes.Repeat([]byte{tagList, 1}, maxValueDepth+2),
	} {
		var err error
		if name == "skills" || name == "short count" {
			_, err = decodeSkills(body)
		} else {
			d := &decoder{b: body, s: string(body)}
			d.value(0)
			err = d.err
		}
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestCacheOnlyWithoutPrevious: a build that replaces a snapshot takes
// nothing from the cache, only from that snapshot.
func TestCacheOnlyWithoutPrevious(t *testing.T) {
	dir := restartTree(t)
	roots := []*source.Root{localRoot("t", dir)}
	file := filepath.Join(t.TempDir(), CacheFileName())
	c := newTestCache(t, file)
	if err := c.Save(build(t, roots...)); err != nil {
		t.Fatal(err)
	}
	empty := build(t, localRoot("t", t.TempDir()))
	opts := testOptions(t)
	opts.Previous, opts.Cache = empty, c
	snap, err := Build(t.Context(), roots, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := snap.Stats().Reused; n != 0 {
		t.Errorf("with a previous snapshot that holds nothing, %d skills were reused", n)
	}
	if n := buildCached(t, roots, c).Stats().Reused; n != snap.Len() {
		t.Errorf("without one, the cache gave %d skills, want %d", n, snap.Len())
	}
}

// TestCachePreload: what Preload reads (the file mapped, not copied) is
// what the first build takes, whole; a build after it that starts over
// without a snapshot reads the file again, and takes the same; a file
// rewritten after the preload leaves the skills read from it intact.
func TestCachePreload(t *testing.T) {
	dir := restartTree(t)
	roots := []*source.Root{localRoot("t", dir)}
	file := filepath.Join(t.TempDir(), CacheFileName())
	if newTestCache(t, file).Exists() {
		t.Fatal("Exists before the file was written")
	}
	want := build(t, roots...)
	if err := newTestCache(t, file).Save(want); err != nil {
		t.Fatal(err)
	}
	c := newTestCache(t, file)
	if !c.Exists() {
		t.Fatal("not Exists after Save")
	}
	c.Preload()
	c.mu.Lock()
	read := c.first != nil
	c.mu.Unlock()
	if !read {
		t.Fatal("Preload returned before the file was read")
	}
	c.Preload() // once only
	first := buildCached(t, roots, c)
	sameCatalog(t, first, want)
	if n := first.Stats().Reused; n != want.Len() {
		t.Errorf("the first build took %d skills from the preload, want %d", n, want.Len())
	}
	// The file replaced (an edit's snapshot kept) after the mapped read.
	rewrite(t, filepath.Join(dir, "added", "SKILL.md"), folderSkill("added", "Added after the first build.", "x"), past.Add(time.Minute))
	if err := c.Save(build(t, roots...)); err != nil {
		t.Fatal(err)
	}
	sameCatalog(t, first, want)
	// Read again (not the first read's mapping): the new skill is in it.
	again := buildCached(t, roots, c)
	if n, total := again.Stats().Reused, again.Len(); n != total || total != want.Len()+1 {
		t.Errorf("a second build without a snapshot reused %d of %d skills, want all %d", n, total, want.Len()+1)
	}
	var nilCache *Cache
	nilCache.Preload()
	if nilCache.Exists() {
		t.Error("a nil Cache Exists")
	}
}

// TestCacheListings: the cache keeps the folder listings of a build's
// walks, and the first build of the next start lists from them every
// folder that did not change (its stamp), finding exactly what a build
// without a cache finds, also after files were added, removed and
// rewritten in place while the server was down.
func TestCacheListings(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("folder listings are kept on Linux only")
	}
	dir := restartTree(t)
	ageTree(t, dir)
	// The folders too, deepest first (a folder's time must be old for its
	// listing to be kept).
	var folders []string
	if err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			folders = append(folders, p)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	for i := len(folders) - 1; i >= 0; i-- {
		if err := os.Chtimes(folders[i], past, past); err != nil {
			t.Fatal(err)
		}
	}
	roots := []*source.Root{localRoot("t", dir)}
	file := filepath.Join(t.TempDir(), CacheFileName())
	first := buildCached(t, roots, newTestCache(t, file))
	if n := first.walks["t"].Listings().Len(); n != len(folders) {
		t.Fatalf("%d folders listed, want %d", n, len(folders))
	}
	if err := newTestCache(t, file).Save(first); err != nil {
		t.Fatal(err)
	}
	again := buildCached(t, roots, newTestCache(t, file))
	sameCatalog(t, again, build(t, roots...))
	if n := again.walks["t"].FromListings(); n != len(folders) {
		t.Errorf("unchanged: %d of %d folders listed from the cache", n, len(folders))
	}
	if err := newTestCache(t, file).Save(again); err != nil {
		t.Fatal(err)
	}

	// While the server is down.
	rewrite(t, filepath.Join(dir, "companion", "data.txt"), "bbbbbbbb\n", past.Add(time.Hour)) // in place
	rewrite(t, filepath.Join(dir, "guides", "new.md"), treeSkill("new", "New guide", "Added."), past.Add(time.Hour))
	if err := os.Remove(filepath.Join(dir, "grows", "ref.md")); err != nil {
		t.Fatal(err)
	}
	later := buildCached(t, roots, newTestCache(t, file))
	sameCatalog(t, later, build(t, roots...))
	if n := later.walks["t"].FromListings(); n != len(folders)-2 {
		t.Errorf("after two folders changed: %d of %d folders listed from the cache, want all but those", n, len(folders))
	}
	if got := later.Get("companion"); got == nil || len(got.Files) == 0 {
		t.Fatal("companion lost")
	}
}

// TestCacheUnusedReleased: a cache file written by another version is not
// used, and its mapping is undone (its pages do not stay in the process);
// a usable one stays mapped, its skills sharing its memory.
func TestCacheUnusedReleased(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files are mapped on Linux only")
	}
	dir := restartTree(t)
	roots := []*source.Root{localRoot("t", dir)}
	file := filepath.Join(t.TempDir(), CacheFileName())
	if err := NewCache(file, "another-version", nil).Save(build(t, roots...)); err != nil {
		t.Fatal(err)
	}
	if n := buildCached(t, roots, newTestCache(t, file)).Stats().Reused; n != 0 {
		t.Fatalf("another version's cache gave %d skills", n)
	}
	if testfs.Mapped(t, file) {
		t.Error("another version's cache stays mapped")
	}
	if err := newTestCache(t, file).Save(build(t, roots...)); err != nil {
		t.Fatal(err)
	}
	if n := buildCached(t, roots, newTestCache(t, file)).Stats().Reused; n == 0 {
		t.Fatal("the cache gave nothing")
	}
	if !testfs.Mapped(t, file) {
		t.Error("a cache in use is not mapped")
	}
}

// TestCacheRemovesOlderFormats: writing the cache removes the files of
// earlier formats beside it (a format change renames the file), and only
// when the file has the package's own name.
func TestCacheRemovesOlderFormats(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, cacheFileName(cacheFormat-1))
	if err := os.WriteFile(old, []byte("an older cache"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "pdf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "pdf", "SKILL.md"), []byte("---\nname: pdf\ndescription: PDF forms\n---\nbody\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old2 := time.Now().Add(-time.Hour)
	_ = os.Chtimes(filepath.Join(root, "pdf", "SKILL.md"), old2, old2)
	snap, err := Build(t.Context(), []*source.Root{{Name: "r", Dir: root, Kind: source.KindLocal, Trusted: true}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	named := NewCache(filepath.Join(dir, "mine.bin"), "v", nil)
	if err := named.Save(snap); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("a cache with a name of its own removed its neighbour: %v", err)
	}
	c := NewCache(filepath.Join(dir, CacheFileName()), "v", nil)
	if err := c.Save(snap); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, CacheFileName())); err != nil {
		t.Fatalf("not written: %v", err)
	}
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the older format's file is still there (%v)", err)
	}
}

// TestCacheKnownFiles: the first build of a start, from the catalog cache,
// takes every unchanged layout-A skill file unread and every unchanged
// companion file unhashed: the walk's Known answers yes for each, and no
// for a changed size or time. (A snapshot read from the cache holds no
// sources and no index by path; Known was nil for it, and every start read
// every skill file again.)
func TestCacheKnownFiles(t *testing.T) {
	dir := restartTree(t)
	roots := []*source.Root{localRoot("t", dir)}
	file := filepath.Join(t.TempDir(), CacheFileName())
	snap := build(t, roots...)
	if err := newTestCache(t, file).Save(snap); err != nil {
		t.Fatal(err)
	}
	held := newTestCache(t, file).load()
	if held == nil {
		t.Fatal("the cache was not read")
	}
	known := knownIn(held, "t")
	if known == nil {
		t.Fatal("no Known for a snapshot read from the cache: every skill file is read again")
	}
	checked := 0
	for _, sk := range snap.Skills() {
		if sk.Layout == skill.LayoutFolder {
			if !known(sk.File, sk.Size, sk.ModTime) {
				t.Errorf("%s: skill file %s not known", sk.Path, sk.File)
			}
			if known(sk.File, sk.Size+1, sk.ModTime) || known(sk.File, sk.Size, sk.ModTime.Add(time.Second)) {
				t.Errorf("%s: a changed skill file is known", sk.Path)
			}
			checked++
		}
		for _, f := range sk.Files {
			abs := filepath.Join(sk.Dir, filepath.FromSlash(f.Path))
			if !known(abs, f.Size, f.ModTime) {
				t.Errorf("%s: companion file %s not known", sk.Path, abs)
			}
			checked++
		}
	}
	if checked < 10 {
		t.Fatalf("only %d files checked", checked)
	}
	if known(filepath.Join(dir, "no-such", "SKILL.md"), 1, time.Now()) {
		t.Error("a file the cache never held is known")
	}
}

// TestKnownInSkillsMatchesWalk: the snapshot read back from the catalog
// cache knows every companion file under the path the walk gives it (the
// folder and the file joined), with its size and time; a changed size or
// time, or another path, is not known.
func TestKnownInSkillsMatchesWalk(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a/SKILL.md":              "---\nname: a\ndescription: Skill a.\n---\nBody.\n",
		"a/scripts/run.sh":        "echo hi\n",
		"a/refs/deep/notes.md":    "# Notes\n",
		"b/SKILL.md":              "---\nname: b\ndescription: Skill b.\n---\nBody.\n",
		"b/LICENSE.txt":           "MIT\n",
		"b/nested/c/SKILL.md":     "---\nname: c\ndescription: Skill c.\n---\nBody.\n",
		"b/nested/c/reference.md": "# Ref\n",
	})
	// Older than the cache's settle window: files written just now are
	// not kept.
	old := time.Now().Add(-time.Hour)
	if err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(p, old, old)
	}); err != nil {
		t.Fatal(err)
	}
	root := &source.Root{Name: "t", Dir: dir, Kind: source.KindLocal, Trusted: true}
	file := filepath.Join(t.TempDir(), CacheFileName())
	if err := NewCache(file, cacheTestVersion, nil).Save(build(t, root)); err != nil {
		t.Fatal(err)
	}
	held := NewCache(file, cacheTestVersion, nil).load()
	if held == nil {
		t.Fatal("the cache was not read back")
	}
	known := knownIn(held, "t")
	files := 0
	for _, sk := range held.skills {
		for _, f := range sk.Files {
			abs := filepath.Join(sk.Dir, filepath.FromSlash(f.Path))
			files++
			if !known(abs, f.Size, f.ModTime) {
				t.Errorf("%s (%d bytes) not known", abs, f.Size)
			}
			if known(abs, f.Size+1, f.ModTime) || known(abs, f.Size, f.ModTime.Add(time.Second)) || known(abs+"x", f.Size, f.ModTime) {
				t.Errorf("%s known with another size, time or path", abs)
			}
		}
	}
	if files < 5 {
		t.Errorf("%d companion files in the cache, want 5 at least", files)
	}
}
