package config

import (
	"fmt"
	"strings"
)

// Error is a configuration problem. Its message names where the value came
// from (file and line, or environment variable), the key, what is wrong and,
// where it helps, what to write instead. It never contains a secret.
type Error struct {
	// File is the configuration file's name; empty when the value did not come from a file.
	File string
	// Line is the 1-based line in File; 0 when unknown.
	Line int
	// Env is the environment variable that set the value; empty otherwise.
	Env string
	// Key is the dotted key ("matching.min_score", "sources[0].git.url",
	// `scripts.runners[".sh"]`); empty for a problem with the whole file.
	Key string
	// Msg says what is wrong.
	Msg string

	// keyInMsg is set when Msg already names the key.
	keyInMsg bool
}

// Error formats the problem as "file:line: key: message".
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	case e.File != "":
		fmt.Fprintf(&b, "%s: ", e.File)
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	switch {
	case e.Env != "" && e.Key != "":
		fmt.Fprintf(&b, "environment variable %s (%s): ", e.Env, e.Key)
	case e.Env != "":
		fmt.Fprintf(&b, "environment variable %s: ", e.Env)
	case e.Key != "" && !e.keyInMsg:
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

func errorf(key, format string, args ...any) *Error {
	return &Error{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// join builds a child key: a field of a section, or an item of a list.
func join(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

func itemKey(parent string, i int) string { return fmt.Sprintf("%s[%d]", parent, i) }

func mapKey(parent, k string) string { return fmt.Sprintf("%s[%q]", parent, k) }

// quote shows a value in a message, shortened.
func quote(s string) string {
	const max = 60
	if r := []rune(s); len(r) > max {
		s = string(r[:max]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
