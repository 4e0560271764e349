#!/usr/bin/env node
// mcp-surfaces.mjs drives every MCP surface of a server beyond the tool
// answers mcp-client.mjs checks: the skills extension (skills/list, all
// pages; skills/get; resources/directory/read), resources (list, all pages;
// templates; read), prompts (list; get), completion, and one call of each
// read-only tool. It uses the official TypeScript SDK (pinned in
// package.json) as a host would, and prints one JSON document; every check
// lives in the Go tests (tests/e2e).
//
// Usage:
//   node mcp-surfaces.mjs --stdio CMD [--arg ARG]...   spawn CMD ARG... on stdio
//   node mcp-surfaces.mjs --url URL [--header "Name: value"]...
//   --read N          read N resources spread over resources/list (default 5)
//   --timeout-ms MS   per-request timeout (default 60000)
//
// Output: {"protocolVersion", "capabilities", "tools": [names],
// "skills": [entries of skills/list], "skillsPages", "get": skills/get of
// the first skill, "directory": resources/directory/read of its folder,
// "resources": [uris], "resourcePages", "templates", "reads": [{uri,
// mimeType, text?, blobBase64?, error?}], "prompts": [{name, arguments}],
// "prompt": prompts/get of the first prompt, "completion", "calls":
// {tool: {isError, structuredContent}}, "errors": {what: message}}.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResultSchema } from "@modelcontextprotocol/sdk/types.js";

function usage(message) {
  process.stderr.write(`mcp-surfaces: ${message}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { args: [], headers: {}, read: 5, timeoutMs: 60000 };
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
      case "--header": {
        const h = value();
        const at = h.indexOf(":");
        if (at <= 0) usage(`--header wants "Name: value", got ${JSON.stringify(h)}`);
        opts.headers[h.slice(0, at).trim()] = h.slice(at + 1).trim();
        break;
      }
      case "--read": opts.read = Number.parseInt(value(), 10); break;
      case "--timeout-ms": opts.timeoutMs = Number.parseInt(value(), 10); break;
      default: usage(`unknown argument ${JSON.stringify(flag)}`);
    }
  }
  if (!opts.command === !opts.url) usage("give exactly one of --stdio CMD and --url URL");
  return opts;
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const transport = opts.command
    ? new StdioClientTransport({ command: opts.command, args: opts.args, stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(opts.url), { requestInit: { headers: opts.headers } });
  const client = new Client({ name: "skillsd-e2e-surfaces", version: "0.0.0" });
  const ro = { timeout: opts.timeoutMs };
  try {
    await client.connect(transport, ro);
  } catch (err) {
    process.stderr.write(`mcp-surfaces: connecting: ${err?.stack ?? err}\n`);
    process.exit(1);
  }
  const doc = { errors: {} };
  const attempt = async (what, fn) => {
    try {
      return await fn();
    } catch (err) {
      doc.errors[what] = String(err?.message ?? err);
      return undefined;
    }
  };
  // The skills extension's methods are not in the SDK: plain requests,
  // results checked only as JSON-RPC results.
  const custom = (method, params) => client.request({ method, params }, ResultSchema, ro);

  doc.protocolVersion = transport.protocolVersion ?? null;
  doc.capabilities = client.getServerCapabilities() ?? null;
  doc.tools = (await attempt("tools/list", () => client.listTools(undefined, ro)))?.tools?.map((t) => t.name) ?? [];

  doc.skills = [];
  doc.skillsPages = 0;
  await attempt("skills/list", async () => {
    let cursor;
    do {
      const page = await custom("skills/list", cursor ? { cursor } : {});
      doc.skillsPages++;
      doc.skills.push(...page.skills);
      cursor = page.nextCursor;
    } while (cursor && doc.skillsPages < 1000);
  });
  const first = doc.skills[0];
  if (first) {
    doc.get = await attempt("skills/get", () => custom("skills/get", { uri: first.uri }));
    const folder = first.uri.slice(0, first.uri.lastIndexOf("/"));
    doc.directory = await attempt("resources/directory/read", () => custom("resources/directory/read", { uri: folder }));
  }
  doc.unknownSkill = await attempt("skills/get unknown", () => custom("skills/get", { uri: "skill://zz-no-such-skill/SKILL.md" }));

  doc.resources = [];
  doc.resourcePages = 0;
  await attempt("resources/list", async () => {
    let cursor;
    do {
      const page = await client.listResources(cursor ? { cursor } : {}, ro);
      doc.resourcePages++;
      doc.resources.push(...page.resources.map((r) => r.uri));
      cursor = page.nextCursor;
    } while (cursor && doc.resourcePages < 1000);
  });
  doc.templates = (await attempt("resources/templates/list", () => client.listResourceTemplates(undefined, ro)))?.resourceTemplates ?? [];
  doc.reads = [];
  const picks = [];
  if (first) picks.push(first.uri);
  for (let i = 0; i < opts.read && doc.resources.length > 0; i++) {
    picks.push(doc.resources[Math.floor((i * doc.resources.length) / opts.read)]);
  }
  for (const uri of picks) {
    const out = { uri };
    try {
      const res = await client.readResource({ uri }, ro);
      const c = res.contents[0];
      out.mimeType = c.mimeType;
      if (typeof c.text === "string") out.text = c.text;
      if (typeof c.blob === "string") out.blobBase64 = c.blob;
    } catch (err) {
      out.error = String(err?.message ?? err);
    }
    doc.reads.push(out);
  }

  doc.prompts = ((await attempt("prompts/list", () => client.listPrompts(undefined, ro)))?.prompts ?? []).map((p) => ({
    name: p.name,
    arguments: (p.arguments ?? []).map((a) => a.name),
  }));
  if (doc.prompts[0]) {
    doc.prompt = await attempt("prompts/get", () =>
      client.getPrompt({ name: doc.prompts[0].name, arguments: { arguments: "e2e-argument" } }, ro));
  }
  const tmpl = doc.templates[0]?.uriTemplate;
  if (tmpl && first) {
    const prefix = first.uri.slice("skill://".length, "skill://".length + 3);
    doc.completion = await attempt("completion/complete", () =>
      client.complete({ ref: { type: "ref/resource", uri: tmpl }, argument: { name: "path", value: prefix } }, ro));
  }

  doc.calls = {};
  const call = async (name, args) => {
    if (!doc.tools.includes(name)) return;
    const res = await attempt(`tools/call ${name}`, () => client.callTool({ name, arguments: args }, undefined, ro));
    if (res) doc.calls[name] = { isError: res.isError === true, structuredContent: res.structuredContent ?? null };
  };
  const name = first ? first.frontmatter.name : "pdf";
  await call("search_skills", { query: String(first?.frontmatter?.description ?? "pdf").slice(0, 80) });
  await call("get_skill", { context: String(first?.frontmatter?.description ?? "pdf").slice(0, 80) });
  await call("load_skill", { name });
  await call("list_skills", {});
  if (first) {
    const skillPath = first.uri.slice("skill://".length, first.uri.lastIndexOf("/"));
    await call("read_skill_file", { skill_path: skillPath, file: "SKILL.md" });
  }
  await client.close();
  process.stdout.write(JSON.stringify(doc) + "\n");
}

main().catch((err) => {
  process.stderr.write(`mcp-surfaces: ${err?.stack ?? err}\n`);
  process.exit(1);
});
