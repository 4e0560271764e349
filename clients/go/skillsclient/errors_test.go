package skillsclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/protoadapt"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

func statusWithInfo(t *testing.T, code codes.Code, msg, reason string, md map[string]string, extra ...protoadapt.MessageV1) *status.Status {
	t.Helper()
	details := append([]protoadapt.MessageV1{}, extra...)
	details = append(details, &errdetails.ErrorInfo{Domain: Domain, Reason: reason, Metadata: md})
	st, err := status.New(code, msg).WithDetails(details...)
	if err != nil {
		t.Fatalf("WithDetails: %v", err)
	}
	return st
}

func TestConvert(t *testing.T) {
	foreignFirst, err := status.New(codes.NotFound, "m").WithDetails(
		&errdetails.ErrorInfo{Domain: "googleapis.com", Reason: "OTHER"},
		&errdetails.ErrorInfo{Domain: Domain, Reason: "SKILL_NOT_FOUND"},
	)
	if err != nil {
		t.Fatal(err)
	}
	foreignOnly, err := status.New(codes.Unavailable, "m").WithDetails(&errdetails.ErrorInfo{Domain: "example.com", Reason: "QUOTA"})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		in   error
		want *Error
	}{
		{
			name: "not found with suggestions",
			in: statusWithInfo(t, codes.NotFound, `skill "pfd" not found`, "SKILL_NOT_FOUND",
				map[string]string{"suggestions": "pdf,pptx"}).Err(),
			want: &Error{Code: codes.NotFound, Reason: "SKILL_NOT_FOUND", Message: `skill "pfd" not found`,
				Metadata: map[string]string{"suggestions": "pdf,pptx"}},
		},
		{
			name: "info after another detail",
			in: statusWithInfo(t, codes.InvalidArgument, "bad", "INVALID_PATH", nil,
				&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: "file"}}}).Err(),
			want: &Error{Code: codes.InvalidArgument, Reason: "INVALID_PATH", Message: "bad"},
		},
		{
			name: "skillsd domain preferred",
			in:   foreignFirst.Err(),
			want: &Error{Code: codes.NotFound, Reason: "SKILL_NOT_FOUND", Message: "m"},
		},
		{
			name: "foreign domain used when alone",
			in:   foreignOnly.Err(),
			want: &Error{Code: codes.Unavailable, Reason: "QUOTA", Message: "m"},
		},
		{
			name: "no details",
			in:   status.Error(codes.Unimplemented, "method GetSkill not implemented"),
			want: &Error{Code: codes.Unimplemented, Message: "method GetSkill not implemented"},
		},
		{
			name: "deadline",
			in:   status.Error(codes.DeadlineExceeded, "context deadline exceeded"),
			want: &Error{Code: codes.DeadlineExceeded, Message: "context deadline exceeded"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := convert(tt.in)
			var e *Error
			if !errors.As(got, &e) {
				t.Fatalf("convert returned %T, want *Error", got)
			}
			if diff := cmp.Diff(tt.want, e, cmp.AllowUnexported(Error{}), cmp.FilterPath(func(p cmp.Path) bool {
				return p.Last().String() == ".status"
			}, cmp.Ignore())); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if got, want := status.Code(got), tt.want.Code; got != want {
				t.Errorf("status.Code = %v, want %v", got, want)
			}
			st, ok := status.FromError(got)
			if !ok || st.Message() != tt.want.Message {
				t.Errorf("status.FromError = %v, %v; want the original status", st, ok)
			}
		})
	}
}

func TestConvertPassThrough(t *testing.T) {
	if convert(nil) != nil {
		t.Error("convert(nil) != nil")
	}
	plain := errors.New("plain")
	if got := convert(plain); got != plain {
		t.Errorf("convert(plain) = %v, want it unchanged", got)
	}
	e := &Error{Code: codes.NotFound}
	if got := convert(fmt.Errorf("wrapped: %w", e)); !errors.Is(got, e) {
		t.Errorf("convert lost a wrapped *Error: %v", got)
	}
}

func TestErrorIs(t *testing.T) {
	notFound := convert(statusWithInfo(t, codes.NotFound, "m", "SKILL_NOT_FOUND", nil).Err())
	fileMissing := convert(statusWithInfo(t, codes.NotFound, "m", "FILE_NOT_FOUND", nil).Err())
	bare := convert(status.Error(codes.NotFound, "m"))
	tests := []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"same reason", notFound, ErrSkillNotFound, true},
		{"wrapped", fmt.Errorf("show: %w", notFound), ErrSkillNotFound, true},
		{"other reason, same code", fileMissing, ErrSkillNotFound, false},
		{"no reason", bare, ErrSkillNotFound, false},
		{"code-only target", fileMissing, &Error{Code: codes.NotFound}, true},
		{"code-only target, other code", fileMissing, &Error{Code: codes.Internal}, false},
		{"non-Error target", notFound, context.Canceled, false},
		{"reason with a different code", convert(statusWithInfo(t, codes.FailedPrecondition, "m", "SKILL_DISABLED", nil).Err()), ErrSkillDisabled, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errors.Is(tt.err, tt.target); got != tt.want {
				t.Errorf("errors.Is(%v, %v) = %v, want %v", tt.err, tt.target, got, tt.want)
			}
		})
	}
}

func TestHelpers(t *testing.T) {
	tests := []struct {
		name              string
		err               error
		notFound, unimpl  bool
		wantCode          codes.Code
		wantSuggestions   []string
		wantMissing       []string
		wantErrorContains string
	}{
		{name: "nil", err: nil, wantCode: codes.OK},
		{name: "plain", err: errors.New("x"), wantCode: codes.Unknown},
		{
			name:     "not found",
			err:      convert(statusWithInfo(t, codes.NotFound, "gone", "SKILL_NOT_FOUND", map[string]string{"suggestions": " pdf , ,docx"}).Err()),
			notFound: true, wantCode: codes.NotFound, wantSuggestions: []string{"pdf", "docx"},
			wantErrorContains: "gone (NotFound SKILL_NOT_FOUND)",
		},
		{
			name:     "missing args",
			err:      convert(statusWithInfo(t, codes.InvalidArgument, "missing", "MISSING_ARGUMENTS", map[string]string{"missing": "a,b"}).Err()),
			wantCode: codes.InvalidArgument, wantMissing: []string{"a", "b"},
		},
		{name: "unimplemented", err: convert(status.Error(codes.Unimplemented, "no")), unimpl: true, wantCode: codes.Unimplemented},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := IsNotFound(tt.err); got != tt.notFound {
				t.Errorf("IsNotFound = %v, want %v", got, tt.notFound)
			}
			if got := IsUnimplemented(tt.err); got != tt.unimpl {
				t.Errorf("IsUnimplemented = %v, want %v", got, tt.unimpl)
			}
			if got := Code(tt.err); got != tt.wantCode {
				t.Errorf("Code = %v, want %v", got, tt.wantCode)
			}
			var e *Error
			if errors.As(tt.err, &e) {
				if diff := cmp.Diff(tt.wantSuggestions, e.Suggestions()); diff != "" {
					t.Errorf("Suggestions (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.wantMissing, e.Missing()); diff != "" {
					t.Errorf("Missing (-want +got):\n%s", diff)
				}
				if tt.wantErrorContains != "" && !strings.Contains(e.Error(), tt.wantErrorContains) {
					t.Errorf("Error() = %q, want it to contain %q", e.Error(), tt.wantErrorContains)
				}
			}
		})
	}
}

func TestSentinelsCoverEveryReason(t *testing.T) {
	sentinels := []*Error{
		ErrSkillNotFound, ErrSkillDisabled, ErrFileNotFound, ErrInvalidPath, ErrFileTooLarge,
		ErrScriptsDisabled, ErrScriptNotDeclared, ErrScriptNotServer, ErrMissingArguments,
		ErrExtensionNotAllowed, ErrNoRunner, ErrRefreshInProgress, ErrUpstream, ErrUnauthorized,
		ErrForbidden, ErrNotSupported, ErrCommandsDisabled, ErrCommandNotAllowed, ErrAgentNotFound,
		ErrDocNotFound, ErrIsolationUnavailable, ErrCatalogLoading, ErrSkillQuarantined,
	}
	have := map[string]bool{}
	for _, s := range sentinels {
		have[s.Reason] = true
	}
	for v, name := range skillsv1.ErrorReason_name {
		r := ReasonName(skillsv1.ErrorReason(v))
		if v == 0 {
			if r != "" {
				t.Errorf("ReasonName(%s) = %q, want empty", name, r)
			}
			continue
		}
		if !have[r] {
			t.Errorf("no sentinel for reason %s", r)
		}
	}
}
