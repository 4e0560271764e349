package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// fileNames are the names Find looks for in a content root, in order.
var fileNames = [...]string{"config.yaml", "config.yml"}

// maxFileSize bounds what Load reads: a configuration is a few kilobytes.
const maxFileSize = 4 << 20

// Find looks for config.yaml, then config.yml, in dir (a content root). It
// reports the path of the first regular file found.
func Find(dir string) (path string, ok bool) {
	for _, name := range fileNames {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, true
		}
	}
	return "", false
}

// Load reads the configuration file at path and parses it (see Parse). A
// missing file is an error naming it, that matches fs.ErrNotExist.
func Load(path string) (Config, error) {
	data, err := ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	return Parse(path, data)
}

// ReadFile reads the configuration file at path, as Load does, without
// parsing it: a file larger than a configuration can be is an *Error.
func ReadFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading config file: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading config file: %w", err)
	}
	if len(data) > maxFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("larger than %d MiB; is this the configuration file?", maxFileSize>>20)}
	}
	return data, nil
}

// Parse reads a config.yaml document (name is used in messages) merged over
// Default, then validates the result.
//
// Parsing is strict: an unknown key, a value of the wrong type, a key set
// twice or a second YAML document is an *Error naming the file, the line and
// the dotted key, with a suggestion for a misspelt key. A key with an empty
// (null) value keeps its default. Lists replace the default list; mappings
// (scripts.runners) are merged over the default entries. Anchors, aliases and
// merge keys (<<) are supported.
//
// On error the returned Config is the zero value.
func Parse(name string, data []byte) (Config, error) {
	c := Default()
	d := &decoder{file: name, lines: map[string]int{}, budget: 4*len(data) + 10000}
	if err := d.document(data, &c); err != nil {
		return Config{}, err
	}
	c.normalize()
	if err := c.Validate(); err != nil {
		return Config{}, d.locate(err)
	}
	return c, nil
}

// retiredKeys are keys of the seeds' schemas that skillsd does not read. A
// key nothing reads is an error, never silence, so that a setting the user
// believes in is not ignored; only the seed's own default value (inert),
// which a configuration copied from the seed carries, is let through.
var retiredKeys = map[string]struct{ inert, advice string }{
	"assets.inline_text_max_bytes": {inert: "10240", advice: "skillsd does not read this seed-000 key (seed 000 reserves it and never says what it does), " +
		"so only its default 10240 is accepted; remove the line: text reads are paged by assets.max_file_bytes (default 65536) and capped by assets.max_size_bytes"},
}

// decoder walks a YAML node tree along the Config type.
type decoder struct {
	file  string
	lines map[string]int // dotted key → line where it is set
	// budget bounds the nodes visited, so aliases cannot make a small
	// document expensive.
	budget int
}

func (d *decoder) document(data []byte, c *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil // empty: every default
		}
		return d.syntax(err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return d.syntax(err)
	default:
		return &Error{File: d.file, Line: extra.Line, Msg: `more than one YAML document (a second "---"); keep one`}
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 {
		return nil
	}
	top, err := d.resolve(root.Content[0], "")
	if err != nil {
		return err
	}
	if isNull(top) {
		return nil
	}
	if top.Kind != yaml.MappingNode {
		return &Error{File: d.file, Line: top.Line, Msg: fmt.Sprintf("want a mapping of sections (matching:, scripts:, sources:, …) at the top level, got %s", describe(top, ""))}
	}
	return d.value(top, reflect.ValueOf(c).Elem(), "")
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntax turns a YAML syntax error into an *Error with the file and line.
func (d *decoder) syntax(err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &Error{File: d.file, Line: line, Msg: "invalid YAML: " + m[2]}
	}
	return &Error{File: d.file, Msg: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// locate adds the file and the line of the key to a validation error.
func (d *decoder) locate(err error) error {
	var e *Error
	if !errors.As(err, &e) {
		return err
	}
	e.File = d.file
	for k := e.Key; k != ""; k = parentKey(k) {
		if line, ok := d.lines[k]; ok {
			e.Line = line
			break
		}
	}
	return e
}

// parentKey is the key of the section or list holding k: "a.b[2]" → "a.b" → "a".
func parentKey(k string) string {
	if strings.HasSuffix(k, "]") {
		if i := strings.LastIndex(k, "["); i >= 0 {
			return k[:i]
		}
	}
	if i := strings.LastIndex(k, "."); i >= 0 {
		return k[:i]
	}
	return ""
}

func (d *decoder) fail(n *yaml.Node, key, format string, args ...any) *Error {
	return &Error{File: d.file, Line: n.Line, Key: key, Msg: fmt.Sprintf(format, args...)}
}

// resolve follows aliases and charges the budget.
func (d *decoder) resolve(n *yaml.Node, key string) (*yaml.Node, error) {
	for i := 0; n.Kind == yaml.AliasNode; i++ {
		if n.Alias == nil || i > 100 {
			return nil, d.fail(n, key, "alias %q does not resolve", n.Value)
		}
		n = n.Alias
	}
	d.budget--
	if d.budget < 0 {
		return nil, &Error{File: d.file, Line: n.Line, Msg: "too many aliases expanded; write the values out"}
	}
	return n, nil
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// value decodes n into v; a null node keeps v's current (default) value.
func (d *decoder) value(n *yaml.Node, v reflect.Value, key string) error {
	n, err := d.resolve(n, key)
	if err != nil {
		return err
	}
	if isNull(n) {
		return nil
	}
	switch v.Kind() {
	case reflect.Struct:
		return d.structure(n, v, key)
	case reflect.Pointer:
		if v.IsNil() {
			p := reflect.New(v.Type().Elem())
			if f, ok := p.Interface().(interface{ fillDefaults() }); ok {
				f.fillDefaults()
			}
			v.Set(p)
		}
		return d.value(n, v.Elem(), key)
	case reflect.Slice:
		return d.list(n, v, key)
	case reflect.Map:
		return d.dict(n, v, key)
	default:
		return d.scalar(n, v, key)
	}
}

// merges returns the mappings a merge key (<<) brings in, lowest precedence first.
func (d *decoder) merges(n *yaml.Node, key string) ([]*yaml.Node, error) {
	n, err := d.resolve(n, key)
	if err != nil {
		return nil, err
	}
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = nil
		// In a list of merged mappings the first wins, so apply it last.
		for i := len(n.Content) - 1; i >= 0; i-- {
			items = append(items, n.Content[i])
		}
	}
	var out []*yaml.Node
	for _, it := range items {
		m, err := d.resolve(it, key)
		if err != nil {
			return nil, err
		}
		if m.Kind != yaml.MappingNode {
			return nil, d.fail(m, key, "a merge key (<<) takes an alias to a mapping, got %s", describe(m, key))
		}
		out = append(out, m)
	}
	return out, nil
}

// pair is one explicit key of a mapping.
type pair struct {
	name     string
	key, val *yaml.Node
}

// pairs lists a mapping's explicit keys, rejecting duplicates and non-scalar
// keys, and applies its merge keys through merge first.
func (d *decoder) pairs(n *yaml.Node, key string, child func(string) string, merge func(*yaml.Node) error) ([]pair, error) {
	var out []pair
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, err := d.resolve(n.Content[i], key)
		if err != nil {
			return nil, err
		}
		if k.Kind != yaml.ScalarNode {
			return nil, d.fail(k, key, "a key must be a plain name, got %s", describe(k, ""))
		}
		if k.ShortTag() == "!!merge" {
			ms, err := d.merges(n.Content[i+1], key)
			if err != nil {
				return nil, err
			}
			for _, m := range ms {
				if err := merge(m); err != nil {
					return nil, err
				}
			}
			continue
		}
		if first, dup := seen[k.Value]; dup {
			return nil, d.fail(k, child(k.Value), "set twice (first on line %d); keep one", first)
		}
		seen[k.Value] = k.Line
		out = append(out, pair{name: k.Value, key: k, val: n.Content[i+1]})
	}
	return out, nil
}

// structure decodes a mapping into a struct, field by yaml tag.
func (d *decoder) structure(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind != yaml.MappingNode {
		return d.fail(n, key, "want a section of keys (%s), got %s%s", strings.Join(fieldNames(v.Type()), ", "), describe(n, key), hint(key))
	}
	ps, err := d.pairs(n, key, func(s string) string { return join(key, s) },
		func(m *yaml.Node) error { return d.structure(m, v, key) })
	if err != nil {
		return err
	}
	fields := fieldIndex(v.Type())
	for _, p := range ps {
		i, ok := fields[p.name]
		if !ok {
			if r, retired := retiredKeys[join(key, p.name)]; retired {
				if val, err := d.resolve(p.val, join(key, p.name)); err == nil && (isNull(val) || val.Kind == yaml.ScalarNode && val.Value == r.inert) {
					continue // the seed's own default: it changes nothing
				}
				return &Error{File: d.file, Line: p.key.Line, Key: join(key, p.name), Msg: r.advice}
			}
			return d.unknown(p.key, v.Type(), key, p.name)
		}
		child := join(key, p.name)
		d.lines[child] = p.key.Line
		if err := d.value(p.val, v.Field(i), child); err != nil {
			return err
		}
	}
	return nil
}

// list decodes a sequence; it replaces the current (default) list.
func (d *decoder) list(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind != yaml.SequenceNode {
		return d.fail(n, key, "want a list, got %s%s", describe(n, key), hint(key))
	}
	out := reflect.MakeSlice(v.Type(), 0, len(n.Content))
	for i, it := range n.Content {
		ik := itemKey(key, i)
		r, err := d.resolve(it, ik)
		if err != nil {
			return err
		}
		d.lines[ik] = r.Line
		if it.Kind != yaml.AliasNode {
			d.lines[ik] = it.Line
		}
		if isNull(r) {
			return d.fail(it, ik, "empty list item; remove it or give it a value")
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		if err := d.value(r, elem, ik); err != nil {
			return err
		}
		out = reflect.Append(out, elem)
	}
	v.Set(out)
	return nil
}

// dict decodes a mapping of names to scalars, merged over the current entries.
// Entries cannot be removed (so that every parsed configuration marshals to
// YAML that parses back to it); an extension is switched off by leaving it out
// of scripts.allowed_extensions.
func (d *decoder) dict(n *yaml.Node, v reflect.Value, key string) error {
	if n.Kind != yaml.MappingNode {
		return d.fail(n, key, `want a mapping such as ".sh": bash, got %s`, describe(n, key))
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(v.Type()))
	}
	ps, err := d.pairs(n, key, func(s string) string { return mapKey(key, s) },
		func(m *yaml.Node) error { return d.dict(m, v, key) })
	if err != nil {
		return err
	}
	for _, p := range ps {
		mk := mapKey(key, p.name)
		d.lines[mk] = p.key.Line
		val, err := d.resolve(p.val, mk)
		if err != nil {
			return err
		}
		if isNull(val) {
			continue // keeps the default, as everywhere
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		if err := d.scalar(val, elem, mk); err != nil {
			return err
		}
		v.SetMapIndex(reflect.ValueOf(p.name), elem)
	}
	return nil
}

// scalar decodes a plain value, checking its YAML type against the field's.
func (d *decoder) scalar(n *yaml.Node, v reflect.Value, key string) error {
	var want string
	switch v.Kind() {
	case reflect.String:
		want = "a string"
	case reflect.Bool:
		want = "true or false"
	case reflect.Int, reflect.Int64:
		want = "a whole number"
	case reflect.Float64:
		want = "a number"
	default:
		return d.fail(n, key, "cannot hold a value of type %s", v.Type()) // a Config field of an unsupported type
	}
	if n.Kind != yaml.ScalarNode {
		return d.fail(n, key, "want %s, got %s", want, describe(n, key))
	}
	tag := n.ShortTag()
	bad := func() error { return d.fail(n, key, "want %s, got %s", want, describe(n, key)) }
	switch v.Kind() {
	case reflect.String:
		v.SetString(n.Value)
	case reflect.Bool:
		var b bool
		if tag != "!!bool" || n.Decode(&b) != nil {
			return bad()
		}
		v.SetBool(b)
	case reflect.Int, reflect.Int64:
		var i int64
		if tag != "!!int" || n.Decode(&i) != nil || v.OverflowInt(i) {
			return bad()
		}
		v.SetInt(i)
	case reflect.Float64:
		var f float64
		if (tag != "!!int" && tag != "!!float") || n.Decode(&f) != nil {
			return bad()
		}
		v.SetFloat(f)
	}
	return nil
}

// describe names what a node holds, for "got …"; values of keys that may
// hold secrets are not shown.
func describe(n *yaml.Node, key string) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if sensitive(key) {
			return "a " + strings.TrimPrefix(n.ShortTag(), "!!") + " value"
		}
		return quote(n.Value)
	}
	return "an unsupported YAML node"
}

// sensitive reports whether a key's value may be a credential by mistake.
func sensitive(key string) bool {
	return strings.HasSuffix(key, "_env") || strings.HasSuffix(key, "url") || strings.HasSuffix(key, "repo") ||
		strings.HasSuffix(key, "endpoint")
}

// hint adds advice for common shape mistakes.
func hint(key string) string {
	if key == "sources" {
		return `; sources is a list of entries such as "- path: ./skills" or "- git: {url: …}" (seed 003 repositories go under content:)`
	}
	return ""
}

// unknown reports a key the section does not have, with the key most likely
// meant: a near spelling in the same section, else a key of another section
// (or an environment variable's name), else the list of known keys.
func (d *decoder) unknown(k *yaml.Node, t reflect.Type, parent, name string) *Error {
	full := join(parent, name)
	msg := fmt.Sprintf("unknown key %q", full)
	names := fieldNames(t)
	if s := closest(name, names); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", join(parent, s))
	} else if s := elsewhere(name, parent); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	} else {
		where := ""
		if parent != "" {
			where = " under " + parent
		}
		msg += fmt.Sprintf(" (known keys%s: %s)", where, strings.Join(names, ", "))
	}
	return &Error{File: d.file, Line: k.Line, Key: full, Msg: msg, keyInMsg: true}
}

// elsewhere finds the one key that name most likely means in another section
// of the same document (or of the same list item, inside sources), or the key
// an environment variable's name stands for.
func elsewhere(name, parent string) string {
	root, prefix := reflect.TypeFor[Config](), ""
	if i := strings.Index(parent, "]"); i >= 0 {
		if !strings.HasPrefix(parent, "sources[") {
			return ""
		}
		root, prefix = reflect.TypeFor[Source](), parent[:i+1]
	} else {
		for _, v := range envVars {
			if strings.EqualFold(name, v.Name) {
				return v.Key
			}
		}
	}
	var found []string
	var walk func(t reflect.Type, at string)
	walk = func(t reflect.Type, at string) {
		for i := range t.NumField() {
			f := t.Field(i)
			n := tagName(f)
			if n == "" || n == "-" {
				continue
			}
			p := join(at, n)
			if closest(name, []string{n}) != "" {
				found = append(found, p)
			}
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				walk(ft, p)
			}
		}
	}
	walk(root, prefix)
	if len(found) != 1 {
		return "" // none, or ambiguous
	}
	return found[0]
}

func tagName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}

func fieldNames(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		if n := tagName(t.Field(i)); n != "" && n != "-" {
			out = append(out, n)
		}
	}
	return out
}

func fieldIndex(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range t.NumField() {
		if n := tagName(t.Field(i)); n != "" && n != "-" {
			out[n] = i
		}
	}
	return out
}

// closest returns the candidate name most likely meant, or "": the same name
// up to case, "_" and "-", or within a small edit distance.
func closest(name string, candidates []string) string {
	norm := func(s string) string {
		return strings.NewReplacer("_", "", "-", "", " ", "").Replace(strings.ToLower(s))
	}
	n := norm(name)
	best, bestDist := "", 1<<30
	for _, c := range candidates {
		dist := editDistance(n, norm(c))
		if dist < bestDist {
			best, bestDist = c, dist
		}
	}
	if best == "" || bestDist > 2 || bestDist > max(1, len([]rune(n))/3) {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance (Levenshtein plus
// transpositions of neighbours).
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	if len(s) > 64 || len(t) > 64 {
		if a == b {
			return 0
		}
		return 1 << 20
	}
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
