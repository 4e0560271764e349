package skill

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// ignoreVerbatim leaves out the fields that hold the frontmatter as written.
var ignoreVerbatim = cmpopts.IgnoreFields(Frontmatter{}, "Raw", "KeyLines", "Metadata")

func ptr(s string) *string { return &s }

func TestParseFields(t *testing.T) {
	long := strings.Repeat("é", maxDescriptionRunes+1)
	limit := strings.Repeat("é", maxDescriptionRunes)
	tests := []struct {
		name      string
		yaml      string
		want      Frontmatter
		wantCodes []string
	}{
		{
			name: "empty frontmatter gets the defaults",
			yaml: "",
			want: defaults(nil),
		},
		{
			name: "agent skills fields",
			yaml: joinLines(
				"name: pdf-processing",
				"description: >",
				"  Extract text and tables from PDF files.",
				"  Use when handling PDFs.",
				"license: Apache-2.0",
				"compatibility: Requires Python 3.11+",
				"allowed-tools: Bash(python3:*) Read",
			),
			want: defaults(func(f *Frontmatter) {
				f.Name = "pdf-processing"
				f.Description = "Extract text and tables from PDF files. Use when handling PDFs."
				f.License = "Apache-2.0"
				f.Compatibility = "Requires Python 3.11+"
				f.AllowedTools = []string{"Bash(python3:*)", "Read"}
			}),
		},
		{
			name: "text fields are trimmed",
			yaml: joinLines(`name: "  spaced  "`, `description: "  padded\n"`),
			want: defaults(func(f *Frontmatter) { f.Name = "spaced"; f.Description = "padded" }),
		},
		{
			name: "a number is a name",
			yaml: "name: 2048\n",
			want: defaults(func(f *Frontmatter) { f.Name = "2048" }),
		},
		{
			name:      "a mapping is not a name",
			yaml:      joinLines("name:", "  first: x"),
			want:      defaults(nil),
			wantCodes: []string{"name-type"},
		},
		{
			name:      "description must be text: number",
			yaml:      "description: 42\n",
			want:      defaults(nil),
			wantCodes: []string{"description-type"},
		},
		{
			name:      "description must be text: boolean",
			yaml:      "description: true\n",
			want:      defaults(nil),
			wantCodes: []string{"description-type"},
		},
		{
			name:      "description must be text: list",
			yaml:      "description: [a, b]\n",
			want:      defaults(nil),
			wantCodes: []string{"description-type"},
		},
		{
			name:      "description must be text: date",
			yaml:      "description: 2024-01-01\n",
			want:      defaults(nil),
			wantCodes: []string{"description-type"},
		},
		{
			name: "an empty description is not a type error",
			yaml: "description:\n",
			want: defaults(nil),
		},
		{
			name: "a quoted number is text",
			yaml: "description: '42'\n",
			want: defaults(func(f *Frontmatter) { f.Description = "42" }),
		},
		{
			name: "description at the limit",
			yaml: "description: " + limit + "\n",
			want: defaults(func(f *Frontmatter) { f.Description = limit }),
		},
		{
			name:      "description over the limit is kept, with a warning",
			yaml:      "description: " + long + "\n",
			want:      defaults(func(f *Frontmatter) { f.Description = long }),
			wantCodes: []string{"description-long"},
		},
		{
			name:      "compatibility must be text",
			yaml:      joinLines("compatibility:", "  claude-code: '>=1'", "license: [MIT]"),
			want:      defaults(nil),
			wantCodes: []string{"compatibility-type", "license-type"},
		},
		{
			name: "allowed-tools: commas, spaces and parentheses",
			yaml: "allowed-tools: Read, Grep  Bash(git add:*),Write\n",
			want: defaults(func(f *Frontmatter) { f.AllowedTools = []string{"Read", "Grep", "Bash(git add:*)", "Write"} }),
		},
		{
			name: "allowed-tools: a list",
			yaml: joinLines("allowed-tools:", "  - Read", "  - ' Bash(git status) '", "  -", "  - [nested]"),
			want: defaults(func(f *Frontmatter) {
				f.AllowedTools = []string{"Read", "Bash(git status)"}
			}),
			wantCodes: []string{"allowed-tools-type"},
		},
		{
			name:      "allowed-tools: a mapping",
			yaml:      joinLines("allowed-tools:", "  Read: true"),
			want:      defaults(nil),
			wantCodes: []string{"allowed-tools-type"},
		},
		{
			name:      "metadata must be a mapping",
			yaml:      "metadata: text\n",
			want:      defaults(nil),
			wantCodes: []string{"metadata-type"},
		},
		{
			name: "keywords: a list of scalars",
			yaml: joinLines("keywords:", "  - React", "  - 3d", "  - 42", "  - ''", "  - '  padded '", "  - ~"),
			want: defaults(func(f *Frontmatter) { f.Keywords = []string{"React", "3d", "42", "padded"} }),
		},
		{
			name: "keywords: a comma-separated string",
			yaml: "keywords: go, Rust ,, c++ \n",
			want: defaults(func(f *Frontmatter) { f.Keywords = []string{"go", "Rust", "c++"} }),
		},
		{
			name:      "keywords: nested items are skipped",
			yaml:      "keywords: [a, [b], {c: d}, e]\n",
			want:      defaults(func(f *Frontmatter) { f.Keywords = []string{"a", "e"} }),
			wantCodes: []string{"keywords-type", "keywords-type"},
		},
		{
			name:      "keywords: a mapping",
			yaml:      "keywords: {a: b}\n",
			want:      defaults(nil),
			wantCodes: []string{"keywords-type"},
		},
		{
			name: "priority: an integer",
			yaml: "priority: -3\n",
			want: defaults(func(f *Frontmatter) { f.Priority = -3 }),
		},
		{
			name: "priority: a whole float",
			yaml: "priority: 5.0\n",
			want: defaults(func(f *Frontmatter) { f.Priority = 5 }),
		},
		{
			name:      "priority: a fraction is rounded",
			yaml:      "priority: 2.6\n",
			want:      defaults(func(f *Frontmatter) { f.Priority = 3 }),
			wantCodes: []string{"priority-type"},
		},
		{
			name: "priority: a numeric string",
			yaml: "priority: ' 7 '\n",
			want: defaults(func(f *Frontmatter) { f.Priority = 7 }),
		},
		{
			name: "priority: a float string",
			yaml: "priority: '4.0'\n",
			want: defaults(func(f *Frontmatter) { f.Priority = 4 }),
		},
		{
			name:      "priority: text",
			yaml:      "priority: high\n",
			want:      defaults(nil),
			wantCodes: []string{"priority-type"},
		},
		{
			name:      "priority: boolean",
			yaml:      "priority: true\n",
			want:      defaults(nil),
			wantCodes: []string{"priority-type"},
		},
		{
			name:      "priority: list",
			yaml:      "priority: [1]\n",
			want:      defaults(nil),
			wantCodes: []string{"priority-type"},
		},
		{
			name:      "priority: out of range",
			yaml:      "priority: 1e300\n",
			want:      defaults(nil),
			wantCodes: []string{"priority-type"},
		},
		{
			name:      "priority: infinity",
			yaml:      "priority: .inf\n",
			want:      defaults(nil),
			wantCodes: []string{"priority-type"},
		},
		{
			name: "inherit: false disables",
			yaml: "inherit: false\n",
			want: defaults(func(f *Frontmatter) { f.Inherit = false }),
		},
		{
			name: "inherit: no (YAML 1.1) disables",
			yaml: "inherit: no\n",
			want: defaults(func(f *Frontmatter) { f.Inherit = false }),
		},
		{
			name: "inherit: empty keeps the default",
			yaml: "inherit:\n",
			want: defaults(nil),
		},
		{
			name:      "inherit: 0 is not false",
			yaml:      "inherit: 0\n",
			want:      defaults(nil),
			wantCodes: []string{"inherit-type"},
		},
		{
			name:      "inherit: other text",
			yaml:      "inherit: sometimes\n",
			want:      defaults(nil),
			wantCodes: []string{"inherit-type"},
		},
		{
			name: "invocation fields",
			yaml: joinLines("disable-model-invocation: true", "user-invocable: false", "argument-hint: '[file] [message]'"),
			want: defaults(func(f *Frontmatter) {
				f.DisableModelInvocation = true
				f.UserInvocable = false
				f.ArgumentHint = "[file] [message]"
			}),
		},
		{
			name:      "invocation fields of the wrong type",
			yaml:      joinLines("disable-model-invocation: maybe", "user-invocable: [x]", "argument-hint: {a: b}"),
			want:      defaults(nil),
			wantCodes: []string{"disable-model-invocation-type", "user-invocable-type", "argument-hint-type"},
		},
		{
			name: "argument-hint: an unquoted bracket list",
			yaml: "argument-hint: [pr-number, priority]\n",
			want: defaults(func(f *Frontmatter) { f.ArgumentHint = "[pr-number] [priority]" }),
		},
		{
			name: "category and tags at the top level",
			yaml: joinLines("category: ' Dev Tools '", "tags: [Go, ' CLI ', '']"),
			want: defaults(func(f *Frontmatter) { f.Category = "dev tools"; f.Tags = []string{"go", "cli"} }),
		},
		{
			name: "metadata.skillport beats the top level",
			yaml: joinLines("category: top", "tags: top", "metadata:", "  skillport:", "    category: Port", "    tags: 'A, B'"),
			want: defaults(func(f *Frontmatter) { f.Category = "port"; f.Tags = []string{"a", "b"} }),
		},
		{
			name: "metadata.skillhub beats metadata.skillport",
			yaml: joinLines(
				"category: top",
				"metadata:",
				"  skillport: {category: port, tags: [p]}",
				"  skillhub:",
				"    category: Development",
				"    tags: [code-review, PR]",
			),
			want: defaults(func(f *Frontmatter) { f.Category = "development"; f.Tags = []string{"code-review", "pr"} }),
		},
		{
			name: "each of category and tags falls back on its own",
			yaml: joinLines("tags: [top]", "metadata:", "  skillhub:", "    category: hub", "    tags: []"),
			want: defaults(func(f *Frontmatter) { f.Category = "hub"; f.Tags = []string{"top"} }),
		},
		{
			name:      "category of the wrong type falls back",
			yaml:      joinLines("category: top", "metadata:", "  skillhub:", "    category: [a]"),
			want:      defaults(func(f *Frontmatter) { f.Category = "top" }),
			wantCodes: []string{"category-type"},
		},
		{
			name: "metadata.skillhub.alwaysApply",
			yaml: joinLines("metadata:", "  skillhub:", "    alwaysApply: true"),
			want: defaults(func(f *Frontmatter) { f.AlwaysApply = true }),
		},
		{
			name: "metadata.alwaysApply",
			yaml: joinLines("metadata:", "  alwaysApply: true"),
			want: defaults(func(f *Frontmatter) { f.AlwaysApply = true }),
		},
		{
			name: "metadata.skillhub.alwaysApply wins",
			yaml: joinLines("metadata:", "  alwaysApply: true", "  skillhub:", "    alwaysApply: false"),
			want: defaults(nil),
		},
		{
			name:      "alwaysApply of the wrong type",
			yaml:      joinLines("metadata:", "  alwaysApply: always"),
			want:      defaults(nil),
			wantCodes: []string{"always-apply-type"},
		},
		{
			name: "metadata.network",
			yaml: joinLines("metadata:", "  network: \"true\""),
			want: defaults(func(f *Frontmatter) { f.Network = true }),
		},
		{
			name:      "metadata.network of the wrong type",
			yaml:      joinLines("metadata:", "  network: sometimes"),
			want:      defaults(nil),
			wantCodes: []string{"network-type"},
		},
		{
			name: "a top-level network is not the declaration",
			yaml: joinLines("network: true"),
			want: defaults(nil),
		},
		{
			name: "fields through a merge key",
			yaml: joinLines("defaults: &d", "  priority: 3", "  inherit: false", "<<: *d", "priority: 4"),
			want: defaults(func(f *Frontmatter) { f.Priority = 4; f.Inherit = false }),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, diags := parseYAML(t, tt.yaml)
			if got := codes(diags); !cmp.Equal(got, tt.wantCodes) {
				t.Errorf("codes: got %q, want %q (%v)", got, tt.wantCodes, diags)
			}
			for _, d := range diags {
				if d.Line == 0 || d.Severity != SeverityWarning {
					t.Errorf("diagnostic %+v: want a warning with a line", d)
				}
			}
			if diff := cmp.Diff(tt.want, doc.Frontmatter, ignoreVerbatim); diff != "" {
				t.Errorf("Frontmatter (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseMetadata(t *testing.T) {
	doc, _ := parseYAML(t, joinLines("metadata:", "  author: me", "  version: '1.0'", "  skillhub:", "    tags: [a]"))
	want := map[string]any{"author": "me", "version": "1.0", "skillhub": map[string]any{"tags": []any{"a"}}}
	if diff := cmp.Diff(want, doc.Frontmatter.Metadata); diff != "" {
		t.Errorf("Metadata (-want +got):\n%s", diff)
	}
}

func TestParseAssetsAndScripts(t *testing.T) {
	tests := []struct {
		name        string
		yaml        string
		wantAssets  []Asset
		wantScripts []Script
		wantCodes   []string
		wantLines   []int
	}{
		{
			name: "defaults",
			yaml: joinLines(
				"assets:",
				"  - file: assets/a.txt",
				"  - assets/b.png",
				"scripts:",
				"  - file: scripts/run.sh",
				"    args:",
				"      - name: target-dir",
			),
			wantAssets: []Asset{{File: "assets/a.txt", Type: "other"}, {File: "assets/b.png", Type: "other"}},
			wantScripts: []Script{{
				File: "scripts/run.sh", Execution: "claude",
				Args: []Arg{{Name: "target-dir", Required: true}},
			}},
		},
		{
			name: "everything set",
			yaml: joinLines(
				"assets:",
				"  - file: ./assets/t.tpl",
				"    description: A template",
				"    type: template",
				"scripts:",
				"  - file: scripts/deploy.sh",
				"    description: Deploy",
				"    execution: Server",
				"    args:",
				"      - name: port",
				"        description: Port",
				"        required: false",
				"        default: 8080",
				"      - name: flag",
				"        required: no",
				"        default: ''",
				"      - name: none",
				"        default: ~",
			),
			wantAssets: []Asset{{File: "./assets/t.tpl", Description: "A template", Type: "template"}},
			wantScripts: []Script{{
				File: "scripts/deploy.sh", Description: "Deploy", Execution: "server",
				Args: []Arg{
					{Name: "port", Description: "Port", Required: false, Default: ptr("8080")},
					{Name: "flag", Required: false, Default: ptr("")},
					{Name: "none", Required: true},
				},
			}},
		},
		{
			name: "unsafe asset paths are skipped",
			yaml: joinLines(
				"assets:",
				"  - file: ''",
				"  - file: /etc/passwd",
				"  - file: C:/x.txt",
				`  - file: assets\x.txt`,
				"  - file: ../secret",
				"  - file: a/../../b",
				"  - file: a/..",
				`  - file: "a\0b"`,
				"  - file: a..b/ok..txt",
				"  - description: no file",
			),
			wantAssets: []Asset{{File: "a..b/ok..txt", Type: "other"}},
			wantCodes: []string{
				"asset-path", "asset-path", "asset-path", "asset-path", "asset-path",
				"asset-path", "asset-path", "asset-path", "asset-path",
			},
			wantLines: []int{3, 4, 5, 6, 7, 8, 9, 10, 12},
		},
		{
			name: "unsafe script paths are skipped",
			yaml: joinLines(
				"scripts:",
				"  - file: ../../bin/sh",
				"  - file: /bin/sh",
				"  - file: ok.sh",
			),
			wantScripts: []Script{{File: "ok.sh", Execution: "claude"}},
			wantCodes:   []string{"script-path", "script-path"},
			wantLines:   []int{3, 4},
		},
		{
			name: "wrong entry types",
			yaml: joinLines(
				"assets:",
				"  - [a, b]",
				"  - file: [x]",
				"  - file: ok.txt",
				"    type: [t]",
				"scripts:",
				"  - [x]",
				"  -",
				"  - file: s.sh",
				"    args: {name: x}",
			),
			wantAssets:  []Asset{{File: "ok.txt", Type: "other"}},
			wantScripts: []Script{{File: "s.sh", Execution: "claude"}},
			wantCodes:   []string{"assets-type", "assets-type", "asset-path", "assets-type", "scripts-type", "scripts-type"},
			wantLines:   []int{3, 4, 4, 6, 8, 11},
		},
		{
			name:      "assets and scripts must be lists",
			yaml:      joinLines("assets: a.txt b.txt", "scripts:", "  file: x.sh"),
			wantCodes: []string{"assets-type", "scripts-type"},
			wantLines: []int{2, 3},
		},
		{
			name: "network use is declared per script",
			yaml: joinLines(
				"scripts:",
				"  - file: fetch.sh",
				"    execution: server",
				"    network: true",
				"  - file: offline.sh",
				"    execution: server",
				"  - file: yes.sh",
				"    network: 'yes'",
				"  - file: bad.sh",
				"    network: [x]",
			),
			wantScripts: []Script{
				{File: "fetch.sh", Execution: "server", Network: true},
				{File: "offline.sh", Execution: "server"},
				{File: "yes.sh", Execution: "claude", Network: true},
				{File: "bad.sh", Execution: "claude"},
			},
			wantCodes: []string{"scripts-type"},
			wantLines: []int{11},
		},
		{
			name:        "unknown execution means claude",
			yaml:        joinLines("scripts:", "  - file: s.sh", "    execution: docker"),
			wantScripts: []Script{{File: "s.sh", Execution: "claude"}},
			wantCodes:   []string{"script-execution"},
			wantLines:   []int{3},
		},
		{
			name: "bad args are skipped",
			yaml: joinLines(
				"scripts:",
				"  - file: s.sh",
				"    args:",
				"      - description: nameless",
				"      - name: has space",
				"      - name: a-b",
				"      - name: A_B",
				"      - name: ok_1",
				"        required: perhaps",
				"        default: [1]",
				"      - just-text",
			),
			wantScripts: []Script{{
				File: "s.sh", Execution: "claude",
				Args: []Arg{{Name: "a-b", Required: true}, {Name: "ok_1", Required: true}},
			}},
			wantCodes: []string{"script-arg", "script-arg", "script-arg", "scripts-type", "scripts-type", "scripts-type"},
			wantLines: []int{5, 6, 8, 10, 11, 12},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, diags := parseYAML(t, tt.yaml)
			if got := codes(diags); !cmp.Equal(got, tt.wantCodes) {
				t.Errorf("codes: got %q, want %q (%v)", got, tt.wantCodes, diags)
			}
			if tt.wantLines != nil {
				var lines []int
				for _, d := range diags {
					lines = append(lines, d.Line)
				}
				if !cmp.Equal(lines, tt.wantLines) {
					t.Errorf("lines: got %v, want %v", lines, tt.wantLines)
				}
			}
			if diff := cmp.Diff(tt.wantAssets, doc.Frontmatter.Assets); diff != "" {
				t.Errorf("Assets (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantScripts, doc.Frontmatter.Scripts); diff != "" {
				t.Errorf("Scripts (-want +got):\n%s", diff)
			}
		})
	}
}

func TestArgEnv(t *testing.T) {
	tests := []struct{ name, want string }{
		{"project_dir", "SKILL_ARG_PROJECT_DIR"},
		{"config-path", "SKILL_ARG_CONFIG_PATH"},
		{"x", "SKILL_ARG_X"},
	}
	for _, tt := range tests {
		if got := ArgEnv(tt.name); got != tt.want {
			t.Errorf("ArgEnv(%q): got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestValidateName(t *testing.T) {
	tests := []struct {
		name string
		want []string
	}{
		{"pdf-processing", nil},
		{"a", nil},
		{"v2", nil},
		{"données", nil},
		{strings.Repeat("a", 64), nil},
		{"", []string{"the name is empty"}},
		{strings.Repeat("a", 65), []string{"the name is 65 characters long; the limit is 64"}},
		{"PDF-Processing", []string{"the name must be lower-case"}},
		{"pdf_processing", []string{`the name may only contain letters, digits and hyphens, not '_'`}},
		{"pdf processing.v2", []string{`the name may only contain letters, digits and hyphens, not ' ', '.'`}},
		{"-pdf", []string{"the name must not start or end with a hyphen"}},
		{"pdf-", []string{"the name must not start or end with a hyphen"}},
		{"pdf--process", []string{"the name must not contain two hyphens in a row"}},
		{"--", []string{"the name must not start or end with a hyphen", "the name must not contain two hyphens in a row"}},
		{"Bad_Name-", []string{
			"the name must be lower-case",
			`the name may only contain letters, digits and hyphens, not '_'`,
			"the name must not start or end with a hyphen",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, ValidateName(tt.name)); diff != "" {
				t.Errorf("ValidateName(%q) (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}
