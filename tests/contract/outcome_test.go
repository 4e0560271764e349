package contract

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var update = flag.Bool("update", false, "rewrite testdata/golden from the gRPC answers")

// Outcome is what one surface answered to one operation, in a form that does
// not depend on the surface. Exactly one field is set. Lists keep the
// difference between empty ([]) and missing (null): a surface that sends null
// where the contract says [] does not compare equal.
type Outcome struct {
	Loaded      *Loaded      `json:"loaded,omitempty"`
	Tree        []Node       `json:"tree,omitzero"`
	List        *Listing     `json:"list,omitempty"`
	Diagnostics *Diagnostics `json:"diagnostics,omitempty"`
	Status      *Status      `json:"status,omitempty"`
	Search      *Searched    `json:"search,omitempty"`
	Match       *Matched     `json:"match,omitempty"`
	File        *FileRead    `json:"file,omitempty"`
	Run         *ScriptRun   `json:"run,omitempty"`
	Error       *Failure     `json:"error,omitempty"`
}

// Loaded is one skill as load_skill / GetSkill / GET /v1/skills/{path} give it.
// The first block is what every surface carries; the rest only gRPC and REST
// (MCP's load_skill has no such fields: see mcpSurface.mask).
type Loaded struct {
	Name         string         `json:"name"`
	SkillPath    string         `json:"skill_path"`
	Description  string         `json:"description"`
	Instructions string         `json:"instructions"`
	Content      string         `json:"content"`
	Directory    string         `json:"directory"`
	Source       string         `json:"source"`
	LoadedAt     string         `json:"loaded_at"`
	Files        []File         `json:"files"`
	Frontmatter  map[string]any `json:"frontmatter"`

	Skill            *Listed      `json:"skill,omitempty"`
	File             string       `json:"file,omitempty"`
	Assets           []Asset      `json:"assets,omitzero"`
	Scripts          []Script     `json:"scripts,omitzero"`
	InheritedAssets  []Asset      `json:"inherited_assets,omitzero"`
	InheritedScripts []Script     `json:"inherited_scripts,omitzero"`
	InheritanceChain []string     `json:"inheritance_chain,omitzero"`
	Diagnostics      []Diagnostic `json:"diagnostics,omitzero"`
}

// File is one companion file of a skill. MimeType and Text are not carried by MCP.
type File struct {
	Path      string `json:"path"`
	SizeBytes int64  `json:"size_bytes"`
	Digest    string `json:"digest"`
	MimeType  string `json:"mime_type,omitempty"`
	Text      bool   `json:"text,omitempty"`
}

// Asset is a declared asset.
type Asset struct {
	File        string `json:"file"`
	Description string `json:"description"`
	Type        string `json:"type"`
	From        string `json:"from"`
}

// Script is a declared script.
type Script struct {
	File        string      `json:"file"`
	Description string      `json:"description"`
	Execution   string      `json:"execution"`
	Args        []ScriptArg `json:"args"`
	From        string      `json:"from"`
}

// ScriptArg is a declared script argument.
type ScriptArg struct {
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Required    bool    `json:"required"`
	Default     *string `json:"default,omitempty"`
}

// Node is one node of the catalog tree (SkillNode).
type Node struct {
	Name        string   `json:"name"`
	Path        string   `json:"path"`
	Description string   `json:"description"`
	Keywords    []string `json:"keywords"`
	AssetCount  int      `json:"asset_count"`
	ScriptCount int      `json:"script_count"`
	Children    []Node   `json:"children"`
}

// Listing is one page of ListSkills.
type Listing struct {
	Skills        []Listed `json:"skills"`
	NextPageToken string   `json:"next_page_token"`
	TotalSize     int      `json:"total_size"`
}

// Listed is one skill as listed (the Skill message).
type Listed struct {
	SkillPath     string   `json:"skill_path"`
	Name          string   `json:"name"`
	Description   string   `json:"description"`
	Layout        string   `json:"layout"`
	Category      string   `json:"category"`
	Tags          []string `json:"tags"`
	Keywords      []string `json:"keywords"`
	Source        string   `json:"source"`
	Routable      bool     `json:"routable"`
	UserInvocable bool     `json:"user_invocable"`
	AlwaysApply   bool     `json:"always_apply"`
	ParentPath    string   `json:"parent_path"`
	AssetCount    int      `json:"asset_count"`
	ScriptCount   int      `json:"script_count"`
	FileCount     int      `json:"file_count"`
	LoadedAt      string   `json:"loaded_at"`
	Body          string   `json:"body"`
	ArgumentHint  string   `json:"argument_hint"`
}

// Diagnostics is the answer of ListDiagnostics.
type Diagnostics struct {
	Diagnostics  []Diagnostic `json:"diagnostics"`
	ErrorCount   int          `json:"error_count"`
	WarningCount int          `json:"warning_count"`
}

// Diagnostic is one load problem.
type Diagnostic struct {
	Source   string `json:"source"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

// Status is the answer of GetCatalogStatus.
type Status struct {
	Generation       int64          `json:"generation"`
	BuiltAt          string         `json:"built_at"`
	SkillCount       int            `json:"skill_count"`
	RoutableCount    int            `json:"routable_count"`
	ErrorCount       int            `json:"error_count"`
	WarningCount     int            `json:"warning_count"`
	Sources          []SourceStatus `json:"sources"`
	Version          string         `json:"version"`
	MatchingStrategy string         `json:"matching_strategy"`
	CatalogID        string         `json:"catalog_id"`
}

// SourceStatus is one source of the catalog.
type SourceStatus struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"`
	Location   string `json:"location"`
	Ref        string `json:"ref"`
	Commit     string `json:"commit"`
	Trusted    bool   `json:"trusted"`
	SkillCount int    `json:"skill_count"`
	LastSync   string `json:"last_sync"`
	Error      string `json:"error"`
	ContentID  string `json:"content_id"`
}

// SearchQuery is a search request, as every surface takes it.
type SearchQuery struct {
	Query    string
	Limit    int
	AllTerms bool
	Category string
	Tags     []string
	// Restated is one restatement of the query (search_skills takes one).
	Restated string
}

// Searched is the answer of SearchSkills / search_skills.
type Searched struct {
	Query   string      `json:"query"`
	Results []SearchHit `json:"results"`
}

// SearchHit is one search result.
type SearchHit struct {
	SkillPath    string   `json:"skill_path"`
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Category     string   `json:"category"`
	Score        float64  `json:"score"`
	Excerpt      string   `json:"excerpt"`
	MatchedTerms []string `json:"matched_terms"`
	// Phrasing is 1 when the restatement matched best (search_skills says
	// matched_restated), 0 for the query.
	Phrasing int `json:"phrasing,omitempty"`
}

// Matched is the answer of MatchSkill / get_skill (seed 000 §8.1). Outcome is
// "match", "ambiguous" or "no_match". The fields after Outcome are those of
// the gRPC answer; get_skill carries each shape's own fields only (see
// mcpSurface.mask).
type Matched struct {
	Outcome          string           `json:"outcome"`
	Message          string           `json:"message"`
	Strategy         string           `json:"strategy,omitempty"`
	SkillPath        string           `json:"skill_path,omitempty"`
	Score            float64          `json:"score,omitempty"`
	MatchedKeywords  []string         `json:"matched_keywords,omitzero"`
	Content          string           `json:"content,omitempty"`
	Assets           []Asset          `json:"assets,omitzero"`
	Scripts          []Script         `json:"scripts,omitzero"`
	InheritedAssets  []Asset          `json:"inherited_assets,omitzero"`
	InheritedScripts []Script         `json:"inherited_scripts,omitzero"`
	Candidates       []MatchCandidate `json:"candidates,omitzero"`
}

// MatchCandidate is one skill of an ambiguous answer.
type MatchCandidate struct {
	SkillPath       string   `json:"skill_path"`
	Score           float64  `json:"score"`
	Description     string   `json:"description"`
	MatchedKeywords []string `json:"matched_keywords"`
}

// Failure is an error answer. Code is the gRPC code's name ("NotFound"),
// Reason the skillsd ErrorInfo reason ("SKILL_NOT_FOUND", empty when the
// service gives none), Suggestions the close names the service proposes.
// Message is each surface's own wording: never compared, only searched.
type Failure struct {
	Code        string   `json:"code"`
	Reason      string   `json:"reason,omitempty"`
	Suggestions []string `json:"suggestions,omitempty"`
	Message     string   `json:"-"`
}

// normTime is the one spelling of a time in outcomes: UTC, RFC 3339, whole
// seconds (MCP's load_skill gives seconds; gRPC and REST give nanoseconds).
func normTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Truncate(time.Second).Format(time.RFC3339)
}

// normTimeString parses an RFC 3339 time as a surface sent it and normalises it.
func normTimeString(t *testing.T, field, s string) string {
	t.Helper()
	if s == "" {
		return ""
	}
	ts, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Errorf("%s: got %q, want an RFC 3339 time: %v", field, s, err)
		return s
	}
	return normTime(ts)
}

// Placeholders written into golden files for values that differ between runs.
const (
	catalogPlaceholder = "$CATALOG"
	timePlaceholder    = "<time>"
	excerptPlaceholder = "<excerpt>"
	// digestPlaceholder stands for a content digest (catalog_id, a folder's
	// content_id): every surface must send the same one (the reference
	// comparison), but the golden file would churn with every fixture and
	// security rule edit; the contract holds that it is one.
	digestPlaceholder = "sha256:<digest>"
)

// sha256Form is a content digest as the service writes it.
var sha256Form = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// scrub returns o as the golden file holds it: times replaced by a
// placeholder, and the catalog's absolute folder by $CATALOG.
func scrub(t *testing.T, o Outcome, root string) Outcome {
	t.Helper()
	o = clone(t, o)
	stamp := func(s *string) {
		if *s != "" {
			*s = timePlaceholder
		}
	}
	if o.Loaded != nil {
		stamp(&o.Loaded.LoadedAt)
		if o.Loaded.Skill != nil {
			stamp(&o.Loaded.Skill.LoadedAt)
		}
	}
	if o.List != nil {
		for i := range o.List.Skills {
			stamp(&o.List.Skills[i].LoadedAt)
		}
	}
	if o.Status != nil {
		stamp(&o.Status.BuiltAt)
		digest := func(s *string) {
			if sha256Form.MatchString(*s) {
				*s = digestPlaceholder
			}
		}
		digest(&o.Status.CatalogID)
		for i := range o.Status.Sources {
			stamp(&o.Status.Sources[i].LastSync)
			digest(&o.Status.Sources[i].ContentID)
		}
	}
	// Paths are replaced in the JSON text, so that every field holding one
	// (directory, file, source, location, messages) is covered.
	buf, err := json.Marshal(o)
	if err != nil {
		t.Fatalf("marshalling an outcome: %v", err)
	}
	quoted, _ := json.Marshal(filepath.ToSlash(root))
	quoted = quoted[1 : len(quoted)-1]
	buf = bytes.ReplaceAll(buf, quoted, []byte(catalogPlaceholder))
	var out Outcome
	if err := json.Unmarshal(buf, &out); err != nil {
		t.Fatalf("unmarshalling an outcome: %v", err)
	}
	return out
}

// scrubRanking zeroes, in o (already a scrubbed copy), what the ranking
// engine computes: search scores and excerpts, and the scores of a ranked
// match. The engine is tuned on a benchmark, so golden files keep which
// skills answer, in which order and with which terms, not the numbers.
// Surfaces are still compared with each other on the exact values, and seed
// 000's keyword scores (the keyword catalog) stay in the golden files.
func scrubRanking(o Outcome) Outcome {
	if o.Search != nil {
		for i := range o.Search.Results {
			o.Search.Results[i].Score, o.Search.Results[i].Excerpt = 0, excerptPlaceholder
		}
	}
	if o.Match != nil {
		o.Match.Score = 0
		for i := range o.Match.Candidates {
			o.Match.Candidates[i].Score = 0
		}
	}
	return o
}

// clone deep-copies o through JSON (Message, which JSON leaves out, is kept).
func clone(t *testing.T, o Outcome) Outcome {
	t.Helper()
	buf, err := json.Marshal(o)
	if err != nil {
		t.Fatalf("marshalling an outcome: %v", err)
	}
	var out Outcome
	if err := json.Unmarshal(buf, &out); err != nil {
		t.Fatalf("unmarshalling an outcome: %v", err)
	}
	if o.Error != nil {
		out.Error.Message = o.Error.Message
	}
	return out
}

// goldenPath is the golden file of a scenario.
func goldenPath(scenario string) string {
	return filepath.Join("testdata", "golden", scenario+".json")
}

// readGolden reads a scenario's golden outcome.
func readGolden(t *testing.T, scenario string) Outcome {
	t.Helper()
	buf, err := os.ReadFile(goldenPath(scenario))
	if err != nil {
		t.Fatalf("reading the golden file (run go test -update to create it): %v", err)
	}
	var o Outcome
	dec := json.NewDecoder(bytes.NewReader(buf))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&o); err != nil {
		t.Fatalf("decoding %s: %v", goldenPath(scenario), err)
	}
	return o
}

// writeGolden writes a scenario's golden outcome, indented, with a final newline.
func writeGolden(t *testing.T, scenario string, o Outcome) {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(o); err != nil {
		t.Fatalf("encoding the golden outcome: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(goldenPath(scenario)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goldenPath(scenario), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// diffOutcomes compares two outcomes, ignoring error wording.
func diffOutcomes(want, got Outcome) string {
	return cmp.Diff(want, got, cmpopts.IgnoreFields(Failure{}, "Message"))
}

// splitList splits a comma-separated list, dropping blanks; nil when empty.
func splitList(s string) []string {
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}
