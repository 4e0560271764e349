#!/usr/bin/env bash
# Serves a catalog for `make run`: skillsd over gRPC and skills-rest over HTTP in
# front of it. It announces them only once both answer (skills-rest's /readyz:
# the catalog is loaded and reachable through the gateway), then prints how to
# reach both and how to add the catalog to Claude Code. A port already taken is
# named, with the variable that picks another. Ctrl-C stops both.
set -euo pipefail
bin=$1 catalog=$2 grpc_addr=$3 http_addr=$4
ready_timeout=${RUN_READY_TIMEOUT:-60} # seconds

logs=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$logs"
}
trap cleanup EXIT
trap 'exit 0' INT TERM # stopping on request is a clean stop

# port_taken ADDR: something already accepts connections on ADDR.
port_taken() {
  local host=${1%:*} port=${1##*:}
  (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null
}

# busy VAR ADDR: say that ADDR is taken and how to choose another port.
busy() {
  local var=$1 addr=$2 host=${2%:*} port=${2##*:}
  {
    echo
    echo "make run: $addr ($var) is already in use by another program: nothing was started there."
    echo "  pick another port:  make run $var=$host:$((port + 1))"
    echo "  or find the program holding it:  ss -ltnp 'sport = :$port'   (or: lsof -i :$port)"
  } >&2
  exit 1
}

# died NAME LOG VAR ADDR: a server stopped before it was ready; say why.
died() {
  local name=$1 log=$2 var=$3 addr=$4
  if grep -q "address already in use" "$log"; then
    busy "$var" "$addr"
  fi
  {
    echo
    echo "make run: $name stopped before it was ready; its last words:"
    tail -n 5 "$log" | sed 's/^/  /'
  } >&2
  exit 1
}

# http_ready ADDR PATH: GET PATH answers 200 (bash's /dev/tcp: no curl needed).
http_ready() {
  local host=${1%:*} port=${1##*:} line
  { exec 3<>"/dev/tcp/$host/$port"; } 2>/dev/null || return 1
  printf 'GET %s HTTP/1.0\r\nHost: %s\r\n\r\n' "$2" "$1" >&3
  IFS= read -r -t 5 line <&3 || { exec 3>&-; return 1; }
  exec 3>&-
  [[ $line == "HTTP/1."?" 200"* ]]
}

port_taken "$grpc_addr" && busy GRPC_ADDR "$grpc_addr"
port_taken "$http_addr" && busy HTTP_ADDR "$http_addr"

"$bin/skillsd" --skills-dir "$catalog" --grpc "$grpc_addr" 2> >(tee "$logs/skillsd.log" >&2) &
pids+=($!)
skillsd_pid=$!
"$bin/skills-rest" --server "$grpc_addr" --http "$http_addr" 2> >(tee "$logs/skills-rest.log" >&2) &
pids+=($!)
rest_pid=$!

deadline=$((SECONDS + ready_timeout))
until http_ready "$http_addr" /readyz; do
  kill -0 "$skillsd_pid" 2>/dev/null || { sleep 0.2; died skillsd "$logs/skillsd.log" GRPC_ADDR "$grpc_addr"; }
  kill -0 "$rest_pid" 2>/dev/null || { sleep 0.2; died skills-rest "$logs/skills-rest.log" HTTP_ADDR "$http_addr"; }
  if ((SECONDS >= deadline)); then
    echo "make run: not ready after ${ready_timeout}s (GET http://$http_addr/readyz); see the logs above" >&2
    exit 1
  fi
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
  Ports     make run GRPC_ADDR=host:port HTTP_ADDR=host:port picks others

Ctrl-C stops.
TXT
set +e
wait -n "${pids[@]}"
