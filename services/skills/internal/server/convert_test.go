package server

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

// Round trips of convert.go. Severity is the one conversion with both
// directions in the product (fromSeverity reads ListDiagnostics'
// min_severity); the other conversions go only from domain to wire, so their
// tests convert back with the inverses below, which exist only here, to show
// that no field is lost or mixed up on the way out.

// severities is every domain severity, in order.
var severities = []skill.Severity{skill.SeverityInfo, skill.SeverityWarning, skill.SeverityError}

func TestSeverityRoundTrip(t *testing.T) {
	for _, s := range severities {
		t.Run(s.String(), func(t *testing.T) {
			w := toSeverity(s)
			if w == skillsv1.Severity_SEVERITY_UNSPECIFIED {
				t.Fatalf("toSeverity(%v) = %v, want a specified severity", s, w)
			}
			if got := fromSeverity(w); got != s {
				t.Errorf("fromSeverity(toSeverity(%v)) = %v, want %v", s, got, s)
			}
		})
	}
	// Every wire value, including ones added to the contract later: each
	// specified one comes back as itself; UNSPECIFIED (a request that sets
	// no minimum) reads as the lowest severity, which filters nothing.
	for n, name := range skillsv1.Severity_name {
		w := skillsv1.Severity(n)
		t.Run(name, func(t *testing.T) {
			want := w
			if w == skillsv1.Severity_SEVERITY_UNSPECIFIED {
				want = skillsv1.Severity_SEVERITY_INFO
			}
			if got := toSeverity(fromSeverity(w)); got != want {
				t.Errorf("toSeverity(fromSeverity(%v)) = %v, want %v", w, got, want)
			}
		})
	}
	// The zero domain value is not a severity: it goes out as UNSPECIFIED.
	if got := toSeverity(0); got != skillsv1.Severity_SEVERITY_UNSPECIFIED {
		t.Errorf("toSeverity(0) = %v, want %v", got, skillsv1.Severity_SEVERITY_UNSPECIFIED)
	}
}

func TestLayout(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   skill.Layout
		want skillsv1.Layout
	}{
		{"zero", 0, skillsv1.Layout_LAYOUT_UNSPECIFIED},
		{"folder", skill.LayoutFolder, skillsv1.Layout_LAYOUT_FOLDER},
		{"tree", skill.LayoutTree, skillsv1.Layout_LAYOUT_TREE},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := toLayout(tc.in); got != tc.want {
				t.Errorf("toLayout(%v) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
	// Every specified wire layout is the image of one domain layout.
	seen := map[skillsv1.Layout]skill.Layout{}
	for _, l := range []skill.Layout{skill.LayoutFolder, skill.LayoutTree} {
		w := toLayout(l)
		if prev, ok := seen[w]; ok {
			t.Errorf("toLayout(%v) = toLayout(%v) = %v, want distinct", l, prev, w)
		}
		seen[w] = l
	}
	for n, name := range skillsv1.Layout_name {
		if w := skillsv1.Layout(n); w != skillsv1.Layout_LAYOUT_UNSPECIFIED {
			if _, ok := seen[w]; !ok {
				t.Errorf("no domain layout converts to %s", name)
			}
		}
	}
}

func TestTimestampRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   time.Time
	}{
		{"unix epoch", time.Unix(0, 0)},
		{"nanoseconds", time.Date(2026, 11, 28, 11, 30, 15, 123456789, time.UTC)},
		{"other zone", time.Date(2024, 2, 29, 23, 59, 59, 0, time.FixedZone("UTC+5", 5*3600))},
		{"before the epoch", time.Date(1969, 7, 20, 20, 17, 40, 0, time.UTC)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ts := timestamp(tc.in)
			if ts == nil {
				t.Fatalf("timestamp(%v) = nil, want a timestamp", tc.in)
			}
			if got := ts.AsTime(); !got.Equal(tc.in) {
				t.Errorf("timestamp(%v).AsTime() = %v, want the same instant", tc.in, got)
			}
		})
	}
	// The zero time is "never": no timestamp on the wire.
	if got := timestamp(time.Time{}); got != nil {
		t.Errorf("timestamp(zero) = %v, want nil", got)
	}
}

// diagnosticFromWire is toDiagnostic's inverse.
func diagnosticFromWire(d *skillsv1.Diagnostic) skill.Diagnostic {
	return skill.Diagnostic{
		Source:   d.GetSource(),
		File:     d.GetFile(),
		Line:     int(d.GetLine()),
		Severity: fromSeverity(d.GetSeverity()),
		Code:     d.GetCode(),
		Message:  d.GetMessage(),
	}
}

func TestDiagnosticRoundTrip(t *testing.T) {
	cases := []struct {
		name string
		in   skill.Diagnostic
	}{
		// The zero diagnostic's severity reads back as Info (see
		// TestSeverityRoundTrip), so the zero case sets only that.
		{"zero but for severity", skill.Diagnostic{Severity: skill.SeverityInfo}},
		{"tree page", skill.Diagnostic{Source: "~/.claude/skills", File: "seed/_index.md", Line: 12, Code: "frontmatter-missing", Message: "no front matter"}},
		{"unicode", skill.Diagnostic{Source: "git:acme", File: "pdf/SKILL.md", Line: 1, Code: "name-mismatch", Message: "« pdf » ≠ « PDF »"}},
	}
	for _, tc := range cases {
		for _, sev := range severities {
			in := tc.in
			in.Severity = sev
			t.Run(tc.name+"/"+sev.String(), func(t *testing.T) {
				if diff := cmp.Diff(in, diagnosticFromWire(toDiagnostic(in))); diff != "" {
					t.Errorf("diagnostic round trip (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// assetsFromWire and scriptsFromWire are toAssets' and toScripts' inverses
// for refs without an Owner (the owner is not on the wire).
func assetsFromWire(as []*skillsv1.Asset) []catalog.AssetRef {
	var out []catalog.AssetRef
	for _, a := range as {
		out = append(out, catalog.AssetRef{Asset: skill.Asset{File: a.GetFile(), Description: a.GetDescription(), Type: a.GetType()}, From: a.GetFrom()})
	}
	return out
}

func scriptsFromWire(ss []*skillsv1.Script) []catalog.ScriptRef {
	var out []catalog.ScriptRef
	for _, s := range ss {
		r := catalog.ScriptRef{Script: skill.Script{File: s.GetFile(), Description: s.GetDescription(), Execution: s.GetExecution(), Network: s.GetNetwork()}, From: s.GetFrom()}
		for _, a := range s.GetArgs() {
			r.Args = append(r.Args, skill.Arg{Name: a.GetName(), Description: a.GetDescription(), Required: a.GetRequired(), Default: a.Default})
		}
		out = append(out, r)
	}
	return out
}

func TestAssetsRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []catalog.AssetRef
	}{
		{"none", nil},
		{"zero asset", []catalog.AssetRef{{}}},
		{"own and inherited", []catalog.AssetRef{
			{Asset: skill.Asset{File: "templates/report.md", Description: "the report", Type: "template"}},
			{Asset: skill.Asset{File: "logo.png", Type: "image"}, From: "brand"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := toAssets(tc.in)
			if w == nil {
				t.Fatalf("toAssets(%v) = nil, want a non-nil slice (JSON [] rather than null)", tc.in)
			}
			if diff := cmp.Diff(tc.in, assetsFromWire(w), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("assets round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestScriptsRoundTrip(t *testing.T) {
	def := "--fast"
	empty := ""
	for _, tc := range []struct {
		name string
		in   []catalog.ScriptRef
	}{
		{"none", nil},
		{"zero script", []catalog.ScriptRef{{}}},
		{"args", []catalog.ScriptRef{{Script: skill.Script{File: "scripts/run.sh", Description: "runs", Execution: "bash", Args: []skill.Arg{
			{Name: "mode", Description: "how", Required: true},
			{Name: "flag", Default: &def},
			{Name: "blank", Default: &empty},
		}}}}},
		{"network and inherited", []catalog.ScriptRef{{Script: skill.Script{File: "fetch.py", Execution: "python", Network: true}, From: "base"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := toScripts(tc.in)
			if w == nil {
				t.Fatalf("toScripts(%v) = nil, want a non-nil slice (JSON [] rather than null)", tc.in)
			}
			for _, s := range w {
				if s.Args == nil {
					t.Errorf("toScripts: %s has nil args, want a non-nil slice", s.GetFile())
				}
			}
			if diff := cmp.Diff(tc.in, scriptsFromWire(w), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("scripts round trip (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSourceStatus(t *testing.T) {
	loaded := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		src    catalog.Source
		count  int32
		loaded time.Time
	}{
		{"zero", catalog.Source{}, 0, time.Time{}},
		{"local", catalog.Source{Name: "./.claude/skills", Dir: "/p/.claude/skills", Kind: "local", Trusted: true}, 7, loaded},
		{"git", catalog.Source{Name: "acme", Dir: "/s/git/acme", Kind: "git"}, 120, loaded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := toSourceStatus(&tc.src, tc.count, tc.loaded)
			got := catalog.Source{Name: w.GetName(), Dir: w.GetLocation(), Kind: w.GetKind(), Trusted: w.GetTrusted()}
			if diff := cmp.Diff(tc.src, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("source round trip (-want +got):\n%s", diff)
			}
			if w.GetSkillCount() != tc.count {
				t.Errorf("skill count = %d, want %d", w.GetSkillCount(), tc.count)
			}
			if tc.loaded.IsZero() != (w.GetLastSync() == nil) || !tc.loaded.IsZero() && !w.GetLastSync().AsTime().Equal(tc.loaded) {
				t.Errorf("last sync = %v, want %v", w.GetLastSync(), tc.loaded)
			}
		})
	}
}
