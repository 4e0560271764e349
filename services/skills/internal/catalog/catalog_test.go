package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillsd/skillsd/services/skills/internal/skill"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

var testNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func testOptions(t testing.TB) Options {
	return Options{
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})),
		Now:    func() time.Time { return testNow },
	}
}

func build(t testing.TB, roots ...*source.Root) *Snapshot {
	t.Helper()
	snap, err := Build(t.Context(), roots, testOptions(t))
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return snap
}

func localRoot(name, dir string) *source.Root {
	return &source.Root{Name: name, Dir: dir, Kind: source.KindLocal, Trusted: true}
}

// writeTree creates files (path → content) under a new temporary folder.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, content := range files {
		abs := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func folderSkill(name, desc, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n\n%s\n", name, desc, body)
}

func treeSkill(keywords, desc, body string) string {
	return fmt.Sprintf("---\nkeywords: [%s]\ndescription: %s\n---\n\n%s\n", keywords, desc, body)
}

func paths(skills []*Skill) []string {
	out := []string{}
	for _, sk := range skills {
		out = append(out, sk.Path)
	}
	return out
}

func codes(ds []skill.Diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}

func findDiag(ds []skill.Diagnostic, code, file string) (skill.Diagnostic, bool) {
	for _, d := range ds {
		if d.Code == code && d.File == file {
			return d, true
		}
	}
	return skill.Diagnostic{}, false
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got), run with -update if the change is right:\n%s", p, diff)
	}
}

func seed000(t testing.TB) *Snapshot {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "seed000-tree"))
	if err != nil {
		t.Fatal(err)
	}
	return build(t, localRoot("seed000-tree", dir))
}

func TestSeed000Skills(t *testing.T) {
	snap := seed000(t)
	want := []string{"_root", "api/_index", "api/auth", "no-inherit", "ui/_index", "ui/react/_index", "ui/react/auth", "ui/react/testing"}
	if diff := cmp.Diff(want, paths(snap.Skills())); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if ds := snap.Diagnostics(); len(ds) != 0 {
		t.Errorf("unexpected diagnostics: %+v", ds)
	}
	parents := map[string]string{
		"_root":            "",
		"api/_index":       "_root",
		"api/auth":         "api/_index",
		"no-inherit":       "_root",
		"ui/_index":        "_root",
		"ui/react/_index":  "ui/_index",
		"ui/react/auth":    "ui/react/_index",
		"ui/react/testing": "ui/react/_index",
	}
	for p, want := range parents {
		sk := snap.Get(p)
		got := ""
		if sk.Parent != nil {
			got = sk.Parent.Path
		}
		if got != want {
			t.Errorf("parent of %s = %q, want %q", p, got, want)
		}
		if sk.Name != p {
			t.Errorf("name of %s = %q, want its path", p, sk.Name)
		}
		if !sk.Routable || sk.Layout != skill.LayoutTree {
			t.Errorf("%s: routable %v, layout %v", p, sk.Routable, sk.Layout)
		}
	}
	auth := snap.Get("ui/react/auth")
	if !strings.HasSuffix(auth.Dir, filepath.FromSlash("ui/react/auth")) || auth.RelFile != "ui/react/auth.md" {
		t.Errorf("auth: Dir %q, RelFile %q", auth.Dir, auth.RelFile)
	}
	if d := snap.Get("ui/react/testing").Dir; d != "" {
		t.Errorf("testing has no resource folder, got Dir %q", d)
	}
	wantFiles := []File{
		{Path: "assets/AuthProvider.tsx.template", MIME: "text/plain", Text: true},
		{Path: "assets/auth-config.example.ts", MIME: "text/x-typescript", Text: true},
		{Path: "scripts/scaffold-auth.sh", MIME: "text/x-shellscript", Text: true},
		{Path: "scripts/validate-auth-config.ts", MIME: "text/x-typescript", Text: true},
	}
	var gotFiles []File
	for _, f := range auth.Files {
		if f.Size <= 0 || len(f.Digest) != len("sha256:")+64 || f.ModTime.IsZero() {
			t.Errorf("file %s: size %d, digest %q, modtime %v", f.Path, f.Size, f.Digest, f.ModTime)
		}
		gotFiles = append(gotFiles, File{Path: f.Path, MIME: f.MIME, Text: f.Text})
	}
	if diff := cmp.Diff(wantFiles, gotFiles); diff != "" {
		t.Errorf("auth files (-want +got):\n%s", diff)
	}
}

func TestSeed000Content(t *testing.T) {
	snap := seed000(t)
	var b bytes.Buffer
	for _, sk := range snap.Skills() {
		fmt.Fprintf(&b, "==> %s (inherit %v) <==\n%s\n\n", sk.Path, sk.Inherits(), snap.Content(sk))
	}
	golden(t, "seed000.content.golden", b.Bytes())

	// The banner format of seed 000 §6.2, spelled out.
	auth := snap.Content(snap.Get("ui/react/auth"))
	wantPrefix := "=== GLOBAL RULES (from _root.md) ===\n\n# Global Rules\n\n- Follow the project coding standards\n"
	if !strings.HasPrefix(auth, wantPrefix) {
		t.Errorf("content of ui/react/auth starts %q, want %q", auth[:min(len(auth), 80)], wantPrefix)
	}
	for _, h := range []string{
		"\n\n=== UI (from ui/_index.md) ===\n\n# UI Development\n",
		"\n\n=== UI > REACT (from ui/react/_index.md) ===\n\n# React Rules\n",
		"\n\n=== UI > REACT > AUTH (from ui/react/auth.md) ===\n\n# React Auth Components\n",
	} {
		if !strings.Contains(auth, h) {
			t.Errorf("content of ui/react/auth lacks %q", h)
		}
	}
	if !strings.HasSuffix(auth, "- Refresh automatically before expiry") {
		t.Errorf("content of ui/react/auth should end with its trimmed body")
	}
	if got, want := snap.Content(snap.Get("no-inherit")), "# Standalone Skill\n\nThis content should be returned alone without any parent content."; got != want {
		t.Errorf("content of no-inherit = %q, want %q", got, want)
	}
}

// assetView is the golden form of Assets and Scripts.
type assetView struct {
	Assets           []refView `json:"assets"`
	InheritedAssets  []refView `json:"inherited_assets"`
	Scripts          []refView `json:"scripts"`
	InheritedScripts []refView `json:"inherited_scripts"`
}

type refView struct {
	File      string `json:"file"`
	Type      string `json:"type,omitempty"`
	Execution string `json:"execution,omitempty"`
	From      string `json:"from,omitempty"`
}

func TestSeed000Assets(t *testing.T) {
	snap := seed000(t)
	views := map[string]assetView{}
	for _, sk := range snap.Skills() {
		v := assetView{Assets: []refView{}, InheritedAssets: []refView{}, Scripts: []refView{}, InheritedScripts: []refView{}}
		own, inh := snap.Assets(sk)
		for _, r := range own {
			v.Assets = append(v.Assets, refView{File: r.File, From: r.From, Type: r.Type})
		}
		for _, r := range inh {
			v.InheritedAssets = append(v.InheritedAssets, refView{File: r.File, From: r.From, Type: r.Type})
		}
		ownS, inhS := snap.Scripts(sk)
		for _, r := range ownS {
			v.Scripts = append(v.Scripts, refView{File: r.File, From: r.From, Execution: r.Execution})
		}
		for _, r := range inhS {
			v.InheritedScripts = append(v.InheritedScripts, refView{File: r.File, From: r.From, Execution: r.Execution})
		}
		views[sk.Path] = v
	}
	got, err := json.MarshalIndent(views, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "seed000.assets.golden.json", append(got, '\n'))

	auth := views["ui/react/auth"]
	wantInh := []refView{{File: "assets/component-base.tsx.template", From: "ui/react/_index", Type: "template"}}
	if diff := cmp.Diff(wantInh, auth.InheritedAssets); diff != "" {
		t.Errorf("inherited assets of ui/react/auth (-want +got):\n%s", diff)
	}
	if len(auth.Assets) != 2 || auth.Assets[0].From != "" {
		t.Errorf("own assets of ui/react/auth: %+v", auth.Assets)
	}
}

func TestSeed000Tree(t *testing.T) {
	snap := seed000(t)
	for _, tc := range []struct {
		sub, golden string
	}{
		{"", "seed000.tree.golden.json"},
		{"ui", "seed000.tree-ui.golden.json"},
	} {
		nodes, err := snap.Tree(tc.sub)
		if err != nil {
			t.Fatalf("Tree(%q): %v", tc.sub, err)
		}
		got, err := json.MarshalIndent(nodes, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		golden(t, tc.golden, append(got, '\n'))
	}
}

func TestTreeSub(t *testing.T) {
	snap := seed000(t)
	tops := func(ns []*Node) []string {
		out := []string{}
		for _, n := range ns {
			out = append(out, n.Path)
		}
		return out
	}
	for _, tc := range []struct {
		name, sub string
		want      []string
		wantErr   bool
	}{
		{name: "all", sub: "", want: []string{"_root"}},
		{name: "category", sub: "ui", want: []string{"ui/_index"}},
		{name: "slashes and blanks", sub: " /ui/ ", want: []string{"ui/_index"}},
		{name: "nested category", sub: "ui/react", want: []string{"ui/react/_index"}},
		{name: "exact index path", sub: "api/_index", want: []string{"api/_index"}},
		{name: "leaf", sub: "ui/react/auth", want: []string{"ui/react/auth"}},
		{name: "root", sub: "_root", want: []string{"_root"}},
		{name: "unknown", sub: "nope", want: []string{}},
		{name: "prefix is not a segment", sub: "u", want: []string{}},
		{name: "dot dot", sub: "ui/../api", wantErr: true},
		{name: "backslash", sub: `ui\react`, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nodes, err := snap.Tree(tc.sub)
			if (err != nil) != tc.wantErr {
				t.Fatalf("Tree(%q) error = %v, want error %v", tc.sub, err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if diff := cmp.Diff(tc.want, tops(nodes)); diff != "" {
				t.Errorf("Tree(%q) (-want +got):\n%s", tc.sub, diff)
			}
		})
	}
	nodes, _ := snap.Tree("ui")
	if n := nodes[0].Children[0]; n.Path != "ui/react/_index" || len(n.Children) != 2 || n.AssetCount != 1 || n.ScriptCount != 1 {
		t.Errorf("ui/react/_index node: %+v", n)
	}
}

func TestMissingIntermediateParents(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"_root.md":          treeSkill("global", "Global", "Root body."),
		"a/b/c/deep.md":     treeSkill("deep", "Deep", "Deep body."),
		"x/_index.md":       treeSkill("x", "X", "X body."),
		"x/y/z/_index.md":   treeSkill("z", "Z", "Z body."),
		"x/y/z/leaf.md":     treeSkill("leaf", "Leaf", "Leaf body."),
		"x/y/other.md":      treeSkill("other", "Other", "Other body."),
		"x/y/z/w/_index.md": treeSkill("w", "W", "W body."),
	})
	snap := build(t, localRoot("t", dir))
	for p, want := range map[string]string{
		"a/b/c/deep":     "_root",
		"x/y/z/_index":   "x/_index",
		"x/y/z/leaf":     "x/y/z/_index",
		"x/y/other":      "x/_index",
		"x/y/z/w/_index": "x/y/z/_index",
		"x/_index":       "_root",
	} {
		sk := snap.Get(p)
		if sk == nil || sk.Parent == nil || sk.Parent.Path != want {
			t.Errorf("parent of %s: got %v, want %s", p, sk, want)
		}
	}
	got := snap.Content(snap.Get("x/y/z/leaf"))
	want := "=== GLOBAL RULES (from _root.md) ===\n\nRoot body.\n\n=== X (from x/_index.md) ===\n\nX body.\n\n" +
		"=== X > Y > Z (from x/y/z/_index.md) ===\n\nZ body.\n\n=== X > Y > Z > LEAF (from x/y/z/leaf.md) ===\n\nLeaf body."
	if got != want {
		t.Errorf("content:\n got %q\nwant %q", got, want)
	}
}

func TestMixedLayouts(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"_root.md": treeSkill("global", "Global rules", "Be careful."),
		"pdf/SKILL.md": "---\nname: pdf\ndescription: Work with PDF files.\nassets:\n  - file: ./forms/template.txt\n    type: template\n" +
			"  - file: forms/missing.txt\n---\n\n# PDF\n\nUse the tools.\n",
		"pdf/forms/template.txt":      "form",
		"pdf/references/guide.md":     treeSkill("guide", "Not a skill: inside a skill folder", "Guide."),
		"pdf/nested/SKILL.md":         folderSkill("nested", "A nested skill.", "Nested body."),
		"pdf/nested/data.csv":         "a,b\n1,2\n",
		"team/_index.md":              treeSkill("team", "Team rules", "Team body."),
		"team/deploy/SKILL.md":        folderSkill("deploy", "Deploy things.", "Deploy body."),
		"team/notes.md":               "# Just notes\n",
		"team/broken.md":              "---\nkeywords: []\ndescription: Broken seed skill\n---\nbody\n",
		"team/half.md":                "---\nkeywords: [a]\n---\nbody\n",
		"docs/readme.md":              "---\ntitle: not a skill\n---\n",
		"ui/auth.md":                  treeSkill("auth", "Auth", "Auth body."),
		"ui/auth/refs/SKILL-notes.md": "x",
		"ui/auth/refs/extra.md":       treeSkill("extra", "In a resource folder", "x"),
		"standalone/SKILL.md":         "---\nname: standalone\ndescription: Standalone.\ninherit: false\n---\nAlone.\n",
	})
	snap := build(t, localRoot("mixed", dir))
	want := []string{"_root", "pdf", "pdf/nested", "standalone", "team/_index", "team/deploy", "ui/auth"}
	if diff := cmp.Diff(want, paths(snap.Skills())); diff != "" {
		t.Fatalf("skills (-want +got):\n%s", diff)
	}
	pdf := snap.Get("pdf")
	if pdf.Parent == nil || pdf.Parent.Path != "_root" || pdf.Layout != skill.LayoutFolder {
		t.Errorf("pdf: parent %v, layout %v", pdf.Parent, pdf.Layout)
	}
	if got, want := snap.Get("team/deploy").Parent.Path, "team/_index"; got != want {
		t.Errorf("team/deploy parent = %s, want %s", got, want)
	}
	if got, want := snap.Get("pdf/nested").Parent.Path, "_root"; got != want {
		t.Errorf("pdf/nested parent = %s, want %s (parents come from _index/_root only)", got, want)
	}
	wantContent := "=== GLOBAL RULES (from _root.md) ===\n\nBe careful.\n\n=== PDF (from pdf/SKILL.md) ===\n\n# PDF\n\nUse the tools."
	if got := snap.Content(pdf); got != wantContent {
		t.Errorf("pdf content:\n got %q\nwant %q", got, wantContent)
	}
	if got, want := snap.Content(snap.Get("standalone")), "Alone."; got != want {
		t.Errorf("standalone content = %q, want %q", got, want)
	}
	// The nested skill's files belong to the enclosing skill too.
	var files []string
	for _, f := range pdf.Files {
		files = append(files, f.Path)
	}
	wantFiles := []string{"forms/template.txt", "nested/SKILL.md", "nested/data.csv", "references/guide.md"}
	if diff := cmp.Diff(wantFiles, files); diff != "" {
		t.Errorf("pdf files (-want +got):\n%s", diff)
	}
	own, _ := snap.Assets(pdf)
	if len(own) != 2 || own[0].File != "forms/template.txt" || own[0].Owner != pdf {
		t.Errorf("pdf assets: %+v", own)
	}
	ds := snap.Diagnostics()
	for _, c := range []struct{ code, file string }{
		{CodeDeclaredMissing, "pdf/SKILL.md"},
		{source.CodeTreeSkillInvalid, "team/broken.md"},
		{source.CodeTreeSkillInvalid, "team/half.md"},
	} {
		if _, ok := findDiag(ds, c.code, c.file); !ok {
			t.Errorf("no %s diagnostic for %s in %v", c.code, c.file, ds)
		}
	}
	if d, ok := findDiag(ds, source.CodeTreeSkillInvalid, "docs/readme.md"); ok {
		t.Errorf("plain markdown got a diagnostic: %+v", d)
	}
}

func TestShadowing(t *testing.T) {
	first := writeTree(t, map[string]string{
		"pdf/SKILL.md":    folderSkill("pdf", "First PDF.", "one"),
		"review/SKILL.md": folderSkill("review", "First review.", "one"),
	})
	second := writeTree(t, map[string]string{
		"pdf/SKILL.md":         folderSkill("pdf", "Second PDF (same path).", "two"),
		"docs/review/SKILL.md": folderSkill("Review", "Second review (same name, other case).", "two"),
		"extra/SKILL.md":       folderSkill("extra", "Only here.", "two"),
	})
	snap := build(t, localRoot("project", first), localRoot("user", second))
	if diff := cmp.Diff([]string{"extra", "pdf", "review"}, paths(snap.Skills())); diff != "" {
		t.Fatalf("skills (-want +got):\n%s", diff)
	}
	if got := snap.Get("pdf").Source.Name; got != "project" {
		t.Errorf("pdf comes from %s, want project", got)
	}
	if got := snap.Get("extra").Source.Name; got != "user" {
		t.Errorf("extra comes from %s, want user", got)
	}
	for _, file := range []string{"pdf/SKILL.md", "docs/review/SKILL.md"} {
		d, ok := findDiag(snap.Diagnostics(), CodeShadowed, file)
		if !ok || d.Source != "user" || !strings.Contains(d.Message, "project") {
			t.Errorf("shadowed diagnostic for %s: %+v (found %v)", file, d, ok)
		}
	}
	if got := snap.Stats().Shadowed; got != 2 {
		t.Errorf("Shadowed = %d, want 2", got)
	}
	if diff := cmp.Diff([]string{"project", "user"}, func() []string {
		var out []string
		for _, s := range snap.Sources() {
			out = append(out, s.Name)
		}
		return out
	}()); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
}

func TestSameNameInOneSource(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"b/dup/SKILL.md": folderSkill("dup", "Second in path order.", "b"),
		"a/dup/SKILL.md": folderSkill("dup", "First in path order.", "a"),
	})
	snap := build(t, localRoot("t", dir))
	if snap.Len() != 2 {
		t.Fatalf("got %d skills, want both", snap.Len())
	}
	sk, err := snap.Lookup("DUP")
	if err != nil || sk.Path != "a/dup" {
		t.Errorf("Lookup(DUP) = %v, %v; want a/dup", sk, err)
	}
	if _, ok := findDiag(snap.Diagnostics(), CodeNameDuplicate, "b/dup/SKILL.md"); !ok {
		t.Errorf("no name-duplicate diagnostic: %v", snap.Diagnostics())
	}
}

func TestLookup(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"pdf/SKILL.md":             folderSkill("pdf", "PDF.", "x"),
		"pdf-tools/SKILL.md":       folderSkill("pdf-tools", "PDF tools.", "x"),
		"web/react-forms/SKILL.md": folderSkill("react-forms", "Forms.", "x"),
		"secret/SKILL.md":          "---\nname: hidden-skill\ndescription: Hidden.\ndisable-model-invocation: true\n---\nx\n",
		"ui/_index.md":             treeSkill("ui", "UI", "x"),
	})
	snap := build(t, localRoot("t", dir))
	for _, tc := range []struct {
		ref, want string
	}{
		{"pdf", "pdf"},
		{"  PDF ", "pdf"},
		{"web/react-forms", "web/react-forms"},
		{"React-Forms", "web/react-forms"},
		{"UI/_INDEX", "ui/_index"},
		{"ui/_index/", "ui/_index"},
		{"hidden-skill", "secret"},
	} {
		sk, err := snap.Lookup(tc.ref)
		if err != nil || sk.Path != tc.want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", tc.ref, sk, err, tc.want)
		}
	}
	for _, tc := range []struct {
		ref  string
		want []string
	}{
		{"pfd", []string{"pdf"}},
		{"pdf-tool", []string{"pdf-tools", "pdf"}},
		{"forms", []string{"react-forms"}},
		{"hidden", []string{}},
		{"zzzzzzzz", []string{}},
		// Issue 18: separators left out, and a typo in the last segment
		// of a nested path, found the way a user types them.
		{"reactforms", []string{"react-forms"}},
		{"react_forms", []string{"react-forms"}},
		{"recat-forms", []string{"react-forms"}},
		{"ui/indx", []string{"ui/_index"}},
	} {
		_, err := snap.Lookup(tc.ref)
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Fatalf("Lookup(%q) error = %v, want *NotFoundError", tc.ref, err)
		}
		if nf.Ref != tc.ref {
			t.Errorf("Ref = %q, want %q", nf.Ref, tc.ref)
		}
		if diff := cmp.Diff(tc.want, nf.Suggestions, cmpEmpty); diff != "" {
			t.Errorf("suggestions for %q (-want +got):\n%s", tc.ref, diff)
		}
	}
}

var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })

func TestFolderSkillChecks(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"nofm/SKILL.md":     "# No frontmatter\n\nStill loadable.\n",
		"nodesc/SKILL.md":   "---\nname: nodesc\n---\nBody.\n",
		"noname/SKILL.md":   "---\ndescription: No name.\n---\nBody.\n",
		"mismatch/SKILL.md": folderSkill("other-name", "Name differs.", "x"),
		"bad/SKILL.md":      folderSkill("Bad_Name", "Invalid name.", "x"),
		"binary/SKILL.md":   "---\nname: binary\x00\x01\x02\n---\n",
		"manual/SKILL.md":   "---\nname: manual\ndescription: Manual only.\ndisable-model-invocation: true\n---\nx\n",
	})
	snap := build(t, localRoot("t", dir))
	for _, tc := range []struct {
		path, name string
		routable   bool
	}{
		{"nofm", "nofm", false},
		{"nodesc", "nodesc", false},
		{"noname", "noname", true},
		{"mismatch", "other-name", true},
		{"bad", "Bad_Name", true},
		{"manual", "manual", false},
	} {
		sk := snap.Get(tc.path)
		if sk == nil {
			t.Errorf("%s is not loaded", tc.path)
			continue
		}
		if sk.Name != tc.name || sk.Routable != tc.routable {
			t.Errorf("%s: name %q routable %v, want %q %v", tc.path, sk.Name, sk.Routable, tc.name, tc.routable)
		}
	}
	if sk := snap.Get("nofm"); sk.Description != "" || snap.Content(sk) != "# No frontmatter\n\nStill loadable." {
		t.Errorf("nofm: description %q, content %q", sk.Description, snap.Content(sk))
	}
	if snap.Get("binary") != nil {
		t.Errorf("a binary SKILL.md is loaded")
	}
	ds := snap.Diagnostics()
	for _, c := range []struct{ code, file string }{
		{"frontmatter-missing", "nofm/SKILL.md"},
		{CodeNotRoutable, "nodesc/SKILL.md"},
		{CodeNameMissing, "noname/SKILL.md"},
		{CodeNameMismatch, "mismatch/SKILL.md"},
		{CodeNameInvalid, "bad/SKILL.md"},
		{"binary", "binary/SKILL.md"},
	} {
		d, ok := findDiag(ds, c.code, c.file)
		if !ok {
			t.Errorf("no %s diagnostic for %s; have %v", c.code, c.file, codes(ds))
			continue
		}
		if d.Source != "t" {
			t.Errorf("%s diagnostic source = %q, want t", c.code, d.Source)
		}
	}
	if d, _ := findDiag(ds, CodeNameMismatch, "mismatch/SKILL.md"); d.Line != 2 {
		t.Errorf("name-mismatch line = %d, want 2", d.Line)
	}
}

func TestRootLevelSkill(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "my-skill")
	if err := os.MkdirAll(filepath.Join(dir, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(folderSkill("my-skill", "At the root.", "Root skill.")), 0o644)
	os.WriteFile(filepath.Join(dir, "refs", "a.md"), []byte(treeSkill("a", "inside the skill", "x")), 0o644)
	snap := build(t, localRoot("t", dir))
	if diff := cmp.Diff([]string{"my-skill"}, paths(snap.Skills())); diff != "" {
		t.Fatalf("skills (-want +got):\n%s", diff)
	}
	sk := snap.Get("my-skill")
	if len(sk.Files) != 1 || sk.Files[0].Path != "refs/a.md" || sk.RelFile != "SKILL.md" {
		t.Errorf("files %+v, RelFile %q", sk.Files, sk.RelFile)
	}
	if len(snap.Diagnostics()) != 0 {
		t.Errorf("diagnostics: %+v", snap.Diagnostics())
	}
}

func TestMissingRoot(t *testing.T) {
	ok := writeTree(t, map[string]string{"a/SKILL.md": folderSkill("a", "A.", "x")})
	snap := build(t, localRoot("gone", filepath.Join(t.TempDir(), "nope")), localRoot("ok", ok))
	if snap.Len() != 1 {
		t.Errorf("got %d skills, want 1", snap.Len())
	}
	d, found := findDiag(snap.Diagnostics(), CodeSourceMissing, "")
	if !found || d.Source != "gone" || d.Severity != skill.SeverityWarning {
		t.Errorf("source-missing diagnostic: %+v (found %v)", d, found)
	}
	empty := build(t)
	if empty.Len() != 0 || len(empty.Skills()) != 0 {
		t.Errorf("empty build has skills")
	}
	if nodes, err := empty.Tree(""); err != nil || nodes == nil || len(nodes) != 0 {
		t.Errorf("empty Tree = %v, %v", nodes, err)
	}
}

func TestUnreadableFile(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"a/SKILL.md":     folderSkill("a", "A.", "x"),
		"a/secret.txt":   "secret",
		"a/readable.txt": "fine",
	})
	secret := filepath.Join(dir, "a", "secret.txt")
	if err := os.Chmod(secret, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(secret, 0o644) })
	if _, err := os.ReadFile(secret); err == nil {
		t.Skip("running with privileges that read a chmod-000 file (root?)")
	}
	snap := build(t, localRoot("t", dir))
	sk := snap.Get("a")
	if sk == nil || len(sk.Files) != 1 || sk.Files[0].Path != "readable.txt" {
		t.Fatalf("skill a: %+v", sk)
	}
	d, ok := findDiag(snap.Diagnostics(), CodeFileUnreadable, "a/secret.txt")
	if !ok || d.Severity != skill.SeverityError || strings.Contains(d.Message, dir) {
		t.Errorf("unreadable diagnostic: %+v (found %v)", d, ok)
	}
}

func TestDeterministicAndReuse(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"_root.md":          treeSkill("global", "Global", "Root."),
		"a/SKILL.md":        folderSkill("a", "A.", "x"),
		"a/ref.txt":         "ref",
		"b/SKILL.md":        folderSkill("b", "B.", "x"),
		"b/scripts/run.sh":  "#!/bin/sh\necho hi\n",
		"c/_index.md":       treeSkill("c", "C", "C."),
		"c/leaf.md":         treeSkill("leaf", "Leaf", "Leaf."),
		"c/leaf/notes.txt":  "notes",
		"mismatch/SKILL.md": folderSkill("other", "Mismatch.", "x"),
	})
	root := localRoot("t", dir)
	opts := testOptions(t)
	opts.Workers = 1
	one, err := Build(t.Context(), []*source.Root{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	many := build(t, root)
	view := func(s *Snapshot) string {
		var b strings.Builder
		for _, sk := range s.Skills() {
			fmt.Fprintf(&b, "%s %s %v %v %+v\n%s\n", sk.Path, sk.Name, sk.Routable, sk.Parent != nil, sk.Files, s.Content(sk))
		}
		for _, d := range s.Diagnostics() {
			fmt.Fprintf(&b, "%+v\n", d)
		}
		return b.String()
	}
	if diff := cmp.Diff(view(one), view(many)); diff != "" {
		t.Fatalf("1 worker and many differ:\n%s", diff)
	}

	// Rebuild with nothing changed: everything reused.
	later := testNow.Add(time.Hour)
	opts = testOptions(t)
	opts.Previous = many
	opts.Now = func() time.Time { return later }
	again, err := Build(t.Context(), []*source.Root{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := again.Stats().Reused, many.Len(); got != want {
		t.Errorf("Reused = %d, want %d", got, want)
	}
	if diff := cmp.Diff(view(many), view(again)); diff != "" {
		t.Errorf("rebuild differs:\n%s", diff)
	}
	if again.Get("a").Doc != many.Get("a").Doc || !again.Get("a").LoadedAt.Equal(testNow) {
		t.Errorf("a was not reused")
	}

	// Change one skill (its size changes): only it is parsed again.
	if err := os.WriteFile(filepath.Join(dir, "a", "SKILL.md"), []byte(folderSkill("a", "A, changed.", "new body")), 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Previous = again
	third, err := Build(t.Context(), []*source.Root{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	a := third.Get("a")
	if a.Description != "A, changed." || !a.LoadedAt.Equal(later) || a.Doc == again.Get("a").Doc {
		t.Errorf("a after change: description %q, loaded %v", a.Description, a.LoadedAt)
	}
	if got, want := third.Stats().Reused, many.Len()-1; got != want {
		t.Errorf("Reused = %d, want %d", got, want)
	}
	if third.Get("b").Files[0].Digest != many.Get("b").Files[0].Digest {
		t.Errorf("digest of an unchanged file changed")
	}
}

func TestStore(t *testing.T) {
	var st Store
	if st.Current() != nil {
		t.Fatal("a new store holds a snapshot")
	}
	s1 := seed000(t)
	if prev := st.Swap(s1); prev != nil || st.Current() != s1 || s1.Generation() != 1 {
		t.Fatalf("first swap: prev %v, generation %d", prev, s1.Generation())
	}
	s2 := seed000(t)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 1000 {
				cur := st.Current()
				if cur.Generation() == 0 || cur.Get("_root") == nil {
					t.Error("reader saw a bad snapshot")
					return
				}
			}
		})
	}
	if prev := st.Swap(s2); prev != s1 || s2.Generation() != 2 {
		t.Errorf("second swap: prev %p (want %p), generation %d", prev, s1, s2.Generation())
	}
	wg.Wait()
	if st.Swap(nil) != s2 || st.Current() != s2 {
		t.Errorf("Swap(nil) changed the store")
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	dir, _ := filepath.Abs(filepath.Join("testdata", "seed000-tree"))
	if _, err := Build(ctx, []*source.Root{localRoot("t", dir)}, Options{}); err == nil {
		t.Errorf("Build with a cancelled context succeeded")
	}
}

func TestFileKind(t *testing.T) {
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for _, tc := range []struct {
		name string
		head []byte
		mime string
		text bool
	}{
		{"a.md", []byte("# hi"), "text/markdown", true},
		{"a.sh", []byte("#!/bin/sh"), "text/x-shellscript", true},
		{"a.svg", []byte("<svg/>"), "image/svg+xml", false},
		{"a.PNG", png, "image/png", false},
		{"a.ico", []byte("text?"), "image/x-icon", false},
		{"a.pdf", []byte("%PDF-1.4"), "application/pdf", false},
		{"a.woff2", nil, "font/woff2", false},
		{"noext", []byte("plain words"), "text/plain", true},
		{"noext", png, "image/png", false},
		{"data.bin", []byte{0, 1, 2, 3}, "application/octet-stream", false},
		{"a.txt", []byte("abc\x00def"), "application/octet-stream", false},
		{"a.json", []byte(`{"a": 1}`), "application/json", true},
		{"a.unknownext", []byte("héllo"), "text/plain", true},
		{"cut.txt", []byte("h\xc3"), "text/plain", true},
		{"latin1.txt", []byte("caf\xe9 au lait"), "text/plain", true},
		{"empty", nil, "text/plain", true},
	} {
		mime, text := fileKind(tc.name, tc.head)
		if mime != tc.mime || text != tc.text {
			t.Errorf("fileKind(%q, %q) = %q, %v; want %q, %v", tc.name, tc.head, mime, text, tc.mime, tc.text)
		}
	}
}

func TestHeader(t *testing.T) {
	for p, want := range map[string]string{
		"_root":           "GLOBAL RULES",
		"ui/_index":       "UI",
		"ui/react/_index": "UI > REACT",
		"ui/react/auth":   "UI > REACT > AUTH",
		"no-inherit":      "NO-INHERIT",
		"pdf":             "PDF",
		"a  b/c":          "A B > C",
		"_index":          "_INDEX",
	} {
		if got := header(p); got != want {
			t.Errorf("header(%q) = %q, want %q", p, got, want)
		}
	}
}

func TestTrimBody(t *testing.T) {
	for in, want := range map[string]string{
		"\n\n# T\n\ntext\n\n": "# T\n\ntext",
		"   \n    code\n":     "    code",
		"":                    "",
		"\n \n\t\n":           "",
		"line":                "line",
	} {
		if got := trimBody(in); got != want {
			t.Errorf("trimBody(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDeriveParent(t *testing.T) {
	for p, want := range map[string]string{
		"_root":           "",
		"ui/_index":       "_root",
		"ui/react/_index": "ui/_index",
		"ui/react/auth":   "ui/react/_index",
		"no-inherit":      "_root",
		"_index":          "_root",
		"a/b/c/d":         "a/b/c/_index",
		"a/b/c/_index":    "a/b/_index",
		"":                "",
		"a//b/":           "a/_index",
	} {
		if got := deriveParent(p); got != want {
			t.Errorf("deriveParent(%q) = %q, want %q", p, got, want)
		}
	}
}

func FuzzDeriveParent(f *testing.F) {
	for _, s := range []string{"_root", "ui/_index", "ui/react/auth", "_index", "", "/", "a//b", "_index/_index", "_root/_root", "../x",
		"a/_index", "a/b/_index", "_root/x", "x/_root", "a/b/c/d"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		// The cut without splitting is the split's answer.
		if got, want := deriveParent(p), deriveParentSplit(p); got != want {
			t.Fatalf("deriveParent(%q) = %q, the split gives %q", p, got, want)
		}
		limit := 2*strings.Count(p, "/") + 4
		for i := 0; p != ""; i++ {
			next := deriveParent(p)
			if next == p {
				t.Fatalf("deriveParent(%q) is itself", p)
			}
			if i > limit {
				t.Fatalf("parent chain does not end (at %q after %d steps)", p, i)
			}
			p = next
		}
	})
}

func TestErrorTexts(t *testing.T) {
	err := &NotFoundError{Ref: "x", Suggestions: []string{"xy"}}
	if got, want := err.Error(), `skill "x" not found (did you mean xy?)`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	pe := &fs.PathError{Op: "open", Path: "/abs/secret", Err: fs.ErrPermission}
	if got := errText(pe); strings.Contains(got, "/abs") {
		t.Errorf("errText leaks the path: %q", got)
	}
}

func TestAssetInheritance(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"_root.md": "---\nkeywords: [g]\ndescription: G\nassets:\n  - file: global.css\n  - file: logo.png\n    type: image\n" +
			"scripts:\n  - file: check.sh\n---\nRoot.\n",
		"_root/global.css": "body{}",
		"_root/logo.png":   "png",
		"_root/check.sh":   "echo",
		"ui/_index.md": "---\nkeywords: [ui]\ndescription: UI\nassets:\n  - file: tokens.json\n  - file: global.css\n    description: UI override\n" +
			"---\nUI.\n",
		"ui/_index/tokens.json": "{}",
		"ui/_index/global.css":  "ui{}",
		"ui/leaf.md":            "---\nkeywords: [leaf]\ndescription: Leaf\nassets:\n  - file: tokens.json\n---\nLeaf.\n",
		"ui/leaf/tokens.json":   "{}",
		"ui/noinh.md":           "---\nkeywords: [n]\ndescription: N\ninherit: false\n---\nN.\n",
		"ui/nores.md":           "---\nkeywords: [r]\ndescription: R\nassets:\n  - file: a.txt\nscripts:\n  - file: s.sh\n---\nR.\n",
	})
	snap := build(t, localRoot("t", dir))
	type ref struct{ File, From, Description string }
	refs := func(rs []AssetRef) []ref {
		out := []ref{}
		for _, r := range rs {
			out = append(out, ref{r.File, r.From, r.Description})
		}
		return out
	}
	own, inh := snap.Assets(snap.Get("ui/leaf"))
	if diff := cmp.Diff([]ref{{"tokens.json", "", ""}}, refs(own)); diff != "" {
		t.Errorf("own (-want +got):\n%s", diff)
	}
	wantInh := []ref{{"global.css", "ui/_index", "UI override"}, {"logo.png", "_root", ""}}
	if diff := cmp.Diff(wantInh, refs(inh)); diff != "" {
		t.Errorf("inherited (-want +got):\n%s", diff)
	}
	if inh[0].Owner != snap.Get("ui/_index") {
		t.Errorf("inherited owner = %v", inh[0].Owner.Path)
	}
	_, sinh := snap.Scripts(snap.Get("ui/leaf"))
	if len(sinh) != 1 || sinh[0].File != "check.sh" || sinh[0].From != "_root" || sinh[0].Execution != "claude" {
		t.Errorf("inherited scripts: %+v", sinh)
	}
	own, inh = snap.Assets(snap.Get("ui/noinh"))
	if own == nil || inh == nil || len(own)+len(inh) != 0 {
		t.Errorf("inherit false: own %v, inherited %v; want empty, non-nil", own, inh)
	}
	nores := snap.Get("ui/nores")
	if own, _ := snap.Assets(nores); len(own) != 0 {
		t.Errorf("assets kept without a resource folder: %+v", own)
	}
	if own, _ := snap.Scripts(nores); len(own) != 0 {
		t.Errorf("scripts kept without a resource folder: %+v", own)
	}
	if _, ok := findDiag(snap.Diagnostics(), CodeResourceDirMissing, "ui/nores.md"); !ok {
		t.Errorf("no resource-dir-missing diagnostic: %v", codes(snap.Diagnostics()))
	}
	if got := snap.Content(snap.Get("ui/noinh")); got != "N." {
		t.Errorf("inherit false content = %q", got)
	}
}

func TestSymlinkPolicy(t *testing.T) {
	outside := writeTree(t, map[string]string{"evil/SKILL.md": folderSkill("evil", "Outside the root.", "x"), "secret.txt": "s"})
	dir := writeTree(t, map[string]string{
		"a/SKILL.md":        folderSkill("a", "A.", "x"),
		"shared/common.txt": "common",
	})
	for _, l := range []struct{ target, link string }{
		{filepath.Join(outside, "evil"), "evil"},
		{filepath.Join(outside, "secret.txt"), "a/secret.txt"},
		{"../shared/common.txt", "a/common.txt"},
		{"..", "a/up"},
	} {
		if err := os.Symlink(l.target, filepath.Join(dir, filepath.FromSlash(l.link))); err != nil {
			t.Skipf("cannot create symlinks here: %v", err)
		}
	}
	snap := build(t, localRoot("t", dir))
	if diff := cmp.Diff([]string{"a"}, paths(snap.Skills())); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if fs := snap.Get("a").Files; len(fs) != 1 || fs[0].Path != "common.txt" || fs[0].Size != int64(len("common")) {
		t.Errorf("files of a: %+v", fs)
	}
	ds := snap.Diagnostics()
	for _, c := range []struct{ code, file string }{
		{source.CodeSymlinkEscape, "evil"},
		{source.CodeSymlinkEscape, "a/secret.txt"},
		{source.CodeSymlinkLoop, "a/up"},
	} {
		if d, ok := findDiag(ds, c.code, c.file); !ok || d.Source != "t" {
			t.Errorf("no %s diagnostic for %s: %v", c.code, c.file, ds)
		}
	}
	if st := snap.Stats(); st.Warnings != 3 || st.Errors != 0 || st.Skills != 1 || st.Folder != 1 || st.Files != 1 {
		t.Errorf("stats: %+v", st)
	}
}

// TestSuggestNestedNames: tree skills are named by their path
// ("backend/go-service"); a reference to the last segment with a typo, or
// a name typed without its separators, still gets a suggestion (issue 18:
// GetSkill go-servce, load_skill reactforms answered none).
func TestSuggestNestedNames(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"_root.md":                  treeSkill("root", "Root rules.", "x"),
		"backend/_index.md":         treeSkill("backend", "Backend rules.", "x"),
		"backend/go-service.md":     treeSkill("go", "Go services.", "x"),
		"frontend/react-forms.md":   treeSkill("forms", "Forms.", "x"),
		"frontend/react-router.md":  treeSkill("router", "Routing.", "x"),
		"docker-hardening/SKILL.md": folderSkill("docker-hardening", "Docker.", "x"),
	})
	snap := build(t, localRoot("t", dir))
	for _, tc := range []struct {
		ref  string
		want string // the first suggestion
	}{
		{"go-servce", "backend/go-service"},
		{"reactforms", "frontend/react-forms"},
		{"react forms", "frontend/react-forms"},
		{"frontend/reactforms", "frontend/react-forms"},
		{"dockerhardening", "docker-hardening"},
		{"react-routr", "frontend/react-router"},
	} {
		_, err := snap.Lookup(tc.ref)
		var nf *NotFoundError
		if !errors.As(err, &nf) {
			t.Fatalf("Lookup(%q) error = %v, want *NotFoundError", tc.ref, err)
		}
		if len(nf.Suggestions) == 0 || nf.Suggestions[0] != tc.want {
			t.Errorf("suggestions for %q = %q, want %q first", tc.ref, nf.Suggestions, tc.want)
		}
	}
}
