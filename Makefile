# Trawl: `make demo` runs the appliance on its sample web; `make test` runs every check.
# Both install what they need: npm packages (npm ci), Debian's chromium for the e2e tests, and
# Debian's PostgreSQL 15 for the tests of the PostgreSQL store (each test file starts its own server),
# and both build the compiled JavaScript that `trawl` runs (dist/, scripts/build.ts).

SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CHROMIUM ?= /usr/bin/chromium
PG_BIN ?= /usr/lib/postgresql/15/bin
STAMP := node_modules/.trawl-installed

.PHONY: all install build demo test typecheck lint layering unit e2e chromium postgres clean

all: test

$(STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: $(STAMP)

# dist/: the CLI bundled by esbuild and the parse workers' files (~0.3 s). bin/trawl.js runs it while
# it is at least as new as every source file it was made from, and the TypeScript through tsx otherwise.
build: install
	npm run -s build

# (Run as the installed command is: its first line sets the allocator's mmap threshold.)
demo: install build
	bin/trawl.js demo

# Debian's chromium, never a browser download (npx playwright install cannot work here).
chromium:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  echo "installing Debian's chromium for the e2e tests"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi
	@"$(CHROMIUM)" --version 2>/dev/null

# Debian's PostgreSQL 15: only its programs are used (testweb/postgres.ts runs initdb and pg_ctl in a
# temp directory), so the package is told not to create and start a cluster of its own.
postgres:
	@if [ ! -x "$(PG_BIN)/initdb" ]; then \
	  echo "installing Debian's postgresql-15 for the PostgreSQL store's tests"; \
	  $(SUDO) mkdir -p /etc/postgresql-common/createcluster.d && \
	  echo 'create_main_cluster = false' | $(SUDO) tee /etc/postgresql-common/createcluster.d/trawl-tests.conf >/dev/null && \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >/dev/null; \
	fi
	@"$(PG_BIN)/postgres" --version

# One gate, in order: typecheck (tests included) → lint → layering → build → unit and integration → e2e in a real
# browser (the CLI tests and the e2e tests run the compiled `trawl`, as a user does).
test: typecheck lint layering build unit e2e

typecheck: install
	npx tsc --noEmit -p .

# Biome (biome.json): the formatting is checked, not applied (`npx biome format --write .` applies it), and the linter's
# recommended rules; then no line over 160 characters (what the formatter cannot wrap: strings, comments).
lint: install
	npx biome ci --reporter=summary .
	node --import tsx scripts/line-length.ts

# The layering of ARCHITECTURE.md as a rule (.dependency-cruiser.cjs): who may import whom, no cycles.
layering: install
	npx depcruise --config .dependency-cruiser.cjs model lib store crawler indexer search-ui appliance cli config testweb bench scripts

unit: install build chromium postgres
	npm run -s test:unit

e2e: install build chromium
	npx playwright test

clean:
	rm -rf test-results playwright-report dist .build
