package mcpgw

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// TestReportUsage: report_usage is always listed in the native profile. With
// analytics off (analytics.enabled: false) a call is an ordinary result (not
// a tool error) saying that nothing was recorded and why; with analytics on,
// as it is by default (local store only) or explicitly, it records the
// feedback.
func TestReportUsage(t *testing.T) {
	c := newTestCatalog(t)
	offCfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(offCfg, []byte("analytics:\n  enabled: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	off := connectClient(t, skillstest.Start(t, skillsd.Options{SkillsDirs: []string{c.skillsDir}, ConfigFile: offCfg}))
	if names := usageToolNames(t, off); !slices.Contains(names, core.ToolReportUsage) {
		t.Errorf("report_usage not listed with analytics off: %v", names)
	}
	res, text := callTool(t, off, core.ToolReportUsage, map[string]any{"skill_path": "pdf", "useful": true})
	if res.IsError {
		t.Fatalf("report_usage with analytics off: a tool error (%s), want a result", text)
	}
	var out core.ReportUsageOutput
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatal(err)
	}
	if out.Recorded || !strings.Contains(out.Message, "pdf") || !strings.Contains(out.Message, "analytics is off") {
		t.Errorf("report_usage with analytics off = %+v, want recorded false, naming the skill and why", out)
	}

	// By default: no configuration at all.
	byDefault := connectClient(t, skillstest.Start(t, skillsd.Options{SkillsDirs: []string{c.skillsDir}}))
	_, text = callTool(t, byDefault, core.ToolReportUsage, map[string]any{"skill_path": "pdf", "useful": false})
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatal(err)
	}
	if !out.Recorded || out.Message != "Feedback recorded for pdf" {
		t.Errorf("report_usage with no configuration = %+v, want recorded (the local store is on by default)", out)
	}

	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("analytics:\n  enabled: true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	cs := connectClient(t, skillstest.Start(t, skillsd.Options{SkillsDirs: []string{c.skillsDir}, ConfigFile: cfg,
		Getenv: func(k string) string { return map[string]string{"SKILLSD_HOME": state}[k] }}))
	if names := usageToolNames(t, cs); !slices.Contains(names, core.ToolReportUsage) {
		t.Fatalf("report_usage not listed with analytics on: %v", names)
	}
	_, text = callTool(t, cs, core.ToolReportUsage, map[string]any{"skill_path": "pdf", "useful": true, "comment": "worked"})
	out = core.ReportUsageOutput{}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		t.Fatal(err)
	}
	if !out.Recorded || out.Message != "Feedback recorded for pdf" {
		t.Errorf("report_usage = %+v", out)
	}
	r, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: core.ToolReportUsage, Arguments: map[string]any{"skill_path": "pdff", "useful": true}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.IsError || !strings.Contains(usageText(r), "pdf") {
		t.Errorf("report_usage of an unknown skill = %v, want a tool error naming pdf", usageText(r))
	}
}

func usageToolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

func usageText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}
