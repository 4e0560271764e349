#!/usr/bin/env bash
# The load run of `make bench-load`: copies a catalog to a temporary folder,
# serves it with a real skillsd (gRPC) and a real skills-rest in front of it
# (REST), both on loopback ports the kernel picks, and runs bench-load
# against them: searches and gets on both surfaces while a skill of the copy
# is edited and RefreshSkills called every 2 s. Prints the figures; exits 1
# when a call failed or a short catalog was served.
#
#   scripts/bench-load.sh BIN_DIR CATALOG TMP_DIR SECONDS CONCURRENCY
set -euo pipefail
bin=$1 catalog=$2 tmp=$3 seconds=$4 concurrency=$5

rm -rf "$tmp"
mkdir -p "$tmp/state"
cp -a "$catalog" "$tmp/catalog"

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT INT TERM

# addr_from LOG WHAT: the address a server logged ("serving WHAT" … addr=…),
# waiting for it up to 60 s.
addr_from() {
  local log=$1 what=$2 pid=$3
  for _ in $(seq 1 600); do
    local a
    a=$(sed -n "s/.*msg=\"serving $what\".* addr=\([^ ]*\).*/\1/p" "$log" | head -n1)
    if [ -n "$a" ]; then echo "$a"; return; fi
    kill -0 "$pid" 2>/dev/null || { echo "bench-load: the server exited:" >&2; cat "$log" >&2; exit 1; }
    sleep 0.1
  done
  echo "bench-load: no \"serving $what\" line in $log after 60 s" >&2; exit 1
}

# A clean environment: no SKILLS_DIR or config of the machine, the state
# (the usage store, on by default, as on a real server) in the temporary
# folder. Calls are logged at debug level, so info logs only the rebuilds.
env -i PATH="$PATH" HOME="$tmp" SKILLSD_HOME="$tmp/state" LANG=C.UTF-8 \
  "$bin/skillsd" --grpc 127.0.0.1:0 --skills-dir "$tmp/catalog" 2>"$tmp/skillsd.log" &
skillsd_pid=$!
pids+=("$skillsd_pid")
grpc_addr=$(addr_from "$tmp/skillsd.log" gRPC "$skillsd_pid")

env -i PATH="$PATH" HOME="$tmp" SKILLSD_HOME="$tmp/state" LANG=C.UTF-8 \
  "$bin/skills-rest" --server "$grpc_addr" --http 127.0.0.1:0 2>"$tmp/skills-rest.log" &
rest_pid=$!
pids+=("$rest_pid")
rest_addr=$(addr_from "$tmp/skills-rest.log" REST "$rest_pid")

echo "bench-load: skillsd on $grpc_addr (pid $skillsd_pid), skills-rest on $rest_addr (pid $rest_pid), serving a copy of $catalog" >&2
"$bin/bench-load" --grpc "$grpc_addr" --rest "http://$rest_addr" --catalog "$tmp/catalog" \
  --duration "${seconds}s" --concurrency "$concurrency" \
  --pid skillsd="$skillsd_pid" --pid skills-rest="$rest_pid"
