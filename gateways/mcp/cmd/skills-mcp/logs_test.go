package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestStdioEmptyCatalogWarns: over stdio, an empty skills folder is a
// warning on stderr with the reason and the folder (issue 18), and the
// calls leave no info-level access lines (stderr is the host's debug log).
func TestStdioEmptyCatalogWarns(t *testing.T) {
	empty := t.TempDir()
	var stderr syncBuffer
	cmd := command(t, nil, "--skills-dir", empty)
	cmd.Stderr = &stderr
	cs := connectStdio(t, cmd)
	if _, isErr, text := callJSON[map[string]any](t, cs, "list_skills", nil); isErr {
		t.Fatalf("list_skills: %s", text)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("closing: %v", err)
	}
	logs := stderr.String()
	for _, want := range []string{"level=WARN", "the catalog has no skills", empty + " holds no skill"} {
		if !strings.Contains(logs, want) {
			t.Errorf("stderr lacks %q:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "msg=access") {
		t.Errorf("stdio logs access lines at info level:\n%s", logs)
	}

	out, err := command(t, nil, "--skills-dir", empty, "--require-skills").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(string(out), "no skills to serve") {
		t.Errorf("--require-skills with an empty folder: %v\n%s", err, out)
	}
}

// TestHTTPAccessLogJSON: over HTTP, every request is one JSON access line.
func TestHTTPAccessLogJSON(t *testing.T) {
	cmd := command(t, []string{"LOG_FORMAT=json"}, "--skills-dir", writeSkills(t), "--http", "127.0.0.1:0")
	var stderr syncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	urlRE := regexp.MustCompile(`"url":"(http://[^"]+)/mcp"`)
	var base string
	for deadline := time.Now().Add(30 * time.Second); base == ""; time.Sleep(20 * time.Millisecond) {
		if m := urlRE.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no URL announced:\n%s", stderr.String())
		}
	}
	resp, err := http.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	var access map[string]any
	for deadline := time.Now().Add(5 * time.Second); access == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, line := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("not a JSON line: %q", line)
			}
			if rec["msg"] == "access" && rec["path"] == "/readyz" {
				access = rec
			}
		}
	}
	if access == nil || access["status"] != 200.0 || access["level"] != "INFO" {
		t.Errorf("access line %v\n%s", access, stderr.String())
	}
}
