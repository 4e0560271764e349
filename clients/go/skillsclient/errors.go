package skillsclient

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// Domain is the google.rpc.ErrorInfo domain of the errors skillsd sends.
const Domain = "skillsd"

// Error is a failed call, as the server reported it: the gRPC code, the
// machine-readable reason and metadata of its google.rpc.ErrorInfo detail, and
// the message written for people.
//
// Every method of [Client] returns an *Error when the server answered with an
// error status (including codes.Unimplemented for an RPC this server does not
// offer yet), so callers can use [errors.As]:
//
//	var e *skillsclient.Error
//	if errors.As(err, &e) && e.Reason == "SKILL_NOT_FOUND" { … }
//
// or compare with the sentinels through [errors.Is]:
//
//	if errors.Is(err, skillsclient.ErrSkillNotFound) { … }
type Error struct {
	// Code is the gRPC status code.
	Code codes.Code
	// Reason is the ErrorInfo reason, a name of skills.v1 ErrorReason without
	// its "ERROR_REASON_" prefix (for example "SKILL_NOT_FOUND"); empty when
	// the status carried none.
	Reason string
	// Message is the status message, written for people and models.
	Message string
	// Metadata is the ErrorInfo metadata (for example "skill_path",
	// "suggestions"); nil when there is none.
	Metadata map[string]string

	status *status.Status
}

// Error returns the message with the code and, when known, the reason.
func (e *Error) Error() string {
	label := e.Code.String()
	if e.Reason != "" {
		label += " " + e.Reason
	}
	if e.Message == "" {
		return "skillsd: " + label
	}
	return fmt.Sprintf("skillsd: %s (%s)", e.Message, label)
}

// Is reports whether target is an *Error that e matches: on the reason when
// target has one (the sentinels below), otherwise on the code.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	if t.Reason != "" {
		return t.Reason == e.Reason
	}
	return t.Code == e.Code
}

// GRPCStatus returns the status the error was made from, so that
// status.FromError and status.Code keep working on errors of this package.
func (e *Error) GRPCStatus() *status.Status {
	if e.status != nil {
		return e.status
	}
	return status.New(e.Code, e.Message)
}

// Suggestions returns the close names the server proposed for a skill it did
// not find (metadata "suggestions"); nil when there are none.
func (e *Error) Suggestions() []string {
	return splitList(e.Metadata["suggestions"])
}

// Missing returns the required script arguments the caller left out (metadata
// "missing"); nil when there are none.
func (e *Error) Missing() []string {
	return splitList(e.Metadata["missing"])
}

func splitList(s string) []string {
	if s == "" {
		return nil
	}
	var out []string
	for part := range strings.SplitSeq(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// Sentinels for [errors.Is], one per skills.v1 ErrorReason. They match any
// *Error with the same reason, whatever its code and message.
var (
	ErrSkillNotFound       = sentinel(codes.NotFound, skillsv1.ErrorReason_ERROR_REASON_SKILL_NOT_FOUND)
	ErrSkillDisabled       = sentinel(codes.PermissionDenied, skillsv1.ErrorReason_ERROR_REASON_SKILL_DISABLED)
	ErrFileNotFound        = sentinel(codes.NotFound, skillsv1.ErrorReason_ERROR_REASON_FILE_NOT_FOUND)
	ErrInvalidPath         = sentinel(codes.InvalidArgument, skillsv1.ErrorReason_ERROR_REASON_INVALID_PATH)
	ErrFileTooLarge        = sentinel(codes.FailedPrecondition, skillsv1.ErrorReason_ERROR_REASON_FILE_TOO_LARGE)
	ErrScriptsDisabled     = sentinel(codes.FailedPrecondition, skillsv1.ErrorReason_ERROR_REASON_SCRIPTS_DISABLED)
	ErrScriptNotDeclared   = sentinel(codes.NotFound, skillsv1.ErrorReason_ERROR_REASON_SCRIPT_NOT_DECLARED)
	ErrScriptNotServer     = sentinel(codes.FailedPrecondition, skillsv1.ErrorReason_ERROR_REASON_SCRIPT_NOT_SERVER)
	ErrMissingArguments    = sentinel(codes.InvalidArgument, skillsv1.ErrorReason_ERROR_REASON_MISSING_ARGUMENTS)
	ErrExtensionNotAllowed = sentinel(codes.FailedPrecondition, skillsv1.ErrorReason_ERROR_REASON_EXTENSION_NOT_ALLOWED)
	ErrNoRunner            = sentinel(codes.FailedPrecondition, skillsv1.ErrorReason_ERROR_REASON_NO_RUNNER)
	ErrRefreshInProgress   = sentinel(codes.Aborted, skillsv1.ErrorReason_ERROR_REASON_REFRESH_IN_PROGRESS)
	ErrUpstream            = sentinel(codes.Unavailable, skillsv1.ErrorReason_ERROR_REASON_UPSTREAM_ERROR)
	ErrUnauthorized        = sentinel(codes.Unauthenticated, skillsv1.ErrorReason_ERROR_REASON_UNAUTHORIZED)
	ErrForbidden           = sentinel(codes.PermissionDenied, skillsv1.ErrorReason_ERROR_REASON_FORBIDDEN)
	ErrNotSupported        = sentinel(codes.Unimplemented, skillsv1.ErrorReason_ERROR_REASON_NOT_SUPPORTED)
	ErrCommandsDisabled    = sentinel(codes.FailedPrecondition, skillsv1.ErrorReason_ERROR_REASON_COMMANDS_DISABLED)
	ErrCommandNotAllowed   = sentinel(codes.PermissionDenied, skillsv1.ErrorReason_ERROR_REASON_COMMAND_NOT_ALLOWED)
	ErrAgentNotFound       = sentinel(codes.NotFound, skillsv1.ErrorReason_ERROR_REASON_AGENT_NOT_FOUND)
	ErrDocNotFound         = sentinel(codes.NotFound, skillsv1.ErrorReason_ERROR_REASON_DOC_NOT_FOUND)
	// ErrIsolationUnavailable: scripts.require_isolation refused a run that
	// would miss a kernel protection (metadata "missing" names them).
	ErrIsolationUnavailable = sentinel(codes.FailedPrecondition, skillsv1.ErrorReason_ERROR_REASON_ISOLATION_UNAVAILABLE)
	// ErrCatalogLoading: the server's first catalog is still loading (a git
	// source cloned for the first time); try again in a moment.
	ErrCatalogLoading = sentinel(codes.Unavailable, skillsv1.ErrorReason_ERROR_REASON_CATALOG_LOADING)
	// ErrSkillQuarantined: the server's security scan quarantined the skill
	// (security.quarantine); it is not served until it is fixed or accepted.
	ErrSkillQuarantined = sentinel(codes.PermissionDenied, skillsv1.ErrorReason_ERROR_REASON_SKILL_QUARANTINED)
)

func sentinel(code codes.Code, reason skillsv1.ErrorReason) *Error {
	name := ReasonName(reason)
	return &Error{Code: code, Reason: name, Message: strings.ToLower(strings.ReplaceAll(name, "_", " "))}
}

// ReasonName returns the reason string the server sends for r: its enum name
// without the "ERROR_REASON_" prefix ("SKILL_NOT_FOUND"); empty for
// ERROR_REASON_UNSPECIFIED.
func ReasonName(r skillsv1.ErrorReason) string {
	if r == skillsv1.ErrorReason_ERROR_REASON_UNSPECIFIED {
		return ""
	}
	return strings.TrimPrefix(r.String(), "ERROR_REASON_")
}

// Code returns the gRPC code of err: codes.OK for nil, the code of an *Error
// or of any error carrying a gRPC status, codes.Unknown otherwise.
func Code(err error) codes.Code {
	return status.Code(err)
}

// IsNotFound reports whether err says that a skill, file or other named thing
// does not exist (codes.NotFound).
func IsNotFound(err error) bool { return Code(err) == codes.NotFound }

// IsUnimplemented reports whether err says that the server does not offer the
// operation (codes.Unimplemented).
func IsUnimplemented(err error) bool { return Code(err) == codes.Unimplemented }

// convert turns an error from a generated stub into an *Error. Errors without
// a gRPC status (none are expected from the stubs) are returned unchanged.
func convert(err error) error {
	if err == nil {
		return nil
	}
	var already *Error
	if errors.As(err, &already) {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	return fromStatus(st)
}

// fromStatus builds an *Error from a status, taking the reason and metadata
// from its first ErrorInfo of the skillsd domain (or, failing that, its first
// ErrorInfo of any domain).
func fromStatus(st *status.Status) *Error {
	e := &Error{Code: st.Code(), Message: st.Message(), status: st}
	var info *errdetails.ErrorInfo
	for _, d := range st.Details() {
		ei, ok := d.(*errdetails.ErrorInfo)
		if !ok {
			continue
		}
		if ei.GetDomain() == Domain {
			info = ei
			break
		}
		if info == nil {
			info = ei
		}
	}
	if info != nil {
		e.Reason = info.GetReason()
		if md := info.GetMetadata(); len(md) > 0 {
			e.Metadata = make(map[string]string, len(md))
			for k, v := range md {
				e.Metadata[k] = v
			}
		}
	}
	return e
}
