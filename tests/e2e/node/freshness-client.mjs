#!/usr/bin/env node
// freshness-client.mjs keeps one MCP session open with the official
// TypeScript SDK (pinned in package.json) and lets a Go test drive it line by
// line, so that the test can change a catalog and then ask what the client
// was told. It asserts nothing itself: every check lives in Go
// (tests/e2e/freshness_test.go).
//
// Usage:
//   node freshness-client.mjs --stdio CMD [--arg ARG]...   spawn CMD on stdio
//   node freshness-client.mjs --url URL                    Streamable HTTP
//
// It prints {"ready": true, "capabilities": {...}} once connected, then reads
// one JSON command per line on stdin and answers one JSON line on stdout:
//   {"op": "subscribe", "uri": U}              → {"ok": true} | {"error"}
//   {"op": "wait", "method": M, "uri"?: U, "timeoutMs": N}
//        waits for a notification M (and params.uri U) received since the
//        last "clear"                          → {"ok": true, "ms"} | {"ok": false}
//   {"op": "clear"}                            → {"ok": true}
//   {"op": "notifications"}                    → {"notifications": [{method, uri, at}]}
//        (at: when it arrived, in Unix milliseconds)
//   {"op": "call", "tool": T, "args": {...}}   → {"isError", "structuredContent", "text"} | {"error"}
//   {"op": "resources"}                        → {"uris": [...]} (every page)
//   {"op": "prompts"}                          → {"names": [...]} (every page)
//   {"op": "close"}                            → closes the session and exits 0
// Diagnostics go to stderr.

import { createInterface } from "node:readline";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
  PromptListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";

function usage(message) {
  process.stderr.write(`freshness-client: ${message}\n`);
  process.exit(2);
}

const opts = { args: [] };
const argv = process.argv.slice(2);
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
    default: usage(`unknown argument ${JSON.stringify(flag)}`);
  }
}
if (!opts.command === !opts.url) usage("give exactly one of --stdio CMD and --url URL");

const transport = opts.command
  ? new StdioClientTransport({ command: opts.command, args: opts.args, stderr: "inherit" })
  : new StreamableHTTPClientTransport(new URL(opts.url));
const client = new Client({ name: "skillsd-freshness-e2e", version: "0.0.0" }, { capabilities: {} });

// Every notification received, with when.
let received = [];
const waiters = new Set();
const start = Date.now();
function record(method, params) {
  received.push({ method, uri: params?.uri ?? "", at: Date.now() });
  for (const w of waiters) w();
}
for (const [schema, method] of [
  [ResourceListChangedNotificationSchema, "notifications/resources/list_changed"],
  [ResourceUpdatedNotificationSchema, "notifications/resources/updated"],
  [ToolListChangedNotificationSchema, "notifications/tools/list_changed"],
  [PromptListChangedNotificationSchema, "notifications/prompts/list_changed"],
]) {
  client.setNotificationHandler(schema, (n) => record(method, n.params));
}

function out(doc) {
  process.stdout.write(JSON.stringify(doc) + "\n");
}

function waitFor(method, uri, timeoutMs) {
  const began = Date.now();
  const found = () => received.some((n) => n.method === method && (!uri || n.uri === uri));
  return new Promise((resolve) => {
    if (found()) return resolve({ ok: true, ms: 0 });
    const check = () => {
      if (found()) {
        waiters.delete(check);
        clearTimeout(timer);
        resolve({ ok: true, ms: Date.now() - began });
      }
    };
    const timer = setTimeout(() => {
      waiters.delete(check);
      resolve({ ok: false, ms: Date.now() - began });
    }, timeoutMs);
    waiters.add(check);
  });
}

// allPages lists every page of a paged list method; key names the list.
async function allPages(list, key) {
  const items = [];
  let cursor;
  do {
    const page = await list(cursor ? { cursor } : {});
    items.push(...page[key]);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

async function handle(cmd) {
  switch (cmd.op) {
    case "subscribe":
      await client.subscribeResource({ uri: cmd.uri });
      return { ok: true };
    case "wait":
      return waitFor(cmd.method, cmd.uri, cmd.timeoutMs ?? 2000);
    case "clear":
      received = [];
      return { ok: true };
    case "notifications":
      return { notifications: received.map(({ method, uri, at }) => ({ method, uri, at })) };
    case "call": {
      const res = await client.callTool({ name: cmd.tool, arguments: cmd.args ?? {} });
      const text = (res.content ?? []).filter((c) => c.type === "text").map((c) => c.text).join("");
      return { isError: !!res.isError, structuredContent: res.structuredContent ?? null, text };
    }
    case "resources":
      return { uris: (await allPages((p) => client.listResources(p), "resources")).map((r) => r.uri) };
    case "prompts":
      return { names: (await allPages((p) => client.listPrompts(p), "prompts")).map((p) => p.name) };
    case "close":
      await client.close();
      process.exit(0);
    default:
      return { error: `unknown op ${JSON.stringify(cmd.op)}` };
  }
}

try {
  await client.connect(transport);
} catch (err) {
  process.stderr.write(`freshness-client: connecting: ${err?.stack ?? err}\n`);
  process.exit(1);
}
out({ ready: true, capabilities: client.getServerCapabilities() ?? {}, startedMs: Date.now() - start });

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  let cmd;
  try {
    cmd = JSON.parse(line);
  } catch (err) {
    out({ error: `bad command: ${err}` });
    continue;
  }
  try {
    out(await handle(cmd));
  } catch (err) {
    out({ error: String(err?.message ?? err) });
  }
}
await client.close();
