#!/usr/bin/env python3
"""Start-up benchmark of skills-mcp against a floor (issue 21).

The floor is gateways/mcp/internal/benchfloor: a go-sdk MCP server with the
same eight tool names, each a no-op, built from the same module versions. For
each catalog size, RUNS rounds are run; each round starts, one after the other
(interleaved, so both see the same load), the floor, skills-mcp with a fresh
SKILLSD_HOME (cold) and skills-mcp again with that same SKILLSD_HOME (warm).
Each start measures over stdio:

  tools/list    process start -> tools/list answered (initialize first)
  1st search    process start -> first search_skills answered (sent as soon as
                tools/list is answered; the floor: its first no-op call)
  cpu           the process's user+system CPU time at that moment
  rss           its VmRSS then (and VmHWM, the peak so far)
  p50 / p99     latency of CALLS more search_skills calls, one at a time

and the table shows the median over the rounds of each, with its ratio to the
floor's same figure, then issue 21's targets. Catalogs of N skills are written
to a temporary folder by scripts/synth-catalog.py from CORPUS (N up to the
corpus size is a plain copy of its first N skills). Linux only (reads /proc).

usage: scripts/bench-startup.py [-n RUNS] [--calls CALLS] [--json FILE]
           --skills-mcp BIN --floor BIN --corpus DIR N [N...]
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcpstdio  # noqa: E402

QUERIES = [
    "extract tables from a pdf", "write a docker compose file", "review a pull request",
    "make a slide deck", "analyse a csv with pandas", "fix failing unit tests",
    "draw a chart", "write release notes", "query a postgres database", "translate a document",
]
TIMEOUT = 600  # seconds a single start may take before it is killed


def ms(t0):
    return (time.perf_counter() - t0) * 1000


def cpu_ms(pid):
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) * 1000 / ticks  # utime, stime


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def one_start(args, env, calls):
    """Starts args once; returns its figures."""
    t0 = time.perf_counter()
    p, call, notify = mcpstdio.session(args, "bench-startup", env)
    killer = threading.Timer(TIMEOUT, p.kill)
    killer.start()
    try:
        call("initialize", mcpstdio.initialize_params("bench-startup"))
        notify("notifications/initialized")
        res, _ = call("tools/list")
        tools_ms = ms(t0)
        if "search_skills" not in {t["name"] for t in res["tools"]}:
            raise SystemExit(f"bench-startup: {args[0]} has no search_skills tool")
        res, _ = call("tools/call", {"name": "search_skills", "arguments": {"query": QUERIES[0]}})
        first_ms = ms(t0)
        if res.get("isError"):
            raise SystemExit(f"bench-startup: {args[0]}: search_skills failed: {res}")
        cpu = cpu_ms(p.pid)
        mem = mcpstdio.memory(p.pid)
        lat = []
        for i in range(calls):
            t1 = time.perf_counter()
            call("tools/call", {"name": "search_skills", "arguments": {"query": QUERIES[i % len(QUERIES)]}})
            lat.append(ms(t1))
    finally:
        killer.cancel()
        p.stdin.close()
        p.wait()
    return {"tools_list_ms": tools_ms, "first_search_ms": first_ms, "cpu_ms": cpu,
            "rss_mb": mem.get("VmRSS", 0), "peak_rss_mb": mem.get("VmHWM", 0),
            "p50_ms": pct(lat, 0.50) if lat else 0, "p99_ms": pct(lat, 0.99) if lat else 0}


def count_skills(root):
    n = 0
    for _, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        n += "SKILL.md" in files
    return n


KEYS = ["tools_list_ms", "first_search_ms", "cpu_ms", "rss_mb", "peak_rss_mb", "p50_ms", "p99_ms"]
HEADS = ["tools/list ms", "1st search ms", "cpu ms", "RSS MB", "peak MB", "p50 ms", "p99 ms"]


def median_of(runs):
    return {k: statistics.median(r[k] for r in runs) for k in KEYS}


def fmt(v, k):
    return f"{v:.1f}" if k in ("p50_ms", "p99_ms") else f"{v:.0f}"


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split("usage: ")[1].strip())
    ap.add_argument("-n", type=int, default=5, dest="runs")
    ap.add_argument("--calls", type=int, default=100)
    ap.add_argument("--json")
    ap.add_argument("--skills-mcp", required=True)
    ap.add_argument("--floor", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("sizes", nargs="+", type=int)
    o = ap.parse_args()
    mcp_bin, floor_bin = os.path.abspath(o.skills_mcp), os.path.abspath(o.floor)
    synth = os.path.join(os.path.dirname(os.path.abspath(__file__)), "synth-catalog.py")
    load0 = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    results = {}
    tmp = tempfile.mkdtemp(prefix="bench-startup-")
    try:
        for n in o.sizes:
            cat = os.path.join(tmp, f"skills-{n}")
            subprocess.run([sys.executable, synth, o.corpus, cat, str(n)], check=True, stdout=subprocess.DEVNULL)
            have = count_skills(cat)
            base_env = {k: v for k, v in os.environ.items() if k not in ("SKILLSD_HOME", "SKILLS_DIR", "GOMEMLIMIT", "GOGC")}
            base_env["HOME"] = os.path.join(tmp, "home")
            os.makedirs(base_env["HOME"], exist_ok=True)
            # One start of each, not counted: the page cache, the freshly written catalog.
            warm_home = os.path.join(tmp, f"state-{n}-warmup")
            one_start([floor_bin], base_env, 0)
            one_start([mcp_bin, "--skills-dir", cat], dict(base_env, SKILLSD_HOME=warm_home), 0)
            rows = {"floor": [], "cold": [], "warm": []}
            for r in range(o.runs):
                state = os.path.join(tmp, f"state-{n}-{r}")
                env = dict(base_env, SKILLSD_HOME=state)
                rows["floor"].append(one_start([floor_bin], base_env, o.calls))
                rows["cold"].append(one_start([mcp_bin, "--skills-dir", cat], env, o.calls))
                rows["warm"].append(one_start([mcp_bin, "--skills-dir", cat], env, o.calls))
                shutil.rmtree(state, ignore_errors=True)
                print(f"bench-startup: {have} skills, round {r + 1}/{o.runs} done (load {os.getloadavg()[0]:.2f})", file=sys.stderr)
            results[n] = {"skills": have, "runs": rows, "median": {k: median_of(v) for k, v in rows.items()}}
            shutil.rmtree(cat, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load1 = os.getloadavg()

    print(f"bench-startup: {started}, {os.cpu_count()} cores, medians of {o.runs} rounds "
          f"(floor, cold, warm interleaved), {o.calls} searches a start; "
          f"load average {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} at the start, "
          f"{load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} at the end")
    print()
    print("| skills | server | " + " | ".join(HEADS) + " |")
    print("|---:|---|" + "---:|" * len(HEADS))
    for n, res in results.items():
        fl = res["median"]["floor"]
        for kind in ("floor", "cold", "warm"):
            m = res["median"][kind]
            cells = []
            for k in KEYS:
                cell = fmt(m[k], k)
                if kind != "floor" and fl[k] > 0:
                    cell += f" ({m[k] / fl[k]:.1f}×)"
                cells.append(cell)
            name = "floor (go-sdk, 8 no-op tools)" if kind == "floor" else f"skills-mcp {kind}"
            print(f"| {res['skills']:,} | {name} | " + " | ".join(cells) + " |")
    print()
    print("issue 21 targets (ratios to the floor's median):")
    for n, res in results.items():
        fl, cold, warm = res["median"]["floor"], res["median"]["cold"], res["median"]["warm"]
        checks = [
            ("warm start -> first search vs floor start -> tools/list", warm["first_search_ms"] / fl["tools_list_ms"], 3),
            ("cold start -> tools/list vs floor start -> tools/list", cold["tools_list_ms"] / fl["tools_list_ms"], 4),
            ("search p50 (warm) vs floor no-op call p50", warm["p50_ms"] / fl["p50_ms"] if fl["p50_ms"] else 0, 2),
        ]
        if res["skills"] >= 10000:
            checks.append(("cold start -> tools/list vs floor (no Node peer)", cold["tools_list_ms"] / fl["tools_list_ms"], 25))
        for what, ratio, bound in checks:
            print(f"  {res['skills']:>6,} skills: {what}: {ratio:.1f}× (target ≤ {bound}×) {'met' if ratio <= bound else 'NOT met'}")
    if o.json:
        with open(o.json, "w") as fh:
            json.dump({"started": started, "load_start": load0, "load_end": load1, "runs": o.runs,
                       "calls": o.calls, "results": results}, fh, indent=1)


main()
