package skillsd

// HoldRefresh marks a refresh as running on s, as a refresh that takes long
// would, until release is called: tests use it to check what waits for a
// running refresh. It fails the test (false) when a refresh already runs.
func HoldRefresh(s *Server) (release func(), ok bool) {
	if !s.fresh.flight.begin() {
		return nil, false
	}
	return s.fresh.flight.end, true
}
