package skillsd_test

import (
	"net"
	"strings"
	"testing"
	"time"

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
