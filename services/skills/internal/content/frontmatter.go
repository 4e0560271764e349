package content

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

// frontmatter parses the YAML frontmatter of text leniently: no frontmatter,
// or frontmatter that is not a YAML mapping, gives an empty map and ok false
// (the file is still indexed, with its file name as name: REQ-BUILD-002).
func frontmatter(text string) (fields map[string]any, body string, ok bool) {
	fm, body, _, found := skill.SplitFrontmatter(text)
	if !found {
		return map[string]any{}, text, false
	}
	var m map[string]any
	if err := yaml.Unmarshal([]byte(fm), &m); err != nil || m == nil {
		return map[string]any{}, body, false
	}
	return m, body, true
}

// str returns the string value of key, trimmed; "" when absent or not a
// scalar.
func str(m map[string]any, key string) string {
	switch v := m[key].(type) {
	case string:
		return strings.TrimSpace(v)
	case int, int64, float64, bool:
		return strings.TrimSpace(yamlScalar(v))
	}
	return ""
}

func yamlScalar(v any) string {
	b, err := yaml.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}

// toolList reads a tool list written as a YAML list or as one string, where
// tools are separated by commas (Claude Code's "Read, Grep, Glob") or, with
// no comma, by spaces (the Agent Skills spec's allowed-tools). Empty entries
// are dropped; the result is never nil.
func toolList(v any) []string {
	out := []string{}
	switch v := v.(type) {
	case string:
		var parts []string
		if strings.Contains(v, ",") {
			parts = strings.Split(v, ",")
		} else {
			parts = strings.Fields(v)
		}
		for _, p := range parts {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	case []any:
		for _, item := range v {
			if s, ok := item.(string); ok {
				if s = strings.TrimSpace(s); s != "" {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// firstHeading returns the text of the first "# " heading of a markdown body,
// or "".
func firstHeading(body string) string {
	inFence := false
	for line := range strings.SplitSeq(body, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
			continue
		}
		if !inFence && strings.HasPrefix(t, "# ") {
			return strings.TrimSpace(strings.TrimPrefix(t, "# "))
		}
	}
	return ""
}
