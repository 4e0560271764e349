#!/usr/bin/env bash
# binsize.sh OUT_DIR LDFLAGS STRIP: builds each binary twice into OUT_DIR,
# with LDFLAGS and with STRIP added, and reports both sizes and the modules
# (or standard library packages) whose code and read-only data weigh most
# in it, from the unstripped build's symbol sizes (go tool nm). What a binary carries
# that it never uses shows there first; tools/checks.sh fails when a binary
# links test support.
set -euo pipefail
out=$1 ldflags=$2 strip=$3
mkdir -p "$out"
for main in services/skills/cmd/skillsd gateways/mcp/cmd/skills-mcp gateways/rest/cmd/skills-rest clients/go/cmd/skills; do
  name=$(basename "$main")
  go build -ldflags "$ldflags" -o "$out/$name.full" "./$main"
  go build -ldflags "$strip $ldflags" -o "$out/$name" "./$main"
  full=$(stat -c %s "$out/$name.full") small=$(stat -c %s "$out/$name")
  awk -v n="$name" -v f="$full" -v s="$small" 'BEGIN { printf "%s: %.1f MB, %.1f MB with the symbol table and DWARF (%.0f%% smaller)\n", n, s/1e6, f/1e6, 100*(f-s)/f }'
  # Code and read-only data (T, R: what the file holds; not BSS) by
  # module: a symbol's first three path elements when the first is a
  # domain (github.com/owner/repo), else its first (the standard library);
  # a type's or function's name after the package is cut off.
  go tool nm -size "$out/$name.full" | awk '
    $3 ~ /^[TtRr]$/ && $2 > 0 {
      sym = $4; sub(/^type:/, "", sym); sub(/^go:itab\.\*?/, "", sym); sub(/[(\[].*/, "", sym)
      n = split(sym, p, "/"); last = (p[1] ~ /\./ && n >= 3) ? 3 : 1
      key = p[1]; for (i = 2; i <= last; i++) key = key "/" p[i]
      sub(/\..*/, "", p[last]); if (last == 1) key = p[1]; else { key = p[1]; for (i = 2; i < last; i++) key = key "/" p[i]; key = key "/" p[last] }
      size[key] += $2; total += $2
    }
    END { for (k in size) printf "%8.0f KB %5.1f%%  %s\n", size[k]/1024, 100*size[k]/total, k }' | sort -rn | head -12
  echo
done
