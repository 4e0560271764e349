package upstream_test

import (
	"os"
	"testing"

	"github.com/skillsd/skillsd/services/skills/skillsd"
)

// TestMain: the replicas are real skillsd servers, whose scripts run in the
// re-executed test binary.
func TestMain(m *testing.M) {
	skillsd.SandboxHelper()
	os.Exit(m.Run())
}
