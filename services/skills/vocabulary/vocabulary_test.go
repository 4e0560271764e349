package vocabulary

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	r := Request{Names: []string{"skill_path", "file", "args", "cwd"}, Aliases: Aliases(RunScript), Noun: "argument", Where: "for run_script", Taker: "run_script"}
	obj := map[string]json.RawMessage{"name": json.RawMessage(`"pdf"`), "script": json.RawMessage(`"a.sh"`)}
	renamed, p := r.Normalize(obj, nil)
	if p != nil || !renamed || string(obj["skill_path"]) != `"pdf"` || string(obj["file"]) != `"a.sh"` || len(obj) != 2 {
		t.Errorf("aliases: %v %v %v", renamed, p, obj)
	}
	_, p = r.Normalize(map[string]json.RawMessage{"file": nil, "script": nil}, nil)
	if p == nil || p.Field != "script" || !strings.Contains(p.Message, `give "file" or its alias "script", not both`) {
		t.Errorf("twice: %+v", p)
	}
	_, p = r.Normalize(map[string]json.RawMessage{"scirpt": nil}, nil)
	if p == nil || p.Field != "scirpt" || !strings.Contains(p.Message, `unknown argument "scirpt" for run_script (did you mean "script", that is "file"?): run_script takes skill_path, file, args, cwd (also accepted: name or skill for skill_path; script for file; arguments for args)`) {
		t.Errorf("unknown: %+v", p)
	}
	empty := Request{Noun: "field", Where: "in the body of POST /v1/skills:refresh", Taker: "it"}
	if _, p := empty.Normalize(map[string]json.RawMessage{"force": nil}, nil); p == nil || !strings.HasSuffix(p.Message, "it takes no fields") {
		t.Errorf("no fields: %+v", p)
	}
}

// TestAliasesNameOneField: an alias is never a field name of its own
// operation, and two aliases of one operation never clash.
func TestAliasesNameOneField(t *testing.T) {
	for op, m := range aliases {
		for alias, name := range m {
			if _, clash := m[name]; clash {
				t.Errorf("%s: %q is both an alias and the field %q stands for", op, name, alias)
			}
		}
	}
}

func TestClosest(t *testing.T) {
	for _, tc := range []struct{ s, want string }{{"nmae", "name"}, {"LIMT", "limit"}, {"zzzzzz", ""}, {"fiel", "file"}} {
		if got := Closest(tc.s, []string{"name", "limit", "file"}); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
