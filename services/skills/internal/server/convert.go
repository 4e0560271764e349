package server

import (
	"path"
	"time"

	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/sandbox"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
)

// This file converts domain values to wire messages. Every repeated field is
// set to a non-nil slice so that JSON surfaces print [] rather than null.

func toSkill(snap *catalog.Snapshot, sk *catalog.Skill, withBody bool) *skillsv1.Skill {
	out := &skillsv1.Skill{
		SkillPath:     sk.Path,
		Name:          sk.Name,
		Description:   sk.Description,
		Layout:        toLayout(sk.Layout),
		Source:        sk.Source.Name,
		Routable:      sk.Routable,
		UserInvocable: true,
		FileCount:     int32(len(sk.Files)),
		LoadedAt:      timestamp(sk.LoadedAt),
		Tags:          []string{},
		Keywords:      []string{},
	}
	if sk.Parent != nil && inherits(sk) {
		out.ParentPath = sk.Parent.Path
	}
	if sk.Doc != nil {
		fm := &sk.Doc.Frontmatter
		out.Category = fm.Category
		out.Tags = nonNil(fm.Tags)
		out.Keywords = nonNil(fm.Keywords)
		out.UserInvocable = fm.UserInvocable
		out.AlwaysApply = fm.AlwaysApply
		out.ArgumentHint = fm.ArgumentHint
		out.AssetCount = int32(len(fm.Assets))
		out.ScriptCount = int32(len(fm.Scripts))
		if withBody {
			out.Body = sk.Doc.Body
		}
	}
	return out
}

// inherits reports whether sk takes its parents' content (inherit: true, the default).
func inherits(sk *catalog.Skill) bool {
	return sk.Doc == nil || sk.Doc.Frontmatter.Inherit
}

func toSkillDetail(snap *catalog.Snapshot, sk *catalog.Skill) *skillsv1.GetSkillResponse {
	out := &skillsv1.GetSkillResponse{
		Skill:            toSkill(snap, sk, false),
		Frontmatter:      &structpb.Struct{Fields: map[string]*structpb.Value{}},
		Content:          snap.Content(sk),
		Directory:        sk.Dir,
		File:             sk.File,
		Files:            make([]*skillsv1.SkillFile, 0, len(sk.Files)),
		InheritanceChain: []string{},
		Diagnostics:      []*skillsv1.Diagnostic{},
	}
	if sk.Doc != nil {
		out.Instructions = sk.Doc.Body
		if st, err := structpb.NewStruct(sk.Doc.Frontmatter.Raw); err == nil {
			out.Frontmatter = st
		}
	}
	if d := sk.FileDigest(); d != "" {
		out.SkillFile = &skillsv1.SkillFile{
			Path: path.Base(sk.RelFile), SizeBytes: sk.Size, Digest: d, MimeType: "text/markdown", Text: true,
		}
	}
	for _, f := range sk.Files {
		out.Files = append(out.Files, &skillsv1.SkillFile{
			Path: f.Path, SizeBytes: f.Size, Digest: f.Digest, MimeType: f.MIME, Text: f.Text,
		})
	}
	own, inherited := snap.Assets(sk)
	out.Assets, out.InheritedAssets = toAssets(own), toAssets(inherited)
	ownS, inheritedS := snap.Scripts(sk)
	out.Scripts, out.InheritedScripts = toScripts(ownS), toScripts(inheritedS)
	if inherits(sk) {
		for _, p := range snap.Chain(sk) {
			out.InheritanceChain = append(out.InheritanceChain, p.Path)
		}
	} else {
		out.InheritanceChain = append(out.InheritanceChain, sk.Path)
	}
	for _, d := range snap.Diagnostics() {
		if d.Source == sk.Source.Name && d.File == sk.RelFile {
			out.Diagnostics = append(out.Diagnostics, toDiagnostic(d))
		}
	}
	return out
}

func toAssets(refs []catalog.AssetRef) []*skillsv1.Asset {
	return mapAll(refs, func(r catalog.AssetRef) *skillsv1.Asset {
		return &skillsv1.Asset{File: r.File, Description: r.Description, Type: r.Type, From: r.From}
	})
}

func toScripts(refs []catalog.ScriptRef) []*skillsv1.Script {
	return mapAll(refs, func(r catalog.ScriptRef) *skillsv1.Script {
		return &skillsv1.Script{File: r.File, Description: r.Description, Execution: r.Execution, From: r.From,
			Args: mapAll(r.Args, func(a skill.Arg) *skillsv1.ScriptArg {
				return &skillsv1.ScriptArg{Name: a.Name, Description: a.Description, Required: a.Required, Default: a.Default}
			}),
			Network: r.Network || r.Owner != nil && r.Owner.Doc.Frontmatter.Network}
	})
}

// mapAll is conv applied to each of in, in order; never nil, so that an
// empty list stays empty rather than absent.
func mapAll[T, W any](in []T, conv func(T) W) []W {
	out := make([]W, 0, len(in))
	for _, x := range in {
		out = append(out, conv(x))
	}
	return out
}

func toDiagnostic(d skill.Diagnostic) *skillsv1.Diagnostic {
	return &skillsv1.Diagnostic{
		Source:   d.Source,
		File:     d.File,
		Line:     int32(d.Line),
		Severity: toSeverity(d.Severity),
		Code:     d.Code,
		Message:  d.Message,
	}
}

func toSourceStatus(src *catalog.Source, count int32, loaded time.Time) *skillsv1.SourceStatus {
	return &skillsv1.SourceStatus{
		Name:       src.Name,
		Kind:       src.Kind,
		Location:   src.Dir,
		Trusted:    src.Trusted,
		SkillCount: count,
		LastSync:   timestamp(loaded),
		ContentId:  src.ContentID,
	}
}

// wireLayouts and wireSeverities are the wire forms of skill's layouts and
// severities; one they do not name is the wire's UNSPECIFIED (0).
var (
	wireLayouts = map[skill.Layout]skillsv1.Layout{
		skill.LayoutFolder: skillsv1.Layout_LAYOUT_FOLDER,
		skill.LayoutTree:   skillsv1.Layout_LAYOUT_TREE,
	}
	wireSeverities = map[skill.Severity]skillsv1.Severity{
		skill.SeverityInfo:    skillsv1.Severity_SEVERITY_INFO,
		skill.SeverityWarning: skillsv1.Severity_SEVERITY_WARNING,
		skill.SeverityError:   skillsv1.Severity_SEVERITY_ERROR,
	}
)

func toLayout(l skill.Layout) skillsv1.Layout { return wireLayouts[l] }

func toSeverity(s skill.Severity) skillsv1.Severity { return wireSeverities[s] }

// fromSeverity is the severity whose wire form is s; info for UNSPECIFIED.
func fromSeverity(s skillsv1.Severity) skill.Severity {
	for sev, wire := range wireSeverities {
		if wire == s {
			return sev
		}
	}
	return skill.SeverityInfo
}

func timestamp(t time.Time) *timestamppb.Timestamp {
	if t.IsZero() {
		return nil
	}
	return timestamppb.New(t)
}

// toIsolation is the wire form of the kernel isolation of scripts and
// commands.
func toIsolation(iso sandbox.Isolation) *skillsv1.ScriptIsolation {
	return &skillsv1.ScriptIsolation{
		InForce:  iso.InForce,
		Missing:  iso.MissingNames(),
		Detail:   iso.Detail(),
		Network:  iso.Network,
		Required: iso.Required,
	}
}
