package skillsd_test

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// env is a Getenv of the given variables only.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// writeConfig writes a config.yaml holding text and returns its path.
func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestUsageLocalByDefault: with no analytics setting at all, feedback is
// recorded in the local store under SKILLSD_HOME and GetUsageStats answers
// from it (issue 17); analytics.enabled: false turns everything off, and
// then the answer is the honest recorded: false; so does Options.NoUsage.
func TestUsageLocalByDefault(t *testing.T) {
	home := t.TempDir()
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{examples(t)}, NoWatch: true,
		Getenv: env(map[string]string{"SKILLSD_HOME": home})})
	u := skillsv1.NewUsageServiceClient(conn)
	resp, err := u.ReportUsage(t.Context(), &skillsv1.ReportUsageRequest{SkillPath: "changelog", Useful: true, Comment: "clear steps"})
	if err != nil {
		t.Fatal(err)
	}
	if !resp.GetRecorded() || resp.GetMessage() != "Feedback recorded for changelog" {
		t.Fatalf("ReportUsage by default = %v; want recorded", resp)
	}
	if _, err := os.Stat(filepath.Join(home, "analytics", "usage.db")); err != nil {
		t.Errorf("no local store under SKILLSD_HOME: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := u.GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{SkillPath: "changelog"})
		if err != nil {
			t.Fatalf("GetUsageStats by default: %v", err)
		}
		if len(st.GetSkills()) == 1 && st.GetSkills()[0].GetUseful() == 1 {
			if c := st.GetSkills()[0].GetRecentComments(); len(c) != 1 || c[0] != "clear steps" {
				t.Errorf("recent comments %v", c)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GetUsageStats 5 s after the feedback: %v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}

	offHome := t.TempDir()
	off := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{examples(t)}, NoWatch: true,
		ConfigFile: writeConfig(t, "analytics:\n  enabled: false\n"),
		Getenv:     env(map[string]string{"SKILLSD_HOME": offHome})})
	uo := skillsv1.NewUsageServiceClient(off)
	resp, err = uo.ReportUsage(t.Context(), &skillsv1.ReportUsageRequest{SkillPath: "changelog", Useful: true})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetRecorded() || !strings.Contains(resp.GetMessage(), "analytics is off") {
		t.Errorf("ReportUsage with analytics.enabled: false = %v; want recorded false and why", resp)
	}
	if _, err := uo.GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{}); status.Code(err) != codes.FailedPrecondition {
		t.Errorf("GetUsageStats with analytics off: %v, want FailedPrecondition", err)
	}
	if _, err := os.Stat(filepath.Join(offHome, "analytics")); !os.IsNotExist(err) {
		t.Errorf("analytics off, yet its folder exists (%v)", err)
	}

	// A one-shot tool (the skills CLI) records nothing, whatever the config.
	cliHome := t.TempDir()
	cli := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{examples(t)}, NoWatch: true, NoUsage: true,
		Getenv: env(map[string]string{"SKILLSD_HOME": cliHome})})
	resp, err = skillsv1.NewUsageServiceClient(cli).ReportUsage(t.Context(), &skillsv1.ReportUsageRequest{SkillPath: "changelog", Useful: true})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetRecorded() {
		t.Errorf("ReportUsage with NoUsage = %v; want recorded false", resp)
	}
	if _, err := os.Stat(filepath.Join(cliHome, "analytics")); !os.IsNotExist(err) {
		t.Errorf("NoUsage, yet the analytics folder exists (%v)", err)
	}
}

// TestUsageStoreUnavailable: a local store that cannot be opened (the state
// folder is a file) costs analytics, not the server, when nothing asked for
// forwarding; with an endpoint set, start-up stops with a message naming the
// fix.
func TestUsageStoreUnavailable(t *testing.T) {
	notDir := filepath.Join(t.TempDir(), "home")
	if err := os.WriteFile(notDir, []byte("a file"), 0o644); err != nil {
		t.Fatal(err)
	}
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{examples(t)}, NoWatch: true,
		Getenv: env(map[string]string{"SKILLSD_HOME": notDir})})
	resp, err := skillsv1.NewUsageServiceClient(conn).ReportUsage(t.Context(), &skillsv1.ReportUsageRequest{SkillPath: "changelog", Useful: true})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GetRecorded() {
		t.Errorf("ReportUsage with no usable store = %v; want recorded false", resp)
	}

	_, err = skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{examples(t)}, NoWatch: true, Cwd: t.TempDir(), Home: t.TempDir(),
		Logger: slog.New(slog.DiscardHandler),
		Getenv: env(map[string]string{"SKILLSD_HOME": notDir, "ANALYTICS_ENDPOINT": "http://127.0.0.1:1/events"})})
	if err == nil || !strings.Contains(err.Error(), "SKILLSD_HOME") {
		t.Errorf("New with an endpoint and no usable spool: %v; want an error naming SKILLSD_HOME", err)
	}
}

// TestUsageAfter: with Options.UsageAfter, the local store is not opened in
// New (a start opens no database before its first answers), feedback is
// still recorded, and the store opens and holds it once UsageAfter is
// closed. A usage store that then does not open turns analytics off: the
// answers say so, as when it does not open at start.
func TestUsageAfter(t *testing.T) {
	home := t.TempDir()
	after := make(chan struct{})
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{examples(t)}, NoWatch: true, UsageAfter: after,
		Getenv: env(map[string]string{"SKILLSD_HOME": home})})
	u := skillsv1.NewUsageServiceClient(conn)
	resp, err := u.ReportUsage(t.Context(), &skillsv1.ReportUsageRequest{SkillPath: "changelog", Useful: true})
	if err != nil || !resp.GetRecorded() {
		t.Fatalf("ReportUsage before UsageAfter = %v, %v; want recorded", resp, err)
	}
	db := filepath.Join(home, "analytics", "usage.db")
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("the usage store exists before UsageAfter (%v)", err)
	}
	close(after)
	deadline := time.Now().Add(5 * time.Second)
	for {
		st, err := u.GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{SkillPath: "changelog"})
		if err != nil {
			t.Fatal(err)
		}
		if len(st.GetSkills()) == 1 && st.GetSkills()[0].GetUseful() == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GetUsageStats 5 s after UsageAfter: %v", st)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := os.Stat(db); err != nil {
		t.Errorf("no usage store after UsageAfter: %v", err)
	}

	// A store that cannot be opened (usage.db is a folder).
	broken := t.TempDir()
	if err := os.MkdirAll(filepath.Join(broken, "analytics", "usage.db", "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	bad := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{examples(t)}, NoWatch: true, UsageAfter: make(chan struct{}),
		Getenv: env(map[string]string{"SKILLSD_HOME": broken})})
	ub := skillsv1.NewUsageServiceClient(bad)
	_, err = ub.GetUsageStats(t.Context(), &skillsv1.GetUsageStatsRequest{}) // needs the store: opens it now
	if status.Code(err) != codes.FailedPrecondition || !strings.Contains(err.Error(), "analytics is off") {
		t.Errorf("GetUsageStats with a store that does not open = %v; want FailedPrecondition, analytics is off", err)
	}
	resp, err = ub.ReportUsage(t.Context(), &skillsv1.ReportUsageRequest{SkillPath: "changelog", Useful: true})
	if err != nil || resp.GetRecorded() {
		t.Errorf("ReportUsage with a store that did not open = %v, %v; want recorded false", resp, err)
	}
}
