package skillsd_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/healthz"
	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// cleanSkills is how many clean skills the tests of the background scan
// write: more than a build scans itself.
const cleanSkills = catalog.DeferScanSkills + 4

// writeCatalog writes cleanSkills clean skills ("topic-NN", about "widget
// NN") and one malicious one ("cleaner") under a new folder; big, when not
// 0, adds a text file of about that many bytes to each clean skill.
func writeCatalog(t *testing.T, big int) string {
	t.Helper()
	root := t.TempDir()
	for i := range cleanSkills {
		name := fmt.Sprintf("topic-%02d", i)
		writeFile(t, filepath.Join(root, name, "SKILL.md"), skillstest.SkillMD(name, fmt.Sprintf("polishing widget%02d surfaces", i)))
		if big > 0 {
			var b strings.Builder
			for j := 0; b.Len() < big; j++ {
				fmt.Fprintf(&b, "Step %d of %s: read the widget's settings, compare them with the reference and write down what differs (%x).\n", j, name, j*7919)
			}
			writeFile(t, filepath.Join(root, name, "references", "guide.md"), b.String())
		}
	}
	writeFile(t, filepath.Join(root, "cleaner", "clean.sh"), cleanerScript)
	writeFile(t, filepath.Join(root, "cleaner", "SKILL.md"), skillstest.SkillMD("cleaner", "freeing disk space by cleaning caches"))
	return root
}

func healthOf(t *testing.T, h healthpb.HealthClient, service string) healthpb.HealthCheckResponse_ServingStatus {
	t.Helper()
	resp, err := h.Check(t.Context(), &healthpb.HealthCheckRequest{Service: service})
	if err != nil {
		t.Fatalf("health of %q: %v", service, err)
	}
	return resp.GetStatus()
}

func listed(t *testing.T, cat skillsv1.CatalogServiceClient) map[string]bool {
	t.Helper()
	res, err := cat.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{PageSize: 1000})
	if err != nil {
		t.Fatalf("ListSkills: %v", err)
	}
	out := map[string]bool{}
	for _, sk := range res.GetSkills() {
		out[sk.GetSkillPath()] = true
	}
	return out
}

// TestFirstScanInBackground: a first start over more skills than a build
// scans itself serves at once, but none of those skills — not listed,
// searched or loaded (UNAVAILABLE, "waiting for its first security scan"),
// no quarantine reported — and reports NOT_SERVING (readiness) while
// liveness is SERVING; once the background scan is done, it is ready, the
// clean skills are served and the malicious one is quarantined.
func TestFirstScanInBackground(t *testing.T) {
	root := writeCatalog(t, 0)
	gate := make(chan struct{})
	opts := skillsd.Options{SkillsDirs: []string{root}, Cwd: t.TempDir(), Home: t.TempDir(), NoWatch: true}
	skillsd.GateScans(&opts, gate)
	srv, err := skillsd.New(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	conn, err := srv.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	health := healthpb.NewHealthClient(conn)
	cat := skillsv1.NewCatalogServiceClient(conn)

	if st := healthOf(t, health, ""); st != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Errorf("readiness before the first scan: %v, want NOT_SERVING", st)
	}
	if st := healthOf(t, health, healthz.LivenessService); st != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("liveness before the first scan: %v, want SERVING", st)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	if err := srv.WaitReady(ctx); err == nil {
		t.Error("WaitReady returned before the first scan")
	}
	cancel()
	if got := listed(t, cat); len(got) != 0 {
		t.Errorf("listed before their first scan: %v", got)
	}
	for _, path := range []string{"topic-03", "cleaner"} {
		p := look(t, conn, path, strings.ReplaceAll(path, "-", " "))
		if p.searched || p.loaded || p.refused || p.listed {
			t.Errorf("%s before its first scan: %+v; want neither served nor quarantined", path, p)
		}
	}
	_, err = cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "topic-03"})
	if st := status.Convert(err); st.Code() != codes.Unavailable || !strings.Contains(st.Message(), "waiting for its first security scan") ||
		errorReason(err) != "CATALOG_LOADING" {
		t.Errorf("GetSkill before the first scan: %v (reason %q); want UNAVAILABLE CATALOG_LOADING saying it waits for its scan", err, errorReason(err))
	}
	_, err = skillsv1.NewFileServiceClient(conn).ReadSkillFile(t.Context(), &skillsv1.ReadSkillFileRequest{SkillPath: "topic-03", File: "SKILL.md"})
	if status.Code(err) != codes.Unavailable {
		t.Errorf("ReadSkillFile before the first scan: %v; want UNAVAILABLE", err)
	}
	m, err := skillsv1.NewRoutingServiceClient(conn).MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: "polishing widget03 surfaces"})
	if err != nil {
		t.Fatalf("MatchSkill: %v", err)
	}
	if m.GetSkillPath() != "" || m.GetContent() != "" {
		t.Errorf("MatchSkill before the first scan matched %q", m.GetSkillPath())
	}
	d, err := cat.ListDiagnostics(t.Context(), &skillsv1.ListDiagnosticsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var pending []string
	for _, diag := range d.GetDiagnostics() {
		if diag.GetCode() == catalog.CodeScanPending {
			pending = append(pending, diag.GetMessage())
		}
	}
	if len(pending) != 1 || !strings.Contains(pending[0], fmt.Sprintf("%d skills wait for their first security scan", cleanSkills+1)) {
		t.Errorf("scan-pending diagnostics: %q", pending)
	}
	securityStatus := func() *skillsv1.SecurityStatus {
		t.Helper()
		st, err := cat.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return st.GetSecurity()
	}
	if sec := securityStatus(); sec.GetPendingCount() != int32(cleanSkills+1) || sec.GetQuarantinedCount() != 0 {
		t.Errorf("status before the first scan: %d pending, %d quarantined; want %d pending, none quarantined", sec.GetPendingCount(), sec.GetQuarantinedCount(), cleanSkills+1)
	}

	close(gate)
	if err := srv.WaitReady(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := healthOf(t, health, ""); st != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("readiness after the first scan: %v, want SERVING", st)
	}
	if st := healthOf(t, health, "skills.v1.CatalogService"); st != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("readiness of CatalogService after the first scan: %v, want SERVING", st)
	}
	if sec := securityStatus(); sec.GetPendingCount() != 0 || sec.GetQuarantinedCount() != 1 {
		t.Errorf("status after the first scan: %d pending, %d quarantined; want none pending, the cleaner quarantined", sec.GetPendingCount(), sec.GetQuarantinedCount())
	}
	got := listed(t, cat)
	if len(got) != cleanSkills || got["cleaner"] {
		t.Errorf("listed after the first scan: %d skills (cleaner %v), want the %d clean ones", len(got), got["cleaner"], cleanSkills)
	}
	if p := look(t, conn, "topic-03", "polishing widget03 surfaces"); !p.searched || !p.loaded {
		t.Errorf("topic-03 after the first scan: %+v; want searched and loaded", p)
	}
	if _, err := skillsv1.NewFileServiceClient(conn).ReadSkillFile(t.Context(), &skillsv1.ReadSkillFileRequest{SkillPath: "topic-03", File: "SKILL.md"}); err != nil {
		t.Errorf("ReadSkillFile after the first scan: %v", err)
	}
	m, err = skillsv1.NewRoutingServiceClient(conn).MatchSkill(t.Context(), &skillsv1.MatchSkillRequest{Context: "polishing widget03 surfaces"})
	if err != nil || m.GetSkillPath() != "topic-03" {
		t.Errorf("MatchSkill after the first scan: %q, %v; want topic-03", m.GetSkillPath(), err)
	}
	if p := look(t, conn, "cleaner", "freeing disk space cleaning caches"); p.searched || p.loaded || !p.refused || !p.listed {
		t.Errorf("cleaner after the first scan: %+v; want refused as quarantined and listed so", p)
	}
}

// TestEditScannedInBuild: on a warm server, an edited skill is scanned in
// the rebuild the watcher triggers: it never leaves search, and its new
// content is served.
func TestEditScannedInBuild(t *testing.T) {
	root := writeCatalog(t, 0)
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{root}, WatchDebounce: 50 * time.Millisecond})
	routing := skillsv1.NewRoutingServiceClient(conn)
	cat := skillsv1.NewCatalogServiceClient(conn)
	if p := look(t, conn, "topic-05", "polishing widget05 surfaces"); !p.searched || !p.loaded {
		t.Fatalf("topic-05 on the warm server: %+v", p)
	}

	var misses, searches atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			res, err := routing.SearchSkills(t.Context(), &skillsv1.SearchSkillsRequest{Query: "polishing widget05 surfaces", Limit: 5})
			searches.Add(1)
			found := false
			for _, h := range res.GetResults() {
				found = found || h.GetSkillPath() == "topic-05"
			}
			if err != nil || !found {
				misses.Add(1)
			}
			time.Sleep(2 * time.Millisecond)
		}
	})
	for i := range 3 {
		writeFile(t, filepath.Join(root, "topic-05", "SKILL.md"),
			skillstest.SkillMD("topic-05", fmt.Sprintf("polishing widget05 surfaces, edit %d", i)))
		eventually(t, "the edit served", func() string {
			sk, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "topic-05"})
			if err != nil {
				return err.Error()
			}
			if want := fmt.Sprintf("edit %d", i); !strings.Contains(sk.GetSkill().GetDescription(), want) {
				return "description " + sk.GetSkill().GetDescription() + ", want " + want
			}
			return ""
		})
	}
	close(stop)
	wg.Wait()
	if n := misses.Load(); n > 0 {
		t.Errorf("topic-05 left search %d times in %d searches across its edits", n, searches.Load())
	}
}

// TestStopDuringFirstScan: closing the server while the background scan
// runs returns promptly and leaves no scan behind.
func TestStopDuringFirstScan(t *testing.T) {
	root := writeCatalog(t, 2<<20-4096) // about 40 MB to scan: seconds of CPU
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{root}, Cwd: t.TempDir(), Home: t.TempDir(), NoWatch: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 150*time.Millisecond)
	defer cancel()
	if err := srv.WaitReady(ctx); err == nil {
		_ = srv.Close()
		t.Skip("the first scan was done before the server could be closed during it")
	}
	start := time.Now()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("Close during the first scan took %v", took)
	if took > 2*time.Second {
		t.Errorf("Close during the first scan took %v; want it to stop the scan, not wait for it", took)
	}
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	for _, fn := range []string{"skillsd.(*Server).scanLoop", "catalog.ScanPending"} {
		if strings.Contains(stacks, fn) {
			t.Errorf("%s still runs after Close", fn)
		}
	}
}

// TestScanWorkers: the first scan, which readiness and an MCP host's first
// catalog request wait for, runs on every core; a later one (an edit, a
// sync bringing new skills) leaves serving a core, and still runs on one.
func TestScanWorkers(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct{ procs, first, later int }{
		{1, 1, 1},
		{2, 2, 1},
		{8, 8, 7},
	} {
		runtime.GOMAXPROCS(tc.procs)
		if got := skillsd.ScanWorkers(true); got != tc.first {
			t.Errorf("GOMAXPROCS %d: the first scan runs %d workers, want %d", tc.procs, got, tc.first)
		}
		if got := skillsd.ScanWorkers(false); got != tc.later {
			t.Errorf("GOMAXPROCS %d: a later scan runs %d workers, want %d", tc.procs, got, tc.later)
		}
	}
}
