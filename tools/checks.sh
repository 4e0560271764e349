#!/usr/bin/env bash
# House rules that the compiler cannot enforce (HOUSE_STYLE.md). Each rule is a
# grep over tracked Go files; a hit prints the offending lines and fails.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

status=0
rule() { # rule "message" <lines>
  if [[ -n "$2" ]]; then echo "house rule: $1"; echo "$2"; echo; status=1; fi
}
gofiles() { git ls-files -co --exclude-standard -- '*.go' | grep -v '/gen/' || true; }
nontest() { gofiles | grep -v '_test\.go$' || true; }

# Processes are started only by the sandbox package.
rule "exec.Command only in services/skills/internal/sandbox (and tests)" \
  "$(nontest | grep -v '^services/skills/internal/sandbox/' | xargs -r grep -n 'exec\.Command' || true)"
rule "no other way to start a process (or replace this one) outside services/skills/internal/sandbox" \
  "$(nontest | grep -v '^services/skills/internal/sandbox/' | xargs -r grep -nE '"os/exec"|os\.StartProcess|syscall\.(ForkExec|StartProcess|Exec)\(' || true)"

# Network listeners are opened only by services/skills/edge (auth, TLS and the
# refusal of unsafe addresses happen there), and by test support:
# internal/pgtest's loopback proxy to the test database (a database that goes
# away).
rule "net.Listen / tls.Listen / ListenAndServe only in services/skills/edge (and tests)" \
  "$(nontest | grep -vE '^services/skills/(edge|internal/pgtest)/' | xargs -r grep -nE 'net\.Listen\(|tls\.Listen\(|ListenAndServe(TLS)?\(|net\.ListenTCP\(' || true)"

# Every read of served content (skills and their files, assets, agents,
# docs) goes through services/skills/internal/confine, the one confined
# opener: one symlink rule for the catalog and its readers, and no read ever
# blocks on a FIFO or device. Other files of the service open only what is
# not content, each named here with why:
#   internal/config/parse.go  the configuration file (config loading)
#   internal/usage/           the analytics spool (the service's own state)
#   internal/gitsync/         the git cache's lock file (the service's own state)
#   internal/statefile/       the caches in the state folder (scans, catalog,
#                             search analyses, embeddings: the service's own state)
#   internal/testfs/          trees made for tests (test support)
#   internal/routingbench/    the routing benchmark's files (test support)
#   edge/tls.go               TLS certificates, keys and CAs (the service's own configuration)
#   skillstest/               test support (certificates made for tests)
rule "open served content only through services/skills/internal/confine (os.Open, os.ReadFile, os.OpenFile, os.OpenRoot, os.ReadDir, syscall.Open)" \
  "$(nontest | grep '^services/skills/' \
      | grep -vE '^services/skills/internal/(confine/|config/parse\.go$|usage/|gitsync/|statefile/|testfs/|routingbench/)' \
      | grep -vE '^services/skills/(edge/tls\.go|skillstest/)' \
      | xargs -r grep -nE 'os\.(Open|ReadFile|OpenFile|OpenRoot|OpenInRoot|ReadDir)\(|syscall\.Open\(|ioutil\.ReadFile\(|\.OpenRoot\(' || true)"

# Scripts and commands are confined through the binary itself, re-executed
# as the sandbox helper: every binary that embeds the service calls the hook
# first in main, and every test package that starts the service or the
# sandbox calls it in TestMain (else Landlock is missing from its runs).
rule "main of a binary that embeds skillsd must begin with skillsd.SandboxHelper()" \
  "$(for f in $(nontest | grep -E '/cmd/[^/]+/main\.go$'); do
       if cat "$(dirname "$f")"/*.go | grep -q '"github.com/skillsd/skillsd/services/skills/skillsd"'; then
         awk -v f="$f" '/^func main\(\) \{/ { getline; if ($0 !~ /^\tskillsd\.SandboxHelper\(\)/) print f ": main begins with: " $0; exit }' "$f"
       fi
     done)"
rule "a test package that starts the service or the sandbox must call the sandbox hook in TestMain" \
  "$( (gofiles | grep '_test\.go$' | xargs -r grep -lE 'skillstest\.Start\(|skillsd\.New\(|sandbox\.New(Runner|Commands)?\('
       echo services/skills/internal/sandbox/x_test.go) |
     xargs -rn1 dirname | sort -u | while read -r d; do
       grep -qE 'skillsd\.SandboxHelper\(\)|sandbox\.Helper\(\)|^\s+Helper\(\)' "$d"/*_test.go || echo "$d: no TestMain calls the sandbox hook"
     done)"

# No global loggers outside main packages.
rule "no slog.Default / log.Print / log.Fatal outside cmd/" \
  "$(nontest | grep -v '/cmd/' | xargs -r grep -nE 'slog\.Default\(|\blog\.(Print|Fatal|Panic)' || true)"

# A stdio MCP server writes nothing but protocol to stdout: only its main may
# touch os.Stdout (to hand it to the transport), and nothing prints.
rule "no fmt.Print in gateways/mcp" \
  "$(nontest | grep '^gateways/mcp/' | xargs -r grep -nE 'fmt\.Print' || true)"
rule "os.Stdout in gateways/mcp only in cmd/skills-mcp/main.go" \
  "$(nontest | grep '^gateways/mcp/' | grep -v '^gateways/mcp/cmd/skills-mcp/main\.go$' | xargs -r grep -n 'os\.Stdout' || true)"

# The REST gateway reaches the service over gRPC, never by direct call.
rule "never Register...HandlerServer (it skips interceptors)" \
  "$(gofiles | xargs -r grep -nE 'Register[A-Za-z]+HandlerServer\(' || true)"

# Gateways and clients reach the service only through gRPC: library packages
# never import the service (main packages and tests may, for embedded mode).
# Packages healthz, vocabulary and upstream are not the service: the one
# shape of the HTTP health probes over the standard gRPC health API, the one
# vocabulary of request fields (aliases, unknown-field answers), which every
# surface shares, and the one way of dialing skillsd replicas (--server).
rule "gateway/client library packages must not import services/skills" \
  "$(nontest | grep -E '^(gateways|clients)/' | grep -v '/cmd/' | xargs -r grep -n '"github.com/skillsd/skillsd/services/' | grep -vE '"github.com/skillsd/skillsd/services/skills/(healthz|vocabulary|upstream)"' || true)"

# Tests use t.Context(). Example functions and TestMain have no t: example_test.go
# files are exempt.
rule "use t.Context() in tests, not context.Background()/TODO()" \
  "$(gofiles | grep '_test\.go$' | grep -v 'example_test\.go$' | xargs -r grep -nE 'context\.(Background|TODO)\(\)' || true)"

# Every module builds what it imports at the versions the workspace selects.
# make unit tests each module on its own (GOWORK=off): a module that settles on
# an older golang.org/x/net than another compiles grpc, the generated code and
# everything above them once more, with and without -race, on every fresh
# machine. Listed: each dependency built at more than one version, with the
# modules and their versions (fix: go get DEP@VERSION in the lagging module,
# then go mod tidy).
mapfile -t modules < <(sed -n '/^use (/,/^)/{s/^[[:space:]]*\.\///p}' go.work)
rule "every module builds its dependencies at the same versions (make unit compiles each version again)" \
  "$(for m in "${modules[@]}"; do
       (cd "$m" && GOWORK=off go list -deps -test -f '{{with .Module}}{{if .Version}}{{.Path}} {{.Version}}{{end}}{{end}}' ./... 2>/dev/null | sort -u | sed "s|\$| $m|")
     done | awk '{ v[$1] = v[$1] " " $3 "@" $2; if (!(($1 SUBSEP $2) in seen)) { seen[$1, $2]; n[$1]++ } }
       END { for (p in n) if (n[p] > 1) print p ":" v[p] }' | sort)"

# The repository stands on its own: a markdown link leads to a file or folder
# the repository has (tracked, or new and not ignored), never out of it. Web
# and mail links are not checked; anchors are ignored (only the path is).
# Links in code spans count too (a SKILL.md is read raw, and an agent follows
# a path whatever its markup); fenced code blocks do not.
mdfiles() { git ls-files -co --exclude-standard -- '*.md' | grep -vE '(^|/)(node_modules|dist)/' | while read -r f; do [[ -f $f ]] && echo "$f"; done; }
mapfile -t markdown < <(mdfiles)
rule "markdown links lead to files of the repository (relative paths that exist, none out of it)" \
  "$( ((${#markdown[@]})) && awk '
  function report(why) { print FILENAME ":" FNR ": (" target ") " why }
  function check(t,   path, n, parts, out, i, m) {
    target = t
    if (t ~ /^file:/) { report("leads outside the repository"); return }
    if (t ~ /^[a-zA-Z][a-zA-Z0-9+.-]*:/ || t ~ /^#/) return
    sub(/[#?].*$/, "", t)
    if (t ~ /^\//) { report("is an absolute path: link relative to this file"); return }
    n = split((dir == "" ? "" : dir "/") t, parts, "/"); m = 0
    for (i = 1; i <= n; i++) {
      if (parts[i] == "" || parts[i] == ".") continue
      if (parts[i] == "..") { if (m == 0) { report("leads outside the repository"); return } m--; continue }
      out[++m] = parts[i]
    }
    path = ""; for (i = 1; i <= m; i++) path = path (i > 1 ? "/" : "") out[i]
    if (path != "" && !(path in have)) report("does not exist in the repository")
  }
  NR == FNR { have[$0] = 1; p = $0; while (sub(/\/[^\/]*$/, "", p)) have[p] = 1; next }
  FNR == 1 { fence = ""; dir = FILENAME; if (!sub(/\/[^\/]*$/, "", dir)) dir = "" }
  {
    line = $0
    if (match(line, /^[ \t]*(```|~~~)/)) {
      f = substr(line, RSTART + RLENGTH - 3, 3)
      if (fence == "") { fence = f; next }
      if (f == fence) { fence = ""; next }
    }
    if (fence != "") next
    if (match(line, /^[ ]*\[[^]]+\]:[ ]+[^ ]+/)) { t = line; sub(/^[ ]*\[[^]]+\]:[ ]+/, "", t); sub(/[ ].*$/, "", t); sub(/^</, "", t); sub(/>$/, "", t); check(t) }
    while (match(line, /\]\([^) ]+/)) {
      t = substr(line, RSTART + 2, RLENGTH - 2); sub(/^</, "", t); sub(/>$/, "", t); check(t)
      line = substr(line, RSTART + RLENGTH)
    }
  }' <(git ls-files -co --exclude-standard) "${markdown[@]}")"

# Binaries carry no test support: a main that links, even through another
# package, a package made for tests (testing, httptest, the skillstest,
# testfs, pgtest and routingbench helpers) ships it to every user.
binaries=(./services/skills/cmd/skillsd ./gateways/mcp/cmd/skills-mcp ./gateways/rest/cmd/skills-rest ./clients/go/cmd/skills)
rule "binaries link no test support (go list -deps)" \
  "$(for b in "${binaries[@]}"; do go list -deps "$b" | grep -E '^(testing|net/http/httptest)$|/(skillstest|testfs|pgtest|routingbench)$' | sed "s#^#$b links #"; done || true)"

exit $status
