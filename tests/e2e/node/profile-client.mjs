#!/usr/bin/env node
// profile-client.mjs drives an MCP server with the official TypeScript SDK
// (@modelcontextprotocol/sdk, pinned in package.json) through a list of tool
// calls, as a host configured for one of the seed systems would, and prints
// one JSON document with everything it got. The Go tests of the compatibility
// profiles (tests/e2e/profiles_test.go) run it against skills-mcp --profile
// and assert on that JSON; this script asserts nothing itself.
//
// Usage:
//   node profile-client.mjs --stdio CMD [--arg ARG]... [--env NAME=VALUE]...
//   node profile-client.mjs --url URL
// then:
//   --calls FILE      a JSON array of {"name", "arguments"} to call in order
//   --timeout-ms MS   per-request timeout (default 30000)
//
// Output: {"serverInfo", "serverCapabilities", "instructions", "tools" (as
// listed), "toolsListBytes" (the size of the tools/list result as JSON),
// "calls": [CALL]}, where CALL is {"name", "arguments", "isError",
// "structuredContent", "text", "error"}; "error" ({"message", "code",
// "data"}) is set when the call failed at the protocol level (a JSON-RPC
// error, or a result the SDK refused against the tool's output schema).
// Exit status 0 when the document was printed, 1 on a failure to connect or
// to list tools, 2 on a usage error; diagnostics go to stderr.

import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

function usage(message) {
  process.stderr.write(`profile-client: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { args: [], env: {}, calls: [], timeoutMs: 30000 };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${flag} needs a value`);
      return argv[++i];
    };
    switch (flag) {
      case "--stdio": opts.command = value(); break;
      case "--arg": opts.args.push(value()); break;
      case "--env": {
        const kv = value();
        const eq = kv.indexOf("=");
        if (eq <= 0) usage(`--env wants NAME=VALUE, got ${JSON.stringify(kv)}`);
        opts.env[kv.slice(0, eq)] = kv.slice(eq + 1);
        break;
      }
      case "--url": opts.url = value(); break;
      case "--calls": opts.calls = JSON.parse(readFileSync(value(), "utf8")); break;
      case "--timeout-ms": opts.timeoutMs = Number.parseInt(value(), 10); break;
      default: usage(`unknown argument ${JSON.stringify(flag)}`);
    }
  }
  if (!opts.command === !opts.url) usage("give exactly one of --stdio CMD and --url URL");
  if (!Array.isArray(opts.calls)) usage("--calls must hold a JSON array");
  if (!(opts.timeoutMs > 0)) usage("--timeout-ms takes a positive number");
  return opts;
}

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
  } catch (err) {
    out.error = { message: String(err?.message ?? err), code: err?.code ?? null, data: err?.data ?? null };
  }
  return out;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const transport = opts.command
    ? new StdioClientTransport({
      command: opts.command,
      args: opts.args,
      env: { ...getDefaultEnvironment(), ...opts.env },
      stderr: "inherit",
    })
    : new StreamableHTTPClientTransport(new URL(opts.url));
  const client = new Client({ name: "skillsd-e2e-profiles", version: "0.0.0" });
  try {
    await client.connect(transport, { timeout: opts.timeoutMs });
  } catch (err) {
    process.stderr.write(`profile-client: connecting: ${err?.stack ?? err}\n`);
    process.exit(1);
  }
  const doc = {
    serverInfo: client.getServerVersion() ?? null,
    serverCapabilities: client.getServerCapabilities() ?? null,
    instructions: client.getInstructions() ?? null,
  };
  try {
    const listed = await client.listTools(undefined, { timeout: opts.timeoutMs });
    doc.tools = listed.tools;
    doc.toolsListBytes = Buffer.byteLength(JSON.stringify(listed), "utf8");
  } catch (err) {
    process.stderr.write(`profile-client: listing tools: ${err?.stack ?? err}\n`);
    await client.close();
    process.exit(1);
  }
  doc.calls = [];
  for (const c of opts.calls) {
    doc.calls.push(await call(client, c.name, c.arguments ?? {}, opts.timeoutMs));
  }
  await client.close();
  process.stdout.write(JSON.stringify(doc) + "\n");
}

main().catch((err) => {
  process.stderr.write(`profile-client: ${err?.stack ?? err}\n`);
  process.exit(1);
});
