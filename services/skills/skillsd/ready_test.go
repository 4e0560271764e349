package skillsd_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// TestNotServingWhileFirstCloneRuns: the first start with a git source opens
// its port at once: health NOT_SERVING and every RPC UNAVAILABLE saying the
// catalog is loading (cloning …) — not an empty catalog — until the clone is
// done; then SERVING with the repository's skills.
func TestNotServingWhileFirstCloneRuns(t *testing.T) {
	repo := skillstest.NewGitRepo(t)
	repo.Commit("one", map[string]string{"skills/pdf/SKILL.md": skillstest.SkillMD("pdf", "PDF forms")})
	url, release := skillstest.ServeGitGated(t, repo)
	env := gitEnv(t.TempDir(), map[string]string{"SKILLS_REPO": url, "SKILLS_BRANCH": "main"})

	type made struct {
		srv *skillsd.Server
		err error
	}
	done := make(chan made, 1)
	go func() {
		srv, err := skillsd.New(t.Context(), skillsd.Options{Getenv: env, Cwd: t.TempDir(), Home: t.TempDir()})
		done <- made{srv, err}
	}()
	var srv *skillsd.Server
	select {
	case m := <-done:
		if m.err != nil {
			t.Fatal(m.err)
		}
		srv = m.srv
	case <-time.After(20 * time.Second): // a hang, not a speed check: the clone waits for release
		release()
		t.Fatal("New waited for the first clone: the port stays closed until it is done")
	}
	t.Cleanup(func() { _ = srv.Close() })
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(t.Context(), lis) }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	health := healthpb.NewHealthClient(conn)
	cat := skillsv1.NewCatalogServiceClient(conn)

	hc, err := health.Check(t.Context(), &healthpb.HealthCheckRequest{})
	if err != nil || hc.GetStatus() != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("health during the first clone: %v, %v; want NOT_SERVING", hc.GetStatus(), err)
	}
	_, err = cat.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{})
	st := status.Convert(err)
	if st.Code() != codes.Unavailable || !strings.Contains(st.Message(), "catalog is loading (cloning "+url) {
		t.Fatalf("ListSkills during the first clone: %v; want UNAVAILABLE saying the catalog is loading", err)
	}
	reason := ""
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok {
			reason = info.GetReason()
		}
	}
	if reason != "CATALOG_LOADING" {
		t.Errorf("reason %q; want CATALOG_LOADING", reason)
	}
	// A watcher may subscribe now (generation 0: no catalog yet) and hears
	// the catalog come.
	stream, err := cat.WatchCatalog(t.Context(), &skillsv1.WatchCatalogRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if first, err := stream.Recv(); err != nil || !first.GetInitial() || first.GetGeneration() != 0 {
		t.Fatalf("watch during the first clone: %v, %v; want the initial message at generation 0", first, err)
	}

	release()
	if err := srv.WaitReady(t.Context()); err != nil {
		t.Fatal(err)
	}
	hc, err = health.Check(t.Context(), &healthpb.HealthCheckRequest{})
	if err != nil || hc.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health after the clone: %v, %v; want SERVING", hc.GetStatus(), err)
	}
	if _, err := cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf"}); err != nil {
		t.Errorf("GetSkill(pdf) after the clone: %v", err)
	}
	if m, err := stream.Recv(); err != nil || m.GetGeneration() != 1 || strings.Join(m.GetAdded(), ",") != "pdf" {
		t.Errorf("watch: first change %v, %v; want generation 1 adding pdf", m, err)
	}
}

// TestLoadInBackground: with LoadInBackground, New returns before the first
// catalog is built (held here with LoadAfter); until it is, readiness is NOT_SERVING, RPCs answer
// UNAVAILABLE (CATALOG_LOADING), WaitScanned holds its caller, and a metrics
// scrape answers without the catalog's gauges (it used to fail on the
// catalog not yet there); once loaded, all of it serves the catalog.
func TestLoadInBackground(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "pdf"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "pdf", "SKILL.md"), []byte(skillstest.SkillMD("pdf", "PDF forms")), 0o644); err != nil {
		t.Fatal(err)
	}
	gate := make(chan struct{})
	reg := prometheus.NewRegistry()
	opts := skillsd.Options{SkillsDirs: []string{dir}, Cwd: t.TempDir(), Home: t.TempDir(), NoWatch: true, LoadInBackground: true, LoadAfter: gate, Metrics: reg}
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
		t.Errorf("readiness while loading: %v, want NOT_SERVING", st)
	}
	_, err = cat.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{})
	if status.Code(err) != codes.Unavailable || errorReason(err) != "CATALOG_LOADING" {
		t.Errorf("ListSkills while loading: %v (reason %q); want UNAVAILABLE CATALOG_LOADING", err, errorReason(err))
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	if err := srv.WaitScanned(ctx); err == nil {
		t.Error("WaitScanned returned while the catalog was loading")
	}
	cancel()
	families, err := reg.Gather()
	if err != nil {
		t.Errorf("metrics while loading: %v", err)
	}
	for _, f := range families {
		if strings.HasPrefix(f.GetName(), "skillsd_catalog_") {
			t.Errorf("metrics while loading report %s", f.GetName())
		}
	}

	close(gate)
	if err := srv.WaitScanned(t.Context()); err != nil {
		t.Fatalf("WaitScanned: %v", err)
	}
	if st := healthOf(t, health, ""); st != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("readiness once loaded: %v, want SERVING", st)
	}
	res, err := cat.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{})
	if err != nil || len(res.GetSkills()) != 1 {
		t.Fatalf("ListSkills once loaded: %v, %v; want the one skill", res, err)
	}
	families, err = reg.Gather()
	if err != nil {
		t.Fatalf("metrics once loaded: %v", err)
	}
	if !slices.ContainsFunc(families, func(f *dto.MetricFamily) bool { return f.GetName() == "skillsd_catalog_skills" }) {
		t.Error("metrics once loaded have no skillsd_catalog_skills")
	}
}
