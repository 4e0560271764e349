// The TypeScript client against a real skills-rest (in-process service on a
// copy of the demo catalog, analytics on) and a real skillsd requiring a
// token: every operation of the API, paging, typed errors, the bearer token
// and the catalog:watch stream.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { join } from "node:path";

import {
  SkillsClient,
  SkillsError,
  SkillNotFoundError,
  FileNotFoundError,
  UnauthenticatedError,
  UnavailableError,
  isSkillsError,
  operationSpecs,
} from "../dist/index.js";
import { startRest, startSkillsd, tempDir, copyDemoCatalog, writeContent } from "./harness.mjs";

let rest, tmp, catalog, client;
const called = new Set(); // operations exercised, checked by the last test

before(async () => {
  tmp = await tempDir("skillsd-ts-client-");
  catalog = await copyDemoCatalog(tmp.dir);
  const content = await writeContent(tmp.dir);
  rest = await startRest({
    catalog: [catalog],
    config: "analytics:\n  enabled: true\n",
    env: { AGENTS_DIR: content.agents, DOCS_DIR: content.docs },
  });
  const fetchSpy = (url, init) => {
    const u = new URL(url);
    for (const [name, spec] of Object.entries(operationSpecs)) {
      const re = new RegExp("^" + spec.path.replace(/[.*+?^${}()|[\]\\]/g, (c) => (c === "{" || c === "}" ? c : "\\" + c)).replace(/\{[a-z_]+\}/g, ".+") + "$");
      if (init.method === spec.method && re.test(u.pathname)) called.add(name);
    }
    return fetch(url, init);
  };
  client = new SkillsClient({ baseUrl: rest.base, fetch: fetchSpy });
});

after(async () => {
  await rest?.stop();
  await tmp?.cleanup();
});

test("health and the OpenAPI document need no token", async () => {
  assert.deepEqual(await client.health(), { status: "SERVING" });
  // Readiness: the catalog is loaded (GET /readyz; /healthz is liveness).
  assert.deepEqual(await client.ready(), { status: "SERVING" });
  const doc = await client.openAPI();
  assert.equal(doc.openapi, "3.0.3");
  assert.ok(doc.paths["/v1/skills"]);
});

test("iterateSkills pages through the whole catalog", async () => {
  const first = await client.listSkills({ page_size: 5 });
  assert.equal(first.skills.length, 5);
  assert.notEqual(first.next_page_token, "");
  const all = [];
  for await (const s of client.iterateSkills({ page_size: 5 })) all.push(s.skill_path);
  assert.equal(all.length, first.total_size);
  assert.ok(all.length > 10, `the demo catalog has more than two pages: ${all.length}`);
  assert.deepEqual([...all].sort(), all, "sorted by path");
  assert.equal(new Set(all).size, all.length, "no skill twice");
  const pages = [];
  for await (const p of client.listSkillsPages({ page_size: 5 })) pages.push(p.skills.length);
  assert.equal(pages.length, Math.ceil(all.length / 5));
  const filtered = await client.listSkills({ query: "changelog", include_body: true });
  assert.ok(filtered.skills.every((s) => s.body.length > 0));
});

test("getSkill by a path with slashes, with its files and inheritance", async () => {
  const got = await client.getSkill({ skill_path: "backend/go-service" });
  assert.equal(got.skill.skill_path, "backend/go-service");
  assert.deepEqual(got.inheritance_chain, ["_root", "backend/_index", "backend/go-service"]);
  assert.match(got.content, /=== .* ===/);
  const png = got.files.find((f) => f.path === "diagrams/service-layout.png");
  assert.ok(png, "the diagram is listed");
  assert.equal(typeof png.size_bytes, "string", "int64 is a string");
  const bytes = await readFile(join(catalog, "backend/go-service/diagrams/service-layout.png"));
  assert.equal(png.size_bytes, String(bytes.length));
  assert.equal(png.digest, "sha256:" + createHash("sha256").update(bytes).digest("hex"));
  assert.equal(got.skill.layout, "LAYOUT_TREE", "enums are names");
  const tree = await client.getSkillTree({ path: "backend" });
  assert.ok(tree.skills.length > 0);
});

test("an unknown skill is a SkillNotFoundError with suggestions", async () => {
  await assert.rejects(client.getSkill({ skill_path: "go-servic" }), (e) => {
    assert.ok(e instanceof SkillNotFoundError, `got ${e?.constructor?.name}: ${e}`);
    assert.ok(e instanceof SkillsError);
    assert.equal(e.status, 404);
    assert.equal(e.code, "SKILL_NOT_FOUND");
    assert.equal(e.grpcCode, "NotFound");
    assert.equal(e.skillPath, "go-servic");
    assert.deepEqual(e.suggestions, ["backend/go-service"]);
    assert.ok(isSkillsError(e, "SKILL_NOT_FOUND"));
    return true;
  });
  await assert.rejects(client.getSkill({ skill_path: "" }), (e) => isSkillsError(e, "INVALID_ARGUMENT"));
});

test("readSkillFile and readWholeFile, text and binary, page by page", async () => {
  const text = await client.readSkillFile({ skill_path: "backend/go-service", file: "templates/main.go.tmpl" });
  assert.equal(text.binary, false);
  assert.equal(text.text, await readFile(join(catalog, "backend/go-service/templates/main.go.tmpl"), "utf8"));
  const bytes = await readFile(join(catalog, "backend/go-service/diagrams/service-layout.png"));
  const whole = await client.readWholeFile({ skill_path: "backend/go-service", file: "diagrams/service-layout.png", max_bytes: "50" });
  assert.equal(whole.first.binary, true);
  assert.deepEqual(Buffer.from(whole.data), bytes);
  await assert.rejects(client.readSkillFile({ skill_path: "backend/go-service", file: "nope.txt" }), FileNotFoundError);
  await assert.rejects(client.readSkillFile({ skill_path: "backend/go-service", file: "../../etc/passwd" }), (e) => isSkillsError(e, "INVALID_PATH"));
});

test("diagnostics and status", async () => {
  const d = await client.listDiagnostics({ min_severity: "SEVERITY_WARNING" });
  assert.ok(Array.isArray(d.diagnostics));
  const st = await client.getCatalogStatus();
  assert.ok(Number(st.generation) >= 1);
  assert.equal(st.sources.length, 1);
  assert.equal(st.sources[0].kind, "local");
  assert.equal(st.semantic, null, "an unset message field is null");
  const r = await client.refreshSkills();
  assert.equal(r.success, true);
  assert.equal(r.mode, "local");
});

test("search ranks, and abstains when nothing applies; match decides", async () => {
  const hits = await client.searchSkills({ query: "write release notes from commits", limit: 3 });
  assert.equal(hits.results[0]?.skill_path, "changelog");
  assert.ok(hits.results[0].score > 0);
  const none = await client.searchSkills({ query: "quantum chromodynamics lattice" });
  assert.deepEqual(none.results, []);
  // A restatement finds what the words alone do not, and says so.
  const vague = await client.searchSkills({ query: "get the thing out the door" });
  assert.deepEqual(vague.results, []);
  const restated = await client.searchSkills({ query: "get the thing out the door", restated: ["write release notes and a changelog from the commits"] });
  assert.equal(restated.results[0]?.skill_path, "changelog");
  assert.equal(restated.results[0].phrasing, 1);
  const rm = await client.matchSkill({ context: "get the thing out the door", restated: ["write release notes and a changelog from the commits"] });
  assert.equal(rm.skill_path, "changelog");
  const m = await client.matchSkill({ context: "scaffold a new Go HTTP service" });
  assert.equal(m.outcome, "MATCH_OUTCOME_MATCH");
  assert.equal(m.skill_path, "backend/go-service");
  const nm = await client.matchSkill({ context: "quantum chromodynamics lattice" });
  assert.equal(nm.outcome, "MATCH_OUTCOME_NO_MATCH");
});

test("scripts and commands", async () => {
  const run = await client.runScript({ skill_path: "backend/go-service", file: "scripts/scaffold-plan.sh", args: { name: "orders-api" } });
  assert.equal(run.success, true, run.stderr);
  assert.match(run.stdout, /orders-api/);
  await assert.rejects(client.runScript({ skill_path: "backend/go-service", file: "scripts/scaffold-plan.sh" }), (e) => isSkillsError(e, "MISSING_ARGUMENTS"));
  await assert.rejects(client.runCommand({ skill_path: "changelog", command: "ls" }), (e) => isSkillsError(e, "COMMANDS_DISABLED"));
});

test("usage: feedback, ingest, statistics", async () => {
  const rep = await client.reportUsage({ skill_path: "changelog", useful: true, comment: "saved me an hour" });
  assert.equal(rep.recorded, true);
  const now = new Date().toISOString();
  const ing = await client.ingestEvents({
    events: [{ id: "ts-client-1", type: "no_match", timestamp: now, server_id: "ts-test", data: { context: "deploy to mars" } }],
  });
  assert.equal(ing.accepted, 1);
  const again = await client.ingestEvents({
    events: [{ id: "ts-client-1", type: "no_match", timestamp: now, server_id: "ts-test", data: { context: "deploy to mars" } }],
  });
  assert.equal(again.duplicates, 1);
  const stats = await client.getUsageStats({ start_time: new Date(Date.now() - 86400_000), end_time: new Date(Date.now() + 60_000) });
  assert.ok(Number(stats.total_events) >= 2, `total_events ${stats.total_events}`);
  const row = stats.skills.find((s) => s.skill_path === "changelog");
  assert.ok(row, "changelog has a row");
  assert.equal(row.useful, "1");
  assert.deepEqual(row.recent_comments, ["saved me an hour"]);
  assert.ok(stats.top_no_match.some((c) => c.context === "deploy to mars"));
});

test("agents and docs", async () => {
  const agents = await client.listAgents();
  assert.deepEqual(agents.agents.map((a) => a.name), ["reviewer"]);
  const a = await client.getAgent({ name: "reviewer" });
  assert.match(a.content, /You review code/);
  await assert.rejects(client.getAgent({ name: "nobody" }), (e) => isSkillsError(e, "AGENT_NOT_FOUND"));
  const docs = await client.listDocs();
  assert.ok(docs.pages.length >= 2);
  const doc = await client.getDoc({ path: ["guides", "setup"] });
  assert.match(doc.content, /# Setup/);
});

test("watchCatalog yields the current generation, then each change", async () => {
  const ctl = new AbortController();
  const it = client.watchCatalog({}, { signal: ctl.signal });
  const first = await it.next();
  assert.equal(first.value.initial, true);
  const gen = Number(first.value.generation);
  await mkdir(join(catalog, "from-watch-test"));
  await writeFile(join(catalog, "from-watch-test", "SKILL.md"), "---\nname: from-watch-test\ndescription: Appears while the test watches.\n---\nBody.\n");
  const deadline = setTimeout(() => ctl.abort(), 20_000);
  let change;
  for (;;) {
    const { value, done } = await it.next();
    assert.ok(!done, "the stream ended");
    if (value.added.includes("from-watch-test")) {
      change = value;
      break;
    }
  }
  clearTimeout(deadline);
  assert.ok(Number(change.generation) > gen);
  assert.equal(change.initial, false);
  ctl.abort();
  await assert.rejects(it.next(), (e) => e.name === "AbortError");
});

test("an unreachable server is an UnavailableError", async () => {
  const dead = new SkillsClient({ baseUrl: "http://127.0.0.1:1" });
  await assert.rejects(dead.getCatalogStatus(), (e) => e instanceof UnavailableError && e.status === 0);
});

test("the bearer token reaches a skillsd that requires one", async () => {
  const sd = await startSkillsd({ args: ["--token-env", "TS_TEST_TOKENS"], env: { TS_TEST_TOKENS: "s3cret-one,s3cret-two" } });
  const gw = await startRest({ server: sd.addr });
  try {
    const anon = new SkillsClient({ baseUrl: gw.base });
    await assert.rejects(anon.getCatalogStatus(), (e) => {
      assert.ok(e instanceof UnauthenticatedError, `got ${e}`);
      assert.equal(e.status, 401);
      assert.match(e.challenge, /^Bearer/);
      return true;
    });
    const wrong = new SkillsClient({ baseUrl: gw.base, token: "nope" });
    await assert.rejects(wrong.listSkills(), UnauthenticatedError);
    const authed = new SkillsClient({ baseUrl: gw.base });
    authed.setToken("s3cret-two");
    assert.ok(authed.hasToken);
    const st = await authed.getCatalogStatus();
    assert.ok(st.skill_count > 0);
    const w = authed.watchCatalog();
    const first = await w.next();
    assert.equal(first.value.initial, true);
    await w.return();
  } finally {
    await gw.stop();
    await sd.stop();
  }
});

test("the bearer token opens a skills-rest --auth token", async () => {
  const gw = await startRest({ args: ["--auth", "token", "--auth-token-env", "TS_REST_TOKENS"], env: { TS_REST_TOKENS: "rest-one,rest-two" } });
  try {
    // Open routes need no token.
    assert.deepEqual(await new SkillsClient({ baseUrl: gw.base }).health(), { status: "SERVING" });
    await assert.rejects(new SkillsClient({ baseUrl: gw.base }).listSkills(), (e) => e instanceof UnauthenticatedError && /^Bearer/.test(e.challenge));
    await assert.rejects(new SkillsClient({ baseUrl: gw.base, token: "rest-three" }).listSkills(), UnauthenticatedError);
    const c = new SkillsClient({ baseUrl: gw.base, token: "rest-two" });
    assert.ok((await c.listSkills()).total_size > 0);
    const w = c.watchCatalog();
    assert.equal((await w.next()).value.initial, true);
    await w.return();
  } finally {
    await gw.stop();
  }
});

test("every operation of the API was called by these tests", () => {
  const missing = Object.keys(operationSpecs).filter((name) => !called.has(name));
  assert.deepEqual(missing, []);
});
