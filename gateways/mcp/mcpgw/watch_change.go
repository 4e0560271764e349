package mcpgw

import "github.com/skillsd/skillsd/gateways/mcp/mcpgw/core"

// CatalogChange and CatalogListener are the catalog's changes as a
// CatalogWatch tells them (package core's, which every part shares).
type (
	CatalogChange   = core.CatalogChange
	CatalogListener = core.CatalogListener
)
