# ircg -- build, test and benchmark.  `make help` lists the targets.

CC      ?= cc
BUILD   ?= build
OPT     ?= -O2
SAN     ?=
# Release builds compile the assertions out; `make asan` and `make debug`
# keep them (DEFS=).
DEFS    ?= -DNDEBUG
# -fPIC: the solver's and the client's objects also make shared libraries.
CFLAGS  := -std=c11 $(OPT) -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
           -D_DEFAULT_SOURCE $(DEFS) -pthread -fPIC -MMD -MP $(SAN) $(EXTRA_CFLAGS)
LDFLAGS := -pthread $(SAN) $(EXTRA_LDFLAGS)

# Each layer sees only what it may use (docs/DESIGN.md, "Layers and
# rooms"; tests/tools/layers.py checks the same rules on the sources):
#   solver  its own headers                   storage  nothing of ours
#   api     the solver's public header         server   api, storage, solver's public header
#   clients the public headers they use       tests    everything
CJSON_INC    := -I/usr/include/cjson
INC_PUBLIC   := -Isolver/include
INC_SOLVER   := $(INC_PUBLIC) -Isolver/src
INC_API      := $(INC_PUBLIC) -Iapi $(CJSON_INC)
INC_STORAGE  := -Istorage
INC_SERVER   := $(INC_PUBLIC) -Iapi -Istorage -Iserver $(CJSON_INC)
INC_CLIENT   := -Iclients/c $(CJSON_INC)
INC_CLI      := $(INC_PUBLIC) -Iapi -Iclients/cli -Iclients/c $(CJSON_INC)
INC_TESTS    := $(INC_SOLVER) -Iapi -Istorage -Iserver -Iclients/c -Iclients/cli -Itests $(CJSON_INC)
LIB_SOLVER  := -llapacke -lopenblas -larpack -lm
LIB_JSON    := -lcjson
LIB_SQL     := -lsqlite3 -lnettle -lz
LIB_HTTP    := -lmicrohttpd -lgnutls -lz
LIB_CURL    := -lcurl

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
TEST_PKGS  := chromium
# make test-cluster: the hosts (iproute2's ip, util-linux's nsenter and
# unshare) and Slurm with its authentication (munge).
CLUSTER_PKGS := iproute2 util-linux slurm-wlm munge

SOLVER_SRC  := $(sort $(shell find solver/src -name '*.c'))
API_SRC     := $(wildcard api/*.c)
STORAGE_SRC := $(wildcard storage/*.c)
SERVER_SRC  := $(filter-out server/main.c,$(wildcard server/*.c))
CLIENT_SRC  := $(wildcard clients/c/*.c)
CLI_SRC     := $(wildcard clients/cli/*.c)
MPI_SRC     := $(wildcard clients/mpi/*.c)
# tests/study: measurements shared by the unit tests (assertions) and the
# study program (the tables of tests/paper/RESULTS.md)
STUDY_LIB   := $(filter-out tests/study/study_main.c,$(wildcard tests/study/*.c))
TEST_SRC    := tests/harness.c $(wildcard tests/unit/*.c) $(wildcard tests/integration/*.c) \
               $(STUDY_LIB) $(wildcard tests/fuzz/*.c)
BENCH_SRC   := $(wildcard tests/bench/*.c)
# The cluster tests (tests/cluster/README.md): hosts made of network
# namespaces; their own runner, run by make test-cluster only.
CLUSTER_SRC := $(wildcard tests/cluster/*.c) tests/harness.c tests/unit/test_cli_util.c \
               tests/integration/http_util.c tests/integration/mpi_util.c \
               tests/integration/http_mpi_util.c
SCALE_SRC   := $(wildcard tests/bench_scale/*.c)
BENCH_STO_SRC := $(wildcard tests/bench_sto/*.c)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))

LIBIRCG    := $(BUILD)/lib/libircg.a
LIBAPI     := $(BUILD)/lib/libircgapi.a
LIBSTORE   := $(BUILD)/lib/libircgstore.a
LIBSERVER  := $(BUILD)/lib/libircgserver.a
LIBCLIENT  := $(BUILD)/lib/libircgclient.a
# Shared libraries: libircg (the solver) and libircgclient (the C client),
# versioned sonames, exporting only their public API (the .map files).
VERSION    := 0.1.0
SOVERSION  := 0
LIBIRCG_SO   := $(BUILD)/lib/libircg.so.$(VERSION)
LIBCLIENT_SO := $(BUILD)/lib/libircgclient.so.$(VERSION)
IRCGD      := $(BUILD)/bin/ircgd
IRCG_CLI   := $(BUILD)/bin/ircg
IRCG_MPI   := $(BUILD)/bin/ircg-mpi
RUN_TESTS  := $(BUILD)/bin/run_tests
CLUSTER_TESTS := $(BUILD)/bin/run_cluster_tests
BENCH_BIN  := $(BUILD)/bin/bench
STUDY_BIN  := $(BUILD)/bin/study
SCALE_BIN  := $(BUILD)/bin/bench_scale
BENCH_STO_BIN := $(BUILD)/bin/bench_sto

UI_FILES      := $(sort $(shell find server/ui -type f))
EXAMPLES_JSON := $(BUILD)/gen/examples.json
GEN_ASSETS    := $(BUILD)/gen/assets.c
ASSETS_OBJ    := $(BUILD)/obj/gen/assets.o

# The data sets (datasets/README.md): DATASETS of datasets/MANIFEST into
# build/data, each from a local copy when DATA_DIR names one, else
# downloaded (curl) and checked against its sums; DATA_BASE_URL serves them
# from a mirror instead of their publishers.
DATA_DIR      ?=
DATASETS      ?= ml-100k ml-1m
DATA_MANIFEST ?= datasets/MANIFEST
DATA_BASE_URL ?=
DATA_OUT      := $(BUILD)/data

# `make lint` needs the two analyzers; `make loadtest` wrk, curl.
LINT_PKGS := cppcheck clang-tidy
LOAD_PKGS := wrk curl
VALGRIND_PKGS := valgrind

# `make paper` also needs gnuplot for Figure 1.
PAPER_PKGS := gnuplot-nox
PAPER_BUDGET ?= 600
PAPER_BUDGET_100K ?= 120
PAPER_OUT ?= $(BUILD)/paper
STUDY_OUT ?= $(BUILD)/study

PREFIX  ?= /usr/local
DESTDIR ?=
UNITDIR ?= $(PREFIX)/lib/systemd/system

.PHONY: all lib test test-kernels loadtest deps-load valgrind deps-valgrind crashloop fuzz fuzz-bins \
        deps-fuzz tsan asan debug lint deps-lint bench bench-scale bench-stochastic bench-storage bench-mpi paper tta tta-run \
        study study-scale results run deps deps-core deps-test deps-paper data data-local deps-node apt-install openapi-lint \
        screenshots install uninstall clean help \
        deps-unit unit-check deps-image image image-test test-cluster bench-cluster
# ircg-mpi (clients/mpi/) is the one program built with MPI (Open MPI's
# flags, from mpicc); libircg and ircgd know nothing of it.  Without mpicc
# it is not built, and its tests skip saying why.
MPI_CFLAGS ?= $(shell mpicc --showme:compile 2>/dev/null)
MPI_LIBS   ?= $(shell mpicc --showme:link 2>/dev/null)
# PARPACK (libparpack2-dev), the ARPACK engine of ircg-mpi only: pkg-config
# when it knows parpack, else the library's plain name.
PARPACK_CFLAGS ?= $(shell pkg-config --cflags parpack 2>/dev/null)
PARPACK_LIBS   ?= $(or $(shell pkg-config --libs parpack 2>/dev/null),-lparpack)
MPI_BIN    := $(if $(MPI_LIBS),$(IRCG_MPI))

all: lib $(RUN_TESTS) $(BENCH_BIN) $(CLUSTER_TESTS) $(SCALE_BIN) $(BENCH_STO_BIN) $(STUDY_BIN) $(IRCGD) $(IRCG_CLI) $(MPI_BIN) $(LIBIRCG_SO) $(LIBCLIENT_SO)

help:
	@echo "make deps    install the Debian packages that are missing (apt-get), tools included"
	@echo "make         build the library, tools and tests into $(BUILD)/"
	@echo "make test    build and run the whole test suite"
	@echo "make test-kernels  the numerical suites under several OpenBLAS kernel sets"
	@echo "make test-cluster  MPI and Slurm across hosts made of network namespaces (root; minutes)"
	@echo "make fuzz    every libFuzzer target FUZZ_SECONDS=60 each (clang, ASan, UBSan)"
	@echo "make crashloop  kill -9 at random moments CRASHLOOP_KILLS=200 times, four jobs running"
	@echo "make asan    the test suite under AddressSanitizer and UBSan (assertions on)"
	@echo "make tsan    the threaded tests under ThreadSanitizer"
	@echo "make debug   the test suite at -O0 with assertions on"
	@echo "make lint    cppcheck and clang-tidy (.clang-tidy) over the shipped code"
	@echo "make screenshots  the dashboard in headless chromium, PNGs into docs/"
	@echo "make deps-node    Redocly CLI (npm ci in tests/node)"
	@echo "make openapi-lint Redocly CLI over api/openapi.json"
	@echo "make data    the data sets DATASETS=\"$(DATASETS)\" into $(DATA_OUT) (datasets/README.md):"
	@echo "             from a local copy DATA_DIR=DIR, else downloaded and checked"
	@echo "make bench   the MovieLens benchmark (its ratings: make data)"
	@echo "make bench-mpi    ircg-mpi on 1, 2, 4 ranks: s/iteration, RSS per rank, comm vs compute (BENCH_MPI_ARGS=)"
	@echo "make bench-cluster  ircg-mpi on 1-4 hosts (namespaces): per-iteration split, bytes, the cost model fitted"
	@echo "make valgrind  the ircg CLI under valgrind memcheck on every example"
	@echo "make loadtest  wrk on a real ircgd with jobs, SSE clients and submits; a burst of 500"
	@echo "make bench-scale  synthetic 1M/10M/100M ratings, readers, submit latency, a 1M-row trace,"
	@echo "             the file 1,000 least-norm jobs leave (SCALE_ARGS=)"
	@echo "make bench-storage  only the last two: the 1M-row trace download and the 1,000 jobs' file"
	@echo "make bench-stochastic  IR-SCG and IR-FSCG against IR-CG at 1e6 and 1e7 rows, the LIBSVM"
	@echo "             reader, the follow-up's experiment (hours, ~6 GB; BENCH_STO_ARGS=)"
	@echo "make paper   the paper's experiment, per method PAPER_BUDGET=600 s (ML-1M), PAPER_BUDGET_100K=120 s,"
	@echo "             the time to accuracy (TTA_BUDGET=600 s), then make study and make results"
	@echo "make study   the rates of Section 5, the selection instance, over-parameterized regression,"
	@echo "             the instances in other units (study-scale)"
	@echo "make study-scale  the scale-free varsigma: six examples and the paper's instance at 5 scales"
	@echo "make results tests/paper/RESULTS.md (from RESULTS.in.md) from the last paper, tta and study runs"
	@echo "make tta     time to g - g_opt <= 1e-4, 1e-6 per method on ML-1M (TTA_BUDGET=600 s each),"
	@echo "             then only the time-to-accuracy section of tests/paper/RESULTS.md (results.py)"
	@echo "make run     install, build and start the service"
	@echo "make unit-check  systemd-analyze verify + security on deploy/ircgd.service (wants OK or better)"
	@echo "make image   build deploy/Dockerfile with docker, podman or buildah as IMAGE=$(IMAGE)"
	@echo "make image-test  build the image and smoke-test it (serve, a job, the volume)"
	@echo "make install ircgd, ircg, the systemd unit, libircg.so and libircgclient.so with"
	@echo "             headers and pkg-config files under PREFIX=$(PREFIX) (DESTDIR stages)"
	@echo "make uninstall"
	@echo "make clean   remove $(BUILD)/, build-asan/ and build-debug/"

lib: $(LIBIRCG)

# V=1 shows the full commands.
Q := $(if $(V),,@)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC    $<")
	$(Q)$(CC) $(CFLAGS) $(INC) -c $< -o $@

$(BUILD)/obj/solver/%.o:      INC = $(INC_SOLVER)
$(BUILD)/obj/api/%.o:         INC = $(INC_API)
$(BUILD)/obj/storage/%.o:     INC = $(INC_STORAGE)
$(BUILD)/obj/server/%.o:      INC = $(INC_SERVER)
$(BUILD)/obj/clients/c/%.o:   INC = $(INC_CLIENT)
$(BUILD)/obj/clients/cli/%.o: INC = $(INC_CLI)
$(BUILD)/obj/clients/mpi/%.o: INC = $(INC_CLI) -Iclients/mpi $(MPI_CFLAGS) $(PARPACK_CFLAGS)
$(BUILD)/obj/tests/%.o:       INC = $(INC_TESTS)
$(BUILD)/obj/tests/bench_scale/%.o: INC = $(INC_PUBLIC) -Istorage

$(LIBIRCG): $(call obj,$(SOLVER_SRC))
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(LIBAPI): $(call obj,$(API_SRC))
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(LIBSTORE): $(call obj,$(STORAGE_SRC))
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^
$(LIBSERVER): $(call obj,$(SERVER_SRC)) $(ASSETS_OBJ)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# Files compiled into ircgd (server/assets.h): the dashboard, the OpenAPI
# document, and the examples of `ircg example` (server/examples.sh).
$(EXAMPLES_JSON): $(IRCG_CLI) server/examples.sh
	@mkdir -p $(dir $@)
	$(Q)server/examples.sh $(IRCG_CLI) $@
$(GEN_ASSETS): server/embed.sh api/openapi.json $(UI_FILES) $(EXAMPLES_JSON)
	@mkdir -p $(dir $@)
	$(Q)server/embed.sh $@ /openapi.json=api/openapi.json /v1/examples=$(EXAMPLES_JSON) \
	  $(foreach f,$(UI_FILES),/ui/$(patsubst server/ui/%,%,$(f))=$(f))
$(ASSETS_OBJ): $(GEN_ASSETS)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  CC    $<")
	$(Q)$(CC) $(CFLAGS) -Iserver -c $< -o $@
$(LIBCLIENT): $(call obj,$(CLIENT_SRC))
	@mkdir -p $(dir $@)
	$(Q)rm -f $@ && ar rcs $@ $^

# lib$(1).so.$(VERSION) from objects $(2), linked with $(3), exporting what
# the version script $(4) lists; soname lib$(1).so.$(SOVERSION).
define shared_lib
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) -shared $(LDFLAGS) -Wl,-soname,lib$(1).so.$(SOVERSION) -Wl,--version-script=$(4) \
	  -Wl,-z,defs -o $@ $(2) $(3)
endef
$(LIBIRCG_SO): $(call obj,$(SOLVER_SRC)) solver/libircg.map
	$(call shared_lib,ircg,$(call obj,$(SOLVER_SRC)),$(LIB_SOLVER),solver/libircg.map)
$(LIBCLIENT_SO): $(call obj,$(CLIENT_SRC)) clients/c/libircgclient.map
	$(call shared_lib,ircgclient,$(call obj,$(CLIENT_SRC)),$(LIB_CURL) $(LIB_JSON) -lm,clients/c/libircgclient.map)

# Each binary links only what it uses; dependents first.
$(IRCGD): $(call obj,server/main.c) $(LIBSERVER) $(LIBSTORE) $(LIBAPI) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_HTTP) $(LIB_SQL) $(LIB_JSON) $(LIB_SOLVER)

$(IRCG_CLI): $(call obj,$(CLI_SRC)) $(LIBCLIENT) $(LIBAPI) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_CURL) $(LIB_JSON) $(LIB_SOLVER)

# ircg-mpi shares the CLI's output files and spec helpers.
MPI_CLI_SRC := clients/cli/solve_output.c clients/cli/cli_util.c clients/cli/cli_opts.c
$(IRCG_MPI): $(call obj,$(MPI_SRC) $(MPI_CLI_SRC)) $(LIBAPI) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(PARPACK_LIBS) $(MPI_LIBS) $(LIB_JSON) -lz $(LIB_SOLVER)

$(RUN_TESTS): $(call obj,$(TEST_SRC)) $(LIBCLIENT) $(LIBSERVER) $(LIBSTORE) $(LIBAPI) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_CURL) $(LIB_HTTP) $(LIB_SQL) $(LIB_JSON) $(LIB_SOLVER)

$(CLUSTER_TESTS): $(call obj,$(CLUSTER_SRC)) $(LIBCLIENT) $(LIBSERVER) $(LIBSTORE) $(LIBAPI) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_CURL) $(LIB_HTTP) $(LIB_SQL) $(LIB_JSON) $(LIB_SOLVER)

$(STUDY_BIN): $(call obj,tests/study/study_main.c $(STUDY_LIB)) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_JSON) $(LIB_SOLVER)

# The scale benchmark links the library and the store (it seeds a long
# trace) and talks to a real daemon through libcurl.
$(SCALE_BIN): $(call obj,$(SCALE_SRC)) $(LIBSTORE) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_CURL) $(LIB_SQL) $(LIB_SOLVER)

# The stochastic methods' benchmark reads the problem's data (internal
# headers, as the tests do).
$(BENCH_STO_BIN): $(call obj,$(BENCH_STO_SRC)) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_SOLVER)

$(BENCH_BIN): $(call obj,$(BENCH_SRC))
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  LD    $@")
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIB_JSON)

# The data files (never committed: datasets/fetch.sh).  `make data` takes
# them from the local copy or downloads them, and fails saying why when it
# can do neither; `data-local` never touches the network (the tests, which
# skip what is missing, saying so).
DATA_FETCH = datasets/fetch.sh --out $(DATA_OUT) --manifest $(DATA_MANIFEST) \
             $(if $(DATA_DIR),--local $(DATA_DIR)) $(if $(DATA_BASE_URL),--base-url $(DATA_BASE_URL))
data:
	@$(DATA_FETCH) $(DATASETS)
data-local:
	@$(DATA_FETCH) --local-only $(DATASETS)

# IRCG_BUILD_DIR lets the tests find the daemon, the CLI and build/data.
# IRCG_SAN: the sanitizer flags, for what the tests compile themselves.
test: all data-local
	IRCG_BUILD_DIR=$(abspath $(BUILD)) IRCG_DATA_DIR=$(DATA_DIR) IRCG_SAN="$(SAN)" OPENBLAS_NUM_THREADS=1 ./$(RUN_TESTS) $(T)

# The cluster tests (tests/cluster/README.md): 3 or 4 hosts made of network
# namespaces (root, or CAP_SYS_ADMIN and CAP_NET_ADMIN; else they skip,
# saying why), Open MPI over TCP between them, ircgd launching jobs there
# with mpirun and with Slurm's srun, hosts lost mid-job.  A few minutes.
# tests/cluster/run.sh removes whatever the fixture made, whatever happens.
test-cluster: all data-local
	IRCG_BUILD_DIR=$(abspath $(BUILD)) IRCG_SAN="$(SAN)" OPENBLAS_NUM_THREADS=1 \
	  tests/cluster/run.sh ./$(CLUSTER_TESTS) $(T)

# The numerical suites again under several OpenBLAS kernel sets
# (tests/tools/kernels.sh): a tolerance must hold on any CPU's kernels.
# Not golden.: it compares bits with traces made on the default kernels of
# this machine's CPU (tests/data/golden/README.md), which another kernel
# set rounds differently in the first rows.
NUMERIC_SUITES := cgbio. core. cut_ls. cut_mc. logreg. logreg_ref. ls. ls_domain. ls_leastnorm. \
                  ls_norm. ls_oracle. ls_overparam. ls_rates. ls_simplex. portfolio. rates_qg. mc_dense. mc_lmo. mc_proj. mc_prox. mc_prox_dense. mc_sweep. \
                  mc_state. prox_ls. reference. restore. selection. synth. scale. bounds. stop.
test-kernels: all data-local
	IRCG_BUILD_DIR=$(abspath $(BUILD)) tests/tools/kernels.sh ./$(RUN_TESTS) $(NUMERIC_SUITES)

# Fuzzing (tests/fuzz/README.md): one libFuzzer binary per target, built
# by clang with ASan and UBSan in build-fuzz/, each run FUZZ_SECONDS at
# nice 19 on its working corpus (build-fuzz/corpus/NAME, seeded from
# tests/fuzz/corpus/NAME and tests/fuzz/regress/NAME).  Crashes land in
# build-fuzz/artifacts/NAME/; `make test` replays the stored inputs.
FUZZ_TARGETS ?= spec movielens udata csv mtx vector libsvm decimal checkpoint trace_chunk http
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?=
FUZZ_PKGS := clang
FUZZ_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_SUPPORT := tests/fuzz/fuzz_util.c tests/fuzz/fuzz_ratings.c
fuzz: deps-fuzz
	$(MAKE) BUILD=build-fuzz CC=clang OPT=-O1 DEFS= SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" fuzz-bins
	FUZZ_RUNS=$(FUZZ_RUNS) tests/tools/fuzz.sh build-fuzz $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-bins: $(foreach t,$(FUZZ_TARGETS),$(BUILD)/fuzz/fuzz_$(t))

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_SUPPORT) tests/fuzz/fuzz.h $(LIBSERVER) $(LIBSTORE) $(LIBAPI) $(LIBIRCG)
	@mkdir -p $(dir $@)
	@$(if $(V),,echo "  FUZZ  $@")
	$(Q)$(CC) $(filter-out -MMD -MP,$(CFLAGS)) $(INC_TESTS) -DFUZZ_LIBFUZZER -fsanitize=fuzzer \
	    -o $@ $(filter %.c,$^) $(filter %.a,$^) $(LIB_HTTP) $(LIB_SQL) $(LIB_JSON) $(LIB_SOLVER)

# The crash loop of `make test` (tests/integration/test_http_crashloop.c)
# with many more kills: CRASHLOOP_KILLS (200 by default; about ten minutes
# here), CRASHLOOP_SEED to replay a sequence of kill moments.
CRASHLOOP_KILLS ?= 200
crashloop: all
	IRCG_BUILD_DIR=$(abspath $(BUILD)) OPENBLAS_NUM_THREADS=1 \
	IRCG_CRASHLOOP_KILLS=$(CRASHLOOP_KILLS) $(if $(CRASHLOOP_SEED),IRCG_CRASHLOOP_SEED=$(CRASHLOOP_SEED)) \
	./$(RUN_TESTS) http_crashloop.

# ThreadSanitizer on the threaded tests (several workers, SSE clients,
# cancel and delete racing running jobs, shutdown during a solve); the
# daemons they start are the TSan build too.  Reports of any process go to
# build-tsan/tsan.PID; tests/tools/tsan.supp lists what is not ours, each
# entry with its reason.  Fails on any report.
TSAN_TESTS := http_race. http_sse. http_jobs. http_heartbeat. http_crash.sigterm \
              http_faults. http_owner. store_conc. pool.
# gcc instruments the load-time resolvers of target_clones functions, which
# run before the TSan runtime starts and crash: the files that use
# target_clones (numerical kernels, through SLV_CLONES of base/ksum.h)
# are built without TSan.
TSAN_PLAIN = $(shell grep -lE 'target_clones|SLV_CLONES' $(SOLVER_SRC))
ifeq ($(BUILD),build-tsan)
$(call obj,$(TSAN_PLAIN)): override CFLAGS := $(filter-out -fsanitize=thread,$(CFLAGS))
endif
tsan:
	rm -f build-tsan/tsan.*
	$(MAKE) BUILD=build-tsan OPT=-O1 DEFS= SAN="-fsanitize=thread" all
	TSAN_OPTIONS="suppressions=$(abspath tests/tools/tsan.supp) log_path=$(abspath build-tsan)/tsan second_deadlock_stack=1" \
	IRCG_BUILD_DIR=$(abspath build-tsan) OPENBLAS_NUM_THREADS=1 ./build-tsan/bin/run_tests $(TSAN_TESTS)
	@if ls build-tsan/tsan.* >/dev/null 2>&1; then cat build-tsan/tsan.*; \
	  echo "tsan: $$(ls build-tsan/tsan.* | wc -l) process(es) reported data races"; exit 1; \
	else echo "tsan: no reports"; fi

asan:
	$(MAKE) BUILD=build-asan OPT=-O1 DEFS= SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" test

# cppcheck and clang-tidy (.clang-tidy at the root) over the code we ship.
lint: deps-lint
	INC_SOLVER="$(INC_SOLVER)" INC_API="$(INC_API)" INC_STORAGE="$(INC_STORAGE)" \
	INC_SERVER="$(INC_SERVER)" INC_CLIENT="$(INC_CLIENT)" INC_CLI="$(INC_CLI)" \
	INC_MPI="$(INC_CLI) -Iclients/mpi $(MPI_CFLAGS) $(PARPACK_CFLAGS)" tests/tools/lint.sh

# The suite with assertions on and no optimization.
debug:
	$(MAKE) BUILD=build-debug OPT=-O0 DEFS= test

bench: all data
	OPENBLAS_NUM_THREADS=1 ./$(BENCH_BIN) $(BENCH_ARGS)

# The ircg CLI under valgrind's memcheck on every example with every
# algorithm (tests/tools/valgrind.sh).
valgrind: all deps-valgrind
	tests/tools/valgrind.sh $(BUILD)

# A benchmark of the service under load (tests/bench/loadtest.sh): wrk
# LOAD_SECONDS=60 at LOAD_CONNECTIONS=64 on job status and lists while
# jobs solve, SSE clients listen and submissions arrive; a burst of
# LOAD_BURST=500 submissions.  Latency, errors, RSS, jobs lost.
loadtest: all deps-load
	tests/bench/loadtest.sh $(BUILD)

# Big instances (issue 12): several GB of memory and minutes of CPU at 100M;
# SCALE_ARGS="--sizes 1,10" for a quick look.  Scratch files go to
# $(BUILD)/bench-scale and are removed.
bench-scale: all
	OPENBLAS_NUM_THREADS=1 ./$(SCALE_BIN) --bin $(BUILD)/bin --tmp $(BUILD)/bench-scale $(SCALE_ARGS)

# The stochastic methods (issue 28): the LIBSVM reader's throughput, the
# follow-up paper's experiment on an instance of its shape, then least
# squares and logistic regression at m = 1e6 and 1e7 rows, n = 1e3 and
# 1e5, each IR-CG step rule against IR-SCG and IR-FSCG (two batch sizes
# each).  About 6 GB of memory at 1e7 rows and hours of CPU: run it once,
# not in make test.  BENCH_STO_ARGS="--sizes 1e6 --budget 30" for a quick
# look (tests/bench_sto/bench_sto.c lists the options).
bench-stochastic: all
	OPENBLAS_NUM_THREADS=1 nice ./$(BENCH_STO_BIN) --tmp $(BUILD) $(BENCH_STO_ARGS)

# Storage (issue 12, item 4): the streamed download of a 1M-row trace and
# the file that 1,000 least-norm jobs of 2,000 iterations leave, table by
# table (~2 minutes on 2 cores).
bench-storage: all
	OPENBLAS_NUM_THREADS=1 ./$(SCALE_BIN) --bin $(BUILD)/bin --tmp $(BUILD)/bench-scale \
	  --no-solver --no-readers --sizes 1 --file-gb 0 $(SCALE_ARGS)

# ircg-mpi on 1, 2 and 4 ranks (issue 14): seconds per iteration, peak
# RSS per rank, communication against computation.  BENCH_MPI_ARGS="--sizes
# 10,100" adds the 100M instance (~6 GB over the ranks, minutes).
bench-mpi: all
	python3 tests/bench_mpi/bench_mpi.py --bin $(BUILD)/bin $(BENCH_MPI_ARGS)

# ircg-mpi across the hosts of tests/cluster (network namespaces; root):
# one ordered sum timed on 2-4 hosts and the cost model fitted to it, the
# 10M and 100M synthetic jobs on 1-4 hosts, the model's prediction error,
# and 1B ratings predicted (tests/bench_cluster/bench_cluster.py).  ~15 min
# and 5 GB; BENCH_CLUSTER_ARGS="--sizes 10" for the 10M job alone.
bench-cluster: all
	python3 tests/bench_cluster/bench_cluster.py --bin $(BUILD)/bin --tmp $(BUILD)/bench-cluster \
	  $(BENCH_CLUSTER_ARGS)

# The paper's experiment on both MovieLens files (Table 1, Figure 1), the
# time to accuracy on ML-1M, the studies beyond the paper, and
# tests/paper/RESULTS.md made from all of their outputs (with the commit
# that produced them).  OpenBLAS runs one thread: ours split the passes.
PAPER_RUN = OPENBLAS_NUM_THREADS=1 ./$(IRCG_CLI) paper
paper: all data deps-paper
	@mkdir -p $(PAPER_OUT)
	tests/paper/provenance.sh > $(PAPER_OUT)/provenance.json
	$(PAPER_RUN) --ratings $(DATA_OUT)/ratings.dat --out $(PAPER_OUT)/ml-1m --budget $(PAPER_BUDGET) $(PAPER_ARGS)
	$(PAPER_RUN) --ratings $(DATA_OUT)/u.data --out $(PAPER_OUT)/ml-100k --budget $(PAPER_BUDGET_100K) $(PAPER_ARGS)
	$(MAKE) tta-run study results

# The measurements beyond the paper's experiment (tests/study): the rate
# table of Section 5, the selection instance, over-parameterized regression,
# the instances in other units (study-scale, with the paper's instance
# when the MovieLens 1M ratings are in build/data).
STUDY_ENV = OPENBLAS_NUM_THREADS=1 $(if $(wildcard $(DATA_OUT)/ratings.dat),STUDY_RATINGS=$(DATA_OUT)/ratings.dat)
study: all
	$(STUDY_ENV) ./$(STUDY_BIN) all --out $(STUDY_OUT)
	@if command -v gnuplot >/dev/null; then cd $(STUDY_OUT) && gnuplot overparam.gp; \
	else echo "gnuplot is not installed (make deps-paper): $(STUDY_OUT)/overparam.gp not run"; fi

# Only the instances in other units: the scale-free varsigma against the
# absolute one of before and a grid (tests/study/scale_study.c); `make
# test` runs its short version (test_scale_study.c).
study-scale: all data
	$(STUDY_ENV) ./$(STUDY_BIN) scale --out $(STUDY_OUT)

# tests/paper/RESULTS.md (from its template RESULTS.in.md) and its copies
# of the outputs, from the last runs.
results:
	python3 tests/paper/results.py --paper $(PAPER_OUT) --study $(STUDY_OUT) --into tests/paper --check

# Time to accuracy on ML-1M, each method with the paper's parameters
# (tta-run: the run, part of make paper).  make tta: the run, then only
# the time-to-accuracy section of tests/paper/RESULTS.md, by results.py.
TTA_BUDGET ?= 600
TTA_THREADS ?= 2
TTA_METHODS ?= ircg-open,ircg-closed,ircg-ls,cgbio,irpg,bisg
TTA_OUT := $(PAPER_OUT)/tta-ml-1m
tta-run: all data
	@mkdir -p $(TTA_OUT)
	tests/paper/provenance.sh > $(TTA_OUT)/provenance.json
	$(PAPER_RUN) --ratings $(DATA_OUT)/ratings.dat --out $(TTA_OUT) --budget $(TTA_BUDGET) \
	  --threads $(TTA_THREADS) --time-to 1e-4,1e-6 --methods $(TTA_METHODS)
tta: tta-run
	python3 tests/paper/results.py --paper $(PAPER_OUT) --into tests/paper --only tta

# The store and the data directory live in build/: specs may name the
# MovieLens files that `make data` put there ("path": "ratings.dat").
RUN_ARGS ?= --db $(BUILD)/ircg.db --data-dir $(DATA_OUT)
run: deps-core all data-local
	OPENBLAS_NUM_THREADS=1 ./$(IRCGD) $(RUN_ARGS)

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
# TEST_TOOLS=0, the test tools (chromium, node, Redocly CLI) and the tools
# of lint, fuzz, loadtest and valgrind.
deps: deps-core
ifeq ($(TEST_TOOLS),1)
deps: deps-test deps-lint deps-fuzz deps-load deps-valgrind
endif

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
# lock): Redocly CLI.  Into tests/node/node_modules, never committed.
deps-node:
	@if [ ! -x tests/node/node_modules/.bin/redocly ] || [ tests/node/package-lock.json -nt tests/node/node_modules ]; then \
	  cd tests/node && npm ci --no-audit --no-fund --loglevel=error && touch node_modules; \
	else echo "node tools are installed"; fi

# Redocly CLI over the OpenAPI document (api/redocly.yaml); make test does
# the same when the tool is installed, CI always.
openapi-lint: deps-node
	REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true \
	  tests/node/node_modules/.bin/redocly lint --config api/redocly.yaml api/openapi.json

# Screenshots of the dashboard for docs/, by the headless browser against
# a daemon started for it (tests/browser/screenshots.sh).
screenshots: all
	tests/browser/screenshots.sh $(IRCGD) docs

deps-paper:
	$(call apt_install,$(PAPER_PKGS))

deps-lint:
	$(call apt_install,$(LINT_PKGS))

deps-fuzz:
	$(call apt_install,$(FUZZ_PKGS))

deps-load:
	$(call apt_install,$(LOAD_PKGS))

deps-valgrind:
	$(call apt_install,$(VALGRIND_PKGS))

# The systemd unit, checked offline by systemd's own analyzer.
UNIT_PKGS := systemd
deps-unit:
	$(call apt_install,$(UNIT_PKGS))
unit-check: deps-unit $(IRCGD)
	tests/tools/unit_check.sh deploy/ircgd.service $(IRCGD)

# The container image.  `make image` uses the engine that is there
# (docker, podman, buildah) and, without a registry, a debootstrap base
# (deploy/build-image.sh); `make image-test` installs podman and
# debootstrap, builds, and smoke-tests the image (tests/tools/image_test.sh:
# `podman run`, or the image's files under chroot where containers cannot
# run).  IMAGE_RUN_TESTS=0 skips `make test` inside the build.
IMAGE_PKGS := podman buildah uidmap fuse-overlayfs slirp4netns debootstrap curl util-linux
IMAGE ?= localhost/ircgd:latest
IMAGE_RUN_TESTS ?= 1
deps-image:
	$(call apt_install,$(IMAGE_PKGS))
image:
	IMAGE=$(IMAGE) RUN_TESTS=$(IMAGE_RUN_TESTS) deploy/build-image.sh
image-test: deps-image image
	tests/tools/image_test.sh $(IMAGE)

LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PCDIR      ?= $(LIBDIR)/pkgconfig

# A pkg-config file: $(1) name, $(2) description, $(3) library, $(4) the
# pkg-config modules it needs privately, $(5) other private flags.
define pc_file
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
	  'Name: $(1)' 'Description: $(2)' 'Version: $(VERSION)' \
	  'Requires.private: $(4)' 'Libs: -L$${libdir} -l$(3)' 'Libs.private: $(5)' \
	  'Cflags: -I$${includedir}' > $(DESTDIR)$(PCDIR)/$(1).pc
endef

# The daemon, the CLI, the unit; the shared libraries with their headers
# and pkg-config files (`cc app.c $$(pkg-config --cflags --libs ircg-client)`).
# DESTDIR stages it (tests/integration/test_install.c).
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(UNITDIR) $(DESTDIR)$(LIBDIR) \
	  $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PCDIR)
	install -m 0755 $(IRCGD) $(IRCG_CLI) $(MPI_BIN) $(DESTDIR)$(PREFIX)/bin/
	sed 's|/usr/local/bin/ircgd|$(PREFIX)/bin/ircgd|' deploy/ircgd.service > $(DESTDIR)$(UNITDIR)/ircgd.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/ircgd.service
	install -m 0755 $(LIBIRCG_SO) $(LIBCLIENT_SO) $(DESTDIR)$(LIBDIR)/
	for l in ircg ircgclient; do \
	  ln -sf lib$$l.so.$(VERSION) $(DESTDIR)$(LIBDIR)/lib$$l.so.$(SOVERSION); \
	  ln -sf lib$$l.so.$(SOVERSION) $(DESTDIR)$(LIBDIR)/lib$$l.so; done
	install -m 0644 solver/include/ircg.h clients/c/ircg_client.h $(DESTDIR)$(INCLUDEDIR)/
	install -d $(DESTDIR)$(INCLUDEDIR)/ircg
	install -m 0644 solver/include/ircg/*.h $(DESTDIR)$(INCLUDEDIR)/ircg/
	$(call pc_file,ircg,the IR-CG solver library,ircg,,-llapacke -lopenblas -larpack -lm)
	$(call pc_file,ircg-client,C client of the ircgd solver service,ircgclient,libcurl libcjson,-pthread -lm)
	@if [ -z "$(DESTDIR)" ] && command -v ldconfig >/dev/null && [ "$$(id -u)" -eq 0 ]; then ldconfig; fi

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ircgd $(DESTDIR)$(PREFIX)/bin/ircg $(DESTDIR)$(UNITDIR)/ircgd.service
	rm -f $(DESTDIR)$(LIBDIR)/libircg.so* $(DESTDIR)$(LIBDIR)/libircgclient.so* \
	  $(DESTDIR)$(INCLUDEDIR)/ircg.h $(DESTDIR)$(INCLUDEDIR)/ircg_client.h \
	  $(DESTDIR)$(PCDIR)/ircg.pc $(DESTDIR)$(PCDIR)/ircg-client.pc
	rm -rf $(DESTDIR)$(INCLUDEDIR)/ircg

clean:
	rm -rf $(BUILD) build-asan build-debug build-fuzz build-tsan

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
