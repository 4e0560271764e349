//go:build linux

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestHelperFailuresAreErrors: a helper that cannot confine itself or
// cannot execute its program makes the run fail to start, with why; it
// never runs the program unconfined, and never passes for the program's
// own failure.
func TestHelperFailuresAreErrors(t *testing.T) {
	if NewRunner(RunnerOptions{}).probed().landlockABI == 0 {
		t.Skip("no Landlock here: " + NewRunner(RunnerOptions{}).probed().landlockWhy)
	}
	notProgram := filepath.Join(t.TempDir(), "not-a-program")
	if err := os.WriteFile(notProgram, []byte("\x00\x01\x02"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		pol  policy
		want string
	}{
		{"missing program", policy{ABI: 1, Read: []string{"/usr"}, Program: "/nonexistent/program", Argv: []string{"program"}}, "starting /nonexistent/program: no such file or directory"},
		{"not a program", policy{ABI: 1, Read: []string{filepath.Dir(notProgram)}, Program: notProgram, Argv: []string{"x"}}, "exec format error"},
		{"program outside the policy", policy{ABI: 1, Read: []string{"/usr/share"}, Program: "/usr/bin/true", Argv: []string{"true"}}, "permission denied"},
		// Never a silent downgrade: a policy asking more than the kernel has fails.
		{"ABI above the kernel's", policy{ABI: 99, Program: "/usr/bin/true"}, "missing kernel Landlock support"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.pol.ABI == 99 && len(presets)-1 <= NewRunner(RunnerOptions{}).probed().landlockABI {
				t.Skip("this kernel has every ABI go-landlock knows")
			}
			_, err := run(t.Context(), command{policy: &tc.pol, env: []string{"PATH=" + DefaultPath}, dir: "/", timeout: 10 * time.Second, grace: time.Second, maxOutput: 1024})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}

	// A helper given garbage instead of a policy says so, and runs nothing.
	cmd := exec.Command(selfExe, helperArg, "{not json")
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 126 {
		t.Errorf("a helper with garbage: %v %q, want exit status 126", err, out)
	}
}
