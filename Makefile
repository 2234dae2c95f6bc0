# FlowServer: `make run` starts the demo, `make test` runs every test suite.
# Both install the system packages they need when missing.

SWIFT ?= swift
# Debian packages: building and running, then what the test suites add.
BUILD_PACKAGES := libmicrohttpd-dev libsqlite3-dev pkg-config
TEST_PACKAGES := $(BUILD_PACKAGES) binutils chromium chromium-driver python3-pip postgresql wrk debootstrap nginx graphviz
BENCH_PACKAGES := $(BUILD_PACKAGES) wrk postgresql
# PyPI packages of the Python suites (module=package). DrHEADer pins an old jsonschema that
# openapi-spec-validator cannot use and needs it only for its command line; axe-playwright-python
# is there for its copy of axe-core (axe.min.js), not for Playwright: both come without dependencies.
PYTHON_TEST_PACKAGES := selenium=selenium pytest=pytest requests=requests yaml=pyyaml tabulate=tabulate \
	schemathesis=schemathesis openapi_spec_validator=openapi-spec-validator openapi_python_client=openapi-python-client
PYTHON_ALONE_PACKAGES := drheader=drheader axe_playwright_python=axe-playwright-python
ARGS ?=

EXAMPLE := Examples/Checkout
# The "Getting started" article, built as its reader would into GUIDE_BUILD (scripts/guide-package.py).
GETTING_STARTED := Sources/FlowWeb/FlowWeb.docc/GettingStarted.md
GUIDE_BUILD := .build/guide

.PHONY: run run-example build docs lint format test unit-tests example-tests fuzz-tests fuzz browser-tests api-tests soak-tests docker-check bench soak clean help

help:
	@echo "make run     build and start the demo on http://127.0.0.1:8080 (ARGS='--port 9000' to pass flags)"
	@echo "make run-example  build and start the checkout example ($(EXAMPLE)) on http://127.0.0.1:8080"
	@echo "make test    run every test suite: Swift, the browser suite, the Docker check (installs what is missing)"
	@echo "make format  rewrite the Swift sources with swift-format (.swift-format); make lint checks them"
	@echo "make docs    build the DocC documentation of every library into .build/docs (fails on a warning or an undocumented public symbol)"
	@echo "make bench   run the benchmarks (figures in Benchmarks/results/latest.md)"
	@echo "make soak    10 minutes of mixed traffic per store on the release build, figures printed"
	@echo "make fuzz    5 minutes of libFuzzer per parser; what adds coverage joins Fuzz/Corpus"

build:
	@scripts/ensure-packages.sh $(BUILD_PACKAGES)
	$(SWIFT) build --product flowserver

run: build
	"$$($(SWIFT) build --show-bin-path)/flowserver" $(ARGS)

# The checkout example is a package of its own, depending on FlowServer by path; it runs from its
# folder, where its Templates/ are.
run-example:
	@scripts/ensure-packages.sh $(BUILD_PACKAGES)
	$(SWIFT) build --package-path $(EXAMPLE) --product checkout
	cd $(EXAMPLE) && "$$($(SWIFT) build --package-path . --show-bin-path)/checkout" $(ARGS)

test: lint unit-tests docs example-tests fuzz-tests browser-tests api-tests soak-tests docker-check

# swift-format (in the toolchain) with the repository's .swift-format: `make format` rewrites,
# `make lint` (in make test) fails on any difference.
SWIFT_SOURCES := Package.swift Sources Tests Fuzz/Sources Benchmarks/Package.swift Benchmarks/Sources \
	Clients/Swift/Package.swift Clients/Swift/Sources $(EXAMPLE)/Package.swift $(EXAMPLE)/Sources $(EXAMPLE)/Tests
lint:
	$(SWIFT) format lint --strict --recursive $(SWIFT_SOURCES)

format:
	$(SWIFT) format format --in-place --recursive $(SWIFT_SOURCES)

# DocC (swift-docc-plugin) for every public library, the guide's articles in
# Sources/FlowWeb/FlowWeb.docc; scripts/check-docs.py fails on DocC's warnings and on any public
# symbol without a doc comment.
docs:
	@scripts/ensure-packages.sh $(BUILD_PACKAGES)
	python3 scripts/check-docs.py

# The executable's tests spawn processes with Foundation's Process and Pipe; they run in a test
# process of their own, apart from the in-process servers (a descriptor closed twice by the
# spawning side could otherwise hit a socket a server just reused).
unit-tests:
	@scripts/ensure-packages.sh $(TEST_PACKAGES)
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip FlowServerExecutableTests
	$(SWIFT) test --filter FlowServerExecutableTests

# The examples built as a user's packages would be. The checkout: its flow tests (FlowTestStore),
# its pages over HTTP (FlowTesting's TestServer), and a purchase in Chromium with Back, axe-core
# and the CSP checked on every page. Hello, the app of the "Getting started" article, and Hi, the
# README's smallest app: each made from its text in an empty folder, built (Hi on Hello's build
# folder, which holds FlowServer built once), served and used as the text says (Tests/guide).
example-tests:
	@scripts/ensure-packages.sh $(TEST_PACKAGES)
	@scripts/ensure-python-packages.sh $(PYTHON_TEST_PACKAGES)
	@scripts/ensure-python-packages.sh --no-deps $(PYTHON_ALONE_PACKAGES)
	$(SWIFT) build --package-path $(EXAMPLE) --build-tests
	$(SWIFT) test --package-path $(EXAMPLE) --skip-build
	CHECKOUT_BIN="$$($(SWIFT) build --package-path $(EXAMPLE) --show-bin-path)/checkout" python3 -m pytest -q $(EXAMPLE)/Tests/browser
	hello="$$(python3 scripts/guide-package.py $(GETTING_STARTED) $(GUIDE_BUILD))" && \
	hi="$$(python3 scripts/guide-package.py README.md $(GUIDE_BUILD)-readme "The smallest app")" && \
	$(SWIFT) build --package-path "$$hello" && \
	$(SWIFT) build --package-path "$$hi" --scratch-path "$$hello/.build" && \
	HELLO_PACKAGE="$$hello" HELLO_BIN="$$($(SWIFT) build --package-path "$$hello" --show-bin-path)/Hello" \
	HI_PACKAGE="$$hi" HI_BIN="$$($(SWIFT) build --package-path "$$hi" --scratch-path "$$hello/.build" --show-bin-path)/Hi" \
		python3 -m pytest -q Tests/guide

# Coverage-guided fuzzing of the parsers (Fuzz/, libFuzzer with AddressSanitizer): every kept
# crash input replayed, then 20 s per harness from the committed corpus (scripts/fuzz.sh).
fuzz-tests:
	@scripts/ensure-packages.sh $(BUILD_PACKAGES)
	scripts/fuzz.sh 20

fuzz:
	@scripts/ensure-packages.sh $(BUILD_PACKAGES)
	scripts/fuzz.sh $${FUZZ_SECONDS:-300} --merge

# The Movies demo in a real headless Chromium (Selenium + pytest), against the built flowserver.
browser-tests:
	@scripts/ensure-packages.sh $(TEST_PACKAGES)
	@scripts/ensure-python-packages.sh $(PYTHON_TEST_PACKAGES)
	@scripts/ensure-python-packages.sh --no-deps $(PYTHON_ALONE_PACKAGES)
	$(SWIFT) build --product flowserver
	FLOWSERVER_BIN="$$($(SWIFT) build --show-bin-path)/flowserver" python3 -m pytest -q Tests/browser

# The OpenAPI document (Sources/FlowWeb/Defaults/Public/openapi.yaml) against a live demo server: a valid document, Schemathesis with every check
# finding nothing, clients generated from it (Python; Swift in Clients/Swift) driving the demo,
# and hostile requests (Tests/api).
api-tests:
	@scripts/ensure-packages.sh $(TEST_PACKAGES)
	@scripts/ensure-python-packages.sh $(PYTHON_TEST_PACKAGES)
	$(SWIFT) build --product flowserver
	FLOWSERVER_BIN="$$($(SWIFT) build --show-bin-path)/flowserver" python3 -m pytest -q Tests/api

# Mixed traffic (pages, visits, steps, deep links, history and API calls, new visitors) at 256
# connections on each store, briefly, on the release build (what operators run): every request answered, no 5xx, /healthz within 1 s, RSS
# steady, SIGTERM stops it (Tests/soak/soak.py); 2,000 slow clients from one address keep no
# one else out (Tests/soak/slow_clients.py); floods of cookie-less requests store nothing and one
# address storing new sessions as fast as it can is held to the limit (Tests/soak/free_sessions.py).
soak-tests:
	@scripts/ensure-packages.sh $(TEST_PACKAGES)
	$(SWIFT) build -c release --product flowserver
	FLOWSERVER_BIN="$$($(SWIFT) build -c release --show-bin-path)/flowserver" python3 Tests/soak/soak.py
	FLOWSERVER_BIN="$$($(SWIFT) build -c release --show-bin-path)/flowserver" python3 Tests/soak/slow_clients.py
	FLOWSERVER_BIN="$$($(SWIFT) build -c release --show-bin-path)/flowserver" python3 Tests/soak/free_sessions.py

# The same mix on the release build for 10 minutes per store at 256 connections (a 30 s warm-up,
# two runs of 285 s) with the store-failure runs, then 10 minutes of SQLite at 64 connections.
soak:
	@scripts/ensure-packages.sh $(TEST_PACKAGES)
	$(SWIFT) build -c release --product flowserver
	bin="$$($(SWIFT) build -c release --show-bin-path)/flowserver"; status=0; \
	FLOWSERVER_BIN="$$bin" python3 Tests/soak/soak.py --warmup 30 --seconds 285 --runs 2 || status=1; \
	FLOWSERVER_BIN="$$bin" python3 Tests/soak/soak.py --stores sqlite --connections 64 --warmup 30 --seconds 285 \
		--runs 2 --no-faults || status=1; \
	exit $$status

docker-check:
	@scripts/ensure-packages.sh $(BUILD_PACKAGES) debootstrap
	scripts/check-docker-runtime.sh

bench:
	@scripts/ensure-packages.sh $(BENCH_PACKAGES)
	Benchmarks/run.sh

clean:
	rm -rf .build .build-* Benchmarks/.build Benchmarks/Peers/.build Benchmarks/results $(EXAMPLE)/.build
