#!/usr/bin/env bash
# Routing quality on the benchmark, measured where callers meet the engine:
# one skillsd serves the corpus; the dev queries are ranked alone and with
# their restatements (restatements.dev.jsonl, merged by id into a "restated"
# field) both by `skills eval` over gRPC and by search_skills over MCP
# (skills-mcp --server, driven by scripts/mcp-eval.py). The two must agree,
# hit for hit and score for score; the MCP rankings are the results.
#
#   scripts/bench-quality.sh BIN_DIR BENCH_DIR TMP_DIR LABEL [CONFIG]
#
# writes TMP_DIR/LABEL-single.jsonl and TMP_DIR/LABEL-restated.jsonl (eval.py's
# input format). CONFIG is a skillsd config file (semantic search).
set -euo pipefail
bin=$1 bench=$2 tmp=$3 label=$4 config=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$tmp"

restated="$tmp/queries.restated.jsonl"
python3 - "$bench/queries.dev.jsonl" "$bench/restatements.dev.jsonl" "$restated" <<'PY'
import json, sys
queries, restatements, out = sys.argv[1:]
r = {}
with open(restatements, encoding="utf-8") as f:
    for line in f:
        if line.strip():
            o = json.loads(line)
            r[o["id"]] = o["query"]
with open(queries, encoding="utf-8") as f, open(out, "w", encoding="utf-8") as w:
    for line in f:
        if line.strip():
            q = json.loads(line)
            if q["id"] not in r:
                sys.exit(f"bench-quality: query {q['id']} has no restatement")
            q["restated"] = r[q["id"]]
            w.write(json.dumps(q, ensure_ascii=False) + "\n")
PY

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
addr=127.0.0.1:$port
cfg=()
if [ -n "$config" ]; then cfg=(--config "$config"); fi
env -u EMBEDDING_PROVIDER -u EMBEDDING_BASE_URL -u EMBEDDING_MODEL -u SKILLS_DIR \
  "$bin/skillsd" --grpc "$addr" --skills-dir "$bench/corpus" "${cfg[@]}" 2>"$tmp/skillsd-$label.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
for _ in $(seq 1 600); do
  "$bin/skills" --server "$addr" search ping >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$tmp/skillsd-$label.log" >&2; exit 1; }
  sleep 0.1
done

for mode in single restated; do
  queries=$bench/queries.dev.jsonl
  if [ "$mode" = restated ]; then queries=$restated; fi
  "$bin/skills" --server "$addr" eval --queries "$queries" >"$tmp/cli-$label-$mode.jsonl"
  python3 "$here/mcp-eval.py" --queries "$queries" -- "$bin/skills-mcp" --server "$addr" \
    >"$tmp/$label-$mode.jsonl"
  python3 - "$tmp/cli-$label-$mode.jsonl" "$tmp/$label-$mode.jsonl" "$label $mode" <<'PY'
import json, sys
cli, mcp, what = sys.argv[1:]
load = lambda p: [json.loads(l) for l in open(p, encoding="utf-8") if l.strip()]
a, b = load(cli), load(mcp)
same = sum(1 for x, y in zip(a, b) if x["id"] == y["id"] and x["ranked"] == y["ranked"]
           and all(abs(s - t) < 1e-9 for s, t in zip(x["scores"], y["scores"])))
print(f"bench-quality: {what}: search_skills over MCP and skills eval agree on {same} of {len(a)} queries", file=sys.stderr)
if same != len(a) or len(a) != len(b):
    sys.exit(f"bench-quality: {what}: MCP and gRPC rankings differ (see {cli} and {mcp})")
PY
done
