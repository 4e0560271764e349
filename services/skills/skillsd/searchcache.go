package skillsd

import (
	"path/filepath"

	"github.com/skillsd/skillsd/services/skills/internal/config"
	"github.com/skillsd/skillsd/services/skills/internal/search"
)

// openSearchCache opens the search index's analysis cache in the state
// folder, so that a restart does not analyse the text of unchanged skills
// again, with the index file beside it, so that a restart over the same
// skills reads the index instead of building it; nil without a state
// folder.
func openSearchCache(cfg config.Config, getenv func(string) string, home, version string) *search.AnalysisCache {
	state := config.StateDir(cfg, getenv, home)
	if state == "" {
		return nil
	}
	return search.OpenAnalysisCache(filepath.Join(state, search.CacheFileName())).
		WithIndexFile(filepath.Join(state, search.IndexFileName())).
		WithVersion(version)
}

// closeSearchCache waits for the search cache's saves and saves what is
// left.
func (s *Server) closeSearchCache() {
	if err := s.searchCache.Close(); err != nil {
		s.log.Warn("could not keep the search analyses for the next start", "error", err)
	}
}
