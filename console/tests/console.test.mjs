// The web console in a real browser: Debian's Chromium driven by
// playwright-core, against a real skills-rest serving a copy of the demo
// catalog (plus one skill with a warning) with analytics on and events made
// by this test. Every page, at desktop width and at 390 px, loads without a
// console error and is saved as a screenshot under SKILLSD_SCREENSHOTS (else
// a temporary folder, printed).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:http";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";

import { startRest, startSkillsd, tempDir, copyDemoCatalog } from "../../clients/typescript/test/harness.mjs";

const executablePath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const chromeArgs = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const viewports = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
};

let rest, tmp, browser, shots;

async function api(path, body) {
  const res = await fetch(rest.base + path, body === undefined ? {} : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  assert.ok(res.ok, `${path}: HTTP ${res.status} ${await res.clone().text()}`);
  return res.json();
}

before(async () => {
  if (!existsSync(executablePath)) throw new Error(`no Chromium at ${executablePath}: apt-get install chromium (or set CHROMIUM)`);
  tmp = await tempDir("skillsd-console-");
  const catalog = await copyDemoCatalog(tmp.dir);
  // A skill that loads with a warning on line 2: the diagnostics page links to it.
  await mkdir(join(catalog, "wrong-name"));
  await writeFile(join(catalog, "wrong-name", "SKILL.md"), "---\nname: another-name\ndescription: A skill whose name differs from its folder.\n---\n# Wrong name\n\nStill served.\n");
  rest = await startRest({ catalog: [catalog], config: "analytics:\n  enabled: true\n" });

  // Usage events: matches (served, no match), searches and feedback.
  for (const context of ["write release notes from the last commits", "scaffold a new Go HTTP service", "harden a Dockerfile for production"]) {
    await api("/v1/skills:match", { context });
  }
  for (let i = 0; i < 2; i++) await api("/v1/skills:match", { context: "book a flight to Lisbon" });
  await api("/v1/skills:search", { query: "quantum chromodynamics lattice" });
  await api("/v1/skills:search", { query: "database migration rollback" });
  await api("/v1/usage:report", { skill_path: "changelog", useful: true, comment: "the release notes were ready in a minute" });
  await api("/v1/usage:report", { skill_path: "backend/go-service", useful: false, comment: "wanted gRPC, got HTTP" });

  shots = process.env.SKILLSD_SCREENSHOTS || (await mkdtemp(join(tmpdir(), "skillsd-console-shots-")));
  await mkdir(shots, { recursive: true });
  console.log(`# screenshots in ${shots}`);
  browser = await chromium.launch({ executablePath, headless: true, args: chromeArgs });
});

after(async () => {
  await browser?.close();
  await rest?.stop();
  await tmp?.cleanup();
});

/** A page that records console errors and uncaught exceptions. */
async function open(viewport, base = rest.base) {
  const ctx = await browser.newContext({ viewport: viewports[viewport], reducedMotion: "reduce" });
  const page = await ctx.newPage();
  const problems = [];
  page.on("console", (m) => m.type() === "error" && problems.push(`console: ${m.text()}`));
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("requestfailed", (r) => !r.url().includes("catalog:watch") && problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`));
  return { page, problems, base, close: () => ctx.close() };
}

async function shot(page, name) {
  await page.screenshot({ path: join(shots, `${name}.png`) });
}

for (const viewport of Object.keys(viewports)) {
  test(`catalog and skill pages (${viewport})`, async () => {
    const { page, problems, close } = await open(viewport);
    try {
      await page.goto(rest.base + "/ui/#/catalog");
      await page.locator(".skill-link").first().waitFor();
      const status = await api("/v1/status");
      assert.equal(await page.locator(".skill-link").count(), status.skill_count);
      await page.locator(".live-live").waitFor();
      await shot(page, `catalog-${viewport}`);

      await page.locator('.skill-link[href="#/skill/backend/go-service"]').click();
      await page.locator("#skill-title").waitFor();
      assert.equal(await page.locator("#skill-title").textContent(), "backend/go-service");
      // Inheritance banners: two inherited parts, then the skill's own.
      assert.equal(await page.locator(".part.inherited .banner").count(), 2);
      assert.match(await page.locator(".part.mine .banner").textContent(), /This skill/);
      const digest = await page.locator("tr", { hasText: "service-layout.png" }).locator(".digest").getAttribute("title");
      assert.match(digest, /^sha256:[0-9a-f]{64}$/);
      await shot(page, `skill-${viewport}`);
      await page.getByRole("link", { name: "View templates/main.go.tmpl" }).click();
      await page.locator(".viewer ol.lines li").first().waitFor();
      assert.match(await page.locator(".viewer").textContent(), /package main/);
      await shot(page, `file-viewer-${viewport}`);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  test(`search shows a ranking and an abstention (${viewport})`, async () => {
    const { page, problems, close } = await open(viewport);
    try {
      await page.goto(rest.base + "/ui/#/search");
      await page.getByLabel("Query").fill("write release notes from the last commits");
      await page.getByRole("button", { name: "Search" }).click();
      await page.locator(".hit").first().waitFor();
      assert.equal((await page.locator(".hit .hit-path").first().textContent()).trim(), "changelog");
      assert.match(await page.locator(".hit .score").first().textContent(), /\d\.\d{3}/);
      assert.ok((await page.locator(".hit .terms .badge").count()) > 0, "matched terms are shown");
      await page.locator(".decision.matched").waitFor();
      await shot(page, `search-${viewport}`);

      await page.getByLabel("Query").fill("quantum chromodynamics lattice");
      await page.getByRole("button", { name: "Search" }).click();
      await page.locator(".decision.abstain").waitFor();
      assert.equal(await page.locator(".hit").count(), 0);
      assert.match(await page.locator(".decision.abstain").textContent(), /Abstained/);
      await shot(page, `search-abstain-${viewport}`);

      // A restatement (what a host model would add) finds what the words alone did not.
      await page.getByLabel("Query").fill("get the thing out the door");
      await page.getByRole("button", { name: "Search" }).click();
      await page.locator(".decision.abstain").waitFor();
      await page.getByLabel("Restatement (optional)").fill("write release notes and a changelog from the commits");
      await page.getByRole("button", { name: "Search" }).click();
      await page.locator(".hit .via").first().waitFor();
      assert.equal((await page.locator(".hit .hit-path").first().textContent()).trim(), "changelog");
      assert.match(await page.locator(".decision.matched").textContent(), /through the restatement/);
      await shot(page, `search-restated-${viewport}`);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  test(`a diagnostic links to its file and line (${viewport})`, async () => {
    const { page, problems, close } = await open(viewport);
    try {
      await page.goto(rest.base + "/ui/#/diagnostics");
      const link = page.locator("a.diag-link", { hasText: "wrong-name/SKILL.md:2" });
      await link.waitFor();
      await page.getByLabel("Severity").selectOption("warning");
      assert.ok((await page.locator("tbody tr").count()) >= 1);
      await page.getByLabel("Severity").selectOption("error");
      await page.locator(".empty").waitFor();
      await page.getByLabel("Severity").selectOption("");
      await shot(page, `diagnostics-${viewport}`);
      await link.click();
      await page.locator(".viewer li.hit").waitFor();
      assert.match(await page.evaluate(() => location.hash), /^#\/skill\/wrong-name\?file=SKILL.md&line=2$/);
      assert.match(await page.locator(".viewer li.hit").textContent(), /name: another-name/);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  test(`usage charts the events, without layout shift (${viewport})`, async () => {
    const { page, problems, close } = await open(viewport);
    try {
      await page.addInitScript(() => {
        window.__cls = 0;
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) if (!e.hadRecentInput) window.__cls += e.value;
        }).observe({ type: "layout-shift", buffered: true });
      });
      await page.goto(rest.base + "/ui/#/usage");
      await page.locator(".chart-box canvas").waitFor();
      const points = Number(await page.locator(".chart-box").getAttribute("data-points"));
      assert.ok(points >= 10, `the chart holds the test's events: ${points}`);
      assert.match(await page.locator("#nomatch-title + ol").textContent(), /book a flight to Lisbon/);
      assert.match(await page.locator(".feedback").textContent(), /the release notes were ready in a minute/);
      assert.match(await page.locator(".feedback").textContent(), /wanted gRPC, got HTTP/);
      assert.match(await page.locator(".top-skills").textContent(), /changelog/);
      const cls = await page.evaluate(() => window.__cls);
      assert.ok(cls < 0.1, `cumulative layout shift ${cls}`);
      await shot(page, `usage-${viewport}`);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });

  test(`status and refresh (${viewport})`, async () => {
    const { page, problems, close } = await open(viewport);
    try {
      await page.goto(rest.base + "/ui/#/status");
      await page.locator("table.sources tbody tr").first().waitFor();
      assert.match(await page.locator("table.sources").textContent(), /local/);
      assert.match(await page.locator("table.sources").textContent(), /watched/);
      const before = Number(await page.locator(".stats dd").first().textContent());
      assert.ok(before >= 1);
      await page.getByRole("button", { name: "Refresh now" }).click();
      await page.locator(".refresh-result", { hasText: /\S/ }).waitFor();
      assert.match(await page.locator(".refresh-result").textContent(), /Reindexed from local directory/);
      await shot(page, `status-${viewport}`);
      assert.deepEqual(problems, []);
    } finally {
      await close();
    }
  });
}

test("keyboard: skip link, then the pages in order", async () => {
  const { page, problems, close } = await open("desktop");
  try {
    await page.goto(rest.base + "/ui/#/catalog");
    await page.locator(".skill-link").first().waitFor();
    await page.keyboard.press("Tab");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), "Skip to content");
    await page.keyboard.press("Tab"); // brand
    const names = [];
    for (let i = 0; i < 5; i++) {
      await page.keyboard.press("Tab");
      names.push(await page.evaluate(() => document.activeElement?.textContent));
    }
    assert.deepEqual(names, ["Catalog", "Search", "Diagnostics", "Usage", "Status"]);
    await page.keyboard.press("Enter"); // Status
    await page.locator("table.sources").waitFor();
    assert.equal(await page.evaluate(() => location.hash), "#/status");
    assert.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test("skills-rest --auth token: the console's files load, its API calls ask for the token", async () => {
  const gw = await startRest({ args: ["--auth", "token", "--auth-token-env", "CONSOLE_REST_TOKENS"], env: { CONSOLE_REST_TOKENS: "rest-s3cret,rotated-s3cret" } });
  const { page, close } = await open("phone", gw.base);
  try {
    await page.goto(gw.base + "/ui/#/catalog");
    const dialog = page.getByRole("dialog", { name: "This server needs a token" });
    await dialog.waitFor();
    assert.equal(await page.locator(".skill-link").count(), 0, "nothing of the catalog before the token");
    await shot(page, "token-prompt-phone");
    await page.getByLabel("Bearer token").fill("rotated-s3cret");
    await page.keyboard.press("Enter");
    await page.locator(".skill-link").first().waitFor();
    assert.equal(await dialog.isVisible(), false);
    // The token is kept for the tab: another page of the console needs no prompt.
    await page.goto(gw.base + "/ui/#/status");
    await page.locator("table.sources tbody tr").first().waitFor();
    assert.equal(await dialog.isVisible(), false);
    await page.locator(".live-live").waitFor();
  } finally {
    await close();
    await gw.stop();
  }
});

test("the token prompt appears when the server needs a token, and the token opens the console", async () => {
  // skillsd refuses calls without a token; skills-rest (remote mode, no
  // token of its own) passes the browser's Authorization through.
  const sd = await startSkillsd({ args: ["--token-env", "CONSOLE_TEST_TOKENS"], env: { CONSOLE_TEST_TOKENS: "console-s3cret" } });
  const gw = await startRest({ server: sd.addr });
  const { page, close } = await open("desktop", gw.base);
  try {
    await page.goto(gw.base + "/ui/#/status");
    const dialog = page.getByRole("dialog", { name: "This server needs a token" });
    await dialog.waitFor();
    await shot(page, "token-prompt-desktop");
    await page.getByLabel("Bearer token").fill("wrong-token");
    await page.getByRole("button", { name: "Use this token" }).click();
    await dialog.waitFor(); // asked again
    await page.locator("dialog.token", { hasText: "The token was refused" }).waitFor();
    await page.getByLabel("Bearer token").fill("console-s3cret");
    await page.getByRole("button", { name: "Use this token" }).click();
    await page.locator("table.sources tbody tr").first().waitFor();
    assert.equal(await dialog.isVisible(), false);
    assert.match(await page.locator("table.sources").textContent(), /local/);
    await page.locator(".live-live").waitFor(); // the watch stream carries the token too
  } finally {
    await close();
    await gw.stop();
    await sd.stop();
  }
});

test("a dashboard on another origin calls the API only when --cors-origin allows it", async () => {
  // The dashboard: a page served by this test on its own loopback port.
  const dash = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end("<!doctype html><title>dashboard</title>");
  });
  await new Promise((resolve) => dash.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${dash.address().port}`;
  const allowed = await startRest({ args: ["--cors-origin", origin, "--ui=false"] });
  const closed = await startRest({ args: ["--ui=false"] });
  const { page, close } = await open("desktop", origin);
  try {
    await page.goto(origin + "/");
    // A bearer header makes the browser send a preflight first.
    const call = (base) =>
      page.evaluate(async (url) => {
        try {
          const res = await fetch(url + "/v1/status", { headers: { Authorization: "Bearer x" } });
          return { status: res.status, body: await res.json() };
        } catch (e) {
          return { error: String(e) };
        }
      }, base);
    const ok = await call(allowed.base);
    assert.equal(ok.status, 200, JSON.stringify(ok));
    assert.ok(ok.body.skill_count > 0);
    const refused = await call(closed.base);
    assert.match(refused.error ?? "", /Failed to fetch/, JSON.stringify(refused));
  } finally {
    await close();
    await allowed.stop();
    await closed.stop();
    dash.close();
  }
});
