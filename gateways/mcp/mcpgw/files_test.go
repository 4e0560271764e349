package mcpgw

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// keys returns the keys of a JSON object, sorted.
func keys(t *testing.T, text string) []string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestReadSkillFile(t *testing.T) {
	c := newTestCatalog(t)
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
	writeFile(t, filepath.Join(c.skillsDir, "pdf", "assets", "logo.png"), png)
	cs, _ := startGateway(t, c)

	// A text file: content, no content_base64, no mime_type, no next_offset.
	res, text := callTool(t, cs, "read_skill_file", map[string]any{"skill_path": "pdf", "file": "reference.md"})
	if res.IsError {
		t.Fatalf("read_skill_file: %s", text)
	}
	got := decode[ReadSkillFileOutput](t, text)
	if got.Content == nil || *got.Content != "# pypdf reference\n" || got.Type != "other" || got.Truncated || got.SizeBytes != 18 {
		t.Errorf("text file: got %s", text)
	}
	if k := strings.Join(keys(t, text), ","); k != "content,file,size_bytes,skill_path,truncated,type" {
		t.Errorf("text file keys: got %s", k)
	}

	// A binary file: content_base64 and mime_type.
	res, text = callTool(t, cs, "read_skill_file", map[string]any{"skill_path": "pdf", "file": "assets/logo.png"})
	if res.IsError {
		t.Fatalf("read_skill_file: %s", text)
	}
	got = decode[ReadSkillFileOutput](t, text)
	if got.ContentBase64 == nil || *got.ContentBase64 != base64.StdEncoding.EncodeToString([]byte(png)) || got.MimeType != "image/png" || got.Content != nil {
		t.Errorf("binary file: got %s", text)
	}

	// A declared asset, from a seed-000 leaf.
	res, text = callTool(t, cs, "read_skill_file", map[string]any{"skill_path": "ui/react/auth", "file": "assets/AuthProvider.tsx.template"})
	if got = decode[ReadSkillFileOutput](t, text); res.IsError || got.Type != "template" || *got.Content != "export function AuthProvider() {}\n" {
		t.Errorf("declared asset: got %s", text)
	}

	// Following load_skill's truncation message reads the whole skill file.
	want, err := os.ReadFile(filepath.Join(c.skillsDir, "big", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	offset := int64(0)
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("too many pages")
		}
		res, text = callTool(t, cs, "read_skill_file", map[string]any{"skill_path": "big", "file": "SKILL.md", "offset": offset})
		if res.IsError {
			t.Fatalf("read_skill_file page at %d: %s", offset, text)
		}
		got = decode[ReadSkillFileOutput](t, text)
		all.WriteString(*got.Content)
		if !got.Truncated {
			break
		}
		if got.NextOffset <= offset {
			t.Fatalf("next_offset %d does not advance from %d", got.NextOffset, offset)
		}
		offset = got.NextOffset
	}
	if all.String() != string(want) {
		t.Errorf("paged read: got %d bytes, want the file's %d", all.Len(), len(want))
	}

	for _, tc := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"skill_path": "pdf", "file": "../brand/SKILL.md"}, []string{"..", "Correct the arguments"}},
		{map[string]any{"skill_path": "pdf", "file": "%2e%2e/brand/SKILL.md"}, []string{"encoded"}},
		{map[string]any{"skill_path": "pdf", "file": "nope.md"}, []string{"nope.md", "load_skill lists the skill's files"}},
		{map[string]any{"skill_path": "nope", "file": "x.md"}, []string{"Skill 'nope' not found"}},
		{map[string]any{"skill_path": "pdf", "file": ""}, []string{"required"}},
	} {
		res, text := callTool(t, cs, "read_skill_file", tc.args)
		if !res.IsError {
			t.Errorf("read_skill_file %v: got %s, want an error", tc.args, text)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("read_skill_file %v: error %q lacks %q", tc.args, text, w)
			}
		}
	}
}

func TestRunScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ops.md"), `---
keywords: [ops]
description: Operations
scripts:
  - file: scripts/hello.sh
    execution: server
    args:
      - name: who
  - file: scripts/fail.sh
    execution: server
  - file: scripts/local.sh
    execution: claude
---
# Ops
`)
	writeFile(t, filepath.Join(dir, "ops", "scripts", "hello.sh"), "echo \"hello $SKILL_ARG_WHO\"\n")
	writeFile(t, filepath.Join(dir, "ops", "scripts", "fail.sh"), "echo oops >&2; exit 4\n")
	writeFile(t, filepath.Join(dir, "ops", "scripts", "local.sh"), "echo local\n")
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{dir}})
	cs := connectClient(t, conn)

	res, text := callTool(t, cs, "run_script", map[string]any{"skill_path": "ops", "file": "scripts/hello.sh", "args": map[string]any{"who": "world"}})
	if res.IsError {
		t.Fatalf("run_script: %s", text)
	}
	if k := strings.Join(keys(t, text), ","); k != "duration_ms,exit_code,isolation_missing,script,stderr,stdout,success" {
		t.Errorf("keys: got %s", k)
	}
	got := decode[core.RunScriptOutput](t, text)
	if !got.Success || got.ExitCode != 0 || got.Stdout != "hello world\n" || got.Script != "scripts/hello.sh" {
		t.Errorf("run_script: got %s", text)
	}
	// The run lacks what the service says this host lacks, no more, no less.
	st, err := skillsv1.NewCatalogServiceClient(conn).GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if want := st.GetScriptIsolation().GetDetail(); !slices.Equal(got.IsolationMissing, want) || got.IsolationMissing == nil {
		t.Errorf("isolation_missing: got %q, want the status's %q", got.IsolationMissing, want)
	}
	// A failing script is an answer, not a tool error.
	res, text = callTool(t, cs, "run_script", map[string]any{"skill_path": "ops", "file": "scripts/fail.sh"})
	if got := decode[core.RunScriptOutput](t, text); res.IsError || got.Success || got.ExitCode != 4 || got.Stderr != "oops\n" {
		t.Errorf("failing script: got %s", text)
	}
	for _, tc := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"skill_path": "ops", "file": "scripts/hello.sh"}, []string{"who", "argument"}},
		{map[string]any{"skill_path": "ops", "file": "scripts/local.sh"}, []string{"execution: claude", "read_skill_file", "bash"}},
		{map[string]any{"skill_path": "ops", "file": "scripts/other.sh"}, []string{"not a script declared"}},
		{map[string]any{"skill_path": "ops", "file": "../ops.md"}, []string{".."}},
	} {
		res, text := callTool(t, cs, "run_script", tc.args)
		if !res.IsError {
			t.Errorf("run_script %v: got %s, want an error", tc.args, text)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("run_script %v: error %q lacks %q", tc.args, text, w)
			}
		}
	}
}
