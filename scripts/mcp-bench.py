#!/usr/bin/env python3
"""Measures skills-mcp over stdio on one catalog: start-up (process start to
the tools/list answer, median of RUNS after one warm-up run), the tools/list payload, the whole
skills/list (all pages: bytes, pages, time), resources/list and prompts/list
sizes, and the memory of the process once all of them were answered (VmRSS,
and VmHWM, the peak). Linux only (reads /proc).

usage: scripts/mcp-bench.py [-n RUNS] BINARY --skills-dir DIR [ARGS...]
"""
import json, statistics, sys, time

import mcpstdio

def rpc_session(args):
    return mcpstdio.session(args, "mcp-bench")

INIT = mcpstdio.initialize_params("mcp-bench")

def startup(args):
    t0 = time.perf_counter()
    p, call, notify = rpc_session(args)
    call("initialize", INIT); notify("notifications/initialized")
    _, size = call("tools/list")
    ms = (time.perf_counter() - t0) * 1000
    p.stdin.close(); p.wait()
    return ms, size

def paged(call, method, key):
    cursor, items, size, pages = None, 0, 0, 0
    while True:
        res, n = call(method, {"cursor": cursor} if cursor else {})
        items += len(res[key]); size += n; pages += 1
        cursor = res.get("nextCursor")
        if not cursor:
            return items, size, pages

def main():
    args = sys.argv[1:]
    runs = 9
    if args[:1] == ["-n"]:
        runs, args = int(args[1]), args[2:]
    if not args:
        sys.exit(__doc__.strip())
    times, tools_size = [], 0
    startup(args)  # warm-up, not counted: the page cache, a freshly written catalog
    for _ in range(runs):
        ms, tools_size = startup(args)
        times.append(ms)
    p, call, notify = rpc_session(args)
    call("initialize", INIT); notify("notifications/initialized")
    call("tools/list")
    t0 = time.perf_counter()
    skills, skills_size, skills_pages = paged(call, "skills/list", "skills")
    skills_ms = (time.perf_counter() - t0) * 1000
    t0 = time.perf_counter()
    _, again_size, _ = paged(call, "skills/list", "skills")
    again_ms = (time.perf_counter() - t0) * 1000
    resources, res_size, res_pages = paged(call, "resources/list", "resources")
    prompts, prompts_size, _ = paged(call, "prompts/list", "prompts")
    m = mcpstdio.memory(p.pid)
    p.stdin.close(); p.wait()
    print(json.dumps({
        "startup_to_tools_list_ms": {"median": round(statistics.median(times)), "min": round(min(times)), "max": round(max(times)), "runs": runs},
        "tools_list_bytes": tools_size,
        "skills_list": {"skills": skills, "pages": skills_pages, "bytes": skills_size, "first_ms": round(skills_ms), "again_ms": round(again_ms)},
        "resources_list": {"resources": resources, "pages": res_pages, "bytes": res_size},
        "prompts_list": {"prompts": prompts, "bytes": prompts_size},
        "rss_mb": round(m.get("VmRSS", 0), 1), "peak_rss_mb": round(m.get("VmHWM", 0), 1),
    }, indent=1))

main()
