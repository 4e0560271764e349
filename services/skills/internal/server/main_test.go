package server

import (
	"os"
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/sandbox"
)

// TestMain lets this test binary be the sandbox helper of the scripts and
// commands its in-process servers run (see skillsd.SandboxHelper).
func TestMain(m *testing.M) {
	sandbox.Helper()
	os.Exit(m.Run())
}
