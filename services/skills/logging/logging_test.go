package logging

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
)

func TestParseFormat(t *testing.T) {
	for in, want := range map[string]string{"": Text, "text": Text, " JSON ": JSON, "Json": JSON} {
		if got, err := ParseFormat(in); err != nil || got != want {
			t.Errorf("ParseFormat(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"yaml", "logfmt", "jsonl"} {
		if _, err := ParseFormat(bad); err == nil || !strings.Contains(err.Error(), "text or json") {
			t.Errorf("ParseFormat(%q) = %v, want an error listing text and json", bad, err)
		}
	}
}

// TestSwitch: the format changes for every logger derived from the first,
// with its attributes and groups, and the level still filters.
func TestSwitch(t *testing.T) {
	var buf bytes.Buffer
	level, format := new(slog.LevelVar), new(FormatVar)
	log := New(&buf, level, format)
	child := log.With("component", "catalog").WithGroup("g")
	child.Info("first", "n", 1)
	format.Set(JSON)
	child.Info("second", "n", 2)
	child.Debug("hidden")
	level.Set(slog.LevelDebug)
	log.Debug("shown")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want 3:\n%s", len(lines), buf.String())
	}
	if !strings.Contains(lines[0], "msg=first component=catalog g.n=1") {
		t.Errorf("text line: %s", lines[0])
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[1]), &rec); err != nil {
		t.Fatalf("second line is not JSON: %s", lines[1])
	}
	if rec["msg"] != "second" || rec["component"] != "catalog" || rec["g"].(map[string]any)["n"] != 2.0 {
		t.Errorf("JSON line: %v", rec)
	}
	if !strings.Contains(lines[2], `"msg":"shown"`) {
		t.Errorf("debug line after the level changed: %s", lines[2])
	}
}
