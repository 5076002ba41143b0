# mk/deps.mk -- `make deps` and the deps-* targets: the Debian packages
# each target needs, installed when missing (apt-get).

# Debian packages of the dependencies (`make deps` installs the missing ones).
DEB_PKGS := build-essential pkg-config xz-utils bzip2 unzip curl libopenblas-dev liblapacke-dev \
            libarpack2-dev libcjson-dev libsqlite3-dev nettle-dev libmicrohttpd-dev \
            libgnutls28-dev libcurl4-openssl-dev gnutls-bin zlib1g-dev python3 python3-venv \
            python3-wheel-whl libjs-chart.js openmpi-bin libopenmpi-dev libparpack2-dev \
            liblinear-tools
# The browser test's chromium; node and npm run its driver and Redocly CLI
# (nodejs from another source may bring its own npm, so each is installed
# only when its command is missing).  TEST_TOOLS=0 leaves them out (the
# container image's build stage): those tests then skip, saying why.
TEST_TOOLS ?= 1
# The exact references of tests/accuracy (CVXOPT, by /usr/bin/python3):
# the tests and make bench-accuracy, never ircg or ircgd.
ACCURACY_PKGS := python3-numpy python3-cvxopt
TEST_PKGS  := chromium $(ACCURACY_PKGS)
# The Python client's tests with the libraries its users have (Debian's
# /usr/bin/python3 and its packages: a venv of the tests uses
# --system-site-packages).
TEST_PKGS  += python3-scipy python3-pandas python3-sklearn python3-tqdm
# make test-cluster: the hosts (iproute2's ip, util-linux's nsenter and
# unshare), Slurm with its authentication (munge), and gdb for the
# backtrace of a rank's core file.
CLUSTER_PKGS := iproute2 util-linux slurm-wlm munge gdb

# `make lint` needs the two analyzers; `make loadtest` wrk, curl.
LINT_PKGS := cppcheck clang-tidy
LOAD_PKGS := wrk curl
VALGRIND_PKGS := valgrind

# `make paper` also needs gnuplot for Figure 1, and python3-sklearn for the
# breast-cancer features of `study scale`'s natural-scale table (the CSV
# the package ships, tests/study/scale.h; without it that row says so).
PAPER_PKGS := gnuplot-nox python3-sklearn

# Installs the Debian packages of $(1) that are missing.
define apt_install
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=""; [ "$$(id -u)" -ne 0 ] && SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	else echo "all dependencies are installed"; fi
endef

# make deps: everything any target needs -- the service's build and run
# dependencies (deps-core, all make run installs), then, unless
# TEST_TOOLS=0, the test tools (chromium, node, Redocly CLI, Prism) and the tools
# of lint, fuzz, loadtest and valgrind.
#> install the Debian packages that are missing (apt-get), tools included
deps: deps-core
ifeq ($(TEST_TOOLS),1)
deps: deps-test deps-lint deps-fuzz deps-load deps-valgrind
# make test installs what is missing, as make run does for the service:
# on a fresh machine a missing test tool (Redocly, chromium, Slurm for the
# cluster suites' hosts) would be a skip that fails CI
test: deps-test
endif
test: deps-core

deps-core:
	$(call apt_install,$(DEB_PKGS))

deps-test:
	$(call apt_install,$(TEST_PKGS) $(CLUSTER_PKGS))
	@for c in node:nodejs npm:npm; do command -v $${c%%:*} >/dev/null || missing="$$missing $${c#*:}"; done; \
	if [ -n "$$missing" ]; then $(MAKE) --no-print-directory apt-install PKGS="$$missing"; fi
	$(MAKE) --no-print-directory deps-node

# Debian packages named on the command line (used by deps).
apt-install:
	$(call apt_install,$(PKGS))

# The test suite's node tools (tests/node/package.json, pinned by its
# lock): Redocly CLI, and Stoplight Prism (the contract check of every
# HTTP test's responses, tests/common/contract.h).  Into
# tests/node/node_modules, never committed; npm ci runs only when one is
# missing or the lock changed, so a machine that has them needs no network.
#> Redocly CLI and Stoplight Prism (npm ci in tests/node)
deps-node:
	@if [ ! -x tests/node/node_modules/.bin/redocly ] || [ ! -x tests/node/node_modules/.bin/prism ] || \
	    [ tests/node/package-lock.json -nt tests/node/node_modules ]; then \
	  cd tests/node && npm ci --no-audit --no-fund --loglevel=error && touch node_modules; \
	else echo "node tools are installed"; fi

deps-paper:
	$(call apt_install,$(PAPER_PKGS))

deps-accuracy:
	$(call apt_install,$(ACCURACY_PKGS))

deps-lint:
	$(call apt_install,$(LINT_PKGS))

deps-fuzz:
	$(call apt_install,$(FUZZ_PKGS))

deps-load:
	$(call apt_install,$(LOAD_PKGS))

deps-valgrind:
	$(call apt_install,$(VALGRIND_PKGS))
