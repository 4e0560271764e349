#!/usr/bin/env bash
# Prints the plan for scaffolding a new Go HTTP service. Writes nothing.
# Arguments (environment only):
#   SKILL_ARG_NAME        service name, lowercase with hyphens (required)
#   SKILL_ARG_MODULE      Go module path (default: example.com/<name>)
#   SKILL_ARG_GO_VERSION  Go version for go.mod (default: 1.24)
set -euo pipefail

name="${SKILL_ARG_NAME:-}"
module="${SKILL_ARG_MODULE:-}"
go_version="${SKILL_ARG_GO_VERSION:-1.24}"

if [ -z "$name" ]; then
  echo "error: SKILL_ARG_NAME is required" >&2
  exit 2
fi
if ! printf '%s' "$name" | grep -Eq '^[a-z][a-z0-9]*(-[a-z0-9]+)*$'; then
  echo "error: name must be lowercase letters, digits and single hyphens: $name" >&2
  exit 2
fi
if ! printf '%s' "$go_version" | grep -Eq '^1\.[0-9]+(\.[0-9]+)?$'; then
  echo "error: go-version must look like 1.24 or 1.24.1: $go_version" >&2
  exit 2
fi
if [ -z "$module" ]; then
  module="example.com/$name"
fi

if ! printf '%s' "$module" | grep -Eq '^[A-Za-z0-9][A-Za-z0-9._~/-]*$'; then
  echo "error: module is not a valid Go module path: $module" >&2
  exit 2
fi

file() { printf '  %-44s %s\n' "$1" "$2"; }

printf 'Scaffold plan for service "%s"\n\n' "$name"
printf 'Module:     %s\nGo version: %s\n\n' "$module" "$go_version"

echo "Directories:"
for dir in "cmd/$name" internal/config internal/httpapi internal/store config; do
  echo "  $name/$dir/"
done

echo
echo "Files:"
file "$name/go.mod" "module $module, go $go_version"
file "$name/cmd/$name/main.go" "from templates/main.go.tmpl (Name=$name)"
file "$name/internal/config/config.go" "Config struct, Load() and Validate()"
file "$name/internal/httpapi/routes.go" "http.ServeMux with GET /healthz and GET /readyz"
file "$name/internal/httpapi/routes_test.go" "httptest table tests for every route"
file "$name/config/service.yaml" "from service-config.example.yaml (backend category)"

echo
echo "Commands:"
echo "  cd $name && go mod tidy"
echo "  go vet ./..."
echo "  go test -race ./..."
