// Package contract is the contract suite of skillsd: one table of scenarios
// run against every surface that serves the catalog (gRPC, REST through the
// restgw gateway, MCP through the mcpgw gateway), over one real service per
// catalog. Each surface's answer is converted to one surface-neutral value and
// compared with the other surfaces' answers and with one golden file per
// scenario (testdata/golden; go test -update rewrites them).
//
// It owns the scenarios, the fixture catalog (testdata/catalog) and the
// neutral model of an answer. It does not own the surfaces' own unit tests,
// which live beside each gateway, nor end-to-end runs of built binaries
// (tests/e2e). The package has no non-test code besides this comment.
package contract
