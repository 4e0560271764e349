#!/usr/bin/env bash
# unit.sh [GO TEST FLAG]...: make unit's runner. Tests every Go module on its
# own (GOWORK=off, as a consumer builds it), UNIT_JOBS modules at a time
# (default 2): most of the suite's time is spent waiting on processes,
# servers and timers, not computing, so two modules side by side keep both
# cores busy where one after the other left them half idle. Each module's
# output is kept until it ends, then printed whole with the time it took, so
# the log reads module by module (a module's lines appear when it ends).
# Exits non-zero when any module failed, after all have ended, and names them.
#
# UNIT_MODULES overrides the module list (longest first: they start first).
# UNIT_ALONE lists the modules that run by themselves, after the others
# (default: tests, whose end-to-end, fault and contract suites time real
# processes against bounds that a second module's load can break). Their
# test binaries are compiled beforehand, beside the other modules (the
# "compile" lines: go test -run '^$', which compiles and links every test
# binary and runs none of its tests), so that their lone run spends its time
# testing, not compiling on a core the others left idle.
#
# Data-volume tests (func TestVolume*: many rows through a store, every answer
# checked against a reference, no goroutine of their own) skip themselves
# under -race, which finds nothing in them and makes them ten times slower.
# With -race among the flags, their packages are tested once more without it,
# -run '^TestVolume', beside the modules (the "volume" line in the log).
set -uo pipefail
cd "$(dirname "$0")/.."

modules=(${UNIT_MODULES:-services/skills tests gateways/mcp clients/go gateways/rest deploy proto})
alone=" ${UNIT_ALONE-tests} "
# UNIT_NORACE lists the modules tested without -race (default: deploy). Its
# test renders manifests and runs skillsd --check-config: no goroutine of its
# own for the detector to watch, while -race compiles k8s.io/api,
# apimachinery and kustomize instrumented and shares no package with the
# skillsd it builds. With an empty cache (2 shared cores, load 3 to 6,
# 2026-11-28): 225 s (276 s of CPU) with -race, 106 s (180 s) without.
norace=" ${UNIT_NORACE-deploy} "
jobs=${UNIT_JOBS:-2}
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

# run MODULE: go test in MODULE, its output kept in a log, printed whole when
# it ends (one module at a time: the lock), with its status and time.
run() {
  local m=$1 log="$logs/$(echo "$1" | tr / _)"
  local start=$SECONDS rc
  if [ "$m" = volume ]; then
    volume >"$log.out" 2>&1
  else
    local dir=${m#compile:} mflags=("${flags[@]}")
    if [[ "$norace" == *" $dir "* ]]; then
      mflags=()
      for f in "${flags[@]}"; do [ "$f" = -race ] || mflags+=("$f"); done
    fi
    [ "$dir" = "$m" ] || mflags+=(-run '^$')
    (cd "$dir" && GOWORK=off go test "${mflags[@]}" ./...) >"$log.out" 2>&1
  fi
  rc=$?
  echo "$rc" >"$log.rc"
  {
    flock 9
    echo "== $m: $([ "$rc" -eq 0 ] && echo ok || echo FAILED) in $((SECONDS - start))s"
    cat "$log.out"
  } 9>"$logs/print.lock"
}

flags=("$@")

# volume: each module's packages holding a TestVolume* test, without -race.
volume() {
  local m pkgs rc=0 noraceflags=()
  for f in "${flags[@]}"; do [ "$f" = -race ] || noraceflags+=("$f"); done
  for m in "${modules[@]}"; do
    [ "$m" != volume ] || continue
    mapfile -t pkgs < <(cd "$m" && grep -rl --include='*_test.go' --exclude-dir=node_modules '^func TestVolume' . | xargs -r -n1 dirname | sort -u)
    [ ${#pkgs[@]} -gt 0 ] || continue
    echo "$m: go test ${noraceflags[*]} -run '^TestVolume' ${pkgs[*]}"
    (cd "$m" && GOWORK=off go test "${noraceflags[@]}" -run '^TestVolume' "${pkgs[@]}") || rc=1
  done
  return $rc
}
if [[ " $* " == *" -race "* ]]; then
  modules+=(volume)
fi

# start MODULE MAX: once fewer than MAX modules run, start MODULE.
start() {
  while [ "$(jobs -rp | wc -l)" -ge "$2" ]; do
    wait -n 2>/dev/null || true
  done
  echo "-- $([ "$1" = volume ] && echo "the TestVolume* tests without -race" || { [[ "$1" == compile:* ]] && echo "compiling the test binaries of ${1#compile:} (-run '^\$')"; } || echo "go test ${flags[*]} ./... in $1$([[ "$norace" == *" $1 "* ]] && echo " (-race dropped: UNIT_NORACE)")") ($(date +%H:%M:%S), load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo ?))"
  run "$1" &
}

# The lone modules' test binaries are compiled in the slot that frees after
# the first two modules: not at the very start, where two go commands would
# compile the packages the modules share twice at once.
started=0
for m in "${modules[@]}"; do
  [[ "$alone" != *" $m "* ]] || continue
  start "$m" "$jobs"
  started=$((started + 1))
  if [ "$started" -eq 2 ]; then
    for a in "${modules[@]}"; do
      [[ "$alone" != *" $a "* ]] || start "compile:$a" "$jobs"
    done
  fi
done
wait
for m in "${modules[@]}"; do
  if [[ "$alone" == *" $m "* ]]; then
    start "$m" 1
    wait
  fi
done

failed=()
for m in "${modules[@]}"; do
  rc=$(cat "$logs/$(echo "$m" | tr / _).rc" 2>/dev/null || echo 1)
  [ "$rc" -eq 0 ] || failed+=("$m")
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "unit: tests failed in ${failed[*]}"
  exit 1
fi
