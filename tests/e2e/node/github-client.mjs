#!/usr/bin/env node
// github-client.mjs connects to skills-mcp --http with the official
// TypeScript SDK (@modelcontextprotocol/sdk, pinned in package.json), over
// Streamable HTTP (/mcp) or the legacy HTTP+SSE transport (/sse), sending an
// Authorization header on every request, and calls the github-worker
// profile's content tools. It prints one JSON document and asserts nothing:
// the Go test (tests/e2e/github_test.go) does.
//
// Usage:
//   node github-client.mjs --base http://HOST:PORT --transport sse|streamable [--authorization VALUE]
//
// Output: {"transport", "connectError", "tools": [names],
// "calls": [{"name", "arguments", "isError", "text", "error"}]}.
// Exit status 0 when the document was printed, 2 on a usage error.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

function usage(message) {
  process.stderr.write(`github-client: ${message}\n`);
  process.exit(2);
}

const opts = { authorization: "" };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${argv[i]} needs a value`));
  switch (argv[i]) {
    case "--base": opts.base = value(); break;
    case "--transport": opts.transport = value(); break;
    case "--authorization": opts.authorization = value(); break;
    default: usage(`unknown argument ${JSON.stringify(argv[i])}`);
  }
}
if (!opts.base || !["sse", "streamable"].includes(opts.transport)) usage("give --base and --transport sse|streamable");

const requestInit = opts.authorization ? { headers: { Authorization: opts.authorization } } : {};
const transport = opts.transport === "sse"
  ? new SSEClientTransport(new URL(opts.base + "/sse"), { requestInit })
  : new StreamableHTTPClientTransport(new URL(opts.base + "/mcp"), { requestInit });
const client = new Client({ name: "skillsd-e2e-github", version: "0.0.0" });
const doc = { transport: opts.transport, connectError: "", tools: [], calls: [] };

try {
  await client.connect(transport);
} catch (err) {
  doc.connectError = String(err?.message ?? err);
  process.stdout.write(JSON.stringify(doc) + "\n");
  process.exit(0);
}
doc.tools = (await client.listTools()).tools.map((t) => t.name);
const calls = [
  ["list_agents", {}],
  ["get_agent", { name: "reviewer" }],
  ["list_docs", {}],
  ["get_doc", { path: ["guides", "setup"] }],
  ["get_doc", { path: ["guides", ".."] }],
];
for (const [name, args] of calls) {
  const call = { name, arguments: args, isError: false, text: "", error: "" };
  try {
    const res = await client.callTool({ name, arguments: args });
    call.isError = Boolean(res.isError);
    call.text = (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");
  } catch (err) {
    call.error = String(err?.message ?? err);
  }
  doc.calls.push(call);
}
await client.close();
process.stdout.write(JSON.stringify(doc) + "\n");
