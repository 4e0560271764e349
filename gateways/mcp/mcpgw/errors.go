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
	if c := status.Code(err); c == codes.Unavailable || c == codes.Internal || c == codes.Unknown ||
		c == codes.Unauthenticated || c == codes.DataLoss || c == codes.DeadlineExceeded {
		level = g.log.Warn
	}
	level("tool call failed", "skill", skill, "error", err)
	return &toolError{msg: msg, cause: err}
}

// errorMessage is the one mapping of service errors to what a model reads: what
// went wrong and what to do next. The status messages of skillsd are written
// for people and models already; transport-level details (dial errors and the
// like) are left to the log.
func errorMessage(err error, skill string, has func(string) bool) string {
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
	reason, meta := errorInfo(st)
	msg := sentence(st.Message())
	if msg == "" {
		msg = sentence(st.Code().String())
	}
	switch st.Code() {
	case codes.NotFound:
		if reason == reasonName(skillsv1.ErrorReason_ERROR_REASON_SKILL_NOT_FOUND) || (reason == "" && skill != "") {
			m := fmt.Sprintf("Skill '%s' not found.", skill)
			if s := splitList(meta["suggestions"]); len(s) > 0 {
				m += " Did you mean: " + strings.Join(s, ", ") + "?"
			}
			return joinSentences(m, findHint(has))
		}
		if reason == reasonName(skillsv1.ErrorReason_ERROR_REASON_FILE_NOT_FOUND) {
			if has(toolLoadSkill) {
				return joinSentences(msg, "load_skill lists the skill's files.")
			}
			return msg
		}
		return joinSentences(msg, findHint(has))
	case codes.InvalidArgument, codes.OutOfRange:
		return joinSentences(msg, "Correct the arguments and call the tool again.")
	case codes.PermissionDenied:
		if reason == reasonName(skillsv1.ErrorReason_ERROR_REASON_SKILL_DISABLED) {
			return joinSentences(fmt.Sprintf("Skill '%s' is not enabled on this server.", skill), findHint(has))
		}
		if reason == reasonName(skillsv1.ErrorReason_ERROR_REASON_SKILL_QUARANTINED) {
			return joinSentences(msg, "Do not use this skill, do not retry, and do not look for its files elsewhere; tell the user it is quarantined by the server's security scan.")
		}
		return joinSentences(msg, "This server does not allow it; do not retry.")
	case codes.Unauthenticated:
		return "The skills server refused the credentials of this MCP server. Retrying will not help: tell the user to check the token skills-mcp sends (--token-env)."
	case codes.Unavailable:
		if reason == reasonName(skillsv1.ErrorReason_ERROR_REASON_CATALOG_LOADING) {
			// Its first catalog is coming (a first clone): say so, not
			// "unreachable"; the message says to try again.
			return msg
		}
		return "The skills server is unreachable right now. Try again in a moment; if it keeps failing, tell the user that the skills server (skillsd) is not running or cannot be reached."
	case codes.DeadlineExceeded:
		return "The skills server did not answer in time. Try again; if it keeps failing, tell the user."
	case codes.Canceled:
		return "The call was cancelled before the skills server answered."
	case codes.ResourceExhausted:
		if reason == reasonName(skillsv1.ErrorReason_ERROR_REASON_FILE_TOO_LARGE) {
			return msg
		}
		return joinSentences(msg, "Wait a moment, then try again.")
	case codes.FailedPrecondition:
		if reason == reasonName(skillsv1.ErrorReason_ERROR_REASON_SCRIPT_NOT_SERVER) {
			if read := readTool(has); read != "" {
				return joinSentences(msg, fmt.Sprintf("%s gives the script (skill_path %q, file %q).", read, meta["skill_path"], meta["file"]))
			}
		}
		return msg
	case codes.Aborted, codes.AlreadyExists:
		return msg
	case codes.Unimplemented:
		if reason == reasonName(skillsv1.ErrorReason_ERROR_REASON_NOT_SUPPORTED) {
			return msg
		}
		return "The skills server does not support this operation (it may be older than this MCP server)."
	default: // Internal, Unknown, DataLoss
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

// errorInfo returns the reason and metadata of the skillsd ErrorInfo detail of
// st, if any.
func errorInfo(st *status.Status) (string, map[string]string) {
	for _, d := range st.Details() {
		if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == errorDomain {
			return info.GetReason(), info.GetMetadata()
		}
	}
	return "", nil
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
