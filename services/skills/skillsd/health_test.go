package skillsd_test

import (
	"testing"

	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/skillsd/skillsd/services/skills/healthz"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// TestHealthNamesEveryService: the standard health check answers for the
// overall server, for liveness and for the name of every skills.v1 service
// (issue 18: skills.v1.CatalogService answered NotFound); an unknown name
// is still NotFound.
func TestHealthNamesEveryService(t *testing.T) {
	srv, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{examples(t)}, Cwd: t.TempDir(), Home: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	conn, err := srv.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	health := healthpb.NewHealthClient(conn)
	names := []string{"", healthz.LivenessService,
		"skills.v1.CatalogService", "skills.v1.RoutingService", "skills.v1.FileService",
		"skills.v1.ScriptService", "skills.v1.UsageService", "skills.v1.ContentService"}
	for _, name := range names {
		resp, err := health.Check(t.Context(), &healthpb.HealthCheckRequest{Service: name})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health of %q: %v, %v; want SERVING", name, resp.GetStatus(), err)
		}
	}
	if _, err := health.Check(t.Context(), &healthpb.HealthCheckRequest{Service: "skills.v1.NoSuchService"}); err == nil {
		t.Error("health of an unknown service answered; want NotFound")
	}
}
