package oas3gen_test

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/skillsd/skillsd/gateways/rest/internal/oas3gen"
)

func convertCommitted(t *testing.T) []byte {
	t.Helper()
	v2, err := os.ReadFile("../openapiv2/skillsd.swagger.json")
	if err != nil {
		t.Fatal(err)
	}
	out, err := oas3gen.Convert(v2)
	if err != nil {
		t.Fatalf("Convert: %v", err)
	}
	return out
}

// The served document is what the converter makes of the generated OpenAPI 2
// document (make checkgenerate checks the same from the contract).
func TestCommittedDocument(t *testing.T) {
	want, err := os.ReadFile("../../restgw/openapi/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	if got := convertCommitted(t); !bytes.Equal(got, want) {
		t.Errorf("restgw/openapi/openapi.json is not Convert's output: run make generate")
	}
}

// A strict OpenAPI 3 validator accepts it.
func TestValid(t *testing.T) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(convertCommitted(t))
	if err != nil {
		t.Fatalf("loading: %v", err)
	}
	if err := doc.Validate(t.Context()); err != nil {
		t.Fatalf("not a valid OpenAPI 3 document: %v", err)
	}
	if doc.OpenAPI != "3.0.3" {
		t.Errorf("openapi %q", doc.OpenAPI)
	}
}

func TestWhatTheGatewayAnswers(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(convertCommitted(t))
	if err != nil {
		t.Fatal(err)
	}
	schemas := doc.Components.Schemas
	for _, gone := range []string{"rpcStatus", "protobufAny"} {
		if _, ok := schemas[gone]; ok {
			t.Errorf("schema %s is still there: nothing answers it", gone)
		}
	}
	errSchema := schemas["Error"].Value
	for _, p := range []string{"code", "message", "details"} {
		if errSchema.Properties[p] == nil {
			t.Errorf("Error has no %s", p)
		}
	}
	reasons := schemas["ErrorReason"].Value.Enum
	if len(reasons) < 20 || reasons[0] != "SKILL_NOT_FOUND" {
		t.Errorf("ErrorReason enum %v", reasons)
	}
	if s := doc.Components.SecuritySchemes["bearerAuth"]; s == nil || s.Value.Type != "http" || s.Value.Scheme != "bearer" {
		t.Errorf("no bearer security scheme: %+v", s)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			def := op.Responses.Default()
			if def == nil || def.Ref != "#/components/responses/Error" {
				t.Errorf("%s %s: default response %+v, want the Error response", method, path, def)
			}
		}
	}
	for _, p := range []string{"/healthz", "/readyz", "/openapi.json"} {
		op := doc.Paths.Value(p)
		if op == nil || op.Get == nil || op.Get.Security == nil || len(*op.Get.Security) != 0 {
			t.Errorf("%s: missing, or not marked as needing no credentials", p)
		}
	}
	// int64 as string, unset messages as null, every field present.
	st := schemas["v1GetCatalogStatusResponse"].Value
	if g := st.Properties["generation"].Value; !g.Type.Is("string") || g.Format != "int64" {
		t.Errorf("generation: %v %q, want an int64 string", g.Type, g.Format)
	}
	if !st.Properties["semantic"].Value.Nullable || !st.Properties["built_at"].Value.Nullable {
		t.Errorf("semantic or built_at not nullable")
	}
	if len(st.Required) != len(st.Properties) {
		t.Errorf("GetCatalogStatusResponse requires %v of %d properties", st.Required, len(st.Properties))
	}
	arg := schemas["v1ScriptArg"].Value
	for _, r := range arg.Required {
		if r == "default" {
			t.Errorf("ScriptArg.default (proto3 optional, absent when unset) is required")
		}
	}
	if req := schemas["v1SearchSkillsRequest"].Value; len(req.Required) != 0 {
		t.Errorf("a request's fields are required: %v", req.Required)
	}
	watch := doc.Paths.Value("/v1/catalog:watch").Get
	if watch.Extensions[oas3gen.StreamExtension] != "application/x-ndjson" {
		t.Errorf("catalog:watch is not marked as a stream: %v", watch.Extensions)
	}
}

func TestBadInput(t *testing.T) {
	v2, err := os.ReadFile("../openapiv2/skillsd.swagger.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(v2, &doc); err != nil {
		t.Fatal(err)
	}
	mutate := func(f func(map[string]any)) []byte {
		var d map[string]any
		_ = json.Unmarshal(v2, &d)
		f(d)
		out, _ := json.Marshal(d)
		return out
	}
	for name, tc := range map[string]struct {
		in   []byte
		want string
	}{
		"not JSON":  {[]byte("{"), "reading"},
		"OpenAPI 3": {[]byte(`{"openapi":"3.0.0"}`), "swagger 2.0"},
		"unknown message": {mutate(func(d map[string]any) {
			defs := d["definitions"].(map[string]any)
			defs["v1Nope"] = map[string]any{"type": "object", "properties": map[string]any{"x": map[string]any{"type": "string"}}}
			ls := d["paths"].(map[string]any)["/v1/skills"].(map[string]any)["get"].(map[string]any)
			ls["responses"].(map[string]any)["200"].(map[string]any)["schema"] = map[string]any{"$ref": "#/definitions/v1Nope"}
		}), "no message skills.v1.Nope"},
		"int64 as a number": {mutate(func(d map[string]any) {
			p := d["definitions"].(map[string]any)["v1SkillFile"].(map[string]any)["properties"].(map[string]any)
			p["size_bytes"] = map[string]any{"type": "integer", "format": "int64"}
		}), "64-bit integer"},
		"a field without a property": {mutate(func(d map[string]any) {
			delete(d["definitions"].(map[string]any)["v1Skill"].(map[string]any)["properties"].(map[string]any), "name")
		}), "no property for field name"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := oas3gen.Convert(tc.in)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Convert: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func FuzzConvert(f *testing.F) {
	v2, err := os.ReadFile("../openapiv2/skillsd.swagger.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(v2)
	f.Add([]byte(`{"swagger":"2.0","paths":{"/x":{"get":{"parameters":[{"in":"body"}],"responses":{"200":{"schema":1}}}}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		_, _ = oas3gen.Convert(in) // an error is fine; a panic is not
	})
}
