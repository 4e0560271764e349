package core

import (
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// WithInputOf sets t's input schema to the one inferred from In, and returns
// t.
func WithInputOf[In any](t *mcp.Tool) (*mcp.Tool, error) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, fmt.Errorf("%s input schema: %w", t.Name, err)
	}
	t.InputSchema = in
	return t, nil
}

// InputSchemas infers the schemas of the types of values (zero values of
// tool input structs), in order.
func InputSchemas(values ...any) ([]*jsonschema.Schema, error) {
	out := make([]*jsonschema.Schema, len(values))
	for i, v := range values {
		s, err := jsonschema.ForType(reflect.TypeOf(v), nil)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// OutputSchemaOf infers the output schema of a tool answering T. It is
// inferred here rather than by mcp.AddTool so that every list is an array
// (the answers never hold null where a list is expected, and the schema
// says so), and it has no descriptions: the tool descriptions say what the
// answers hold, and descriptions of every output field would push
// tools/list past 8 KiB.
func OutputSchemaOf[T any](opts *jsonschema.ForOptions) (*jsonschema.Schema, error) {
	s, err := jsonschema.For[T](opts)
	if err != nil {
		return nil, err
	}
	ArraysNotNull(s)
	NoDescriptions(s)
	return s, nil
}

// Describe sets the descriptions of the properties of s that descs names.
func Describe(s *jsonschema.Schema, descs map[string]string) {
	for name, desc := range descs {
		if p := s.Properties[name]; p != nil {
			p.Description = desc
		}
	}
}

// ObjectSchema is the schema of an object whose properties have the given
// JSON types, the required ones listed.
func ObjectSchema(required []string, props map[string]string) *jsonschema.Schema {
	s := &jsonschema.Schema{Type: "object", Required: required, Properties: map[string]*jsonschema.Schema{}}
	for name, typ := range props {
		s.Properties[name] = &jsonschema.Schema{Type: typ}
	}
	return s
}

// ArraysNotNull turns the inferred type ["null", "array"] of every slice in s
// into "array".
func ArraysNotNull(s *jsonschema.Schema) {
	WalkSchema(s, func(s *jsonschema.Schema) {
		if len(s.Types) == 2 && s.Types[0] == "null" && s.Types[1] == "array" {
			s.Types, s.Type = nil, "array"
		}
	})
}

// NoDescriptions removes the descriptions of s and of every schema in it.
func NoDescriptions(s *jsonschema.Schema) {
	WalkSchema(s, func(s *jsonschema.Schema) { s.Description = "" })
}

// WalkSchema calls edit on s, then on every schema in it that the tools'
// schemas use (items, additionalProperties, properties and $defs), after
// edit has changed the one that holds it. A nil s is left alone.
func WalkSchema(s *jsonschema.Schema, edit func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	edit(s)
	WalkSchema(s.Items, edit)
	WalkSchema(s.AdditionalProperties, edit)
	for _, p := range s.Properties {
		WalkSchema(p, edit)
	}
	for _, d := range s.Defs {
		WalkSchema(d, edit)
	}
}

// ReadOnly returns the annotations of a tool that only reads the catalog.
func ReadOnly() *mcp.ToolAnnotations {
	closed := false
	return &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: &closed}
}

// AddReadOnly registers on server a tool that only reads the catalog
// (ReadOnly), named name, described desc, with the output schema out (its
// input schema inferred from In) and the handler h.
func AddReadOnly[In, Out any](server *mcp.Server, name, desc string, out *jsonschema.Schema, h mcp.ToolHandlerFor[In, Out]) {
	mcp.AddTool(server, &mcp.Tool{Name: name, Description: desc, OutputSchema: out, Annotations: ReadOnly()}, h)
}

// TextResult is a tool result holding text only.
func TextResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// NonNilList returns s, or an empty slice for nil, so that JSON holds [] and
// not null.
func NonNilList[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
