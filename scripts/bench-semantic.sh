#!/usr/bin/env bash
# Routing quality with semantic search on, beside the lexical engine: the
# dev queries alone and with their restatements, through search_skills over
# MCP (scripts/bench-quality.sh), scored by the benchmark's eval.py.
#
#   scripts/bench-semantic.sh BIN_DIR BENCH_DIR TMP_DIR
#
# With EMBEDDING_BASE_URL set (and EMBEDDING_MODEL, OPENAI_API_KEY as the
# endpoint needs), that endpoint is measured. Otherwise a local endpoint is
# started from scripts/embeddings (the Universal Sentence Encoder from npm).
set -euo pipefail
bin=$1 bench=$2 tmp=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$tmp"
base_url=${EMBEDDING_BASE_URL:-}
model=${EMBEDDING_MODEL:-}
if [ -z "$base_url" ]; then
  (cd "$here/embeddings" && { [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error; })
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  node "$here/embeddings/server.mjs" "$port" 2>"$tmp/embeddings.log" &
  server=$!
  trap 'kill "$server" 2>/dev/null || true' EXIT
  for _ in $(seq 1 600); do
    grep -q '^ready' "$tmp/embeddings.log" && break
    kill -0 "$server" 2>/dev/null || { cat "$tmp/embeddings.log" >&2; exit 1; }
    sleep 0.1
  done
  grep -q '^ready' "$tmp/embeddings.log" || { echo "bench-semantic: the local embeddings endpoint did not start" >&2; exit 1; }
  base_url=http://127.0.0.1:$port/v1
  model=universal-sentence-encoder-lite
fi
cat >"$tmp/semantic.yaml" <<YAML
state_dir: $tmp/home
embedding:
  provider: openai
  base_url: $base_url
  model: ${model:-text-embedding-3-small}
  query_timeout_ms: 10000
YAML
echo "bench-semantic: $base_url, model ${model:-text-embedding-3-small}; vectors cached in $tmp/home" >&2
bash "$here/bench-quality.sh" "$bin" "$bench" "$tmp" lexical
bash "$here/bench-quality.sh" "$bin" "$bench" "$tmp" semantic "$tmp/semantic.yaml"
echo "bench-semantic: rankings in $tmp/{lexical,semantic}-{single,restated}.jsonl" >&2
python3 "$bench/eval.py" --queries "$bench/queries.dev.jsonl" \
  "$tmp/lexical-single.jsonl" "$tmp/semantic-single.jsonl" "$tmp/lexical-restated.jsonl" "$tmp/semantic-restated.jsonl" --by-kind
# The rule semantic search is held to: on the whole dev split, no figure
# (hit@1, hit@3, MRR) with it is below the lexical engine's, alone or with
# restatements. A drop fails the target, naming the figure.
python3 "$bench/eval.py" --queries "$bench/queries.dev.jsonl" --json \
  "$tmp/lexical-single.jsonl" "$tmp/semantic-single.jsonl" "$tmp/lexical-restated.jsonl" "$tmp/semantic-restated.jsonl" |
  python3 -c '
import json, sys
r = json.load(sys.stdin)
bad = []
for mode in ("single", "restated"):
    lex, sem = r["lexical-" + mode]["positive"], r["semantic-" + mode]["positive"]
    for k in ("hit@1", "hit@3", "mrr"):
        if sem[k] < lex[k] - 1e-9:
            bad.append("%s %s: semantic %.3f < lexical %.3f" % (mode, k, sem[k], lex[k]))
if bad:
    print("bench-semantic: semantic search lowers routing quality:\n  " + "\n  ".join(bad), file=sys.stderr)
    sys.exit(1)
print("bench-semantic: semantic search is below lexical on no figure (hit@1, hit@3, MRR; alone and restated)", file=sys.stderr)
'
