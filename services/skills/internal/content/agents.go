package content

import (
	"io/fs"
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
// A missing folder is an empty list. Files that look like profiles but cannot
// be read (a FIFO, a link leading outside, …) are left out with a Diagnostic.
func scanAgents(folder Folder) (agents []Agent, shadowed []string, diags []Diagnostic, err error) {
	agents = []Agent{}
	rule, err := folder.rule()
	if err != nil {
		return nil, nil, nil, err
	}
	if rule == nil {
		return agents, nil, nil, nil
	}
	seen := map[string]bool{}
	err = rule.Walk(func(name string, info fs.FileInfo, err error) error {
		isDir := info != nil && info.IsDir()
		if strings.HasPrefix(name, ".") || !strings.EqualFold(path.Ext(name), ".md") {
			if isDir {
				return fs.SkipDir
			}
			return nil
		}
		if isDir {
			return fs.SkipDir // a folder named x.md: not a profile
		}
		if err != nil {
			diags = append(diags, diagnose(folder, name, info, err))
			return nil
		}
		data, err := readHead(rule, name)
		if err != nil {
			diags = append(diags, diagnose(folder, name, nil, err))
			return nil
		}
		a := agentFromFile(folder, name, data)
		key := strings.ToLower(a.Name)
		if seen[key] {
			shadowed = append(shadowed, a.Path)
			return nil
		}
		seen[key] = true
		agents = append(agents, a)
		return nil
	})
	if err != nil {
		return nil, nil, nil, err
	}
	slices.SortFunc(agents, func(x, y Agent) int {
		if c := strings.Compare(strings.ToLower(x.Name), strings.ToLower(y.Name)); c != 0 {
			return c
		}
		return strings.Compare(x.Name, y.Name)
	})
	return agents, shadowed, diags, nil
}
