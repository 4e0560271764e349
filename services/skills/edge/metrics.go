package edge

import (
	"fmt"
	"net"
)

// ListenMetrics opens the plaintext listener of a command's /metrics
// (--metrics ADDR). /metrics has no authentication of its own: it serves
// counts, durations and names (methods, sources, the catalog's identity),
// never a skill's content, and Prometheus scrapers conventionally send no
// credentials. An address that is not loopback follows the spirit of Wrap:
// it is refused while no authentication was asked for at all (Unset), as
// it would be for the command's own listener, and allowed, with a warning
// that it is unauthenticated, once a mode was chosen (none, token or
// github: the operator decided how this server is exposed). flag names the
// command's flag in messages.
func (g *Guard) ListenMetrics(flag, addr string) (net.Listener, error) {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s %s: listening: %w", flag, addr, err)
	}
	if Loopback(lis.Addr()) {
		return lis, nil
	}
	if g.mode == ModeUnset {
		_ = lis.Close()
		return nil, fmt.Errorf("%s %s: refusing to serve metrics on %s, which is not loopback, while no authentication is configured for %s; "+
			"use a loopback address (127.0.0.1:9090), or choose how the server is exposed (--auth token, github, or none on purpose): "+
			"/metrics is then served without authentication on this address", flag, addr, lis.Addr(), g.surface)
	}
	g.log.Warn("serving /metrics without authentication on "+lis.Addr().String()+", which is not a loopback address: it shows call counts, source names and the catalog's identity, never skill content",
		"surface", g.surface, "addr", lis.Addr().String())
	return lis, nil
}
