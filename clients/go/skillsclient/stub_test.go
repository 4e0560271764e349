package skillsclient

import (
	"context"
	"net"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// stubCatalog is a CatalogService whose methods are function fields; a nil
// field answers codes.Unimplemented.
type stubCatalog struct {
	skillsv1.UnimplementedCatalogServiceServer
	listSkills func(context.Context, *skillsv1.ListSkillsRequest) (*skillsv1.ListSkillsResponse, error)
	getSkill   func(context.Context, *skillsv1.GetSkillRequest) (*skillsv1.GetSkillResponse, error)
	watch      func(*skillsv1.WatchCatalogRequest, grpc.ServerStreamingServer[skillsv1.WatchCatalogResponse]) error
}

func (s *stubCatalog) ListSkills(ctx context.Context, r *skillsv1.ListSkillsRequest) (*skillsv1.ListSkillsResponse, error) {
	if s.listSkills == nil {
		return s.UnimplementedCatalogServiceServer.ListSkills(ctx, r)
	}
	return s.listSkills(ctx, r)
}

func (s *stubCatalog) GetSkill(ctx context.Context, r *skillsv1.GetSkillRequest) (*skillsv1.GetSkillResponse, error) {
	if s.getSkill == nil {
		return s.UnimplementedCatalogServiceServer.GetSkill(ctx, r)
	}
	return s.getSkill(ctx, r)
}

func (s *stubCatalog) WatchCatalog(r *skillsv1.WatchCatalogRequest, st grpc.ServerStreamingServer[skillsv1.WatchCatalogResponse]) error {
	if s.watch == nil {
		return s.UnimplementedCatalogServiceServer.WatchCatalog(r, st)
	}
	return s.watch(r, st)
}

// stubFiles is a FileService whose ReadSkillFile is a function field.
type stubFiles struct {
	skillsv1.UnimplementedFileServiceServer
	read func(context.Context, *skillsv1.ReadSkillFileRequest) (*skillsv1.ReadSkillFileResponse, error)
}

func (s *stubFiles) ReadSkillFile(ctx context.Context, r *skillsv1.ReadSkillFileRequest) (*skillsv1.ReadSkillFileResponse, error) {
	if s.read == nil {
		return s.UnimplementedFileServiceServer.ReadSkillFile(ctx, r)
	}
	return s.read(ctx, r)
}

// startStub serves the stubs (and Unimplemented for every other service) over
// an in-memory connection and returns a client on it.
func startStub(t *testing.T, catalog *stubCatalog, files *stubFiles) *Client {
	t.Helper()
	if catalog == nil {
		catalog = &stubCatalog{}
	}
	if files == nil {
		files = &stubFiles{}
	}
	lis := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	skillsv1.RegisterCatalogServiceServer(srv, catalog)
	skillsv1.RegisterFileServiceServer(srv, files)
	go func() { _ = srv.Serve(lis) }()
	t.Cleanup(srv.Stop)

	conn, err := grpc.NewClient("passthrough:///bufconn",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return New(conn)
}
