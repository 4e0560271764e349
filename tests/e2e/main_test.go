package e2e

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// binDir holds the binaries built for this run of the package; TestMain
// removes it.
var binDir string

func TestMain(m *testing.M) {
	skillsd.SandboxHelper() // the servers started in-process confine their scripts through this binary
	flag.Parse()
	dir, err := os.MkdirTemp("", "skillsd-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// binaries are the commands under test: name → package directory (a module)
// and package inside it.
var binaries = map[string][2]string{
	"skillsd":     {"services/skills", "./cmd/skillsd"},
	"skills-mcp":  {"gateways/mcp", "./cmd/skills-mcp"},
	"skills-rest": {"gateways/rest", "./cmd/skills-rest"},
}

var (
	buildOnce sync.Once
	buildErr  error
)

// binary returns the path of a built command, building them all on first
// use. Each is built from its own module directory (go build -C), so that
// this works in the workspace and under GOWORK=off alike.
func binary(t *testing.T, name string) string {
	t.Helper()
	if _, ok := binaries[name]; !ok {
		t.Fatalf("unknown binary %q", name)
	}
	buildOnce.Do(func() { buildErr = buildAll(t) })
	if buildErr != nil {
		t.Fatalf("building the binaries: %v", buildErr)
	}
	return filepath.Join(binDir, name)
}

func buildAll(t *testing.T) error {
	root := repoRoot(t)
	goTool, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("the go command is not on PATH: %w", err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(binaries))
	for name, pkg := range binaries {
		wg.Go(func() {
			cmd := exec.Command(goTool, "build", "-C", filepath.Join(root, pkg[0]), "-o", filepath.Join(binDir, name), pkg[1])
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("go build %s: %v\n%s", name, err, out)
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs // the first failure, or nil
}

// repoRoot is the directory holding go.work, found by walking up from the
// package directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.work above the test's directory: cannot find the repository root")
		}
		dir = parent
	}
}

// skipShort skips end-to-end tests under go test -short.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("end-to-end test: skipped with -short")
	}
}

// missingTool skips the test, or fails it when CI is "true": CI must never
// skip silently.
func missingTool(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI=true: end-to-end tests may not be skipped)")
	}
	t.Skip(msg)
}
