// Package vocabulary is the one vocabulary of request fields across
// skillsd's surfaces: the alternative words accepted in place of the pinned
// field names of the REST bodies and the MCP tool arguments (search takes
// "context", match's word, for "query"; run_script takes "script", REST's
// word, for "file"; …), and the one way an unknown field is answered: with
// its name, the closest known name, and what the request takes.
//
// It is not the service: the gateways use it on what callers send before it
// reaches the service, as package healthz is for the probes.
package vocabulary

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Operations whose requests take aliases, by the MCP tool's name (the REST
// route of the same operation uses the same word).
const (
	Search      = "search_skills"
	Match       = "get_skill"
	Load        = "load_skill"
	List        = "list_skills"
	ReadFile    = "read_skill_file"
	RunScript   = "run_script"
	RunCommand  = "run_command"
	ReportUsage = "report_usage"
)

// aliases are the alternatives, each naming one field only: an alias that
// could mean two fields of a request is not one (read_skill_file's "path"
// could be the skill's or the file's).
var aliases = map[string]map[string]string{
	Search:      {"context": "query", "task": "query", "restatement": "restated"},
	Match:       {"query": "context", "task": "context", "restatement": "restated"},
	Load:        {"skill_path": "name", "path": "name", "skill": "name"},
	List:        {"skill_path": "path"},
	ReadFile:    {"name": "skill_path", "skill": "skill_path", "file_path": "file"},
	RunScript:   {"name": "skill_path", "skill": "skill_path", "script": "file", "arguments": "args"},
	RunCommand:  {"name": "skill_path", "skill": "skill_path"},
	ReportUsage: {"name": "skill_path", "skill": "skill_path"},
}

// Aliases returns the aliases of an operation: alias → field name.
func Aliases(op string) map[string]string { return maps.Clone(aliases[op]) }

// Request is the vocabulary of one request.
type Request struct {
	// Names are its fields' names, in order.
	Names []string
	// Known, when set, also accepts other spellings of the fields (protojson's
	// lowerCamelCase); nil accepts Names only.
	Known func(name string) bool
	// Aliases maps an alias to the field name it stands for.
	Aliases map[string]string
	// Noun ("argument", "field"), Where ("for run_script", "in the body of
	// POST /v1/scripts:run") and Taker ("run_script", "it") word the
	// messages.
	Noun, Where, Taker string
}

// Problem is what is wrong with a request's fields.
type Problem struct {
	// Field is the field at fault.
	Field string
	// Message says what is wrong and what the request takes.
	Message string
}

func (r Request) known(k string) bool {
	if slices.Contains(r.Names, k) {
		return true
	}
	return r.Known != nil && r.Known(k)
}

// Normalize renames the aliases of obj, a JSON object's fields, to their
// field names, in place; it reports whether it renamed any, or the problem:
// a field that is neither known nor an alias, or one given twice (by its
// name and an alias).
func (r Request) Normalize(obj map[string]json.RawMessage, spellings func(name string) []string) (bool, *Problem) {
	renamed := false
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if r.known(k) {
			continue
		}
		name, ok := r.Aliases[k]
		if !ok {
			return false, &Problem{Field: k, Message: r.unknown(k)}
		}
		others := []string{name}
		if spellings != nil {
			others = append(others, spellings(name)...)
		}
		for _, o := range others {
			if _, both := obj[o]; both {
				return false, &Problem{Field: k, Message: fmt.Sprintf("%s takes %s once: give %q or its alias %q, not both", r.Taker, name, name, k)}
			}
		}
		obj[name] = obj[k]
		delete(obj, k)
		renamed = true
	}
	return renamed, nil
}

// unknown is the message for the unknown field k.
func (r Request) unknown(k string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "unknown %s %q %s", r.Noun, clip(k, 60), r.Where)
	if s := Closest(k, append(slices.Clone(r.Names), slices.Sorted(maps.Keys(r.Aliases))...)); s != "" {
		if name, ok := r.Aliases[s]; ok {
			fmt.Fprintf(&b, " (did you mean %q, that is %q?)", s, name)
		} else {
			fmt.Fprintf(&b, " (did you mean %q?)", s)
		}
	}
	if len(r.Names) == 0 {
		fmt.Fprintf(&b, ": %s takes no %ss", r.Taker, r.Noun)
		return b.String()
	}
	fmt.Fprintf(&b, ": %s takes %s", r.Taker, strings.Join(r.Names, ", "))
	if len(r.Aliases) > 0 {
		byName := map[string][]string{}
		for _, alias := range slices.Sorted(maps.Keys(r.Aliases)) {
			byName[r.Aliases[alias]] = append(byName[r.Aliases[alias]], alias)
		}
		var also []string
		for _, name := range r.Names {
			if al := byName[name]; len(al) > 0 {
				also = append(also, strings.Join(al, " or ")+" for "+name)
			}
		}
		fmt.Fprintf(&b, " (also accepted: %s)", strings.Join(also, "; "))
	}
	return b.String()
}

// Closest is the candidate within a small edit distance of s (case
// ignored), "" for none.
func Closest(s string, candidates []string) string {
	best, bestD := "", len(s)+1
	for _, c := range candidates {
		if d := distance(strings.ToLower(s), c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD > max(2, len(s)/3) {
		return ""
	}
	return best
}

// distance is the Levenshtein distance of a and b, in bytes.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// clip shortens s for a message.
func clip(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
