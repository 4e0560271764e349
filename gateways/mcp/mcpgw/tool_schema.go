package mcpgw

import (
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
)

// outputSchemaSet holds the output schemas of the tools.
type outputSchemaSet struct {
	loadSkill  *jsonschema.Schema
	listSkills *jsonschema.Schema
}

// outputSchemas builds the output schemas from the output types. They are
// built here rather than by mcp.AddTool because SkillNode is recursive (the
// inferrer refuses cycles) and because every list is always an array: the
// answers never hold null where a list is expected, and the schemas say so.
func outputSchemas() (*outputSchemaSet, error) {
	load, err := jsonschema.For[LoadSkillOutput](nil)
	if err != nil {
		return nil, fmt.Errorf("load_skill output schema: %w", err)
	}
	nodeList := &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Ref: "#/$defs/SkillNode"}}
	opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[[]SkillNode](): nodeList,
	}}
	node, err := jsonschema.For[SkillNode](opts)
	if err != nil {
		return nil, fmt.Errorf("SkillNode schema: %w", err)
	}
	list, err := jsonschema.For[ListSkillsOutput](opts)
	if err != nil {
		return nil, fmt.Errorf("list_skills output schema: %w", err)
	}
	list.Defs = map[string]*jsonschema.Schema{"SkillNode": node}
	for _, s := range []*jsonschema.Schema{load, list} {
		arraysNotNull(s)
		// The tool descriptions say what the answers hold; descriptions of
		// every output field would push tools/list past 8 KiB.
		noDescriptions(s)
	}
	return &outputSchemaSet{loadSkill: load, listSkills: list}, nil
}

// arraysNotNull turns the inferred type ["null", "array"] of every slice in s
// into "array".
func arraysNotNull(s *jsonschema.Schema) {
	walkSchema(s, func(s *jsonschema.Schema) {
		if len(s.Types) == 2 && s.Types[0] == "null" && s.Types[1] == "array" {
			s.Types, s.Type = nil, "array"
		}
	})
}

// noDescriptions removes the descriptions of s and of every schema in it.
func noDescriptions(s *jsonschema.Schema) {
	walkSchema(s, func(s *jsonschema.Schema) { s.Description = "" })
}

// walkSchema calls edit on s, then on every schema in it that the tools'
// schemas use (items, additionalProperties, properties and $defs), after
// edit has changed the one that holds it. A nil s is left alone.
func walkSchema(s *jsonschema.Schema, edit func(*jsonschema.Schema)) {
	if s == nil {
		return
	}
	edit(s)
	walkSchema(s.Items, edit)
	walkSchema(s.AdditionalProperties, edit)
	for _, p := range s.Properties {
		walkSchema(p, edit)
	}
	for _, d := range s.Defs {
		walkSchema(d, edit)
	}
}

// inputSchemas infers the schemas of the types of values (zero values of
// tool input structs), in order.
func inputSchemas(values ...any) ([]*jsonschema.Schema, error) {
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
