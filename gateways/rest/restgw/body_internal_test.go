package restgw

import (
	"encoding/json"
	"testing"
)

// TestEveryBodyRouteIsChecked: every route with a body in the OpenAPI
// document has its vocabulary in bodies, so that none drops unknown fields.
func TestEveryBodyRouteIsChecked(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, ops := range doc.Paths {
		if _, ok := ops["post"]; !ok {
			continue
		}
		n++
		if _, ok := bodies[path]; !ok {
			t.Errorf("POST %s has no entry in bodies (body.go)", path)
		}
	}
	if n < 5 {
		t.Errorf("found %d POST routes only", n)
	}
	for path, f := range bodies {
		for alias, name := range f.aliases {
			if f.known(alias) || !f.known(name) {
				t.Errorf("%s: alias %q → %q: an alias must not be a field, and must name one", path, alias, name)
			}
		}
	}
}
