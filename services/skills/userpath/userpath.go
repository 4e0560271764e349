// Package userpath turns a path as a person writes it (in a flag, an
// environment variable, a configuration file or an MCP host's settings) into
// the path the product uses: "~" and $VAR expanded, made absolute, cleaned.
// It is the one place that does so, for the service and for the gateways'
// mains (which is why it is not internal).
//
// It only computes paths: it does not touch the file system, decide whether a
// path is allowed, or confine reads (package internal/confine does that).
package userpath

import (
	"os"
	"path/filepath"
	"strings"
)

// Expand expands a leading "~" (alone or followed by a separator) to home,
// and $VAR and ${VAR} to getenv's answer (an unset variable expands to "", as in
// a shell), because MCP hosts start servers without a shell. A "$" that does
// not start a variable name, and "~user", are left as they are; so is "~" when
// home is "". getenv nil means os.Getenv. The result is cleaned; a relative
// path stays relative (Abs makes it absolute). "" stays "".
func Expand(p, home string, getenv func(string) string) string {
	if p == "" {
		return ""
	}
	if getenv == nil {
		getenv = os.Getenv
	}
	if home != "" && strings.HasPrefix(p, "~") && (len(p) == 1 || p[1] == '/' || p[1] == filepath.Separator) {
		p = home + p[1:]
	}
	p = expandVars(p, getenv)
	if p == "" {
		return ""
	}
	return filepath.Clean(p)
}

// Abs is Expand, then a relative result joined to cwd, cleaned. A path that is
// or expands to "" is cwd (callers that want to drop such paths check Expand
// first). cwd should be absolute; Abs does not consult the process's working
// folder.
func Abs(p, cwd, home string, getenv func(string) string) string {
	p = Expand(p, home, getenv)
	if !filepath.IsAbs(p) {
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p)
}

// expandVars replaces $NAME and ${NAME} (NAME = [A-Za-z_][A-Za-z0-9_]*).
func expandVars(s string, getenv func(string) string) string {
	if !strings.Contains(s, "$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '$' {
			b.WriteByte(s[i])
			i++
			continue
		}
		if i+1 < len(s) && s[i+1] == '{' {
			end := strings.IndexByte(s[i+2:], '}')
			if end >= 0 && isVarName(s[i+2:i+2+end]) {
				b.WriteString(getenv(s[i+2 : i+2+end]))
				i += end + 3
				continue
			}
		} else if n := varNameLen(s[i+1:]); n > 0 {
			b.WriteString(getenv(s[i+1 : i+1+n]))
			i += n + 1
			continue
		}
		b.WriteByte('$')
		i++
	}
	return b.String()
}

func varNameLen(s string) int {
	n := 0
	for n < len(s) {
		c := s[n]
		if c == '_' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || (n > 0 && '0' <= c && c <= '9') {
			n++
			continue
		}
		break
	}
	return n
}

func isVarName(s string) bool {
	return s != "" && varNameLen(s) == len(s)
}
