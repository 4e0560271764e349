#!/usr/bin/env bash
# Prints the commits between two refs, grouped by Conventional Commit type.
# Read-only: it only runs git log and git describe.
# Arguments (environment only):
#   SKILL_ARG_FROM  start ref, exclusive (default: latest tag, or the root commit)
#   SKILL_ARG_TO    end ref, inclusive (default: HEAD)
set -euo pipefail

to="${SKILL_ARG_TO:-HEAD}"
from="${SKILL_ARG_FROM:-}"
if [ -z "$from" ]; then
  from="$(git describe --tags --abbrev=0 "$to" 2>/dev/null || true)"
fi

if [ -n "$from" ]; then
  range="$from..$to"
else
  range="$to"
fi

log="$(git log --no-merges --format='%h %s' "$range")"
echo "Commits in $range: $(printf '%s' "$log" | grep -c . || true)"

types="feat fix perf refactor docs test build ci chore"
known="^[0-9a-f]+ ($(printf '%s' "$types" | tr ' ' '|'))(\([^)]*\))?!?:"

print_group() {
  if [ -n "$2" ]; then
    printf '\n## %s\n%s\n' "$1" "$2"
  fi
}

print_group breaking "$(printf '%s\n' "$log" | grep -E '^[0-9a-f]+ [a-z]+(\([^)]*\))?!:' || true)"
for type in $types; do
  print_group "$type" "$(printf '%s\n' "$log" | grep -E "^[0-9a-f]+ ${type}(\([^)]*\))?:" || true)"
done
print_group other "$(printf '%s\n' "$log" | grep -Ev "$known" | grep . || true)"
