package skill

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// entry is one key of a mapping, with the node of its key (for its line) and
// of its value.
type entry struct {
	key, val *yaml.Node
}

// fields indexes a mapping node by key. The last of duplicated keys wins (as
// in Raw); merge keys (<<) add the keys the mapping does not set itself.
func fields(n *yaml.Node) map[string]entry {
	return fieldsDepth(n, 0)
}

func fieldsDepth(n *yaml.Node, depth int) map[string]entry {
	n = deref(n)
	if n == nil || n.Kind != yaml.MappingNode || depth > 16 {
		return nil
	}
	m := make(map[string]entry, len(n.Content)/2)
	merged := ownPairs(n, func(k, v *yaml.Node) {
		if d := deref(k); d != nil && d.Kind == yaml.ScalarNode {
			m[d.Value] = entry{k, v}
		}
	})
	for _, src := range merged {
		addMissing(m, fieldsDepth(src, depth+1))
	}
	return m
}

// get returns the entry for key, and false when the key is missing or its
// value is null (a key with no value is treated as absent everywhere).
func get(m map[string]entry, key string) (entry, bool) {
	e, ok := m[key]
	if !ok || isNull(e.val) {
		return entry{}, false
	}
	return e, true
}

func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n == nil || n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// scalarText returns the text of a non-null scalar as written.
func scalarText(n *yaml.Node) (string, bool) {
	n = deref(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		return "", false
	}
	return n.Value, true
}

// typed fills the known fields of fm from the frontmatter's root mapping.
func (p *parser) typed(root *yaml.Node, raw map[string]any, fm *Frontmatter) {
	fm.Raw = raw
	top := fields(root)
	if len(top) > 0 {
		fm.KeyLines = make(map[string]int, len(top))
		for k, e := range top {
			fm.KeyLines[k] = p.line(e.key.Line)
		}
	}

	fm.Name = p.text(top, "name", "name", "name-type")
	fm.Description = p.description(top)
	fm.License = p.text(top, "license", "license", "license-type")
	fm.Compatibility = p.text(top, "compatibility", "compatibility", "compatibility-type")
	fm.AllowedTools = p.allowedTools(top)
	if e, ok := get(top, "metadata"); ok {
		if m, ok := raw["metadata"].(map[string]any); ok {
			fm.Metadata = m
		} else {
			p.warn(p.line(e.key.Line), "metadata-type", "metadata should be a mapping, not %s; it is ignored", kindOf(e.val))
		}
	}
	fm.Keywords = p.list(top, "keywords", "keywords", "keywords-type", false)
	fm.Priority = p.priority(top)
	fm.Inherit = p.boolean(top, "inherit", "inherit", "inherit-type", true)
	fm.Assets = p.assets(top)
	fm.Scripts = p.scripts(top)

	meta := fields(entryVal(top, "metadata"))
	hub := fields(entryVal(meta, "skillhub"))
	port := fields(entryVal(meta, "skillport"))
	type source struct {
		m      map[string]entry
		prefix string
	}
	sources := []source{{hub, "metadata.skillhub."}, {port, "metadata.skillport."}, {top, ""}}
	for _, s := range sources {
		c := strings.ToLower(p.text(s.m, "category", s.prefix+"category", "category-type"))
		if c != "" {
			fm.Category = c
			break
		}
	}
	for _, s := range sources {
		if tags := p.list(s.m, "tags", s.prefix+"tags", "tags-type", true); len(tags) > 0 {
			fm.Tags = tags
			break
		}
	}
	if _, ok := get(hub, "alwaysApply"); ok {
		fm.AlwaysApply = p.boolean(hub, "alwaysApply", "metadata.skillhub.alwaysApply", "always-apply-type", false)
	} else {
		fm.AlwaysApply = p.boolean(meta, "alwaysApply", "metadata.alwaysApply", "always-apply-type", false)
	}

	fm.Network = p.boolean(meta, "network", "metadata.network", "network-type", false)

	fm.DisableModelInvocation = p.boolean(top, "disable-model-invocation", "disable-model-invocation", "disable-model-invocation-type", false)
	fm.UserInvocable = p.boolean(top, "user-invocable", "user-invocable", "user-invocable-type", true)
	fm.ArgumentHint = p.argumentHint(top)
}

func entryVal(m map[string]entry, key string) *yaml.Node {
	if e, ok := get(m, key); ok {
		return e.val
	}
	return nil
}

// text reads a free-text field: any scalar, as written, trimmed. label names
// the field in messages.
func (p *parser) text(m map[string]entry, key, label, code string) string {
	e, ok := get(m, key)
	if !ok {
		return ""
	}
	s, ok := scalarText(e.val)
	if !ok {
		p.warn(p.line(e.key.Line), code, "%s should be text, not %s; it is ignored", label, kindOf(e.val))
		return ""
	}
	return strings.TrimSpace(s)
}

// description accepts only YAML strings: a number or a date is almost always
// a mistake worth reporting.
func (p *parser) description(top map[string]entry) string {
	e, ok := get(top, "description")
	if !ok {
		return ""
	}
	n := deref(e.val)
	line := p.line(e.key.Line)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		p.warn(line, "description-type", "description should be text, not %s; it is ignored (quote it if it is meant as text)", kindOf(n))
		return ""
	}
	d := strings.TrimSpace(n.Value)
	if c := utf8.RuneCountInString(d); c > maxDescriptionRunes {
		p.warn(line, "description-long", "description is %d characters long; the Agent Skills limit is %d", c, maxDescriptionRunes)
	}
	return d
}

// allowedTools accepts a list, or a string of names separated by spaces or
// commas. Separators inside parentheses do not split: `Bash(git add:*)` is one
// tool.
func (p *parser) allowedTools(top map[string]entry) []string {
	e, ok := get(top, "allowed-tools")
	if !ok {
		return nil
	}
	n := deref(e.val)
	switch n.Kind {
	case yaml.ScalarNode:
		return splitTools(n.Value)
	case yaml.SequenceNode:
		var out []string
		for i, item := range n.Content {
			s, ok := scalarText(item)
			if !ok {
				if !isNull(item) {
					p.warn(p.line(item.Line), "allowed-tools-type", "allowed-tools[%d] should be a tool name, not %s; it is ignored", i, kindOf(item))
				}
				continue
			}
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	p.warn(p.line(e.key.Line), "allowed-tools-type", "allowed-tools should be a list or a space-separated string, not %s; it is ignored", kindOf(n))
	return nil
}

func splitTools(s string) []string {
	var out []string
	depth, start := 0, -1
	flush := func(end int) {
		if start >= 0 {
			out = append(out, s[start:end])
			start = -1
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '(':
			depth++
		case c == ')':
			if depth > 0 {
				depth--
			}
		case depth == 0 && (c == ' ' || c == ',' || c == '\t' || c == '\n'):
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(s))
	return out
}

// list reads a list of scalars or a comma-separated string into trimmed,
// non-empty strings, lower-cased when lower is set.
func (p *parser) list(m map[string]entry, key, label, code string, lower bool) []string {
	e, ok := get(m, key)
	if !ok {
		return nil
	}
	var out []string
	addItem := func(s string) {
		s = strings.TrimSpace(s)
		if lower {
			s = strings.ToLower(s)
		}
		if s != "" {
			out = append(out, s)
		}
	}
	n := deref(e.val)
	switch n.Kind {
	case yaml.ScalarNode:
		for item := range strings.SplitSeq(n.Value, ",") {
			addItem(item)
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			s, ok := scalarText(item)
			if !ok {
				if !isNull(item) {
					p.warn(p.line(item.Line), code, "%s[%d] should be text, not %s; it is ignored", label, i, kindOf(item))
				}
				continue
			}
			addItem(s)
		}
	default:
		p.warn(p.line(e.key.Line), code, "%s should be a list or a comma-separated string, not %s; it is ignored", label, kindOf(n))
	}
	return out
}

// priority reads an integer; a float is rounded, a numeric string accepted.
func (p *parser) priority(top map[string]entry) int {
	e, ok := get(top, "priority")
	if !ok {
		return 0
	}
	line := p.line(e.key.Line)
	bad := func() int {
		p.warn(line, "priority-type", "priority should be a whole number, not %s; using 0", kindOf(e.val))
		return 0
	}
	n := deref(e.val)
	if n.Kind != yaml.ScalarNode {
		return bad()
	}
	var f float64
	switch n.ShortTag() {
	case "!!int", "!!float":
		switch v := scalarValue(n).(type) {
		case int:
			return v
		case float64:
			f = v
		default:
			return bad()
		}
	case "!!str":
		s := strings.TrimSpace(n.Value)
		if i, err := strconv.Atoi(s); err == nil {
			return i
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return bad()
		}
		f = v
	default:
		return bad()
	}
	const limit = 1 << 53
	if math.IsNaN(f) || f > limit || f < -limit {
		return bad()
	}
	r := math.Round(f)
	if r != f {
		p.warn(line, "priority-type", "priority should be a whole number; %s is rounded to %d", n.Value, int(r))
	}
	return int(r)
}

// boolean reads a true/false field. Besides YAML booleans it accepts the
// YAML 1.1 words (yes/no/on/off) that other skill servers read as booleans.
func (p *parser) boolean(m map[string]entry, key, label, code string, def bool) bool {
	e, ok := get(m, key)
	if !ok {
		return def
	}
	n := deref(e.val)
	if v, ok := boolValue(n); ok {
		return v
	}
	p.warn(p.line(e.key.Line), code, "%s should be true or false, not %s; using %t", label, kindOf(n), def)
	return def
}

func boolValue(n *yaml.Node) (bool, bool) {
	if n == nil || n.Kind != yaml.ScalarNode {
		return false, false
	}
	switch n.ShortTag() {
	case "!!bool":
		v, ok := scalarValue(n).(bool)
		return v, ok
	case "!!str":
		switch strings.ToLower(strings.TrimSpace(n.Value)) {
		case "true", "yes", "on":
			return true, true
		case "false", "no", "off":
			return false, true
		}
	}
	return false, false
}

// argumentHint reads argument-hint. Unquoted `[file] [message]` is a common
// way to write it; a list of scalars is turned back into that text.
func (p *parser) argumentHint(top map[string]entry) string {
	e, ok := get(top, "argument-hint")
	if !ok {
		return ""
	}
	n := deref(e.val)
	switch n.Kind {
	case yaml.ScalarNode:
		return strings.TrimSpace(n.Value)
	case yaml.SequenceNode:
		parts := make([]string, 0, len(n.Content))
		for _, item := range n.Content {
			s, ok := scalarText(item)
			if !ok {
				parts = nil
				break
			}
			parts = append(parts, "["+strings.TrimSpace(s)+"]")
		}
		if parts != nil {
			return strings.Join(parts, " ")
		}
	}
	p.warn(p.line(e.key.Line), "argument-hint-type", "argument-hint should be text, not %s; it is ignored", kindOf(n))
	return ""
}

// assets reads the seed-000 assets list.
func (p *parser) assets(top map[string]entry) []Asset {
	return declarations(p, top, declList[Asset]{
		key: "assets", listShape: "{file, description, type}", itemShape: "file, description and type", pathCode: "asset-path",
		file: func(a *Asset) *string { return &a.File },
		read: func(it declItem) Asset {
			return Asset{File: it.text("file"), Description: it.text("description"), Type: it.text("type")}
		},
		finish: func(a *Asset, _ int, _ string) {
			if a.Type == "" {
				a.Type = "other"
			}
		},
	})
}

// scripts reads the seed-000 scripts list.
func (p *parser) scripts(top map[string]entry) []Script {
	return declarations(p, top, declList[Script]{
		key: "scripts", listShape: "{file, description, execution, args, network}", itemShape: "file, description, execution and args", pathCode: "script-path",
		file: func(s *Script) *string { return &s.File },
		read: func(it declItem) Script {
			return Script{
				File:        it.text("file"),
				Description: it.text("description"),
				Execution:   strings.ToLower(it.text("execution")),
				Args:        p.args(it.fields, it.label),
				Network:     p.boolean(it.fields, "network", it.label+".network", it.typeCode, false),
			}
		},
		finish: func(s *Script, line int, label string) {
			switch s.Execution {
			case "claude", "server":
			case "":
				s.Execution = "claude"
			default:
				p.warn(line, "script-execution", "%s has execution %q; it should be \"claude\" or \"server\", so \"claude\" is used", label, s.Execution)
				s.Execution = "claude"
			}
		},
	})
}

// declList describes a seed-000 list of declared files (assets, scripts).
type declList[T any] struct {
	// key is the frontmatter key; the "-type" warnings are key+"-type".
	key string
	// listShape and itemShape say what the list and an item should be, in
	// warnings; pathCode is the warning of an item whose file is not a
	// relative path inside the skill.
	listShape, itemShape, pathCode string
	// file points at an item's file.
	file func(*T) *string
	// read reads an item written as a mapping.
	read func(it declItem) T
	// finish completes an item whose file is valid (defaults, checks).
	finish func(item *T, line int, label string)
}

// declItem is an item of a declared list written as a mapping: its fields,
// the label that names it in warnings ("scripts[2]") and the code of its
// "-type" warnings.
type declItem struct {
	p               *parser
	fields          map[string]entry
	label, typeCode string
}

// text reads the item's field key as text.
func (it declItem) text(key string) string {
	return it.p.text(it.fields, key, it.label+"."+key, it.typeCode)
}

// declarations reads the list l describes: each item a file path alone, or
// a mapping l.read reads. Items of the wrong shape, or whose file is not a
// relative path inside the skill, are skipped with a warning.
func declarations[T any](p *parser, top map[string]entry, l declList[T]) []T {
	e, ok := get(top, l.key)
	if !ok {
		return nil
	}
	typeCode := l.key + "-type"
	seq := deref(e.val)
	if seq.Kind != yaml.SequenceNode {
		p.warn(p.line(e.key.Line), typeCode, "%s should be a list of %s, not %s; it is ignored", l.key, l.listShape, kindOf(seq))
		return nil
	}
	var out []T
	for i, item := range seq.Content {
		label := l.key + "[" + strconv.Itoa(i) + "]"
		line := p.line(item.Line)
		var d T
		n := deref(item)
		switch {
		case isNull(n):
			continue
		case n.Kind == yaml.ScalarNode:
			*l.file(&d) = strings.TrimSpace(n.Value)
		case n.Kind == yaml.MappingNode:
			d = l.read(declItem{p: p, fields: fields(n), label: label, typeCode: typeCode})
		default:
			p.warn(line, typeCode, "%s should be a mapping with %s, not %s; it is skipped", label, l.itemShape, kindOf(n))
			continue
		}
		if why := checkRelPath(*l.file(&d)); why != "" {
			p.warn(line, l.pathCode, "%s is skipped: its file %s", label, why)
			continue
		}
		l.finish(&d, line, label)
		out = append(out, d)
	}
	return out
}

// args reads a script's args list.
func (p *parser) args(script map[string]entry, scriptLabel string) []Arg {
	e, ok := get(script, "args")
	if !ok {
		return nil
	}
	seq := deref(e.val)
	if seq.Kind != yaml.SequenceNode {
		p.warn(p.line(e.key.Line), "scripts-type", "%s.args should be a list of {name, description, required, default}, not %s; it is ignored", scriptLabel, kindOf(seq))
		return nil
	}
	var out []Arg
	seen := map[string]string{}
	for i, item := range seq.Content {
		label := scriptLabel + ".args[" + strconv.Itoa(i) + "]"
		line := p.line(item.Line)
		n := deref(item)
		if isNull(n) {
			continue
		}
		if n.Kind != yaml.MappingNode {
			p.warn(line, "scripts-type", "%s should be a mapping with name, description, required and default, not %s; it is skipped", label, kindOf(n))
			continue
		}
		f := fields(n)
		a := Arg{
			Name:        p.text(f, "name", label+".name", "scripts-type"),
			Description: p.text(f, "description", label+".description", "scripts-type"),
			Required:    p.boolean(f, "required", label+".required", "scripts-type", true),
		}
		if a.Name == "" {
			p.warn(line, "script-arg", "%s has no name; it is skipped", label)
			continue
		}
		if !validArgName(a.Name) {
			p.warn(line, "script-arg", "%s is skipped: its name %q may only contain letters, digits, '_' and '-'", label, a.Name)
			continue
		}
		env := ArgEnv(a.Name)
		if prev, dup := seen[env]; dup {
			p.warn(line, "script-arg", "%s is skipped: its name %q clashes with %q (both become %s)", label, a.Name, prev, env)
			continue
		}
		seen[env] = a.Name
		if d, ok := get(f, "default"); ok {
			if s, ok := scalarText(d.val); ok {
				a.Default = &s
			} else {
				p.warn(p.line(d.key.Line), "scripts-type", "%s.default should be a single value, not %s; it is ignored", label, kindOf(d.val))
			}
		}
		out = append(out, a)
	}
	return out
}

func validArgName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return s != ""
}

// ArgEnv returns the environment variable a script argument is passed in:
// SKILL_ARG_ and the name upper-cased, with '-' turned into '_'.
func ArgEnv(name string) string {
	return "SKILL_ARG_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// checkRelPath says what is wrong with a declared asset or script path (seed
// 000 §7.1), or returns "".
func checkRelPath(p string) string {
	switch {
	case p == "":
		return "is empty"
	case strings.IndexByte(p, 0) >= 0:
		return "contains a NUL byte"
	case strings.IndexByte(p, '\\') >= 0:
		return "contains a backslash; use '/'"
	case p[0] == '/' || len(p) >= 2 && p[1] == ':' && isASCIILetter(p[0]):
		return "is an absolute path " + strconv.Quote(p) + "; it must be relative to the resource folder"
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == ".." {
			return strconv.Quote(p) + " climbs out of the resource folder with '..'"
		}
	}
	return ""
}

func isASCIILetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
