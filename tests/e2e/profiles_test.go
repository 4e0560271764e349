package e2e

import (
	"context"
	"crypto/sha1" //nolint:gosec // git's blob id, to compare with the seed-003 sha
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// updateProfiles rewrites the golden tools/list of each profile
// (testdata/profiles/<profile>.tools.golden.json).
var updateProfiles = flag.Bool("update-profiles", false, "rewrite the golden tools/list files of the compatibility profiles")

// profileCatalog is the small SKILL.md catalog of the profile scenarios.
const profileCatalog = "testdata/profiles/catalog"

// profileDoc is what node/profile-client.mjs prints.
type profileDoc struct {
	ServerInfo *struct {
		Name string `json:"name"`
	} `json:"serverInfo"`
	Instructions   string            `json:"instructions"`
	Tools          []json.RawMessage `json:"tools"`
	ToolsListBytes int               `json:"toolsListBytes"`
	Calls          []profileCall     `json:"calls"`
}

// profileCall is one tool call as the Node client saw it.
type profileCall struct {
	Name              string          `json:"name"`
	Arguments         map[string]any  `json:"arguments"`
	IsError           bool            `json:"isError"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	Text              string          `json:"text"`
	Error             *struct {
		Message string          `json:"message"`
		Code    *int            `json:"code"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// call is one tool call to make.
type call struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// profileRun runs skills-mcp with args (and env) under the Node client,
// making calls, and returns what the client saw.
func profileRun(t *testing.T, args []string, env []string, calls []call) *profileDoc {
	t.Helper()
	node, mcpScript := requireNode(t)
	script := filepath.Join(filepath.Dir(mcpScript), "profile-client.mjs")
	if calls == nil {
		calls = []call{}
	}
	callsFile := filepath.Join(t.TempDir(), "calls.json")
	b, err := json.Marshal(calls)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(callsFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmdArgs := []string{script, "--stdio", binary(t, "skills-mcp"), "--calls", callsFile}
	for _, a := range args {
		cmdArgs = append(cmdArgs, "--arg", a)
	}
	for _, e := range env {
		cmdArgs = append(cmdArgs, "--env", e)
	}
	ctx, cancel := context.WithTimeout(t.Context(), nodeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, cmdArgs...)
	cmd.Env = cleanEnv(t)
	cmd.Dir = t.TempDir() // default discovery finds nothing here
	ownGroup(cmd)
	cmd.Cancel = func() error { killGroup(cmd); return nil }
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	killGroup(cmd)
	if err != nil {
		t.Fatalf("node profile-client %v: %v\nstderr:\n%s", args, err, tail(stderr.String(), 4000))
	}
	var doc profileDoc
	if err := json.Unmarshal([]byte(stdout.String()), &doc); err != nil {
		t.Fatalf("profile-client: decoding its output: %v\nstdout: %s\nstderr:\n%s", err, tail(stdout.String(), 2000), tail(stderr.String(), 4000))
	}
	if doc.ServerInfo == nil || doc.ServerInfo.Name != "skillsd" {
		t.Errorf("serverInfo: got %+v, want name skillsd", doc.ServerInfo)
	}
	if len(doc.Calls) != len(calls) {
		t.Fatalf("got %d calls, want %d", len(doc.Calls), len(calls))
	}
	return &doc
}

// toolNames lists the names of the listed tools, sorted.
func (d *profileDoc) toolNames(t *testing.T) []string {
	var names []string
	for _, raw := range d.Tools {
		var tool struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(raw, &tool); err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

// checkGolden compares the listed tools with the profile's golden file.
func checkGolden(t *testing.T, profile string, doc *profileDoc) {
	t.Helper()
	got, err := json.MarshalIndent(doc.Tools, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "profiles", profile+".tools.golden.json")
	if *updateProfiles {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading the golden file (run go test ./e2e -run Profile -update-profiles): %v", err)
	}
	var wantV, gotV any
	if err := json.Unmarshal(want, &wantV); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if err := json.Unmarshal(got, &gotV); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(wantV, gotV); diff != "" {
		t.Errorf("tools/list of profile %s differs from %s (-want +got):\n%s", profile, path, diff)
	}
}

// result decodes a successful call's JSON: its structuredContent, or its text.
func result[T any](t *testing.T, c profileCall) T {
	t.Helper()
	var out T
	if c.Error != nil || c.IsError {
		t.Errorf("%s %v: got an error (%+v, text %q), want a result", c.Name, c.Arguments, c.Error, c.Text)
		return out
	}
	raw := []byte(c.StructuredContent)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte(c.Text)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Errorf("%s %v: decoding %.200s: %v", c.Name, c.Arguments, raw, err)
	}
	return out
}

// protocolError checks that a call failed with a JSON-RPC error carrying
// code (the seed's code, in data.code) and returns its message.
func protocolError(t *testing.T, c profileCall, code string, number int) string {
	t.Helper()
	if c.Error == nil {
		t.Errorf("%s %v: got a result (isError %v, text %.200q), want JSON-RPC error %s", c.Name, c.Arguments, c.IsError, c.Text, code)
		return ""
	}
	var data struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	_ = json.Unmarshal(c.Error.Data, &data)
	if data.Code != code || c.Error.Code == nil || *c.Error.Code != number || !strings.Contains(c.Error.Message, code) {
		t.Errorf("%s %v: got error %q (code %v, data %s), want %s (%d)", c.Name, c.Arguments, c.Error.Message, c.Error.Code, c.Error.Data, code, number)
	}
	return data.Message
}

// toolFailure checks that a call answered isError with text containing want.
func toolFailure(t *testing.T, c profileCall, want string) {
	t.Helper()
	if c.Error != nil || !c.IsError || !strings.Contains(c.Text, want) {
		t.Errorf("%s %v: got error %+v, isError %v, text %q; want isError with %q", c.Name, c.Arguments, c.Error, c.IsError, c.Text, want)
	}
}

// copyTree copies the folder src into a new temporary folder and returns it.
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// TestProfileSelection: the flag, the environment and the config choose the
// profile, in that order; an unknown one is a usage error.
func TestProfileSelection(t *testing.T) {
	skipShort(t)
	cat, err := filepath.Abs(profileCatalog)
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, cfg, "mcp:\n  profile: sk\n", 0o644)
	cases := []struct {
		name string
		args []string
		env  []string
		want []string
	}{
		{"default", []string{"--skills-dir", cat}, nil, nil}, // native: see TestMCPWithNodeSDK
		{"config", []string{"--skills-dir", cat, "--config", cfg}, nil, []string{"skills.list", "skills.search", "skills_list", "skills_search", "skills_show"}},
		{"env over config", []string{"--skills-dir", cat, "--config", cfg}, []string{"SKILLS_MCP_PROFILE=universal-skills"}, []string{"skill"}},
		{"flag over env", []string{"--skills-dir", cat, "--profile", "skillhub"}, []string{"SKILLS_MCP_PROFILE=universal-skills"}, []string{"load_skill", "read_skill_file", "search_skills"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := profileRun(t, c.args, c.env, nil)
			got := doc.toolNames(t)
			if c.want == nil {
				if !slices.Contains(got, "load_skill") || !slices.Contains(got, "search_skills") || slices.Contains(got, "skills.list") || slices.Contains(got, "skill") {
					t.Errorf("tools: got %v, want the native tool set", got)
				}
				return
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("tools: got %v, want %v", got, c.want)
			}
		})
	}
	t.Run("unknown", func(t *testing.T) {
		cmd := exec.CommandContext(t.Context(), binary(t, "skills-mcp"), "--profile", "skill-hub", "--skills-dir", cat)
		cmd.Env = cleanEnv(t)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "skillhub") {
			t.Errorf("--profile skill-hub: got %v, output %q; want exit status 2 and a message listing the profiles", err, out)
		}
	})
}

// seed000Fixture is a copy of the seed-000 tree with a skill whose declared
// server scripts give the three run_script shapes (seed 000 §8.4), a binary
// asset (§8.3), and a config.yaml with a one-second script time limit.
func seed000Fixture(t *testing.T) string {
	t.Helper()
	dir := copyTree(t, filepath.Join(repoRoot(t), "services", "skills", "internal", "catalog", "testdata", "seed000-tree"))
	writeFile(t, filepath.Join(dir, "config.yaml"), "scripts:\n  timeout_seconds: 1\nanalytics:\n  enabled: true\n", 0o644)
	writeFile(t, filepath.Join(dir, "ops", "health.md"), `---
keywords: [healthcheck, diagnostics]
description: "Service health checks"
assets:
  - file: assets/auth-flow.png
    description: "Auth flow diagram"
    type: image
scripts:
  - file: scripts/validate.sh
    description: "Validate the config"
    execution: server
    args:
      - name: config_path
        description: "Path to the config"
        required: true
  - file: scripts/broken.sh
    description: "Fails"
    execution: server
  - file: scripts/long-running.sh
    description: "Never ends in time"
    execution: server
---

# Health checks
`, 0o644)
	writeFile(t, filepath.Join(dir, "ops", "health", "scripts", "validate.sh"), "#!/bin/sh\necho \"Auth config is valid\"\n", 0o755)
	writeFile(t, filepath.Join(dir, "ops", "health", "scripts", "broken.sh"), "#!/bin/sh\necho \"Error: Missing required field 'clientId'\" >&2\nexit 1\n", 0o755)
	writeFile(t, filepath.Join(dir, "ops", "health", "scripts", "long-running.sh"), "#!/bin/sh\necho partial\nsleep 30\n", 0o755)
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00\x90wS\xde")
	writeFile(t, filepath.Join(dir, "ops", "health", "assets", "auth-flow.png"), string(png), 0o644)
	return dir
}

// TestProfileSkillsMCP reproduces seed 000 §8's examples on the seed-000 tree.
func TestProfileSkillsMCP(t *testing.T) {
	skipShort(t)
	dir := seed000Fixture(t)
	doc := profileRun(t, []string{"--profile", "skills-mcp", "--skills-dir", dir}, nil, []call{
		{"get_skill", map[string]any{"context": "react auth component provider"}},
		{"get_skill", map[string]any{"context": "auth"}},
		{"get_skill", map[string]any{"context": "quantum chromodynamics lecture"}},
		{"list_skills", map[string]any{}},
		{"list_skills", map[string]any{"path": "api"}},
		{"get_asset", map[string]any{"skill_path": "ui/react/auth", "file": "assets/AuthProvider.tsx.template"}},
		{"get_asset", map[string]any{"skill_path": "ops/health", "file": "assets/auth-flow.png"}},
		{"get_asset", map[string]any{"skill_path": "ui/react/auth", "file": "assets/component-base.tsx.template"}},
		{"get_asset", map[string]any{"skill_path": "ui/react/auth", "file": "../../_root.md"}},
		{"run_script", map[string]any{"skill_path": "ops/health", "file": "scripts/validate.sh", "args": map[string]any{"config_path": "auth.json"}}},
		{"run_script", map[string]any{"skill_path": "ops/health", "file": "scripts/broken.sh", "args": map[string]any{}}},
		{"run_script", map[string]any{"skill_path": "ops/health", "file": "scripts/long-running.sh", "args": map[string]any{}}},
		{"run_script", map[string]any{"skill_path": "ui/react/auth", "file": "scripts/scaffold-auth.sh", "args": map[string]any{"project_dir": "."}}},
		{"run_script", map[string]any{"skill_path": "ops/health", "file": "scripts/validate.sh"}},
		{"report_usage", map[string]any{"skill_path": "ui/react/auth", "useful": true}},
		{"refresh_skills", map[string]any{}},
	})
	checkGolden(t, "skills-mcp", doc)
	if got, want := doc.toolNames(t), []string{"get_asset", "get_skill", "list_skills", "refresh_skills", "report_usage", "run_script"}; !slices.Equal(got, want) {
		t.Errorf("tools: got %v, want %v", got, want)
	}
	c := doc.Calls

	// §8.1: the three get_skill shapes.
	match := result[map[string]any](t, c[0])
	if match["skill_path"] != "ui/react/auth" || !strings.Contains(fmt.Sprint(match["content"]), "=== GLOBAL RULES") ||
		!strings.Contains(fmt.Sprint(match["content"]), "REACT > AUTH") {
		t.Errorf("get_skill match: got skill_path %v, content %.120q; want ui/react/auth with the inherited chain", match["skill_path"], match["content"])
	}
	for _, k := range []string{"score", "matched_keywords", "assets", "scripts", "inherited_assets", "inherited_scripts"} {
		if _, ok := match[k]; !ok {
			t.Errorf("get_skill match: no %s in %v", k, keys(match))
		}
	}
	if inh := fmt.Sprint(match["inherited_assets"]); !strings.Contains(inh, "component-base.tsx.template") || !strings.Contains(inh, "ui/react/_index") {
		t.Errorf("get_skill match: inherited_assets %s, want component-base.tsx.template from ui/react/_index", inh)
	}
	amb := result[struct {
		Ambiguous  bool   `json:"ambiguous"`
		Message    string `json:"message"`
		Candidates []struct {
			SkillPath       string   `json:"skill_path"`
			Description     string   `json:"description"`
			MatchedKeywords []string `json:"matched_keywords"`
		} `json:"candidates"`
	}](t, c[1])
	var candPaths []string
	for _, cand := range amb.Candidates {
		candPaths = append(candPaths, cand.SkillPath)
	}
	if !amb.Ambiguous || !slices.Contains(candPaths, "ui/react/auth") || !slices.Contains(candPaths, "api/auth") || amb.Message == "" {
		t.Errorf("get_skill ambiguous: got %+v, want candidates ui/react/auth and api/auth with a message", amb)
	}
	if nm := result[map[string]any](t, c[2]); nm["no_match"] != true || nm["message"] != "No skill matches the given context." || len(nm) != 2 {
		t.Errorf("get_skill no_match: got %v, want {no_match: true, message}", nm)
	}

	// §8.2: the recursive tree.
	type node struct {
		Name        string   `json:"name"`
		Path        string   `json:"path"`
		Description string   `json:"description"`
		Keywords    []string `json:"keywords"`
		AssetCount  int      `json:"assetCount"`
		ScriptCount int      `json:"scriptCount"`
		Children    []node   `json:"children"`
	}
	var find func([]node, string) *node
	find = func(ns []node, p string) *node {
		for i := range ns {
			if ns[i].Path == p {
				return &ns[i]
			}
			if n := find(ns[i].Children, p); n != nil {
				return n
			}
		}
		return nil
	}
	tree := result[struct {
		Skills []node `json:"skills"`
	}](t, c[3])
	if n := find(tree.Skills, "ui/react/auth"); n == nil || n.AssetCount != 2 || n.ScriptCount != 2 || !slices.Contains(n.Keywords, "react") {
		t.Errorf("list_skills: ui/react/auth node %+v, want 2 assets, 2 scripts, keyword react", n)
	}
	if find(tree.Skills, "ui/react/auth") != nil && find(tree.Skills, "ui/react/_index") != nil && find(find(tree.Skills, "ui/react/_index").Children, "ui/react/auth") == nil {
		t.Errorf("list_skills: ui/react/auth is not a child of ui/react/_index")
	}
	sub := result[struct {
		Skills []node `json:"skills"`
	}](t, c[4])
	if find(sub.Skills, "api/auth") == nil || find(sub.Skills, "ui/react/auth") != nil {
		t.Errorf("list_skills path api: got %+v, want the api branch only", sub.Skills)
	}

	// §8.3: text, binary and inherited assets.
	text := result[map[string]any](t, c[5])
	if !strings.HasPrefix(fmt.Sprint(text["content"]), "import React") || text["type"] != "template" || text["size_bytes"] == nil || text["content_base64"] != nil {
		t.Errorf("get_asset text: got %v", keys(text))
	}
	bin := result[map[string]any](t, c[6])
	if b64, _ := bin["content_base64"].(string); b64 == "" || bin["mime_type"] != "image/png" || bin["type"] != "image" || bin["content"] != nil {
		t.Errorf("get_asset binary: got type %v, mime_type %v, content_base64 %.20v", bin["type"], bin["mime_type"], bin["content_base64"])
	} else if raw, err := base64.StdEncoding.DecodeString(b64); err != nil || !strings.HasPrefix(string(raw), "\x89PNG") {
		t.Errorf("get_asset binary: content_base64 does not decode to the PNG (%v)", err)
	}
	if inh := result[map[string]any](t, c[7]); inh["resolved_from"] != "ui/react/_index" {
		t.Errorf("get_asset inherited: resolved_from %v, want ui/react/_index", inh["resolved_from"])
	}
	toolFailure(t, c[8], "..")

	// §8.4: success, failure and timeout; refusals name the failed check.
	ok := result[map[string]any](t, c[9])
	if ok["success"] != true || ok["exit_code"] != 0.0 || ok["stdout"] != "Auth config is valid\n" || ok["script"] != "scripts/validate.sh" || ok["duration_ms"] == nil {
		t.Errorf("run_script success: got %v", ok)
	}
	// skills-mcp's main calls the sandbox hook: Landlock is never missing for want of it.
	if missing, isList := ok["isolation_missing"].([]any); !isList || strings.Contains(fmt.Sprint(missing), "SandboxHelper") {
		t.Errorf("run_script isolation_missing: got %v", ok["isolation_missing"])
	}
	fail := result[map[string]any](t, c[10])
	if fail["success"] != false || fail["exit_code"] != 1.0 || !strings.Contains(fmt.Sprint(fail["stderr"]), "Missing required field 'clientId'") {
		t.Errorf("run_script failure: got %v", fail)
	}
	slow := result[map[string]any](t, c[11])
	if slow["success"] != false || slow["exit_code"] != 137.0 || !strings.HasPrefix(fmt.Sprint(slow["stdout"]), "partial") ||
		!strings.HasSuffix(fmt.Sprint(slow["stderr"]), "Script killed: timeout exceeded.") {
		t.Errorf("run_script timeout: got %v", slow)
	}
	toolFailure(t, c[12], "execution")
	if c[13].Error == nil && !c[13].IsError {
		t.Errorf("run_script without args: got a result, want a refusal (args is required by seed 000's schema)")
	}

	// §8.5 and §8.6 need the usage and refresh services.
	if strings.Contains(c[14].Text, "does not support") {
		t.Logf("report_usage: the service does not implement ReportUsage yet: %s", c[14].Text)
	} else if u := result[map[string]any](t, c[14]); u["recorded"] != true || u["message"] != "Feedback recorded for ui/react/auth" {
		t.Errorf("report_usage: got %v, want {recorded: true, message: Feedback recorded for ui/react/auth}", u)
	}
	if strings.Contains(c[15].Text, "does not support") {
		t.Logf("refresh_skills: the service does not implement RefreshSkills yet: %s", c[15].Text)
	} else if r := result[map[string]any](t, c[15]); r["success"] != true || r["mode"] != "local" || r["skills_reindexed"] == nil || r["message"] == nil {
		t.Errorf("refresh_skills: got %v, want seed 000's local-mode shape", r)
	}
}

func keys(m map[string]any) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// TestProfileUniversalSkills reproduces seed 001's skill tool on a small
// SKILL.md catalog, and measures tools/list on the bench corpus.
func TestProfileUniversalSkills(t *testing.T) {
	skipShort(t)
	cat, err := filepath.Abs(profileCatalog)
	if err != nil {
		t.Fatal(err)
	}
	doc := profileRun(t, []string{"--profile", "universal-skills", "--skills-dir", cat}, nil, []call{
		{"skill", map[string]any{"name": "GIT"}},
		{"skill", map[string]any{"name": "gti"}},
		{"skill", map[string]any{"name": "git", "extra": true}},
	})
	checkGolden(t, "universal-skills", doc)
	want := "Loading: git\nBase directory: " + filepath.Join(cat, "git") + "\n\n"
	raw, _ := os.ReadFile(filepath.Join(cat, "git", "SKILL.md"))
	if got := doc.Calls[0]; got.IsError || got.Text != want+string(raw) {
		t.Errorf("skill GIT: got %q, want %q followed by the whole SKILL.md", got.Text, want)
	}
	nf := doc.Calls[1]
	if nf.IsError || nf.Error != nil || !strings.HasPrefix(nf.Text, "Skill 'gti' not found.\n\nAvailable skills:\n- git (Git deployment workflow skill)") ||
		!strings.Contains(nf.Text, "\n- postgres (Query and tune PostgreSQL databases)") {
		t.Errorf("skill gti: got %q, want seed 001's not-found text, closest name first", nf.Text)
	}
	if c := doc.Calls[2]; !c.IsError && c.Error == nil {
		t.Errorf("skill with an extra field: got a result, want a refusal (the input is strict)")
	}

	corpus := filepath.Join(repoRoot(t), "..", "shared", "bench", "corpus")
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("bench corpus not present: %v", err)
	}
	big := profileRun(t, []string{"--profile", "universal-skills", "--skills-dir", corpus}, nil, nil)
	t.Logf("universal-skills tools/list on the bench corpus: %d bytes", big.ToolsListBytes)
	var tool struct {
		Description string `json:"description"`
	}
	_ = json.Unmarshal(big.Tools[0], &tool)
	if big.ToolsListBytes > 8192 || !strings.Contains(tool.Description, "more skills are not listed here") || !strings.Contains(tool.Description, "<skill>") {
		t.Errorf("tools/list on the bench corpus: %d bytes, description ends %q; want at most 8192 bytes, some skills and a note on the rest",
			big.ToolsListBytes, tail(tool.Description, 300))
	}
}

// TestProfileSk reproduces seed 002's tools on a small SKILL.md catalog.
func TestProfileSk(t *testing.T) {
	skipShort(t)
	cat, err := filepath.Abs(profileCatalog)
	if err != nil {
		t.Fatal(err)
	}
	doc := profileRun(t, []string{"--profile", "sk", "--skills-dir", cat}, nil, []call{
		{"skills.list", map[string]any{}},
		{"skills.list", map[string]any{"query": "PDF", "includeBody": true}},
		{"skills.search", map[string]any{"query": "bd READY"}},
		{"skills_search", map[string]any{"query": "ready zzz"}},
		{"skills.search", map[string]any{"query": "the", "limit": 26}},
		{"skills_list", map[string]any{"query": "post"}},
		{"skills_show", map[string]any{"name": "postgres"}},
		{"skills.search", map[string]any{"query": "e", "limit": 2}},
	})
	checkGolden(t, "sk", doc)
	if !strings.Contains(doc.Instructions, "skills.list") || !strings.Contains(doc.Instructions, "skills.search") {
		t.Errorf("instructions %q: want them to name skills.list and skills.search", doc.Instructions)
	}
	type summary struct {
		InstallName string `json:"installName"`
		Meta        struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"meta"`
		SkillPath string  `json:"skillPath"`
		SkillFile string  `json:"skillFile"`
		Body      *string `json:"body"`
		Score     int     `json:"score"`
		Excerpt   string  `json:"excerpt"`
	}
	type list struct {
		Skills  []summary `json:"skills"`
		Query   string    `json:"query"`
		Limit   int       `json:"limit"`
		Total   int       `json:"total"`
		Results []summary `json:"results"`
	}
	c := doc.Calls
	all := result[list](t, c[0])
	var names []string
	for _, s := range all.Skills {
		names = append(names, s.InstallName)
		if s.Body != nil || s.SkillFile != s.SkillPath+"/SKILL.md" {
			t.Errorf("skills.list: %+v: want no body and skillFile = skillPath/SKILL.md", s)
		}
	}
	if !slices.Equal(names, []string{"git", "notes", "pdf", "postgres"}) || !strings.HasPrefix(c[0].Text, "4 skills matched") {
		t.Errorf("skills.list: got %v and text %q, want the 4 skills and a summary", names, c[0].Text)
	}
	pdf := result[list](t, c[1])
	if len(pdf.Skills) != 1 || pdf.Skills[0].Body == nil || !strings.Contains(*pdf.Skills[0].Body, "# PDF extraction") || strings.Contains(*pdf.Skills[0].Body, "description:") {
		t.Errorf("skills.list PDF includeBody: got %+v, want pdf with its body without frontmatter", pdf.Skills)
	}
	hit := result[list](t, c[2])
	if hit.Total != 1 || hit.Limit != 10 || hit.Query != "bd READY" || len(hit.Results) != 1 || hit.Results[0].InstallName != "git" ||
		hit.Results[0].Score != 2 || !strings.Contains(hit.Results[0].Excerpt, "bd ready") || len([]rune(hit.Results[0].Excerpt)) > 170 {
		t.Errorf("skills.search bd READY: got %+v, want git, score 2, an excerpt around the match", hit)
	}
	if none := result[list](t, c[3]); none.Total != 0 || len(none.Results) != 0 {
		t.Errorf("skills_search ready zzz: got %+v, want no hit (every token must match)", none)
	}
	if c[4].Error == nil && !c[4].IsError {
		t.Errorf("skills.search limit 26: got a result, want a refusal (1 to 25)")
	}
	if post := result[list](t, c[5]); len(post.Skills) != 1 || post.Skills[0].InstallName != "postgres" {
		t.Errorf("skills_list post: got %+v", post.Skills)
	}
	show := result[struct {
		Skill summary `json:"skill"`
	}](t, c[6])
	if show.Skill.InstallName != "postgres" || show.Skill.Body == nil || !strings.Contains(*show.Skill.Body, "templates/query.sql") {
		t.Errorf("skills_show postgres: got %+v", show.Skill)
	}
	if two := result[list](t, c[7]); len(two.Results) != 2 || two.Total < 3 {
		t.Errorf("skills.search e limit 2: got %d results of %d, want 2 of at least 3", len(two.Results), two.Total)
	}
}

// TestProfileSkillHub reproduces seed 004 §3 on a small SKILL.md catalog:
// the three tools, the JSON-RPC error codes, and run_skill_command: absent
// by default, then enabled by config and run in the sandbox.
func TestProfileSkillHub(t *testing.T) {
	skipShort(t)
	cat, err := filepath.Abs(profileCatalog)
	if err != nil {
		t.Fatal(err)
	}
	doc := profileRun(t, []string{"--profile", "skillhub", "--skills-dir", cat}, []string{"SKILLHUB_ENABLED_SKILLS=postgres,pdf,notes"}, []call{
		{"search_skills", map[string]any{"query": "  slow   sql  queries "}},
		{"load_skill", map[string]any{"skill_name": "postgres"}},
		{"read_skill_file", map[string]any{"skill_name": "postgres", "file_path": "templates/query.sql"}},
		{"read_skill_file", map[string]any{"skill_name": "postgres", "file_path": "/etc/passwd"}},
		{"read_skill_file", map[string]any{"skill_name": "postgres", "file_path": "../git/SKILL.md"}},
		{"read_skill_file", map[string]any{"skill_name": "postgres", "file_path": "missing.txt"}},
		{"load_skill", map[string]any{"skill_name": "nope"}},
		{"load_skill", map[string]any{"skill_name": "git"}},
		{"run_skill_command", map[string]any{"skill_name": "pdf", "command": "ls"}},
	})
	checkGolden(t, "skillhub", doc)
	c := doc.Calls
	hits := result[struct {
		Skills []struct {
			Name        string  `json:"name"`
			Description string  `json:"description"`
			Score       float64 `json:"score"`
		} `json:"skills"`
	}](t, c[0])
	if len(hits.Skills) == 0 || hits.Skills[0].Name != "postgres" || hits.Skills[0].Score <= 0 || hits.Skills[0].Score > 1 {
		t.Errorf("search_skills: got %+v, want postgres first with a score in (0, 1]", hits.Skills)
	}
	load := result[map[string]any](t, c[1])
	if load["name"] != "postgres" || load["path"] != filepath.Join(cat, "postgres") || !strings.HasPrefix(strings.TrimSpace(fmt.Sprint(load["instructions"])), "# PostgreSQL") || len(load) != 3 {
		t.Errorf("load_skill: got %v, want {name, instructions without frontmatter, path}", load)
	}
	read := result[map[string]any](t, c[2])
	if read["encoding"] != "utf-8" || read["truncated"] != false || !strings.HasPrefix(fmt.Sprint(read["content"]), "-- Find slow queries") {
		t.Errorf("read_skill_file: got %v", read)
	}
	protocolError(t, c[3], "INVALID_PATH", -32006)
	protocolError(t, c[4], "INVALID_PATH", -32006)
	protocolError(t, c[5], "FILE_NOT_FOUND", -32003)
	protocolError(t, c[6], "SKILL_NOT_FOUND", -32001)
	protocolError(t, c[7], "SKILL_DISABLED", -32002)
	if slices.Contains(doc.toolNames(t), "run_skill_command") || c[8].Error == nil {
		t.Errorf("run_skill_command: listed or answered without being enabled (tools %v, call %+v)", doc.toolNames(t), c[8])
	}

	t.Run("run_skill_command", func(t *testing.T) {
		cfg := filepath.Join(t.TempDir(), "config.yaml")
		writeFile(t, cfg, "commands:\n  enabled: true\n  timeout_seconds: 1\n  max_output_bytes: 40\n", 0o644)
		doc := profileRun(t, []string{"--profile", "skillhub", "--skills-dir", cat, "--config", cfg}, []string{"SECRET_TOKEN=do-not-leak"}, []call{
			{"run_skill_command", map[string]any{"skill_name": "pdf", "command": "ls", "args": []string{"-1", "scripts"}}},
			{"run_skill_command", map[string]any{"skill_name": "pdf", "command": "node", "args": []string{"scripts/extract.js", "in.pdf"}}},
			{"run_skill_command", map[string]any{"skill_name": "pdf", "command": "rm", "args": []string{"scripts/extract.js"}}},
			{"run_skill_command", map[string]any{"skill_name": "pdf", "command": "cat", "args": []string{"../git/SKILL.md"}}},
			{"run_skill_command", map[string]any{"skill_name": "pdf", "command": "node", "args": []string{"-e", "setTimeout(() => {}, 10000)"}}},
			{"run_skill_command", map[string]any{"skill_name": "postgres", "command": "cat", "args": []string{"SKILL.md"}}},
			{"run_skill_command", map[string]any{"skill_name": "pdf", "command": "node", "args": []string{"-e", "console.log(Object.keys(process.env).sort().join())"}}},
			{"run_skill_command", map[string]any{"skill_name": "nope", "command": "ls"}},
		})
		checkGolden(t, "skillhub-run-skill-command", doc)
		c := doc.Calls
		type run struct {
			Stdout    string `json:"stdout"`
			Stderr    string `json:"stderr"`
			ExitCode  int    `json:"exit_code"`
			Timeout   bool   `json:"timeout"`
			Truncated struct {
				Stdout bool `json:"stdout"`
				Stderr bool `json:"stderr"`
			} `json:"truncated"`
		}
		if r := result[run](t, c[0]); r.Stdout != "extract.js\n" || r.ExitCode != 0 || r.Timeout {
			t.Errorf("ls -1 scripts (cwd = the skill's folder): got %+v", r)
		}
		if r := result[run](t, c[1]); r.Stdout != "invoice INV-0042 from in.pdf\n" {
			t.Errorf("node scripts/extract.js: got %+v", r)
		}
		protocolError(t, c[2], "COMMAND_NOT_ALLOWED", -32004)
		protocolError(t, c[3], "INVALID_PATH", -32006)
		if r := result[run](t, c[4]); !r.Timeout || r.ExitCode == 0 {
			t.Errorf("a command past EXEC_TIMEOUT_SECONDS: got %+v, want timeout true", r)
		}
		if r := result[run](t, c[5]); !r.Truncated.Stdout || len(r.Stdout) != 40 || r.Truncated.Stderr {
			t.Errorf("output past EXEC_MAX_OUTPUT_BYTES: got %+v, want 40 bytes and truncated.stdout", r)
		}
		if r := result[run](t, c[6]); r.Stdout != "HOME,LANG,PATH,TMPDIR\n" {
			t.Errorf("the command's environment: got %q, want HOME, LANG, PATH and TMPDIR only", r.Stdout)
		}
		protocolError(t, c[7], "SKILL_NOT_FOUND", -32001)
	})
}

// TestProfileSkillHubRemote: with a shared skillsd that does not enable
// commands, run_skill_command (listed with --run-skill-command) refuses.
func TestProfileSkillHubRemote(t *testing.T) {
	skipShort(t)
	cat, err := filepath.Abs(profileCatalog)
	if err != nil {
		t.Fatal(err)
	}
	_, addr := startOnFreePort(t, binary(t, "skillsd"),
		func(addr string) []string { return []string{"--grpc", addr, "--skills-dir", cat} }, grpcReady)
	doc := profileRun(t, []string{"--server", addr, "--profile", "skillhub", "--run-skill-command"}, nil, []call{
		{"run_skill_command", map[string]any{"skill_name": "pdf", "command": "ls"}},
		{"load_skill", map[string]any{"skill_name": "pdf"}},
	})
	if !slices.Contains(doc.toolNames(t), "run_skill_command") {
		t.Errorf("tools %v: want run_skill_command with --run-skill-command", doc.toolNames(t))
	}
	protocolError(t, doc.Calls[0], "COMMANDS_DISABLED", -32007)
	if l := result[map[string]any](t, doc.Calls[1]); l["name"] != "pdf" {
		t.Errorf("load_skill over gRPC: got %v", l)
	}
}

// TestProfileGitHubWorker reproduces seed 003's tools (the skill part on a
// SKILL.md catalog; agents and docs through ContentService).
func TestProfileGitHubWorker(t *testing.T) {
	skipShort(t)
	cat := copyTree(t, profileCatalog)
	calls := []call{
		{"list_skills", map[string]any{}},
		{"get_skill", map[string]any{"name": "git"}},
		{"get_skill_file", map[string]any{"skill": "postgres", "file": "templates/query.sql"}},
		{"get_skill", map[string]any{"name": "../git"}},
		{"get_skill_file", map[string]any{"skill": "pdf", "file": "/etc/passwd"}},
		{"get_skill_file", map[string]any{"skill": "pdf", "file": `scripts\extract.js`}},
		{"get_doc", map[string]any{"path": []string{"guide", "..", "secret"}}},
		{"get_skill", map[string]any{"name": "nope"}},
		{"get_skill", map[string]any{"name": "git"}},
		{"get_skill", map[string]any{"name": "git", "skipCache": true}},
		{"list_agents", map[string]any{}},
		{"list_docs", map[string]any{}},
		{"get_agent", map[string]any{"name": "reviewer"}},
		{"get_doc", map[string]any{"path": []string{"guide"}}},
		{"get_doc", map[string]any{"path": []string{"guide", "setup"}}},
		{"get_doc", map[string]any{"path": []string{"missing"}}},
	}
	// One long-lived HTTP server, two client runs: the file changes on disk
	// between them, to see the cache.
	fixtures, err := filepath.Abs(filepath.Join("testdata", "profiles"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	writeFile(t, cfg, fmt.Sprintf("content:\n  agents_dir: %q\n  docs_dir: %q\n", filepath.Join(fixtures, "agents"), filepath.Join(fixtures, "docs")), 0o644)
	_, addr := startOnFreePort(t, binary(t, "skills-mcp"),
		func(addr string) []string {
			return []string{"--http", addr, "--profile", "github-worker", "--skills-dir", cat, "--config", cfg}
		}, httpReady("/readyz"))
	url := "http://" + addr + "/mcp"
	first := profileRunURL(t, url, calls[:8])
	checkGolden(t, "github-worker", first)
	c := first.Calls
	list := result[[]struct {
		Name          string   `json:"name"`
		Description   *string  `json:"description"`
		ArgumentHint  *string  `json:"argumentHint"`
		UserInvocable bool     `json:"userInvocable"`
		Files         []string `json:"files"`
	}](t, c[0])
	byName := map[string]int{}
	for i, s := range list {
		byName[s.Name] = i
	}
	if len(list) != 4 {
		t.Fatalf("list_skills: got %d skills, want 4", len(list))
	}
	if g := list[byName["git"]]; g.ArgumentHint == nil || *g.ArgumentHint != "[branch]" || !g.UserInvocable || len(g.Files) != 0 {
		t.Errorf("list_skills git: got %+v", g)
	}
	if p := list[byName["pdf"]]; p.UserInvocable || !slices.Equal(p.Files, []string{"scripts/extract.js"}) {
		t.Errorf("list_skills pdf: got %+v, want userInvocable false and files [scripts/extract.js]", p)
	}
	if n := list[byName["notes"]]; n.Description != nil {
		t.Errorf("list_skills notes (no frontmatter): description %q, want null", *n.Description)
	}
	raw, _ := os.ReadFile(filepath.Join(cat, "git", "SKILL.md"))
	get := result[map[string]any](t, c[1])
	if get["name"] != "git" || get["content"] != string(raw) || get["path"] != "git/SKILL.md" || get["sha"] != gitSHA(raw) {
		t.Errorf("get_skill git: got %v, want the raw SKILL.md with path git/SKILL.md and sha %s", get, gitSHA(raw))
	}
	sql, _ := os.ReadFile(filepath.Join(cat, "postgres", "templates", "query.sql"))
	if f := result[map[string]any](t, c[2]); f["content"] != base64.StdEncoding.EncodeToString(sql) || f["encoding"] != "base64" || f["size"] != float64(len(sql)) {
		t.Errorf("get_skill_file: got %v", f)
	}
	for _, i := range []int{3, 4, 5, 6} {
		checkGHError(t, c[i], "INVALID_PATH")
	}
	checkGHError(t, c[7], "NOT_FOUND")

	// The cache: the file changes on disk; a plain get still answers the
	// cached text, skipCache answers the new one.
	changed := strings.Replace(string(raw), "Tag the release", "Sign and tag the release", 1)
	writeFile(t, filepath.Join(cat, "git", "SKILL.md"), changed, 0o644)
	second := profileRunURL(t, url, calls[8:])
	c = second.Calls
	if g := result[map[string]any](t, c[0]); g["content"] != string(raw) {
		t.Errorf("get_skill within 10 minutes: got %.80q, want the cached text", g["content"])
	}
	if g := result[map[string]any](t, c[1]); g["content"] != changed || g["sha"] != gitSHA([]byte(changed)) {
		t.Errorf("get_skill skipCache: got %.80q, want the new text", g["content"])
	}
	// Agents and docs (REQ-AGENT-001/002, REQ-DOC-001..003).
	agents := result[[]map[string]any](t, c[2])
	if len(agents) != 1 || agents[0]["name"] != "reviewer" || agents[0]["model"] != "sonnet" ||
		fmt.Sprint(agents[0]["allowedTools"]) != "[Read Grep]" || agents[0]["description"] != "Reviews pull requests for correctness and style" {
		t.Errorf("list_agents: got %v", agents)
	}
	tree := result[map[string]any](t, c[3])
	if guide, ok := tree["guide"].(map[string]any); !ok || !strings.Contains(fmt.Sprint(guide), "Set up a laptop") {
		t.Errorf("list_docs: got %v, want a guide section holding the setup page's description", tree)
	}
	agentRaw, _ := os.ReadFile(filepath.Join(fixtures, "agents", "reviewer.md"))
	if a := result[map[string]any](t, c[4]); a["name"] != "reviewer" || a["content"] != string(agentRaw) || a["sha"] != gitSHA(agentRaw) || a["path"] == "" {
		t.Errorf("get_agent reviewer: got %v", a)
	}
	if d := result[map[string]any](t, c[5]); !strings.Contains(fmt.Sprint(d["content"]), "# Guide") || !strings.HasSuffix(fmt.Sprint(d["filePath"]), "guide/index.md") {
		t.Errorf("get_doc [guide]: got %v, want guide/index.md", d)
	}
	if d := result[map[string]any](t, c[6]); !strings.Contains(fmt.Sprint(d["content"]), "Install Go") || d["sha"] == "" {
		t.Errorf("get_doc [guide setup]: got %v, want guide/setup.mdx", d)
	}
	checkGHError(t, c[7], "NOT_FOUND")
}

// profileRunURL is profileRun against a Streamable HTTP endpoint.
func profileRunURL(t *testing.T, url string, calls []call) *profileDoc {
	t.Helper()
	node, mcpScript := requireNode(t)
	script := filepath.Join(filepath.Dir(mcpScript), "profile-client.mjs")
	if calls == nil {
		calls = []call{}
	}
	callsFile := filepath.Join(t.TempDir(), "calls.json")
	b, _ := json.Marshal(calls)
	if err := os.WriteFile(callsFile, b, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), nodeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, "--url", url, "--calls", callsFile)
	cmd.Env = cleanEnv(t)
	var stdout, stderr syncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node profile-client --url: %v\nstderr:\n%s", err, tail(stderr.String(), 4000))
	}
	var doc profileDoc
	if err := json.Unmarshal([]byte(stdout.String()), &doc); err != nil {
		t.Fatalf("profile-client: %v\n%s", err, tail(stdout.String(), 2000))
	}
	if len(doc.Calls) != len(calls) {
		t.Fatalf("got %d calls, want %d", len(doc.Calls), len(calls))
	}
	return &doc
}

// checkGHError checks seed 003's error shape {error: {code, message, details}}.
func checkGHError(t *testing.T, c profileCall, code string) {
	t.Helper()
	var e struct {
		Error struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if !c.IsError || json.Unmarshal([]byte(c.Text), &e) != nil || e.Error.Code != code || e.Error.Message == "" || e.Error.Details == nil {
		t.Errorf("%s %v: got isError %v, text %q; want {error: {code: %s, message, details}}", c.Name, c.Arguments, c.IsError, c.Text, code)
	}
}

// gitSHA is git's blob id of data (git hash-object).
func gitSHA(data []byte) string {
	h := sha1.New() //nolint:gosec // see the import
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// TestProfileUniversalSkillsFollowsCatalog: the skill tool's description
// lists a skill added while the server runs.
func TestProfileUniversalSkillsFollowsCatalog(t *testing.T) {
	skipShort(t)
	cat := copyTree(t, profileCatalog)
	_, addr := startOnFreePort(t, binary(t, "skills-mcp"),
		func(addr string) []string {
			return []string{"--http", addr, "--profile", "universal-skills", "--skills-dir", cat}
		}, httpReady("/readyz"))
	url := "http://" + addr + "/mcp"
	description := func() string {
		doc := profileRunURL(t, url, nil)
		var tool struct {
			Description string `json:"description"`
		}
		if len(doc.Tools) != 1 || json.Unmarshal(doc.Tools[0], &tool) != nil {
			t.Fatalf("tools/list: got %d tools, want the skill tool", len(doc.Tools))
		}
		return tool.Description
	}
	if d := description(); strings.Contains(d, "<name>terraform</name>") || !strings.Contains(d, "<name>git</name>") {
		t.Fatalf("description before the change: %q", d)
	}
	writeFile(t, filepath.Join(cat, "terraform", "SKILL.md"), "---\nname: terraform\ndescription: Plan and apply infrastructure changes\n---\n\n# Terraform\n", 0o644)
	deadline := time.Now().Add(20 * time.Second)
	for {
		d := description()
		if strings.Contains(d, "<name>terraform</name>") {
			t.Logf("the description lists the new skill %v after it was written", time.Until(deadline.Add(-20*time.Second)).Abs().Round(100*time.Millisecond))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("description 20 s after adding terraform/SKILL.md still lacks it: %q", d)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
