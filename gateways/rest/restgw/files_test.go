package restgw_test

import (
	"encoding/base64"
	"net/http"
	"os/exec"
	"strings"
	"testing"
)

// filesCatalog is a seed-000 tree with an inherited asset, a binary file and
// scripts.
var filesCatalog = map[string]string{
	"ui/_index.md": `---
keywords: [ui]
description: UI rules.
assets:
  - file: assets/tokens.json
    type: reference
---
# UI
`,
	"ui/_index/assets/tokens.json": `{"primary": "#123456"}` + "\n",
	"ui/react/auth.md": `---
keywords: [react, auth]
description: React auth.
assets:
  - file: assets/flow.png
    type: image
scripts:
  - file: scripts/greet.sh
    execution: server
    args:
      - name: who
      - name: greeting
        required: false
        default: Hello
  - file: scripts/local.sh
    execution: claude
---
# React auth
`,
	"ui/react/auth/assets/flow.png":  "\x89PNG\r\n\x1a\n\x00binary",
	"ui/react/auth/scripts/greet.sh": "echo \"$SKILL_ARG_GREETING, $SKILL_ARG_WHO\"\n",
	"ui/react/auth/scripts/local.sh": "echo local\n",
	"ui/react/auth/notes/a b&c%.txt": "odd name\n",
}

func TestReadSkillFile(t *testing.T) {
	srv := serve(t, writeCatalog(t, filesCatalog))

	// A declared asset inherited from ui/_index, the skill path in the URL
	// path, the file in the query.
	r := get(t, srv, "/v1/files/ui/react/auth?file=assets/tokens.json")
	wantOK(t, "inherited asset", r)
	if r.body["text"] != "{\"primary\": \"#123456\"}\n" || r.body["resolved_from"] != "ui/_index" || r.body["type"] != "reference" || r.body["binary"] != false {
		t.Errorf("inherited asset: got %s", r.raw)
	}
	// A binary file: data in base64.
	r = get(t, srv, "/v1/files/ui/react/auth?file=assets%2Fflow.png")
	wantOK(t, "binary", r)
	if r.body["data"] != base64.StdEncoding.EncodeToString([]byte("\x89PNG\r\n\x1a\n\x00binary")) || r.body["binary"] != true || r.body["mime_type"] != "image/png" {
		t.Errorf("binary: got %s", r.raw)
	}
	// A file name that needs escaping in a query.
	r = get(t, srv, "/v1/files/ui/react/auth?file=notes%2Fa+b%26c%25.txt")
	wantOK(t, "escaped name", r)
	if r.body["text"] != "odd name\n" {
		t.Errorf("escaped name: got %s", r.raw)
	}
	// Paging: int64 fields are JSON strings (protojson).
	r = get(t, srv, "/v1/files/ui/react/auth?file=assets/tokens.json&offset=2&max_bytes=5")
	wantOK(t, "page", r)
	if r.body["text"] != "prima" || r.body["truncated"] != true || r.body["next_offset"] != "7" {
		t.Errorf("page: got %s", r.raw)
	}

	for _, tc := range []struct {
		path, code, grpcCode string
		status               int
	}{
		{"/v1/files/ui/react/auth?file=../../_index.md", "INVALID_PATH", "InvalidArgument", http.StatusBadRequest},
		{"/v1/files/ui/react/auth?file=%252e%252e/x", "INVALID_PATH", "InvalidArgument", http.StatusBadRequest},
		{"/v1/files/ui/react/auth?file=%2Fetc%2Fpasswd", "INVALID_PATH", "InvalidArgument", http.StatusBadRequest},
		{"/v1/files/ui/react/auth?file=a%00b", "INVALID_PATH", "InvalidArgument", http.StatusBadRequest},
		{"/v1/files/ui/react/auth?file=", "INVALID_PATH", "InvalidArgument", http.StatusBadRequest},
		{"/v1/files/ui/react/auth?file=assets/none.txt", "FILE_NOT_FOUND", "NotFound", http.StatusNotFound},
		{"/v1/files/ui/react/nope?file=x.txt", "SKILL_NOT_FOUND", "NotFound", http.StatusNotFound},
		{"/v1/files/ui/react/auth?file=assets/tokens.json&offset=-1", "INVALID_ARGUMENT", "InvalidArgument", http.StatusBadRequest},
	} {
		r := get(t, srv, tc.path)
		e := wantError(t, tc.path, r, tc.status, tc.code, tc.grpcCode)
		if msg, _ := e["message"].(string); strings.Contains(msg, "/tmp/") {
			t.Errorf("%s: the message shows a server path: %q", tc.path, msg)
		}
	}
}

func TestRunScript(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	srv := serve(t, writeCatalog(t, filesCatalog))

	r := do(t, srv, http.MethodPost, "/v1/scripts:run", strings.NewReader(`{"skill_path": "ui/react/auth", "file": "scripts/greet.sh", "args": {"who": "REST"}}`))
	wantOK(t, "run", r)
	if r.body["success"] != true || r.body["exit_code"] != float64(0) || r.body["stdout"] != "Hello, REST\n" || r.body["script"] != "scripts/greet.sh" {
		t.Errorf("run: got %s", r.raw)
	}
	if _, ok := r.body["duration_ms"].(string); !ok {
		t.Errorf("duration_ms: got %v, want an int64 as a JSON string", r.body["duration_ms"])
	}

	for _, tc := range []struct {
		body, code, grpcCode string
		status               int
		detail               [2]string
	}{
		{`{"skill_path": "ui/react/auth", "file": "scripts/greet.sh"}`, "MISSING_ARGUMENTS", "InvalidArgument", http.StatusBadRequest, [2]string{"missing", "who"}},
		{`{"skill_path": "ui/react/auth", "file": "scripts/local.sh"}`, "SCRIPT_NOT_SERVER", "FailedPrecondition", http.StatusBadRequest, [2]string{"file", "scripts/local.sh"}},
		{`{"skill_path": "ui/react/auth", "file": "scripts/other.sh"}`, "SCRIPT_NOT_DECLARED", "FailedPrecondition", http.StatusBadRequest, [2]string{"skill_path", "ui/react/auth"}},
		{`{"skill_path": "ui/react/auth", "file": "../auth.md"}`, "INVALID_PATH", "InvalidArgument", http.StatusBadRequest, [2]string{"file", "../auth.md"}},
		{`{"skill_path": "nope", "file": "scripts/greet.sh"}`, "SKILL_NOT_FOUND", "NotFound", http.StatusNotFound, [2]string{"skill_path", "nope"}},
	} {
		r := do(t, srv, http.MethodPost, "/v1/scripts:run", strings.NewReader(tc.body))
		e := wantError(t, tc.body, r, tc.status, tc.code, tc.grpcCode)
		if d, _ := e["details"].(map[string]any); d[tc.detail[0]] != tc.detail[1] {
			t.Errorf("%s: details.%s: got %v, want %q", tc.body, tc.detail[0], d[tc.detail[0]], tc.detail[1])
		}
	}
}
