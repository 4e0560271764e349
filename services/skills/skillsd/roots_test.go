package skillsd_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// writeSkill writes dir/name/SKILL.md with a minimal valid frontmatter.
func writeSkill(t *testing.T, dir, name string) {
	t.Helper()
	p := filepath.Join(dir, name, "SKILL.md")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	body := "---\nname: " + name + "\ndescription: The " + name + " skill, for tests.\n---\n# " + name + "\n"
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// project returns a folder holding .claude/skills/<name>/SKILL.md.
func project(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	writeSkill(t, filepath.Join(dir, ".claude", "skills"), name)
	return dir
}

// startServer starts a server with empty Cwd and Home (unless opts sets
// them) and returns it with an in-process connection.
func startServer(t *testing.T, opts skillsd.Options) (*skillsd.Server, *grpc.ClientConn) {
	t.Helper()
	if opts.Cwd == "" {
		opts.Cwd = t.TempDir()
	}
	if opts.Home == "" {
		opts.Home = t.TempDir()
	}
	opts.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
	srv, err := skillsd.New(t.Context(), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	conn, err := srv.DialInProcess(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return srv, conn
}

// catalogState returns the skill paths listed (joined with ",") and the
// catalog's generation.
func catalogState(t *testing.T, conn *grpc.ClientConn) (string, int64) {
	t.Helper()
	cat := skillsv1.NewCatalogServiceClient(conn)
	list, err := cat.ListSkills(t.Context(), &skillsv1.ListSkillsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, s := range list.GetSkills() {
		paths = append(paths, s.GetSkillPath())
	}
	st, err := cat.GetCatalogStatus(t.Context(), &skillsv1.GetCatalogStatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(paths, ","), st.GetGeneration()
}

func TestSetClientRootsWithDefaultDiscovery(t *testing.T) {
	cwd := project(t, "from-cwd")
	srv, conn := startServer(t, skillsd.Options{Cwd: cwd})
	if got, _ := catalogState(t, conn); got != "from-cwd" {
		t.Fatalf("before roots: got skills %q, want from-cwd", got)
	}

	client := project(t, "from-client")
	// A relative root is ignored, not resolved against some folder.
	if err := srv.SetClientRoots(t.Context(), []string{"relative/root", client}); err != nil {
		t.Fatalf("SetClientRoots: %v", err)
	}
	got, gen := catalogState(t, conn)
	if got != "from-client,from-cwd" {
		t.Errorf("after roots: got skills %q, want from-client,from-cwd", got)
	}
	skill, err := skillsv1.NewCatalogServiceClient(conn).GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "from-client"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.ToSlash(filepath.Join(client, ".claude", "skills")); skill.GetSkill().GetSource() != want {
		t.Errorf("source of the client root's skill: got %q, want %q", skill.GetSkill().GetSource(), want)
	}

	// The same roots again change nothing: no rebuild.
	if err := srv.SetClientRoots(t.Context(), []string{client}); err != nil {
		t.Fatal(err)
	}
	if _, again := catalogState(t, conn); again != gen {
		t.Errorf("same roots: generation went from %d to %d, want no rebuild", gen, again)
	}

	// Roots replace the previous ones; none leaves the working directory alone.
	if err := srv.SetClientRoots(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := catalogState(t, conn); got != "from-cwd" {
		t.Errorf("after removing the roots: got skills %q, want from-cwd", got)
	}
}

func TestSetClientRootsGoBeforeTheWorkingDirectory(t *testing.T) {
	cwd := project(t, "shared")
	srv, conn := startServer(t, skillsd.Options{Cwd: cwd})
	client := project(t, "shared")
	if err := srv.SetClientRoots(t.Context(), []string{client}); err != nil {
		t.Fatal(err)
	}
	skill, err := skillsv1.NewCatalogServiceClient(conn).GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "shared"})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.ToSlash(filepath.Join(client, ".claude", "skills")); skill.GetSkill().GetSource() != want {
		t.Errorf("name clash: got the skill of %q, want the client root's %q", skill.GetSkill().GetSource(), want)
	}
}

func TestSetClientRootsIgnoredWithConfiguredSources(t *testing.T) {
	configured := t.TempDir()
	writeSkill(t, configured, "configured")
	configFile := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(configFile, []byte("sources:\n  - path: "+configured+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts skillsd.Options
	}{
		{"SkillsDirs", skillsd.Options{SkillsDirs: []string{configured}}},
		{"SKILLS_DIR", skillsd.Options{Getenv: func(k string) string {
			if k == "SKILLS_DIR" {
				return configured
			}
			return ""
		}}},
		{"config sources", skillsd.Options{ConfigFile: configFile}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, conn := startServer(t, tc.opts)
			before, gen := catalogState(t, conn)
			if before != "configured" {
				t.Fatalf("before roots: got skills %q, want configured", before)
			}
			if err := srv.SetClientRoots(t.Context(), []string{project(t, "from-client")}); err != nil {
				t.Fatalf("SetClientRoots: got %v, want nil", err)
			}
			after, again := catalogState(t, conn)
			if after != before || again != gen {
				t.Errorf("after roots: got %q at generation %d, want %q at generation %d", after, again, before, gen)
			}
		})
	}
}

func TestSetClientRootsConcurrentWithReloads(t *testing.T) {
	srv, conn := startServer(t, skillsd.Options{})
	roots := []string{project(t, "one"), project(t, "two")}
	cat := skillsv1.NewCatalogServiceClient(conn)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := srv.SetClientRoots(t.Context(), roots[:i%2+1]); err != nil {
				t.Errorf("SetClientRoots: %v", err)
			}
		})
		wg.Go(func() {
			// skip_cache reloads the catalog before answering.
			_, _ = cat.GetSkill(t.Context(), &skillsv1.GetSkillRequest{SkillPath: "one", SkipCache: true})
		})
	}
	wg.Wait()
	if err := srv.SetClientRoots(t.Context(), roots); err != nil {
		t.Fatal(err)
	}
	if got, _ := catalogState(t, conn); got != "one,two" {
		t.Errorf("after the last roots: got skills %q, want one,two", got)
	}
}

func TestSetClientRootsKeepsTheCatalogWhenTheBuildFails(t *testing.T) {
	srv, conn := startServer(t, skillsd.Options{})
	client := project(t, "from-client")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := srv.SetClientRoots(ctx, []string{client}); err == nil {
		t.Fatal("SetClientRoots with a cancelled context: got nil, want an error")
	}
	if got, _ := catalogState(t, conn); got != "" {
		t.Errorf("after a failed build: got skills %q, want none", got)
	}
	// The failed roots were not kept: the same roots are tried again.
	if err := srv.SetClientRoots(t.Context(), []string{client}); err != nil {
		t.Fatal(err)
	}
	if got, _ := catalogState(t, conn); got != "from-client" {
		t.Errorf("after a retry: got skills %q, want from-client", got)
	}
}
