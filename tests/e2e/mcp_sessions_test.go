package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestMCPSessionLimitEveryWay: mcp.http.max_sessions from its flag, the
// environment or config.yaml bounds the live sessions of skills-mcp --http;
// allowed origins from each way decide which pages may call.
func TestMCPSessionLimitEveryWay(t *testing.T) {
	skipShort(t)
	dir := examplesDir(t)
	for _, w := range []struct {
		name  string
		setup func(t *testing.T) (args, env []string)
	}{
		{"flag", func(*testing.T) ([]string, []string) {
			return []string{"--max-sessions", "2", "--allowed-origin", "https://console.example.com"}, nil
		}},
		{"env", func(*testing.T) ([]string, []string) {
			return nil, []string{"SKILLS_MCP_MAX_SESSIONS=2", "SKILLS_MCP_ALLOWED_ORIGINS=https://console.example.com"}
		}},
		{"config.yaml", func(t *testing.T) ([]string, []string) {
			file := filepath.Join(t.TempDir(), "config.yaml")
			yaml := "mcp:\n  http:\n    max_sessions: 2\n    allowed_origins: [\"https://console.example.com\"]\n"
			if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"--config", file}, nil
		}},
	} {
		t.Run(w.name, func(t *testing.T) {
			args, env := w.setup(t)
			_, addr := startOnFreePortEnv(t, env, binary(t, "skills-mcp"),
				func(addr string) []string { return append([]string{"--http", addr, "--skills-dir", dir}, args...) }, httpReady("/readyz"))
			post := func(origin string) int {
				h := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}
				if origin != "" {
					h = append(h, "Origin", origin)
				}
				return httpCall(t, http.MethodPost, "http://"+addr+"/mcp", initializeBody, "", h...)
			}
			if code := post("http://localhost:3000"); code != http.StatusForbidden {
				t.Errorf("an origin outside the configured list: %d, want 403", code)
			}
			for i := range 2 {
				if code := post("https://console.example.com"); code != http.StatusOK {
					t.Fatalf("initialize %d: %d", i+1, code)
				}
			}
			if code := post(""); code != http.StatusServiceUnavailable {
				t.Errorf("a third session: %d, want 503", code)
			}
		})
	}
}
