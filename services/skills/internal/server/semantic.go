package server

import "context"

// PrepareRouting builds the search index of the catalog being served and,
// with Options.Semantic, starts computing its skill vectors in the
// background, so that the first search does not wait for either.
func (s *Service) PrepareRouting(ctx context.Context) { s.router.Routes(ctx) }
