package sandbox

import (
	"os"
	"testing"
)

// TestMain lets this test binary be the sandbox helper of its own runs.
func TestMain(m *testing.M) {
	Helper()
	os.Exit(m.Run())
}
