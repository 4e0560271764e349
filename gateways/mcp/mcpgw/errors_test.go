package mcpgw

import (
	"context"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// failingConn is a gRPC connection whose every call fails with err.
type failingConn struct{ err error }

func (c failingConn) Invoke(context.Context, string, any, any, ...grpc.CallOption) error {
	return c.err
}

func (c failingConn) NewStream(context.Context, *grpc.StreamDesc, string, ...grpc.CallOption) (grpc.ClientStream, error) {
	return nil, c.err
}

// TestServiceErrorsBecomeToolErrors checks the whole path: a failing call to
// the service is a tool result with isError, never a protocol error.
func TestServiceErrorsBecomeToolErrors(t *testing.T) {
	cs := connectClient(t, failingConn{err: status.Error(codes.Unavailable, "connection refused")})
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"load_skill", map[string]any{"name": "pdf"}},
		{"list_skills", map[string]any{}},
	} {
		res, text := callTool(t, cs, call.tool, call.args)
		if !res.IsError || !strings.Contains(text, "unreachable") {
			t.Errorf("%s: got isError %v, %q; want an unreachable error", call.tool, res.IsError, text)
		}
	}
}

func TestNewRejectsNilConn(t *testing.T) {
	if _, err := New(nil, Options{}); err == nil {
		t.Error("New(nil): got no error")
	}
}
