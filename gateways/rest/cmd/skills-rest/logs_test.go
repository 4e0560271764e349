package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestEmptyFolderIsLoud: skills-rest started with no flags in a folder
// without skills says so on stderr, naming the folders it searched (issue
// 18: it served 0 skills without a word); --require-skills refuses to start.
func TestEmptyFolderIsLoud(t *testing.T) {
	cwd, home := t.TempDir(), t.TempDir()
	_, logs := startIn(t, cwd, []string{"HOME=" + home, "SKILLS_DIR="}, "--http", "127.0.0.1:0")
	out := logs()
	for _, want := range []string{"level=WARN", "the catalog has no skills", "none of the default skills folders exists", filepath.Join(cwd, ".claude", "skills"), filepath.Join(home, ".agents", "skills")} {
		if !strings.Contains(out, want) {
			t.Errorf("stderr lacks %q:\n%s", want, out)
		}
	}

	out, code := runBinary(t, []string{"HOME=" + home, "SKILLS_DIR=", "SKILLSD_HOME=" + t.TempDir()}, "--http", "127.0.0.1:0", "--require-skills")
	if code != 1 || !strings.Contains(out, "no skills to serve") || !strings.Contains(out, filepath.Join(home, ".claude", "skills")) {
		t.Errorf("--require-skills in an empty folder: exit %d\n%s", code, out)
	}
}

// TestAccessLogAndJSON: one JSON access line per request, refused ones
// included, with the request id.
func TestAccessLogAndJSON(t *testing.T) {
	base, logs := startIn(t, t.TempDir(), []string{"LOG_FORMAT=json"}, "--skills-dir", skillsDir(t), "--http", "127.0.0.1:0")
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+"/v1/skills/nope", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Request-Id", "req-7")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	var access map[string]any
	for deadline := time.Now().Add(5 * time.Second); access == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, line := range strings.Split(strings.TrimSpace(logs()), "\n") {
			if strings.HasPrefix(line, "skills-rest: ") {
				continue // the address lines for people and scripts, not log lines
			}
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("not a JSON line: %q", line)
			}
			if rec["msg"] == "access" && rec["path"] == "/v1/skills/nope" {
				access = rec
			}
		}
	}
	if access == nil {
		t.Fatalf("no access line:\n%s", logs())
	}
	if access["level"] != "INFO" || access["status"] != 404.0 || access["method"] != "GET" || access["request_id"] != "req-7" {
		t.Errorf("access line %v", access)
	}
	if n := strings.Count(logs(), `"msg":"access"`); n != 1 {
		t.Errorf("%d access lines for one request (the in-process gRPC call must not log its own)", n)
	}
}
