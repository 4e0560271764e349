package edge_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/services/skills/edge"
)

// TestListenMetrics: loopback is served; not loopback is refused while no
// authentication was asked for, and served with a warning once a mode was
// chosen; a bad address names the flag.
func TestListenMetrics(t *testing.T) {
	for _, tc := range []struct {
		name, mode, addr string
		refused, warned  bool
	}{
		{"loopback, no auth", "", "127.0.0.1:0", false, false},
		{"any interface, no auth asked for", "", "0.0.0.0:0", true, false},
		{"any interface, auth none on purpose", edge.ModeNone, "0.0.0.0:0", false, true},
		{"bad address", "", "256.0.0.1:0", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			g, err := edge.New(edge.Options{Surface: "gRPC", Settings: edge.Settings{AuthMode: tc.mode}, Logger: slog.New(slog.NewTextHandler(&log, nil))})
			if err != nil {
				t.Fatal(err)
			}
			lis, err := g.ListenMetrics("--metrics", tc.addr)
			if lis != nil {
				defer lis.Close()
			}
			if (err != nil) != tc.refused {
				t.Fatalf("ListenMetrics(%s): %v, want refused %v", tc.addr, err, tc.refused)
			}
			if err != nil && !strings.Contains(err.Error(), "--metrics "+strings.Split(tc.addr, ":")[0]) {
				t.Errorf("error %q does not name --metrics and the address", err)
			}
			if got := strings.Contains(log.String(), "without authentication"); got != tc.warned {
				t.Errorf("warned %v, want %v:\n%s", got, tc.warned, log.String())
			}
		})
	}
}
