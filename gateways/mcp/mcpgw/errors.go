package mcpgw

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// errorDomain is the domain of the google.rpc.ErrorInfo details skillsd sends.
const errorDomain = "skillsd"

// toolError is the error a tool handler returns: the SDK turns it into a tool
// result with isError true and msg as its text. The cause stays reachable for
// middleware (CallToolResult.GetError) but never reaches the client.
type toolError struct {
	msg   string
	cause error
}

func (e *toolError) Error() string { return e.msg }
func (e *toolError) Unwrap() error { return e.cause }

// toolError maps an error of a call to the service to a tool error, and logs
// the cause. skill is the skill path or name the call was about, if any.
func (g *gateway) toolError(err error, skill string) error {
	msg := errorMessage(err, skill, g.has)
	level := g.log.Debug
	if classify(err).serverSide() {
		level = g.log.Warn
	}
	level("tool call failed", "skill", skill, "error", err)
	return &toolError{msg: msg, cause: err}
}

// kind is what went wrong with a call to the service, in the gateway's own
// words. classify is the one place that reads gRPC codes: the native tools,
// every profile, the resources and prompts and the catalog watch decide on a
// kind, never on a code.
type kind int

const (
	kindFailed          kind = iota // Internal, Unknown, DataLoss, and errors that carry no status
	kindNotFound                    // NotFound
	kindInvalid                     // InvalidArgument, OutOfRange
	kindDenied                      // PermissionDenied
	kindUnauthenticated             // Unauthenticated
	kindUnavailable                 // Unavailable
	kindTimeout                     // DeadlineExceeded, or the call's context expired
	kindCanceled                    // Canceled, or the call's context was cancelled
	kindExhausted                   // ResourceExhausted
	kindPrecondition                // FailedPrecondition
	kindConflict                    // Aborted, AlreadyExists
	kindUnsupported                 // Unimplemented
)

// kinds maps every gRPC code but OK to its kind; a code missing here is
// kindFailed.
var kinds = map[codes.Code]kind{
	codes.NotFound:           kindNotFound,
	codes.InvalidArgument:    kindInvalid,
	codes.OutOfRange:         kindInvalid,
	codes.PermissionDenied:   kindDenied,
	codes.Unauthenticated:    kindUnauthenticated,
	codes.Unavailable:        kindUnavailable,
	codes.DeadlineExceeded:   kindTimeout,
	codes.Canceled:           kindCanceled,
	codes.ResourceExhausted:  kindExhausted,
	codes.FailedPrecondition: kindPrecondition,
	codes.Aborted:            kindConflict,
	codes.AlreadyExists:      kindConflict,
	codes.Unimplemented:      kindUnsupported,
}

// failure is an error of a call to the service, read once.
type failure struct {
	kind kind
	// reason and meta are the skillsd ErrorInfo detail's, if any.
	reason string
	meta   map[string]string
	// msg is the status message as a sentence (the error's text when it
	// carries no status); code is the code's name, for an empty msg.
	msg, code string
}

// classify reads err, an error of a call to the service.
func classify(err error) failure {
	st, ok := status.FromError(err)
	if !ok {
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			st = status.New(codes.DeadlineExceeded, err.Error())
		case errors.Is(err, context.Canceled):
			st = status.New(codes.Canceled, err.Error())
		default:
			st = status.New(codes.Unknown, err.Error())
		}
	}
	f := failure{kind: kinds[st.Code()], msg: sentence(st.Message()), code: sentence(st.Code().String())}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == errorDomain {
			f.reason, f.meta = info.GetReason(), info.GetMetadata()
			break
		}
	}
	return f
}

// is reports whether the failure's ErrorInfo reason is r.
func (f failure) is(r skillsv1.ErrorReason) bool { return f.reason == reasonName(r) }

// serverSide says the failure is the service's or the way to it (worth a
// warning in the log), not the caller's.
func (f failure) serverSide() bool {
	switch f.kind {
	case kindFailed, kindUnavailable, kindUnauthenticated, kindTimeout:
		return true
	}
	return false
}

// isNotFound reports whether err is the service's NotFound.
func isNotFound(err error) bool { return err != nil && classify(err).kind == kindNotFound }

// errorMessage is the one mapping of service errors to what a model reads: what
// went wrong and what to do next. The status messages of skillsd are written
// for people and models already; transport-level details (dial errors and the
// like) are left to the log.
func errorMessage(err error, skill string, has func(string) bool) string {
	f := classify(err)
	msg := f.msg
	if msg == "" {
		msg = f.code
	}
	switch f.kind {
	case kindNotFound:
		if f.is(skillsv1.ErrorReason_ERROR_REASON_SKILL_NOT_FOUND) || (f.reason == "" && skill != "") {
			m := fmt.Sprintf("Skill '%s' not found.", skill)
			if s := splitList(f.meta["suggestions"]); len(s) > 0 {
				m += " Did you mean: " + strings.Join(s, ", ") + "?"
			}
			return joinSentences(m, findHint(has))
		}
		if f.is(skillsv1.ErrorReason_ERROR_REASON_FILE_NOT_FOUND) {
			if has(toolLoadSkill) {
				return joinSentences(msg, "load_skill lists the skill's files.")
			}
			return msg
		}
		return joinSentences(msg, findHint(has))
	case kindInvalid:
		return joinSentences(msg, "Correct the arguments and call the tool again.")
	case kindDenied:
		if f.is(skillsv1.ErrorReason_ERROR_REASON_SKILL_DISABLED) {
			return joinSentences(fmt.Sprintf("Skill '%s' is not enabled on this server.", skill), findHint(has))
		}
		if f.is(skillsv1.ErrorReason_ERROR_REASON_SKILL_QUARANTINED) {
			return joinSentences(msg, "Do not use this skill, do not retry, and do not look for its files elsewhere; tell the user it is quarantined by the server's security scan.")
		}
		return joinSentences(msg, "This server does not allow it; do not retry.")
	case kindUnauthenticated:
		return "The skills server refused the credentials of this MCP server. Retrying will not help: tell the user to check the token skills-mcp sends (--token-env)."
	case kindUnavailable:
		if f.is(skillsv1.ErrorReason_ERROR_REASON_CATALOG_LOADING) {
			// Its first catalog is coming (a first clone): say so, not
			// "unreachable"; the message says to try again.
			return msg
		}
		return "The skills server is unreachable right now. Try again in a moment; if it keeps failing, tell the user that the skills server (skillsd) is not running or cannot be reached."
	case kindTimeout:
		return "The skills server did not answer in time. Try again; if it keeps failing, tell the user."
	case kindCanceled:
		return "The call was cancelled before the skills server answered."
	case kindExhausted:
		if f.is(skillsv1.ErrorReason_ERROR_REASON_FILE_TOO_LARGE) {
			return msg
		}
		return joinSentences(msg, "Wait a moment, then try again.")
	case kindPrecondition:
		if f.is(skillsv1.ErrorReason_ERROR_REASON_SCRIPT_NOT_SERVER) {
			if read := readTool(has); read != "" {
				return joinSentences(msg, fmt.Sprintf("%s gives the script (skill_path %q, file %q).", read, f.meta["skill_path"], f.meta["file"]))
			}
		}
		return msg
	case kindConflict:
		return msg
	case kindUnsupported:
		if f.is(skillsv1.ErrorReason_ERROR_REASON_NOT_SUPPORTED) {
			return msg
		}
		return "The skills server does not support this operation (it may be older than this MCP server)."
	default: // kindFailed
		return joinSentences("The skills server failed to answer: "+msg, "Try again; if it keeps failing, tell the user.")
	}
}

// readTool is the tool of the server that reads a file of a skill, by
// skill_path and file ("" when it has none): read_skill_file natively,
// get_asset in the skills-mcp profile.
func readTool(has func(string) bool) string {
	for _, name := range []string{toolReadSkillFile, toolGetAsset} {
		if has(name) {
			return name
		}
	}
	return ""
}

// reasonName is the ErrorInfo reason string of r: its name without the
// "ERROR_REASON_" prefix.
func reasonName(r skillsv1.ErrorReason) string {
	return strings.TrimPrefix(r.String(), "ERROR_REASON_")
}

// splitList splits a comma-separated metadata value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// sentence returns msg trimmed and ending with punctuation.
func sentence(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return ""
	}
	if !strings.ContainsAny(msg[len(msg)-1:], ".!?") {
		msg += "."
	}
	return msg
}

// joinSentences joins the non-empty sentences with spaces.
func joinSentences(s ...string) string {
	var parts []string
	for _, p := range s {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}
