package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillsd/skillsd/services/skills/edge"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// TestMain calls the sandbox hook first, as main does: the embedded
// service's scripts would be confined through this binary.
func TestMain(m *testing.M) {
	skillsd.SandboxHelper()
	os.Exit(m.Run())
}

// result is what one command line produced.
type result struct {
	stdout, stderr string
	code           int
}

// runCLI runs a command line in-process, as main would, and returns its
// output and exit status.
func runCLI(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), args, &stdout, &stderr)
	code := exit(err, &stderr)
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

func (r result) want(t *testing.T, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, code, r.stdout, r.stderr)
	}
}

// makeFiles writes files (path → content, '/' separators) under a new temp
// folder and returns the folder.
func makeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func skillMD(name, description, body string) string {
	return "---\nname: " + name + "\ndescription: " + description + "\n---\n" + body
}

// catalog is a small clean catalog with both layouts: three SKILL.md folders
// and a markdown tree with a root, a category and a leaf.
func catalog(t *testing.T) string {
	t.Helper()
	return makeFiles(t, map[string]string{
		"pdf/SKILL.md":                skillMD("pdf", "Extract text and tables from PDF files, fill PDF forms, merge and split documents.", "# PDF\n\nUse pdftotext for text.\n"),
		"pdf/reference.md":            "# Reference\n\nMore about PDF.\n",
		"pdf/scripts/extract.py":      "print('extract')\n",
		"docx/SKILL.md":               skillMD("docx", "Create and edit Word documents with tracked changes and comments.", "# DOCX\n\nUse python-docx.\n"),
		"office/spreadsheet/SKILL.md": skillMD("spreadsheet", "Build spreadsheets with formulas, charts and pivot tables.", "# Spreadsheets\n\nUse openpyxl.\n"),
		"_root.md":                    "---\nkeywords: [global]\ndescription: Rules for every task.\n---\nAlways be careful.\n",
		"ui/_index.md":                "---\nkeywords: [ui, frontend]\ndescription: Rules for user interfaces.\n---\nUse the design system.\n",
		"ui/react/auth.md":            "---\nkeywords: [react, auth, login]\ndescription: Login and session handling in React apps.\n---\nUse the auth hook.\n",
	})
}

func TestList(t *testing.T) {
	dir := catalog(t)
	r := runCLI(t, "list", "--skills-dir", dir)
	r.want(t, 0)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if !regexp.MustCompile(`^PATH\s+NAME\s+DESCRIPTION$`).MatchString(lines[0]) {
		t.Errorf("header = %q, want PATH NAME DESCRIPTION", lines[0])
	}
	var paths []string
	for _, l := range lines[1:] {
		paths = append(paths, strings.Fields(l)[0])
	}
	want := []string{"_root", "docx", "office/spreadsheet", "pdf", "ui/_index", "ui/react/auth"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("listed paths (-want +got):\n%s", diff)
	}
	if r.stderr != "" {
		t.Errorf("stderr = %q, want nothing", r.stderr)
	}
}

func TestListTrimsDescriptions(t *testing.T) {
	long := strings.Repeat("very long description ", 20)
	dir := makeFiles(t, map[string]string{"long/SKILL.md": skillMD("long", long, "body\n")})
	t.Setenv("COLUMNS", "60")
	r := runCLI(t, "list", "--skills-dir", dir)
	r.want(t, 0)
	for _, l := range strings.Split(strings.TrimRight(r.stdout, "\n"), "\n") {
		if n := len([]rune(l)); n > 60 {
			t.Errorf("line of %d runes, want at most 60: %q", n, l)
		}
	}
	if !strings.Contains(r.stdout, "…") {
		t.Errorf("no ellipsis in a trimmed description:\n%s", r.stdout)
	}
}

func TestListFilters(t *testing.T) {
	dir := catalog(t)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{name: "query on description", args: []string{"--query", "WORD"}, want: []string{"docx"}},
		{name: "query on path", args: []string{"--query", "office"}, want: []string{"office/spreadsheet"}},
		{name: "no match", args: []string{"--query", "nothing-like-this"}, want: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, append([]string{"--skills-dir", dir, "list", "--json"}, tt.args...)...)
			r.want(t, 0)
			var got []string
			for _, s := range decodeSkills(t, r.stdout) {
				got = append(got, s.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("paths (-want +got):\n%s", diff)
			}
		})
	}
}

type jsonSkill struct {
	Path        string   `json:"skill_path"`
	Name        string   `json:"name"`
	Description string   `json:"description"`
	Tags        []string `json:"tags"`
	Body        string   `json:"body"`
}

func decodeSkills(t *testing.T, out string) []jsonSkill {
	t.Helper()
	var skills []jsonSkill
	if err := json.Unmarshal([]byte(out), &skills); err != nil {
		t.Fatalf("output is not a JSON array of skills: %v\n%s", err, out)
	}
	return skills
}

func TestListJSON(t *testing.T) {
	dir := catalog(t)
	r := runCLI(t, "list", "--skills-dir", dir, "--json", "--body")
	r.want(t, 0)
	skills := decodeSkills(t, r.stdout)
	if len(skills) != 6 {
		t.Fatalf("got %d skills, want 6", len(skills))
	}
	pdf := skills[3]
	if pdf.Path != "pdf" || pdf.Name != "pdf" || !strings.HasPrefix(pdf.Description, "Extract text") {
		t.Errorf("pdf = %+v", pdf)
	}
	if !strings.Contains(pdf.Body, "pdftotext") {
		t.Errorf("pdf body = %q, want the markdown body", pdf.Body)
	}
	if !strings.Contains(r.stdout, `"tags": []`) {
		t.Errorf("empty lists are not written as []:\n%s", r.stdout)
	}

	// An empty catalog is an empty array, never null.
	empty := runCLI(t, "list", "--skills-dir", t.TempDir(), "--json")
	empty.want(t, 0)
	if got := strings.TrimSpace(empty.stdout); got != "[]" {
		t.Errorf("empty listing = %q, want []", got)
	}
}

func TestListBodyText(t *testing.T) {
	dir := catalog(t)
	r := runCLI(t, "list", "--skills-dir", dir, "--body", "--query", "pdf")
	r.want(t, 0)
	if !strings.Contains(r.stdout, "=== pdf (pdf) ===\n# PDF") {
		t.Errorf("want a heading and the body:\n%s", r.stdout)
	}
}

func TestListTree(t *testing.T) {
	dir := catalog(t)
	t.Setenv("COLUMNS", "200")
	r := runCLI(t, "list", "--tree", "--skills-dir", dir)
	r.want(t, 0)
	for _, want := range []string{
		"_root — Rules for every task.",
		"── ui/_index — Rules for user interfaces.",
		"    └── ui/react/auth — Login and session handling in React apps.",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("tree lacks %q:\n%s", want, r.stdout)
		}
	}
	// The leaf is drawn under its category, which is drawn under the root.
	root, cat, leaf := strings.Index(r.stdout, "_root"), strings.Index(r.stdout, "ui/_index"), strings.Index(r.stdout, "ui/react/auth")
	if root >= cat || cat >= leaf {
		t.Errorf("tree order wrong:\n%s", r.stdout)
	}

	js := runCLI(t, "list", "--tree", "--skills-dir", dir, "--json")
	js.want(t, 0)
	var nodes []struct {
		Path     string            `json:"path"`
		Children []json.RawMessage `json:"children"`
	}
	if err := json.Unmarshal([]byte(js.stdout), &nodes); err != nil {
		t.Fatalf("tree JSON: %v\n%s", err, js.stdout)
	}
	if len(nodes) == 0 {
		t.Fatal("tree JSON is empty")
	}
}

func TestShow(t *testing.T) {
	dir := catalog(t)
	tests := []struct {
		name     string
		args     []string
		contains []string
		absent   []string
	}{
		{
			name:     "by path",
			args:     []string{"show", "pdf"},
			contains: []string{"Name:        pdf\n", "Path:        pdf\n", "Description: Extract text", "# PDF\n\nUse pdftotext"},
		},
		{
			name:     "by name, case-insensitive",
			args:     []string{"show", "SpreadSheet"},
			contains: []string{"Path:        office/spreadsheet\n", "Use openpyxl"},
		},
		{
			name:     "inherited content",
			args:     []string{"show", "ui/react/auth"},
			contains: []string{"Inherits:    _root > ui/_index > ui/react/auth", "Always be careful.", "Use the design system.", "Use the auth hook."},
		},
		{
			name:     "files",
			args:     []string{"show", "pdf", "--files"},
			contains: []string{"PATH", "DIGEST", "reference.md", "scripts/extract.py", "sha256:"},
			absent:   []string{"Use pdftotext"},
		},
		{
			name:     "raw",
			args:     []string{"show", "--raw", "ui/react/auth"},
			contains: []string{"Use the auth hook."},
			absent:   []string{"Name:", "Always be careful."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, append([]string{"--skills-dir", dir}, tt.args...)...)
			r.want(t, 0)
			for _, s := range tt.contains {
				if !strings.Contains(r.stdout, s) {
					t.Errorf("output lacks %q:\n%s", s, r.stdout)
				}
			}
			for _, s := range tt.absent {
				if strings.Contains(r.stdout, s) {
					t.Errorf("output has %q:\n%s", s, r.stdout)
				}
			}
		})
	}
}

func TestShowJSON(t *testing.T) {
	dir := catalog(t)
	r := runCLI(t, "show", "PDF", "--skills-dir", dir, "--json")
	r.want(t, 0)
	var got struct {
		Skill        jsonSkill      `json:"skill"`
		Instructions string         `json:"instructions"`
		Frontmatter  map[string]any `json:"frontmatter"`
		Files        []struct {
			Path   string `json:"path"`
			Digest string `json:"digest"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("show --json: %v\n%s", err, r.stdout)
	}
	if got.Skill.Path != "pdf" || got.Frontmatter["name"] != "pdf" || !strings.Contains(got.Instructions, "pdftotext") {
		t.Errorf("show --json = %+v", got)
	}
	if len(got.Files) == 0 || !strings.HasPrefix(got.Files[0].Digest, "sha256:") {
		t.Errorf("files = %+v, want digests", got.Files)
	}
}

func TestShowUnknown(t *testing.T) {
	dir := catalog(t)
	r := runCLI(t, "show", "pfd", "--skills-dir", dir)
	r.want(t, 1)
	if !strings.Contains(r.stderr, `no skill "pfd"; did you mean pdf`) {
		t.Errorf("stderr = %q, want a suggestion", r.stderr)
	}
	if r.stdout != "" {
		t.Errorf("stdout = %q, want nothing", r.stdout)
	}
}

func TestLintClean(t *testing.T) {
	dir := catalog(t)
	r := runCLI(t, "lint", "--strict", dir)
	r.want(t, 0)
	if got, want := r.stdout, "6 skills served (6 routed); 0 errors, 0 warnings\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
}

// brokenCatalog is a catalog with one good skill and four broken SKILL.md
// files: frontmatter that is not YAML, a binary file, no description and a
// name that breaks the naming rules; and one with a warning (its name is
// not its folder's).
func brokenCatalog(t *testing.T) string {
	t.Helper()
	return makeFiles(t, map[string]string{
		"good/SKILL.md":    skillMD("good", "A good skill.", "Fine.\n"),
		"badyaml/SKILL.md": "---\nname: badyaml\ndescription: [unclosed\n  - {oops\n---\nbody\n",
		"binary/SKILL.md":  "\x00\x01\x02\xff\xfe binary \x00 content",
		"nodesc/SKILL.md":  "---\nname: nodesc\n---\nNo description here.\n",
		"badname/SKILL.md": skillMD("Bad Name", "Capitals and a space.", "x\n"),
		"renamed/SKILL.md": skillMD("other-name", "Name is not the folder's.", "x\n"),
	})
}

var diagLine = regexp.MustCompile(`^(\S+?)(:\d+)?: (error|warning|info): .+ \[[a-z0-9-]+\]$`)

func TestLintBroken(t *testing.T) {
	dir := brokenCatalog(t)
	r := runCLI(t, "lint", dir)
	r.want(t, 1)
	for _, want := range []struct{ file, severity, reason string }{
		// Issue 18: each costs the skill its routing or its hosts, so each is
		// an error and lint fails (they were warnings, and lint passed).
		{"binary/SKILL.md", "error", "NUL byte"},        // skipped: not text
		{"badyaml/SKILL.md", "error", "not valid YAML"}, // loaded as if it had no frontmatter: never routed
		{"nodesc/SKILL.md", "error", "no description"},  // never routed
		{"badname/SKILL.md", "error", "naming rules"},   // refused by hosts that check names
		{"renamed/SKILL.md", "warning", "does not match"},
	} {
		re := `(?m)^\S*` + regexp.QuoteMeta(want.file) + `(:\d+)?: ` + want.severity + `: .*` + regexp.QuoteMeta(want.reason) + `.*$`
		if !regexp.MustCompile(re).MatchString(r.stdout) {
			t.Errorf("no %s line for %s saying %q:\n%s", want.severity, want.file, want.reason, r.stdout)
		}
	}
	if !strings.Contains(r.stdout, "== "+dir+" ==\n") {
		t.Errorf("no heading for the source %s:\n%s", dir, r.stdout)
	}
	for _, l := range strings.Split(r.stdout, "\n") {
		if l == "" || strings.HasPrefix(l, "== ") || strings.Contains(l, " skill") {
			continue
		}
		if !diagLine.MatchString(l) {
			t.Errorf("line %q is not file:line: severity: message [code]", l)
		}
	}
	// 5 served (binary is not), 3 routed: badyaml and nodesc are not.
	if want := "5 skills served (3 routed): 2 not routed, 1 skill file not served; "; !strings.Contains(r.stdout, want) {
		t.Errorf("no summary line %q:\n%s", want, r.stdout)
	}
	if !regexp.MustCompile(`(?m); [1-9]\d* errors?, [1-9]\d* warnings?$`).MatchString(r.stdout) {
		t.Errorf("no summary line with errors and warnings:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "skills: lint: ") {
		t.Errorf("stderr = %q, want the failure", r.stderr)
	}
}

func TestLintStrict(t *testing.T) {
	dir := makeFiles(t, map[string]string{
		"good/SKILL.md":    skillMD("good", "A good skill.", "Fine.\n"),
		"renamed/SKILL.md": skillMD("other-name", "A name that is not its folder's.", "x\n"),
	})
	runCLI(t, "lint", dir).want(t, 0)
	r := runCLI(t, "lint", "--strict", dir)
	r.want(t, 1)
	if !strings.Contains(r.stderr, "(--strict)") {
		t.Errorf("stderr = %q, want the reason", r.stderr)
	}
}

func TestLintMissingDir(t *testing.T) {
	dir := catalog(t)
	missing := filepath.Join(t.TempDir(), "nope")
	r := runCLI(t, "lint", dir, missing)
	r.want(t, 1)
	if !strings.Contains(r.stderr, "nope") {
		t.Errorf("stderr = %q, want the missing folder", r.stderr)
	}
	file := filepath.Join(dir, "pdf", "SKILL.md")
	runCLI(t, "lint", file).want(t, 1)
}

func TestLintJSON(t *testing.T) {
	dir := brokenCatalog(t)
	r := runCLI(t, "--json", "lint", dir)
	r.want(t, 1)
	var got struct {
		Skills      int `json:"skills"`
		NotRouted   int `json:"not_routed"`
		NotServed   int `json:"not_served"`
		Errors      int `json:"errors"`
		Warnings    int `json:"warnings"`
		Diagnostics []struct {
			File     string `json:"file"`
			Severity string `json:"severity"`
			Code     string `json:"code"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("lint --json: %v\n%s", err, r.stdout)
	}
	if got.Skills != 5 || got.NotRouted != 2 || got.NotServed != 1 {
		t.Errorf("lint --json: %d skills, %d not routed, %d not served; want 5, 2 and 1", got.Skills, got.NotRouted, got.NotServed)
	}
	if got.Errors == 0 || len(got.Diagnostics) == 0 {
		t.Errorf("lint --json = %+v, want errors and diagnostics", got)
	}
}

// TestLintMalformed lints the bench's real malformed SKILL.md files, each in
// a folder of its own.
func TestLintMalformed(t *testing.T) {
	src := "/work/shared/bench/malformed"
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Skipf("no malformed fixtures: %v", err)
	}
	files := map[string]string{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), "__SKILL.md") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(e.Name(), "__")
		files[parts[1]+"/SKILL.md"] = string(b)
	}
	if len(files) == 0 {
		t.Skip("no malformed fixtures")
	}
	dir := makeFiles(t, files)
	r := runCLI(t, "lint", dir)
	m := regexp.MustCompile(`(?m)^(\d+) skills? served .*; (\d+) errors?, (\d+) warnings?$`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no summary line:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
	wantCode := 0
	if m[2] != "0" {
		wantCode = 1
	}
	r.want(t, wantCode)
	if m[2] == "0" && m[3] == "0" {
		t.Errorf("no diagnostics for %d malformed files:\n%s", len(files), r.stdout)
	}
	mentioned := 0
	for name := range files {
		if strings.Contains(r.stdout, name+":") {
			mentioned++
		}
	}
	if mentioned < len(files)/2 {
		t.Errorf("only %d of %d malformed files are reported:\n%s", mentioned, len(files), r.stdout)
	}
	t.Logf("malformed: %s skills, %s errors, %s warnings; %d of %d files reported", m[1], m[2], m[3], mentioned, len(files))
}

func TestSkillsDirFromEnv(t *testing.T) {
	dir := catalog(t)
	t.Setenv("SKILLS_DIR", dir)
	r := runCLI(t, "list", "--json")
	r.want(t, 0)
	if n := len(decodeSkills(t, r.stdout)); n != 6 {
		t.Errorf("got %d skills from SKILLS_DIR, want 6", n)
	}
}

// TestCorpus lists the bench corpus: 387 real skills.
func TestCorpus(t *testing.T) {
	corpus := "/work/shared/bench/corpus"
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("no bench corpus (%v)", err)
	}
	r := runCLI(t, "list", "--skills-dir", corpus, "--json")
	r.want(t, 0)
	if n := len(decodeSkills(t, r.stdout)); n != 387 {
		t.Errorf("got %d skills, want 387", n)
	}
}

func TestRemote(t *testing.T) {
	dir := catalog(t)
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{dir}, Cwd: t.TempDir(), Home: t.TempDir(), AuthTokens: []string{"s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(t.Context(), lis) }()
	addr := lis.Addr().String()

	t.Setenv("SKILLS_TEST_TOKEN", "s3cret")
	r := runCLI(t, "--server", addr, "--token-env", "SKILLS_TEST_TOKEN", "show", "pdf")
	r.want(t, 0)
	if !strings.Contains(r.stdout, "Path:        pdf") {
		t.Errorf("remote show:\n%s", r.stdout)
	}
	v := runCLI(t, "version", "--server", addr, "--token-env", "SKILLS_TEST_TOKEN")
	v.want(t, 0)
	if !strings.Contains(v.stdout, "server "+version) {
		t.Errorf("version = %q, want the server's version", v.stdout)
	}

	// Two replicas (the same server twice) answer as one; a malformed list
	// is a usage error naming --server.
	r = runCLI(t, "--server", addr+","+addr, "--token-env", "SKILLS_TEST_TOKEN", "show", "pdf")
	r.want(t, 0)
	malformed := runCLI(t, "--server", addr+",,"+addr, "--token-env", "SKILLS_TEST_TOKEN", "list")
	malformed.want(t, 2)
	if !strings.Contains(malformed.stderr, "--server: ") || !strings.Contains(malformed.stderr, "address 2 of the list is empty") {
		t.Errorf("malformed list: stderr = %q, want --server and the empty element named", malformed.stderr)
	}

	t.Setenv("SKILLS_TEST_TOKEN", "wrong")
	bad := runCLI(t, "--server", addr, "--token-env", "SKILLS_TEST_TOKEN", "list")
	bad.want(t, 1)
	if !strings.Contains(bad.stderr, "token") {
		t.Errorf("stderr = %q, want the auth failure", bad.stderr)
	}

	runCLI(t, "--server", addr, "--skills-dir", dir, "list").want(t, 2)
	runCLI(t, "--server", addr, "lint", dir).want(t, 2)
	t.Setenv("SKILLS_TEST_TOKEN", "")
	runCLI(t, "--server", addr, "--token-env", "SKILLS_TEST_TOKEN", "list").want(t, 2)
}

// TestRemoteTLS: --server-ca (with a client certificate for a server that
// asks for one) reaches a skillsd serving mutual TLS; without the CA, or
// without the certificate, the command fails.
func TestRemoteTLS(t *testing.T) {
	ca := skillstest.NewCA(t, "cli")
	server, client := ca.Server("skillsd"), ca.Client("cli")
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{catalog(t)}, Cwd: t.TempDir(), Home: t.TempDir(), AuthTokens: []string{"s3cret"},
		Edge: skillsd.EdgeOptions{Flags: edge.Flags{TLS: edge.TLSFiles{CertFile: server.CertFile, KeyFile: server.KeyFile, ClientCAFile: ca.File}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(t.Context(), lis) }()
	addr := lis.Addr().String()
	t.Setenv("SKILLS_TEST_TOKEN", "s3cret")
	tok := []string{"--server", addr, "--token-env", "SKILLS_TEST_TOKEN"}

	r := runCLI(t, append(tok, "--server-ca", ca.File, "--client-cert", client.CertFile, "--client-key", client.KeyFile, "show", "pdf")...)
	r.want(t, 0)
	if !strings.Contains(r.stdout, "Path:        pdf") {
		t.Errorf("show over mutual TLS:\n%s", r.stdout)
	}
	runCLI(t, append(tok, "--server-ca", ca.File, "list")...).want(t, 1)                                                    // no client certificate
	runCLI(t, append(tok, "--tls", "--client-cert", client.CertFile, "--client-key", client.KeyFile, "list")...).want(t, 1) // CA not trusted
	runCLI(t, append(tok, "list")...).want(t, 1)                                                                            // plaintext to TLS
	runCLI(t, "--server-ca", ca.File, "list").want(t, 2)                                                                    // needs --server
}

// TestEmbeddedSkipsListenerAuth: the catalog the command loads itself is the
// user's own; auth.mode in its config.yaml is for listeners.
func TestEmbeddedSkipsListenerAuth(t *testing.T) {
	dir := catalog(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("auth: {mode: token, tokens_env: UNSET_TOKENS}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runCLI(t, "--skills-dir", dir, "--config", cfg, "show", "pdf").want(t, 0)
}

func TestUsage(t *testing.T) {
	dir := catalog(t)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // a substring of stdout
		stderr string // a substring of stderr
	}{
		{name: "no command", args: nil, code: 2, stderr: "no command given"},
		{name: "unknown command", args: []string{"frobnicate"}, code: 2, stderr: `unknown command "frobnicate"`},
		{name: "unknown flag", args: []string{"list", "--nope"}, code: 2, stderr: "flag provided but not defined: -nope"},
		{name: "help", args: []string{"help"}, code: 0, stdout: "Commands:\n  list"},
		{name: "-h", args: []string{"-h"}, code: 0, stdout: "Commands:"},
		{name: "help list", args: []string{"help", "list"}, code: 0, stdout: "Usage: skills list"},
		{name: "list -h", args: []string{"list", "-h"}, code: 0, stdout: "-category"},
		{name: "help unknown", args: []string{"help", "nope"}, code: 2, stderr: "unknown command"},
		{name: "show without a skill", args: []string{"show", "--skills-dir", dir}, code: 2, stderr: "name a skill"},
		{name: "show two skills", args: []string{"show", "a", "b"}, code: 2, stderr: "one skill at a time"},
		{name: "show --raw --files", args: []string{"show", "pdf", "--raw", "--files"}, code: 2},
		{name: "list extra argument", args: []string{"list", "pdf"}, code: 2, stderr: "--query"},
		{name: "token-env without server", args: []string{"--token-env", "X", "list"}, code: 2},
		{name: "version", args: []string{"version"}, code: 0, stdout: "skills " + version + "\n"},
		{name: "version json", args: []string{"version", "--json"}, code: 0, stdout: `"version": "` + version + `"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCLI(t, tt.args...)
			r.want(t, tt.code)
			if !strings.Contains(r.stdout, tt.stdout) {
				t.Errorf("stdout = %q, want it to contain %q", r.stdout, tt.stdout)
			}
			if !strings.Contains(r.stderr, tt.stderr) {
				t.Errorf("stderr = %q, want it to contain %q", r.stderr, tt.stderr)
			}
		})
	}
}

func TestHelpListsCommands(t *testing.T) {
	r := runCLI(t, "help")
	for _, name := range []string{"list", "show", "search", "match", "eval", "lint"} {
		if !regexp.MustCompile(`(?m)^  ` + name + `\b`).MatchString(r.stdout) {
			t.Errorf("help does not list %q:\n%s", name, r.stdout)
		}
	}
}

func TestParseInterspersed(t *testing.T) {
	tests := []struct {
		args    []string
		wantPos []string
		wantF   bool
	}{
		{args: []string{"pdf", "--files"}, wantPos: []string{"pdf"}, wantF: true},
		{args: []string{"--files", "pdf", "x"}, wantPos: []string{"pdf", "x"}, wantF: true},
		{args: []string{"a", "--", "--files"}, wantPos: []string{"a", "--files"}},
		{args: nil, wantPos: nil},
	}
	for _, tt := range tests {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		f := fs.Bool("files", false, "")
		pos, err := parseInterspersed(fs, tt.args)
		if err != nil {
			t.Fatalf("%q: %v", tt.args, err)
		}
		if diff := cmp.Diff(tt.wantPos, pos); diff != "" || *f != tt.wantF {
			t.Errorf("%q: positional (-want +got):\n%s files=%v want %v", tt.args, diff, *f, tt.wantF)
		}
	}
}

func TestTrim(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"a longer sentence", 8, "a longe…"},
		{"word boundary here", 6, "word…"},
		{"héllo wörld", 7, "héllo…"},
		{"abc", 1, "…"},
		{"abc", 0, ""},
	}
	for _, tt := range tests {
		if got := trim(tt.in, tt.n); got != tt.want {
			t.Errorf("trim(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestDisplayPath(t *testing.T) {
	tests := []struct {
		location, file, cwd, want string
	}{
		{"/w/skills", "pdf/SKILL.md", "/w", "skills/pdf/SKILL.md"},
		{"/w/skills", "pdf/SKILL.md", "/elsewhere", "/w/skills/pdf/SKILL.md"},
		{"", "pdf/SKILL.md", "/w", "pdf/SKILL.md"},
		{"/w/skills", "", "/w", "/w/skills"},
		{"/w/skills", "pdf/SKILL.md", "", "/w/skills/pdf/SKILL.md"},
	}
	for _, tt := range tests {
		if got := displayPath(tt.location, tt.file, tt.cwd); got != tt.want {
			t.Errorf("displayPath(%q, %q, %q) = %q, want %q", tt.location, tt.file, tt.cwd, got, tt.want)
		}
	}
}
