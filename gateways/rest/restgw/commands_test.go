package restgw_test

import (
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// TestRunCommand: POST /v1/commands:run runs an allow-listed command in a
// skill's folder once the server enables commands, and refuses otherwise.
func TestRunCommand(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("commands do not run on Windows")
	}
	skill := "---\nname: pdf\ndescription: Extract text from PDF files.\n---\n\n# PDF\n"
	off := serve(t, writeCatalog(t, map[string]string{"pdf/SKILL.md": skill}))
	r := do(t, off, http.MethodPost, "/v1/commands:run", strings.NewReader(`{"skill_path": "pdf", "command": "ls"}`))
	wantError(t, "commands off", r, http.StatusBadRequest, "COMMANDS_DISABLED", "FailedPrecondition")

	on := serve(t, writeCatalog(t, map[string]string{
		"pdf/SKILL.md": skill,
		"config.yaml":  "commands:\n  enabled: true\n  allowed: [ls]\n",
	}))
	r = do(t, on, http.MethodPost, "/v1/commands:run", strings.NewReader(`{"skill_path": "pdf", "command": "ls"}`))
	wantOK(t, "ls", r)
	if r.body["stdout"] != "SKILL.md\n" || r.body["program"] != "ls" {
		t.Errorf("ls: got %s", r.raw)
	}
	r = do(t, on, http.MethodPost, "/v1/commands:run", strings.NewReader(`{"skill_path": "pdf", "command": "cat", "args": ["SKILL.md"]}`))
	wantError(t, "cat", r, http.StatusForbidden, "COMMAND_NOT_ALLOWED", "PermissionDenied")
}
