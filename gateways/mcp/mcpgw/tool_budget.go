package mcpgw

import (
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
)

// toolsListBudget is the size tools/list of the native profile must stay
// under, as compact JSON of its tools array: every session pays for it in
// context before its first call. TestToolsListGolden enforces it.
const toolsListBudget = 8 << 10

// trimForBudget removes from a native tool's output schema what tells a
// client nothing, so that all eight native tools fit in toolsListBudget:
// required, and additionalProperties true or false. The output schema tells
// a model what an answer may hold; the answers are ours, so it need not say
// which fields are always there nor forbid others. Input schemas keep theirs:
// they tell the model what to send. Output schemas are only loosened, so the
// answers still validate against them.
//
// idempotentHint stays on the read-only tools although the MCP specification
// gives it a meaning only when readOnlyHint is false: go-sdk (since v1.7.0)
// writes the key whatever its value, so false would save one byte and tell
// clients that ignore readOnlyHint that a retry is unsafe.
func trimForBudget(t *mcp.Tool) *mcp.Tool {
	if s, ok := t.OutputSchema.(*jsonschema.Schema); ok {
		trimOutputSchema(s)
	}
	return t
}

// trimOutputSchema removes required and boolean additionalProperties from s
// and every schema in it. A schema-valued additionalProperties (the type of
// a map's values) is kept.
func trimOutputSchema(s *jsonschema.Schema) {
	core.WalkSchema(s, func(s *jsonschema.Schema) {
		s.Required = nil
		if ap := s.AdditionalProperties; ap != nil && isBooleanSchema(ap) {
			s.AdditionalProperties = nil
		}
	})
}

// isBooleanSchema reports whether s is the schema true or false: jsonschema-go
// marshals {} as true and {"not": {}} as false.
func isBooleanSchema(s *jsonschema.Schema) bool {
	b, err := s.MarshalJSON()
	return err == nil && (string(b) == "true" || string(b) == "false")
}
