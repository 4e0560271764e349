package e2e

import (
	"bytes"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/encoding/protojson"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// wantConfined fails when Landlock is missing for want of the sandbox hook
// in a binary's main, and logs it when the kernel lacks it.
func wantConfined(t *testing.T, who string, iso *skillsv1.ScriptIsolation) {
	t.Helper()
	if slices.Contains(iso.GetInForce(), "landlock-filesystem") {
		return
	}
	detail := strings.Join(iso.GetDetail(), "; ")
	if strings.Contains(detail, "SandboxHelper") || iso == nil {
		t.Errorf("%s runs scripts without Landlock for want of the sandbox hook: %v", who, iso)
		return
	}
	t.Logf("%s: this kernel cannot confine scripts: %s", who, detail)
}

// TestBinariesConfineScripts: skillsd and skills-rest (embedded) call the
// sandbox hook first in main: their status says Landlock is in force, and
// a declared script cannot read a key planted in the server's ~/.ssh.
// (skills-mcp: TestProfileSkillsMCP checks run_script's isolation_missing.)
func TestBinariesConfineScripts(t *testing.T) {
	skipShort(t)
	if runtime.GOOS != "linux" {
		t.Skip("Landlock is Linux only")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		missingTool(t, "bash is not installed")
	}
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".ssh", "id_rsa"), "e2e-planted-key\n", 0o600)
	root := filepath.Join(t.TempDir(), "skills")
	writeFile(t, filepath.Join(root, "probe", "SKILL.md"), "---\nname: probe\ndescription: Reads a file.\nscripts:\n  - file: read.sh\n    execution: server\n    args:\n      - name: target\n---\n# Probe\n", 0o644)
	writeFile(t, filepath.Join(root, "probe", "read.sh"), "cat \"$SKILL_ARG_TARGET\"\n", 0o644)
	env := []string{"HOME=" + home}
	key := filepath.Join(home, ".ssh", "id_rsa")

	_, grpcAddr := startOnFreePortEnv(t, env, binary(t, "skillsd"),
		func(addr string) []string { return []string{"--grpc", addr, "--skills-dir", root} },
		grpcReady)
	conn, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	st, err := skillsv1.NewCatalogServiceClient(conn).GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	wantConfined(t, "skillsd", st.GetScriptIsolation())
	res, err := skillsv1.NewScriptServiceClient(conn).RunScript(t.Context(), &skillsv1.RunScriptRequest{SkillPath: "probe", File: "read.sh", Args: map[string]string{"target": key}})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(res.GetIsolation().GetInForce(), "landlock-filesystem") && (res.GetSuccess() || strings.Contains(res.GetStdout(), "planted")) {
		t.Errorf("skillsd: a script read ~/.ssh/id_rsa: %+v", res)
	}

	_, httpAddr := startOnFreePortEnv(t, env, binary(t, "skills-rest"),
		func(addr string) []string { return []string{"--skills-dir", root, "--http", addr} },
		httpReady("/readyz"))
	var rst skillsv1.GetCatalogStatusResponse
	getProto(t, "http://"+httpAddr+"/v1/status", &rst)
	wantConfined(t, "skills-rest", rst.GetScriptIsolation())
	body, _ := protojson.Marshal(&skillsv1.RunScriptRequest{SkillPath: "probe", File: "read.sh", Args: map[string]string{"target": key}})
	resp, err := http.Post("http://"+httpAddr+"/v1/scripts:run", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	var run skillsv1.RunScriptResponse
	if err := protojson.Unmarshal(buf.Bytes(), &run); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/scripts:run: %d %s (%v)", resp.StatusCode, buf.String(), err)
	}
	wantConfined(t, "skills-rest run", run.GetIsolation())
	if slices.Contains(run.GetIsolation().GetInForce(), "landlock-filesystem") && (run.GetSuccess() || strings.Contains(run.GetStdout(), "planted")) {
		t.Errorf("skills-rest: a script read ~/.ssh/id_rsa: %s", buf.String())
	}
}
