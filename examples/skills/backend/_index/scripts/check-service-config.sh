#!/usr/bin/env bash
# Checks that a service configuration file defines every required top-level key.
# Read-only: it never modifies the file.
# Arguments (environment only):
#   SKILL_ARG_FILE  path of the YAML file (default: config/service.yaml)
set -euo pipefail

file="${SKILL_ARG_FILE:-config/service.yaml}"
required_keys="service http log database shutdown_timeout"

if [ ! -f "$file" ]; then
  echo "error: configuration file not found: $file" >&2
  exit 2
fi

missing=0
for key in $required_keys; do
  if grep -Eq "^${key}:" "$file"; then
    echo "ok       $key"
  else
    echo "missing  $key"
    missing=$((missing + 1))
  fi
done

if [ "$missing" -gt 0 ]; then
  echo "$file: $missing required key(s) missing" >&2
  exit 1
fi
echo "$file: all required keys present"
