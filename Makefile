# One entry point for people and CI. `.ci/run` calls `make test`.
CARGO ?= cargo
PYTHON ?= python3
TOOLS := .tools
VENV := $(TOOLS)/venv
BENCH_VENV := $(TOOLS)/bench-venv

.PHONY: serve test fmt fmt-check clippy lint lint-schemas proptest-long doc python-client measure generate bench bench-venv bench-compile clean-tools

## The offline MCP server on stdio: replays cassettes/, needs no credentials.
serve:
	@$(CARGO) run --locked -q -p modyo-lab -- serve

## Everything CI checks: formatting, lints, the Rust tests, and the strict Python client.
## The binaries are built first: the lab's tests probe the built modyo-mcp. Snapshots are
## never written here (INSTA_UPDATE=no): review changes with `cargo insta review`.
test: fmt-check clippy doc python-client
	$(CARGO) build --workspace --bins --locked
	$(MAKE) bench-compile
	INSTA_UPDATE=no $(CARGO) test --workspace --locked

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

## Regenerate every module's rollout report under reports/ (the release server, before and after).
## Extra arguments: make measure ARGS="--module content".
measure:
	$(CARGO) build --release --locked -p modyo-mcp -p modyo-lab
	$(CARGO) run --release --locked -q -p modyo-lab -- measure $(ARGS)

## Benchmarks: the criterion benches of the hot pieces, then `modyo-lab bench`, which measures
## against the physical floor and mcp-recorder and writes reports/performance.md (generated:
## commit it, never edit it). Extra arguments: make bench ARGS="--reps 30 --skip-measure".
bench: bench-venv
	$(CARGO) build --release --locked -p modyo-mcp -p modyo-lab
	$(CARGO) bench --locked -p modyo-lab --bench hot
	$(CARGO) run --release --locked -q -p modyo-lab -- bench $(ARGS)

## CI compiles the benches with the dev profile, against the dependencies `cargo test` builds.
bench-compile:
	$(CARGO) bench --no-run --locked --profile dev -p modyo-lab --bench hot

## mcp-recorder (pinned), the alternative the bench compares against, in a project-local venv.
bench-venv: $(BENCH_VENV)/.installed

$(BENCH_VENV)/.installed: harness/bench/requirements.txt
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/pip install --quiet --disable-pip-version-check -r harness/bench/requirements.txt
	touch $@

## Regenerate the deterministic fixture cassettes.
generate:
	$(CARGO) run --locked -q -p modyo-lab -- generate pilot

clean-tools:
	rm -rf $(TOOLS)
