#!/usr/bin/env bash
# Builds the Node peer of the start-up benchmark, universal-skills
# (klaudworks/universal-skills, MIT: an MCP stdio server whose one `skill`
# tool lists every skill in its description), in DEST, a folder outside this
# repository; docs/peer.md. Nothing of it is ever committed here.
#
# usage: scripts/build-peer.sh DEST
#   PEER_REPO  the git URL to clone (default https://github.com/klaudworks/universal-skills.git;
#              a local mirror works too)
#   PEER_REV   the commit to build (default 75e8629, v3.1.0, the one measured)
#
# Needs git, node (18 or later) and npm (with the npm registry reachable, for
# npm ci). Prints the command line that starts the peer's stdio MCP server;
# bench-startup.py appends `--skill-dir CATALOG` to it. The command runs node
# itself (no shell, no npx), so the process measured is the server's.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 DEST (a folder outside the repository; PEER_REPO, PEER_REV override the source)" >&2
  exit 2
fi
repo="${PEER_REPO:-https://github.com/klaudworks/universal-skills.git}"
rev="${PEER_REV:-75e8629}"
dest="$1"

# Never build inside this repository.
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
dest="$(realpath -m "$dest")"
case "$dest/" in
  "$root"/*) echo "build-peer: $dest is inside the repository ($root); choose a folder outside it, e.g. /tmp/universal-skills" >&2; exit 2 ;;
esac

for tool in git node npm; do
  command -v "$tool" >/dev/null || { echo "build-peer: $tool is not installed" >&2; exit 1; }
done

if [ -e "$dest" ] && [ ! -d "$dest/.git" ]; then
  echo "build-peer: $dest exists and is not a git clone; remove it or choose another folder" >&2
  exit 1
fi
if [ ! -d "$dest/.git" ]; then
  git clone --quiet "$repo" "$dest"
fi
git -C "$dest" fetch --quiet origin 2>/dev/null || true
git -C "$dest" -c advice.detachedHead=false checkout --quiet "$rev"
echo "build-peer: universal-skills at $(git -C "$dest" rev-parse --short HEAD) in $dest" >&2

( cd "$dest" && npm ci --no-audit --no-fund --loglevel=error >&2 && npm run --silent build >&2 )
test -f "$dest/dist/cli.js" || { echo "build-peer: the build left no $dest/dist/cli.js" >&2; exit 1; }

echo "build-peer: start its stdio MCP server with (append --skill-dir DIR):" >&2
echo "$(command -v node) $dest/dist/cli.js mcp"
