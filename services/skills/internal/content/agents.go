package content

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// Agent is one agent profile as listed (REQ-AGENT-001).
type Agent struct {
	// Name is the frontmatter name, or the file name without .md.
	Name string
	// Description is the frontmatter description; "" when none.
	Description string
	// Model is the frontmatter model; "" when none.
	Model string
	// AllowedTools is the frontmatter tools (or allowedTools, allowed-tools),
	// never nil.
	AllowedTools []string
	// File is the profile's file name inside the agents folder ("reviewer.md").
	File string
	// Path is the profile's path as answers show it (Folder.Prefix + "/" + File).
	Path string
}

// AgentFile is one agent profile, read (REQ-AGENT-002).
type AgentFile struct {
	Name    string
	Content string
	// Path is the profile's path as answers show it.
	Path string
	// SHA is git's blob id of the file.
	SHA string
}

// agentFromFile parses one profile. It never fails: a file without usable
// frontmatter is listed under its file name (REQ-BUILD-002).
func agentFromFile(folder Folder, file string, data []byte) Agent {
	fm, _, _ := frontmatter(normalize(data))
	a := Agent{
		Name:         str(fm, "name"),
		Description:  str(fm, "description"),
		Model:        str(fm, "model"),
		AllowedTools: []string{},
		File:         file,
		Path:         folder.display(file),
	}
	if a.Name == "" {
		a.Name = strings.TrimSuffix(file, path.Ext(file))
	}
	for _, key := range []string{"tools", "allowedTools", "allowed-tools", "allowed_tools"} {
		if v, ok := fm[key]; ok {
			a.AllowedTools = toolList(v)
			break
		}
	}
	return a
}

// scanAgents reads every *.md file directly inside the agents folder (not in
// sub-folders, not hidden), sorted by name; on a name clash (case-insensitive)
// the first file in name order wins and the others are reported in shadowed.
// A missing folder is an empty list.
func scanAgents(folder Folder) (agents []Agent, shadowed []string, err error) {
	agents = []Agent{}
	if folder.Dir == "" {
		return agents, nil, nil
	}
	root, err := os.OpenRoot(folder.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return agents, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer root.Close()
	entries, err := fs.ReadDir(root.FS(), ".")
	if err != nil {
		return nil, nil, err
	}
	seen := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.EqualFold(path.Ext(name), ".md") {
			continue
		}
		if e.IsDir() {
			continue
		}
		data, err := readHead(root, name)
		if err != nil {
			// A symlink leading outside the folder, a dangling one, a folder
			// named x.md: not a profile.
			continue
		}
		a := agentFromFile(folder, name, data)
		key := strings.ToLower(a.Name)
		if seen[key] {
			shadowed = append(shadowed, a.Path)
			continue
		}
		seen[key] = true
		agents = append(agents, a)
	}
	slices.SortFunc(agents, func(x, y Agent) int {
		if c := strings.Compare(strings.ToLower(x.Name), strings.ToLower(y.Name)); c != 0 {
			return c
		}
		return strings.Compare(x.Name, y.Name)
	})
	return agents, shadowed, nil
}
