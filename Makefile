# skillsd — the only entry point people need. `make help` lists the targets.
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DELETE_ON_ERROR:
MAKEFLAGS += --no-builtin-rules
.DEFAULT_GOAL := help

BIN      := $(CURDIR)/bin
VERSION  ?= 0.1.0-dev
MODULES  := proto services/skills gateways/mcp gateways/rest clients/go tests deploy
# make unit's order: the longest first, as they start first.
UNIT_MODULES := services/skills tests gateways/mcp clients/go gateways/rest deploy proto
ifneq ($(sort $(MODULES)),$(sort $(UNIT_MODULES)))
$(error UNIT_MODULES and MODULES must list the same modules)
endif
PKGS     := $(addprefix ./,$(addsuffix /...,$(MODULES)))
#: STRIP  linker flags that leave the symbol table and DWARF out of the binaries (default -s -w: about a quarter smaller, the same stack traces; STRIP= keeps them, for perf, pprof's symbols and debuggers)
STRIP    ?= -s -w
LDFLAGS  := $(STRIP) -X main.version=$(VERSION)
# buf comes prebuilt from npm (tools/buf); the protoc plugins, staticcheck and
# crosscheck are built from the pinned tools module, each for the targets that use it.
BUF      := $(BIN)/buf
BUF_DIR  := tools/buf
PLUGINS  := $(BIN)/protoc-gen-go $(BIN)/protoc-gen-go-grpc $(BIN)/protoc-gen-grpc-gateway $(BIN)/protoc-gen-openapiv2
PLUGIN_PKGS := google.golang.org/protobuf/cmd/protoc-gen-go google.golang.org/grpc/cmd/protoc-gen-go-grpc github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-grpc-gateway github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-openapiv2
STATICCHECK := $(BIN)/staticcheck
CROSSCHECK  := $(BIN)/crosscheck
TOOLS    := $(BUF) $(PLUGINS) $(STATICCHECK) $(CROSSCHECK)
#: GO_TEST_FLAGS  flags of go test in make unit (default -race)
GO_TEST_FLAGS ?= -race
NPM_DIR  := tests/e2e/node
TS_DIR   := clients/typescript
UI_DIR   := console
PY_DIR   := clients/python
# Debian's Python: its python3-grpcio and python3-protobuf (.ci/run installs them).
PYTHON   ?= /usr/bin/python3

.PHONY: help
help: ## list the targets and the variables they read
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN{FS=":.*## "}{printf "  %-16s %s\n",$$1,$$2}'
	@echo
	@echo "Variables (make VAR=value target):"
	@grep -E '^#: [A-Z_]+ ' $(MAKEFILE_LIST) | sed 's/^#: //' | awk '{v=$$1; $$1=""; printf "  %-16s%s\n",v,$$0}'

# ---- tools ------------------------------------------------------------------

# buf: @bufbuild/buf from npm, the version tools/buf/package.json pins; npm
# installs the one binary of this platform (an optional dependency), which is
# copied to ./bin/buf (no install script runs: the copy is the whole install).
$(BUF_DIR)/node_modules/.installed: $(BUF_DIR)/package.json $(BUF_DIR)/package-lock.json
	cd $(BUF_DIR) && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error
	touch $@

$(BUF): $(BUF_DIR)/node_modules/.installed
	@mkdir -p $(BIN)
	@want="$$(sed -n 's/.*"@bufbuild\/buf": *"\([^"]*\)".*/\1/p' $(BUF_DIR)/package.json)"; \
	set -- $(BUF_DIR)/node_modules/@bufbuild/buf-*/bin/buf; \
	if [ ! -x "$$1" ]; then echo "no buf binary for this platform in $(BUF_DIR)/node_modules/@bufbuild (npm ci installs it as an optional dependency of @bufbuild/buf)"; exit 1; fi; \
	cp "$$1" $@.tmp; got="$$($@.tmp --version)"; \
	if [ "$$got" != "$$want" ]; then rm -f $@.tmp; echo "$$1 is buf $$got, tools/buf/package.json pins $$want"; exit 1; fi; \
	mv $@.tmp $@; echo "buf $$got (prebuilt, npm) -> $@"

$(PLUGINS) &: tools/go.mod tools/go.sum
	GOWORK=off go build -C tools -o $(BIN)/ $(PLUGIN_PKGS)
	@touch $(PLUGINS)

$(STATICCHECK): tools/go.mod tools/go.sum
	GOWORK=off go build -C tools -o $(BIN)/ honnef.co/go/tools/cmd/staticcheck
	@touch $@

$(CROSSCHECK): tools/go.mod tools/go.sum tools/crosscheck/main.go
	GOWORK=off go build -C tools -o $(BIN)/ ./crosscheck
	@touch $@

.PHONY: tools
tools: $(TOOLS) ## install the pinned tools into ./bin: buf (prebuilt, from npm), the protoc plugins, staticcheck and crosscheck (built from tools/go.mod)

# deps fetches and builds, side by side, what every check needs: the tools,
# the npm packages of the end-to-end tests, the TypeScript client and the
# console, and the Go modules of every module (go list loads the packages and
# their tests, which downloads what they import and nothing more). On a
# fresh machine most of this waits on the network, so the downloads overlap
# the tools' compilation instead of each check waiting for its own.
DEPS := $(TOOLS) $(NPM_DIR)/node_modules/.installed $(TS_DIR)/node_modules/.installed $(UI_DIR)/node_modules/.installed go-modules
.PHONY: deps go-modules
deps: ## fetch and build, side by side, every tool, npm package and Go module the checks use
	@$(MAKE) --no-print-directory -j$(words $(DEPS)) $(DEPS)

go-modules:
	@for m in $(MODULES); do (cd $$m && GOWORK=off go list -deps -test ./... >/dev/null) || exit 1; done

# ---- build and run ------------------------------------------------------------

.PHONY: size
size: ## each binary's size with and without STRIP, and what is largest in it, by module (scripts/binsize.sh)
	bash scripts/binsize.sh $(BIN)/size "-X main.version=$(VERSION)" "$(STRIP)"

.PHONY: build
build: ## build skillsd, skills-mcp, skills-rest and skills into ./bin
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/skillsd ./services/skills/cmd/skillsd
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/skills-mcp ./gateways/mcp/cmd/skills-mcp
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/skills-rest ./gateways/rest/cmd/skills-rest
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/skills ./clients/go/cmd/skills

#: GRPC_ADDR  make run's gRPC address (default 127.0.0.1:50051; pick another when that port is taken)
GRPC_ADDR ?= 127.0.0.1:50051
#: HTTP_ADDR  make run's REST address (default 127.0.0.1:8080)
HTTP_ADDR ?= 127.0.0.1:8080
.PHONY: run
run: build ## build, then serve examples/skills over gRPC and REST (Ctrl-C stops)
	@./scripts/run-demo.sh "$(BIN)" "$(CURDIR)/examples/skills" "$(GRPC_ADDR)" "$(HTTP_ADDR)"

# ---- generation ---------------------------------------------------------------

.PHONY: generate
generate: $(BUF) $(PLUGINS) $(TS_DIR)/node_modules/.installed $(UI_DIR)/node_modules/.installed ## format the protos and regenerate every generated file (Go, OpenAPI 3, TypeScript and Python clients, the console's build)
	$(BIN)/buf format -w
	$(BIN)/buf generate
	go run -C gateways/rest ./internal/oas3gen/cmd/oas3gen internal/openapiv2/skillsd.swagger.json restgw/openapi/openapi.json
	cd $(TS_DIR) && npm run --silent generate
	$(PY_DIR)/generate.sh
	cd $(UI_DIR) && npm run --silent build -- --logLevel warn

.PHONY: checkgenerate
checkgenerate: generate ## fail when generated files differ from the committed ones
	@drift="$$(git status --porcelain --untracked-files=all -- proto gateways/rest clients console)"; \
	if [ -n "$$drift" ]; then echo "generated files drifted from the contract (run make generate and commit):"; echo "$$drift"; git --no-pager diff --stat; exit 1; fi

BASELINE := proto/baseline/skills.binpb
.PHONY: breaking
breaking: $(BUF) ## compare the contract with the committed baseline image
	$(BIN)/buf breaking --against $(BASELINE)

.PHONY: baseline
baseline: $(BUF) ## record the current contract as the baseline (a deliberate contract change)
	mkdir -p $(dir $(BASELINE))
	$(BIN)/buf build -o $(BASELINE)

# ---- checks -------------------------------------------------------------------

.PHONY: lint
lint: $(BUF) $(STATICCHECK) ## gofmt, go vet, staticcheck, buf lint and the house rules
	@unformatted="$$(gofmt -l $(MODULES) | grep -v '/gen/' || true)"; \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	go vet $(PKGS)
	$(BIN)/staticcheck $(PKGS)
	$(BIN)/buf lint
	$(BIN)/buf format --diff --exit-code
	./tools/checks.sh

.PHONY: npm-deps
npm-deps: $(NPM_DIR)/node_modules/.installed ## install the pinned npm packages the end-to-end tests use

$(NPM_DIR)/node_modules/.installed: $(NPM_DIR)/package.json $(NPM_DIR)/package-lock.json
	cd $(NPM_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(TS_DIR)/node_modules/.installed: $(TS_DIR)/package.json $(TS_DIR)/package-lock.json
	cd $(TS_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(UI_DIR)/node_modules/.installed: $(UI_DIR)/package.json $(UI_DIR)/package-lock.json
	cd $(UI_DIR) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

.PHONY: console
console: $(UI_DIR)/node_modules/.installed ## build the web console into gateways/rest/ui/dist (committed; make checkgenerate checks it)
	cd $(UI_DIR) && npm run --silent build

.PHONY: test-ts
test-ts: build $(TS_DIR)/node_modules/.installed ## the TypeScript client's tests (node:test) against real skills-rest and skillsd
	cd $(TS_DIR) && SKILLSD_BIN_DIR=$(BIN) npm test --silent

.PHONY: test-python
test-python: build ## the Python client's tests (unittest) against a real skillsd
	SKILLSD_BIN_DIR=$(BIN) $(PYTHON) -m unittest discover -s $(PY_DIR)/tests -v

SCREENSHOTS ?=
.PHONY: test-console
test-console: build $(UI_DIR)/node_modules/.installed ## the console in Chromium (playwright-core); screenshots under SCREENSHOTS (default: a temporary folder)
	cd $(UI_DIR) && SKILLSD_BIN_DIR=$(BIN) SKILLSD_SCREENSHOTS=$(SCREENSHOTS) npm test --silent

.PHONY: clients
clients: test-ts test-python test-console ## the TypeScript, Python and browser tests

#: UNIT_JOBS  how many modules make unit tests side by side (default 2)
UNIT_JOBS ?= 2
.PHONY: unit
unit: npm-deps ## go test every module on its own (GOWORK=off, as a consumer builds it), race detector on, UNIT_JOBS modules at a time (then tests alone)
	cd services/skills && GOWORK=off go run ./internal/pgtest/pgcheck
	UNIT_JOBS=$(UNIT_JOBS) UNIT_MODULES="$(UNIT_MODULES)" ./scripts/unit.sh $(GO_TEST_FLAGS)

.PHONY: fuzz
#: FUZZTIME  how long make fuzz runs each fuzz target (default 30s)
FUZZTIME ?= 30s
fuzz: ## run every fuzz target for FUZZTIME each (default 30s)
	@set -e; for pkg in $$(grep -rl --include='*_test.go' '^func Fuzz' services gateways clients | xargs -n1 dirname | sort -u); do \
	  for f in $$(grep -h '^func Fuzz' $$pkg/*_test.go | sed 's/func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do \
	    echo "== $$pkg $$f"; (cd $$pkg && go test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) .); \
	  done; done

# cross type-checks from source, for each system, every package of the modules
# and everything they import, with that system's files: what fails to build
# there shows (a symbol or file missing on it, a type error, an embed pattern
# matching nothing). It neither generates code nor links, so it takes under a
# minute where the full build for both systems takes ~10 on a cold cache;
# cross-build does that full build.
.PHONY: cross
cross: $(CROSSCHECK) ## type-check every module, and all it imports, for macOS and Windows (both supported, scripts aside); cross-build compiles and links
	$(CROSSCHECK) -os darwin,windows $(PKGS)

.PHONY: cross-build
cross-build: ## compile and link every module for macOS and Windows (slow on a cold cache; make cross type-checks the same in seconds)
	for os in darwin windows; do GOOS=$$os GOARCH=amd64 go build $(PKGS) || exit 1; done

# make test runs its phases one after the other, each between "== phase NAME"
# and "== phase NAME done in Ns" (scripts/phase.sh), and ends with the time of each.
TEST_PHASES := deps checkgenerate lint breaking build cross unit clients
.PHONY: test
test: ## everything CI checks, phase by phase, saying how long each took
	@start=$$SECONDS; times=""; \
	for p in $(TEST_PHASES); do \
	  t=$$SECONDS; ./scripts/phase.sh $$p $(MAKE) --no-print-directory $$p || exit 1; \
	  times="$$times$${times:+, }$$p $$((SECONDS - t))s"; \
	done; \
	echo "make test: all checks passed in $$((SECONDS - start))s ($$times)"

.PHONY: ci
ci: test ## what .ci/run runs

.PHONY: bench
bench: ## Go benchmarks of the service (catalog build, one-skill change on 3,000 skills, parsing, search, file reads, script runs)
	go test -run '^$$' -bench . -benchmem -count 5 ./services/skills/internal/...
	go test -run '^$$' -bench WatchedChange -count 5 ./services/skills/skillsd

.PHONY: clean
clean: ## remove ./bin and the npm packages
	rm -rf $(BIN) $(BUF_DIR)/node_modules $(NPM_DIR)/node_modules $(TS_DIR)/node_modules $(TS_DIR)/dist $(UI_DIR)/node_modules

STORE_EVENTS ?= 1000000
.PHONY: bench-store
bench-store: ## usage store: GetUsageStats for a 30-day window with 1,000,000 events in SQLite and in PostgreSQL (SKILLSD_TEST_DATABASE_URL), p50/p90 in ms
	@echo "bench-store: $(STORE_EVENTS) events; load average $$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime) on $$(nproc 2>/dev/null || echo ?) CPUs"
	cd services/skills && GOWORK=off go run ./internal/pgtest/pgcheck
	cd services/skills && SKILLSD_BENCH_STORE_EVENTS=$(STORE_EVENTS) go test -run '^$$' -bench '^BenchmarkStoreStats$$' -benchtime 30x -timeout 60m -v ./internal/usage | grep -v '^=== RUN'

#: BENCH_SIZES  make bench-startup's catalog sizes, copies of BENCH/corpus (default 387 3000 10000)
BENCH_SIZES ?= 387 3000 10000
#: BENCH_RUNS  make bench-startup's rounds per size, medians reported (default 5)
BENCH_RUNS ?= 5
#: PEER  make bench-startup's Node peer: the start command of universal-skills built outside the repository (scripts/build-peer.sh DEST prints it; docs/peer.md); empty: no peer
PEER ?=
.PHONY: bench-startup
bench-startup: build ## skills-mcp against a go-sdk floor (8 no-op tools), interleaved, cold and warm SKILLSD_HOME: start -> tools/list, -> first search, CPU, RSS, search p50/p99, at BENCH_SIZES skills; with PEER, against universal-skills too (docs/performance.md, docs/peer.md)
	@test -d "$(BENCH)/corpus" || { echo "bench-startup needs the benchmark corpus at $(BENCH)/corpus, a folder outside the repository (BENCH=DIR points at it)"; exit 1; }
	go build -o $(BIN)/benchfloor ./gateways/mcp/internal/benchfloor
	python3 scripts/bench-startup.py -n $(BENCH_RUNS) --skills-mcp $(BIN)/skills-mcp --floor $(BIN)/benchfloor --corpus "$(BENCH)/corpus" $(if $(PEER),--peer '$(PEER)') $(BENCH_SIZES)

#: COMPARE_BASE  make bench-compare's baseline: the git revision whose skills-mcp this tree's is compared with (default HEAD: what the uncommitted change does)
COMPARE_BASE ?= HEAD
#: COMPARE_SIZES  make bench-compare's catalog sizes, copies of BENCH/corpus (default 387)
COMPARE_SIZES ?= 387
#: COMPARE_RUNS  make bench-compare's rounds per size, medians reported (default 30)
COMPARE_RUNS ?= 30
#: COMPARE_OWN_HOMES  make bench-compare with state folders of each build's own (any value; default: shared), for builds whose cache files differ
COMPARE_OWN_HOMES ?=
.PHONY: bench-compare
bench-compare: build ## this tree's skills-mcp against COMPARE_BASE's (built in a temporary git worktree): warm starts alternated, copies of each binary rotated, with a noise row (COMPARE_BASE against itself); first search, tools/list, CPU, RSS at COMPARE_SIZES skills (docs/performance.md)
	@test -d "$(BENCH)/corpus" || { echo "bench-compare needs the benchmark corpus at $(BENCH)/corpus, a folder outside the repository (BENCH=DIR points at it)"; exit 1; }
	@set -e; wt=$$(mktemp -d); trap 'git worktree remove --force "$$wt" >/dev/null 2>&1 || true; rm -rf "$$wt"' EXIT; \
	  git worktree add --force --detach "$$wt" "$(COMPARE_BASE)" >/dev/null; \
	  echo "bench-compare: building skills-mcp at $(COMPARE_BASE) ($$(git rev-parse --short "$(COMPARE_BASE)"))"; \
	  (cd "$$wt" && go build -ldflags "$(LDFLAGS)" -o "$(abspath $(BIN))/skills-mcp-base" ./gateways/mcp/cmd/skills-mcp)
	python3 scripts/bench-compare.py -n $(COMPARE_RUNS) $(if $(COMPARE_OWN_HOMES),--own-homes) --corpus "$(BENCH)/corpus" --sizes "$(COMPARE_SIZES)" $(BIN)/skills-mcp-base $(BIN)/skills-mcp

.PHONY: bench-mcp
bench-mcp: build ## skills-mcp at scale: start-up to tools/list, tools/list, skills/list, resources/list and prompts/list sizes, RSS; on BENCH/corpus and a 3,000-skill copy of it
	@test -d "$(BENCH)/corpus" || { echo "bench-mcp needs the benchmark corpus at $(BENCH)/corpus, a folder outside the repository (BENCH=DIR points at it)"; exit 1; }
	python3 scripts/mcp-bench.py ./bin/skills-mcp --skills-dir "$(BENCH)/corpus"
	tmp="$$(mktemp -d)"; trap 'rm -rf "$$tmp"' EXIT; \
	python3 scripts/synth-catalog.py "$(BENCH)/corpus" "$$tmp/skills" 3000 && \
	python3 scripts/mcp-bench.py ./bin/skills-mcp --skills-dir "$$tmp/skills"
	go test -run '^$$' -bench 'Skills(IndexBuild|ListPage)' -benchmem ./gateways/mcp/mcpgw

#: BENCH  the benchmark folder of make bench-quality, bench-mcp, bench-startup and bench-load (default ../shared/bench: outside the repository, a clone does not have it)
BENCH     ?= ../shared/bench
BENCH_TMP ?= $(or $(TMPDIR),/tmp)/skillsd-bench-quality
.PHONY: bench-quality
bench-quality: ## routing quality over the benchmark at BENCH (a folder outside the repository) through search_skills over MCP (checked against skills eval): each dev query alone and with its restatement, scored by eval.py by query kind
	@if [ ! -d "$(BENCH)/corpus" ] || [ ! -f "$(BENCH)/queries.dev.jsonl" ] || [ ! -f "$(BENCH)/restatements.dev.jsonl" ] || [ ! -f "$(BENCH)/eval.py" ]; then \
	  echo "bench-quality: no routing benchmark at $(BENCH) (corpus/, queries.dev.jsonl, restatements.dev.jsonl and eval.py); nothing to measure"; exit 0; fi; \
	$(MAKE) --no-print-directory bench-bins && \
	bash scripts/bench-quality.sh $(BIN) "$(BENCH)" "$(BENCH_TMP)" lexical && \
	echo "bench-quality: rankings in $(BENCH_TMP)/lexical-single.jsonl and lexical-restated.jsonl" && \
	python3 "$(BENCH)/eval.py" --queries "$(BENCH)/queries.dev.jsonl" "$(BENCH_TMP)/lexical-single.jsonl" "$(BENCH_TMP)/lexical-restated.jsonl" --by-kind

LOAD_SECONDS     ?= 60
LOAD_CONCURRENCY ?= 50
LOAD_TMP         ?= $(or $(TMPDIR),/tmp)/skillsd-bench-load
.PHONY: bench-load
bench-load: build ## load run on real skillsd + skills-rest: gRPC and REST searches and gets at LOAD_CONCURRENCY (50) for LOAD_SECONDS (60), a catalog edit + RefreshSkills every 2 s, on $(BENCH)/corpus (else examples/skills); calls, errors, p50/p99, RSS
	go build -o $(BIN)/bench-load ./tests/load/cmd/bench-load
	@if [ -d "$(BENCH)/corpus" ]; then corpus="$(BENCH)/corpus"; \
	else corpus=examples/skills; echo "bench-load: no corpus at $(BENCH)/corpus: loading examples/skills instead"; fi; \
	bash scripts/bench-load.sh $(BIN) "$$corpus" "$(LOAD_TMP)" $(LOAD_SECONDS) $(LOAD_CONCURRENCY)

.PHONY: bench-bins
bench-bins:
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/skillsd ./services/skills/cmd/skillsd
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/skills-mcp ./gateways/mcp/cmd/skills-mcp
	go build -ldflags "$(LDFLAGS)" -o $(BIN)/skills ./clients/go/cmd/skills

.PHONY: bench-quality-semantic
bench-quality-semantic: ## bench-quality with semantic search (EMBEDDING_BASE_URL, or a local model from npm) beside the lexical engine: both modes, through MCP
	@if [ ! -d "$(BENCH)/corpus" ] || [ ! -f "$(BENCH)/queries.dev.jsonl" ] || [ ! -f "$(BENCH)/restatements.dev.jsonl" ] || [ ! -f "$(BENCH)/eval.py" ]; then \
	  echo "bench-quality-semantic: no routing benchmark at $(BENCH); nothing to measure"; exit 0; fi; \
	$(MAKE) --no-print-directory bench-bins && \
	bash scripts/bench-semantic.sh $(BIN) "$(BENCH)" "$(BENCH_TMP)"
