package e2e

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// TestSeed000ServerScript runs the one execution: server script of seed
// 000's reference tree (ui/react/auth's validate-auth-config.ts) for real,
// with tsx pinned in tests/e2e/node as its runner: the arguments reach it as
// SKILL_ARG_* variables, it runs in the skill's resource folder, and a
// missing file makes it fail with its own message and exit code.
func TestSeed000ServerScript(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("scripts do not run on Windows")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missingTool(t, "node is not installed: this test needs Node.js and `make npm-deps`")
	}
	bin := filepath.Join(repoRoot(t), "tests", "e2e", "node", "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(bin, "tsx")); err != nil {
		missingTool(t, "tests/e2e/node/node_modules/.bin/tsx is missing: run `make npm-deps`")
	}

	root := filepath.Join(t.TempDir(), "skills")
	if err := os.CopyFS(root, os.DirFS(filepath.Join(repoRoot(t), "tests", "contract", "testdata", "catalog"))); err != nil {
		t.Fatal(err)
	}
	config := "scripts:\n  runners:\n    \".ts\": tsx\n  timeout_seconds: 60\n"
	if err := os.WriteFile(filepath.Join(root, "config.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	const secret = "e2e-secret-token-0xBEEF"
	env := map[string]string{
		"PATH":         bin + string(os.PathListSeparator) + filepath.Dir(node),
		"GITHUB_TOKEN": secret,
	}
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, Getenv: func(k string) string { return env[k] }})
	scripts := skillsv1.NewScriptServiceClient(conn)

	run := func(configPath string) *skillsv1.RunScriptResponse {
		t.Helper()
		resp, err := scripts.RunScript(t.Context(), &skillsv1.RunScriptRequest{
			SkillPath: "ui/react/auth",
			File:      "scripts/validate-auth-config.ts",
			Args:      map[string]string{"config_path": configPath},
		})
		if err != nil {
			t.Fatalf("RunScript(config_path=%q): %v", configPath, err)
		}
		return resp
	}

	ok := run("assets/auth-config.example.ts")
	example, err := fs.ReadFile(os.DirFS(root), "ui/react/auth/assets/auth-config.example.ts")
	if err != nil {
		t.Fatal(err)
	}
	if !ok.GetSuccess() || ok.GetExitCode() != 0 {
		t.Fatalf("validate-auth-config.ts on the example config: success=%v exit=%d\nstdout: %s\nstderr: %s",
			ok.GetSuccess(), ok.GetExitCode(), ok.GetStdout(), ok.GetStderr())
	}
	// The example config is ASCII: its JavaScript length is its size.
	for _, want := range []string{"Auth config is valid", "File size: " + strconv.Itoa(len(example)) + " bytes"} {
		if !strings.Contains(ok.GetStdout(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, ok.GetStdout())
		}
	}
	// tsx and node run under Landlock: they read node's folders and the
	// node_modules holding tsx, and write only their TMPDIR.
	wantConfined(t, "the seed-000 script", ok.GetIsolation())
	if strings.Contains(ok.GetStdout()+ok.GetStderr(), secret) {
		t.Errorf("the script's output holds the server's GITHUB_TOKEN")
	}

	bad := run("no/such/config.ts")
	if bad.GetSuccess() || bad.GetExitCode() != 1 {
		t.Errorf("validate-auth-config.ts on a missing file: success=%v exit=%d, want false and 1", bad.GetSuccess(), bad.GetExitCode())
	}
	if !strings.Contains(bad.GetStderr(), "Cannot read config") {
		t.Errorf("stderr lacks the script's own message:\n%s", bad.GetStderr())
	}
}
