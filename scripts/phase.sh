#!/usr/bin/env bash
# phase.sh NAME COMMAND [ARG]...: runs COMMAND as one phase of make test,
# between a line that names the phase (with the time of day and the load
# average, as runs on a shared machine vary) and one that says how long it
# took, so that a long run shows where it is. Exits with COMMAND's status.
set -uo pipefail
name=$1
shift
load="$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?)"
echo "== phase $name ($(date +%H:%M:%S), load average $load)"
start=$SECONDS
"$@"
rc=$?
took=$((SECONDS - start))
if [ "$rc" -eq 0 ]; then
  echo "== phase $name done in ${took}s"
else
  echo "== phase $name FAILED after ${took}s (exit $rc)"
fi
exit "$rc"
