package contract

import (
	"os"
	"testing"

	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// TestMain lets this test binary be the sandbox helper of the scripts and
// commands its in-process servers run (see skillsd.SandboxHelper).
func TestMain(m *testing.M) {
	skillsd.SandboxHelper()
	os.Exit(m.Run())
}
