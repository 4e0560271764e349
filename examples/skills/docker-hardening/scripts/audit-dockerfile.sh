#!/usr/bin/env bash
# Prints hardening findings for a Dockerfile. Read-only: never builds or runs.
# Arguments (environment only):
#   SKILL_ARG_DOCKERFILE  path of the Dockerfile (default: Dockerfile)
# Exit status: 0 no findings, 1 findings, 2 usage error.
set -euo pipefail

file="${SKILL_ARG_DOCKERFILE:-Dockerfile}"
if [ ! -f "$file" ]; then
  echo "error: Dockerfile not found: $file" >&2
  exit 2
fi

findings=0
report() {
  echo "$file: $1"
  findings=$((findings + 1))
}

# Instructions only: drop comments and blank lines.
instructions="$(grep -Ev '^[[:space:]]*(#|$)' "$file" || true)"

# Base images that are neither pinned by digest, scratch, nor an earlier stage.
unpinned="$(printf '%s\n' "$instructions" | awk '
  toupper($1) == "FROM" {
    image = $2; i = 2
    while (image ~ /^--/) { i++; image = $i }
    if (!(image in stages) && image !~ /@sha256:/ && image != "scratch") print image
    if (toupper($(i + 1)) == "AS") stages[$(i + 2)] = 1
  }')"
if [ -n "$unpinned" ]; then
  report "base image not pinned by digest: $(printf '%s' "$unpinned" | tr '\n' ' ')"
fi
if printf '%s\n' "$instructions" | grep -Eiq '^[[:space:]]*FROM[[:space:]]+[^[:space:]@]+:latest([[:space:]]|$)'; then
  report "FROM uses the :latest tag"
fi

last_user="$(printf '%s\n' "$instructions" | grep -Ei '^[[:space:]]*USER[[:space:]]' | tail -n 1 | awk '{print $2}' || true)"
case "$last_user" in
  "") report "no USER instruction; the container runs as root" ;;
  root|0|0:*|root:*) report "final USER is root" ;;
esac

if printf '%s\n' "$instructions" | grep -Eiq '^[[:space:]]*ADD[[:space:]]'; then
  report "ADD used; prefer COPY unless unpacking a local archive"
fi
if printf '%s\n' "$instructions" | grep -Eiq '^[[:space:]]*(ENV|ARG)[[:space:]]+[A-Z0-9_]*(PASSWORD|SECRET|TOKEN|API_KEY)'; then
  report "secret-looking ENV/ARG; use a BuildKit secret mount"
fi
if printf '%s\n' "$instructions" | grep -Ei 'apt-get[[:space:]]+install' | grep -Eiqv 'no-install-recommends'; then
  report "apt-get install without --no-install-recommends"
fi
if printf '%s\n' "$instructions" | grep -Eiq '^[[:space:]]*(CMD|ENTRYPOINT)[[:space:]]+[^[[:space:]]'; then
  report "shell form CMD/ENTRYPOINT; use the exec form so signals reach the process"
fi
if ! printf '%s\n' "$instructions" | grep -Eiq '^[[:space:]]*HEALTHCHECK[[:space:]]'; then
  echo "$file: note: no HEALTHCHECK (fine if the orchestrator defines probes)"
fi

if [ "$findings" -gt 0 ]; then
  echo "$findings finding(s)"
  exit 1
fi
echo "no findings"
