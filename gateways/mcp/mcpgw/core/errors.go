package core

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

// ToolError is the error a tool handler returns: the SDK turns it into a
// tool result with isError true and its message as the text. The cause
// stays reachable for middleware (CallToolResult.GetError) but never
// reaches the client.
type ToolError struct {
	msg   string
	cause error
}

func (e *ToolError) Error() string { return e.msg }
func (e *ToolError) Unwrap() error { return e.cause }

// Refuse is the tool error of a call a tool refuses on its own, not on an
// error of the service (an argument missing or out of range, a file too
// large to answer): msg is all the model reads, and says what to do.
func Refuse(msg string) error { return &ToolError{msg: msg} }

// ToolError maps an error of a call to the service to a tool error, and logs
// the cause. skill is the skill path or name the call was about, if any.
func (g *Gateway) ToolError(err error, skill string) error {
	msg := ErrorMessage(err, skill, g.Has)
	level := g.Log.Debug
	if Classify(err).ServerSide() {
		level = g.Log.Warn
	}
	level("tool call failed", "skill", skill, "error", err)
	return &ToolError{msg: msg, cause: err}
}

// Kind is what went wrong with a call to the service, in the gateway's own
// words. Classify is the one place that reads gRPC codes: the native tools,
// every profile, the resources and prompts and the catalog watch decide on a
// kind, never on a code.
type Kind int

const (
	KindFailed          Kind = iota // Internal, Unknown, DataLoss, and errors that carry no status
	KindNotFound                    // NotFound
	KindInvalid                     // InvalidArgument, OutOfRange
	KindDenied                      // PermissionDenied
	KindUnauthenticated             // Unauthenticated
	KindUnavailable                 // Unavailable
	KindTimeout                     // DeadlineExceeded, or the call's context expired
	KindCanceled                    // Canceled, or the call's context was cancelled
	KindExhausted                   // ResourceExhausted
	KindPrecondition                // FailedPrecondition
	KindConflict                    // Aborted, AlreadyExists
	KindUnsupported                 // Unimplemented
)

// kinds maps every gRPC code but OK to its kind; a code missing here is
// KindFailed.
var kinds = map[codes.Code]Kind{
	codes.NotFound:           KindNotFound,
	codes.InvalidArgument:    KindInvalid,
	codes.OutOfRange:         KindInvalid,
	codes.PermissionDenied:   KindDenied,
	codes.Unauthenticated:    KindUnauthenticated,
	codes.Unavailable:        KindUnavailable,
	codes.DeadlineExceeded:   KindTimeout,
	codes.Canceled:           KindCanceled,
	codes.ResourceExhausted:  KindExhausted,
	codes.FailedPrecondition: KindPrecondition,
	codes.Aborted:            KindConflict,
	codes.AlreadyExists:      KindConflict,
	codes.Unimplemented:      KindUnsupported,
}

// Failure is an error of a call to the service, read once.
type Failure struct {
	Kind Kind
	// Reason and Meta are the skillsd ErrorInfo detail's, if any.
	Reason string
	Meta   map[string]string
	// Msg is the status message as a sentence (the error's text when it
	// carries no status); Code is the code's name, for an empty Msg.
	Msg, Code string
}

// Classify reads err, an error of a call to the service.
func Classify(err error) Failure {
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
	f := Failure{Kind: kinds[st.Code()], Msg: Sentence(st.Message()), Code: Sentence(st.Code().String())}
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == errorDomain {
			f.Reason, f.Meta = info.GetReason(), info.GetMetadata()
			break
		}
	}
	return f
}

// Is reports whether the failure's ErrorInfo reason is r.
func (f Failure) Is(r skillsv1.ErrorReason) bool { return f.Reason == reasonName(r) }

// ServerSide says the failure is the service's or the way to it (worth a
// warning in the log), not the caller's.
func (f Failure) ServerSide() bool {
	switch f.Kind {
	case KindFailed, KindUnavailable, KindUnauthenticated, KindTimeout:
		return true
	}
	return false
}

// IsNotFound reports whether err is the service's NotFound.
func IsNotFound(err error) bool { return err != nil && Classify(err).Kind == KindNotFound }

// ErrorMessage is the one mapping of service errors to what a model reads: what
// went wrong and what to do next. The status messages of skillsd are written
// for people and models already; transport-level details (dial errors and the
// like) are left to the log.
func ErrorMessage(err error, skill string, has func(string) bool) string {
	f := Classify(err)
	msg := f.Msg
	if msg == "" {
		msg = f.Code
	}
	switch f.Kind {
	case KindNotFound:
		if f.Is(skillsv1.ErrorReason_ERROR_REASON_SKILL_NOT_FOUND) || (f.Reason == "" && skill != "") {
			m := fmt.Sprintf("Skill '%s' not found.", skill)
			if s := SplitList(f.Meta["suggestions"]); len(s) > 0 {
				m += " Did you mean: " + strings.Join(s, ", ") + "?"
			}
			return JoinSentences(m, FindHint(has))
		}
		if f.Is(skillsv1.ErrorReason_ERROR_REASON_FILE_NOT_FOUND) {
			if has(ToolLoadSkill) {
				return JoinSentences(msg, "load_skill lists the skill's files.")
			}
			return msg
		}
		return JoinSentences(msg, FindHint(has))
	case KindInvalid:
		return JoinSentences(msg, "Correct the arguments and call the tool again.")
	case KindDenied:
		if f.Is(skillsv1.ErrorReason_ERROR_REASON_SKILL_DISABLED) {
			return JoinSentences(fmt.Sprintf("Skill '%s' is not enabled on this server.", skill), FindHint(has))
		}
		if f.Is(skillsv1.ErrorReason_ERROR_REASON_SKILL_QUARANTINED) {
			return JoinSentences(msg, "Do not use this skill, do not retry, and do not look for its files elsewhere; tell the user it is quarantined by the server's security scan.")
		}
		return JoinSentences(msg, "This server does not allow it; do not retry.")
	case KindUnauthenticated:
		return "The skills server refused the credentials of this MCP server. Retrying will not help: tell the user to check the token skills-mcp sends (--token-env)."
	case KindUnavailable:
		if f.Is(skillsv1.ErrorReason_ERROR_REASON_CATALOG_LOADING) {
			// Its first catalog is coming (a first clone): say so, not
			// "unreachable"; the message says to try again.
			return msg
		}
		return "The skills server is unreachable right now. Try again in a moment; if it keeps failing, tell the user that the skills server (skillsd) is not running or cannot be reached."
	case KindTimeout:
		return "The skills server did not answer in time. Try again; if it keeps failing, tell the user."
	case KindCanceled:
		return "The call was cancelled before the skills server answered."
	case KindExhausted:
		if f.Is(skillsv1.ErrorReason_ERROR_REASON_FILE_TOO_LARGE) {
			return msg
		}
		return JoinSentences(msg, "Wait a moment, then try again.")
	case KindPrecondition:
		if f.Is(skillsv1.ErrorReason_ERROR_REASON_SCRIPT_NOT_SERVER) {
			if read := readTool(has); read != "" {
				return JoinSentences(msg, fmt.Sprintf("%s gives the script (skill_path %q, file %q).", read, f.Meta["skill_path"], f.Meta["file"]))
			}
		}
		return msg
	case KindConflict:
		return msg
	case KindUnsupported:
		if f.Is(skillsv1.ErrorReason_ERROR_REASON_NOT_SUPPORTED) {
			return msg
		}
		return "The skills server does not support this operation (it may be older than this MCP server)."
	default: // KindFailed
		return JoinSentences("The skills server failed to answer: "+msg, "Try again; if it keeps failing, tell the user.")
	}
}

// readTool is the tool of the server that reads a file of a skill, by
// skill_path and file ("" when it has none): read_skill_file natively,
// get_asset in the skills-mcp profile.
func readTool(has func(string) bool) string {
	for _, name := range []string{ToolReadSkillFile, ToolGetAsset} {
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

// SplitList splits a comma-separated metadata value, dropping empty items.
func SplitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// Sentence returns msg trimmed and ending with punctuation.
func Sentence(msg string) string {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return ""
	}
	if !strings.ContainsAny(msg[len(msg)-1:], ".!?") {
		msg += "."
	}
	return msg
}

// JoinSentences joins the non-empty sentences with spaces.
func JoinSentences(s ...string) string {
	var parts []string
	for _, p := range s {
		if p = strings.TrimSpace(p); p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " ")
}

// FindHint is the sentence that tells a model how to find skills, naming only
// the tools that exist.
func FindHint(has func(string) bool) string {
	switch {
	case has(ToolSearchSkills) && has(ToolListSkills):
		return "Use search_skills to find a skill for the task, or list_skills to see all skills."
	case has(ToolSearchSkills):
		return "Use search_skills to find a skill for the task."
	case has(ToolListSkills):
		return "Use list_skills to see all skills."
	}
	return ""
}
