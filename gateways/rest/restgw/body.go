package restgw

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/vocabulary"
)

// bodyFields is the vocabulary of one route's JSON body: the request
// message's fields (by proto name; protojson's lowerCamelCase names are
// accepted too) and the aliases of package vocabulary, the words of the
// other routes and of the MCP tools, each naming one field only.
type bodyFields struct {
	message protoreflect.MessageDescriptor
	aliases map[string]string // alias → proto name
}

// bodies are the routes with a JSON body (POST, body "*" in
// http_rules.yaml), by path. A test checks that every POST route of the
// OpenAPI document is here.
var bodies = map[string]bodyFields{
	"/v1/skills:refresh": {message: desc(&skillsv1.RefreshSkillsRequest{})},
	"/v1/skills:search":  {message: desc(&skillsv1.SearchSkillsRequest{}), aliases: vocabulary.Aliases(vocabulary.Search)},
	"/v1/skills:match":   {message: desc(&skillsv1.MatchSkillRequest{}), aliases: vocabulary.Aliases(vocabulary.Match)},
	"/v1/scripts:run":    {message: desc(&skillsv1.RunScriptRequest{}), aliases: vocabulary.Aliases(vocabulary.RunScript)},
	"/v1/commands:run":   {message: desc(&skillsv1.RunCommandRequest{}), aliases: vocabulary.Aliases(vocabulary.RunCommand)},
	"/v1/usage:report":   {message: desc(&skillsv1.ReportUsageRequest{}), aliases: vocabulary.Aliases(vocabulary.ReportUsage)},
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
	req := vocabulary.Request{
		Names: fields.names(), Known: fields.known, Aliases: fields.aliases,
		Noun: "field", Where: "in the body of " + r.Method + " " + r.URL.Path, Taker: "it",
	}
	renamed, problem := req.Normalize(obj, func(name string) []string { return []string{fields.jsonName(name)} })
	if problem != nil {
		e := invalid(problem.Message)
		e.Error.Details["field"] = clip(problem.Field, 60)
		e.Error.Details["expected"] = strings.Join(req.Names, ",")
		return http.StatusBadRequest, &e
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

// errReader returns err: the rest of a body whose reading failed.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
