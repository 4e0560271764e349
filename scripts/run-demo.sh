#!/usr/bin/env bash
# Serves a catalog for `make run`: skillsd over gRPC and skills-rest over HTTP in
# front of it, then prints how to reach both and how to add the catalog to
# Claude Code. Ctrl-C stops both.
set -euo pipefail
bin=$1 catalog=$2 grpc_addr=$3 http_addr=$4

pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT INT TERM

"$bin/skillsd" --skills-dir "$catalog" --grpc "$grpc_addr" &
pids+=($!)
"$bin/skills-rest" --server "$grpc_addr" --http "$http_addr" &
pids+=($!)

# Wait until the REST port accepts connections (bash's /dev/tcp: no curl needed).
host=${http_addr%:*} port=${http_addr##*:}
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; then break; fi
  sleep 0.1
done

cat <<TXT

skillsd is serving $catalog

  Console   http://$http_addr/ui/   (open it in a browser)
  REST      curl http://$http_addr/v1/skills
            curl http://$http_addr/v1/skills/backend/go-service
            curl http://$http_addr/openapi.json
  gRPC      $grpc_addr  (reflection on: grpcurl -plaintext $grpc_addr list)
  CLI       $bin/skills list --skills-dir $catalog
  MCP       claude mcp add skills -- $bin/skills-mcp --skills-dir $catalog
            (or, against this running server: claude mcp add skills -- $bin/skills-mcp --server $grpc_addr)

Ctrl-C stops.
TXT
wait -n "${pids[@]}"
