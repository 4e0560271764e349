package contract

import (
	"testing"

	"google.golang.org/grpc"
)

// surface is one way to reach the service. Every surface loads a skill,
// returns the tree, searches and matches; the operations only some surfaces have are the optional
// interfaces lister, diagnoser and statuser.
//
// An adapter reports, with t.Errorf, what breaks its own surface's rules
// (an HTTP status that does not go with the error code, MCP text content that
// is not the structured content) and returns the answer as an Outcome.
type surface interface {
	name() string
	// load loads one skill by path or name.
	load(t *testing.T, ref string) Outcome
	// tree returns the catalog tree, or the sub-tree at path.
	tree(t *testing.T, path string) Outcome
	// search ranks the skills for a query (SearchSkills, search_skills).
	search(t *testing.T, q SearchQuery) Outcome
	// match decides which skill fits a task (MatchSkill, get_skill).
	match(t *testing.T, context string) Outcome
	// read reads (a page of) a skill's file (ReadSkillFile, read_skill_file).
	read(t *testing.T, q ReadQuery) Outcome
	// runScript runs a declared server script (RunScript, run_script).
	runScript(t *testing.T, q RunQuery) Outcome
	// mask zeroes, in an outcome of the reference surface (gRPC), what this
	// surface does not carry, so that the rest can be compared.
	mask(o Outcome) Outcome
}

// restatedMatcher decides which skill fits a task restated by the caller
// (MatchSkill and get_skill with restated). Every surface of this suite has
// it; a surface added later without it skips those scenarios.
type restatedMatcher interface {
	matchRestated(t *testing.T, context, restated string) Outcome
}

// lister lists skills (ListSkills).
type lister interface {
	list(t *testing.T) Outcome
}

// diagnoser lists load diagnostics (ListDiagnostics).
type diagnoser interface {
	diagnostics(t *testing.T) Outcome
}

// statuser reports the catalog status (GetCatalogStatus).
type statuser interface {
	status(t *testing.T) Outcome
}

// transport says how the gateways are reached.
type transport int

const (
	// inMemory calls the REST handler directly and speaks MCP over in-memory
	// transports.
	inMemory transport = iota
	// loopback serves REST and MCP (Streamable HTTP) on 127.0.0.1:0.
	loopback
)

// surfaces returns the three surfaces over one connection to one service:
// gRPC first (the reference the golden files are written from), then REST and
// MCP, both gateways calling the service over conn.
func surfaces(t *testing.T, conn *grpc.ClientConn, tr transport) []surface {
	t.Helper()
	return []surface{
		newGRPCSurface(conn),
		newRESTSurface(t, conn, tr),
		newMCPSurface(t, conn, tr),
	}
}
