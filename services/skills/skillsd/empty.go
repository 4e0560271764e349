package skillsd

import (
	"fmt"
	"strings"

	"github.com/skillsd/skillsd/services/skills/internal/catalog"
	"github.com/skillsd/skillsd/services/skills/internal/skill"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

// checkNotEmpty looks at the first catalog: with skills, nothing to say.
// Empty, it says why and which folders were searched, as a warning on the
// log, or, when skills are required (Options.RequireSkills, require_skills),
// as the error that stops the start.
func (s *Server) checkNotEmpty(snap *catalog.Snapshot) error {
	if snap.Len() > 0 {
		return nil
	}
	reason, searched := emptyReport(snap, s.fresh.Roots(), s.sources.Discovered, source.DiscoveryFolders(s.cwd, s.home, nil))
	if s.requireSkills() {
		return fmt.Errorf("no skills to serve: %s (searched: %s); --require-skills (require_skills in config.yaml) stops the start when the catalog is empty: "+
			"point --skills-dir or SKILLS_DIR at a folder of skills, or leave the option off", reason, strings.Join(searched, ", "))
	}
	s.log.Warn("the catalog has no skills: every search and match will answer nothing (--require-skills makes this an error)",
		"reason", reason, "searched", strings.Join(searched, ", "))
	return nil
}

// emptyReport says why a catalog has no skills, source by source, and which
// folders were searched. candidates are the default discovery folders, named
// when discovery found none of them.
func emptyReport(snap *catalog.Snapshot, roots []*source.Root, discovered bool, candidates []string) (string, []string) {
	if len(roots) == 0 {
		if discovered {
			return "none of the default skills folders exists (no --skills-dir, SKILLS_DIR or sources in config.yaml)", candidates
		}
		return "no skill source is configured", nil
	}
	type found struct {
		missing, unreadable bool
		files               map[string]bool // skill files reported with an error
	}
	bySource := map[string]*found{}
	for _, r := range roots {
		bySource[r.Name] = &found{files: map[string]bool{}}
	}
	for _, d := range snap.Diagnostics() {
		f := bySource[d.Source]
		if f == nil {
			continue
		}
		switch {
		case d.Code == catalog.CodeSourceMissing:
			f.missing = true
		case d.Code == catalog.CodeSourceUnreadable:
			f.unreadable = true
		case d.File != "" && d.Severity == skill.SeverityError:
			f.files[d.File] = true
		}
	}
	var reasons, searched []string
	for _, r := range roots {
		f := bySource[r.Name]
		where := r.Dir
		if r.Name != r.Dir && !strings.HasPrefix(r.Name, ".") && !strings.HasPrefix(r.Name, "~") {
			where = r.Name + " (" + r.Dir + ")"
		}
		searched = append(searched, r.Dir)
		switch {
		case f.missing:
			reasons = append(reasons, where+" does not exist")
		case f.unreadable:
			reasons = append(reasons, where+" cannot be read")
		case len(f.files) > 0:
			reasons = append(reasons, fmt.Sprintf("%s has %d skill files that could not be loaded (skills lint %s says why)", where, len(f.files), r.Dir))
		default:
			reasons = append(reasons, where+" holds no skill: no SKILL.md folder and no .md file with keywords and description")
		}
	}
	return strings.Join(reasons, "; "), searched
}

// requireSkills reports whether an empty first catalog stops the start
// (Options.RequireSkills, require_skills).
func (s *Server) requireSkills() bool { return s.opts.RequireSkills || s.cfg.RequireSkills }
