package skill

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// maxDepth bounds the nesting of converted values (aliases can nest deeper
// than the parser's own limit).
const maxDepth = 1000

// converter turns a YAML node tree into JSON-compatible values: map[string]any
// (non-string keys stringified), []any, string, int, float64, bool and nil.
// Timestamps, binary data and values with unknown tags stay strings as
// written. It expands aliases and merge keys, refuses alias cycles, and stops
// after budget nodes so that a "billion laughs" document costs nothing.
type converter struct {
	p      *parser
	budget int
	active map[*yaml.Node]bool
	// aliasDepth > 0 while expanding an alias: diagnostics there would repeat.
	aliasDepth int
	err        string
	errLine    int
}

func (c *converter) fail(n *yaml.Node, format string, args ...any) {
	if c.err == "" {
		c.err = fmt.Sprintf(format, args...)
		c.errLine = n.Line
	}
}

func (c *converter) convert(n *yaml.Node, depth int) any {
	if c.err != "" || n == nil {
		return nil
	}
	c.budget--
	if c.budget < 0 {
		c.fail(n, "it expands to too many values; check its aliases")
		return nil
	}
	if depth > maxDepth {
		c.fail(n, "it is nested more than %d levels deep", maxDepth)
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return c.convert(n.Content[0], depth)
	case yaml.AliasNode:
		t := n.Alias
		if t == nil {
			return nil
		}
		if c.active[t] {
			c.fail(n, "alias *%s refers to the value that contains it", n.Value)
			return nil
		}
		c.active[t] = true
		c.aliasDepth++
		v := c.convert(t, depth+1)
		c.aliasDepth--
		delete(c.active, t)
		return v
	case yaml.ScalarNode:
		return scalarValue(n)
	case yaml.SequenceNode:
		out := make([]any, 0, len(n.Content))
		for _, item := range n.Content {
			out = append(out, c.convert(item, depth+1))
		}
		return out
	case yaml.MappingNode:
		return c.mapping(n, depth)
	}
	return nil
}

func (c *converter) mapping(n *yaml.Node, depth int) map[string]any {
	out := make(map[string]any, len(n.Content)/2)
	merged := ownPairs(n, func(k, v *yaml.Node) {
		key := c.key(k, depth)
		if _, dup := out[key]; dup && c.aliasDepth == 0 {
			c.p.warn(c.p.line(k.Line), "frontmatter-duplicate-key", "key %q is set twice in the same mapping (first on line %d); the last value is used", key, c.p.line(firstKeyLine(n, key)))
		}
		out[key] = c.convert(v, depth+1)
	})
	for _, src := range merged {
		mv, _ := c.convert(src, depth+1).(map[string]any)
		addMissing(out, mv)
	}
	return out
}

// key stringifies a mapping key: a scalar key is its text as written, any
// other key its JSON encoding.
func (c *converter) key(k *yaml.Node, depth int) string {
	d := deref(k)
	if d != nil && d.Kind == yaml.ScalarNode {
		return d.Value
	}
	v := c.convert(k, depth+1)
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// firstKeyLine finds the YAML line of the first occurrence of key in mapping n.
func firstKeyLine(n *yaml.Node, key string) int {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if d := deref(n.Content[i]); d != nil && d.Kind == yaml.ScalarNode && d.Value == key {
			return n.Content[i].Line
		}
	}
	return 0
}

func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge"
}

// isMergeable reports whether v is a valid merge value: a mapping or a list of
// mappings (possibly through aliases).
func isMergeable(v *yaml.Node) bool {
	v = deref(v)
	if v == nil {
		return false
	}
	switch v.Kind {
	case yaml.MappingNode:
		return true
	case yaml.SequenceNode:
		for _, item := range v.Content {
			if d := deref(item); d == nil || d.Kind != yaml.MappingNode {
				return false
			}
		}
		return true
	}
	return false
}

func mergeSources(v *yaml.Node) []*yaml.Node {
	if d := deref(v); d != nil && d.Kind == yaml.SequenceNode {
		return d.Content
	}
	return []*yaml.Node{v}
}

// ownPairs calls fn with each key and value mapping node n sets itself, in
// order, and returns the mappings its merge keys (<<) bring in, in order.
// YAML's merge rule: merged keys never override the mapping's own keys, and
// of several merged mappings the first listed wins (see addMissing).
func ownPairs(n *yaml.Node, fn func(k, v *yaml.Node)) []*yaml.Node {
	var merged []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if isMergeKey(k) && isMergeable(v) {
			merged = append(merged, mergeSources(v)...)
			continue
		}
		fn(k, v)
	}
	return merged
}

// addMissing adds to dst the entries of src whose keys dst does not hold.
func addMissing[V any](dst, src map[string]V) {
	for k, v := range src {
		if _, ok := dst[k]; !ok {
			dst[k] = v
		}
	}
}

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 8; i++ {
		n = n.Alias
	}
	return n
}

// scalarValue converts a scalar node: null → nil, bool, int or float64 for the
// YAML core types, the text as written for everything else.
func scalarValue(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool", "!!int", "!!float":
		v, ok := decodeScalar(n)
		if !ok {
			return n.Value
		}
		switch v := v.(type) {
		case bool:
			return v
		case int:
			return v
		case int64:
			if v >= math.MinInt && v <= math.MaxInt {
				return int(v)
			}
			return float64(v)
		case uint64:
			if v <= math.MaxInt {
				return int(v)
			}
			return float64(v)
		case float64:
			if math.IsInf(v, 0) || math.IsNaN(v) {
				return n.Value // JSON has no infinity or NaN
			}
			return v
		}
		return n.Value
	}
	return n.Value
}

func decodeScalar(n *yaml.Node) (v any, ok bool) {
	defer func() {
		if recover() != nil {
			v, ok = nil, false
		}
	}()
	if err := n.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// kindOf describes a node's type for messages: "a list", "a number", ….
func kindOf(n *yaml.Node) string {
	n = deref(n)
	if n == nil {
		return "empty"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "empty"
		case "!!bool":
			return "a boolean (" + n.Value + ")"
		case "!!int", "!!float":
			return "a number (" + n.Value + ")"
		case "!!timestamp":
			return "a date (" + n.Value + ")"
		case "!!str":
			return "text (" + strconv.Quote(shorten(n.Value, 40)) + ")"
		}
		return "a value tagged " + n.Tag
	}
	return "empty"
}

// shorten cuts s to at most n runes, marking the cut.
func shorten(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i] + "…"
		}
		n--
	}
	return s
}
