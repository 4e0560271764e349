package skillsd_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// TestConfigEditsWhileServing (issue 18): a typo saved in the config file
// of a running server is reported at once (log, status, diagnostics) while
// the running configuration stays; a valid edit applies log.level at once
// and names the keys that need a restart; going back clears it all.
func TestConfigEditsWhileServing(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: Extract text from PDF files.\n---\n# PDF\n")
	cfgFile := filepath.Join(dir, "config.yaml")
	original := "search:\n  limit: 5\n"
	writeFile(t, cfgFile, original)
	logs, level := &syncBuffer{}, new(slog.LevelVar)
	srv, err := skillsd.New(t.Context(), skillsd.Options{
		SkillsDirs: []string{dir}, Cwd: t.TempDir(), Home: t.TempDir(), NoUsage: true,
		Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), LogLevel: level,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	conn, err := srv.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	cat := skillsv1.NewCatalogServiceClient(conn)
	status := func() *skillsv1.ConfigStatus {
		st, err := cat.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return st.GetConfig()
	}
	if st := status(); st.GetFile() != cfgFile || st.GetError() != "" || len(st.GetRestartNeeded()) != 0 {
		t.Fatalf("at start: %v", st)
	}

	// A typo: refused, reported everywhere, the old configuration stays.
	writeFile(t, cfgFile, "search:\n  limt: 3\n")
	waitUntil(t, "the typo reported in the status", func() bool { return status().GetError() != "" })
	if msg := status().GetError(); !strings.Contains(msg, `"search.limt"`) || !strings.Contains(msg, `did you mean "search.limit"`) || !strings.Contains(msg, ":2:") {
		t.Errorf("status error %q, want the key, its line and the suggestion", msg)
	}
	diags, err := cat.ListDiagnostics(t.Context(), &skillsv1.ListDiagnosticsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var found *skillsv1.Diagnostic
	for _, d := range diags.GetDiagnostics() {
		if d.GetCode() == "config-invalid" {
			found = d
		}
	}
	if found == nil || found.GetSeverity() != skillsv1.Severity_SEVERITY_ERROR || found.GetLine() != 2 || found.GetFile() != cfgFile {
		t.Errorf("config-invalid diagnostic: %v", found)
	}
	if !strings.Contains(logs.String(), "level=ERROR") || !strings.Contains(logs.String(), "the running configuration stays") {
		t.Errorf("no error in the log:\n%s", logs.String())
	}
	if _, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{dir}, Cwd: t.TempDir(), Home: t.TempDir(), NoUsage: true}); err == nil {
		t.Error("a restart with the broken file started: the status said it would fail")
	}

	// A valid edit: log.level applies now, search.limit at the next start.
	writeFile(t, cfgFile, "search:\n  limit: 3\nlog:\n  level: debug\n")
	waitUntil(t, "the valid edit seen", func() bool {
		st := status()
		return st.GetError() == "" && slices.Equal(st.GetRestartNeeded(), []string{"search.limit"})
	})
	if st := status(); !slices.Equal(st.GetApplied(), []string{"log.level"}) || st.GetCheckedAt() == nil {
		t.Errorf("status after a valid edit: %v", st)
	}
	if level.Level() != slog.LevelDebug {
		t.Errorf("log level %v, want debug applied while serving", level.Level())
	}
	diags, err = cat.ListDiagnostics(t.Context(), &skillsv1.ListDiagnosticsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	codes := []string{}
	for _, d := range diags.GetDiagnostics() {
		codes = append(codes, d.GetCode())
		if d.GetCode() == "config-restart-needed" && !strings.Contains(d.GetMessage(), "search.limit") {
			t.Errorf("restart diagnostic %q does not name search.limit", d.GetMessage())
		}
	}
	if slices.Contains(codes, "config-invalid") || !slices.Contains(codes, "config-restart-needed") {
		t.Errorf("diagnostics after a valid edit: %v", codes)
	}

	// Back to the running values: nothing waits for a restart.
	writeFile(t, cfgFile, original+"log:\n  level: debug\n")
	waitUntil(t, "the restart list cleared", func() bool { return len(status().GetRestartNeeded()) == 0 })
}

// TestConfigWatchSeesAReplacedFile: editors save by writing a new file and
// renaming it over the old one.
func TestConfigWatchSeesAReplacedFile(t *testing.T) {
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "skillsd.yaml")
	writeFile(t, cfgFile, "search:\n  limit: 5\n")
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{t.TempDir()}, ConfigFile: cfgFile, Cwd: t.TempDir(), Home: t.TempDir(), NoUsage: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	conn, err := srv.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, ".skillsd.yaml.swp")
	writeFile(t, tmp, "matching:\n  min_score: 7\n")
	if err := os.Rename(tmp, cfgFile); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the replaced file checked", func() bool {
		st, err := skillsv1.NewCatalogServiceClient(conn).GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
		return err == nil && strings.Contains(st.GetConfig().GetError(), "matching.min_score")
	})
}
