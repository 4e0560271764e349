package skillsd_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/scan"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// TestScanCacheWrittenOnClose checks that the scan of a skill edited just
// before Close is in the scan cache file once Close returns: a build
// schedules the file's write for later (at most one every few seconds),
// and Close makes it at once rather than waiting for it or dropping it.
func TestScanCacheWrittenOnClose(t *testing.T) {
	dir, state := t.TempDir(), t.TempDir()
	file := filepath.Join(dir, "pdf", "SKILL.md")
	writeFile(t, file, skillstest.SkillMD("pdf", "reading PDF documents"))
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{dir}, Cwd: t.TempDir(), Home: t.TempDir(),
		NoWatch: true, NoUsage: true, Getenv: env(map[string]string{"SKILLSD_HOME": state})})
	if err != nil {
		t.Fatal(err)
	}
	conn, err := srv.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, file, skillstest.SkillMD("pdf", "reading and merging PDF documents"))
	if _, err := skillsv1.NewCatalogServiceClient(conn).RefreshSkills(t.Context(), &skillsv1.RefreshSkillsRequest{}); err != nil {
		t.Fatal(err)
	}
	sk := skillsd.Catalog(srv).Get("pdf")
	if sk == nil || sk.Description != "reading and merging PDF documents" || sk.Digest == "" {
		t.Fatalf("after the refresh: %+v, want the edited pdf with a digest", sk)
	}
	start := time.Now()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 4*time.Second {
		t.Errorf("Close took %v: it waited for the scheduled write", took)
	}
	data, err := os.ReadFile(filepath.Join(state, scan.CacheFileName()))
	if err != nil {
		t.Fatalf("no scan cache after Close: %v", err)
	}
	if !bytes.Contains(data, []byte(sk.Digest)) {
		t.Errorf("the scan cache does not hold the edited skill's scan (%s)", sk.Digest)
	}
}
