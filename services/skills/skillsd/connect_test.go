package skillsd_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
	"github.com/skillsd/skillsd/services/skills/skillstest"
)

// connectCatalog starts a server on n skills, each with a companion file,
// and waits for their first scan.
func connectCatalog(tb testing.TB, n int) *skillsd.Server {
	tb.Helper()
	dir := tb.TempDir()
	topics := []string{"pdf tables", "docker compose files", "pull request reviews", "slide decks", "csv analysis with pandas", "failing unit tests", "charts", "release notes", "postgres queries", "document translation"}
	for i := range n {
		name := fmt.Sprintf("skill-%03d", i)
		topic := topics[i%len(topics)]
		writeFile(tb, filepath.Join(dir, name, "SKILL.md"), skillstest.SkillMD(name, "Works with "+topic+" (variant "+name+"). Use it when the task is about "+topic+"."))
		writeFile(tb, filepath.Join(dir, name, "reference.md"), "# "+topic+"\n\n"+strings.Repeat("Step by step notes on "+topic+". ", 20))
	}
	srv, err := skillsd.New(tb.Context(), skillsd.Options{SkillsDirs: []string{dir}, Cwd: tb.TempDir(), Home: tb.TempDir(), NoWatch: true})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = srv.Close() })
	if err := srv.WaitScanned(tb.Context()); err != nil {
		tb.Fatal(err)
	}
	return srv
}

// TestConnectTrustedAnswersAsDialTrusted: a call in process answers what the
// same call over DialTrusted's connection answers, for every unary service
// and for errors (their code and message), and streams work.
func TestConnectTrustedAnswersAsDialTrusted(t *testing.T) {
	srv := connectCatalog(t, 30)
	remote, err := srv.DialTrusted(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	local, err := srv.ConnectTrusted(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	type call struct {
		name string
		do   func(ctx context.Context, cc grpc.ClientConnInterface) (proto.Message, error)
	}
	cat := func(cc grpc.ClientConnInterface) skillsv1.CatalogServiceClient {
		return skillsv1.NewCatalogServiceClient(cc)
	}
	route := func(cc grpc.ClientConnInterface) skillsv1.RoutingServiceClient {
		return skillsv1.NewRoutingServiceClient(cc)
	}
	files := func(cc grpc.ClientConnInterface) skillsv1.FileServiceClient { return skillsv1.NewFileServiceClient(cc) }
	calls := []call{
		{"ListSkills", func(ctx context.Context, cc grpc.ClientConnInterface) (proto.Message, error) {
			return cat(cc).ListSkills(ctx, &skillsv1.ListSkillsRequest{PageSize: 7, IncludeBody: true})
		}},
		{"ListSkills bad token", func(ctx context.Context, cc grpc.ClientConnInterface) (proto.Message, error) {
			return cat(cc).ListSkills(ctx, &skillsv1.ListSkillsRequest{PageToken: "not a token"})
		}},
		{"GetSkill", func(ctx context.Context, cc grpc.ClientConnInterface) (proto.Message, error) {
			return cat(cc).GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: "skill-007"})
		}},
		{"GetSkill missing", func(ctx context.Context, cc grpc.ClientConnInterface) (proto.Message, error) {
			return cat(cc).GetSkill(ctx, &skillsv1.GetSkillRequest{SkillPath: "no-such-skill"})
		}},
		{"GetSkillTree", func(ctx context.Context, cc grpc.ClientConnInterface) (proto.Message, error) {
			return cat(cc).GetSkillTree(ctx, &skillsv1.GetSkillTreeRequest{})
		}},
		{"SearchSkills", func(ctx context.Context, cc grpc.ClientConnInterface) (proto.Message, error) {
			return route(cc).SearchSkills(ctx, &skillsv1.SearchSkillsRequest{Query: "review a pull request", Limit: 5})
		}},
		{"SearchSkills too many restatements", func(ctx context.Context, cc grpc.ClientConnInterface) (proto.Message, error) {
			return route(cc).SearchSkills(ctx, &skillsv1.SearchSkillsRequest{Query: "charts", Restated: []string{"a", "b", "c", "d"}})
		}},
		{"MatchSkill", func(ctx context.Context, cc grpc.ClientConnInterface) (proto.Message, error) {
			return route(cc).MatchSkill(ctx, &skillsv1.MatchSkillRequest{Context: "translate this document to French"})
		}},
		{"ReadSkillFile", func(ctx context.Context, cc grpc.ClientConnInterface) (proto.Message, error) {
			return files(cc).ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{SkillPath: "skill-003", File: "reference.md", MaxBytes: 100})
		}},
		{"ReadSkillFile escape", func(ctx context.Context, cc grpc.ClientConnInterface) (proto.Message, error) {
			return files(cc).ReadSkillFile(ctx, &skillsv1.ReadSkillFileRequest{SkillPath: "skill-003", File: "../skill-004/SKILL.md"})
		}},
		{"health", func(ctx context.Context, cc grpc.ClientConnInterface) (proto.Message, error) {
			return healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{})
		}},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			want, werr := c.do(t.Context(), remote)
			got, gerr := c.do(t.Context(), local)
			ws, gs := status.Convert(werr), status.Convert(gerr)
			if ws.Code() != gs.Code() || ws.Message() != gs.Message() {
				t.Fatalf("error over the connection %v, in process %v", werr, gerr)
			}
			failing := strings.Contains(c.name, " ") && c.name != "health"
			if failing != (werr != nil) {
				t.Fatalf("error %v; want one: %v", werr, failing)
			}
			if werr == nil && !proto.Equal(want, got) {
				t.Errorf("answers differ:\nover the connection %v\nin process        %v", want, got)
			}
		})
	}
	// The change feed streams over the connection.
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	w, err := skillsv1.NewCatalogServiceClient(local).WatchCatalog(ctx, &skillsv1.WatchCatalogRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Recv(); err != nil {
		t.Fatalf("first event of the change feed: %v", err)
	}
	// A closed server answers no more calls in process.
	_ = srv.Close()
	if _, err := cat(local).GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "skill-007"}); err == nil {
		t.Error("a closed server answered")
	}
}

// BenchmarkTrustedSearch: one SearchSkills call over DialTrusted's
// connection (bufconn, HTTP/2, protobuf) and in process (ConnectTrusted),
// on 387 skills.
func BenchmarkTrustedSearch(b *testing.B) {
	srv := connectCatalog(b, 387)
	remote, err := srv.DialTrusted(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	local, err := srv.ConnectTrusted(b.Context(), nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = local.Close() })
	for _, c := range []struct {
		name string
		cc   grpc.ClientConnInterface
	}{{"connection", remote}, {"inprocess", local}} {
		rc := skillsv1.NewRoutingServiceClient(c.cc)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := rc.SearchSkills(b.Context(), &skillsv1.SearchSkillsRequest{Query: "review a pull request"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
