package server

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
)

func TestToStatus(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	for _, tc := range []struct {
		name       string
		err        error
		wantCode   codes.Code
		wantReason string
		wantMsg    string
		hidden     string
	}{
		{"not found from the catalog", &catalog.NotFoundError{Ref: "pdff", Suggestions: []string{"pdf"}}, codes.NotFound, "SKILL_NOT_FOUND", `did you mean "pdf"`, ""},
		{"invalid argument", failure.New(failure.InvalidArgument, "INVALID_PATH", "bad path"), codes.InvalidArgument, "INVALID_PATH", "bad path", ""},
		{"disabled", failure.New(failure.PermissionDenied, "SKILL_DISABLED", "disabled"), codes.PermissionDenied, "SKILL_DISABLED", "disabled", ""},
		{"wrapped failure keeps its kind", fmt.Errorf("ctx: %w", failure.New(failure.Unavailable, "UPSTREAM_ERROR", "remote down")), codes.Unavailable, "UPSTREAM_ERROR", "remote down", ""},
		{"cause stays out of the message", failure.New(failure.NotFound, "FILE_NOT_FOUND", "no such file").Wrap(errors.New("/secret/path")), codes.NotFound, "FILE_NOT_FOUND", "no such file", "/secret/path"},
		{"unknown errors are internal and hidden", errors.New("open /etc/shadow: permission denied"), codes.Internal, "", "internal error", "/etc/shadow"},
		{"internal failure is hidden", failure.New(failure.Internal, "", "db password wrong"), codes.Internal, "", "internal error", "password"},
		{"status passes through", status.Error(codes.Aborted, "busy"), codes.Aborted, "", "busy", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := status.Convert(toStatus(t.Context(), log, tc.err))
			if st.Code() != tc.wantCode {
				t.Errorf("code: got %v, want %v", st.Code(), tc.wantCode)
			}
			if !strings.Contains(st.Message(), tc.wantMsg) {
				t.Errorf("message: got %q, want it to contain %q", st.Message(), tc.wantMsg)
			}
			if tc.hidden != "" && strings.Contains(st.Message(), tc.hidden) {
				t.Errorf("message %q leaks %q", st.Message(), tc.hidden)
			}
			var reason string
			for _, d := range st.Details() {
				if info, ok := d.(*errdetails.ErrorInfo); ok {
					reason = info.GetReason()
					if info.GetDomain() != ErrorDomain {
						t.Errorf("domain: got %q, want %q", info.GetDomain(), ErrorDomain)
					}
				}
			}
			if reason != tc.wantReason {
				t.Errorf("reason: got %q, want %q", reason, tc.wantReason)
			}
		})
	}
	if toStatus(t.Context(), log, nil) != nil {
		t.Error("nil error must map to nil")
	}
}
