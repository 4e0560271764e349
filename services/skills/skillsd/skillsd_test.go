package skillsd_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// examples is the demo catalog of the repository.
func examples(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../../../examples/skills")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("demo catalog missing: %v", err)
	}
	return dir
}

// serveTCP runs a server on a real loopback listener and returns a client conn.
func serveTCP(t *testing.T, opts skillsd.Options) (*grpc.ClientConn, context.CancelFunc, <-chan error) {
	t.Helper()
	opts.Cwd, opts.Home = t.TempDir(), t.TempDir()
	srv, err := skillsd.New(t.Context(), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, lis) }()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn, cancel, done
}

func TestServeOnLoopback(t *testing.T) {
	conn, cancel, done := serveTCP(t, skillsd.Options{SkillsDirs: []string{examples(t)}})
	ctx := t.Context()

	hc, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil || hc.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health: got %v, %v; want SERVING", hc.GetStatus(), err)
	}

	// Reflection lists every service of the contract.
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	for _, want := range []string{"skills.v1.CatalogService", "skills.v1.RoutingService", "skills.v1.FileService", "skills.v1.ScriptService", "skills.v1.UsageService", "skills.v1.ContentService", "grpc.health.v1.Health"} {
		if !strings.Contains(strings.Join(names, " "), want) {
			t.Errorf("reflection: %s missing from %v", want, names)
		}
	}

	cat := skillsv1.NewCatalogServiceClient(conn)
	got, err := cat.GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: "Backend/Go-Service"})
	if err != nil {
		t.Fatalf("GetSkill by case-insensitive name: %v", err)
	}
	if got.GetSkill().GetSkillPath() != "backend/go-service" {
		t.Errorf("GetSkill: got path %q, want backend/go-service", got.GetSkill().GetSkillPath())
	}
	wantChain := []string{"_root", "backend/_index", "backend/go-service"}
	if strings.Join(got.GetInheritanceChain(), ",") != strings.Join(wantChain, ",") {
		t.Errorf("inheritance chain: got %v, want %v", got.GetInheritanceChain(), wantChain)
	}
	if !strings.HasPrefix(got.GetContent(), "=== GLOBAL RULES (from _root.md) ===") {
		t.Errorf("content does not start with the root banner: %.80q", got.GetContent())
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve after cancel: got %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after its context was cancelled")
	}
}

func TestErrors(t *testing.T) {
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{examples(t)}})
	ctx := t.Context()
	cat := skillsv1.NewCatalogServiceClient(conn)

	_, err := cat.GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: "changelogs"})
	st := status.Convert(err)
	if st.Code() != codes.NotFound {
		t.Fatalf("unknown skill: got %v, want NotFound", err)
	}
	var info *errdetails.ErrorInfo
	for _, d := range st.Details() {
		if i, ok := d.(*errdetails.ErrorInfo); ok {
			info = i
		}
	}
	if info == nil || info.GetReason() != "SKILL_NOT_FOUND" || info.GetDomain() != "skillsd" {
		t.Fatalf("unknown skill: ErrorInfo %v, want reason SKILL_NOT_FOUND in domain skillsd", info)
	}
	if !strings.Contains(info.GetMetadata()["suggestions"], "changelog") || !strings.Contains(st.Message(), "changelog") {
		t.Errorf("unknown skill: suggestions %q / message %q should name changelog", info.GetMetadata()["suggestions"], st.Message())
	}

	for _, tc := range []struct {
		name string
		call func() error
		want codes.Code
	}{
		{"empty skill path", func() error { _, err := cat.GetSkill(ctx, &skillsv1.GetSkillRequest{}); return err }, codes.InvalidArgument},
		{"negative page size", func() error {
			_, err := cat.ListSkills(ctx, &skillsv1.ListSkillsRequest{PageSize: -1})
			return err
		}, codes.InvalidArgument},
		{"forged page token", func() error {
			_, err := cat.ListSkills(ctx, &skillsv1.ListSkillsRequest{PageToken: "not-a-token"})
			return err
		}, codes.InvalidArgument},
		{"search without a query", func() error {
			_, err := skillsv1.NewRoutingServiceClient(conn).SearchSkills(ctx, &skillsv1.SearchSkillsRequest{Query: " "})
			return err
		}, codes.InvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := status.Code(tc.call()); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestPaging(t *testing.T) {
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{examples(t)}})
	cat := skillsv1.NewCatalogServiceClient(conn)
	all, err := cat.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if all.GetTotalSize() != int32(len(all.GetSkills())) || len(all.GetSkills()) < 10 || all.GetNextPageToken() != "" {
		t.Fatalf("one page: got %d skills of %d, token %q", len(all.GetSkills()), all.GetTotalSize(), all.GetNextPageToken())
	}
	var paged []string
	tok := ""
	for i := 0; ; i++ {
		if i > 100 {
			t.Fatal("paging does not end")
		}
		page, err := cat.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{PageSize: 3, PageToken: tok})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.GetSkills()) > 3 || page.GetTotalSize() != all.GetTotalSize() {
			t.Fatalf("page %d: %d skills, total %d", i, len(page.GetSkills()), page.GetTotalSize())
		}
		for _, s := range page.GetSkills() {
			paged = append(paged, s.GetSkillPath())
		}
		if tok = page.GetNextPageToken(); tok == "" {
			break
		}
	}
	var want []string
	for _, s := range all.GetSkills() {
		want = append(want, s.GetSkillPath())
	}
	if strings.Join(paged, ",") != strings.Join(want, ",") {
		t.Errorf("paged listing: got %v, want %v", paged, want)
	}
}

func TestFilters(t *testing.T) {
	conn := skillstest.Start(t, skillsd.Options{
		SkillsDirs: []string{examples(t)},
		Getenv: func(k string) string {
			if k == "SKILLHUB_ENABLED_SKILLS" {
				return "changelog, backend/go-service"
			}
			return ""
		},
	})
	cat := skillsv1.NewCatalogServiceClient(conn)
	list, err := cat.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, s := range list.GetSkills() {
		paths = append(paths, s.GetSkillPath())
	}
	if strings.Join(paths, ",") != "backend/go-service,changelog" {
		t.Errorf("enabled subset: got %v, want [backend/go-service changelog]", paths)
	}
	_, err = cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "pdf-report"})
	st := status.Convert(err)
	if st.Code() != codes.PermissionDenied || !strings.Contains(st.Message(), "disabled") {
		t.Errorf("disabled skill: got %v, want PermissionDenied naming it disabled", err)
	}
}

func TestAuth(t *testing.T) {
	conn, _, _ := serveTCP(t, skillsd.Options{SkillsDirs: []string{examples(t)}, AuthTokens: []string{"s3cret"}})
	cat := skillsv1.NewCatalogServiceClient(conn)
	for _, tc := range []struct {
		name, header string
		want         codes.Code
	}{
		{"no token", "", codes.Unauthenticated},
		{"wrong token", "Bearer nope", codes.Unauthenticated},
		{"wrong scheme", "Basic s3cret", codes.Unauthenticated},
		{"right token", "Bearer s3cret", codes.OK},
		{"scheme is case-insensitive", "bearer s3cret", codes.OK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			if tc.header != "" {
				ctx = metadata.AppendToOutgoingContext(ctx, "authorization", tc.header)
			}
			_, err := cat.GetCatalogStatus(ctx, &skillsv1.GetCatalogStatusRequest{})
			if got := status.Code(err); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	// Health answers without credentials.
	if _, err := healthpb.NewHealthClient(conn).Check(t.Context(), &healthpb.HealthCheckRequest{}); err != nil {
		t.Errorf("health without token: %v", err)
	}
}

func TestMissingSourceStillStarts(t *testing.T) {
	conn := skillstest.Start(t, skillsd.Options{SkillsDirs: []string{filepath.Join(t.TempDir(), "nope")}})
	st, err := skillsv1.NewCatalogServiceClient(conn).GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if st.GetSkillCount() != 0 || st.GetGeneration() < 1 {
		t.Errorf("status: got %d skills at generation %d, want 0 skills at generation >= 1", st.GetSkillCount(), st.GetGeneration())
	}
	diags, err := skillsv1.NewCatalogServiceClient(conn).ListDiagnostics(t.Context(), &skillsv1.ListDiagnosticsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(diags.GetDiagnostics()) == 0 {
		t.Error("a missing source folder should be reported as a diagnostic")
	}
}

func TestInvalidConfigNamesTheKey(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("matching:\n  min_score: 7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := skillsd.New(t.Context(), skillsd.Options{SkillsDirs: []string{dir}, Cwd: dir, Home: dir})
	if err == nil || !strings.Contains(err.Error(), "min_score") {
		t.Fatalf("got %v, want an error naming matching.min_score", err)
	}
}
