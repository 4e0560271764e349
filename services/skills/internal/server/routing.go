package server

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
	"github.com/skillsd/skillsd/services/skills/internal/failure"
	"github.com/skillsd/skillsd/services/skills/internal/search"
	"github.com/skillsd/skillsd/services/skills/internal/usage"
)

// This file is the RoutingService: it validates searches and matches, has
// the search router (package search) answer them, and converts the answers.

// Search limits (SearchSkillsRequest.limit).
const (
	defaultSearchLimit = 10 // seed 004's SEARCH_LIMIT
	maxSearchLimit     = 50
	// maxQueryBytes bounds a query or a match context: a paragraph of task
	// description is welcome, a document is not.
	maxQueryBytes = 16 << 10
)

// Routing configures search and match (config matching.* and search.*).
type Routing struct {
	// Match holds the match decision's thresholds (matching.min_score,
	// matching.ambiguity_threshold, matching.max_results); the zero value
	// means search.DefaultThresholds.
	Match search.Thresholds
	// SearchLimit is the number of search results when the request says 0
	// (search.limit); 0 means 10.
	SearchLimit int
	// SearchThreshold is seed 004's dynamic cut (search.threshold): in ranked
	// mode, when more than 5 skills hit, keep those scoring at least this
	// share of the best score.
	SearchThreshold float64
	// StopWords are added to the built-in English and French stop words
	// (search.stop_words).
	StopWords []string
}

// DefaultRouting is the configuration's defaults: seed 000's thresholds,
// seed 004's limit and cut, no extra stop words.
func DefaultRouting() Routing {
	return Routing{Match: search.DefaultThresholds(), SearchLimit: defaultSearchLimit, SearchThreshold: 0.2}
}

// isZero reports whether r was left unset.
func (r Routing) isZero() bool {
	return r.Match == (search.Thresholds{}) && r.SearchLimit == 0 && r.SearchThreshold == 0 && len(r.StopWords) == 0
}

// routing is the configured Routing, with the defaults of DefaultRouting for
// what is unset.
func (s *Service) routing() Routing {
	r := s.opts.Routing
	if r.isZero() {
		return DefaultRouting()
	}
	if r.Match == (search.Thresholds{}) {
		r.Match = search.DefaultThresholds()
	}
	if r.SearchLimit <= 0 {
		r.SearchLimit = defaultSearchLimit
	}
	return r
}

// SearchSkills ranks the routable skills of the enabled subset for a query.
func (s *Service) SearchSkills(ctx context.Context, req *skillsv1.SearchSkillsRequest) (*skillsv1.SearchSkillsResponse, error) {
	query := strings.TrimSpace(req.GetQuery())
	if err := checkText("query", query, "describe the task or the skill in a few words"); err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	limit, err := count("limit", req.GetLimit(), s.routing().SearchLimit, maxSearchLimit)
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	var allTerms bool
	switch req.GetMode() {
	case skillsv1.SearchMode_SEARCH_MODE_UNSPECIFIED, skillsv1.SearchMode_SEARCH_MODE_RANKED:
	case skillsv1.SearchMode_SEARCH_MODE_ALL_TERMS:
		allTerms = true
	default:
		return nil, toStatus(ctx, s.log, failure.New(failure.InvalidArgument, "", "mode %d is not a search mode: use ranked or all_terms", int32(req.GetMode())))
	}
	restated, err := checkRestated(req.GetRestated())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	if allTerms && len(restated) > 0 {
		return nil, toStatus(ctx, s.log, failure.New(failure.InvalidArgument, "",
			"restated applies to ranked search: all_terms mode matches the query's own words; leave restated out or use ranked mode"))
	}
	cat := strings.ToLower(strings.TrimSpace(req.GetCategory()))
	tags := lowerAll(req.GetTags())

	q := search.Query{Text: query, Restated: restated, Limit: limit, AllTerms: allTerms, Category: cat, Tags: tags}
	hits := s.router.Routes(ctx).Search(ctx, q)
	resp := &skillsv1.SearchSkillsResponse{Query: req.GetQuery(), Results: make([]*skillsv1.SearchHit, 0, len(hits))}
	for _, h := range hits {
		if len(resp.Results) == limit {
			break
		}
		resp.Results = append(resp.Results, toSearchHit(h))
	}
	s.record(ctx, usage.Searched(query, len(resp.Results)))
	return resp, nil
}

// MatchSkill decides which skill fits a task: seed 000 §5.3 and §8.1.
func (s *Service) MatchSkill(ctx context.Context, req *skillsv1.MatchSkillRequest) (*skillsv1.MatchSkillResponse, error) {
	text := strings.TrimSpace(req.GetContext())
	if err := checkText("context", text, "describe the task to find a skill for"); err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	restated, err := checkRestated(req.GetRestated())
	if err != nil {
		return nil, toStatus(ctx, s.log, err)
	}
	r := s.router.Routes(ctx)
	d := r.Match(ctx, text, restated)
	resp := &skillsv1.MatchSkillResponse{
		Strategy:         d.Strategy,
		Message:          d.Message,
		MatchedKeywords:  []string{},
		Assets:           []*skillsv1.Asset{},
		Scripts:          []*skillsv1.Script{},
		InheritedAssets:  []*skillsv1.Asset{},
		InheritedScripts: []*skillsv1.Script{},
		Candidates:       []*skillsv1.MatchCandidate{},
	}
	switch d.Outcome {
	case search.NoMatch:
		resp.Outcome = skillsv1.MatchOutcome_MATCH_OUTCOME_NO_MATCH
	case search.Ambiguous:
		resp.Outcome = skillsv1.MatchOutcome_MATCH_OUTCOME_AMBIGUOUS
		for _, c := range d.Candidates {
			resp.Candidates = append(resp.Candidates, &skillsv1.MatchCandidate{
				SkillPath:       c.Skill.Path,
				Score:           c.Score,
				Description:     c.Skill.Description,
				MatchedKeywords: nonNil(c.Matched),
				Phrasing:        int32(c.Phrasing),
			})
		}
	case search.Match:
		best := d.Best()
		sk := best.Skill
		resp.Outcome = skillsv1.MatchOutcome_MATCH_OUTCOME_MATCH
		resp.SkillPath = sk.Path
		resp.Score = best.Score
		resp.MatchedKeywords = nonNil(best.Matched)
		resp.Phrasing = int32(best.Phrasing)
		resp.Content = r.Snapshot.Content(sk)
		own, inherited := r.Snapshot.Assets(sk)
		resp.Assets, resp.InheritedAssets = toAssets(own), toAssets(inherited)
		ownS, inheritedS := r.Snapshot.Scripts(sk)
		resp.Scripts, resp.InheritedScripts = toScripts(ownS), toScripts(inheritedS)
	}
	s.log.DebugContext(ctx, "match", "outcome", d.Outcome.String(), "strategy", d.Strategy, "candidates", len(d.Candidates))
	switch resp.Outcome {
	case skillsv1.MatchOutcome_MATCH_OUTCOME_NO_MATCH:
		s.record(ctx, usage.NoMatch(text))
	case skillsv1.MatchOutcome_MATCH_OUTCOME_AMBIGUOUS:
		s.record(ctx, usage.Ambiguous(text, candidatePaths(resp.Candidates)))
	case skillsv1.MatchOutcome_MATCH_OUTCOME_MATCH:
		s.record(ctx, usage.Served(text, resp.SkillPath, resp.Score, resp.MatchedKeywords, false, "match"))
	}
	return resp, nil
}

// checkRestated validates a request's restatements: at most
// search.MaxRestated, each a non-blank text bounded like the query. It
// returns them trimmed.
func checkRestated(in []string) ([]string, error) {
	if len(in) > search.MaxRestated {
		return nil, failure.New(failure.InvalidArgument, "",
			"restated holds %d restatements, at most %d are accepted: pass one, in plain technical terms", len(in), search.MaxRestated)
	}
	out := make([]string, 0, len(in))
	for i, r := range in {
		r = strings.TrimSpace(r)
		if r == "" {
			return nil, failure.New(failure.InvalidArgument, "", "restated[%d] is blank: restate the need in plain technical terms, or leave it out", i)
		}
		if err := checkText(fmt.Sprintf("restated[%d]", i), r, ""); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// checkText validates a free-text request field (already trimmed).
func checkText(field, text, hint string) error {
	switch {
	case text == "":
		return failure.New(failure.InvalidArgument, "", "%s is required: %s", field, hint)
	case len(text) > maxQueryBytes:
		return failure.New(failure.InvalidArgument, "", "%s is longer than %d bytes (got %d): shorten it to the task's essentials", field, maxQueryBytes, len(text))
	case !utf8.ValidString(text):
		return failure.New(failure.InvalidArgument, "", "%s is not valid UTF-8", field)
	}
	return nil
}

func toSearchHit(h search.Hit) *skillsv1.SearchHit {
	out := &skillsv1.SearchHit{
		SkillPath:    h.Skill.Path,
		Name:         h.Skill.Name,
		Description:  h.Skill.Description,
		Score:        h.Score,
		Excerpt:      h.Excerpt,
		MatchedTerms: nonNil(h.Matched),
		Phrasing:     int32(h.Phrasing),
	}
	if h.Skill.Doc != nil {
		out.Category = h.Skill.Doc.Frontmatter.Category
	}
	return out
}
