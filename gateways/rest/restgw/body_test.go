package restgw_test

import (
	"net/http"
	"os/exec"
	"strings"
	"testing"
)

// TestBodyAliases: REST bodies take the words of the other routes and of
// the MCP tools where they name one field only (issue 18: POST
// /v1/scripts:run with "script" answered "INVALID_PATH: file is required").
func TestBodyAliases(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash not installed")
	}
	srv := serve(t, writeCatalog(t, filesCatalog))
	r := do(t, srv, http.MethodPost, "/v1/scripts:run", strings.NewReader(`{"skill_path": "ui/react/auth", "script": "scripts/greet.sh", "args": {"who": "alias"}}`))
	wantOK(t, "run with script", r)
	if r.body["stdout"] != "Hello, alias\n" {
		t.Errorf("run with script: %s", r.raw)
	}
	r = do(t, srv, http.MethodPost, "/v1/scripts:run", strings.NewReader(`{"skillPath": "ui/react/auth", "file": "scripts/greet.sh", "args": {"who": "camel"}}`))
	wantOK(t, "run with skillPath", r)
}

func TestSearchAndMatchShareTheirWords(t *testing.T) {
	srv := serve(t, writeCatalog(t, catalog))
	r := do(t, srv, http.MethodPost, "/v1/skills:search", strings.NewReader(`{"context": "fill pdf forms"}`))
	wantOK(t, "search with context", r)
	if !strings.Contains(string(r.raw), `"skill_path":"pdf"`) {
		t.Errorf("search with context: %s", r.raw)
	}
	r = do(t, srv, http.MethodPost, "/v1/skills:match", strings.NewReader(`{"query": "extract tables from a pdf file"}`))
	wantOK(t, "match with query", r)
	if !strings.Contains(string(r.raw), `"pdf"`) {
		t.Errorf("match with query: %s", r.raw)
	}
}

// TestUnknownBodyFields: an unknown field is a 400 naming it, the fields the
// route takes and the closest one, never silently dropped; so is a field
// given twice, and an unknown field inside a value.
func TestUnknownBodyFields(t *testing.T) {
	srv := serve(t, writeCatalog(t, catalog))
	for _, tc := range []struct {
		path, body string
		want       []string
		field      string
	}{
		{"/v1/scripts:run", `{"skill_path": "pdf", "scirpt": "x.sh"}`, []string{`unknown field "scirpt" in the body of POST /v1/scripts:run`, `did you mean "script", that is "file"?`, "it takes skill_path, file, args, cwd", "script for file"}, "scirpt"},
		{"/v1/skills:search", `{"query": "pdf", "limt": 2}`, []string{`unknown field "limt"`, `did you mean "limit"?`}, "limt"},
		{"/v1/skills:match", `{"contxt": "pdf"}`, []string{`did you mean "context"?`, "it takes context, restated"}, "contxt"},
		{"/v1/skills:refresh", `{"force": true}`, []string{"it takes no fields"}, "force"},
		{"/v1/scripts:run", `{"skill_path": "pdf", "file": "a.sh", "script": "b.sh"}`, []string{`give "file" or its alias "script", not both`}, "script"},
	} {
		r := do(t, srv, http.MethodPost, tc.path, strings.NewReader(tc.body))
		e := wantError(t, tc.body, r, http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument")
		msg, _ := e["message"].(string)
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s %s: %q lacks %q", tc.path, tc.body, msg, w)
			}
		}
		if d, _ := e["details"].(map[string]any); d["field"] != tc.field {
			t.Errorf("%s %s: details %v, want field %q", tc.path, tc.body, d, tc.field)
		}
	}
	// Inside a value: the decoder refuses it too.
	r := do(t, srv, http.MethodPost, "/v1/usage/events", strings.NewReader(`{"events": [{"id": "e1", "type": "search", "colour": "red"}]}`))
	e := wantError(t, "unknown field in an event", r, http.StatusBadRequest, "INVALID_ARGUMENT", "InvalidArgument")
	if msg, _ := e["message"].(string); !strings.Contains(msg, "colour") {
		t.Errorf("unknown field in an event: %q", msg)
	}
}
