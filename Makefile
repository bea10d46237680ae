# Trawl: `make demo` runs the appliance on its sample web; `make test` runs every check.
# Both install what they need: npm packages (npm ci), and Debian's chromium for the e2e tests.

SHELL := /bin/bash
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
CHROMIUM ?= /usr/bin/chromium
STAMP := node_modules/.trawl-installed

.PHONY: all install demo test typecheck layering unit e2e chromium clean

all: test

$(STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	@touch $@

install: $(STAMP)

demo: install
	node bin/trawl.js demo

# Debian's chromium, never a browser download (npx playwright install cannot work here).
chromium:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  echo "installing Debian's chromium for the e2e tests"; \
	  $(SUDO) apt-get update -qq && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi
	@"$(CHROMIUM)" --version 2>/dev/null

# One gate, in order: typecheck (tests included) → layering → unit and integration → e2e in a real browser.
test: typecheck layering unit e2e

typecheck: install
	npx tsc --noEmit -p .

# The layering of ARCHITECTURE.md as a rule (.dependency-cruiser.cjs): who may import whom, no cycles.
layering: install
	npx depcruise --config .dependency-cruiser.cjs model lib store crawler indexer search-ui appliance cli config testweb bench

unit: install chromium
	npm run -s test:unit

e2e: install chromium
	npx playwright test

clean:
	rm -rf test-results playwright-report
