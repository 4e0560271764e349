package source

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// discoverySubdirs are the skills folders looked for in a project or home
// folder, in precedence order.
var discoverySubdirs = []string{".agents/skills", ".agent/skills", ".claude/skills"}

// Discover returns the default skills roots that exist as folders, in
// precedence order (project before user): for each of clientRoots (the folders
// an MCP client declares), then cwd, its .agents/skills, .agent/skills and
// .claude/skills; then the same three under home. Roots reaching the same real
// folder are listed once (the first wins). Empty cwd, home or client roots are
// skipped; relative ones are made absolute against the process's working
// folder. All roots are KindLocal and trusted.
//
// Names: "./.claude/skills" for cwd's, "~/.claude/skills" for home's, and the
// absolute path for a client root's.
func Discover(cwd, home string, clientRoots []string) []*Root {
	type base struct{ dir, label string }
	var bases []base
	for _, d := range clientRoots {
		if d != "" {
			bases = append(bases, base{dir: d})
		}
	}
	if cwd != "" {
		bases = append(bases, base{dir: cwd, label: "."})
	}
	if home != "" {
		bases = append(bases, base{dir: home, label: "~"})
	}
	seen := map[string]bool{}
	var roots []*Root
	for _, b := range bases {
		dir, err := filepath.Abs(b.dir)
		if err != nil {
			continue
		}
		for _, sub := range discoverySubdirs {
			p := filepath.Join(dir, filepath.FromSlash(sub))
			info, err := os.Stat(p)
			if err != nil || !info.IsDir() {
				continue
			}
			real, err := filepath.EvalSymlinks(p)
			if err != nil || seen[real] {
				continue
			}
			seen[real] = true
			name := filepath.ToSlash(p)
			if b.label != "" {
				name = b.label + "/" + sub
			}
			roots = append(roots, &Root{Name: name, Dir: p, Kind: KindLocal, Trusted: true})
		}
	}
	return roots
}

// DiscoveryFolders lists every folder Discover looks in, in its order,
// whether or not it exists: what to tell a user whose catalog came out
// empty.
func DiscoveryFolders(cwd, home string, clientRoots []string) []string {
	var out []string
	for _, b := range append(append(slices.Clone(clientRoots), cwd), home) {
		if b == "" {
			continue
		}
		dir, err := filepath.Abs(b)
		if err != nil {
			continue
		}
		for _, sub := range discoverySubdirs {
			out = append(out, filepath.Join(dir, filepath.FromSlash(sub)))
		}
	}
	return out
}

// ExpandPath expands a leading "~" (alone or followed by a separator) to home,
// and $VAR and ${VAR} to getenv's answer (an unset variable expands to "", as in
// a shell), because MCP hosts start servers without a shell. A "$" that does
// not start a variable name, and "~user", are left as they are; so is "~" when
// home is "". getenv nil means os.Getenv. The result is cleaned; a relative
// path stays relative (the caller makes it absolute). "" stays "".
func ExpandPath(p, home string, getenv func(string) string) string {
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
