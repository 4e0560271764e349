// Package oas3gen makes the OpenAPI 3.0 document that skills-rest serves at
// /openapi.json. Its input is the OpenAPI 2 document protoc-gen-openapiv2
// writes from the contract and gateways/rest/http_rules.yaml (make generate);
// its output describes what the gateway really answers, which the OpenAPI 2
// document does not:
//
//   - errors are the gateway's {"error": {"code", "message", "details"}}
//     (restgw's errorBody), not google.rpc.Status;
//   - every field of an answer is present (the gateway emits unpopulated
//     fields), a message field that is unset is null, a proto3 optional
//     field that is unset is absent;
//   - 64-bit integers are JSON strings (protojson), enums their names;
//   - GET /v1/catalog:watch is newline-delimited JSON, one
//     {"result": …} or {"error": …} object per line;
//   - callers may need a bearer token (--auth), and /healthz, /readyz and
//     /openapi.json never do;
//   - /healthz, /readyz and /openapi.json are routes too.
//
// The contract's descriptors (the generated Go package) are the source of
// truth for presence, nullability and 64-bit fields; a schema the converter
// cannot match to a message, or a 64-bit field the OpenAPI 2 document does
// not render as a string, is an error rather than a silent guess.
package oas3gen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"google.golang.org/genproto/googleapis/rpc/code"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// Version is the OpenAPI version of the document Convert writes.
const Version = "3.0.3"

// Names of the components Convert adds.
const (
	errorBodySchema   = "ErrorBody"
	errorSchema       = "Error"
	errorReasonSchema = "ErrorReason"
	healthSchema      = "Health"
	errorResponse     = "Error"
	bearerScheme      = "bearerAuth"
	// StreamExtension marks an operation whose 200 answer is
	// newline-delimited JSON; its value is the media type of the lines.
	StreamExtension = "x-stream"
)

// gatewayCodes are the error codes the gateway itself answers besides the
// ErrorReason and gRPC code names (restgw/errors.go, githubauth).
var gatewayCodes = []string{"METHOD_NOT_ALLOWED", "PAYLOAD_TOO_LARGE", "UNAUTHORIZED", "FORBIDDEN", "UPSTREAM_ERROR"}

type object = map[string]any

// Convert returns the OpenAPI 3 document for the OpenAPI 2 document v2,
// indented JSON with sorted keys and a final newline.
func Convert(v2 []byte) ([]byte, error) {
	var in object
	dec := json.NewDecoder(bytes.NewReader(v2))
	dec.UseNumber()
	if err := dec.Decode(&in); err != nil {
		return nil, fmt.Errorf("oas3gen: reading the OpenAPI 2 document: %w", err)
	}
	if in["swagger"] != "2.0" {
		return nil, fmt.Errorf("oas3gen: want a swagger 2.0 document, got %v", in["swagger"])
	}
	c := &converter{pkg: skillsv1.File_skills_v1_types_proto.Package()}
	out, err := c.document(in)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("oas3gen: writing the document: %w", err)
	}
	return buf.Bytes(), nil
}

type converter struct {
	pkg protoreflect.FullName
}

func (c *converter) document(in object) (object, error) {
	defs, _ := in["definitions"].(object)
	schemas := object{}
	for name, s := range defs {
		schemas[name] = rewriteRefs(s)
	}
	paths := object{}
	inPaths, _ := in["paths"].(object)
	for p, item := range inPaths {
		ops := object{}
		methods, ok := item.(object)
		if !ok {
			return nil, fmt.Errorf("oas3gen: path %s is not an object", p)
		}
		for method, op := range methods {
			opObj, ok := op.(object)
			if !ok {
				return nil, fmt.Errorf("oas3gen: %s %s is not an object", strings.ToUpper(method), p)
			}
			o, err := c.operation(opObj)
			if err != nil {
				return nil, fmt.Errorf("oas3gen: %s %s: %w", strings.ToUpper(method), p, err)
			}
			ops[method] = o
		}
		paths[p] = ops
	}
	c.addFixedRoutes(paths)

	doc := object{
		"openapi": Version,
		"info":    in["info"],
		"tags":    in["tags"],
		"servers": []any{object{"url": "/", "description": "the skills-rest that serves this document"}},
		"paths":   paths,
		"components": object{
			"schemas":         schemas,
			"responses":       object{errorResponse: errorResponseObject()},
			"securitySchemes": object{bearerScheme: bearerSchemeObject()},
		},
		// Either no credentials (--auth none) or a bearer token: which one
		// a server wants is its configuration, and a refused call is 401.
		"security": []any{object{}, object{bearerScheme: []any{}}},
	}
	if err := c.addErrorSchemas(schemas); err != nil {
		return nil, err
	}
	schemas[healthSchema] = object{
		"type":        "object",
		"description": "The answer of GET /healthz and GET /readyz.",
		"required":    []any{"status"},
		"properties": object{"status": object{
			"type":        "string",
			"description": "The service's gRPC health status (SERVING, NOT_SERVING, …), or UNREACHABLE when the check itself failed.",
		}},
	}
	if err := c.markResponses(paths, schemas); err != nil {
		return nil, err
	}
	prune(doc, schemas)
	return doc, nil
}

// operation converts one OpenAPI 2 operation.
func (c *converter) operation(in object) (object, error) {
	out := object{}
	for k, v := range in {
		switch k {
		case "parameters", "responses":
		default:
			out[k] = v
		}
	}
	var params []any
	inParams, _ := in["parameters"].([]any)
	for _, p := range inParams {
		p, ok := p.(object)
		if !ok {
			return nil, fmt.Errorf("a parameter is not an object")
		}
		if p["in"] == "body" {
			out["requestBody"] = object{
				"required": true,
				"content":  object{"application/json": object{"schema": rewriteRefs(p["schema"])}},
			}
			continue
		}
		param := object{"name": p["name"], "in": p["in"], "required": p["required"] == true}
		if d, ok := p["description"]; ok {
			param["description"] = d
		}
		schema := object{}
		for _, k := range []string{"type", "format", "pattern", "items", "enum", "default"} {
			if v, ok := p[k]; ok {
				schema[k] = rewriteRefs(v)
			}
		}
		if p["collectionFormat"] == "multi" {
			param["style"], param["explode"] = "form", true
		}
		if p["in"] == "path" && p["pattern"] == ".+" {
			// {skill_path=**}: slashes are part of the value; the gateway
			// unescapes %2F to '/' too.
			param["description"] = fmt.Sprint(p["description"], " May contain '/' (sent as is or as %2F).")
			param["x-slashes"] = true
		}
		param["schema"] = schema
		params = append(params, param)
	}
	if len(params) > 0 {
		out["parameters"] = params
	}
	responses := object{}
	inResponses, _ := in["responses"].(object)
	for status, r := range inResponses {
		if status == "default" {
			continue
		}
		r, ok := r.(object)
		if !ok {
			return nil, fmt.Errorf("response %s is not an object", status)
		}
		resp := object{"description": strings.TrimSuffix(fmt.Sprint(r["description"]), "(streaming responses)")}
		if s, ok := r["schema"]; ok {
			schema, ok := rewriteRefs(s).(object)
			if !ok {
				return nil, fmt.Errorf("the schema of response %s is not an object", status)
			}
			mediaType := "application/json"
			if title, _ := schema["title"].(string); strings.HasPrefix(title, "Stream result of ") {
				// grpc-gateway writes one JSON object per line, each
				// {"result": message} or, when the stream fails,
				// {"error": …} in the gateway's error shape.
				props, _ := schema["properties"].(object)
				result, ok := props["result"]
				if !ok {
					return nil, fmt.Errorf("the stream of response %s has no result", status)
				}
				schema = object{
					"type":        "object",
					"description": "One line of the stream: a message, or the error that ended it.",
					"properties": object{
						"result": result,
						"error":  ref(errorSchema),
					},
				}
				out[StreamExtension] = "application/x-ndjson"
				resp["description"] = "A stream of newline-delimited JSON objects (sent as application/json), one per message, until the client leaves."
			}
			resp["content"] = object{mediaType: object{"schema": schema}}
		}
		responses[status] = resp
	}
	responses["default"] = object{"$ref": "#/components/responses/" + errorResponse}
	out["responses"] = responses
	return out, nil
}

// addFixedRoutes documents the routes restgw adds beside the contract's.
func (c *converter) addFixedRoutes(paths object) {
	health := func(description string) object {
		return object{"description": description, "content": object{"application/json": object{"schema": ref(healthSchema)}}}
	}
	paths["/healthz"] = gatewayRoute(
		"Liveness of the gateway and the service behind it.",
		"200 while the service answers, its catalog loaded or not (restarting would not help a server that is still loading); 503 when it cannot be reached. Never needs credentials.",
		"Gateway_Health",
		object{"200": health("The service is alive."), "503": health("The service cannot be reached.")})
	paths["/readyz"] = gatewayRoute(
		"Readiness: the service's catalog is loaded and it answers.",
		"200 when the service's gRPC health check says SERVING; 503 NOT_SERVING while its first catalog loads (a first clone) or it stops, 503 UNREACHABLE when it cannot be reached. Never needs credentials.",
		"Gateway_Ready",
		object{"200": health("The service is ready."), "503": health("The service is not ready or cannot be reached.")})
	paths["/openapi.json"] = gatewayRoute(
		"This document.",
		"The OpenAPI 3 document of the gateway. Never needs credentials.",
		"Gateway_OpenAPI",
		object{"200": object{"description": "The OpenAPI document.", "content": object{"application/json": object{"schema": object{"type": "object", "additionalProperties": true}}}}})
}

// gatewayRoute is the path item of one of the gateway's own GET routes:
// tagged Gateway, open (no security requirement), its responses and the
// default error response.
func gatewayRoute(summary, description, operationID string, responses object) object {
	responses["default"] = object{"$ref": "#/components/responses/" + errorResponse}
	return object{"get": object{
		"summary":     summary,
		"description": description,
		"operationId": operationID,
		"tags":        []any{"Gateway"},
		"security":    []any{},
		"responses":   responses,
	}}
}

func errorResponseObject() object {
	return object{
		"description": "An error: the HTTP status follows the gRPC code (404 for NOT_FOUND, 401 for UNAUTHENTICATED, …). A 401 carries WWW-Authenticate: Bearer.",
		"content":     object{"application/json": object{"schema": ref(errorBodySchema)}},
	}
}

func bearerSchemeObject() object {
	return object{
		"type":   "http",
		"scheme": "bearer",
		"description": "Sent as Authorization: Bearer <token> when the server requires it (skills-rest --auth). " +
			"With --auth github the token is the URL-safe base64 of the caller's GitHub token. " +
			"A missing or refused token is answered 401 with WWW-Authenticate: Bearer.",
	}
}

// addErrorSchemas adds the gateway's error shape and the contract's
// ErrorReason names.
func (c *converter) addErrorSchemas(schemas object) error {
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(c.pkg + ".ErrorReason")
	if err != nil {
		return fmt.Errorf("oas3gen: the contract has no ErrorReason enum: %w", err)
	}
	values := d.(protoreflect.EnumDescriptor).Values()
	var reasons []any
	for i := range values.Len() {
		if v := values.Get(i); v.Number() != 0 {
			reasons = append(reasons, strings.TrimPrefix(string(v.Name()), "ERROR_REASON_"))
		}
	}
	var grpcCodes []string
	for n, name := range code.Code_name {
		if n != 0 {
			grpcCodes = append(grpcCodes, name)
		}
	}
	sort.Strings(grpcCodes)
	schemas[errorReasonSchema] = object{
		"type":        "string",
		"description": "The machine-readable reasons of skills.v1.ErrorReason, as they appear in Error.code (the enum value's name without ERROR_REASON_).",
		"enum":        reasons,
	}
	schemas[errorBodySchema] = object{
		"type":        "object",
		"description": "Every error answer of the gateway.",
		"required":    []any{"error"},
		"properties":  object{"error": ref(errorSchema)},
	}
	schemas[errorSchema] = object{
		"type":        "object",
		"description": "What went wrong.",
		"required":    []any{"code", "message", "details"},
		"properties": object{
			"code": object{
				"type": "string",
				"description": "An ErrorReason (see the ErrorReason schema: SKILL_NOT_FOUND, …) when the service gave one; else the gRPC code's name (" +
					strings.Join(grpcCodes, ", ") + "); or one of the gateway's own: " + strings.Join(gatewayCodes, ", ") + ".",
			},
			"message": object{"type": "string", "description": "A sentence for people."},
			"details": object{
				"type": "object",
				"description": "The ErrorInfo metadata (SKILL_NOT_FOUND: skill_path and suggestions, comma-separated; MISSING_ARGUMENTS: missing; …) " +
					"and grpc_code, the gRPC code in Go spelling (NotFound). Delegated GitHub auth adds repo and githubStatus (a number).",
				"additionalProperties": object{"oneOf": []any{object{"type": "string"}, object{"type": "integer"}}},
			},
		},
	}
	return nil
}

// markResponses sets required and nullable on every schema an answer can
// hold, from the contract's descriptors. A schema reachable from both a
// request and an answer is an error: it would need two shapes.
func (c *converter) markResponses(paths, schemas object) error {
	responseRoots, requestRoots := map[string]bool{}, map[string]bool{}
	for _, item := range paths {
		for _, op := range item.(object) { // built by document
			op := op.(object)
			collectRefs(op["responses"], responseRoots)
			collectRefs(op["requestBody"], requestRoots)
			collectRefs(op["parameters"], requestRoots)
		}
	}
	inResponses := reachable(responseRoots, schemas)
	inRequests := reachable(requestRoots, schemas)
	for _, name := range slices.Sorted(maps.Keys(inResponses)) {
		if inRequests[name] && isMessageSchema(schemas[name]) {
			return fmt.Errorf("oas3gen: schema %s is used in requests and answers; answers need every field required", name)
		}
		s, ok := schemas[name].(object)
		if !ok {
			return fmt.Errorf("oas3gen: schema %s is not an object", name)
		}
		if strings.HasPrefix(name, "v1") {
			if err := c.markMessage(name, s); err != nil {
				return err
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(schemas)) {
		if strings.HasPrefix(name, "v1") && isMessageSchema(schemas[name]) {
			if err := c.checkInt64(name, schemas[name].(object)); err != nil {
				return err
			}
		}
	}
	return nil
}

func isMessageSchema(s any) bool {
	o, ok := s.(object)
	return ok && o["type"] == "object"
}

// message returns the descriptor behind a definition name (v1Skill).
func (c *converter) message(name string) (protoreflect.MessageDescriptor, error) {
	full := c.pkg + protoreflect.FullName("."+strings.TrimPrefix(name, "v1"))
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(full)
	if err != nil {
		return nil, fmt.Errorf("oas3gen: schema %s: no message %s in the contract: %w", name, full, err)
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, fmt.Errorf("oas3gen: schema %s: %s is not a message", name, full)
	}
	return md, nil
}

// markMessage makes an answer schema say what the gateway's JSON holds:
// every field, except a proto3 optional or oneof field that is unset; a
// singular message field may be null.
func (c *converter) markMessage(name string, s object) error {
	if s["type"] != "object" {
		return nil // an enum
	}
	md, err := c.message(name)
	if err != nil {
		return err
	}
	props, _ := s["properties"].(object)
	var required []any
	fields := md.Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		prop, ok := props[string(f.Name())].(object)
		if !ok {
			return fmt.Errorf("oas3gen: schema %s has no property for field %s", name, f.Name())
		}
		if f.ContainingOneof() == nil {
			required = append(required, string(f.Name()))
		}
		if f.Kind() == protoreflect.MessageKind && !f.IsList() && !f.IsMap() {
			props[string(f.Name())] = nullable(prop, f.Message())
		}
	}
	if len(props) != fields.Len() {
		return fmt.Errorf("oas3gen: schema %s has %d properties, message %s %d fields", name, len(props), md.FullName(), fields.Len())
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return nil
}

// nullable is prop allowing null. A $ref cannot have siblings in OpenAPI
// 3.0, so it is wrapped in allOf.
func nullable(prop object, md protoreflect.MessageDescriptor) object {
	if r, ok := prop["$ref"]; ok {
		out := object{"allOf": []any{object{"$ref": r}}, "nullable": true}
		for k, v := range prop {
			if k != "$ref" {
				out[k] = v
			}
		}
		return out
	}
	out := maps.Clone(prop)
	out["nullable"] = true
	if md.FullName() == "google.protobuf.Struct" {
		out["additionalProperties"] = true
	}
	return out
}

// checkInt64 fails when a 64-bit integer field is not a JSON string in the
// schema: protojson writes them as strings, so a number would be a lie.
func (c *converter) checkInt64(name string, s object) error {
	md, err := c.message(name)
	if err != nil {
		return err
	}
	props, _ := s["properties"].(object)
	fields := md.Fields()
	for i := range fields.Len() {
		f := fields.Get(i)
		switch f.Kind() {
		case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
			protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		default:
			continue
		}
		prop, _ := props[string(f.Name())].(object)
		if f.IsList() {
			prop, _ = prop["items"].(object)
		}
		if prop["type"] != "string" {
			return fmt.Errorf("oas3gen: %s.%s is a 64-bit integer but its schema says %v, not string", name, f.Name(), prop["type"])
		}
	}
	return nil
}

// prune drops the schemas nothing refers to (google.rpc.Status and Any,
// which no answer holds any more).
func prune(doc, schemas object) {
	for {
		used := map[string]bool{}
		for k, v := range doc {
			if k != "components" {
				collectRefs(v, used)
			}
		}
		comps := doc["components"].(object)
		collectRefs(comps["responses"], used)
		for name, s := range schemas {
			if used[name] {
				collectRefs(s, used)
			}
		}
		// ErrorReason is documentation for Error.code, referred to by name.
		used[errorReasonSchema] = true
		// Transitively: a schema used only by an unused one is unused.
		all := reachable(used, schemas)
		removed := false
		for name := range schemas {
			if !all[name] {
				delete(schemas, name)
				removed = true
			}
		}
		if !removed {
			return
		}
	}
}

// reachable is roots and every schema they refer to, transitively.
func reachable(roots map[string]bool, schemas object) map[string]bool {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(name string) {
		if seen[name] {
			return
		}
		seen[name] = true
		refs := map[string]bool{}
		collectRefs(schemas[name], refs)
		for r := range refs {
			visit(r)
		}
	}
	for r := range roots {
		visit(r)
	}
	return seen
}

const (
	v2Prefix = "#/definitions/"
	v3Prefix = "#/components/schemas/"
)

func ref(name string) object { return object{"$ref": v3Prefix + name} }

// collectRefs adds the schema names v refers to.
func collectRefs(v any, into map[string]bool) {
	switch v := v.(type) {
	case object:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" && strings.HasPrefix(s, v3Prefix) {
				into[strings.TrimPrefix(s, v3Prefix)] = true
			} else {
				collectRefs(x, into)
			}
		}
	case []any:
		for _, x := range v {
			collectRefs(x, into)
		}
	}
}

// rewriteRefs is a deep copy of v with OpenAPI 2 references made OpenAPI 3.
func rewriteRefs(v any) any {
	switch v := v.(type) {
	case object:
		out := object{}
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" {
				out[k] = v3Prefix + strings.TrimPrefix(s, v2Prefix)
				continue
			}
			if _, isRef := v["$ref"]; isRef && k == "type" {
				continue // ignored beside a $ref in OpenAPI 3.0
			}
			out[k] = rewriteRefs(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = rewriteRefs(x)
		}
		return out
	}
	return v
}
