package restgw

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// bodyFields is the vocabulary of one route's JSON body: the request
// message's fields (by proto name; protojson's lowerCamelCase names are
// accepted too) and aliases, the words of the other routes and of the MCP
// tools, each naming one field only.
type bodyFields struct {
	message protoreflect.MessageDescriptor
	aliases map[string]string // alias → proto name
}

// bodies are the routes with a JSON body (POST, body "*" in
// http_rules.yaml), by path. A test checks that every POST route of the
// OpenAPI document is here.
var bodies = map[string]bodyFields{
	"/v1/skills:refresh": {message: desc(&skillsv1.RefreshSkillsRequest{})},
	"/v1/skills:search":  {message: desc(&skillsv1.SearchSkillsRequest{}), aliases: map[string]string{"context": "query", "task": "query", "restatement": "restated"}},
	"/v1/skills:match":   {message: desc(&skillsv1.MatchSkillRequest{}), aliases: map[string]string{"query": "context", "task": "context", "restatement": "restated"}},
	"/v1/scripts:run":    {message: desc(&skillsv1.RunScriptRequest{}), aliases: map[string]string{"script": "file", "name": "skill_path", "skill": "skill_path", "arguments": "args"}},
	"/v1/commands:run":   {message: desc(&skillsv1.RunCommandRequest{}), aliases: map[string]string{"name": "skill_path", "skill": "skill_path"}},
	"/v1/usage:report":   {message: desc(&skillsv1.ReportUsageRequest{}), aliases: map[string]string{"name": "skill_path", "skill": "skill_path"}},
	"/v1/usage/events":   {message: desc(&skillsv1.IngestEventsRequest{})},
	"/v1/docs:get":       {message: desc(&skillsv1.GetDocRequest{})},
}

func desc(m proto.Message) protoreflect.MessageDescriptor { return m.ProtoReflect().Descriptor() }

// checkBody renames the aliases of a JSON body to the fields' names and
// refuses a body with an unknown field, or a field given twice (by its name
// and an alias), with a message naming it and the fields the route takes.
// A body that is not a JSON object is left to the route's decoder, which
// refuses it; so are unknown fields inside the fields' values (the
// decoder does not discard them either).
func checkBody(r *http.Request) (int, *errorBody) {
	if r.Method != http.MethodPost || r.Body == nil || r.Body == http.NoBody {
		return 0, nil
	}
	fields, ok := bodies[r.URL.Path]
	if !ok {
		return 0, nil
	}
	data, err := io.ReadAll(r.Body)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		e := payloadTooLarge(tooLarge.Limit)
		return http.StatusRequestEntityTooLarge, &e
	case err != nil:
		// The connection broke: the decoder says so.
		r.Body = io.NopCloser(io.MultiReader(bytes.NewReader(data), errReader{err}))
		return 0, nil
	}
	r.Body = io.NopCloser(bytes.NewReader(data))
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return 0, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		return 0, nil // the decoder's error says where
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	renamed := false
	for _, k := range keys {
		if fields.known(k) {
			continue
		}
		name, ok := fields.aliases[k]
		if !ok {
			e := fields.unknown(r.Method+" "+r.URL.Path, k)
			return http.StatusBadRequest, &e
		}
		if _, both := obj[name]; both || obj[fields.jsonName(name)] != nil {
			e := invalid(fmt.Sprintf("%s %s takes %s once: give %q or its alias %q, not both", r.Method, r.URL.Path, name, name, k))
			e.Error.Details["field"] = clip(k, 60)
			return http.StatusBadRequest, &e
		}
		obj[name] = obj[k]
		delete(obj, k)
		renamed = true
	}
	if renamed {
		if out, err := json.Marshal(obj); err == nil {
			r.Body = io.NopCloser(bytes.NewReader(out))
			r.ContentLength = int64(len(out))
		}
	}
	return 0, nil
}

// known reports whether k names a field, by its proto or its JSON name.
func (f bodyFields) known(k string) bool {
	fds := f.message.Fields()
	return fds.ByName(protoreflect.Name(k)) != nil || fds.ByJSONName(k) != nil
}

// jsonName is the lowerCamelCase name of the field named name.
func (f bodyFields) jsonName(name string) string {
	if fd := f.message.Fields().ByName(protoreflect.Name(name)); fd != nil {
		return fd.JSONName()
	}
	return name
}

// names are the fields' proto names, in field order.
func (f bodyFields) names() []string {
	fds := f.message.Fields()
	out := make([]string, fds.Len())
	for i := range fds.Len() {
		out[i] = string(fds.Get(i).Name())
	}
	return out
}

// unknown is the answer to an unknown field k of route's body.
func (f bodyFields) unknown(route, k string) errorBody {
	names := f.names()
	var b strings.Builder
	fmt.Fprintf(&b, "unknown field %q in the body of %s", clip(k, 60), route)
	candidates := append(slices.Clone(names), sortedKeys(f.aliases)...)
	if s := closestName(k, candidates); s != "" {
		if name, ok := f.aliases[s]; ok {
			fmt.Fprintf(&b, " (did you mean %q, that is %q?)", s, name)
		} else {
			fmt.Fprintf(&b, " (did you mean %q?)", s)
		}
	}
	if len(names) == 0 {
		b.WriteString(": it takes no fields ({} or no body)")
	} else {
		fmt.Fprintf(&b, ": it takes %s", strings.Join(names, ", "))
	}
	if len(f.aliases) > 0 {
		byName := map[string][]string{}
		for _, alias := range sortedKeys(f.aliases) {
			byName[f.aliases[alias]] = append(byName[f.aliases[alias]], alias)
		}
		var also []string
		for _, name := range names {
			if al := byName[name]; len(al) > 0 {
				also = append(also, strings.Join(al, " or ")+" for "+name)
			}
		}
		fmt.Fprintf(&b, " (also accepted: %s)", strings.Join(also, "; "))
	}
	e := invalid(b.String())
	e.Error.Details["field"] = clip(k, 60)
	e.Error.Details["expected"] = strings.Join(names, ",")
	return e
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// closestName is the candidate within a small edit distance of s, "" for none.
func closestName(s string, candidates []string) string {
	best, bestD := "", len(s)+1
	for _, c := range candidates {
		if d := levenshtein(strings.ToLower(s), c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD > max(2, len(s)/3) {
		return ""
	}
	return best
}

// levenshtein is the edit distance of a and b, in bytes.
func levenshtein(a, b string) int {
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

// errReader returns err: the rest of a body whose reading failed.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
