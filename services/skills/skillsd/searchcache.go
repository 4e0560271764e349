package skillsd

import (
	"path/filepath"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/search"
)

// openSearchCache opens the search index's analysis cache in the state
// folder, so that a restart does not analyse the text of unchanged skills
// again; nil without a state folder.
func openSearchCache(cfg config.Config, getenv func(string) string, home string) *search.AnalysisCache {
	state := config.StateDir(cfg, getenv, home)
	if state == "" {
		return nil
	}
	return search.OpenAnalysisCache(filepath.Join(state, search.CacheFileName()))
}

// closeSearchCache waits for the search cache's saves and saves what is
// left.
func (s *Server) closeSearchCache() {
	if err := s.searchCache.Close(); err != nil {
		s.log.Warn("could not keep the search analyses for the next start", "error", err)
	}
}
