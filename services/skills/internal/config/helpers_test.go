package config

import (
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// env makes a getenv from a map.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// typeKeys lists every key the Config type accepts, list items written "[]"
// ("sources[].git.url"), map entries not included.
func typeKeys() []string {
	var out []string
	var walk func(t reflect.Type, at string)
	walk = func(t reflect.Type, at string) {
		for i := range t.NumField() {
			f := t.Field(i)
			k := join(at, tagName(f))
			out = append(out, k)
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct {
				walk(ft.Elem(), k+"[]")
			}
			if ft.Kind() == reflect.Struct {
				walk(ft, k)
			}
		}
	}
	walk(reflect.TypeFor[Config](), "")
	return out
}

// docKeys lists the keys a YAML document sets, in the form of typeKeys, with
// whether each has a comment of its own.
func docKeys(t *testing.T, data []byte) map[string]bool {
	t.Helper()
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	var walk func(n *yaml.Node, at string, stop bool)
	walk = func(n *yaml.Node, at string, stop bool) {
		switch n.Kind {
		case yaml.DocumentNode:
			walk(n.Content[0], at, false)
		case yaml.MappingNode:
			if stop {
				return
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				key := join(at, k.Value)
				out[key] = out[key] || strings.TrimSpace(k.HeadComment+k.LineComment) != "" || v.LineComment != ""
				walk(v, key, key == "scripts.runners")
			}
		case yaml.SequenceNode:
			for _, it := range n.Content {
				walk(it, at+"[]", false)
			}
		}
	}
	walk(&root, "", false)
	return out
}
