package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/skillsd/skillsd/services/skills/internal/scan"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// identityTree is a catalog with both layouts, companion files and a
// nested skill.
func identityTree() map[string]string {
	return map[string]string{
		"pdf/SKILL.md":             folderSkill("pdf", "Read PDF files", "Use pdftotext."),
		"pdf/scripts/extract.sh":   "#!/bin/sh\npdftotext \"$1\" -\n",
		"pdf/reference.md":         "# Reference\n",
		"pdf/forms/SKILL.md":       folderSkill("forms", "Fill PDF forms", "Fill them."),
		"pdf/forms/fields.json":    `{"a": 1}`,
		"ui/react/auth.md":         treeSkill("login, oauth", "Auth in React", "Use the hook."),
		"ui/react/auth/example.ts": "export const x = 1;\n",
	}
}

// copyTree copies the files of src into a new temporary folder, with its
// own modification times.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "elsewhere", "copy")
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(out, data, 0o644); err != nil {
			return err
		}
		old := time.Now().Add(-time.Hour)
		return os.Chtimes(out, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func TestIDSameContentElsewhere(t *testing.T) {
	dir := writeTree(t, identityTree())
	other := copyTree(t, dir)
	a := build(t, localRoot("skills", dir))
	b := build(t, localRoot("/abs/other/name", other))
	if len(a.Skills()) != 3 {
		t.Fatalf("got %d skills, want 3: %v", len(a.Skills()), paths(a.Skills()))
	}
	if !strings.HasPrefix(a.ID(), "sha256:") || len(a.ID()) != len("sha256:")+64 {
		t.Fatalf("ID() = %q, want sha256: and 64 hex digits", a.ID())
	}
	if a.ID() != b.ID() {
		t.Errorf("copies at %s and %s: ID %s and %s, want equal", dir, other, a.ID(), b.ID())
	}
	ca, cb := a.Sources()[0].ContentID, b.Sources()[0].ContentID
	if !strings.HasPrefix(ca, "sha256:") || ca != cb {
		t.Errorf("ContentID %q and %q, want equal sha256 digests", ca, cb)
	}
	if ca == a.ID() {
		t.Errorf("the source's ContentID is the catalog's ID (%s): want the catalog to hash more", ca)
	}

	// A rebuild that reuses every file (Previous), and one later in time,
	// keep the ID.
	opts := testOptions(t)
	opts.Previous = a
	opts.Now = func() time.Time { return testNow.Add(time.Hour) }
	again, err := Build(t.Context(), []*source.Root{localRoot("skills", dir)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if again.Stats().Reused == 0 {
		t.Errorf("the rebuild reused nothing; want it to take the skill files from Previous")
	}
	if again.ID() != a.ID() {
		t.Errorf("rebuild with Previous: ID %s, want %s", again.ID(), a.ID())
	}
}

func TestIDFollowsContent(t *testing.T) {
	base := build(t, localRoot("skills", writeTree(t, identityTree())))
	for _, tc := range []struct {
		name string
		edit func(files map[string]string)
	}{
		{"one byte of a companion file", func(f map[string]string) { f["pdf/forms/fields.json"] = `{"a": 2}` }},
		{"one byte of a tree skill's resource", func(f map[string]string) { f["ui/react/auth/example.ts"] = "export const x = 2;\n" }},
		{"a companion file added", func(f map[string]string) { f["pdf/extra.txt"] = "more" }},
		{"a companion file removed", func(f map[string]string) { delete(f, "pdf/reference.md") }},
		{"a companion file renamed", func(f map[string]string) {
			f["pdf/reference2.md"] = f["pdf/reference.md"]
			delete(f, "pdf/reference.md")
		}},
		{"a skill file's body", func(f map[string]string) { f["pdf/SKILL.md"] = folderSkill("pdf", "Read PDF files", "Use pdftotext!") }},
		{"a skill removed", func(f map[string]string) { delete(f, "ui/react/auth.md") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := identityTree()
			tc.edit(files)
			got := build(t, localRoot("skills", writeTree(t, files)))
			if got.ID() == base.ID() {
				t.Errorf("ID unchanged (%s)", got.ID())
			}
			if got.Sources()[0].ContentID == base.Sources()[0].ContentID {
				t.Errorf("ContentID unchanged (%s)", got.Sources()[0].ContentID)
			}
		})
	}

	// Trust changes what the catalog serves (scripts run or not), not the
	// source's content.
	untrusted := localRoot("skills", writeTree(t, identityTree()))
	untrusted.Trusted = false
	got := build(t, untrusted)
	if got.ID() == base.ID() || got.Sources()[0].ContentID != base.Sources()[0].ContentID {
		t.Errorf("untrusted: ID %s (base %s), ContentID %s (base %s); want a new ID, the same ContentID",
			got.ID(), base.ID(), got.Sources()[0].ContentID, base.Sources()[0].ContentID)
	}
}

func TestIDPrecedenceAndMissing(t *testing.T) {
	one := writeTree(t, map[string]string{"pdf/SKILL.md": folderSkill("pdf", "One", "one")})
	two := writeTree(t, map[string]string{"docx/SKILL.md": folderSkill("docx", "Two", "two")})
	ab := build(t, localRoot("a", one), localRoot("b", two))
	ba := build(t, localRoot("b", two), localRoot("a", one))
	if ab.ID() == ba.ID() {
		t.Errorf("sources in either order: the same ID %s; want precedence to count", ab.ID())
	}
	missing := build(t, localRoot("a", one), localRoot("gone", filepath.Join(t.TempDir(), "gone")))
	if c := missing.Sources()[1].ContentID; c != "" {
		t.Errorf("a missing source's ContentID = %q, want empty", c)
	}
	if missing.ID() == build(t, localRoot("a", one)).ID() {
		t.Errorf("a missing second source leaves the ID as without it; want it counted")
	}
}

func TestIDRevision(t *testing.T) {
	dir := writeTree(t, identityTree())
	const c1 = "0123456789abcdef0123456789abcdef01234567"
	root := &source.Root{Name: "team", Dir: dir, Kind: "git", Trusted: true}

	buildAt := func(revision func(string) string) *Snapshot {
		t.Helper()
		opts := testOptions(t)
		opts.Revision = revision
		snap, err := Build(t.Context(), []*source.Root{root}, opts)
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	at1 := buildAt(func(name string) string {
		if name == "team" {
			return c1
		}
		return ""
	})
	if got := at1.Sources()[0].ContentID; got != c1 {
		t.Errorf("ContentID of a checkout at %s: %q", c1, got)
	}
	if again := buildAt(func(string) string { return c1 }); again.ID() != at1.ID() {
		t.Errorf("same revision: ID %s, then %s", at1.ID(), again.ID())
	}
	at2 := buildAt(func(string) string { return strings.Repeat("f", 40) })
	if at2.ID() == at1.ID() || at2.Sources()[0].ContentID != strings.Repeat("f", 40) {
		t.Errorf("a new revision: ID %s (was %s), ContentID %s", at2.ID(), at1.ID(), at2.Sources()[0].ContentID)
	}

	// The checkout switched during the build: what was read is not known
	// to be either commit, so the files identify it.
	n := 0
	moving := buildAt(func(string) string {
		n++
		return strings.Repeat(string(rune('0'+n)), 40)
	})
	want := build(t, localRoot("team", dir)).Sources()[0].ContentID
	if got := moving.Sources()[0].ContentID; got != want {
		t.Errorf("revision changed during the build: ContentID %q, want the folder digest %q", got, want)
	}
}

// TestIDSecurity: the same files under another security policy, which
// quarantines a skill the other serves, have another ID (the answers
// differ), but the same ContentID; the same policy over a copy elsewhere
// has the same ID.
func TestIDSecurity(t *testing.T) {
	files := map[string]string{
		"cleaner/SKILL.md": folderSkill("cleaner", "Frees disk space.", "Run clean.sh."),
		"cleaner/clean.sh": wipeScript,
		"notes/SKILL.md":   folderSkill("notes", "Takes notes.", "Write them down."),
	}
	dir := writeTree(t, files)
	scanned := func(dir string, p scan.Policy) *Snapshot {
		t.Helper()
		sc, err := scan.New(scan.Options{Policy: p})
		if err != nil {
			t.Fatal(err)
		}
		opts := testOptions(t)
		opts.Scan = sc
		snap, err := Build(t.Context(), []*source.Root{localRoot("skills", dir)}, opts)
		if err != nil {
			t.Fatal(err)
		}
		return snap
	}
	strict := scanned(dir, scan.Policy{})
	if strict.Get("cleaner") == nil || !strict.Get("cleaner").Quarantined() {
		t.Fatalf("cleaner not quarantined by the default policy; the test needs it")
	}
	if again := scanned(copyTree(t, dir), scan.Policy{}); again.ID() != strict.ID() {
		t.Errorf("same policy over a copy: ID %s, want %s", again.ID(), strict.ID())
	}
	off := scanned(dir, scan.Policy{Quarantine: scan.Off})
	if off.Get("cleaner").Quarantined() {
		t.Fatalf("cleaner quarantined with quarantine off")
	}
	if off.ID() == strict.ID() {
		t.Errorf("quarantine off serves cleaner, yet the ID is the same (%s)", off.ID())
	}
	if off.Sources()[0].ContentID != strict.Sources()[0].ContentID {
		t.Errorf("the policy changed the ContentID: %s, %s", off.Sources()[0].ContentID, strict.Sources()[0].ContentID)
	}
	if unscanned := build(t, localRoot("skills", dir)); unscanned.Sources()[0].ContentID != strict.Sources()[0].ContentID {
		t.Errorf("ContentID without a scan %s, with one %s: want the same digests either way",
			unscanned.Sources()[0].ContentID, strict.Sources()[0].ContentID)
	}
}

// BenchmarkIdentify measures what the identity adds to a build of a
// 3,000-skill catalog (9,000 files): a hash over the digests the build
// already holds.
func BenchmarkIdentify(b *testing.B) {
	snap, err := Build(b.Context(), []*source.Root{localRoot("skills", makeCatalog(b, 3000))}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	bl := &builder{snap: snap, walks: []walked{{src: snap.sources[0]}}}
	for b.Loop() {
		bl.identify(nil, nil, nil)
	}
	if snap.ID() == "" {
		b.Fatal("no ID")
	}
}

// TestContentDigestIsItsFormula: the content digest is sha256 over
// "skill", NUL, the skill file's digest, NUL, then each companion file's
// path, NUL, digest, NUL, as security.allow entries and the scan cache keep
// it, for no files, a few, many, and a path longer than contentDigest's
// buffer.
func TestContentDigestIsItsFormula(t *testing.T) {
	formula := func(sk *Skill) string {
		h := sha256.New()
		fmt.Fprintf(h, "skill\x00%s\x00", sk.fileDigest)
		for _, f := range sk.Files {
			fmt.Fprintf(h, "%s\x00%s\x00", f.Path, f.Digest)
		}
		return "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	digest := "sha256:" + strings.Repeat("ab", 32)
	var many []File
	for i := range 300 {
		many = append(many, File{Path: fmt.Sprintf("references/part-%03d.md", i), Digest: digest})
	}
	for name, files := range map[string][]File{
		"none":      nil,
		"few":       {{Path: "scripts/run.sh", Digest: digest}, {Path: "LICENSE", Digest: "sha256:00"}},
		"many":      many,
		"long path": {{Path: strings.Repeat("deep/", 400) + "x.md", Digest: digest}, {Path: "a", Digest: ""}},
	} {
		sk := &Skill{fileDigest: digest, Files: files}
		if got, want := contentDigest(sk), formula(sk); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}
