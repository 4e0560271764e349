#!/usr/bin/env node
// mcp-client.mjs drives an MCP server with the official TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in package.json), as a host would, and
// prints one JSON document with everything it got. The Go end-to-end tests
// (tests/e2e) run it against the skills-mcp binary and assert on that JSON;
// this script asserts nothing itself, so that every check lives in Go.
//
// Usage:
//   node mcp-client.mjs --stdio CMD [--arg ARG]...   spawn CMD ARG... on stdio
//   node mcp-client.mjs --url URL                    Streamable HTTP endpoint
// then any of:
//   --load NAME       call load_skill with NAME (repeatable)
//   --sample N        also load N skills spread across list_skills' tree
//   --list-path PATH  also call list_skills on one branch (repeatable)
//   --unknown NAME    call load_skill with a name that does not exist
//   --timeout-ms MS   per-request timeout (default 30000)
//
// Output: {"transport", "serverInfo", "serverCapabilities", "instructions",
// "tools": [{name, description, inputSchema, outputSchema}],
// "list": CALL, "branches": [CALL], "loads": [CALL], "unknown": CALL,
// "closeMs"}, where CALL is
// {"name", "arguments", "isError", "structuredContent", "text", "error"}
// ("error" is set when the SDK threw: a protocol error, or a result that
// failed the SDK's own validation against the tool's output schema).
// Exit status 0 when the document was printed, 1 on a failure to connect or
// to list tools, 2 on a usage error; diagnostics go to stderr.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

function usage(message) {
  process.stderr.write(`mcp-client: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { args: [], load: [], listPaths: [], sample: 0, unknown: "", timeoutMs: 30000 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${flag} needs a value`);
      return argv[++i];
    };
    switch (flag) {
      case "--stdio": opts.command = value(); break;
      case "--arg": opts.args.push(value()); break;
      case "--url": opts.url = value(); break;
      case "--load": opts.load.push(value()); break;
      case "--list-path": opts.listPaths.push(value()); break;
      case "--sample": opts.sample = Number.parseInt(value(), 10); break;
      case "--unknown": opts.unknown = value(); break;
      case "--timeout-ms": opts.timeoutMs = Number.parseInt(value(), 10); break;
      default: usage(`unknown argument ${JSON.stringify(flag)}`);
    }
  }
  if (!opts.command === !opts.url) usage("give exactly one of --stdio CMD and --url URL");
  if (!(opts.sample >= 0) || !(opts.timeoutMs > 0)) usage("--sample and --timeout-ms take positive numbers");
  return opts;
}

// textOf joins the text contents of a tool result.
function textOf(result) {
  return (result.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("");
}

async function call(client, name, args, timeout) {
  const out = { name, arguments: args };
  try {
    const result = await client.callTool({ name, arguments: args }, undefined, { timeout });
    out.isError = result.isError === true;
    out.structuredContent = result.structuredContent ?? null;
    out.text = textOf(result);
    out.contentTypes = (result.content ?? []).map((c) => c.type);
  } catch (err) {
    out.error = String(err?.message ?? err);
  }
  return out;
}

// flatten lists the paths of a list_skills tree, depth first.
function flatten(nodes, into = []) {
  for (const n of nodes ?? []) {
    into.push(n.path);
    flatten(n.children, into);
  }
  return into;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const transport = opts.command
    ? new StdioClientTransport({ command: opts.command, args: opts.args, stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(opts.url));
  const client = new Client({ name: "skillsd-e2e-node", version: "0.0.0" });
  try {
    await client.connect(transport, { timeout: opts.timeoutMs });
  } catch (err) {
    process.stderr.write(`mcp-client: connecting: ${err?.stack ?? err}\n`);
    process.exit(1);
  }
  const doc = {
    transport: opts.command ? "stdio" : "streamable-http",
    serverInfo: client.getServerVersion() ?? null,
    serverCapabilities: client.getServerCapabilities() ?? null,
    instructions: client.getInstructions() ?? null,
  };
  try {
    const { tools } = await client.listTools(undefined, { timeout: opts.timeoutMs });
    doc.tools = tools.map((t) => ({
      name: t.name,
      description: t.description ?? "",
      inputSchema: t.inputSchema ?? null,
      outputSchema: t.outputSchema ?? null,
    }));
  } catch (err) {
    process.stderr.write(`mcp-client: listing tools: ${err?.stack ?? err}\n`);
    await client.close();
    process.exit(1);
  }
  doc.list = await call(client, "list_skills", {}, opts.timeoutMs);
  doc.branches = [];
  for (const path of opts.listPaths) {
    doc.branches.push(await call(client, "list_skills", { path }, opts.timeoutMs));
  }
  const names = [...opts.load];
  if (opts.sample > 0 && doc.list.structuredContent) {
    const paths = flatten(doc.list.structuredContent.skills);
    for (let i = 0; i < opts.sample && i < paths.length; i++) {
      names.push(paths[Math.floor((i * paths.length) / opts.sample)]);
    }
  }
  doc.loads = [];
  for (const name of names) {
    doc.loads.push(await call(client, "load_skill", { name }, opts.timeoutMs));
  }
  if (opts.unknown) {
    doc.unknown = await call(client, "load_skill", { name: opts.unknown }, opts.timeoutMs);
  }
  // On stdio, closing ends the server's stdin; the SDK waits 2 s for the
  // server to exit before it signals it, so closeMs tells whether it left
  // on its own.
  const closing = Date.now();
  await client.close();
  doc.closeMs = Date.now() - closing;
  process.stdout.write(JSON.stringify(doc) + "\n");
}

main().catch((err) => {
  process.stderr.write(`mcp-client: ${err?.stack ?? err}\n`);
  process.exit(1);
});
