#!/usr/bin/env python3
"""Warm starts of two or more skills-mcp builds, compared in one run.

What one build changes in a warm start is often a few milliseconds, on
machines whose speed moves more than that within a minute. So each round
starts every build once, in turn (forward, then backward the next round),
over the same state folders, and the table gives medians over the rounds.

Two effects besides the builds' code are taken out:

  copies   byte-identical copies of one binary do not start alike: where
           the kernel placed each file's pages (large folios or not)
           moved a warm start's RSS by 5 MB and its tools/list by a few
           ms in our runs. Each build is copied COPIES times into a
           temporary folder, and the rounds rotate through the copies.
  state    each start reads and writes its SKILLSD_HOME (caches, usage
           store). HOMES folders are shared by all the builds (they read
           the same cache files: build them from the same version string)
           and rotated, each made warm by two starts of the first build
           before the rounds. With --own-homes each build has HOMES
           folders of its own instead, made warm by two starts of that
           build: for builds that write different cache files (a changed
           cache key or format), which would otherwise undo each other's
           caches at every start.

The first build is also run under a second name, "BASE (again)", from
copies of its own: what separates it from BASE is the noise, the least
difference between two builds that the run can tell.

Each start measures over stdio: start -> tools/list answered (initialize
first), start -> first search_skills answered (sent as soon as tools/list
is answered), its CPU time and RSS then. The first search is the figure to
read: a warm tools/list races the build for the cores, and spreads wide.

Catalogs of N skills are written to a temporary folder by
scripts/synth-catalog.py from CORPUS, as bench-startup.py does. Linux only
(reads /proc).

usage: scripts/bench-compare.py [-n ROUNDS] [--copies COPIES] [--homes HOMES] [--own-homes] [--json FILE]
           --corpus DIR [--sizes N[,N...]] BASE BIN [BIN...]
"""
import argparse, json, os, shutil, statistics, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcpstdio  # noqa: E402

QUERY = "extract tables from a pdf"
TIMEOUT = 600  # seconds a single start may take before it is killed
KEYS = ["first_search_ms", "tools_list_ms", "cpu_ms", "rss_mb"]


def cpu_ms(pid):
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def one_start(binary, cat, env):
    """Starts binary once on cat; returns its figures."""
    t0 = time.perf_counter()
    p, call, notify = mcpstdio.session([binary, "--skills-dir", cat], "bench-compare", env)
    killer = threading.Timer(TIMEOUT, p.kill)
    killer.start()
    try:
        call("initialize", mcpstdio.initialize_params("bench-compare"))
        notify("notifications/initialized")
        call("tools/list")
        tools_ms = (time.perf_counter() - t0) * 1000
        res, _ = call("tools/call", {"name": "search_skills", "arguments": {"query": QUERY}})
        first_ms = (time.perf_counter() - t0) * 1000
        if res.get("isError"):
            raise SystemExit(f"bench-compare: {binary}: search_skills failed: {res}")
        cpu = cpu_ms(p.pid)
        mem = mcpstdio.memory(p.pid)
    finally:
        killer.cancel()
        p.stdin.close()
        p.wait()
    return {"first_search_ms": first_ms, "tools_list_ms": tools_ms, "cpu_ms": cpu, "rss_mb": mem.get("VmRSS", 0)}


def sizes_arg(text):
    try:
        sizes = [int(s) for s in text.replace(",", " ").split()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give catalog sizes as N[,N...]")
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give catalog sizes as N[,N...], each at least 1")
    return sizes


def main():
    ap = argparse.ArgumentParser(usage=__doc__.split("usage: ")[1].strip())
    ap.add_argument("-n", type=int, default=30, dest="rounds")
    ap.add_argument("--copies", type=int, default=4)
    ap.add_argument("--homes", type=int, default=3)
    ap.add_argument("--own-homes", action="store_true")
    ap.add_argument("--json")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--sizes", type=sizes_arg, default=[387])
    ap.add_argument("builds", nargs="+", metavar="BIN")
    o = ap.parse_args()
    if len(o.builds) < 2:
        ap.error("give at least two builds: BASE and one to compare with it")
    for name, v in (("-n", o.rounds), ("--copies", o.copies), ("--homes", o.homes)):
        if v < 1:
            ap.error(f"{name} must be at least 1")
    builds = [os.path.abspath(b) for b in o.builds]
    for b in builds:
        if not (os.path.isfile(b) and os.access(b, os.X_OK)):
            ap.error(f"{b} is not an executable file")
    if not os.path.isdir(o.corpus):
        ap.error(f"--corpus {o.corpus} is not a folder")
    synth = os.path.join(os.path.dirname(os.path.abspath(__file__)), "synth-catalog.py")
    names = [builds[0]] + [f"{builds[0]} (again)"] + builds[1:]
    load0 = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    results = {}
    tmp = tempfile.mkdtemp(prefix="bench-compare-")
    try:
        copies = {}
        for i, (name, src) in enumerate(zip(names, [builds[0]] + builds)):
            copies[name] = []
            for k in range(o.copies):
                dst = os.path.join(tmp, "bin", f"{i}-{k}-{os.path.basename(src)}")
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(src, dst)
                copies[name].append(dst)
        env0 = {k: v for k, v in os.environ.items() if k not in ("SKILLSD_HOME", "SKILLS_DIR", "GOMEMLIMIT", "GOGC")}
        env0["HOME"] = os.path.join(tmp, "home")
        os.makedirs(env0["HOME"], exist_ok=True)
        for n in o.sizes:
            cat = os.path.join(tmp, f"skills-{n}")
            subprocess.run([sys.executable, synth, o.corpus, cat, str(n)], check=True, stdout=subprocess.DEVNULL)
            # The state folders of each build: shared, or its own.
            homes = {}
            for b, name in enumerate(names):
                tag = b if o.own_homes else 0
                if tag not in homes:
                    homes[tag] = [os.path.join(tmp, f"state-{n}-{tag}-{h}") for h in range(o.homes)]
                    for h in homes[tag]:
                        for _ in range(2):  # the cold start, then one warm start: not counted
                            one_start(copies[name][0], cat, dict(env0, SKILLSD_HOME=h))
            rows = {name: [] for name in names}
            for r in range(o.rounds):
                order = names if r % 2 == 0 else names[::-1]
                for name in order:
                    home = homes[names.index(name) if o.own_homes else 0][r % o.homes]
                    rows[name].append(one_start(copies[name][(r // 2) % o.copies], cat, dict(env0, SKILLSD_HOME=home)))
                print(f"bench-compare: {n} skills, round {r + 1}/{o.rounds} done (load {os.getloadavg()[0]:.2f})", file=sys.stderr)
            results[n] = {"runs": rows, "median": {name: {k: statistics.median(x[k] for x in v) for k in KEYS} for name, v in rows.items()}}
            shutil.rmtree(cat, ignore_errors=True)
            for hs in homes.values():
                for h in hs:
                    shutil.rmtree(h, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    load1 = os.getloadavg()

    print(f"bench-compare: {started}, {os.cpu_count()} cores, warm starts, medians of {o.rounds} rounds "
          f"({o.copies} copies of each build rotated, {o.homes} {'state folders each' if o.own_homes else 'shared state folders'}); load average "
          f"{load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} at the start, {load1[0]:.2f} {load1[1]:.2f} {load1[2]:.2f} at the end")
    print()
    print("| skills | build | 1st search ms | vs BASE | tools/list ms | cpu ms | RSS MB |")
    print("|---:|---|---:|---:|---:|---:|---:|")
    for n, res in results.items():
        base = res["median"][names[0]]["first_search_ms"]
        for name in names:
            m = res["median"][name]
            ratio = f"{m['first_search_ms'] / base:.3f}×" if base > 0 else "—"
            print(f"| {n:,} | {name} | {m['first_search_ms']:.1f} | {ratio} | {m['tools_list_ms']:.1f} | "
                  f"{m['cpu_ms']:.0f} | {m['rss_mb']:.0f} |")
    print()
    print("BASE (again) is the first build from copies of its own: its difference from BASE is the noise of the run.")
    if o.json:
        with open(o.json, "w") as fh:
            json.dump({"started": started, "load_start": load0, "load_end": load1, "rounds": o.rounds,
                       "copies": o.copies, "homes": o.homes, "own_homes": o.own_homes, "builds": names,
                       "results": {str(n): r for n, r in results.items()}}, fh, indent=1)


if __name__ == "__main__":
    main()
