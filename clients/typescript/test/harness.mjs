// Starts the real skillsd binaries for the client and console tests: each on a
// loopback port chosen by the kernel (--http 127.0.0.1:0, --grpc
// 127.0.0.1:0), read back from its log, and stopped by the returned stop().
//
// The binaries come from SKILLSD_BIN_DIR (make passes ./bin after make build),
// else they are built once into a temporary folder with the go command.
import { spawn, execFileSync } from "node:child_process";
import { cp, mkdtemp, rm, writeFile, mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
export const demoCatalog = join(repoRoot, "examples", "skills");

const packages = {
  "skills-rest": ["gateways/rest", "./cmd/skills-rest"],
  skillsd: ["services/skills", "./cmd/skillsd"],
};
let builtDir;

/** The path of a binary, built on first use when SKILLSD_BIN_DIR is not set. */
export async function binary(name) {
  if (process.env.SKILLSD_BIN_DIR) return join(process.env.SKILLSD_BIN_DIR, name);
  builtDir ??= await mkdtemp(join(tmpdir(), "skillsd-ts-bin-"));
  const out = join(builtDir, name);
  const [dir, pkg] = packages[name];
  execFileSync("go", ["build", "-C", join(repoRoot, dir), "-o", out, pkg], { stdio: "inherit" });
  packages[name] = null; // built
  return out;
}

/** A temporary folder, removed by the returned cleanup. */
export async function tempDir(prefix) {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A copy of the demo catalog in dir/skills (so that a test may change it). */
export async function copyDemoCatalog(dir) {
  const skills = join(dir, "skills");
  await cp(demoCatalog, skills, { recursive: true });
  return skills;
}

/**
 * Starts a process and waits until a line of its stderr matches ready;
 * resolves with the match, the process and a stop function.
 */
function start(bin, args, env, ready, timeoutMs = 60_000) {
  const child = spawn(bin, args, { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 5000).unref();
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`${bin} did not start within ${timeoutMs} ms:\n${log}`));
    }, timeoutMs);
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (chunk) => {
      log += chunk;
      const m = log.match(ready);
      if (m && timer) {
        clearTimeout(timer);
        resolve({ match: m, child, stop, log: () => log });
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${bin} exited with ${code} before it was ready:\n${log}`));
    });
  });
}

/**
 * Starts skills-rest. With catalog (folders), the service runs in-process;
 * with server (a gRPC address), it forwards there. config is YAML written to
 * a file for --config. Resolves with { base, stop, log }.
 */
export async function startRest({ catalog = [demoCatalog], server, config, args = [], env = {} } = {}) {
  const bin = await binary("skills-rest");
  const home = await tempDir("skillsd-ts-home-");
  const argv = ["--http", "127.0.0.1:0", ...args];
  if (server) argv.push("--server", server);
  else for (const dir of catalog) argv.push("--skills-dir", dir);
  if (config) {
    const file = join(home.dir, "config.yaml");
    await writeFile(file, config);
    argv.push("--config", file);
  }
  const p = await start(bin, argv, { SKILLSD_HOME: home.dir, LOG_LEVEL: "warn", ...env }, /listening on (http:\/\/\S+)/);
  return {
    base: p.match[1],
    log: p.log,
    stop: async () => {
      await p.stop();
      await home.cleanup();
    },
  };
}

/** Starts skillsd on a free loopback port. Resolves with { addr, stop }. */
export async function startSkillsd({ catalog = [demoCatalog], args = [], env = {} } = {}) {
  const bin = await binary("skillsd");
  const home = await tempDir("skillsd-ts-home-");
  const argv = ["--grpc", "127.0.0.1:0", ...args];
  for (const dir of catalog) argv.push("--skills-dir", dir);
  const p = await start(bin, argv, { SKILLSD_HOME: home.dir, LOG_LEVEL: "info", ...env }, /serving gRPC" addr=(\S+)/);
  return {
    addr: p.match[1],
    stop: async () => {
      await p.stop();
      await home.cleanup();
    },
  };
}

/** Writes an agents folder and a docs folder under dir, for ContentService. */
export async function writeContent(dir) {
  const agents = join(dir, "agents");
  const docs = join(dir, "docs");
  await mkdir(agents, { recursive: true });
  await mkdir(join(docs, "guides"), { recursive: true });
  await writeFile(join(agents, "reviewer.md"), "---\nname: reviewer\ndescription: Reviews pull requests.\nmodel: sonnet\ntools: [Read, Grep]\n---\nYou review code.\n");
  await writeFile(join(docs, "index.md"), "---\ntitle: Home\ndescription: The start page.\n---\n# Home\n");
  await writeFile(join(docs, "guides", "setup.md"), "---\ntitle: Setup\ndescription: How to set up.\n---\n# Setup\n");
  return { agents, docs };
}
