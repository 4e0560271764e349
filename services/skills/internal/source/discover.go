package source

import (
	"os"
	"path/filepath"
	"slices"
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
