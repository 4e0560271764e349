// Package failure is the service's one error vocabulary: a small set of kinds
// (not found, invalid argument, …) with a machine-readable reason and metadata
// that helps the caller (skill path, file, suggestions). Domain packages return
// these; package server maps them to gRPC statuses exactly once. It does not know
// about any transport.
package failure

import (
	"errors"
	"fmt"
)

// Kind classifies an error by what the caller can do about it.
type Kind int

const (
	// Internal is a fault of the server; details go to the log, not the caller.
	Internal Kind = iota
	// NotFound means the named skill, file or page does not exist.
	NotFound
	// InvalidArgument means the request is malformed.
	InvalidArgument
	// PermissionDenied means the caller may not do this.
	PermissionDenied
	// Unauthenticated means the caller's credentials are missing or refused.
	Unauthenticated
	// FailedPrecondition means the server is not in a state to do this (switched off, not declared).
	FailedPrecondition
	// ResourceExhausted means a limit was reached (size, concurrency).
	ResourceExhausted
	// DeadlineExceeded means the operation ran out of time.
	DeadlineExceeded
	// Unavailable means a dependency is down; retrying later may help.
	Unavailable
	// Aborted means a concurrent operation prevented this one (retry later).
	Aborted
	// Unimplemented means the operation is not supported here.
	Unimplemented
)

var kindNames = [...]string{
	Internal:           "internal",
	NotFound:           "not found",
	InvalidArgument:    "invalid argument",
	PermissionDenied:   "permission denied",
	Unauthenticated:    "unauthenticated",
	FailedPrecondition: "failed precondition",
	ResourceExhausted:  "resource exhausted",
	DeadlineExceeded:   "deadline exceeded",
	Unavailable:        "unavailable",
	Aborted:            "aborted",
	Unimplemented:      "unimplemented",
}

// String names the kind.
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", int(k))
}

// Error is an error of a known kind. Message is written for the caller (people
// and models); Err, when set, is the underlying cause, for the log only.
type Error struct {
	Kind Kind
	// Reason is the machine-readable reason, one of the names of skills.v1
	// ErrorReason without its prefix (e.g. "SKILL_NOT_FOUND"); may be empty.
	Reason string
	// Message is what the caller sees.
	Message string
	// Metadata carries details that help the caller (skill_path, file, …).
	Metadata map[string]string
	// Err is the cause, never shown to callers.
	Err error
}

// Error returns the caller-facing message.
func (e *Error) Error() string {
	if e.Message != "" {
		return e.Message
	}
	return e.Kind.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// New returns an error of the given kind and reason with a formatted message.
func New(kind Kind, reason, format string, args ...any) *Error {
	return &Error{Kind: kind, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// With returns e with one more metadata entry (e is changed and returned).
func (e *Error) With(key, value string) *Error {
	if e.Metadata == nil {
		e.Metadata = make(map[string]string)
	}
	e.Metadata[key] = value
	return e
}

// Wrap returns e with cause err (e is changed and returned).
func (e *Error) Wrap(err error) *Error {
	e.Err = err
	return e
}

// KindOf returns the kind of err: the kind of the first *Error in its chain, or
// Internal.
func KindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return Internal
}

// Is reports whether err has the given kind.
func Is(err error, kind Kind) bool {
	var e *Error
	return errors.As(err, &e) && e.Kind == kind
}
