package mcpgw

import (
	"time"

	"github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"
	skillsv1 "github.com/skillsd/skillsd/proto/gen/go/skills/v1"
)

// tool_search.go still reads what package core now holds by this package's
// former names, which this file defines. They go once it reads core's own
// (g.Routing, g.Timeout, g.ToolError, core.ToolSearchSkills, core.ReadOnly,
// core.ArraysNotNull).

// searchNames are the gateway's fields that tool_search.go reads.
type searchNames struct {
	routing skillsv1.RoutingServiceClient
	timeout time.Duration
}

// namesForSearch are c's fields under those names.
func namesForSearch(c *core.Gateway) searchNames {
	return searchNames{routing: c.Routing, timeout: c.Timeout}
}

// toolError is core.Gateway.ToolError.
func (g *gateway) toolError(err error, skill string) error { return g.ToolError(err, skill) }

const toolSearchSkills = core.ToolSearchSkills

var (
	readOnly      = core.ReadOnly
	arraysNotNull = core.ArraysNotNull
)
