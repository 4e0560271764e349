#!/usr/bin/env python3
"""Ranks the queries of a JSON lines file through an MCP server's search_skills
tool (over stdio) and writes one result line per query in the routing
benchmark's format, {"id", "ranked", "scores"}: what `skills eval` writes, but
measured where a host model meets the engine.

Each query line is {"id", "query", "restated"?}; restated (a string, or a list
whose first non-blank entry is used: the tool takes one) is passed as the
tool's restated argument unless --no-restated.

usage: scripts/mcp-eval.py --queries FILE [--limit N] [--no-restated] -- COMMAND [ARGS...]
  e.g. scripts/mcp-eval.py --queries q.jsonl -- ./bin/skills-mcp --server 127.0.0.1:50051
"""
import argparse, json, sys

import mcpstdio

def restated_of(q):
    r = q.get("restated")
    if isinstance(r, list):
        r = next((x for x in r if isinstance(x, str) and x.strip()), None)
    if r is not None and not isinstance(r, str):
        sys.exit(f"mcp-eval: query {q.get('id')}: restated must be a string or a list of strings")
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", required=True)
    ap.add_argument("--limit", type=int, default=10)
    ap.add_argument("--no-restated", action="store_true")
    ap.add_argument("command", nargs="+")
    a = ap.parse_args()
    p, rpc, notify = mcpstdio.session(a.command, "mcp-eval")
    call = lambda method, params=None: rpc(method, params)[0]
    call("initialize", mcpstdio.initialize_params("mcp-eval"))
    notify("notifications/initialized")
    with open(a.queries, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            q = json.loads(line)
            out = {"id": q["id"], "ranked": [], "scores": []}
            if q.get("query", "").strip():
                args = {"query": q["query"], "limit": a.limit}
                r = None if a.no_restated else restated_of(q)
                if r and r.strip():
                    args["restated"] = r
                res = call("tools/call", {"name": "search_skills", "arguments": args})
                if res.get("isError"):
                    sys.exit(f"mcp-eval: line {n} (id {q['id']}): {res['content'][0]['text']}")
                for h in res["structuredContent"]["results"]:
                    out["ranked"].append(h["name"])
                    out["scores"].append(h["score"])
            print(json.dumps(out), flush=True)
    p.stdin.close()
    p.wait()


if __name__ == "__main__":
    main()
